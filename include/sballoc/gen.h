/* sballoc — the kernel generator: seeded, realistic BIR modules for tests and
 * benchmarks.
 *
 * A generated module holds one function "kernel" (or several, see
 * sba_gen_options.functions): a sequence of stages, each a
 * loop nest around a tile body taken from the shapes real kernels are made of
 * (a tiled matmul accumulating into PSUM, a reduction into an SB accumulator,
 * a row softmax, a TensorCopy chain), with DMA loads from ExternalInput DRAM
 * tensors and stores to ExternalOutput DRAM tensors, plus long-lived SB tensors
 * (a few pre-placed) that set the SB pressure. The same options give the same
 * module, byte for byte. */
#ifndef SBALLOC_GEN_H
#define SBALLOC_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "sballoc/export.h"
#include "sballoc/bir.h"

#ifdef __cplusplus
extern "C" {
#endif
SBA_API_BEGIN

typedef struct sba_gen_options {
    uint64_t seed;
    /* Memory-location sets in the function (SB, PSUM and DRAM), exactly;
     * 1 to 100,000,000. */
    uint32_t tensors;
    /* Depth of each stage's loop nest, 0 to 8. The innermost loop is the
     * stage's accumulation loop; the outer ones tile it. */
    uint32_t loop_depth;
    /* Weights of the SB tensor heights: "q:1,h:1,f:2" gives 32-, 64- and
     * 128-partition tensors in the ratio 1:1:2. Names: q/quarter/32,
     * h/half/64, f/full/128; a name without ":weight" weighs 1, so "full"
     * means every tensor is 128 partitions tall. NULL: "q:1,h:1,f:2". */
    const char *heights;
    /* Target peak of live SB bytes per partition, as a fraction of the
     * target's capacity, in (0, 8]. Above 1 the kernel cannot fit without
     * spilling. Live means from the first write to the last read, and across
     * a whole loop when the tensor is read before it is written in it. */
    double pressure;
    /* Geometry; NULL: the trn2 preset. A preset is recorded as the module's
     * arch, any other geometry as its "target". */
    const sba_target *target;
    /* Functions in the module, 0 or 1: one, "kernel". More: "kernel_0",
     * "kernel_1", ..., function i being the kernel of seed + i, each with
     * `tensors` sets; at most 4,096. */
    uint32_t functions;
} sba_gen_options;

/* Fills o with the defaults: seed 1, 100 tensors, loop depth 2,
 * heights "q:1,h:1,f:2", pressure 0.7, trn2. */
void sba_gen_defaults(sba_gen_options *o);

/* Generates a module. Bad options fail with SBA_ERR_USAGE and a message
 * naming the option; memory exhaustion with SBA_ERR_NOMEM. Returns NULL on
 * failure (err filled when not NULL). The caller owns the module: free it
 * with bir_module_free. `a` is the memory hook (NULL: the C library's).
 *
 * The function's def-use lists are built and fn->insts is in program order,
 * as after bir_load_buffer. Time and memory are linear in o->tensors. */
bir_module *sba_gen_module(const sba_gen_options *o, const sba_allocator *a, sba_error *err);

/* Planted packing instances (src/gen/planted.c): tensors that tile a box of
 * time × bytes × partition quarters exactly, so a zero-slack packing exists
 * by construction. */
typedef struct sba_planted_options {
    uint64_t seed;
    /* Tensors, 8 to 1,000,000. */
    uint32_t tensors;
    /* SB bytes per partition of the instance's target (a multiple of 32). */
    int64_t capacity;
    /* The heights mix, as sba_gen_options.heights; "full" gives a 1-D
     * instance. NULL: "q:1,h:1,f:1". */
    const char *heights;
    /* Time steps of the box; 0: as many as tensors. */
    uint32_t span;
    /* Smallest tensor, bytes per partition (rounded up to 32). */
    int64_t min_size;
    /* Percent of the tiling's pieces left out, 0 to 90: the box is cut into
     * about tensors × 100 / (100 - holes) pieces and a seeded choice of them
     * is dropped, so the instance keeps a known packing but has slack. */
    uint32_t holes;
    /* With holes: keep the pieces left out too, as tensors listed after the
     * others: the tiling the holes were cut from, whose first `tensors`
     * tensors are the instance's (the same names, lives and sizes) and
     * whose load is the capacity everywhere. So how much a function's
     * slack costs the packer can be measured on its own twin. */
    bool fill_holes;
    /* How many times less often a box is cut in time than its extents
     * alone would say (0 or 1: as they say), so that tensors live longer
     * for their size: at N about N times longer, relative to the span,
     * than they are tall relative to the capacity. MiniMalloc's
     * challenging instances look like N = 1 to 13 (their median tensor
     * lives 6-23 % of the time and takes 2-8 % of the capacity). Guillotine
     * cuts only (not with walls). */
    uint32_t elongation;
    /* The walls construction instead of guillotine cuts: at every step
     * some tensors end and the room they leave is cut again at new points,
     * as memory reused over time, so that no cut in time or bytes splits
     * the tiling. 1-D with heights "full"; in 2-D (the mix must have
     * quarters) each quarter's room is cut by height, the mix tilting how
     * many of each, and now and then the last step makes a few more
     * tensors than asked. Its span defaults to a quarter of the tensors. */
    bool walls;
} sba_planted_options;

/* seed 1, 500 tensors, 65,536 bytes, "q:1,h:1,f:1", span 0, min size 512,
 * no holes. */
void sba_planted_defaults(sba_planted_options *o);

/* The planted instance; with `solution`, every placement carries the planted
 * packing (addr, base, dims, allocated). The same options give the same
 * module, byte for byte, with or without the solution. Bad options fail with
 * SBA_ERR_USAGE. */
bir_module *sba_gen_planted(const sba_planted_options *o, bool solution, const sba_allocator *a, sba_error *err);

SBA_API_END
#ifdef __cplusplus
}
#endif
#endif

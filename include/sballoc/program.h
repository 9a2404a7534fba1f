/* sballoc — the program view the allocator needs: linearization into program
 * points, operand footprints, validation and the kernel generator.
 *
 * Ownership: results are allocated in the arena the caller passes and live
 * until that arena is freed. */
#ifndef SBALLOC_PROGRAM_H
#define SBALLOC_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "sballoc/export.h"
#include "sballoc/bir.h"

#ifdef __cplusplus
extern "C" {
#endif
SBA_API_BEGIN

struct sba_arena;

/* ---- linearization ------------------------------------------------------ */

typedef enum bir_point_kind {
    BIR_PT_INST = 0,      /* an ordinary instruction */
    BIR_PT_LOOP_HEADER,   /* a Loop instruction's entry */
    BIR_PT_LOOP_END,      /* a Loop's end: the back edge (opcode 105) */
    BIR_PT_COUNT
} bir_point_kind;

const char *bir_point_kind_name(uint32_t k);

typedef struct bir_point {
    uint32_t kind;        /* bir_point_kind */
    bir_inst *inst;       /* the instruction, or the Loop for header and end */
} bir_point;

typedef struct bir_linear {
    const bir_function *fn;
    bir_point *points;    /* program points in order */
    uint32_t npoints;
    uint32_t *point_of;   /* inst->index -> its point (a Loop: its header) */
    uint32_t *end_of;     /* inst->index -> a Loop's end point; UINT32_MAX otherwise */
    bir_inst ***nest;     /* inst->index -> enclosing loops, outermost first */
    uint32_t *depth;      /* inst->index -> number of enclosing loops */
    uint32_t max_depth;
} bir_linear;

/* Numbers every instruction, loop header and loop end of fn in program order.
 * A Loop's header precedes its body and its end follows it. The result owns
 * its memory, taken from `a` (NULL: the default allocator); free it with
 * bir_linear_free. NULL, with err filled, when out of memory. */
bir_linear *bir_linear_new(const bir_function *fn, const sba_allocator *a, sba_error *err);
void bir_linear_free(bir_linear *lin);
/* The same into an arena of the library's (the passes' form): *out lives
 * until the arena is freed. */
sba_status bir_linearize(const bir_function *fn, struct sba_arena *ar, bir_linear *out,
                         sba_error *err);

/* Trip count of a loop: ceil((ub - lb) / stride), 0 when empty. */
int64_t bir_loop_trip_count(const bir_inst *loop);

/* ---- operand footprints ------------------------------------------------- */

typedef enum bir_block_access {
    BIR_BLOCKS_CONST = 0, /* one block, `block` */
    BIR_BLOCKS_AXIS,      /* block = block + block_coeff * (axis value - lb) / stride, per iteration of block_loop */
    BIR_BLOCKS_ALL,       /* any block: [block, block_hi] over the whole loop range */
    BIR_BLOCKS_COUNT
} bir_block_access;

/* What an access-pattern operand touches of its tensor, for every value its
 * loop axes can take. Partitions and bytes are relative to the tensor's own
 * partition 0 and to the start of a block. */
typedef struct bir_footprint {
    int64_t part_lo, part_hi;   /* partitions [lo, hi) */
    int64_t byte_lo, byte_hi;   /* bytes per partition within a block [lo, hi) */
    uint32_t blocks;            /* bir_block_access */
    int64_t block, block_hi;    /* CONST, ALL: lowest and highest block touched (inclusive);
                                   AXIS: the block of the first and of the last iteration */
    const bir_inst *block_loop; /* BIR_BLOCKS_AXIS: the loop whose axis selects the block */
    int64_t block_coeff;        /* BIR_BLOCKS_AXIS: blocks advanced per iteration */
    uint32_t base_mask;         /* allowed base partitions of the tensor, bit b/32 for b in {0,32,64,96} */
    bool pins_base;             /* the access narrows base_mask below the tensor's own */
} bir_footprint;

/* Derives the footprint of a physical_ap or symbolic_ap operand. Fails with
 * "Access pattern out of bound" when any element falls outside the tensor. */
sba_status bir_operand_footprint(const bir_inst *in, const bir_operand *op, bir_footprint *fp,
                                 sba_error *err);

/* Start partitions allowed for a tile of `p` partitions (the hardware rule):
 * p > 64 -> {0}; 32 < p <= 64 -> {0, 64}; p <= 32 -> {0, 32, 64, 96}. As a mask
 * with bit i standing for partition 32*i; 0 (no start) when p < 1 or p > 128. */
uint32_t bir_start_partition_mask(int64_t p);

/* ---- validation --------------------------------------------------------- */

/* Checks a loaded function's program against its target: partition counts,
 * operands inside their tensors, loops, and reads of internal tensors that no
 * write can reach ("memlocs were undefined at use point"). */
sba_status bir_validate_function(const bir_function *fn, const sba_target *t, sba_error *err);
sba_status bir_validate_module(const bir_module *m, sba_error *err);

/* The index of fn among its module's functions (0 when it has none). */
int64_t bir_function_index(const bir_function *fn);
/* Writes the JSON path of instruction `in` of fn, or of its operand `op` when
 * op is not NULL, e.g. functions[0].blocks[0].instructions[3].ins[1], into
 * buf (size bytes, truncated to fit) and returns buf: "" when `in` is not in
 * fn's body. Errors of the footprint and of validation carry this path. */
const char *bir_inst_path(const bir_function *fn, const bir_inst *in, const bir_operand *op,
                          char *buf, size_t size);

SBA_API_END
#ifdef __cplusplus
}
#endif
#endif

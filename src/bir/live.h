/* The live-range rule shared by the SBUF, PSUM and DRAM allocators.
 *
 * One rule for every memory: a value is live from its first def to its last
 * use, in program points, extended across loops. With c the common prefix of
 * the def's and the use's loop nests, a def nested deeper than c moves to the
 * header of the loop at depth c and a use nested deeper moves to that loop's
 * end (the back edge). A value carried around a back edge — in some loop, its
 * first access is a read and the loop also writes it — is live across that
 * whole loop. A value defined at entry starts at point 0 and lasts to the end
 * of the outermost loop around its last use.
 *
 * The SBUF allocator (src/sbuf/live_range.c) applies it to partner groups;
 * the PSUM and DRAM allocators to single placements or must-alias groups
 * through bir_live_locations.
 *
 * Ownership: the scratch records come from the caller's arena. */
#ifndef SBA_BIR_LIVE_H
#define SBA_BIR_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "sballoc/alloc.h"
#include "sballoc/program.h"

/* Per-loop record of one value's accesses, stamped to avoid clearing. */
typedef struct bir_live_rec {
    uint32_t stamp;
    uint32_t first;      /* the first access's point inside the loop */
    bool first_read;     /* that access is a read */
    bool has_write;      /* the loop writes the value */
} bir_live_rec;

typedef struct bir_live_scratch {
    const bir_linear *lin;
    bir_live_rec *rec;   /* by Loop instruction index */
    uint32_t stamp;
} bir_live_scratch;

/* One value's interval: inclusive program points. */
typedef struct bir_live_interval {
    uint32_t start, end;
    bool carried;        /* live across some loop's back edge */
    const bir_inst *first_def, *last_use;
} bir_live_interval;

/* Scratch for the function lin linearizes; false when out of memory. */
bool bir_live_scratch_init(bir_live_scratch *s, const bir_linear *lin, sba_arena *ar);
/* Starts a new value: forgets the loop records of the previous one. */
void bir_live_begin(bir_live_scratch *s);
/* Records one access of the current value by `in`: a read, or a write;
 * `kills` when the write replaces the whole value, so that a loop whose first
 * access it is does not carry the value around its back edge. A partial write
 * counts like a read there: what it leaves comes from the previous iteration. */
void bir_live_note(bir_live_scratch *s, const bir_inst *in, bool write, bool kills);
/* Whether a write through op replaces every byte of every block of its
 * tensor (false when its footprint cannot be derived). */
bool bir_live_write_kills(const bir_inst *in, const bir_operand *op);
/* The interval from the anchors alone (no carried extension). */
void bir_live_anchor(const bir_linear *lin, const bir_inst *first_def, const bir_inst *last_use,
                     bool entry_def, uint32_t *start, uint32_t *end);
/* Widens [*start, *end] over every loop around `in` that carries the current
 * value (after every access was noted); true when some loop does. */
bool bir_live_extend(const bir_live_scratch *s, const bir_inst *in, uint32_t *start, uint32_t *end);
/* True when the current value's first access inside `loop` is a read. */
bool bir_live_first_read_in(const bir_live_scratch *s, const bir_inst *loop);

/* The whole rule for the accesses of n placements that hold one value
 * (a must-alias group, or one placement): first def = the writer at the
 * lowest point, last use = the reader at the highest point or a later def.
 * entry_def: the value exists at entry (an input or a constant). False when
 * no placement is accessed. */
bool bir_live_locations(bir_live_scratch *s, bir_location *const *locs, uint32_t n, bool entry_def,
                        bir_live_interval *out);

/* ---- helpers every allocator shares ----------------------------------- */

/* One diagnostic line through the options' log callback (nothing without one). */
void sba_alloc_log(const sba_alloc_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The base partitions a placement of p partitions may take: the start-partition
 * rule, narrowed by every access of loc (bit i stands for partition 32·i). */
sba_status bir_location_base_mask(const bir_location *loc, int64_t p, uint32_t *mask, sba_error *err);

#endif

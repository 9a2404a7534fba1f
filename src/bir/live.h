/* The live-range rule shared by the SBUF, PSUM and DRAM allocators.
 *
 * One rule for every memory: a value is live from its first def to its last
 * use, in program points, extended across loops. With c the common prefix of
 * the def's and the use's loop nests, a def nested deeper than c moves to the
 * header of the loop at depth c and a use nested deeper moves to that loop's
 * end (the back edge). A value carried around a back edge — in some loop, a
 * read in one iteration may see bytes an earlier iteration wrote
 * (bir_live_note says when) — is live across that whole loop. A value defined at entry starts at point 0 and lasts to the end
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

enum { BIR_LIVE_PIECES = 8 };

/* Per-loop record of one value's accesses, stamped to avoid clearing. */
typedef struct bir_live_rec {
    uint32_t stamp;
    uint32_t first_read; /* the first read in the loop that may see an earlier iteration (UINT32_MAX: none) */
    uint32_t kill;       /* the first point by which one iteration has written every byte (UINT32_MAX: never) */
    bool has_write;      /* the loop writes the value */
    uint32_t npieces;    /* partial writes that may cover the value together */
    uint32_t piece[BIR_LIVE_PIECES]; /* into bir_live_scratch.pieces */
} bir_live_rec;

/* A gap-free partial write in one iteration of a loop: blocks, partitions and
 * bytes [lo, hi), and the point where it is complete. */
typedef struct bir_live_piece {
    int64_t lo[3], hi[3];
    uint32_t done;
} bir_live_piece;

typedef struct bir_live_scratch {
    const bir_linear *lin;
    bir_live_rec *rec;   /* by Loop instruction index */
    uint32_t stamp;
    sba_arena *ar;       /* for the pieces */
    bir_live_piece *pieces; /* of the current value */
    uint32_t npieces, cappieces;
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
/* Records one access of the current value by `in` through op (op may be NULL
 * for a write: then it kills nothing). A write that, in one iteration of a
 * loop around it, writes every element of the tensor — itself, or with the
 * loops nested inside that loop around it run through — kills the value in
 * that loop from the point those loops end. A read that is local to the
 * outer `local` loops around it (it sees only bytes written earlier in the
 * same iteration of each: bir_live_read_local_depth) carries nothing around
 * them; any other read at or before a loop's kill carries the value around
 * that loop, if the loop writes it and runs more than once. A partial write
 * carries nothing by itself: what it leaves matters only where it is read. */
void bir_live_note(bir_live_scratch *s, const bir_inst *in, const bir_operand *op, bool write, uint32_t local);
/* Whether one execution of the write through op replaces every element of
 * its tensor in every iteration of the loops around it (false when that
 * cannot be shown: a footprint over all loop values does not count). */
bool bir_live_write_kills(const bir_linear *lin, const bir_inst *in, const bir_operand *op);
/* The number c of outer loops around the read r (through rop) in each
 * iteration of which r sees only elements that the write w (through wop)
 * wrote earlier in that same iteration; 0 when none. c is at most the loops
 * r and w share; w's loops below those end before r; each shared loop moves
 * both alike or only r; and w's elements in one iteration are gap-free and
 * include all of r's. */
uint32_t bir_live_read_local_depth(const bir_linear *lin, const bir_inst *r, const bir_operand *rop,
                                   const bir_inst *w, const bir_operand *wop);
/* The interval from the anchors alone (no carried extension). */
void bir_live_anchor(const bir_linear *lin, const bir_inst *first_def, const bir_inst *last_use,
                     bool entry_def, uint32_t *start, uint32_t *end);
/* Widens [*start, *end] over every loop around `in` that carries the current
 * value (after every access was noted); true when some loop does. */
bool bir_live_extend(const bir_live_scratch *s, const bir_inst *in, uint32_t *start, uint32_t *end);
/* True when the current value is carried around `loop` (bir_live_note). */
bool bir_live_carried_in(const bir_live_scratch *s, const bir_inst *loop);

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

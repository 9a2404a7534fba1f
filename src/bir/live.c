/* The live-range rule shared by the SBUF, PSUM and DRAM allocators (live.h).
 *
 * A value is carried around a loop when a read in one iteration may see what
 * an earlier iteration wrote. Per loop and value it keeps the first read that
 * is not local (one that an earlier write of the same iteration does not
 * cover) and the kill: the first point by which one iteration has written the
 * whole tensor, by one write or by several gap-free pieces. Every coverage
 * question is asked of one execution, or of one iteration of the loop with
 * the loops inside it run through — never of a footprint over all values of
 * the loop's own axis, which would take one slice per iteration for the whole.
 *
 * Requires: a linearization of the function and its def-use lists.
 * Complexity: O(accesses × loop depth + reads × writes) per value, the second
 * term from the locality test; pieces cost O(8⁴) per loop at most. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bir/live.h"

static uint32_t point(const bir_linear *lin, const bir_inst *in) { return lin->point_of[in->index]; }
static uint32_t header_point(const bir_linear *lin, const bir_inst *loop) { return lin->point_of[loop->index]; }
static uint32_t end_point(const bir_linear *lin, const bir_inst *loop) { return lin->end_of[loop->index]; }

bool bir_live_scratch_init(bir_live_scratch *s, const bir_linear *lin, sba_arena *ar)
{
    s->lin = lin;
    s->ar = ar;
    s->pieces = NULL;
    s->npieces = s->cappieces = 0;
    s->stamp = 0;
    s->rec = sba_arena_array(ar, (size_t)lin->fn->ninsts + 1, sizeof *s->rec);
    return s->rec != NULL;
}

void bir_live_begin(bir_live_scratch *s)
{
    s->stamp++;
    s->npieces = 0;
}

/* ---- one execution's element set ------------------------------------------

   An access touches offset + Σ step_j × i_j + Σ coeff_t × v_t, elements of its
   tensor, and each step or coefficient moves one component of (block,
   partition, free element) as the footprint model says (bir_operand_footprint:
   a multiple of P × F moves the block, another multiple of F the partition,
   anything else the free element; the first pair is the partition pair). So
   the elements form a box, one range per component, and a component's range
   is gap-free when, with its steps sorted, each step is at most the length
   covered so far. For the kill and locality rules the loops around the access
   split in two: the outer `depth` of its nest are `fixed` (one iteration's
   values), the deeper ones `ranging` (they run all their iterations: one more
   [step, num] pair each). A fixed loop of one iteration adds a constant; a
   fixed loop that moves the access is noted. The test is exact for nested
   slices and conservative otherwise: a gap it cannot rule out is a gap. */

enum { COMP_BLOCK = 0, COMP_PART, COMP_FREE, COMP_COUNT, SPAN_MAX_STEPS = 16 };

typedef struct span {
    int64_t lo[COMP_COUNT], hi[COMP_COUNT]; /* inclusive */
    bool exact[COMP_COUNT];                 /* every value of [lo, hi] is touched */
    bool moves;                             /* some fixed loop of ≥ 2 iterations moves it */
} span;

typedef struct span_acc {
    int64_t step[COMP_COUNT][SPAN_MAX_STEPS], num[COMP_COUNT][SPAN_MAX_STEPS];
    uint32_t n[COMP_COUNT];
} span_acc;

/* The summed coefficient of op's terms on `loop`. False on overflow. */
static bool loop_coeff(const bir_operand *op, const bir_inst *loop, int64_t *k)
{
    *k = 0;
    for (uint32_t t = 0; t < op->nterms; t++)
        if (op->terms[t].loop == loop && __builtin_add_overflow(*k, op->terms[t].coeff, k)) return false;
    return true;
}

/* The loops an access treats as fixed: the outer `depth` of its nest, less
 * `also` (loops of that prefix it runs through all the same). */
typedef struct fixing {
    uint32_t depth;
    const bir_inst *const *also;
    uint32_t nalso;
} fixing;

/* Whether `loop` is fixed for in: one of the fixed outer loops of its nest,
 * or no loop of the nest at all (one value for the whole access). */
static bool fixed_loop(const bir_linear *lin, const bir_inst *in, const fixing *fx, const bir_inst *loop)
{
    for (uint32_t k = 0; k < fx->nalso; k++)
        if (fx->also[k] == loop) return false;
    for (uint32_t k = fx->depth; k < lin->depth[in->index]; k++)
        if (lin->nest[in->index][k] == loop) return false;
    return true;
}

/* The tensor's P × F, F and the bounds (NBlocks, P, F). False when invalid. */
static bool geometry(const bir_set *set, int64_t unit[COMP_COUNT], int64_t bound[COMP_COUNT])
{
    int64_t nb = 1, f = 1, p = bir_set_partitions(set), pf;
    for (uint32_t i = 0; i < set->rank; i++) {
        if ((int32_t)i < set->partition_dim && __builtin_mul_overflow(nb, set->shape[i], &nb)) return false;
        if ((int32_t)i > set->partition_dim && __builtin_mul_overflow(f, set->shape[i], &f)) return false;
    }
    if (nb < 1 || f < 1 || p < 1 || __builtin_mul_overflow(p, f, &pf)) return false;
    unit[COMP_BLOCK] = pf, unit[COMP_PART] = f, unit[COMP_FREE] = 1;
    bound[COMP_BLOCK] = nb, bound[COMP_PART] = p, bound[COMP_FREE] = f;
    return true;
}

/* Adds `num` values of a step `st` (elements) to the span; `part`: the
 * partition pair. False on overflow. */
static bool add_step(span *sp, span_acc *acc, const int64_t unit[COMP_COUNT], int64_t st, int64_t num, bool part)
{
    if (num == 1 || st == 0) return true;
    int c = COMP_FREE;
    int64_t k = st;
    if (part) {
        if (st != unit[COMP_PART]) return false;
        c = COMP_PART, k = 1;
    } else {
        for (int x = COMP_BLOCK; x < COMP_FREE; x++)
            if (st % unit[x] == 0) {
                c = x, k = st / unit[x];
                break;
            }
    }
    int64_t reach;
    if (__builtin_mul_overflow(k, num - 1, &reach)) return false;
    if (__builtin_add_overflow(reach < 0 ? sp->lo[c] : sp->hi[c], reach, reach < 0 ? &sp->lo[c] : &sp->hi[c]))
        return false;
    if (acc->n[c] == SPAN_MAX_STEPS) {
        sp->exact[c] = false;
        return true;
    }
    uint32_t i = acc->n[c]++;
    int64_t a = k < 0 ? -k : k;
    while (i > 0 && acc->step[c][i - 1] > a) {
        acc->step[c][i] = acc->step[c][i - 1];
        acc->num[c][i] = acc->num[c][i - 1];
        i--;
    }
    acc->step[c][i] = a;
    acc->num[c][i] = num;
    return true;
}

/* The span of op with the loops fx names fixed. False when it cannot be
 * derived (invalid or overflowing, a loop that never runs). */
static bool span_of(const bir_linear *lin, const bir_inst *in, const bir_operand *op, const fixing *fx, span *sp)
{
    int64_t unit[COMP_COUNT], bound[COMP_COUNT], off = op->offset;
    if (!op->set || !op->ap || op->ndims == 0 || !geometry(op->set, unit, bound)) return false;
    span_acc acc;
    memset(&acc, 0, sizeof acc);
    memset(sp, 0, sizeof *sp);
    /* The terms first: a one-iteration loop moves the offset. */
    for (uint32_t t = 0; t < op->nterms; t++) {
        const bir_inst *loop = op->terms[t].loop;
        bool seen = false;
        for (uint32_t u = 0; u < t; u++) seen |= op->terms[u].loop == loop;
        if (seen) continue;
        int64_t k, trip, c;
        if (!loop || !loop_coeff(op, loop, &k)) return false;
        if (k == 0) continue;
        trip = bir_loop_trip_count(loop);
        if (trip < 1) return false;
        if (trip == 1 || !fixed_loop(lin, in, fx, loop)) {
            if (__builtin_mul_overflow(k, loop->axis.lb, &c) || __builtin_add_overflow(off, c, &off)) return false;
        } else {
            sp->moves = true;
        }
    }
    int64_t q, pos[COMP_COUNT];
    q = off / unit[COMP_PART], pos[COMP_FREE] = off % unit[COMP_PART];
    if (pos[COMP_FREE] < 0) pos[COMP_FREE] += unit[COMP_PART], q--;
    pos[COMP_BLOCK] = q / bound[COMP_PART], pos[COMP_PART] = q % bound[COMP_PART];
    if (pos[COMP_PART] < 0) pos[COMP_PART] += bound[COMP_PART], pos[COMP_BLOCK]--;
    for (int c = 0; c < COMP_COUNT; c++) sp->lo[c] = sp->hi[c] = pos[c], sp->exact[c] = true;
    for (uint32_t j = 0; j < op->ndims; j++)
        if (op->ap[j][1] < 1 || !add_step(sp, &acc, unit, op->ap[j][0], op->ap[j][1], j == 0)) return false;
    for (uint32_t t = 0; t < op->nterms; t++) {
        const bir_inst *loop = op->terms[t].loop;
        bool seen = false;
        for (uint32_t u = 0; u < t; u++) seen |= op->terms[u].loop == loop;
        int64_t k, st;
        if (seen || fixed_loop(lin, in, fx, loop) || !loop_coeff(op, loop, &k) || k == 0) continue;
        if (__builtin_mul_overflow(k, loop->axis.stride, &st) ||
            !add_step(sp, &acc, unit, st, bir_loop_trip_count(loop), false))
            return false;
    }
    for (int c = 0; c < COMP_COUNT; c++) {
        int64_t covered = 1;
        for (uint32_t i = 0; i < acc.n[c] && sp->exact[c]; i++) {
            if (acc.step[c][i] > covered) sp->exact[c] = false;
            else if (__builtin_add_overflow(covered, acc.step[c][i] * (acc.num[c][i] - 1), &covered)) return false;
        }
    }
    return true;
}

/* Whether op, with the outer `depth` loops of in's nest fixed and the deeper
 * ones run through, writes every element of its tensor in every iteration. */
static bool covers_at(const bir_linear *lin, const bir_inst *in, const bir_operand *op, uint32_t depth)
{
    span sp;
    int64_t unit[COMP_COUNT], bound[COMP_COUNT];
    fixing fx = {depth, NULL, 0};
    if (!span_of(lin, in, op, &fx, &sp) || sp.moves || !geometry(op->set, unit, bound)) return false;
    for (int c = 0; c < COMP_COUNT; c++)
        if (!sp.exact[c] || sp.lo[c] != 0 || sp.hi[c] != bound[c] - 1) return false;
    return true;
}

bool bir_live_write_kills(const bir_linear *lin, const bir_inst *in, const bir_operand *op)
{
    return covers_at(lin, in, op, lin->depth[in->index]);
}

uint32_t bir_live_read_local_depth(const bir_linear *lin, const bir_inst *r, const bir_operand *rop,
                                   const bir_inst *w, const bir_operand *wop)
{
    uint32_t dr = lin->depth[r->index], dw = lin->depth[w->index], c = 0;
    if (rop->set != wop->set || !rop->ap || !wop->ap) return 0;
    while (c < dr && c < dw && lin->nest[r->index][c] == lin->nest[w->index][c]) c++;
    if (c == 0) return 0;
    /* w's writes are all done before r in one iteration of the c shared
     * loops: w precedes r, or so does the end of w's loop at depth c. */
    uint32_t done = dw > c ? lin->end_of[lin->nest[w->index][c]->index] : lin->point_of[w->index];
    if (done >= lin->point_of[r->index]) return 0;
    /* Each shared loop moves both alike, or only r (then r's part over all
     * its values must lie in what w writes in every one). */
    const bir_inst *also[64];
    uint32_t nalso = 0;
    for (uint32_t k = 0; k < c; k++) {
        const bir_inst *loop = lin->nest[r->index][k];
        int64_t kr, kw;
        if (!loop_coeff(rop, loop, &kr) || !loop_coeff(wop, loop, &kw)) return 0;
        if (kr == kw || bir_loop_trip_count(loop) == 1) continue; /* one value: a constant in both spans */
        if (kw != 0 || nalso == sizeof also / sizeof *also) return 0;
        also[nalso++] = loop;
    }
    /* Terms on loops around neither move both alike only if equal. */
    fixing fw = {c, NULL, 0}, fr = {c, also, nalso};
    for (uint32_t t = 0; t < rop->nterms + wop->nterms; t++) {
        const bir_inst *loop = t < rop->nterms ? rop->terms[t].loop : wop->terms[t - rop->nterms].loop;
        if (!loop || !fixed_loop(lin, w, &fw, loop) || !fixed_loop(lin, r, &fw, loop)) continue;
        bool shared = false;
        for (uint32_t k = 0; k < c; k++) shared |= lin->nest[r->index][k] == loop;
        int64_t kr, kw;
        if (!shared && bir_loop_trip_count(loop) != 1 &&
            (!loop_coeff(rop, loop, &kr) || !loop_coeff(wop, loop, &kw) || kr != kw))
            return 0;
    }
    span sr, sw;
    if (!span_of(lin, r, rop, &fr, &sr) || !span_of(lin, w, wop, &fw, &sw)) return 0;
    for (int k = 0; k < COMP_COUNT; k++)
        if (!sw.exact[k] || sr.lo[k] < sw.lo[k] || sr.hi[k] > sw.hi[k]) return 0;
    return c;
}

/* ---- the per-loop records --------------------------------------------------- */

/* ---- several partial writes that together cover the tensor ---------------

   A loop may write its value in pieces (two halves, say) that only together
   replace it. Each gap-free write that keeps still in one iteration of the
   loop is a piece: a box of (block, partition, byte) with the point where it
   is complete. The kill is the first point by which the pieces complete so
   far cover the whole tensor, tested on the grid their edges make. At most
   BIR_LIVE_PIECES pieces per loop and value are kept (more: conservative). */

/* Whether the boxes cover [0, whole[c]) in every component. */
static bool boxes_cover(const bir_live_piece *const *bx, uint32_t n, const int64_t whole[3])
{
    int64_t cut[3][2 * BIR_LIVE_PIECES + 2];
    uint32_t nc[3];
    for (int c = 0; c < 3; c++) {
        nc[c] = 0;
        cut[c][nc[c]++] = 0;
        cut[c][nc[c]++] = whole[c];
        for (uint32_t i = 0; i < n; i++) {
            cut[c][nc[c]++] = bx[i]->lo[c];
            cut[c][nc[c]++] = bx[i]->hi[c];
        }
        for (uint32_t a = 1; a < nc[c]; a++) /* insertion sort: at most 2 × 8 + 2 cuts */
            for (uint32_t b = a; b > 0 && cut[c][b - 1] > cut[c][b]; b--) {
                int64_t t = cut[c][b];
                cut[c][b] = cut[c][b - 1];
                cut[c][b - 1] = t;
            }
    }
    /* Every grid cell inside the tensor lies in some box (a cell's low
     * corner decides: boxes are unions of whole cells). */
    for (uint32_t i = 0; i + 1 < nc[0]; i++) {
        if (cut[0][i] == cut[0][i + 1] || cut[0][i] < 0 || cut[0][i] >= whole[0]) continue;
        for (uint32_t j = 0; j + 1 < nc[1]; j++) {
            if (cut[1][j] == cut[1][j + 1] || cut[1][j] < 0 || cut[1][j] >= whole[1]) continue;
            for (uint32_t k = 0; k + 1 < nc[2]; k++) {
                if (cut[2][k] == cut[2][k + 1] || cut[2][k] < 0 || cut[2][k] >= whole[2]) continue;
                bool in = false;
                for (uint32_t b = 0; b < n && !in; b++)
                    in = bx[b]->lo[0] <= cut[0][i] && cut[0][i] < bx[b]->hi[0] && bx[b]->lo[1] <= cut[1][j] &&
                         cut[1][j] < bx[b]->hi[1] && bx[b]->lo[2] <= cut[2][k] && cut[2][k] < bx[b]->hi[2];
                if (!in) return false;
            }
        }
    }
    return true;
}

/* Adds the write through op, with the outer `depth` loops fixed, as a piece
 * of loop record r complete at `done`, and lowers r's kill to the first point
 * where the pieces cover the tensor. Nothing when it is no piece (gaps, moves
 * with a fixed loop) or when the record is full or memory runs out. */
static void add_piece(bir_live_scratch *s, bir_live_rec *r, const bir_inst *in, const bir_operand *op,
                      uint32_t depth, uint32_t done)
{
    span sp;
    int64_t unit[COMP_COUNT], bound[COMP_COUNT];
    fixing fx = {depth, NULL, 0};
    if (r->npieces == BIR_LIVE_PIECES || !span_of(s->lin, in, op, &fx, &sp) || sp.moves ||
        !geometry(op->set, unit, bound))
        return;
    int64_t es = bir_dtype_size(op->set->dtype), whole[3] = {bound[COMP_BLOCK], bound[COMP_PART], 0};
    if (__builtin_mul_overflow(bound[COMP_FREE], es, &whole[2])) return;
    bir_live_piece pc = {{sp.lo[COMP_BLOCK], sp.lo[COMP_PART], 0}, {sp.hi[COMP_BLOCK] + 1, sp.hi[COMP_PART] + 1, 0},
                         done};
    for (int c = 0; c < COMP_COUNT; c++)
        if (!sp.exact[c]) return;
    if (__builtin_mul_overflow(sp.lo[COMP_FREE], es, &pc.lo[2]) ||
        __builtin_mul_overflow(sp.hi[COMP_FREE] + 1, es, &pc.hi[2]))
        return;
    if (!sba_arena_grow(s->ar, (void **)&s->pieces, &s->cappieces, s->npieces + 1, sizeof *s->pieces)) return;
    s->pieces[s->npieces] = pc;
    r->piece[r->npieces++] = s->npieces++;
    /* By completion point: the first prefix that covers is the kill. */
    const bir_live_piece *bx[BIR_LIVE_PIECES];
    for (uint32_t i = 0; i < r->npieces; i++) {
        uint32_t j = i;
        bx[j] = &s->pieces[r->piece[i]];
        for (; j > 0 && bx[j - 1]->done > bx[j]->done; j--) {
            const bir_live_piece *t = bx[j];
            bx[j] = bx[j - 1];
            bx[j - 1] = t;
        }
    }
    for (uint32_t n = 1; n <= r->npieces; n++)
        if (bx[n - 1]->done < r->kill && boxes_cover(bx, n, whole)) {
            r->kill = bx[n - 1]->done;
            break;
        }
}

void bir_live_note(bir_live_scratch *s, const bir_inst *in, const bir_operand *op, bool write, uint32_t local)
{
    const bir_linear *lin = s->lin;
    uint32_t p = point(lin, in), d = lin->depth[in->index];
    for (uint32_t k = 0; k < d; k++) {
        bir_live_rec *r = &s->rec[lin->nest[in->index][k]->index];
        if (r->stamp != s->stamp) *r = (bir_live_rec){s->stamp, UINT32_MAX, UINT32_MAX, false, 0, {0}};
        if (!write) {
            /* A local read sees only this iteration's bytes of that loop. */
            if (k >= local && p < r->first_read) r->first_read = p;
            continue;
        }
        r->has_write = true;
        if (!op) continue;
        /* The write is complete once the loop below k around `in` ends. */
        uint32_t done = k + 1 < d ? end_point(lin, lin->nest[in->index][k + 1]) : p;
        if (covers_at(lin, in, op, k + 1)) {
            if (done < r->kill) r->kill = done;
        } else if (done < r->kill) {
            add_piece(s, r, in, op, k + 1, done);
        }
    }
}

/* Carried around a loop: some read in an iteration may see a byte an earlier
 * iteration wrote — the loop runs more than once, it writes the value, and a
 * read that does not see only its own iteration's bytes comes at or before
 * the point where this iteration has written all of it (an instruction reads
 * before it writes). */
static bool loop_carries(const bir_live_rec *r, uint32_t stamp, const bir_inst *loop)
{
    return r->stamp == stamp && r->has_write && r->first_read != UINT32_MAX && r->first_read <= r->kill &&
           bir_loop_trip_count(loop) > 1; /* a loop of one iteration takes no back edge */
}

void bir_live_anchor(const bir_linear *lin, const bir_inst *d, const bir_inst *u, bool entry_def,
                     uint32_t *start, uint32_t *end)
{
    uint32_t du = lin->depth[u->index];
    if (entry_def || !d) {
        *start = 0;
        *end = du ? end_point(lin, lin->nest[u->index][0]) : point(lin, u);
        return;
    }
    uint32_t dd = lin->depth[d->index], common = 0;
    while (common < dd && common < du && lin->nest[d->index][common] == lin->nest[u->index][common]) common++;
    *start = dd > common ? header_point(lin, lin->nest[d->index][common]) : point(lin, d);
    *end = du > common ? end_point(lin, lin->nest[u->index][common]) : point(lin, u);
    if (*end < *start) *end = *start;
}

bool bir_live_extend(const bir_live_scratch *s, const bir_inst *in, uint32_t *start, uint32_t *end)
{
    const bir_linear *lin = s->lin;
    bool carried = false;
    uint32_t d = lin->depth[in->index];
    for (uint32_t k = 0; k < d; k++) {
        const bir_inst *loop = lin->nest[in->index][k];
        const bir_live_rec *r = &s->rec[loop->index];
        if (loop_carries(r, s->stamp, loop)) {
            carried = true;
            if (header_point(lin, loop) < *start) *start = header_point(lin, loop);
            if (end_point(lin, loop) > *end) *end = end_point(lin, loop);
        }
    }
    return carried;
}

bool bir_live_carried_in(const bir_live_scratch *s, const bir_inst *loop)
{
    return loop_carries(&s->rec[loop->index], s->stamp, loop);
}

/* For how many of its outer loops reader k of st sees only bytes that some
 * writer of locs wrote earlier in the same iteration. O(writers) per reader. */
static uint32_t read_local(const bir_linear *lin, const bir_storage *st, uint32_t k, bir_location *const *locs,
                           uint32_t n)
{
    const bir_inst *r = st->readers[k].inst;
    const bir_operand *rop = &r->ins[st->readers[k].operand];
    uint32_t best = 0;
    for (uint32_t i = 0; i < n; i++) {
        const bir_storage *ws = &locs[i]->storage;
        for (uint32_t j = 0; j < ws->nwriters; j++) {
            const bir_inst *w = ws->writers[j].inst;
            uint32_t d = bir_live_read_local_depth(lin, r, rop, w, &w->outs[ws->writers[j].operand]);
            if (d > best) best = d;
        }
    }
    return best;
}

bool bir_live_locations(bir_live_scratch *s, bir_location *const *locs, uint32_t n, bool entry_def,
                        bir_live_interval *out)
{
    const bir_linear *lin = s->lin;
    const bir_inst *first = NULL, *last = NULL, *last_def = NULL;
    bir_live_begin(s);
    for (uint32_t i = 0; i < n; i++) {
        const bir_storage *st = &locs[i]->storage;
        for (uint32_t k = 0; k < st->nwriters; k++) {
            const bir_inst *w = st->writers[k].inst;
            if (!first || point(lin, w) < point(lin, first)) first = w;
            if (!last_def || point(lin, w) > point(lin, last_def)) last_def = w;
            bir_live_note(s, w, &w->outs[st->writers[k].operand], true, 0);
        }
        for (uint32_t k = 0; k < st->nreaders; k++) {
            const bir_inst *r = st->readers[k].inst;
            if (!last || point(lin, r) > point(lin, last)) last = r;
            bir_live_note(s, r, &r->ins[st->readers[k].operand], false, read_local(lin, st, k, locs, n));
        }
    }
    if (!last || (last_def && point(lin, last_def) > point(lin, last))) last = last_def;
    if (!last) return false;
    *out = (bir_live_interval){0, 0, false, first, last};
    bir_live_anchor(lin, first, last, entry_def, &out->start, &out->end);
    for (uint32_t i = 0; i < n; i++) {
        const bir_storage *st = &locs[i]->storage;
        for (uint32_t k = 0; k < st->nreaders; k++)
            out->carried |= bir_live_extend(s, st->readers[k].inst, &out->start, &out->end);
        for (uint32_t k = 0; k < st->nwriters; k++)
            out->carried |= bir_live_extend(s, st->writers[k].inst, &out->start, &out->end);
    }
    return true;
}

void sba_alloc_log(const sba_alloc_options *o, const char *fmt, ...)
{
    if (!o->log) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->log(o->log_ud, line);
}

sba_status bir_location_base_mask(const bir_location *loc, int64_t p, uint32_t *mask, sba_error *err)
{
    *mask = bir_start_partition_mask(p);
    for (int w = 0; w < 2; w++) {
        const bir_access *acc = w ? loc->storage.writers : loc->storage.readers;
        uint32_t n = w ? loc->storage.nwriters : loc->storage.nreaders;
        for (uint32_t k = 0; k < n; k++) {
            const bir_operand *op = w ? &acc[k].inst->outs[acc[k].operand] : &acc[k].inst->ins[acc[k].operand];
            bir_footprint fp;
            sba_status st = bir_operand_footprint(acc[k].inst, op, &fp, err);
            if (st != SBA_OK) return st;
            *mask &= fp.base_mask;
        }
    }
    return SBA_OK;
}

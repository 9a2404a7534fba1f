/* footprint: what an access-pattern operand touches of its tensor.
 *
 * The tensor's shape splits as (B..., P, F...), so element e is
 * ((blk × P) + p) × F + f. An operand touches
 *     offset + Σ step_j × i_j + Σ coeff_t × v_t
 * for every pair index i_j in [0, num_j) and every value v_t of the term's loop
 * axis. Each step and coefficient moves exactly one component, chosen by its
 * value: a multiple of P × F moves the block, another multiple of F the
 * partition, anything else the free element (docs/format.md, "Access
 * patterns"). The offset is split into (blk, p, f) by floor division, and each
 * component's range is its offset part plus the sum of the smallest (largest)
 * contribution of every step and term: the indices are independent, so the
 * bounds are exact for the component model. Terms on the same loop are summed
 * per component first, so that they cancel where they should.
 *
 * The start-partition mask: an on-chip (SB or PSUM) tensor of P partitions
 * may sit at the bases bir_start_partition_mask(P); an access of h partitions
 * per execution starting at partition s keeps the base b only if b + s is an
 * allowed start for h. Every start the partition-moving terms can reach is
 * enumerated (at most 128 values; anything at or past partition 128 is never
 * an allowed start).
 *
 * Every product and sum is overflow-checked; an overflow is reported as an
 * out-of-bound access, never computed.
 *
 * Requires: a loaded operand (set resolved, loops of its terms linked).
 * Produces: a bir_footprint. Complexity: O(ndims + nterms² + 128 × 128 ×
 * partition-moving loops); the quadratic term merges terms per loop without
 * memory. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "sballoc/program.h"

enum { COMP_BLOCK = 0, COMP_PART, COMP_FREE, COMP_COUNT };

static const char *const comp_names[COMP_COUNT] = {"block", "partition", "free"};

enum { QUADRANT = 32, QUADRANTS = 4, MAX_PARTITIONS = 128 };

typedef struct range {
    int64_t lo, hi; /* inclusive */
} range;

typedef struct fp_state {
    const bir_inst *in;
    const bir_operand *op;
    const bir_set *set;
    sba_error *err;
    int64_t unit[COMP_COUNT];  /* elements per unit of each component: P×F, F, 1 */
    int64_t bound[COMP_COUNT]; /* NBlocks, P, F */
    range r[COMP_COUNT];       /* each component over every index value */
    range pairs_part;          /* the pairs' own partition contribution: one execution's rows */
    bool block_pair_moves;     /* some pair moves the block */
    uint32_t block_loops;      /* loops (of ≥ 2 iterations) that move the block */
    const bir_inst *block_loop;
    int64_t block_k;           /* its block coefficient */
    int64_t block_first, block_last; /* its contribution at the first and last value */
} fp_state;

/* ---- messages ---------------------------------------------------------- */

/* "instruction "mm" ins[1] on tensor "a_set"" */
static void describe(const fp_state *st, char *buf, size_t size)
{
    const char *role = NULL;
    char src[96];
    uint32_t k = 0;
    bir_inst_source(st->in, src, sizeof src);
    for (uint32_t i = 0; st->in && i < st->in->nins; i++)
        if (&st->in->ins[i] == st->op) role = "ins", k = i;
    for (uint32_t i = 0; st->in && i < st->in->nouts; i++)
        if (&st->in->outs[i] == st->op) role = "outs", k = i;
    if (role)
        snprintf(buf, size, "instruction \"%s\"%s %s[%u] on tensor \"%s\"", st->in->name, src, role, k,
                 st->set->name);
    else if (st->in)
        snprintf(buf, size, "instruction \"%s\"%s on tensor \"%s\"", st->in->name, src, st->set->name);
    else
        snprintf(buf, size, "operand on tensor \"%s\"", st->set->name);
}

/* Fails with "<head>: <where>: <detail>" and the operand's JSON path. */
static sba_status fail(const fp_state *st, sba_status code, const char *head, const char *fmt, ...)
    SBA_PRINTF(4, 5);

static sba_status fail(const fp_state *st, sba_status code, const char *head, const char *fmt, ...)
{
    char where[384], detail[384], path[256] = "";
    describe(st, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (st->in) bir_inst_path(st->set->fn, st->in, st->op, path, sizeof path);
    return sba_err_path(st->err, code, path, "%s: %s: %s", head, where, detail);
}

static sba_status overflow(const fp_state *st, int comp)
{
    return fail(st, SBA_ERR_PROGRAM, "Access pattern out of bound", "the %s range overflows 64 bits",
                comp_names[comp]);
}

/* ---- arithmetic -------------------------------------------------------- */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Floor division and the matching remainder in [0, d), for d > 0; never overflows. */
static void floor_divmod(int64_t a, int64_t d, int64_t *q, int64_t *r)
{
    *q = a / d;
    *r = a % d;
    if (*r < 0) {
        *r += d;
        *q -= 1;
    }
}

/* The component a step or coefficient c ≠ 0 moves, and by how many units. */
static int classify(const fp_state *st, int64_t c, int64_t *k)
{
    for (int comp = COMP_BLOCK; comp < COMP_FREE; comp++)
        if (c % st->unit[comp] == 0) {
            *k = c / st->unit[comp];
            return comp;
        }
    *k = c;
    return COMP_FREE;
}

/* Widens a component's range by a contribution that takes the values a and b
 * at the two ends of its index range (and everything between). False on
 * overflow. */
static bool widen(range *r, int64_t a, int64_t b)
{
    return !__builtin_add_overflow(r->lo, min64(a, b), &r->lo) &&
           !__builtin_add_overflow(r->hi, max64(a, b), &r->hi);
}

/* ---- geometry ---------------------------------------------------------- */

static sba_status geometry(fp_state *st)
{
    const bir_set *s = st->set;
    int64_t nb = 1, f = 1;
    bool ov = false;
    for (uint32_t i = 0; i < s->rank; i++) {
        if ((int32_t)i < s->partition_dim) ov |= __builtin_mul_overflow(nb, s->shape[i], &nb);
        else if ((int32_t)i > s->partition_dim) ov |= __builtin_mul_overflow(f, s->shape[i], &f);
    }
    int64_t p = bir_set_partitions(s), pf = 0;
    ov |= __builtin_mul_overflow(p, f, &pf);
    if (ov || nb < 1 || f < 1 || p < 1)
        return fail(st, SBA_ERR_PROGRAM, "Access pattern out of bound",
                    "the tensor's shape has no valid element count");
    st->unit[COMP_BLOCK] = pf;
    st->unit[COMP_PART] = f;
    st->unit[COMP_FREE] = 1;
    st->bound[COMP_BLOCK] = nb;
    st->bound[COMP_PART] = p;
    st->bound[COMP_FREE] = f;
    return SBA_OK;
}

/* ---- pairs and terms --------------------------------------------------- */

static sba_status add_pairs(fp_state *st)
{
    const bir_operand *op = st->op;
    for (uint32_t j = 0; j < op->ndims; j++) {
        int64_t step = op->ap[j][0], num = op->ap[j][1];
        if (num < 1)
            return fail(st, SBA_ERR_PROGRAM, "Access pattern out of bound",
                        "pair %u has num %lld; it must be at least 1", j, (long long)num);
        if (num == 1 || step == 0) continue;
        int comp;
        int64_t k;
        if (j == 0) {
            /* The partition pair: one partition per index, whatever P × F is. */
            if (step != st->unit[COMP_PART])
                return fail(st, SBA_ERR_PROGRAM, "Access pattern partition step is not one partition",
                            "the first pair steps %lld elements with num %lld; it must step F = %lld "
                            "(partitions are contiguous) or have num 1",
                            (long long)step, (long long)num, (long long)st->unit[COMP_PART]);
            comp = COMP_PART;
            k = 1;
        } else {
            comp = classify(st, step, &k);
        }
        int64_t v;
        if (__builtin_mul_overflow(k, num - 1, &v) || !widen(&st->r[comp], 0, v)) return overflow(st, comp);
        if (comp == COMP_PART && !widen(&st->pairs_part, 0, v)) return overflow(st, comp);
        if (comp == COMP_BLOCK) st->block_pair_moves = true;
    }
    return SBA_OK;
}

/* The summed coefficients, per component, of every term on the loop of term
 * t. *fresh is false when an earlier term has the same loop (already counted). */
static sba_status loop_coeffs(const fp_state *st, uint32_t t, int64_t k[COMP_COUNT], bool *fresh)
{
    const bir_operand *op = st->op;
    const bir_inst *loop = op->terms[t].loop;
    *fresh = false;
    for (uint32_t u = 0; u < t; u++)
        if (op->terms[u].loop == loop) return SBA_OK;
    for (int c = 0; c < COMP_COUNT; c++) k[c] = 0;
    for (uint32_t u = t; u < op->nterms; u++) {
        if (op->terms[u].loop != loop || op->terms[u].coeff == 0) continue;
        int64_t kk;
        int comp = classify(st, op->terms[u].coeff, &kk);
        if (__builtin_add_overflow(k[comp], kk, &k[comp])) return overflow(st, comp);
    }
    *fresh = true;
    return SBA_OK;
}

/* The loop's first and last axis values and its trip count. */
static bool loop_values(const bir_inst *loop, int64_t *first, int64_t *last, int64_t *trip)
{
    *trip = bir_loop_trip_count(loop);
    *first = loop->axis.lb;
    int64_t span;
    return !__builtin_mul_overflow(loop->axis.stride, *trip > 0 ? *trip - 1 : 0, &span) &&
           !__builtin_add_overflow(*first, span, last);
}

static sba_status add_terms(fp_state *st)
{
    const bir_operand *op = st->op;
    for (uint32_t t = 0; t < op->nterms; t++) {
        const bir_inst *loop = op->terms[t].loop;
        if (!loop)
            return fail(st, SBA_ERR_PROGRAM, "Access pattern out of bound", "term %u names no loop", t);
        int64_t k[COMP_COUNT], first, last, trip;
        bool fresh;
        sba_status s = loop_coeffs(st, t, k, &fresh);
        if (s != SBA_OK) return s;
        if (!fresh) continue;
        if (!loop_values(loop, &first, &last, &trip)) return overflow(st, COMP_FREE);
        if (trip == 0) continue; /* an empty loop runs nothing: the term adds nothing */
        for (int c = 0; c < COMP_COUNT; c++) {
            if (k[c] == 0) continue;
            int64_t a, b;
            if (__builtin_mul_overflow(k[c], first, &a) || __builtin_mul_overflow(k[c], last, &b) ||
                !widen(&st->r[c], a, b))
                return overflow(st, c);
            if (c == COMP_BLOCK && trip > 1) {
                st->block_loops++;
                st->block_loop = loop;
                st->block_k = k[c];
                st->block_first = a;
                st->block_last = b;
            }
        }
    }
    return SBA_OK;
}

/* ---- results ----------------------------------------------------------- */

static sba_status check_bounds(const fp_state *st)
{
    for (int c = 0; c < COMP_COUNT; c++)
        if (st->r[c].lo < 0 || st->r[c].hi >= st->bound[c])
            return fail(st, SBA_ERR_PROGRAM, "Access pattern out of bound",
                        "%s range [%lld, %lld] exceeds [0, %lld)", comp_names[c],
                        (long long)st->r[c].lo, (long long)st->r[c].hi, (long long)st->bound[c]);
    return SBA_OK;
}

static sba_status block_access(const fp_state *st, bir_footprint *fp)
{
    const range *b = &st->r[COMP_BLOCK];
    if (!st->block_pair_moves && st->block_loops == 0) {
        fp->blocks = BIR_BLOCKS_CONST;
        fp->block = fp->block_hi = b->lo;
    } else if (!st->block_pair_moves && st->block_loops == 1) {
        /* The rest of the block index is constant: lo minus this loop's minimum. */
        int64_t rest = b->lo - min64(st->block_first, st->block_last);
        fp->blocks = BIR_BLOCKS_AXIS;
        fp->block = rest + st->block_first;
        fp->block_hi = rest + st->block_last;
        fp->block_loop = st->block_loop;
        if (__builtin_mul_overflow(st->block_k, st->block_loop->axis.stride, &fp->block_coeff))
            return overflow(st, COMP_BLOCK);
    } else {
        fp->blocks = BIR_BLOCKS_ALL;
        fp->block = b->lo;
        fp->block_hi = b->hi;
    }
    return SBA_OK;
}

/* The placement the operand accesses: SB or PSUM have a start-partition rule. */
static bool on_chip(const fp_state *st)
{
    const bir_location *loc = st->op->loc ? st->op->loc : st->set->nlocs ? st->set->locs[0] : NULL;
    return loc && (loc->type == BIR_MEM_SB || loc->type == BIR_MEM_PSUM);
}

/* A set of start partitions [0, MAX_PARTITIONS) as two 64-bit words: the
 * footprint is asked for every operand by several passes, and a bool per
 * partition cost more to clear and scan than the rest of the footprint. */
typedef struct starts {
    uint64_t w[2];
} starts;

/* s shifted up by d partitions (0 <= d < MAX_PARTITIONS); what passes
 * partition 127 is dropped. */
static starts starts_shift(starts s, int64_t d)
{
    starts r;
    if (d == 0) return s;
    if (d >= 64) {
        r.w[0] = 0;
        r.w[1] = s.w[0] << (d - 64);
    } else {
        r.w[0] = s.w[0] << d;
        r.w[1] = (s.w[1] << d) | (s.w[0] >> (64 - d));
    }
    return r;
}

/* Marks in *reach every start partition the partition-moving loops reach,
 * relative to the smallest one at bit 0. The caller has checked that the
 * span is below MAX_PARTITIONS, so each loop has at most that many values. */
static sba_status reachable_starts(const fp_state *st, starts *reach)
{
    const bir_operand *op = st->op;
    reach->w[0] = 1;
    reach->w[1] = 0;
    for (uint32_t t = 0; t < op->nterms; t++) {
        int64_t k[COMP_COUNT], first, last, trip;
        bool fresh;
        sba_status s = loop_coeffs(st, t, k, &fresh);
        if (s != SBA_OK) return s;
        if (!fresh || k[COMP_PART] == 0) continue;
        const bir_inst *loop = op->terms[t].loop;
        if (!loop_values(loop, &first, &last, &trip)) return overflow(st, COMP_PART);
        if (trip < 2) continue; /* a constant, already in the smallest start */
        int64_t kp = k[COMP_PART], lo = min64(kp * first, kp * last);
        starts next = {{0, 0}};
        for (int64_t i = 0; i < trip; i++) {
            int64_t d = kp * (first + i * loop->axis.stride) - lo;
            if (d >= MAX_PARTITIONS) continue;
            starts sh = starts_shift(*reach, d);
            next.w[0] |= sh.w[0];
            next.w[1] |= sh.w[1];
        }
        *reach = next;
    }
    return SBA_OK;
}

static sba_status start_partitions(const fp_state *st, bir_footprint *fp)
{
    uint32_t own = bir_start_partition_mask(st->bound[COMP_PART]);
    fp->base_mask = own;
    fp->pins_base = false;
    if (!on_chip(st)) return SBA_OK;
    int64_t h = st->pairs_part.hi - st->pairs_part.lo + 1;
    int64_t smin = st->r[COMP_PART].lo, smax = st->r[COMP_PART].hi - (h - 1);
    uint32_t hmask = bir_start_partition_mask(h), mask = own;
    int64_t bad = smin;
    if (smax >= MAX_PARTITIONS) {
        mask = 0; /* no base puts the largest start at an allowed one */
        bad = smax;
    } else {
        starts reach;
        sba_status s = reachable_starts(st, &reach);
        if (s != SBA_OK) return s;
        for (int64_t d = 0; d < MAX_PARTITIONS && mask; d++) {
            uint64_t rest = reach.w[d >> 6] >> (d & 63);
            if (!rest) {
                d |= 63; /* no start left in this word */
                continue;
            }
            d += __builtin_ctzll(rest);
            for (uint32_t i = 0; i < QUADRANTS; i++) {
                int64_t start = QUADRANT * (int64_t)i + smin + d;
                bool ok = start % QUADRANT == 0 && start / QUADRANT < QUADRANTS &&
                          (hmask >> (start / QUADRANT) & 1u);
                if (!ok) mask &= ~(1u << i);
            }
            bad = smin + d;
        }
    }
    if (!mask)
        return fail(st, SBA_ERR_PROGRAM, "no base partition satisfies the start-partition rule",
                    "an access of %lld partitions starting at partition %lld of a %lld-partition "
                    "tensor (a tile of %lld partitions may start only at %s)",
                    (long long)h, (long long)bad, (long long)st->bound[COMP_PART], (long long)h,
                    h > 64 ? "0" : h > 32 ? "0 or 64" : "0, 32, 64 or 96");
    fp->base_mask = mask;
    fp->pins_base = mask != own;
    return SBA_OK;
}

/* ---- entry points ------------------------------------------------------ */

uint32_t bir_start_partition_mask(int64_t p)
{
    if (p < 1 || p > MAX_PARTITIONS) return 0;
    if (p > 64) return 0x1;
    if (p > 32) return 0x5;
    return 0xF;
}

sba_status bir_operand_footprint(const bir_inst *in, const bir_operand *op, bir_footprint *fp,
                                 sba_error *err)
{
    memset(fp, 0, sizeof *fp);
    if (!op || (op->kind != BIR_OPND_PHYSICAL_AP && op->kind != BIR_OPND_SYMBOLIC_AP) || !op->set)
        return sba_err(err, SBA_ERR_USAGE, "the operand is not a memory access pattern");
    if (!op->ap || op->ndims == 0)
        return sba_err(err, SBA_ERR_USAGE, "the operand has no [step, num] pairs");
    fp_state st = {.in = in, .op = op, .set = op->set, .err = err};
    sba_status s = geometry(&st);
    if (s != SBA_OK) return s;

    /* The offset's own (block, partition, free) position. */
    int64_t q, f0, b0, p0;
    floor_divmod(op->offset, st.unit[COMP_PART], &q, &f0);
    floor_divmod(q, st.bound[COMP_PART], &b0, &p0);
    st.r[COMP_BLOCK] = (range){b0, b0};
    st.r[COMP_PART] = (range){p0, p0};
    st.r[COMP_FREE] = (range){f0, f0};

    if ((s = add_pairs(&st)) != SBA_OK || (s = add_terms(&st)) != SBA_OK ||
        (s = check_bounds(&st)) != SBA_OK || (s = block_access(&st, fp)) != SBA_OK)
        return s;

    fp->part_lo = st.r[COMP_PART].lo;
    fp->part_hi = st.r[COMP_PART].hi + 1;
    int64_t es = bir_dtype_size(st.set->dtype);
    if (__builtin_mul_overflow(st.r[COMP_FREE].lo, es, &fp->byte_lo) ||
        __builtin_mul_overflow(st.r[COMP_FREE].hi + 1, es, &fp->byte_hi))
        return overflow(&st, COMP_FREE);
    return start_partitions(&st, fp);
}

/* sba_gen_planted: packing instances with a known zero-slack answer.
 *
 * The instance is a box, time [0, span) × bytes [0, capacity) × the four
 * partition quarters, cut into tensors by recursive guillotine cuts, so the
 * tensors tile the box exactly: at every time step and in every quarter, the
 * live bytes are exactly the capacity. The cut is the planted packing; no
 * slack is left anywhere, so an allocator packs the instance only by finding
 * a packing as tight as the cut.
 *
 * Heights. The mix (q/h/f weights, as `sballoc gen --heights`) fixes how many
 * tensors are a quarter, a half and the full 128 partitions tall. The cuts
 * come in three phases: the full box is cut (in time or in bytes) into the
 * full tensors plus the pieces that will go lower; those pieces are split in
 * two halves (partitions 0-63 and 64-127), which are cut further into the half
 * tensors plus the pieces that will become quarters; those are split into
 * quarters and cut into the quarter tensors. So full tensors couple all four
 * quarters at one address, halves two, as in real kernels, and the three
 * classes interleave in time and in address.
 *
 * Each cut picks, of two random boxes of the phase, the larger (bytes × time),
 * then the time axis or the byte axis with a probability proportional to the
 * box's extent along it relative to the whole, and a uniform cut point that
 * leaves both sides at least one step and `min_size` bytes (rounded up to the
 * target's alignment). A box that cannot be cut any more is retired; when
 * none is left the generator fails with a usage error (ask for a larger span
 * or capacity, or fewer tensors).
 *
 * Holes. With `holes` percent, the box is cut into tensors × 100 /
 * (100 - holes) pieces (rounded) and only the first `tensors` of the seeded
 * order are kept: the planted packing still packs them, but the load is no
 * longer the capacity everywhere, as in MiniMalloc's challenging instances.
 *
 * Encoding: as `sballoc import-csv` — a tensor of time [lo, hi) is written by
 * the Memset `def@lo` and read by the `Release` `use@(hi-1)`, in one block, so
 * two tensors conflict iff their time ranges intersect. A tensor of height
 * class c has P partitions (32, 64 or 128 most often, otherwise any count of
 * its class) and shape [P, F] of bfloat16 or float32, exactly its bytes per
 * partition. Tensors are listed in a seeded random order, not in cut order.
 *
 * With `solution`, every placement carries the planted answer (addr, base,
 * live_n 1, dims, allocated), a module `sballoc verify` checks.
 *
 * Requires: nothing. Produces: a module with def-use lists built.
 * Complexity: O(n log n) for n tensors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "gen/heights.h"
#include "base/rng.h"
#include "sballoc/gen.h"
#include "sballoc/program.h"

enum { MIN_PLANTED = 8, MAX_PLANTED = 1000000, QUARTERS = 4 };



/* Uniform in [0, n), n >= 1. */
static uint64_t prng_below(sba_rng *r, uint64_t n) { return sba_rng_next(r) % n; }

/* A box of the cut: time [t0, t1), bytes [a0, a1) in alignment units,
 * quarters [q0, q0 + h). */
typedef struct pbox {
    int64_t t0, t1, a0, a1;
    uint32_t q0, h;
} pbox;

typedef struct planted {
    const sba_planted_options *o;
    sba_rng r;
    pbox *box;
    uint32_t n, cap;
    int64_t units, min_units, align;
    sba_error *err;
} planted;

static int64_t volume(const pbox *b) { return (b->t1 - b->t0) * (b->a1 - b->a0); }

static bool cuttable(const planted *p, const pbox *b)
{
    return b->t1 - b->t0 >= 2 || b->a1 - b->a0 >= 2 * p->min_units;
}

/* Cuts box i in time or in bytes; the new piece goes at the end. */
static void cut(planted *p, uint32_t i)
{
    pbox b = p->box[i], c = b;
    int64_t tl = b.t1 - b.t0, al = b.a1 - b.a0;
    bool can_t = tl >= 2, can_a = al >= 2 * p->min_units;
    /* relative extents: a box long in time is cut in time more often */
    double wt = can_t ? (double)tl / (double)p->o->span : 0, wa = can_a ? (double)al / (double)p->units : 0;
    bool in_time = (double)prng_below(&p->r, 1u << 30) / (double)(1u << 30) * (wt + wa) < wt;
    if (in_time) {
        int64_t at = b.t0 + 1 + (int64_t)prng_below(&p->r, (uint64_t)(tl - 1));
        b.t1 = at, c.t0 = at;
    } else {
        int64_t at = b.a0 + p->min_units + (int64_t)prng_below(&p->r, (uint64_t)(al - 2 * p->min_units + 1));
        b.a1 = at, c.a0 = at;
    }
    p->box[i] = b;
    p->box[p->n++] = c;
}

/* Cuts the boxes [from, n) of one phase until there are `want` of them. */
static bool cut_until(planted *p, uint32_t from, uint32_t want)
{
    while (p->n - from < want) {
        /* two random cuttable boxes; the larger is cut */
        uint32_t best = UINT32_MAX;
        for (uint32_t tries = 0, got = 0; got < 2 && tries < 64; tries++) {
            uint32_t i = from + (uint32_t)prng_below(&p->r, p->n - from);
            if (!cuttable(p, &p->box[i])) continue;
            got++;
            if (best == UINT32_MAX || volume(&p->box[i]) > volume(&p->box[best])) best = i;
        }
        if (best == UINT32_MAX)
            for (uint32_t i = from; i < p->n && best == UINT32_MAX; i++)
                if (cuttable(p, &p->box[i])) best = i;
        if (best == UINT32_MAX)
            return sba_err(p->err, SBA_ERR_USAGE, "planted: %u tensors do not fit a span of %u steps and "
                           "%lld bytes in pieces of at least %lld bytes", p->o->tensors, p->o->span,
                           (long long)p->o->capacity, (long long)(p->min_units * p->align)), false;
        cut(p, best);
    }
    return true;
}

/* Moves `k` random boxes of [from, n) to the front of that range and
 * splits each in two of half its height, appended at the end. Returns the
 * index where the split boxes start. */
static uint32_t split_height(planted *p, uint32_t from, uint32_t k)
{
    for (uint32_t x = 0; x < k; x++) {
        uint32_t j = from + x + (uint32_t)prng_below(&p->r, p->n - from - x);
        pbox t = p->box[from + x];
        p->box[from + x] = p->box[j];
        p->box[j] = t;
    }
    uint32_t start = p->n;
    for (uint32_t x = 0; x < k; x++) {
        pbox b = p->box[from + x];
        b.h /= 2;
        p->box[p->n++] = b;
        b.q0 += b.h;
        p->box[p->n++] = b;
    }
    return start;
}

static int64_t partitions_of(planted *p, uint32_t h)
{
    int64_t hi = 32 * (int64_t)h, lo = h == 1 ? 1 : 16 * (int64_t)h + 1;
    if (prng_below(&p->r, 4)) return hi;
    return lo + (int64_t)prng_below(&p->r, (uint64_t)(hi - lo + 1));
}

/* ---- the module ---------------------------------------------------------- */

typedef struct pevent {
    int64_t time;
    uint32_t use, idx;
} pevent;

static int event_cmp(const void *a, const void *b)
{
    const pevent *x = a, *y = b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    if (x->use != y->use) return x->use < y->use ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bir_module *build(planted *p, bool solution, const sba_allocator *a, sba_arena *scratch)
{
    sba_error *err = p->err;
    bir_module *m = bir_module_new(a);
    if (!m) return sba_err(err, SBA_ERR_NOMEM, "out of memory"), NULL;
    m->target = *sba_target_preset("trn2");
    m->has_target = true;
    m->target.name = "planted";
    m->target.sbuf_bytes = p->o->capacity;
    m->target.sbuf_align = (uint32_t)p->align;
    bir_function *fn = bir_function_add(m, "planted", err);
    bir_set **sets = sba_arena_array(scratch, (size_t)p->n + 1, sizeof *sets);
    pevent *ev = sba_arena_array(scratch, 2 * (size_t)p->n + 1, sizeof *ev);
    bir_block *b = fn ? bir_block_add(fn, NULL, "entry", err) : NULL;
    if (!fn || !b || !sets || !ev) goto fail;
    for (uint32_t i = 0; i < p->n; i++) {
        const pbox *bx = &p->box[i];
        char name[32];
        snprintf(name, sizeof name, "t%u", i);
        bir_set *set = bir_set_add(fn, name, err);
        if (!set) goto fail;
        int64_t bytes = (bx->a1 - bx->a0) * p->align;
        /* dtype and partitions drawn in the same order with or without the
         * solution, so both modules are the same instance */
        bool fp32 = prng_below(&p->r, 2) && bytes % 4 == 0;
        int64_t parts = partitions_of(p, bx->h);
        set->dtype = fp32 ? BIR_DT_FLOAT32 : BIR_DT_BFLOAT16;
        set->rank = 2;
        set->shape = sba_arena_array(m->arena, 2, sizeof *set->shape);
        if (!set->shape) goto nomem;
        set->shape[0] = parts;
        set->shape[1] = bytes / (fp32 ? 4 : 2);
        bir_location *loc = bir_location_add(set, name, BIR_MEM_SB, err);
        if (!loc) goto fail;
        if (solution) {
            loc->addr = bx->a0 * p->align;
            loc->base = (int32_t)(bx->q0 * 32);
            loc->live_n = 1;
            loc->dims[0] = parts;
            loc->dims[1] = bytes;
            loc->has_dims = true;
            bir_location_set_allocated(loc, true);
        }
        sets[i] = set;
        ev[2 * i] = (pevent){bx->t0, 0, i};
        ev[2 * i + 1] = (pevent){bx->t1 - 1, 1, i};
    }
    qsort(ev, 2 * (size_t)p->n, sizeof *ev, event_cmp);
    for (uint32_t i = 0, j; i < 2 * p->n; i = j) {
        for (j = i + 1; j < 2 * p->n && ev[j].time == ev[i].time && ev[j].use == ev[i].use;) j++;
        char name[48];
        snprintf(name, sizeof name, "%s@%lld", ev[i].use ? "use" : "def", (long long)ev[i].time);
        bir_inst *in = bir_inst_add(fn, b, name, ev[i].use ? BIR_OP_OTHER : BIR_OP_MEMSET, err);
        if (!in) goto fail;
        bir_operand *ops = sba_arena_array(m->arena, j - i, sizeof *ops);
        if (!ops) goto nomem;
        for (uint32_t k = i; k < j; k++)
            if (!bir_operand_set_whole(&ops[k - i], sets[ev[k].idx])) goto nomem;
        if (ev[i].use) {
            in->opcode_name = "Release";
            in->ins = ops;
            in->nins = j - i;
        } else {
            in->engine = BIR_ENG_POOL;
            in->outs = ops;
            in->nouts = j - i;
        }
    }
    if (bir_function_build_def_use(fn, err) != SBA_OK) goto fail;
    if (bir_module_failed(m)) goto nomem;
    return m;
nomem:
    sba_err(err, SBA_ERR_NOMEM, "out of memory");
fail:
    bir_module_free(m);
    return NULL;
}

void sba_planted_defaults(sba_planted_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->tensors = 500;
    o->capacity = 65536;
    o->heights = "q:1,h:1,f:1";
    o->span = 0;
    o->min_size = 512;
}

bir_module *sba_gen_planted(const sba_planted_options *o, bool solution, const sba_allocator *a, sba_error *err)
{
    sba_error local;
    if (!err) err = &local;
    sba_error_clear(err);
    uint32_t w[3];
    if (sba_gen_parse_heights(o->heights ? o->heights : "q:1,h:1,f:1", w, err) != SBA_OK) return NULL;
    if (o->tensors < MIN_PLANTED || o->tensors > MAX_PLANTED)
        return sba_err(err, SBA_ERR_USAGE, "tensors must be in %d..%d, got %u", MIN_PLANTED, MAX_PLANTED,
                       o->tensors), NULL;
    const int64_t align = sba_target_preset("trn2")->sbuf_align;
    if (o->capacity < align || o->capacity % align || o->capacity > ((int64_t)1 << 40))
        return sba_err(err, SBA_ERR_USAGE, "capacity must be a positive multiple of %lld up to 2^40, got %lld",
                       (long long)align, (long long)o->capacity), NULL;
    if (o->min_size < 1 || o->min_size > o->capacity)
        return sba_err(err, SBA_ERR_USAGE, "min size must be in 1..capacity (%lld), got %lld",
                       (long long)o->capacity, (long long)o->min_size), NULL;
    if (o->holes > 90)
        return sba_err(err, SBA_ERR_USAGE, "holes must be a percent in 0..90, got %u", o->holes), NULL;
    sba_planted_options opt = *o;
    const uint32_t kept = o->tensors;
    opt.tensors = (uint32_t)(((uint64_t)o->tensors * 100 + (100 - o->holes) / 2) / (100 - o->holes));
    if (opt.tensors > MAX_PLANTED) opt.tensors = MAX_PLANTED;
    o = &opt;
    if (!opt.span) opt.span = kept;
    planted p = {.o = &opt, .err = err, .align = align, .units = o->capacity / align,
                 .min_units = (o->min_size + align - 1) / align};
    p.r.s = o->seed ^ 0x9A1A47EDB0Cull;
    /* how many tensors of each height, and how many pieces are split */
    uint64_t wsum = (uint64_t)w[0] + w[1] + w[2];
    uint32_t nq = (uint32_t)((uint64_t)o->tensors * w[0] / wsum);
    uint32_t nh = (uint32_t)((uint64_t)o->tensors * w[1] / wsum);
    if (nq == 1) nq = 0, nh++;
    if (nh == 1 && nq == 0) nh = 0;
    uint32_t nf = o->tensors - nq - nh;
    uint32_t sh = nq ? (nq / 6 > 1 ? nq / 6 : 1) : 0;       /* halves split into quarters */
    uint32_t hb = nh + sh;                                   /* half boxes */
    if (hb == 1) {                                           /* a split makes two */
        hb = 2, nh++;
        if (nf) nf--;
        else nq--;
    }
    uint32_t sf = hb ? (hb / 4 > 1 ? hb / 4 : 1) : 0;        /* full pieces split into halves */
    sba_arena scratch;
    sba_arena_init(&scratch, a);
    p.cap = 2 * o->tensors + 8;
    p.box = sba_arena_array(&scratch, p.cap, sizeof *p.box);
    bir_module *m = NULL;
    if (!p.box) {
        sba_err(err, SBA_ERR_NOMEM, "out of memory");
        goto done;
    }
    p.box[p.n++] = (pbox){0, opt.span, 0, p.units, 0, QUARTERS};
    if (!cut_until(&p, 0, nf + sf)) goto done;
    uint32_t halves = split_height(&p, 0, sf);
    if (!cut_until(&p, halves, hb)) goto done;
    uint32_t quarters = split_height(&p, halves, sh);
    if (!cut_until(&p, quarters, nq)) goto done;
    /* drop the boxes that were split: the first sf of the full range and the
     * first sh of the halves range */
    uint32_t n = 0;
    for (uint32_t i = 0; i < p.n; i++) {
        if (i < sf || (i >= halves && i < halves + sh)) continue;
        p.box[n++] = p.box[i];
    }
    p.n = n;
    /* a seeded order, not the cut order */
    for (uint32_t i = p.n; i > 1; i--) {
        uint32_t j = (uint32_t)prng_below(&p.r, i);
        pbox t = p.box[i - 1];
        p.box[i - 1] = p.box[j];
        p.box[j] = t;
    }
    if (p.n > kept) p.n = kept;   /* the rest are the holes */
    m = build(&p, solution, a, &scratch);
done:
    sba_arena_free(&scratch);
    return m;
}

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
 * box's extent along it relative to the whole (the time axis's divided by
 * `elongation`, which makes tensors live longer), and a uniform cut point that
 * leaves both sides at least one step and `min_size` bytes (rounded up to the
 * target's alignment). A box that cannot be cut any more is retired; when
 * none is left the generator fails with a usage error (ask for a larger span
 * or capacity, or fewer tensors).
 *
 * Walls. With `walls` the tiling is not cut but grown in time, as an
 * allocator reusing freed memory grows one: at every step some live
 * tensors end and the room they leave, merged where it touches, is cut at
 * new points into new tensors (see walls(), and walls_2d() for mixed
 * heights). Every step stays full; few boundaries survive long, so no
 * guillotine cut splits most of it.
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
    /* relative extents: a box long in time is cut in time more often
     * (elongation: that much less often) */
    double wt = can_t ? (double)tl / (double)p->o->span : 0, wa = can_a ? (double)al / (double)p->units : 0;
    if (p->o->elongation > 1) wt /= p->o->elongation;
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

/* ---- walls ----------------------------------------------------------------- */

/* A run of free bytes, in alignment units. */
typedef struct wrun {
    int64_t a0, a1;
} wrun;

/* Adds [a0, a1) to the sorted, disjoint runs, merged with those it touches. */
static void free_add(wrun *run, uint32_t *n, int64_t a0, int64_t a1)
{
    uint32_t i = 0;
    while (i < *n && run[i].a1 < a0) i++;
    uint32_t j = i;
    while (j < *n && run[j].a0 <= a1) {
        if (run[j].a0 < a0) a0 = run[j].a0;
        if (run[j].a1 > a1) a1 = run[j].a1;
        j++;
    }
    memmove(&run[i + 1], &run[j], (*n - j) * sizeof *run);
    *n -= j - i - 1;
    run[i] = (wrun){a0, a1};
}

/* How many tensors of at least m units the runs can be cut into. */
static uint64_t free_room(const wrun *run, uint32_t n, int64_t m)
{
    uint64_t k = 0;
    for (uint32_t i = 0; i < n; i++) k += (uint64_t)((run[i].a1 - run[i].a0) / m);
    return k;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* Cuts [a0, a1) at step t into k tensors of at least m units: the units
 * beyond k × m are split at k - 1 uniform points (cut: k slots of scratch). */
static void cut_run(planted *p, uint32_t *live, uint32_t *nlive, const wrun *r, uint32_t k, int64_t t,
                    int64_t *cut, uint32_t q0, uint32_t h)
{
    int64_t spare = (r->a1 - r->a0) - (int64_t)k * p->min_units, at = r->a0, prev = 0;
    for (uint32_t x = 0; x + 1 < k; x++) cut[x] = (int64_t)prng_below(&p->r, (uint64_t)spare + 1);
    qsort(cut, k - 1, sizeof *cut, cmp_i64);
    cut[k - 1] = spare;
    for (uint32_t x = 0; x < k; x++) {
        int64_t size = p->min_units + cut[x] - prev;
        prev = cut[x];
        live[(*nlive)++] = p->n;
        p->box[p->n++] = (pbox){t, INT64_MAX, at, at + size, q0, h};
        at += size;
    }
}

/* The tensors still live at the end last to the span; fewer made than
 * wanted is a usage error (the span or the capacity is too small). */
static bool walls_end(planted *p, const uint32_t *live, uint32_t nlive, uint32_t made, uint32_t want)
{
    for (uint32_t x = 0; x < nlive; x++) p->box[live[x]].t1 = p->o->span;
    if (made < want)
        return sba_err(p->err, SBA_ERR_USAGE, "planted: %u tensors do not fit a span of %u steps and %lld bytes in "
                       "pieces of at least %lld bytes", p->o->tensors, p->o->span, (long long)p->o->capacity,
                       (long long)(p->min_units * p->align)), false;
    return true;
}

/* The walls construction (1-D): memory reused over time. At every step
 * some live tensors end — picked at random, one at a time, until the room
 * they leave holds this step's share of the tensors still to make — and
 * that room, merged where it touches, is cut at new points into new
 * tensors. Every step stays full to the capacity, but the boundaries of
 * the new tensors rarely meet the old ones, so no cut in time or in bytes
 * splits the box: a tiling of the kind an allocator reusing freed memory
 * makes, which the guillotine decomposition cannot take apart. */
static bool walls(planted *p, uint32_t want, sba_arena *scratch)
{
    const int64_t span = p->o->span, m = p->min_units;
    uint32_t *live = sba_arena_array(scratch, (size_t)want + 1, sizeof *live), nlive = 0;
    wrun *run = sba_arena_array(scratch, (size_t)want + 2, sizeof *run);
    if (!live || !run) return sba_err(p->err, SBA_ERR_NOMEM, "out of memory"), false;
    uint32_t made = 0;
    for (int64_t t = 0; t < span && made < want; t++) {
        uint64_t rest = want - made, steps = (uint64_t)(span - t);
        uint64_t q = t + 1 == span ? rest : rest / steps + (prng_below(&p->r, steps) < rest % steps);
        if (!q) continue;
        uint32_t nrun = 0;
        if (t == 0) run[nrun++] = (wrun){0, p->units};
        while (nlive && free_room(run, nrun, m) < q) {
            uint32_t x = (uint32_t)prng_below(&p->r, nlive);
            pbox *b = &p->box[live[x]];
            b->t1 = t;
            live[x] = live[--nlive];
            free_add(run, &nrun, b->a0, b->a1);
        }
        uint64_t room = free_room(run, nrun, m);
        if (room < q) q = room; /* nothing left to end: fewer this step */
        /* every run gets one tensor (each ended tensor made room for one,
         * so there are at most q runs), the rest go at random */
        uint32_t *k = sba_arena_array(scratch, (size_t)nrun + 1, sizeof *k);
        if (!k) return sba_err(p->err, SBA_ERR_NOMEM, "out of memory"), false;
        for (uint32_t i = 0; i < nrun; i++) k[i] = 1;
        for (uint64_t extra = q > nrun ? q - nrun : 0; extra > 0; extra--) {
            uint32_t i = (uint32_t)prng_below(&p->r, nrun);
            while ((int64_t)(k[i] + 1) * m > run[i].a1 - run[i].a0) i = (i + 1) % nrun;
            k[i]++;
        }
        int64_t *cut = sba_arena_array(scratch, (size_t)q + 1, sizeof *cut);
        if (!cut) return sba_err(p->err, SBA_ERR_NOMEM, "out of memory"), false;
        for (uint32_t i = 0; i < nrun; i++) {
            cut_run(p, live, &nlive, &run[i], k[i], t, cut, 0, QUARTERS);
            made += k[i];
        }
    }
    return walls_end(p, live, nlive, made, want);
}

/* Removes [a0, a1) from the sorted, disjoint runs (it lies within one). */
static void free_take(wrun *run, uint32_t *n, int64_t a0, int64_t a1)
{
    uint32_t i = 0;
    while (run[i].a1 < a1) i++;
    wrun r = run[i];
    uint32_t parts = (r.a0 < a0) + (a1 < r.a1);
    memmove(&run[i + parts], &run[i + 1], (*n - i - 1) * sizeof *run);
    *n += parts - 1;
    if (r.a0 < a0) run[i++] = (wrun){r.a0, a0};
    if (a1 < r.a1) run[i] = (wrun){a1, r.a1};
}

/* The run that holds [a0, a1): the caller's room is free in every quarter
 * it asks, so there is one. */
static const wrun *run_holding(const wrun *run, uint32_t n, int64_t a0, int64_t a1)
{
    for (uint32_t i = 0; i < n; i++)
        if (run[i].a0 <= a0 && a1 <= run[i].a1) return &run[i];
    return NULL;
}

/* A piece of room to cut into tensors of one height. */
typedef struct wseg {
    wrun r;
    uint32_t q0, h;
} wseg;

/* The room free in both run lists, into out (sorted, disjoint). */
static uint32_t intersect(const wrun *a, uint32_t na, const wrun *b, uint32_t nb, wrun *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0, j = 0; i < na && j < nb;) {
        int64_t lo = a[i].a0 > b[j].a0 ? a[i].a0 : b[j].a0, hi = a[i].a1 < b[j].a1 ? a[i].a1 : b[j].a1;
        if (lo < hi) out[n++] = (wrun){lo, hi};
        if (a[i].a1 < b[j].a1) i++;
        else j++;
    }
    return n;
}

/* What a step may still spend on carving: the tensors its room could hold
 * beyond its share, and the pieces it will cut (each gets a tensor)
 * against the tensors left to make. */
typedef struct wstep {
    uint64_t spare, pieces, share;
} wstep;

/* Tries to take, out of the room I that quarters q0 .. q0 + h - 1 all have
 * free, a random piece for tensors h quarters tall. What it leaves of each
 * quarter's run must be empty or hold a tensor, so that the room stays
 * full; a few tries, false when none fits. */
static bool carve(planted *p, wrun **run, uint32_t *nrun, wrun I, uint32_t q0, uint32_t h, bool whole, wstep *st,
                  wseg *seg)
{
    const int64_t m = p->min_units, len = I.a1 - I.a0;
    if (len < m) return false;
    for (uint32_t tries = 0; tries < 8; tries++) {
        int64_t size = tries == 0 && whole ? len : m + (int64_t)prng_below(&p->r, (uint64_t)(len - m + 1));
        int64_t at = I.a0 + (int64_t)prng_below(&p->r, (uint64_t)(len - size + 1));
        /* at most this many fewer tensors fit the step's room */
        uint64_t lost = (uint64_t)(h - 1) * (uint64_t)(size / m) + 2 * h;
        bool ok = lost <= st->spare;
        int64_t more = 1; /* pieces: this one, and the runs it splits or closes */
        for (uint32_t q = q0; q < q0 + h && ok; q++) {
            const wrun *r = run_holding(run[q], nrun[q], at, at + size);
            int64_t left = at - r->a0, right = r->a1 - (at + size);
            ok = (left == 0 || left >= m) && (right == 0 || right >= m);
            more += (left > 0) + (right > 0) - 1;
        }
        /* not more pieces than tensors left to make, unless it makes fewer */
        if (!ok || (more > 0 && st->pieces + (uint64_t)more > st->share)) continue;
        for (uint32_t q = q0; q < q0 + h; q++) free_take(run[q], &nrun[q], at, at + size);
        st->spare -= lost;
        st->pieces = (uint64_t)((int64_t)st->pieces + more);
        *seg = (wseg){{at, at + size}, q0, h};
        return true;
    }
    return false;
}

/* Whether the tensors of height h made so far are fewer than its weight's
 * share of all of them. */
static bool under(const uint64_t *nmade, uint32_t h, uint32_t wh, uint64_t wsum)
{
    uint64_t all = nmade[1] + nmade[2] + nmade[4];
    return wh && nmade[h] * wsum <= (uint64_t)wh * all;
}

/* The walls construction in 2-D. As walls(), but each quarter has its own
 * runs of free room, and the room of a step is cut by height: where all
 * four quarters are free at once, a piece of it goes to full-height
 * tensors; where both quarters of a half are free, a piece to half-height
 * ones, each while its height has had fewer tensors than its weight's
 * share; what is left of each quarter goes to quarter-height ones. After
 * the first step a piece is first tried whole, so that the room a tall
 * tensor leaves goes to tall ones again. Every step stays full in every
 * quarter. The mix weighs the carving, so it tilts the counts of each
 * height rather than fixing them. Every free run gets a tensor, so a step
 * ends tensors and carves pieces only while the runs stay no more than the
 * tensors left to make; now and then (300 tensors, seed 4: 303) the last
 * step must still make a few more. */
static bool walls_2d(planted *p, uint32_t want, const uint32_t *w, sba_arena *scratch)
{
    const int64_t span = p->o->span, m = p->min_units;
    const uint64_t wsum = (uint64_t)w[0] + w[1] + w[2];
    /* sized by the boxes (p->cap), not by `want`: the last step may make
     * a few more; a quarter has at most one run more than live tensors */
    const size_t cap = p->cap;
    uint32_t *live = sba_arena_array(scratch, cap + 1, sizeof *live), nlive = 0, nrun[QUARTERS];
    wrun *run[QUARTERS], *common = sba_arena_array(scratch, cap + 2, sizeof *common);
    wrun *h01 = sba_arena_array(scratch, cap + 2, sizeof *h01);
    wrun *h23 = sba_arena_array(scratch, cap + 2, sizeof *h23);
    wseg *seg = sba_arena_array(scratch, 8 * cap + 16, sizeof *seg);
    uint32_t *k = sba_arena_array(scratch, 8 * cap + 16, sizeof *k);
    int64_t *cut = sba_arena_array(scratch, cap + 1, sizeof *cut);
    bool ok = live && common && h01 && h23 && seg && k && cut;
    for (uint32_t q = 0; q < QUARTERS && ok; q++) {
        ok = (run[q] = sba_arena_array(scratch, cap + 2, sizeof *run[q])) != NULL;
        if (ok) run[q][0] = (wrun){0, p->units}, nrun[q] = 1;
    }
    if (!ok) return sba_err(p->err, SBA_ERR_NOMEM, "out of memory"), false;
    uint32_t made = 0;
    uint64_t nmade[QUARTERS + 1] = {0};
    for (int64_t t = 0; t < span && made < want; t++) {
        uint64_t rest = want - made, steps = (uint64_t)(span - t);
        uint64_t q = t + 1 == span ? rest : rest / steps + (prng_below(&p->r, steps) < rest % steps);
        if (!q) continue;
        uint64_t room = 0;
        for (uint32_t y = 0; y < QUARTERS; y++) room += free_room(run[y], nrun[y], m);
        /* room for this step's share at the mix's quarters per tensor */
        const uint64_t need = (q * ((uint64_t)w[0] + 2 * w[1] + 4 * w[2]) + wsum - 1) / wsum;
        uint64_t runs = 0;
        for (uint32_t y = 0; y < QUARTERS; y++) runs += nrun[y];
        while (nlive && room < need) {
            uint32_t x = (uint32_t)prng_below(&p->r, nlive);
            pbox *b = &p->box[live[x]];
            /* with room for the share, no more runs than tensors left to make */
            if (room >= q && runs + b->h > rest) break;
            b->t1 = t;
            live[x] = live[--nlive];
            for (uint32_t y = b->q0; y < b->q0 + b->h; y++) {
                room -= free_room(run[y], nrun[y], m);
                runs -= nrun[y];
                free_add(run[y], &nrun[y], b->a0, b->a1);
                room += free_room(run[y], nrun[y], m);
                runs += nrun[y];
            }
        }
        /* the room by height: full, then halves, then quarters */
        uint32_t nseg = 0;
        wstep st = {room > q ? room - q : 0, runs, rest};
        uint32_t n01 = intersect(run[0], nrun[0], run[1], nrun[1], h01);
        uint32_t n23 = intersect(run[2], nrun[2], run[3], nrun[3], h23);
        uint32_t nc = intersect(h01, n01, h23, n23, common);
        for (uint32_t x = 0; x < nc; x++)
            if (under(nmade, 4, w[2], wsum) && carve(p, run, nrun, common[x], 0, 4, t > 0, &st, &seg[nseg])) nseg++;
        for (uint32_t q0 = 0; q0 < QUARTERS; q0 += 2) {
            uint32_t nh = intersect(run[q0], nrun[q0], run[q0 + 1], nrun[q0 + 1], h01);
            for (uint32_t x = 0; x < nh; x++)
                if (under(nmade, 2, w[1], wsum) && carve(p, run, nrun, h01[x], q0, 2, t > 0, &st, &seg[nseg]))
                    nseg++;
        }
        for (uint32_t y = 0; y < QUARTERS; y++) {
            for (uint32_t x = 0; x < nrun[y]; x++) seg[nseg++] = (wseg){run[y][x], y, 1};
            nrun[y] = 0;
        }
        /* every piece gets one tensor, the rest of the step's share go at random */
        uint64_t fits = 0;
        for (uint32_t i = 0; i < nseg; i++) k[i] = 1, fits += (uint64_t)((seg[i].r.a1 - seg[i].r.a0) / m) - 1;
        for (uint64_t extra = q > nseg ? q - nseg : 0; extra > 0 && fits > 0; extra--, fits--) {
            uint32_t i = (uint32_t)prng_below(&p->r, nseg);
            while ((int64_t)(k[i] + 1) * m > seg[i].r.a1 - seg[i].r.a0) i = (i + 1) % nseg;
            k[i]++;
        }
        for (uint32_t i = 0; i < nseg; i++) {
            if (p->n + k[i] > p->cap) return sba_err(p->err, SBA_ERR_NOMEM, "planted: too many pieces"), false;
            cut_run(p, live, &nlive, &seg[i].r, k[i], t, cut, seg[i].q0, seg[i].h);
            made += k[i];
            nmade[seg[i].h] += k[i];
        }
    }
    return walls_end(p, live, nlive, made, want);
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
    if (o->elongation > 1000)
        return sba_err(err, SBA_ERR_USAGE, "elongation must be in 0..1000, got %u", o->elongation), NULL;
    if (o->fill_holes && !o->holes)
        return sba_err(err, SBA_ERR_USAGE, "fill-holes needs holes (a percent of the pieces left out)"), NULL;
    if (o->walls && o->elongation > 1)
        return sba_err(err, SBA_ERR_USAGE, "elongation applies to guillotine cuts, not to walls"), NULL;
    if (o->walls && !w[0] && w[1])
        return sba_err(err, SBA_ERR_USAGE, "walls in 2-D need quarter heights (q > 0): every quarter's room is "
                       "cut, got \"%s\"", o->heights ? o->heights : "q:1,h:1,f:1"),
               NULL;
    sba_planted_options opt = *o;
    uint32_t kept = o->tensors;
    opt.tensors = (uint32_t)(((uint64_t)o->tensors * 100 + (100 - o->holes) / 2) / (100 - o->holes));
    if (opt.tensors > MAX_PLANTED) opt.tensors = MAX_PLANTED;
    o = &opt;
    if (!opt.span) opt.span = opt.walls ? (kept + 3) / 4 : kept;
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
    if (o->walls) {
        if (!(w[0] || w[1] ? walls_2d(&p, o->tensors, w, &scratch) : walls(&p, o->tensors, &scratch))) goto done;
    } else {
        p.box[p.n++] = (pbox){0, opt.span, 0, p.units, 0, QUARTERS};
        if (!cut_until(&p, 0, nf + sf)) goto done;
        uint32_t halves = split_height(&p, 0, sf);
        if (!cut_until(&p, halves, hb)) goto done;
        uint32_t quarters = split_height(&p, halves, sh);
        if (!cut_until(&p, quarters, nq)) goto done;
        /* drop the boxes that were split: the first sf of the full range
         * and the first sh of the halves range */
        uint32_t n = 0;
        for (uint32_t i = 0; i < p.n; i++) {
            if (i < sf || (i >= halves && i < halves + sh)) continue;
            p.box[n++] = p.box[i];
        }
        p.n = n;
    }
    /* 2-D walls may fill the last step with a few more than asked */
    if (p.n > o->tensors) kept += p.n - o->tensors;
    /* a seeded order, not the cut order */
    for (uint32_t i = p.n; i > 1; i--) {
        uint32_t j = (uint32_t)prng_below(&p.r, i);
        pbox t = p.box[i - 1];
        p.box[i - 1] = p.box[j];
        p.box[j] = t;
    }
    if (p.n > kept && !o->fill_holes) p.n = kept; /* the rest are the holes */
    m = build(&p, solution, a, &scratch);
done:
    sba_arena_free(&scratch);
    return m;
}

/* 1-D tilings for the packers' tests, built here with a known packing:
 * memory reused over time and guillotine cuts, and the independent check
 * of a packing, which knows nothing of the searches: each node inside the
 * capacity and clear of every node it shares a section with; and planted
 * functions of memory reused over time through the whole allocator. */
#ifndef SBALLOC_TESTS_TILING_H
#define SBALLOC_TESTS_TILING_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "sballoc/alloc.h"
#include "sballoc/gen.h"
#include "sballoc/verify.h"
#include "sbuf/sbuf.h"

enum { MAXN = 1024, MAXLIVE = 256 };

typedef struct tiling {
    sb_pack_node node[MAXN];
    int64_t off[MAXN];
    uint32_t opt[MAXN];
    sb_pack_problem p;
} tiling;

typedef struct piece {
    uint32_t node;
    int64_t lo, hi;
} piece;

static inline uint32_t below(sba_rng *r, uint32_t n) { return (uint32_t)(sba_rng_next(r) % n); }

static inline uint32_t add_node(tiling *t, uint32_t s0, int64_t size)
{
    uint32_t i = t->p.n++;
    cr_assert_lt(i, MAXN);
    t->node[i] = (sb_pack_node){.s0 = s0, .size = size, .nopt = 1, .qmask = {1}};
    return i;
}

static inline int cmp_lo(const void *a, const void *b)
{
    const piece *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Memory reused over time: `cap` units over K sections; at each boundary
 * 1 to `ends` live nodes end, and every run of free units (merged where
 * the ended nodes touch) is cut into 1 to 3 new nodes. */
static inline void reuse_tiling(tiling *t, uint64_t seed, uint32_t K, int64_t cap, uint32_t ends)
{
    sba_rng r = {seed};
    memset(t, 0, sizeof *t);
    piece live[MAXLIVE];
    uint32_t nlive = 0;
    live[nlive++] = (piece){add_node(t, 0, cap), 0, cap};
    for (uint32_t k = 1; k < K; k++) {
        /* end some: free[] gets their ranges */
        piece freed[MAXLIVE];
        uint32_t nfree = 0, e = 1 + below(&r, ends);
        for (uint32_t x = 0; x < e && nlive > 1; x++) {
            uint32_t j = below(&r, nlive);
            t->node[live[j].node].s1 = k - 1;
            freed[nfree++] = live[j];
            live[j] = live[--nlive];
        }
        if (nlive == 1 && nfree == 0) { /* one node left: end it */
            t->node[live[0].node].s1 = k - 1;
            freed[nfree++] = live[0];
            nlive = 0;
        }
        qsort(freed, nfree, sizeof *freed, cmp_lo);
        for (uint32_t x = 0; x < nfree;) {
            int64_t lo = freed[x].lo, hi = freed[x].hi;
            for (x++; x < nfree && freed[x].lo == hi; x++) hi = freed[x].hi;
            uint32_t parts = 1 + below(&r, 3);
            if (parts > (uint32_t)(hi - lo)) parts = (uint32_t)(hi - lo);
            int64_t at = lo;
            for (uint32_t q = 0; q < parts; q++) {
                int64_t left = hi - at, need = (int64_t)(parts - q - 1);
                int64_t size = q + 1 == parts ? left : 1 + (int64_t)below(&r, (uint32_t)(left - need));
                cr_assert_lt(nlive, MAXLIVE);
                live[nlive++] = (piece){add_node(t, k, size), at, at + size};
                at += size;
            }
        }
    }
    for (uint32_t x = 0; x < nlive; x++) t->node[live[x].node].s1 = K - 1;
    t->p.K = K, t->p.Q = 1, t->p.nodes = t->node, t->p.cap = cap, t->p.align = 1, t->p.seed = 1;
    t->p.off = t->off, t->p.opt = t->opt;
}

/* A guillotine tiling: the box cut at random in time or in bytes. */
static inline void cut_tiling(tiling *t, uint64_t seed, uint32_t n, uint32_t K, int64_t cap)
{
    typedef struct box { uint32_t s0, s1; int64_t lo, hi; } box;
    static box b[MAXN];
    sba_rng r = {seed};
    uint32_t nb = 1;
    b[0] = (box){0, K - 1, 0, cap};
    for (uint32_t tries = 0; nb < n && tries < 100000; tries++) {
        uint32_t i = below(&r, nb);
        box x = b[i], y = x;
        if (below(&r, 2) && x.s1 > x.s0) {
            uint32_t at = x.s0 + 1 + below(&r, x.s1 - x.s0);
            x.s1 = at - 1, y.s0 = at;
        } else if (x.hi - x.lo >= 2) {
            int64_t at = x.lo + 1 + (int64_t)below(&r, (uint32_t)(x.hi - x.lo - 1));
            x.hi = at, y.lo = at;
        } else {
            continue;
        }
        b[i] = x, b[nb++] = y;
    }
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < nb; i++) t->node[add_node(t, b[i].s0, b[i].hi - b[i].lo)].s1 = b[i].s1;
    t->p.K = K, t->p.Q = 1, t->p.nodes = t->node, t->p.cap = cap, t->p.align = 1, t->p.seed = 1;
    t->p.off = t->off, t->p.opt = t->opt;
}

/* The independent check of a packing. */
static inline void check_packing(const tiling *t)
{
    for (uint32_t i = 0; i < t->p.n; i++) {
        const sb_pack_node *a = &t->node[i];
        cr_assert_eq(t->opt[i], 0);
        cr_assert(t->off[i] >= 0 && t->off[i] + a->size <= t->p.cap, "node %u outside the capacity", i);
        for (uint32_t j = 0; j < i; j++) {
            const sb_pack_node *b = &t->node[j];
            if (a->s1 < b->s0 || b->s1 < a->s0) continue;
            cr_assert(t->off[i] + a->size <= t->off[j] || t->off[j] + b->size <= t->off[i],
                      "nodes %u and %u overlap", i, j);
        }
    }
}

/* A planted function of memory reused over time (`gen --planted --walls`,
 * the mix `heights`, `holes` percent left out), through the allocator and
 * the verifier: no cut in time or bytes splits it, and it must pack. */
static inline void planted_walls_pack(uint64_t seed, uint32_t tensors, const char *heights, uint32_t holes)
{
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.seed = seed, p.tensors = tensors, p.heights = heights, p.walls = true, p.holes = holes;
    sba_error err;
    bir_module *m = sba_gen_planted(&p, false, NULL, &err);
    cr_assert_not_null(m, "gen --planted: %s", err.message);
    sba_alloc_options o = {0};
    sba_alloc_report r;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "allocate: %s", err.message);
    cr_assert_eq(r.fns[0].spilled, 0u, "seed %llu, %s, holes %u: spilled %u", (unsigned long long)seed, heights,
                 holes, r.fns[0].spilled);
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    bir_module_free(m);
}

#endif

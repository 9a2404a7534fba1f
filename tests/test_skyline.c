/* The skyline tiling search (src/sbuf/skyline.c), on packing problems built
 * here: tilings cut at random from the time × bytes × quarters box (so a
 * zero-slack packing exists), a fixed rectangle to pack around, a problem
 * that cannot fit, a budget of a few units. Every packing it returns is
 * checked by check_packing below, which knows nothing of the search: each
 * node inside the capacity, in one of its options, clear of the fixed
 * rectangles and of every other node it shares a section and a quarter
 * with. Then planted functions through the whole allocator, proved by the
 * verifier: the 300-tensor instances the skyline packs at once. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/arena.h"
#include "base/rng.h"
#include "sballoc/alloc.h"
#include "sballoc/gen.h"
#include "sballoc/verify.h"
#include "sbuf/sbuf.h"

#define BIG_BUDGET 100000000ull

enum { MAXN = 512 };

typedef struct tiling {
    sb_pack_node node[MAXN];
    sb_pack_fixed fixed[4];
    int64_t off[MAXN];
    uint32_t opt[MAXN];
    int64_t planted_off[MAXN];   /* where the cut put each node */
    uint8_t planted_mask[MAXN];
    sb_pack_problem p;
} tiling;

/* A box of the cut: sections [s0, s1], bytes [lo, hi) in units, quarters
 * [q0, q0 + h). */
typedef struct box {
    uint32_t s0, s1, q0, h;
    int64_t lo, hi;
} box;

/* Cuts a K-section box of `cap` bytes (units of `unit`) into n pieces: in
 * time, in bytes, or (2-D) in halves of its quarters. Every piece becomes a
 * node whose options are the aligned positions of its quarter count. */
static void cut_tiling(tiling *t, uint64_t seed, uint32_t n, uint32_t K, uint32_t Q, int64_t cap, int64_t unit)
{
    sba_rng r = {seed};
    box b[MAXN];
    uint32_t nb = 1;
    b[0] = (box){0, K - 1, 0, Q, 0, cap / unit};
    for (uint32_t tries = 0; nb < n && tries < 100000; tries++) {
        uint32_t i = (uint32_t)(sba_rng_next(&r) % nb);
        box x = b[i], y = x;
        uint32_t axis = (uint32_t)(sba_rng_next(&r) % 3);
        if (axis == 0 && x.s1 > x.s0) {
            uint32_t at = x.s0 + 1 + (uint32_t)(sba_rng_next(&r) % (x.s1 - x.s0));
            x.s1 = at - 1, y.s0 = at;
        } else if (axis == 1 && x.hi - x.lo >= 2) {
            int64_t at = x.lo + 1 + (int64_t)(sba_rng_next(&r) % (uint64_t)(x.hi - x.lo - 1));
            x.hi = at, y.lo = at;
        } else if (axis == 2 && x.h > 1) {
            x.h /= 2, y.h /= 2, y.q0 += x.h;
        } else {
            continue;
        }
        b[i] = x, b[nb++] = y;
    }
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < nb; i++) {
        sb_pack_node *nd = &t->node[i];
        *nd = (sb_pack_node){.s0 = b[i].s0, .s1 = b[i].s1, .size = (b[i].hi - b[i].lo) * unit};
        for (uint32_t q = 0; q + b[i].h <= Q; q += b[i].h) nd->qmask[nd->nopt++] = (uint8_t)(((1u << b[i].h) - 1) << q);
        t->planted_off[i] = b[i].lo * unit;
        t->planted_mask[i] = (uint8_t)(((1u << b[i].h) - 1) << b[i].q0);
    }
    t->p = (sb_pack_problem){.K = K, .Q = Q, .n = nb, .nodes = t->node, .fixed = t->fixed, .cap = cap,
                             .align = unit, .seed = 1, .off = t->off, .opt = t->opt};
}

/* The independent check of a packing. */
static void check_packing(const tiling *t)
{
    const sb_pack_problem *p = &t->p;
    for (uint32_t i = 0; i < p->n; i++) {
        const sb_pack_node *a = &p->nodes[i];
        cr_assert_lt(p->opt[i], a->nopt, "node %u: option %u of %u", i, p->opt[i], a->nopt);
        cr_assert(p->off[i] >= 0 && p->off[i] + a->size <= p->cap, "node %u at %lld + %lld outside %lld", i,
                  (long long)p->off[i], (long long)a->size, (long long)p->cap);
        cr_assert_eq(p->off[i] % p->align, 0, "node %u unaligned", i);
        uint8_t ma = a->qmask[p->opt[i]];
        for (uint32_t f = 0; f < p->nfixed; f++) {
            const sb_pack_fixed *x = &p->fixed[f];
            bool meet = (x->qmask & ma) && x->s0 <= a->s1 && a->s0 <= x->s1;
            cr_assert(!meet || p->off[i] + a->size <= x->lo || x->hi <= p->off[i], "node %u on fixed %u", i, f);
        }
        for (uint32_t j = i + 1; j < p->n; j++) {
            const sb_pack_node *b = &p->nodes[j];
            bool meet = (ma & b->qmask[p->opt[j]]) && a->s0 <= b->s1 && b->s0 <= a->s1;
            cr_assert(!meet || p->off[i] + a->size <= p->off[j] || p->off[j] + b->size <= p->off[i],
                      "nodes %u and %u overlap", i, j);
        }
    }
}

static int pack(tiling *t, uint64_t budget, uint64_t *work)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    uint64_t w, visited;
    int r = sb_skyline_pack(&t->p, &ar, budget, &w, &visited);
    sba_arena_free(&ar);
    if (work) *work = w;
    return r;
}

/* Tilings of n pieces, K sections, Q quarters, for seeds 1..seeds, every
 * node `shrink` bytes smaller (then room must be left empty): all pack. */
static void tilings_pack(uint64_t seeds, uint32_t n, uint32_t K, uint32_t Q, int64_t shrink)
{
    static tiling t;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        cut_tiling(&t, seed, n, K, Q, 4096, 32);
        for (uint32_t i = 0; i < t.p.n; i++)
            if (t.node[i].size > shrink) t.node[i].size -= shrink;
        int r = pack(&t, BIG_BUDGET, NULL);
        cr_assert_eq(r, SB_PACK_PACKED, "seed %llu: %d", (unsigned long long)seed, r);
        check_packing(&t);
    }
}

Test(skyline, packs_zero_slack_1d_tilings) { tilings_pack(40, 60, 24, 1, 0); }

Test(skyline, packs_zero_slack_2d_tilings_of_mixed_heights) { tilings_pack(40, 30, 16, 4, 0); }

Test(skyline, packs_with_slack_by_giving_room_up) { tilings_pack(20, 30, 16, 1, 32); }

Test(skyline, packs_around_fixed_rectangles)
{
    /* the largest nodes of a tiling become fixed where the cut put them */
    static tiling t;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        cut_tiling(&t, seed, 40, 16, 1, 4096, 32);
        for (uint32_t f = 0; f < 2; f++) {
            uint32_t big = 0;
            for (uint32_t i = 1; i < t.p.n; i++)
                if (t.node[i].size * (t.node[i].s1 - t.node[i].s0 + 1) > t.node[big].size * (t.node[big].s1 - t.node[big].s0 + 1))
                    big = i;
            t.fixed[f] = (sb_pack_fixed){.s0 = t.node[big].s0, .s1 = t.node[big].s1, .qmask = t.planted_mask[big],
                                         .lo = t.planted_off[big], .hi = t.planted_off[big] + t.node[big].size};
            t.p.n--;
            t.node[big] = t.node[t.p.n];
            t.planted_off[big] = t.planted_off[t.p.n], t.planted_mask[big] = t.planted_mask[t.p.n];
        }
        t.p.nfixed = 2;
        int r = pack(&t, BIG_BUDGET, NULL);
        cr_assert_eq(r, SB_PACK_PACKED, "seed %llu: %d", (unsigned long long)seed, r);
        check_packing(&t);
    }
}

Test(skyline, a_problem_that_cannot_fit_is_not_packed)
{
    static tiling t;
    cut_tiling(&t, 3, 30, 10, 1, 4096, 32);
    t.node[0].size += 32; /* one section now needs 32 bytes more than there are */
    uint64_t work;
    cr_assert_eq(pack(&t, BIG_BUDGET, &work), SB_PACK_NONE);
    cr_assert_lt(work, 1000u, "the slack bound should refuse it before any search (work %llu)",
                 (unsigned long long)work);
}

Test(skyline, a_spent_budget_is_reported)
{
    static tiling t;
    cut_tiling(&t, 5, 200, 40, 4, 65536, 32);
    cr_assert_eq(pack(&t, 10, NULL), SB_PACK_BUDGET);
}

Test(skyline, same_problem_same_packing)
{
    static tiling t, u;
    cut_tiling(&t, 11, 30, 16, 4, 8192, 32);
    cut_tiling(&u, 11, 30, 16, 4, 8192, 32);
    u.p.nodes = u.node, u.p.off = u.off, u.p.opt = u.opt;
    cr_assert_eq(pack(&t, BIG_BUDGET, NULL), SB_PACK_PACKED);
    cr_assert_eq(pack(&u, BIG_BUDGET, NULL), SB_PACK_PACKED);
    cr_assert_arr_eq(t.off, u.off, sizeof t.off);
    cr_assert_arr_eq(t.opt, u.opt, sizeof t.opt);
}

/* A planted function (sballoc gen --planted) of options p packs through
 * the allocator, and the verifier proves it. */
static void planted_options_pack(const sba_planted_options *p)
{
    sba_error err;
    bir_module *m = sba_gen_planted(p, false, NULL, &err);
    cr_assert_not_null(m, "gen --planted: %s", err.message);
    sba_alloc_options o = {0};
    sba_alloc_report r;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "allocate: %s", err.message);
    cr_assert_eq(r.fns[0].spilled, 0u, "planted seed %llu %s (holes %u) spilled %u", (unsigned long long)p->seed,
                 p->heights, p->holes, r.fns[0].spilled);
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    bir_module_free(m);
}

/* Planted functions through the allocator, over `span` steps (0: the
 * generator's default). */
static void planted_packs_over(uint64_t seed, const char *heights, uint32_t tensors, uint32_t span)
{
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.seed = seed;
    p.tensors = tensors;
    p.heights = heights;
    if (span) p.span = span;
    planted_options_pack(&p);
}

static void planted_packs(uint64_t seed, const char *heights, uint32_t tensors)
{
    planted_packs_over(seed, heights, tensors, 0);
}

Test(skyline, packs_planted_1d_functions)
{
    for (uint64_t seed = 2; seed <= 3; seed++) planted_packs(seed, "full", 300);
}

Test(skyline, packs_a_planted_2d_function_in_whole_bands)
{
    /* partition counts below their class leave quarters free under them:
     * the band run packs it, taking every node's whole band */
    planted_packs(2, "q:1,h:1,f:1", 300);
}

/* ---- strips.c: the guillotine decomposition -------------------------------- */

static int strips(tiling *t, uint64_t budget, uint64_t *work)
{
    uint64_t w, visited;
    int r = sb_strips_pack(&t->p, NULL, budget, &w, &visited);
    if (work) *work = w;
    return r;
}

/* Tilings too large for one search, 1-D: most are cut and packed (a cut
 * may be missed; the caller's whole search then takes the part), and every
 * packing holds. */
Test(strips, packs_large_1d_tilings_by_cutting_them)
{
    static tiling t;
    uint32_t packed = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        cut_tiling(&t, seed, 500, 400, 1, 65536, 32);
        int r = strips(&t, BIG_BUDGET, NULL);
        cr_assert(r == SB_PACK_PACKED || r == SB_PACK_NONE || r == SB_PACK_BUDGET, "seed %llu: %d",
                  (unsigned long long)seed, r);
        if (r == SB_PACK_PACKED) check_packing(&t), packed++;
    }
    cr_assert_geq(packed, 10u, "%u of 12 tilings of 500 pieces packed", packed);
}

Test(strips, packs_a_planted_1d_function_of_2000_tensors) { planted_packs(1, "full", 2000); }

/* A run's share smaller than what the cuts cost must leave the skyline no
 * budget, not wrap around to an endless one: with a budget of 1e6 units a
 * zero-slack function of 1,000 tensors ends, spilling, in well under a
 * second (a test timeout otherwise). */
Test(strips, a_spent_share_leaves_the_skyline_nothing, .timeout = 60)
{
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.seed = 2;
    p.tensors = 1000;
    p.heights = "full";
    sba_error err;
    bir_module *m = sba_gen_planted(&p, false, NULL, &err);
    cr_assert_not_null(m, "gen --planted: %s", err.message);
    sba_alloc_options o = {.search_budget = 1000000};
    sba_alloc_report r;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "allocate: %s", err.message);
    cr_assert_eq(r.fns[0].search_outcome, 3u, "the budget runs out: %u", r.fns[0].search_outcome);
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    bir_module_free(m);
}

Test(strips, packs_planted_2d_functions_of_1000_tensors)
{
    /* seed 1 has pieces of one section, 21 nodes of two heights in every
     * quarter to the byte: a leaf's share must let the skyline pack them */
    planted_packs(1, "q:1,h:1,f:1", 1000);
    planted_packs(3, "q:1,h:1,f:1", 1000);
}

Test(strips, cuts_bands_whose_halves_have_no_cut_in_time)
{
    /* each has a band cut whose halves hold nodes live over the whole
     * piece: no seed in time, only the sweep from the piece's start finds
     * it, among hundreds of sets of the right load that the quarters' sums
     * reject; the halves' quarters are cut again (CUT_NODES) */
    planted_packs(1, "q:1,h:1,f:1", 800);
    planted_packs(2, "q:1,h:1,f:1", 800);
    planted_packs(5, "q:1,h:1,f:1", 800);
}

Test(strips, finds_strips_in_two_halves)
{
    /* a piece of each (23 to 109 nodes) has address cuts only, and every
     * strip of it has no cut in time: its lowest strip's nodes each lie in
     * one half of the quarters, so it is found a half at a time */
    planted_packs(6, "q:3,h:1,f:1", 600);
    planted_packs(6, "q:1,h:1,f:1", 900);
}

Test(strips, searches_again_with_wide_bounds)
{
    /* parts whose cuts the strips miss within their first bounds (and
     * the skyline after them): searched again alone with sixteen times the
     * seeds' steps and tries and a split's work, they pack (a 349-node
     * part of the first; the second, mix 2:1:1, spilled 94 before) */
    planted_packs(6, "q:3,h:1,f:1", 900);
    planted_packs(3, "q:2,h:1,f:1", 700);
}

Test(strips, gives_a_split_in_2d_what_its_leaves_may_take)
{
    /* quarter-heavy, four tensors a step: the right split's sides hold
     * pieces whose skyline search needs more than a tenth of a leaf's work
     * per node; on that share the split ran out as a wrong one does, and
     * the function spilled 95 tensors */
    planted_packs_over(73, "q:3,h:1,f:1", 600, 150);
}

Test(strips, changes_the_part_of_a_set_that_failed)
{
    /* dense in time (300 tensors over 50 steps): a strip's sets of the
     * right load differ in many places, and the one that packs differs from
     * the first found where its split failed; trying other choices after
     * that part first, and never searching again a state whose subtree
     * failed only in splits, spent every try per seed on the same failure */
    planted_packs_over(2, "q:1,h:1,f:1", 300, 50);
}

Test(strips, sweeps_long_parts_far_enough)
{
    /* a strip spans every section of a long part (the 2-D one: 2,000
     * nodes over 788 sections), so a seed's sweep must get past hundreds of
     * groups, which 64 steps per node did not allow */
    planted_packs(3, "q:1,h:1,f:1", 2000);
    planted_packs(2, "full", 2000);
}

Test(strips, counts_only_the_sets_it_searches)
{
    /* most sets of the right load its seeds find fail the subset-sum test
     * at once; counted as tries, they ended each seed before the set that
     * packs */
    planted_packs(4, "q:1,h:1,f:1", 2000);
}

Test(strips, cuts_parts_smaller_than_a_leaf)
{
    /* the first part of this function, 35 nodes over 3 sections nearly all
     * live across it, is a partition of the quarters: the searches of the
     * whole part ran out on it, a band cut splits it at once */
    planted_packs(2, "q:2,h:1,f:1", 700);
}

Test(strips, leaves_a_problem_with_slack_to_the_whole_search)
{
    /* in 2-D, and in 1-D with more than an eighth of the room free, slack
     * is looked at, not searched */
    static tiling t;
    cut_tiling(&t, 3, 300, 200, 4, 65536, 32);
    t.node[0].size -= 32;
    uint64_t work = 1;
    cr_assert_eq(strips(&t, BIG_BUDGET, &work), SB_PACK_NONE);
    cr_assert_lt(work, 2000u, "a 2-D problem with slack is searched: %llu", (unsigned long long)work);
    cut_tiling(&t, 3, 300, 200, 1, 65536, 32);
    for (uint32_t i = 0; i < t.p.n; i++) t.node[i].size -= t.node[i].size / 4 / 32 * 32;
    cr_assert_eq(strips(&t, BIG_BUDGET, &work), SB_PACK_NONE);
    cr_assert_lt(work, 2000u, "a problem with much slack is searched: %llu", (unsigned long long)work);
}

Test(strips, pads_the_slack_a_smaller_node_leaves)
{
    /* 32 bytes free while node 0 is live: one padding node of 32 bytes
     * over its sections makes the tiling whole again */
    static tiling t;
    cut_tiling(&t, 3, 300, 200, 1, 65536, 32);
    t.node[0].size -= 32;
    cr_assert_eq(strips(&t, BIG_BUDGET, NULL), SB_PACK_PACKED);
    check_packing(&t);
}

Test(strips, same_problem_same_packing)
{
    static tiling t, u;
    cut_tiling(&t, 5, 500, 300, 1, 65536, 32);
    u = t;
    u.p.nodes = u.node, u.p.off = u.off, u.p.opt = u.opt;
    cr_assert_eq(strips(&t, BIG_BUDGET, NULL), SB_PACK_PACKED);
    cr_assert_eq(strips(&u, BIG_BUDGET, NULL), SB_PACK_PACKED);
    cr_assert_arr_eq(t.off, u.off, sizeof t.off);
    cr_assert_arr_eq(t.opt, u.opt, sizeof t.opt);
}

Test(strips, packs_planted_1d_functions_of_1000_tensors)
{
    planted_packs(1, "full", 1000);
    planted_packs(3, "full", 1000);
}

/* A strip's first side chooses its load A, and a sweep's state that failed
 * is not searched again. The same live weights at a group under another
 * A leave another need there, so A is part of the state: these 1-D
 * tilings pack, the first only if it is (and the 2-D function, whose
 * 186-node part has one strip with a cut in time, was missed at any bound
 * before it was). */
Test(strips, a_state_that_failed_under_one_load_is_searched_under_another)
{
    static tiling t;
    const uint64_t seeds[] = {4, 10, 33};
    for (size_t x = 0; x < sizeof seeds / sizeof *seeds; x++) {
        cut_tiling(&t, seeds[x], 500, 400, 1, 65536, 32);
        cr_assert_eq(strips(&t, BIG_BUDGET, NULL), SB_PACK_PACKED, "seed %llu", (unsigned long long)seeds[x]);
        check_packing(&t);
    }
    planted_packs(5, "q:1,h:1,f:1", 600);
}

/* A 1-D tiling of n pieces over K steps with one piece in twenty left out. */
static void holed_tiling(tiling *t, uint64_t seed, uint32_t n, uint32_t K)
{
    cut_tiling(t, seed, n, K, 1, 65536, 32);
    for (uint32_t i = 0; i < t->p.n; i += 20) {
        t->p.n--;
        t->node[i] = t->node[t->p.n];
        t->planted_off[i] = t->planted_off[t->p.n];
    }
}

/* Of 12 such tilings, how many `packer` (the strips or the skyline) packs
 * on `budget` units each (every packing checked). */
static uint32_t holed_tilings_packed(uint32_t n, uint32_t K, int (*packer)(tiling *, uint64_t, uint64_t *),
                                     uint64_t budget)
{
    static tiling t;
    uint32_t packed = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        holed_tiling(&t, seed, n, K);
        int r = packer(&t, budget, NULL);
        cr_assert(r == SB_PACK_PACKED || r == SB_PACK_NONE || r == SB_PACK_BUDGET, "seed %llu: %d",
                  (unsigned long long)seed, r);
        if (r == SB_PACK_PACKED) check_packing(&t), packed++;
    }
    return packed;
}

/* The skyline alone on 1-D tilings of 100 pieces over 40 sections with one
 * piece in twenty left out: a hole often ends where the run at its floor
 * goes on, which the run given up whole does not allow (the room after the
 * hole is not free). Giving up ever shorter parts of the run after the
 * whole (skyline.c, Holes), 11 of the 12 pack on 2e7 units each; with the
 * whole run only, 7. Every packing is checked. */
Test(skyline, gives_up_parts_of_a_run_where_a_hole_ends)
{
    uint32_t packed = holed_tilings_packed(100, 40, pack, 20000000);
    cr_assert_geq(packed, 10u, "%u of 12 tilings with holes packed", packed);
}

/* Taken first, a set's items make its heaviest sets first; with slack
 * most sets of a load fit, and the heavy ones hold pieces of many strips.
 * With every item left before it is taken (sb_pack_problem.light, which
 * search.c runs on a 1-D part with slack no other run packed) the
 * lightest come first: this tiling of 300 pieces with one in twenty left
 * out packs so. (The heaviest-first sweep missed it while the skyline
 * gave up only whole runs at the leaves; with the shorter parts it packs
 * it too, and of seeds 1-120 none packs lightest first only.) */
Test(strips, the_lightest_sets_first_pack_a_tiling_with_holes)
{
    static tiling t;
    holed_tiling(&t, 51, 300, 200);
    t.p.light = true;
    int r = strips(&t, BIG_BUDGET, NULL);
    cr_assert_eq(r, SB_PACK_PACKED, "%d", r);
    check_packing(&t);
}

/* Tilings of 300 with holes: padded, a quarter pack at least (the room
 * alone does not tell which holes start and end together, and these
 * tilings have many that do); the cuts with slack come after. */
Test(strips, pads_the_slack_of_tilings_with_holes)
{
    uint32_t packed = holed_tilings_packed(300, 200, strips, BIG_BUDGET);
    cr_assert_geq(packed, 3u, "%u of 12 tilings with holes packed", packed);
}

/* A share spent while the padding is read (its subset sums count) leaves
 * the padded part's searches nothing, not an endless budget: on tilings
 * with holes and shares of 1e3 to 1e6 units, the strips end within what
 * reading one padding can overrun (a 2^12 subset scan per section). A
 * planted function of 260 tensors with holes ran for minutes so. */
Test(strips, a_share_spent_on_the_padding_leaves_its_searches_nothing, .timeout = 60)
{
    static tiling t;
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (uint64_t budget = 1000; budget <= 1000000; budget *= 4) {
            cut_tiling(&t, seed, 300, 200, 1, 65536, 32);
            for (uint32_t i = 0; i < t.p.n; i += 20) {
                t.p.n--;
                t.node[i] = t.node[t.p.n];
            }
            uint64_t work;
            int r = strips(&t, budget, &work);
            cr_assert_leq(work, budget + (200ull << 12), "seed %llu, budget %llu: work %llu (%d)",
                          (unsigned long long)seed, (unsigned long long)budget, (unsigned long long)work, r);
            if (r == SB_PACK_PACKED) check_packing(&t);
        }
}

/* Larger ones, of 500: the cuts read the slack as holes (strips.c, Slack),
 * the set of a strip leaving in each section no more than the part has
 * free; the padding alone packed 2 of these 12. */
Test(strips, cuts_tilings_with_holes)
{
    uint32_t packed = holed_tilings_packed(500, 250, strips, BIG_BUDGET);
    cr_assert_geq(packed, 4u, "%u of 12 tilings with holes packed", packed);
}

/* Planted 1-D functions of `tensors` with 5 % of the tiling left out,
 * seeds first, first + step, ... up to last: each packs with no spill. */
static void planted_holes_pack(uint32_t tensors, uint64_t first, uint64_t last, uint64_t step)
{
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.tensors = tensors;
    p.heights = "full";
    p.holes = 5;
    for (p.seed = first; p.seed <= last; p.seed += step) planted_options_pack(&p);
}

Test(strips, packs_planted_functions_with_holes)
{
    planted_holes_pack(300, 1, 3, 2); /* spilled 4 and 10 before the padding */
}

Test(strips, packs_larger_planted_functions_with_holes)
{
    /* one part of 300 and more each, which spilled 11 and 4 before the
     * cuts read the slack as holes */
    planted_holes_pack(350, 11, 12, 1);
}

Test(strips, reads_the_slack_as_holes)
{
    /* with the slack read as free room alone (no holes), this one
     * spills 8: the looser loads meet wrong sets first */
    planted_holes_pack(350, 14, 14, 1);
}

/* The strips alone on a tiling of 150 pieces over 30 sections (2-D, cut
 * at random), at `scale` times their bounds, restart `order_seed` (0:
 * none), on `budget` units. */
static int strips_alone(uint64_t seed, uint32_t scale, uint64_t order_seed, uint64_t budget)
{
    static tiling t;
    cut_tiling(&t, seed, 150, 30, 4, 4096, 32);
    t.p.scale = scale, t.p.order_seed = order_seed;
    int r = strips(&t, budget, NULL);
    if (r == SB_PACK_PACKED) check_packing(&t);
    return r;
}

/* Wider bounds are not always better: here sixteen times the seeds' steps
 * and tries go to wrong sets of the right load until the budget is spent,
 * where four times give up on them sooner and pack (search.c runs the
 * strips alone on a ladder of bounds, the narrowest first). */
Test(strips, narrower_bounds_may_pack_what_wider_ones_miss)
{
    cr_assert_eq(strips_alone(36, 16, 0, 200000000), SB_PACK_BUDGET);
    cr_assert_eq(strips_alone(36, 4, 0, 200000000), SB_PACK_PACKED);
}

/* A restart leaves a quarter of the items, picked by its seed, out of a
 * set first: the same bounds then meet other sets of the same load. Here
 * the second restart packs what the plain order spends the budget on. */
Test(strips, a_restart_leaves_items_out_first)
{
    cr_assert_eq(strips_alone(35, 16, 0, 50000000), SB_PACK_BUDGET);
    cr_assert_eq(strips_alone(35, 16, 2, 50000000), SB_PACK_PACKED);
    cr_assert_eq(strips_alone(35, 16, 2, 50000000), SB_PACK_PACKED, "the same restart, the same outcome");
}

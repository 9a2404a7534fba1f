/* strips: the exact packer's guillotine decomposition.
 *
 * Where a part has no slack — in every section its nodes' bytes × quarters
 * fill the quarters of its bands to the capacity — a packing is a tiling,
 * and a tiling that can be cut straight through splits the problem in two
 * that pack apart. Each cut below is a property of some packing, not of the
 * input's order:
 *   - time: no node crosses from one section to the next; each side packs
 *     alone at the same capacity;
 *   - a whole node: a node live over the whole part in every quarter of its
 *     bands can go at the bottom (in any packing every other node is wholly
 *     below or above it, and the ones below can move up by its size);
 *   - address: a set L of nodes whose load is the same A (bytes × quarters)
 *     in every section of the part, a strip: L packs in [base, base + a),
 *     a = A / quarters, and the rest above it at capacity cap - a;
 *   - band: the nodes split between the two halves of the part's quarters
 *     (of all four, or of one half) so that each half is full in every
 *     section; each half packs alone at the same bytes;
 *   - a strip in two halves: a strip (as above) whose nodes each lie in
 *     one half of the quarters, a strip of height a of each half; the
 *     halves pack alone at a, the rest above at cap - a.
 * Cuts nest: a strip is cut in time, a slice of time across bands or bytes,
 * and so on. A piece that is small, or has slack, or cannot be cut goes to
 * skyline.c on its own sections (leaf_sections), in the quarters of its
 * bands (the others held by a fixed rectangle).
 *
 * Finding a strip. A strip that is not one node has a cut in time inside
 * it, between sections k and k + 1, that no node of the strip crosses: its
 * nodes there end at k or start at k + 1, the same load A on both sides.
 * Other strips may be cut at the same k, so every k where nodes end is a
 * seed (the heaviest first), the crossing nodes are out, and which of the
 * ending and starting ones are in is a choice, all first. From a seed a
 * sweep runs forward over the nodes that start after it and, mirrored,
 * back over the nodes that end at or before it: in each section, the nodes
 * of L that ended in the section before must be replaced, to the byte, by
 * nodes of L that start here, and none may end where none starts. A
 * depth-first search takes or leaves each starting node, largest first,
 * pruned by the sums of its section: what the nodes after it in its group
 * can still add must bring the section to its load, a subset sum of theirs
 * (kept per node as a bitset where the group's total is at most
 * REACH_UNITS units of the alignment, and read where the load lies within
 * REACH_WINDOW of them: without slack it is one); a state entering a
 * section that failed once is not searched again, unless a set was split
 * below it: a split fails for the whole set, and the nodes decided before
 * the state are not in it. What is left to decide there depends only on A
 * and on how much of L ends at each section to come, so a state is that,
 * hashed (the weights of L's live nodes summed per last section), not
 * which nodes they are: sets that differ only before it share its failure
 * (on 72 planted 2-D functions of 500-900 tensors, 64 pack instead of 60
 * with the nodes themselves as the state). Each set found on one side is
 * completed on the other, then split and packed. A split that fails names
 * what failed where it can: the piece (a part in time of one side) that
 * did not pack, or the section whose sums did not fill. Only the nodes
 * live there made it, so the search backs up to the last of those (or, on
 * a strip's first side, to its first group, which sets A): other choices
 * of the nodes after it would fail the same way. A
 * band cut is the same search with A the half's room, seeds where the
 * nodes that end weigh at least that, and "taken" meaning the lower half.
 * A half with a node live over the whole part has no cut in time, so no
 * seed: a band cut is also looked for by one sweep from the part's first
 * section.
 *
 * A strip in two halves. In 2-D the lowest strip of a piece is often cut
 * first by band: its lower half holds one stack of nodes, its upper half
 * another, with cuts in time at different sections or none, so no section
 * cuts the strip and no seed finds it. Its first half is looked for as a
 * strip of any load among the nodes with an option in the lower half's
 * quarters (seeds, then the sweep from the first section); each one found
 * sets a, and the second half is the same search in the upper half's
 * quarters with its load fixed at a × its quarters, among the nodes not in
 * the first (all its seeds share one step bound: most first halves have no
 * second). Every set
 * (strip or half) is split only if both sides can fill every quarter to the
 * byte in every section, as far as subset sums of their full, half and
 * quarter heights tell (fills): most sets of the right load fail that at
 * once, so many can be tried. Within the cuts a piece of more than
 * CUT_NODES nodes is cut before it goes to a leaf: a half's quarters often
 * cut again.
 *
 * Bounds. A seed's sweep has SEED_WORK steps per node and searches at most
 * SEED_TRIES sets (the sweep from the start START_WORK and START_TRIES; a
 * set rejected at once, by fills or as one that failed before, does not
 * count); a split, whose sides may be wrong, SPLIT_WORK per node (in
 * 2-D SPLIT_WORK_2D: as much as a leaf's, see the enum);
 * a leaf LEAF_WORK per node, but LEAF_UNCUT_WORK where a piece of more
 * than CUT_NODES nodes had no cut (most often a wrong set of the right
 * load). Running out of those fails the seed, split or leaf, not the
 * whole; every step counts against the caller's budget. A piece that
 * failed is not searched again (a cache of FAILED_PIECES slots). The
 * caller may widen the bounds (sb_pack_problem.scale): the seeds' steps and
 * tries and a split's work × scale. Within them the sets of a seed come
 * in one order, each item taken before it is left, so a wrong branch
 * early in it is met on every run with the same bounds; a restart
 * (sb_pack_problem.order_seed) leaves a quarter of the items, picked by
 * its seed, out first, and meets other sets of the same load.
 *
 * Slack. A 1-D part with a little slack (at most an eighth of its room,
 * as MiniMalloc's instances: a tiling with some tiles left out) is first
 * padded: its free room becomes padding nodes, in up to PAD_TRIES ways
 * (pack_padded), and the padded part, a tiling, is searched by its orders
 * (refill.c: no guillotine cut is needed there) on half of what is
 * left and then cut as above, or by refill alone with its relays merged
 * (relay.c), on a quarter of the budget in all (where the
 * padding reads the holes right, that packs at once). Then it is cut as
 * above with the loads relaxed: a
 * strip's set may hold less than A in a section, by no more than the part
 * has free there (what it leaves is
 * room the rest cannot use), so A is only known to lie between the set's
 * highest load and its lowest load plus free room; the sweep narrows that
 * range section by section (narrow) and the split takes its least. Read
 * so, most sets of a load fit, and wrong ones are met first. So the slack
 * is first read as holes (left-out tiles), which start and end only where
 * the part's free room changes: from one section to the next where it
 * does not, the set's load does not change either (as without slack),
 * which keeps a cut almost as tight as without slack; then as free room
 * alone; each reading on half of what is left. (Reading the set's load
 * as changing by nothing or by exactly the change of the room, holes one
 * at a time, lost 4 of 11 functions with holes that this reading packs:
 * a hole of the set's often starts or ends with one of the rest's.) The pieces of a cut have slack of
 * their own and are cut the same way. Where A is not fixed by a
 * set's first group, a failure in some sections may come from any
 * decision, so the sweep does not back up past the others.
 *
 * Light. Taken first, a set's items make its heaviest sets first; with
 * slack, most sets of a load fit, and the heavy ones hold pieces of many
 * strips. A part with slack is often cut into narrow strips of a few
 * nodes, which sets with every item left first (sb_pack_problem.light)
 * meet first, so that the strips are peeled one by one; the caller runs
 * the strips so on a 1-D part with slack the other runs did not pack
 * (search.c). Light first everywhere loses as many parts as it packs:
 * where a part is cut in wide strips the light sets are the wrong ones.
 *
 * Drawn. A reading of the free room is right where its holes are the
 * tiles left out, or pack as they do; the readings above are a few of
 * many. With sb_pack_problem.drawn the padding is read at random instead,
 * reading after reading (pad_drawn: at every change of the room one of
 * the ways it can be read, each as likely), each searched by the cuts on
 * WALK_WORK units per node: a right one packs at once, as the tiling with
 * the tiles put back does. The room of the planted 1-D function at
 * MiniMalloc's sizes of 320 tensors, seed 9 (17 tiles left out), reads
 * 4,536 ways; of 20 drawn uniformly 1 packs, and no fixed reading does.
 * The caller runs it on a 1-D part with slack the other runs have not
 * packed (search.c).
 *
 * Fills. In 2-D a strip's set must fill every quarter of its bands to its
 * height in every section (fills), and most sets of a strip's load do not:
 * at the top of a dense part of 206 nodes (`gen --planted --heights
 * q:1,h:1,f:1 --span 166 --tensors 1000 --seed 2`) the seeds' sweeps
 * found 39,536 sets of the right load, 24 of which filled the quarters,
 * and none was a strip of the planted packing, whose strips (7,136 to
 * 32,544 bytes high) no seed reached within its steps. Every item live
 * in a section is decided once the sweep completes the section's group,
 * so with sb_pack_problem.section_fills the set's items live there are
 * tested then (set_fills: fills' test of one section, read a word at a
 * time, on the set's side only: the rest holds the crossing items and
 * costs more than it cuts), and a branch whose set cannot fill a section
 * ends there instead of at every set below it. The entry states that
 * fail so are remembered as any (by the live weight per last section, not
 * which items: a heuristic there, as the strips are). The test costs: on
 * parts where the plain strips find the strips at once it takes units the
 * later runs need, so the caller runs it as a run of its own (search.c).
 *
 * The search misses packings no cut splits (a pinwheel) and cuts it does
 * not look for; the caller then runs skyline.c on the whole part. It only
 * ever packs: it proves nothing infeasible.
 *
 * Requires: nothing (a problem built by search.c). Produces: an address and
 * option per node, as skyline.c. Complexity: exponential in the worst case,
 * bounded by the budget. */
#include <stdlib.h>
#include <string.h>

#include "base/keyset.h"
#include "base/rng.h"
#include "sbuf/sbuf.h"

enum {
    LEAF_MAX = 320,      /* a piece no cut splits and larger than this goes back to the caller */
    REACH_UNITS = 1 << 16, /* a group's subset sums are kept up to this many alignment units */
    REACH_WINDOW = 1024, /* and read where the load it must leave lies in this many */
    CUT_NODES = 16,      /* within the cuts, a piece larger than this is cut if it can be */
    SEED_WORK = 1024,    /* a seed's sweep: steps per node of the part */
    SEED_TRIES = 4,      /* sets of the right load searched per seed */
    START_WORK = 2048,   /* a sweep from the part's start (bands, halves): steps per node */
    START_TRIES = 256,   /* and the sets it splits (most fail fills() at once) */
    SPLIT_WORK = 40000,  /* a split's sides: work per node of the part (1-D) */
    LEAF_WORK = 400000,  /* a leaf: work per node */
    /* a split's sides in 2-D: as much as a leaf may take. With a tenth of
     * it, a right split whose sides hold a leaf that needs its search runs
     * out of its share and fails as a wrong one does (3 of 148 planted 2-D
     * functions of 529-922 tensors, q:h:f mixes 1:1:1, 3:1:1 and 1:2:1,
     * spans tensors / 1 to / 4, pack only with it; none of those nor of
     * 134 other planted functions lost). In 1-D the strips' failures leave
     * refill its budget, and there the larger share lost 2 of 12 dense
     * functions. */
    SPLIT_WORK_2D = LEAF_WORK,
    LEAF_UNCUT_WORK = 4000, /* a leaf of more than CUT_NODES nodes in which no cut was found */
    DEAD_SLOTS = 1 << 20,
    SORT_COST = 4,       /* units per comparison of a sort (qsort's calls and copies) */
    BUILD_COST = 16,     /* units per item of a sweep's arrays, cleared */
    FAILED_PIECES = 1 << 14, /* slots of the cache of pieces that did not pack */
    SLACK_FRACTION = 8,  /* a 1-D part with at most 1/8 of its room free is cut, or padded */
    WALK_WORK = 4096,    /* a drawn reading's search: work per node of the part (Drawn) */
    WALK_DRAWS = 64,     /* draws of a reading that meet a change of the room none of the ways reads */
    WALK_KEYS = 1 << 12, /* slots of the set of readings drawn */
};

typedef struct st_item {
    uint32_t s0, s1, id;
    uint8_t q; /* quarters of its options */
    int64_t w; /* size × q */
} st_item;

typedef struct strips {
    const sb_pack_problem *p;
    const sba_allocator *a;
    uint64_t budget, work, visited;
    bool nomem;
    /* what made the last split fail, where it is known: a range of
     * sections (a piece of one side, or a section whose sums failed) */
    bool culprit;
    uint32_t cs, ce;
    sba_keyset failed;    /* pieces (set, room, bands) that did not pack, hashed */
    uint64_t scale;       /* the seeds' steps and tries and a split's work × scale */
    bool holes;           /* 1-D slack is read as holes (cutter.holes) */
} strips;

static int popcount(uint32_t x) { return __builtin_popcount(x); }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Whether option o of a node lies within the bands M. */
static bool option_in(const sb_pack_node *nd, uint32_t o, uint8_t M) { return (nd->qmask[o] & ~M) == 0; }

static bool has_option_in(const sb_pack_node *nd, uint8_t M)
{
    for (uint32_t o = 0; o < nd->nopt; o++)
        if (option_in(nd, o, M)) return true;
    return false;
}

static int cmp_item(const void *x, const void *y)
{
    const st_item *a = x, *b = y;
    if (a->s0 != b->s0) return a->s0 < b->s0 ? -1 : 1;
    if (a->w != b->w) return a->w > b->w ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* An item with its index in the part, and a seed with its load: sorted. */
typedef struct st_pair {
    st_item x;
    uint32_t orig;
} st_pair;

typedef struct st_seed {
    int64_t w;
    uint32_t k;
} st_seed;

static int cmp_pair(const void *x, const void *y) { return cmp_item(&((const st_pair *)x)->x, &((const st_pair *)y)->x); }

static int cmp_seed(const void *x, const void *y)
{
    const st_seed *a = x, *b = y;
    if (a->w != b->w) return a->w > b->w ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* What is left of `budget` after `work` (which may overrun it a little:
 * steps are counted before the budget is checked). */
static uint64_t left_of(uint64_t budget, uint64_t work) { return work < budget ? budget - work : 0; }

/* ⌈log2 n⌉ + 1: what a sort of n costs per item, in work units. */
static uint64_t lg(uint32_t n) { return n ? (uint64_t)(32 - __builtin_clz(n)) : 1; }

/* The room the items (of sections k0 .. k0 + span - 1) leave free of
 * `room` in each section, into out[0 .. span); returns its sum, or -1
 * where they overfill a section. */
static int64_t free_by_section(const st_item *it, uint32_t m, uint32_t k0, uint32_t span, int64_t room, int64_t *out)
{
    memset(out, 0, ((size_t)span + 1) * sizeof *out);
    for (uint32_t i = 0; i < m; i++) out[it[i].s0 - k0] += it[i].w, out[it[i].s1 + 1 - k0] -= it[i].w;
    int64_t load = 0, total = 0;
    for (uint32_t k = 0; k < span; k++) {
        load += out[k];
        out[k] = room - load;
        if (out[k] < 0) return -1;
        total += out[k];
    }
    return total;
}

static int solve(strips *T, st_item *it, uint32_t m, int64_t cap, int64_t base, uint8_t M);

/* ---- leaves ---------------------------------------------------------------- */

/* A leaf's sections: of the part's sections k0 .. k0 + K - 1 that it
 * spans, those where one of its nodes ends with one begun since the last
 * such end: there the nodes live are a maximal set of its nodes that meet
 * (sb_kept_sections for a whole part). In any other section its nodes
 * live are a subset of those of the next kept one, and two of its nodes
 * meet iff they share a kept section, so the skyline checks the same
 * packings on fewer sections. A side of a cut spans the sections where
 * only the other side's nodes start or end, most of them on a side of a
 * few nodes; searched on all of them, the pieces of a cut whose sides pack
 * as functions of their own (the planted 1-D function of 1,000 tensors
 * with 5 % holes, seed 2) ran out of their share. rank[k] (k = 0 .. K): the kept sections before k0 + k, so
 * a node keeps [rank[s0 - k0], rank[s1 - k0 + 1] - 1], never empty (the
 * first end at or after its start is kept). ev: K bytes of scratch.
 * Returns the kept count. */
static uint32_t leaf_sections(const sb_pack_problem *p, const st_item *it, uint32_t m, uint32_t k0, uint32_t K,
                              uint8_t *ev, uint32_t *rank)
{
    memset(ev, 0, K);
    for (uint32_t j = 0; j < m; j++) ev[p->nodes[it[j].id].s0 - k0] |= 1, ev[p->nodes[it[j].id].s1 - k0] |= 2;
    bool begun = false;
    rank[0] = 0;
    for (uint32_t k = 0; k < K; k++) {
        begun |= ev[k] & 1;
        bool keep = begun && ev[k] & 2;
        begun &= !keep;
        rank[k + 1] = rank[k] + keep;
    }
    return rank[K];
}

/* Packs the items with skyline.c at [base, base + cap) in the bands M; the
 * other quarters are held by fixed rectangles over the items' sections. */
static int leaf(strips *T, const st_item *it, uint32_t m, int64_t cap, uint8_t M, uint64_t per_node)
{
    const sb_pack_problem *p = T->p;
    sba_arena ar;
    sba_arena_init(&ar, T->a);
    sb_pack_node *pn = sba_arena_array(&ar, m, sizeof *pn);
    sb_pack_fixed *fx = sba_arena_array(&ar, 1, sizeof *fx);
    int64_t *off = sba_arena_array(&ar, m, sizeof *off);
    uint32_t *opt = sba_arena_array(&ar, m, sizeof *opt), *orig = sba_arena_array(&ar, (size_t)m * 4, sizeof *orig);
    int r = SB_PACK_NOMEM;
    if (!pn || !fx || !off || !opt || !orig) goto out;
    /* the leaf's own sections: an empty one would read as slack */
    uint32_t k0 = it[0].s0, k1 = it[0].s1;
    for (uint32_t j = 0; j < m; j++) {
        if (it[j].s0 < k0) k0 = it[j].s0;
        if (it[j].s1 > k1) k1 = it[j].s1;
    }
    uint32_t K = k1 - k0 + 1, *rank = sba_arena_array(&ar, K + 1, sizeof *rank);
    uint8_t *ev = sba_arena_array(&ar, K, sizeof *ev);
    if (!rank || !ev) goto out;
    K = leaf_sections(p, it, m, k0, K, ev, rank);
    for (uint32_t j = 0; j < m; j++) {
        const sb_pack_node *nd = &p->nodes[it[j].id];
        pn[j] = (sb_pack_node){.s0 = rank[nd->s0 - k0], .s1 = rank[nd->s1 - k0 + 1] - 1, .size = nd->size};
        for (uint32_t o = 0; o < nd->nopt; o++)
            if (option_in(nd, o, M)) orig[j * 4 + pn[j].nopt] = o, pn[j].qmask[pn[j].nopt++] = nd->qmask[o];
    }
    uint8_t all = (uint8_t)((1u << p->Q) - 1);
    *fx = (sb_pack_fixed){.s0 = 0, .s1 = K - 1, .qmask = (uint8_t)(all & ~M), .lo = 0, .hi = cap};
    sb_pack_problem sub = {.K = K, .Q = p->Q, .n = m, .nfixed = (M & all) != all, .nodes = pn, .fixed = fx,
                           .cap = cap, .align = p->align, .seed = p->seed ^ ((uint64_t)it[0].id << 20 ^ m),
                           .off = off, .opt = opt};
    uint64_t left = left_of(T->budget, T->work), most = per_node * m, work = 0, visited = 0;
    r = sb_skyline_pack(&sub, &ar, left < most ? left : most, &work, &visited);
    T->work += work, T->visited += visited;
    if (r == SB_PACK_BUDGET && T->work < T->budget) r = SB_PACK_NONE; /* the leaf's share, not the whole */
    if (r == SB_PACK_PACKED)
        for (uint32_t j = 0; j < m; j++) {
            p->off[it[j].id] = off[j];
            p->opt[it[j].id] = orig[j * 4 + opt[j]];
        }
out:
    if (ar.failed) r = SB_PACK_NOMEM;
    sba_arena_free(&ar);
    return r;
}

/* ---- the sweep --------------------------------------------------------------- */

/* What a cut looks for in a part with bands M (lowM, highM: its halves):
 * a strip, of any load A; a band cut, lowM's half of the nodes filling it;
 * or a strip in two halves, a strip that no time cut splits but whose
 * nodes each lie in one half: the lower one's nodes first (HALF, any
 * load), then the upper one's at the same height (HALF2, of the nodes not
 * in the first). */
typedef enum { CUT_STRIP, CUT_BAND, CUT_HALF, CUT_HALF2 } cut_kind;

typedef struct cutter {
    strips *T;
    st_item *it;          /* the part */
    uint32_t m, tries, max_tries; /* sets searched (not those rejected at once) */
    bool rejected;                /* the last set found was rejected without a search */
    bool shared;                  /* one step limit for all seeds, not one each */
    uint64_t steps, limit; /* this seed's search steps, and where it gives up */
    int64_t cap, base, A;
    int64_t amin, amax;   /* the loads A may take, as the first side found them */
    int64_t seedload, seedslack; /* the first side's load and the free room at its first section */
    bool holes;           /* the free room is holes, which start and end only where it changes */
    const int64_t *slack; /* per section of the part from k0: its free room (NULL: none) */
    uint32_t k0;
    cut_kind kind;
    uint8_t M, lowM, highM; /* a taken node must have an option in lowM, a left one in highM (0: any) */
    uint8_t *in;          /* per item of the part: in the set found */
    const uint8_t *excl;  /* HALF2: per item, in the first half's set */
    struct cutter *first; /* HALF2: the first half's cutter */
    sba_keyset failed;    /* sets split without a packing, hashed: seeds find the same ones */
    uint64_t splits;      /* sets split (or a second half looked for): their outcome depends on the whole set */
    bool culprit;         /* the last split failed for the nodes of sections [cs, ce] alone */
    uint32_t cs, ce;
    uint64_t *fill;       /* a strip in 2-D with its sections checked (Fills): set_fills' scratch; NULL: not */
} cutter;

/* Whether the cut chooses A (its first side's first group sets it). */
static bool free_load(const cutter *C) { return C->kind == CUT_STRIP || C->kind == CUT_HALF; }

/* The quarters A is measured in: the strip's bands, or its half's. */
static int load_quarters(const cutter *C) { return popcount(C->lowM ? C->lowM : C->M); }

/* The sweep over one side of a seed: items sorted by start (mirrored in
 * time on the side before the seed), largest first, in groups of the same
 * start; group 0 starts at the seed. The side after the seed chooses A
 * there (free0); the side before must match it. */
typedef struct sweep {
    cutter *C;
    st_item *it;
    uint32_t *orig;                  /* per item: its index in the part */
    uint32_t m, k1, G;
    uint32_t *group, *gstart, *gend; /* item → group; group → its items */
    int64_t *rest;                   /* per item: the weight of the items after it in its group */
    uint64_t **reach;                /* per item: the subset sums of the items after it in its group
                                        that may be taken, in alignment units (NULL: not kept) */
    uint8_t *reached;                /* per group: reach built (when first read) */
    sba_arena *ar;                   /* the seed's arena, which holds them */
    int64_t *endw;                   /* per section: weight of taken items ending there */
    uint64_t esum;                   /* the taken items' weights, each × its last section's hash, summed */
    int64_t *cur, *part;             /* per group: the load before its items, and theirs */
    int64_t *amin, *amax;            /* per group: the loads A may take, entering it */
    int64_t *t;                      /* per group: the load it must leave (holes), INT64_MIN: any */
    uint8_t *take, *dec;             /* per item: taken; decisions tried */
    uint32_t *taken, ntaken;         /* the taken items in the order taken (a stack: left in reverse) */
    uint32_t *eoff;                  /* per section: the items ending before it */
    uint64_t *gkey, *gbase;          /* per group: the key of its entry state, and esum's part ended by then */
    uint64_t *gsplits;               /* per group: the cutter's splits when it was entered */
    sba_keyset dead;                 /* entry states that failed */
    uint64_t salt;
    struct sweep *then;              /* the other side, searched for each set of this one */
    bool free0;                      /* group 0 sets A (a strip's first side), any load */
    int dir;                         /* section s of the side is the part's origin + dir × s */
    uint32_t origin;
} sweep;

/* The free room of the part at section s of the side (0 without slack). */
static int64_t slack_at(const sweep *W, uint32_t s)
{
    const cutter *C = W->C;
    if (!C->slack) return 0;
    return C->slack[(W->dir > 0 ? W->origin + s : W->origin - s) - C->k0];
}

/* The least load A of the alignment at or above lo, if it is at most hi
 * (else -1). */
static int64_t load_in(const cutter *C, int64_t lo, int64_t hi)
{
    const int64_t unit = C->T->p->align * load_quarters(C);
    if (lo < unit) lo = unit;
    lo = (lo + unit - 1) / unit * unit;
    return lo <= hi ? lo : -1;
}

/* The loads A may take, [*lo, *hi], narrowed by sections [k, end) of the
 * side, whose load is *load at k: in each, what the set holds is at most
 * A and leaves the rest no more than it has, so A is at most the load
 * plus the section's free room. *load becomes the load left after them,
 * *last the load of the last. Where the free room is holes, the set's
 * load changes from one section to the next only where the room does (a
 * hole of the set's starts or ends there): false where it changes
 * elsewhere. */
static bool narrow(const sweep *W, uint32_t k, uint32_t end, int64_t *load, int64_t *lo, int64_t *hi, int64_t *last)
{
    for (; k < end; k++) {
        *lo = max64(*lo, *load);
        *hi = min64(*hi, *load + slack_at(W, k));
        *last = *load;
        int64_t d = W->endw[k];
        if (d && k + 1 < end && W->C->holes && slack_at(W, k + 1) == slack_at(W, k)) return false;
        *load -= d;
    }
    return true;
}

static uint32_t group_section(const sweep *W, uint32_t g) { return W->it[W->gstart[g]].s0; }

/* The load group g must leave at its section, where the free room is
 * holes and does not change from the section before: what that one held
 * (`last`). */
static void target(sweep *W, uint32_t g, int64_t last, int64_t room_before)
{
    W->t[g] = W->C->holes && slack_at(W, group_section(W, g)) == room_before ? last : INT64_MIN;
}

/* Whether item i may be in the set at all: an option in the taken half,
 * not in the first half's set. */
static bool may_take(const sweep *W, uint32_t i)
{
    const cutter *C = W->C;
    if (C->lowM && !has_option_in(&C->T->p->nodes[W->it[i].id], C->lowM)) return false;
    return !(C->excl && C->excl[W->orig[i]]);
}

/* The most load group g may leave, and the least. */
static int64_t group_most(const sweep *W, uint32_t g)
{
    return W->t[g] == INT64_MIN ? W->amax[g] : min64(W->amax[g], W->t[g]);
}

static int64_t group_least(const sweep *W, uint32_t g)
{
    int64_t least = W->amin[g] - slack_at(W, group_section(W, g));
    return W->t[g] != INT64_MIN ? max64(least, W->t[g]) : least;
}

static bool can_take(const sweep *W, uint32_t i)
{
    uint32_t g = W->group[i];
    return may_take(W, i) && W->cur[g] + W->part[g] + W->it[i].w <= group_most(W, g);
}

static bool can_leave(const sweep *W, uint32_t i)
{
    const cutter *C = W->C;
    if (C->highM && !has_option_in(&C->T->p->nodes[W->it[i].id], C->highM)) return false;
    uint32_t g = W->group[i];
    return W->cur[g] + W->part[g] + W->rest[i] >= group_least(W, g);
}

static void add_sum(uint64_t *sum, uint32_t words, uint32_t units);

/* The subset sums of group g's items after each of its items (those that
 * may be taken), where the group's total is at most REACH_UNITS units. */
static void build_reach(sweep *W, uint32_t g)
{
    const cutter *C = W->C;
    const int64_t unit = C->T->p->align;
    const uint32_t a = W->gstart[g], b = W->gend[g];
    const int64_t units = (W->rest[a] + W->it[a].w) / unit;
    W->reached[g] = 1;
    if (b - a < 2 || units > REACH_UNITS) return;
    const uint32_t words = (uint32_t)(units / 64 + 1);
    uint64_t *sums = sba_arena_array(W->ar, (size_t)(b - a) * words, sizeof *sums);
    if (!sums) return; /* out of memory: the seed's arena says so when its search ends */
    for (uint32_t i = b; i-- > a;) {
        uint64_t *sum = sums + (size_t)(i - a) * words;
        W->reach[i] = sum;
        if (i + 1 == b) {
            sum[0] = 1;
            continue;
        }
        memcpy(sum, sum + words, words * sizeof *sum);
        if (may_take(W, i + 1)) add_sum(sum, words, (uint32_t)(W->it[i + 1].w / unit));
    }
    C->T->work += (uint64_t)(b - a) * words;
}

/* Whether any bit of [lo, hi] is set in b (lo >= 0), a word at a time. */
static bool any_bit(const uint64_t *b, int64_t lo, int64_t hi)
{
    if (hi < lo) return false;
    const int64_t wl = lo / 64, wh = hi / 64;
    const uint64_t ml = ~0ull << (lo % 64), mh = ~0ull >> (63 - hi % 64);
    if (wl == wh) return (b[wl] & ml & mh) != 0;
    if (b[wl] & ml) return true;
    for (int64_t w = wl + 1; w < wh; w++)
        if (b[w]) return true;
    return (b[wh] & mh) != 0;
}

/* Whether the items after i in its group, some of them, can still bring
 * the group's load to what it must leave (can_take's most, can_leave's
 * least): a subset sum, read where that range is narrow (without slack it
 * is one load). */
static bool reach_ok(sweep *W, uint32_t i)
{
    const uint32_t g = W->group[i];
    const int64_t unit = W->C->T->p->align, load = W->cur[g] + W->part[g];
    const int64_t most = group_most(W, g), least = group_least(W, g);
    if (most - least > REACH_WINDOW * unit) return true;
    if (!W->reached[g]) build_reach(W, g);
    const uint64_t *sum = W->reach[i];
    if (!sum) return true;
    int64_t lo = max64(least - load, 0), hi = most - load;
    lo = (lo + unit - 1) / unit, hi = hi < 0 ? -1 : min64(hi / unit, W->rest[i] / unit);
    W->C->T->work += hi >= lo ? (uint64_t)(hi - lo) / 64 : 0;
    return any_bit(sum, lo, hi);
}

/* What a unit of weight ending at section k adds to the key of the
 * states it is live in (items that end together count by their sum). */
static uint64_t end_hash(uint32_t k) { return sba_mix64(k + 0x51ED) | 1; }

static void set_take(sweep *W, uint32_t i, bool on)
{
    int64_t s = on ? W->it[i].w : -W->it[i].w;
    W->esum += end_hash(W->it[i].s1) * (uint64_t)s;
    W->take[i] = on;
    if (on) W->taken[W->ntaken++] = i;
    else W->ntaken--;
    W->part[W->group[i]] += s;
    W->endw[W->it[i].s1] += s;
}

/* Entering group g: the sections since the group before narrow the loads
 * A may take (without slack, the load must have stayed A, so no taken
 * item ended before the section just before g's, and g must replace what
 * ended there). */
static bool enter(sweep *W, uint32_t g)
{
    uint32_t kp = group_section(W, g - 1), kg = group_section(W, g);
    W->C->T->work += kg - kp;
    int64_t lo = W->amin[g - 1], hi = W->amax[g - 1], load = W->cur[g - 1] + W->part[g - 1], last = load;
    if (!narrow(W, kp, kg, &load, &lo, &hi, &last)) return false;
    W->cur[g] = load, W->amin[g] = lo, W->amax[g] = hi, W->part[g] = 0;
    target(W, g, last, slack_at(W, kg - 1));
    return load_in(W->C, lo, hi) >= 0;
}

/* After the last group: the sections to the side's last narrow A too (no
 * taken item ends before it, without slack); the loads left are the
 * cutter's. */
static bool tail_ok(sweep *W)
{
    uint32_t g = W->G ? W->G - 1 : 0;
    int64_t lo = W->amin[g], hi = W->amax[g];
    if (W->G) {
        int64_t load = W->cur[g] + W->part[g], last = load;
        if (!narrow(W, group_section(W, g), W->k1 + 1, &load, &lo, &hi, &last)) return false;
        W->C->T->work += W->k1 + 1 - group_section(W, g);
    }
    if (load_in(W->C, lo, hi) < 0) return false;
    W->C->amin = lo, W->C->amax = hi;
    return true;
}

/* The key of the state entering group g: g, the loads A may take and the
 * load g must leave, and the taken items still live by weight per last
 * section (esum: all taken less those ended before g, which group g - 1's
 * part and the weights that ended since give). The same
 * live weights under other loads leave another need, so a state that
 * failed under one says nothing of another. */
static uint64_t entry_key(sweep *W, uint32_t g)
{
    uint64_t key = W->salt ^ (0x9E3779B97F4A7C15ull * (g + 1));
    if (!g) return W->gbase[0] = 0, key;
    key ^= sba_mix64((uint64_t)W->amin[g] * 0x9E3779B97F4A7C15ull ^ (uint64_t)W->amax[g]);
    key ^= sba_mix64((uint64_t)W->t[g] ^ 0xD6E8FEB86659FD93ull);
    uint64_t ended = W->gbase[g - 1];
    uint32_t kp = W->it[W->gstart[g - 1]].s0, kg = W->it[W->gstart[g]].s0;
    for (uint32_t k = kp; k < kg; k++) ended += end_hash(k) * (uint64_t)W->endw[k];
    W->C->T->work += W->eoff[kg] - W->eoff[kp]; /* as the items that ended */
    W->gbase[g] = ended;
    return key ^ sba_mix64(W->esum - ended);
}

/* Adds the subset sums of one more item of `units` to the bitset. */
static void add_sum(uint64_t *sum, uint32_t words, uint32_t units)
{
    uint32_t ws = units / 64, bs = units % 64;
    for (uint32_t w = words; w-- > ws;) { /* from the top word down: reads what it has not yet written */
        uint64_t v = sum[w - ws] << bs;
        if (bs && w > ws) v |= sum[w - ws - 1] >> (64 - bs);
        sum[w] |= v;
    }
}

/* sum |= sum >> units: with bit R standing for the sum 0, the bits R - x
 * for the subset sums x. */
static void sub_sum(uint64_t *sum, uint32_t words, uint32_t units)
{
    uint32_t ws = units / 64, bs = units % 64;
    for (uint32_t w = 0; w + ws < words; w++) { /* from the bottom word up: reads what it has not yet written */
        uint64_t v = sum[w + ws] >> bs;
        if (bs && w + ws + 1 < words) v |= sum[w + ws + 1] << (64 - bs);
        sum[w] |= v;
    }
}

/* The 64 bits of sum from bit `off` on (0 outside [0, 64 × words)). */
static uint64_t bits_at(const uint64_t *sum, uint32_t words, int64_t off)
{
    if (off < 0) return off > -64 ? bits_at(sum, words, 0) << -off : 0;
    uint64_t w = (uint64_t)off / 64, b = (uint64_t)off % 64;
    if (w >= words) return 0;
    uint64_t v = sum[w] >> b;
    if (b && w + 1 < words) v |= sum[w + 1] << (64 - b);
    return v;
}

/* Whether the items it[idx[x]] (x < n; it[x] where idx is NULL) live at
 * section k, in a piece with no slack in bands of qs quarters, can fill
 * every quarter to `cap` bytes there. The items that take all the bands
 * leave the room R in each quarter; those that take a half go to one half
 * or the other, hL and H - hL bytes; then the ones that take a quarter
 * must fill R - hL in each quarter of one half and R - H + hL in each of
 * the other. So some subset sum hL of the half items and the subset sums
 * R - hL and R - H + hL of the quarter items must exist (subset sums in
 * alignment units, as bitsets, the quarter items' also counted down from
 * R, so that 64 values of hL are read at a time; scratch holds 3 × the
 * words of cap). A relaxation, so only a necessary test. Gives the items
 * live there, those that take less than all the bands and the bytes of
 * the others, for the caller's charge. */
static bool section_fills(const strips *T, const st_item *it, const uint32_t *idx, uint32_t n, uint32_t k, int64_t cap,
                          int qs, uint64_t *scratch, uint32_t *live, uint32_t *parts, int64_t *whole)
{
    const int64_t unit = T->p->align;
    int64_t halves = 0;
    *live = *parts = 0, *whole = 0;
    for (uint32_t x = 0; x < n; x++) {
        const st_item *t = &it[idx ? idx[x] : x];
        if (t->s0 > k || t->s1 < k) continue;
        int64_t size = T->p->nodes[t->id].size;
        ++*live;
        if (t->q >= qs) *whole += size;
        else if (++*parts, 2 * t->q == qs) halves += size;
    }
    if (*whole > cap) return false;
    const int64_t R = (cap - *whole) / unit, H = halves / unit, top = R < H ? R : H;
    if (!*parts) return R == 0;
    const uint32_t words = (uint32_t)(R + 64) / 64;
    uint64_t *hs = scratch, *qsum = hs + words, *down = qsum + words;
    memset(hs, 0, 3 * (size_t)words * sizeof *hs);
    hs[0] = qsum[0] = 1, down[R / 64] = 1ull << (R % 64);
    for (uint32_t x = 0; x < n; x++) {
        const st_item *t = &it[idx ? idx[x] : x];
        if (t->s0 > k || t->s1 < k || t->q >= qs) continue;
        uint32_t u = (uint32_t)(T->p->nodes[t->id].size / unit);
        if (2 * t->q == qs) add_sum(hs, words, u);
        else add_sum(qsum, words, u), sub_sum(down, words, u);
    }
    for (int64_t w = 0; w <= top / 64; w++) {
        uint64_t v = hs[w] & down[w] & bits_at(qsum, words, 64 * w + R - H);
        if (w == top / 64 && top % 64 != 63) v &= (2ull << (top % 64)) - 1;
        if (v) return true;
    }
    return false;
}

/* Whether the items, a piece with no slack in the bands M, can fill every
 * quarter of M to the byte in every section (section_fills): a cheap test
 * that most wrong cuts fail at once. */
static bool fills(strips *T, const st_item *it, uint32_t m, int64_t cap, uint8_t M)
{
    const int qs = popcount(M);
    if (qs < 2 || !m) return true;
    const int64_t unit = T->p->align;
    const uint32_t bits = (uint32_t)(cap / unit) + 1, words = (bits + 63) / 64;
    uint32_t k0 = it[0].s0, k1 = it[0].s1;
    for (uint32_t i = 0; i < m; i++) {
        if (it[i].s0 < k0) k0 = it[i].s0;
        if (it[i].s1 > k1) k1 = it[i].s1;
    }
    uint64_t *scratch = sba_malloc(T->a, 3 * (size_t)words * sizeof *scratch);
    if (!scratch) return T->nomem = true, false;
    bool ok = true;
    for (uint32_t k = k0; k <= k1 && ok; k++) {
        uint32_t live, parts;
        int64_t whole;
        ok = section_fills(T, it, NULL, m, k, cap, qs, scratch, &live, &parts, &whole);
        T->work += (uint64_t)live * words + (uint64_t)((cap - whole) / unit); /* each item's sums, the room read */
        if (!ok) T->culprit = true, T->cs = T->ce = k;
    }
    sba_free(T->a, scratch);
    return ok;
}

/* A split that failed: the piece of one of its sides that failed (or the
 * section whose sums did), if known, is what the search must change. */
static void blame(cutter *C)
{
    C->culprit = C->T->culprit;
    C->cs = C->T->cs, C->ce = C->T->ce;
}

/* A split's own share of the budget: a wrong set can cost its sides'
 * whole searches, and running out of its share only fails the split.
 * Returns the budget to restore. */
static uint64_t split_share(strips *T, uint32_t m)
{
    uint64_t per = T->p->Q > 1 ? SPLIT_WORK_2D : SPLIT_WORK;
    uint64_t budget = T->budget, most = T->work + per * T->scale * m;
    if (most < budget) T->budget = most;
    return budget;
}

/* The end of a split: a set that failed is remembered (in `failed`, by
 * key) and blamed; the budget is restored. */
static int split_done(cutter *C, sba_keyset *failed, uint64_t key, uint64_t budget, int r, sba_arena *ar)
{
    strips *T = C->T;
    if (r == SB_PACK_BUDGET && T->work < budget) r = SB_PACK_NONE;
    if (r == SB_PACK_NONE) sba_keyset_add(failed, key), blame(C);
    T->budget = budget;
    if (ar->failed) r = SB_PACK_NOMEM;
    sba_arena_free(ar);
    return r;
}

/* The set found (both sides): packs it and the rest apart. */
static int split(cutter *C)
{
    strips *T = C->T;
    /* the same set is often found again from another seed: split once */
    uint64_t key = C->kind == CUT_BAND ? C->lowM : 0;
    for (uint32_t i = 0; i < C->m; i++)
        if (C->in[i]) key ^= sba_mix64(C->it[i].id + 1);
    T->work += C->m;
    C->rejected = true;
    C->splits++;
    C->culprit = false;
    if (sba_keyset_has(&C->failed, key)) return SB_PACK_NONE;
    sba_arena ar;
    sba_arena_init(&ar, T->a);
    st_item *lo = sba_arena_array(&ar, C->m, sizeof *lo), *hi = sba_arena_array(&ar, C->m, sizeof *hi);
    T->culprit = false;
    int r = SB_PACK_NOMEM;
    const uint64_t budget = split_share(T, C->m);
    if (lo && hi) {
        uint32_t nl = 0, nh = 0;
        for (uint32_t i = 0; i < C->m; i++) {
            if (C->in[i]) lo[nl++] = C->it[i];
            else hi[nh++] = C->it[i];
        }
        if (C->kind == CUT_BAND) { /* both halves at the same bytes */
            if (!fills(T, lo, nl, C->cap, C->lowM) || !fills(T, hi, nh, C->cap, C->highM))
                r = T->nomem ? SB_PACK_NOMEM : SB_PACK_NONE;
            else
                C->rejected = false, r = solve(T, lo, nl, C->cap, C->base, C->lowM);
            if (r == SB_PACK_PACKED) r = solve(T, hi, nh, C->cap, C->base, C->highM);
        } else {
            int64_t a = C->A / popcount(C->M);
            if (!fills(T, lo, nl, a, C->M) || !fills(T, hi, nh, C->cap - a, C->M))
                r = T->nomem ? SB_PACK_NOMEM : SB_PACK_NONE;
            else
                C->rejected = false, r = solve(T, lo, nl, a, C->base, C->M);
            if (r == SB_PACK_PACKED) r = solve(T, hi, nh, C->cap - a, C->base + a, C->M);
        }
    }
    return split_done(C, &C->failed, key, budget, r, &ar);
}

static int search(sweep *W);
static int second_half(cutter *C1);

/* The last item of a side whose decision the last split's failure depends
 * on (UINT32_MAX if none): one live in the sections it blames, or, where
 * this side chooses A, one of its first group (A sets everything). Items
 * decided after it only change sections the failure did not look at, so
 * trying their other choices would fail the same way. */
static uint32_t last_relevant(const sweep *W)
{
    const cutter *C = W->C;
    for (uint32_t i = W->m; i-- > 0;) {
        if (W->free0 && W->group[i] == 0) return i;
        const st_item *x = &W->it[i];
        uint32_t g0 = W->dir > 0 ? W->origin + x->s0 : W->origin - x->s1;
        uint32_t g1 = W->dir > 0 ? W->origin + x->s1 : W->origin - x->s0;
        if (g0 <= C->ce && C->cs <= g1) return i;
    }
    return UINT32_MAX;
}
static int split_halves(cutter *C);

/* Fills, as the sweep goes: whether the set's items live at section s of
 * the side (its taken items not yet ended there; every item live there is
 * decided) can fill each quarter of its bands to the strip's height `a`,
 * the test fills() makes of a whole set in every section. */
static bool set_fills(const sweep *W, uint32_t s, int64_t a)
{
    strips *T = W->C->T;
    uint32_t live, parts;
    int64_t whole;
    bool ok = section_fills(T, W->it, W->taken, W->ntaken, s, a, load_quarters(W->C), W->C->fill, &live, &parts, &whole);
    T->work += W->ntaken;
    if (parts && whole <= a) { /* the sums built, two words' worth per item, and read */
        uint64_t words = (uint64_t)((a - whole) / T->p->align + 64) / 64;
        T->work += 2 * words * parts + words;
    }
    return ok;
}

/* Whether group g, all decided, leaves a load A may take at its section:
 * without slack, what ended before it (in a strip's first group, any
 * aligned load short of the room: it is A). */
static bool group_done(const sweep *W, uint32_t g)
{
    int64_t load = W->cur[g] + W->part[g], lo = W->amin[g], hi = W->amax[g];
    if (W->t[g] != INT64_MIN && load != W->t[g]) return false;
    if (load <= 0 || load_in(W->C, max64(lo, load), min64(hi, load + slack_at(W, group_section(W, g)))) < 0)
        return false;
    /* every item live at the group's section is decided (Fills) */
    return !W->C->fill || set_fills(W, group_section(W, g), load / load_quarters(W->C));
}

/* A complete side: on to the other side, or, both found, the split. */
static int found(sweep *W)
{
    cutter *C = W->C;
    if (W->then) {
        sweep *V = W->then;
        /* a fresh salt: states that failed with another set on this side
         * may pack with this one */
        memset(V->take, 0, V->m);
        V->ntaken = 0;
        memset(V->endw, 0, (V->k1 + 1) * sizeof *V->endw);
        V->esum = 0;
        V->salt = V->salt * 0x9E3779B97F4A7C15ull + 1;
        C->T->work += V->m + V->k1;
        C->seedload = W->cur[0] + W->part[0], C->seedslack = slack_at(W, 0);
        return search(V);
    }
    C->A = load_in(C, C->amin, C->amax); /* the least: the rest gets the most room */
    return C->kind == CUT_HALF ? second_half(C) : C->kind == CUT_HALF2 ? split_halves(C) : split(C);
}

/* Whether a set's search leaves item `id` out before it tries it in: with
 * the lightest sets first (p->light, see Light), every item; in a restart
 * (p->order_seed, see Bounds), a quarter of the items, picked by the seed;
 * otherwise none. */
static bool leaves_first(const sb_pack_problem *p, uint32_t id)
{
    if (p->light) return true;
    return p->order_seed && (sba_mix64(p->order_seed ^ sba_mix64((uint64_t)id + 1)) & 3) == 0;
}

/* Depth-first over a side's items: each taken or left, taken first. Every
 * complete set (with one of the other side) is split; the first that packs
 * ends it. */
static int search(sweep *W)
{
    cutter *C = W->C;
    strips *T = C->T;
    uint32_t i = 0;
    bool back = false;
    W->cur[0] = W->part[0] = 0;
    if (W->free0) W->amin[0] = 1, W->amax[0] = C->cap * load_quarters(C) - 1;
    else W->amin[0] = C->amin, W->amax[0] = C->amax;
    W->t[0] = INT64_MIN;
    if (W->dir < 0) target(W, 0, C->seedload, C->seedslack); /* the section after the seed is the first side's */
    for (;;) {
        if (++T->work > T->budget) return SB_PACK_BUDGET;
        if (++C->steps > C->limit) return SB_PACK_NONE;
        T->visited++;
        if (!back) {
            if (i == W->m) {
                if (tail_ok(W)) {
                    int r = found(W);
                    if (r != SB_PACK_NONE) return r;
                    if (!C->rejected && ++C->tries >= C->max_tries) return SB_PACK_NONE;
                    if (C->culprit && !C->slack) { /* back to the last decision the failure depends on */
                        uint32_t t = last_relevant(W);
                        if (t == UINT32_MAX) return SB_PACK_NONE; /* none on this side: the caller's */
                        C->culprit = false;
                        while (i > t + 1)
                            if (W->take[--i]) set_take(W, i, false), C->in[W->orig[i]] = 0;
                    }
                }
                goto retreat;
            }
            uint32_t g = W->group[i];
            if (i == W->gstart[g]) {
                if (g > 0 && !enter(W, g)) goto retreat;
                if (sba_keyset_has(&W->dead, W->gkey[g] = entry_key(W, g))) goto retreat;
                W->gsplits[g] = C->splits;
            }
            W->dec[i] = 0;
        }
        {
            /* the next untried decision at i, taken first (left first
             * where the restart says, leaves_first); a group must end on
             * its need */
            uint32_t g = W->group[i];
            bool last = i + 1 == W->gend[g], leave_first = leaves_first(T->p, W->it[i].id), moved = false;
            while (W->dec[i] < 2 && !moved) {
                bool take = (W->dec[i]++ == 0) != leave_first;
                if (take ? !can_take(W, i) : !can_leave(W, i)) continue;
                if (take) set_take(W, i, true), C->in[W->orig[i]] = 1;
                moved = last ? group_done(W, g) : reach_ok(W, i);
                if (!moved && take) set_take(W, i, false), C->in[W->orig[i]] = 0;
            }
            if (moved) {
                i++, back = false;
                continue;
            }
            /* both tried: from a group's first item, its entry state
             * failed, unless a set was split below it: a split fails for
             * the whole set, and the items decided before g, which the
             * state does not hold, may be what failed */
            if (i == W->gstart[g] && C->splits == W->gsplits[g]) sba_keyset_add(&W->dead, W->gkey[g]);
        }
    retreat:
        if (i == 0) return C->culprit = false, SB_PACK_NONE;
        i--;
        if (W->take[i]) set_take(W, i, false), C->in[W->orig[i]] = 0;
        back = true;
    }
}

/* Builds the sweep over the part's items that `side` selects (1: those
 * starting after section k; -1: those ending at k or before, mirrored; 0:
 * all of them, from the part's first section). */
static bool build(sweep *W, cutter *C, sba_arena *ar, uint32_t k, int side, uint32_t k0, uint32_t k1)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < C->m; i++) m += side > 0 ? C->it[i].s0 > k : side < 0 ? C->it[i].s1 <= k : 1;
    *W = (sweep){.C = C, .m = m, .k1 = side > 0 ? k1 - (k + 1) : side < 0 ? k - k0 : k1 - k0,
                 .dir = side < 0 ? -1 : 1, .origin = side > 0 ? k + 1 : side < 0 ? k : k0};
    uint32_t span = W->k1 + 1;
    W->it = sba_arena_array(ar, m + 1, sizeof *W->it);
    W->orig = sba_arena_array(ar, m + 1, sizeof *W->orig);
    W->group = sba_arena_array(ar, m + 1, sizeof *W->group);
    W->gstart = sba_arena_array(ar, m + 1, sizeof *W->gstart);
    W->gend = sba_arena_array(ar, m + 1, sizeof *W->gend);
    W->rest = sba_arena_array(ar, m + 1, sizeof *W->rest);
    W->endw = sba_arena_array(ar, span + 1, sizeof *W->endw);
    W->cur = sba_arena_array(ar, m + 1, sizeof *W->cur);
    W->part = sba_arena_array(ar, m + 1, sizeof *W->part);
    W->amin = sba_arena_array(ar, m + 1, sizeof *W->amin);
    W->amax = sba_arena_array(ar, m + 1, sizeof *W->amax);
    W->t = sba_arena_array(ar, m + 1, sizeof *W->t);
    W->take = sba_arena_array(ar, m + 1, sizeof *W->take);
    W->taken = sba_arena_array(ar, m + 1, sizeof *W->taken);
    W->dec = sba_arena_array(ar, m + 1, sizeof *W->dec);
    W->eoff = sba_arena_array(ar, span + 2, sizeof *W->eoff);
    W->gkey = sba_arena_array(ar, m + 1, sizeof *W->gkey);
    W->gbase = sba_arena_array(ar, m + 1, sizeof *W->gbase);
    W->gsplits = sba_arena_array(ar, m + 1, sizeof *W->gsplits);
    W->reach = sba_arena_array(ar, m + 1, sizeof *W->reach);
    W->reached = sba_arena_array(ar, m + 1, sizeof *W->reached);
    W->ar = ar;
    for (W->dead.cap = 1024; W->dead.cap < DEAD_SLOTS && W->dead.cap < 64 * m;) W->dead.cap *= 2;
    W->dead.slot = sba_arena_array(ar, W->dead.cap, sizeof *W->dead.slot);
    if (ar->failed) return false;
    /* items of the side, in the side's own time: sections from the seed */
    uint32_t *idx = W->orig;
    for (uint32_t i = 0, n = 0; i < C->m; i++) {
        st_item x = C->it[i];
        if (side == 0) x.s0 -= k0, x.s1 -= k0;
        else if (side > 0 && x.s0 > k) x.s0 -= k + 1, x.s1 -= k + 1;
        else if (side < 0 && x.s1 <= k) {
            uint32_t s0 = k - x.s1;
            x.s1 = k - x.s0, x.s0 = s0;
        } else continue;
        W->it[n] = x, idx[n++] = i;
    }
    /* sort by start, largest first, each item with its index in the part
     * (the side before the seed comes in reverse) */
    st_pair *pair = sba_arena_array(ar, m + 1, sizeof *pair);
    if (!pair) return false;
    for (uint32_t i = 0; i < m; i++) pair[i] = (st_pair){W->it[i], idx[i]};
    qsort(pair, m, sizeof *pair, cmp_pair);
    for (uint32_t i = 0; i < m; i++) W->it[i] = pair[i].x, idx[i] = pair[i].orig;
    /* its arrays and failed states cleared, the sort's comparisons */
    C->T->work += (uint64_t)m * (BUILD_COST + SORT_COST * lg(m)) + W->dead.cap / 8 + span;
    for (uint32_t i = 0; i < m; i++) {
        if (!i || W->it[i].s0 != W->it[i - 1].s0) W->gstart[W->G++] = i;
        W->group[i] = W->G - 1;
        W->gend[W->G - 1] = i + 1;
    }
    for (uint32_t i = m; i-- > 0;) W->rest[i] = i + 1 < W->gend[W->group[i]] ? W->rest[i + 1] + W->it[i + 1].w : 0;
    sba_rng zr = {C->T->p->seed ^ ((uint64_t)k << 32) ^ (uint64_t)side};
    W->salt = sba_rng_next(&zr);
    for (uint32_t i = 0; i < m; i++) W->eoff[W->it[i].s1 + 1]++;
    for (uint32_t x = 0; x < span; x++) W->eoff[x + 1] += W->eoff[x];
    return true;
}

/* Runs a cut's search: from every seed in time, and, where no time cut
 * need split the set (a band, a half of a strip), from the part's first
 * section. */
static int seek(cutter *C)
{
    strips *T = C->T;
    st_item *it = C->it;
    const uint32_t m = C->m;
    sba_arena ar;
    sba_arena_init(&ar, T->a);
    uint32_t k0 = it[0].s0, k1 = it[0].s1;
    for (uint32_t i = 0; i < m; i++)
        if (it[i].s1 > k1) k1 = it[i].s1;
    uint32_t span = k1 - k0 + 1, *seed = sba_arena_array(&ar, span, sizeof *seed), ns = 0;
    int64_t *wend = sba_arena_array(&ar, span, sizeof *wend);
    C->in = sba_arena_array(&ar, m, sizeof *C->in);
    C->failed.cap = 4096;
    C->failed.slot = sba_arena_array(&ar, C->failed.cap, sizeof *C->failed.slot);
    int r = SB_PACK_NOMEM;
    if (ar.failed) goto out;
    /* Seeds: a strip (or a half) with a cut in time between sections k and
     * k + 1 has none of the items crossing it, and of the items that end
     * at k and start at k + 1 some of each, of equal load A (of a half: the
     * half's room). Several strips may be cut there, so the items that end
     * at k weigh at least A: seeds are where they weigh anything (where A
     * is fixed: at least A), the heaviest first; the first group on each
     * side is a choice, taken first, so the set of all comes first. */
    const bool free = free_load(C);
    const int64_t fixed = C->A;
    for (uint32_t i = 0; i < m; i++) wend[it[i].s1 - k0] += it[i].w;
    /* a 1-D part with slack: its free room per section bounds what a set
     * may leave (narrow) */
    C->k0 = k0, C->slack = NULL;
    if (T->p->Q == 1) {
        int64_t *room = sba_arena_array(&ar, span + 1, sizeof *room);
        if (!room) goto out;
        int64_t total = free_by_section(it, m, k0, span, C->cap * popcount(C->M), room);
        T->work += m + span;
        if (total < 0) goto none;
        if (total) C->slack = room;
        C->holes = total && T->holes;
    }
    if (C->kind == CUT_STRIP && popcount(C->M) >= 2 && T->p->section_fills) {
        size_t words = (size_t)(C->cap / T->p->align + 64) / 64; /* the sums up to the room */
        if (!(C->fill = sba_arena_array(&ar, 3 * words, sizeof *C->fill))) goto out;
    }
    for (uint32_t k = k0; k < k1; k++) {
        int64_t A = wend[k - k0];
        if (free ? A > 0 : A >= fixed) seed[ns++] = k;
    }
    st_seed *order = sba_arena_array(&ar, ns + 1, sizeof *order);
    if (!order) goto out;
    for (uint32_t x = 0; x < ns; x++) order[x] = (st_seed){wend[seed[x] - k0], seed[x]};
    qsort(order, ns, sizeof *order, cmp_seed); /* by load, then k */
    for (uint32_t x = 0; x < ns; x++) seed[x] = order[x].k;
    T->work += (uint64_t)ns * SORT_COST * lg(ns);
    r = SB_PACK_NONE;
    C->steps = 0, C->limit = (uint64_t)SEED_WORK * T->scale * m;
    for (uint32_t x = 0; x < ns && r == SB_PACK_NONE && (!C->shared || C->steps < C->limit); x++) {
        uint32_t k = seed[x];
        sba_arena sar;
        sba_arena_init(&sar, T->a);
        sweep after, before;
        C->A = free ? 0 : fixed;
        C->amin = C->amax = fixed;
        memset(C->in, 0, m);
        T->work += 2 * (uint64_t)(m + span);
        if (!C->shared) C->steps = 0;
        C->tries = 0, C->max_tries = SEED_TRIES * (uint32_t)T->scale;
        if (build(&after, C, &sar, k, 1, k0, k1) && build(&before, C, &sar, k, -1, k0, k1)) {
            after.then = &before;
            after.free0 = free;
            r = search(&after);
        }
        if (sar.failed) r = SB_PACK_NOMEM;
        sba_arena_free(&sar);
    }
    /* A set with no cut in time (a node of it lives over the whole part)
     * has no seed: its sweep starts at the part's first section, where its
     * load is already A. A strip has one at its lowest strip of nodes (or
     * a node over the whole part, at the bottom before any cut). */
    if (C->kind != CUT_STRIP && r == SB_PACK_NONE) {
        sba_arena sar;
        sba_arena_init(&sar, T->a);
        sweep all;
        C->A = free ? 0 : fixed;
        C->amin = C->amax = fixed;
        memset(C->in, 0, m);
        T->work += (uint64_t)(m + span);
        C->steps = 0, C->tries = 0, C->max_tries = START_TRIES * (uint32_t)T->scale, C->limit = (uint64_t)START_WORK * T->scale * m;
        if (build(&all, C, &sar, k0, 0, k0, k1)) {
            all.free0 = free;
            r = search(&all);
        }
        if (sar.failed) r = SB_PACK_NOMEM;
        sba_arena_free(&sar);
    }
out:
    if (ar.failed) r = SB_PACK_NOMEM;
    sba_arena_free(&ar);
    return r;
none:
    sba_arena_free(&ar);
    return SB_PACK_NONE;
}

/* Looks for a cut of one part and packs by it. */
static int cut(strips *T, st_item *it, uint32_t m, int64_t cap, int64_t base, uint8_t M, uint8_t lowM,
               uint8_t highM, cut_kind kind)
{
    cutter C = {.T = T, .it = it, .m = m, .cap = cap, .base = base, .M = M, .lowM = lowM, .highM = highM,
                .kind = kind, .A = kind == CUT_BAND ? cap * popcount(lowM) : 0};
    return seek(&C);
}

/* The first half of a strip found (the nodes of the part's lowest strip
 * that lie in lowM, a = A / |lowM| high): the other half must hold a
 * strip of the same height, of nodes not in the first. All its seeds
 * share one step limit: most first halves have no second. */
static int second_half(cutter *C1)
{
    uint8_t h2 = (uint8_t)(C1->M & ~C1->lowM);
    int64_t a = C1->A / popcount(C1->lowM);
    cutter C = {.T = C1->T, .it = C1->it, .m = C1->m, .cap = C1->cap, .base = C1->base, .M = C1->M, .lowM = h2,
                .kind = CUT_HALF2, .A = a * popcount(h2), .excl = C1->in, .first = C1, .shared = true};
    C1->rejected = true; /* a first half with no second costs no try */
    C1->splits++;
    C1->culprit = false;
    return seek(&C);
}

/* Both halves found: the first half's nodes pack in its quarters at
 * [base, base + a), the second's in the others, the rest above at cap - a. */
static int split_halves(cutter *C)
{
    cutter *C1 = C->first;
    strips *T = C->T;
    uint64_t key = 0xC2B2AE3D27D4EB4Full;
    for (uint32_t i = 0; i < C->m; i++)
        if (C1->in[i] || C->in[i]) key ^= sba_mix64(C->it[i].id + 1);
    T->work += C->m;
    C->rejected = true;
    C->splits++;
    C->culprit = false;
    if (sba_keyset_has(&C1->failed, key)) return SB_PACK_NONE;
    T->culprit = false;
    sba_arena ar;
    sba_arena_init(&ar, T->a);
    st_item *s1 = sba_arena_array(&ar, C->m, sizeof *s1), *s2 = sba_arena_array(&ar, C->m, sizeof *s2),
            *hi = sba_arena_array(&ar, C->m, sizeof *hi);
    int r = SB_PACK_NOMEM;
    const uint64_t budget = split_share(T, C->m);
    if (s1 && s2 && hi) {
        uint32_t n1 = 0, n2 = 0, nh = 0;
        for (uint32_t i = 0; i < C->m; i++) {
            if (C1->in[i]) s1[n1++] = C->it[i];
            else if (C->in[i]) s2[n2++] = C->it[i];
            else hi[nh++] = C->it[i];
        }
        const int64_t a = C->A / popcount(C->lowM);
        if (!fills(T, s1, n1, a, C1->lowM) || !fills(T, s2, n2, a, C->lowM) || !fills(T, hi, nh, C->cap - a, C->M))
            r = T->nomem ? SB_PACK_NOMEM : SB_PACK_NONE;
        else
            C->rejected = C1->rejected = false, r = solve(T, s1, n1, a, C->base, C1->lowM);
        if (r == SB_PACK_PACKED) r = solve(T, s2, n2, a, C->base, C->lowM);
        if (r == SB_PACK_PACKED) r = solve(T, hi, nh, C->cap - a, C->base + a, C->M);
    }
    return split_done(C, &C1->failed, key, budget, r, &ar);
}

/* ---- parts ------------------------------------------------------------------- */

/* The room the items leave free in their bands up to cap, summed over the
 * sections they cover: 0 where they fill it in every one, -1 where they
 * overfill one. */
static int64_t free_room(strips *T, const st_item *it, uint32_t m, int64_t cap, uint8_t M)
{
    uint32_t k0 = it[0].s0, k1 = it[0].s1;
    for (uint32_t i = 0; i < m; i++)
        if (it[i].s1 > k1) k1 = it[i].s1;
    int64_t *d = sba_malloc(T->a, (size_t)(k1 - k0 + 2) * sizeof *d);
    if (!d) return T->nomem = true, -1;
    int64_t total = free_by_section(it, m, k0, k1 - k0 + 1, cap * popcount(M), d);
    T->work += m + (k1 - k0 + 1);
    sba_free(T->a, d);
    return total;
}

/* Whether a part with `free` room over `span` sections is cut: without
 * slack; in 1-D, also with a little (at most 1/SLACK_FRACTION of its
 * room), which the loads of a cut may leave (narrow). */
static bool cuttable(const strips *T, int64_t free, uint32_t span, int64_t cap)
{
    return free == 0 || (free > 0 && T->p->Q == 1 && free <= cap * (int64_t)span / SLACK_FRACTION);
}

static int solve_piece(strips *T, st_item *it, uint32_t m, int64_t cap, int64_t base, uint8_t M);

/* Packs one part (no item crosses out of it) at [base, base + cap), bands M.
 * Wrong strips of different sets often hold the same wrong piece: a piece
 * (its items, room and bands) that failed once fails at once after. */
static int solve_part(strips *T, st_item *it, uint32_t m, int64_t cap, int64_t base, uint8_t M)
{
    if (m <= CUT_NODES) return solve_piece(T, it, m, cap, base, M); /* a leaf: not worth a key */
    uint64_t key = sba_mix64((uint64_t)cap << 4 | M);
    for (uint32_t i = 0; i < m; i++) key ^= sba_mix64(it[i].id + 1);
    if (sba_keyset_has(&T->failed, key)) return SB_PACK_NONE;
    int r = solve_piece(T, it, m, cap, base, M);
    if (r == SB_PACK_NONE) sba_keyset_add(&T->failed, key);
    return r;
}

/* solve_part, without the cache. */
static int solve_piece(strips *T, st_item *it, uint32_t m, int64_t cap, int64_t base, uint8_t M)
{
    int r = SB_PACK_NONE;
    /* A node live over the whole part in every quarter of its bands can go
     * at the bottom: in any packing every other node is wholly below or
     * above it, and the ones below can move up by its size. */
    uint32_t k0 = it[0].s0, k1 = it[0].s1, nfull = 0;
    for (uint32_t i = 0; i < m; i++)
        if (it[i].s1 > k1) k1 = it[i].s1;
    for (uint32_t i = 0; i < m; i++) {
        const sb_pack_node *nd = &T->p->nodes[it[i].id];
        bool whole = false;
        for (uint32_t o = 0; o < nd->nopt && !whole; o++) whole = nd->qmask[o] == M;
        if (m > 1 && it[i].s0 == k0 && it[i].s1 == k1 && whole) {
            st_item t = it[nfull];
            it[nfull++] = it[i], it[i] = t;
        }
    }
    if (nfull && nfull < m) {
        int64_t at = base;
        for (uint32_t j = 0; j < nfull; j++) {
            const sb_pack_node *nd = &T->p->nodes[it[j].id];
            uint32_t o = 0;
            while (nd->qmask[o] != M) o++;
            T->p->off[it[j].id] = at, T->p->opt[it[j].id] = o;
            at += nd->size;
        }
        return solve(T, it + nfull, m - nfull, cap - (at - base), at, M);
    }
    bool uncut = false;
    int64_t free = m > CUT_NODES ? free_room(T, it, m, cap, M) : -1;
    if (m > CUT_NODES && cuttable(T, free, k1 - k0 + 1, cap)) {
        /* band cuts first: they halve the quarters; then strips */
        if (popcount(M) > 1) {
            uint8_t lowM = 0, highM;
            for (uint32_t q = 0, seen = 0; q < 4; q++)
                if (M >> q & 1 && seen++ < (uint32_t)popcount(M) / 2) lowM |= (uint8_t)(1u << q);
            highM = (uint8_t)(M & ~lowM);
            r = cut(T, it, m, cap, base, M, lowM, highM, CUT_BAND);
            if (r == SB_PACK_NONE) r = cut(T, it, m, cap, base, M, 0, 0, CUT_STRIP);
            if (r == SB_PACK_NONE) r = cut(T, it, m, cap, base, M, lowM, 0, CUT_HALF);
        } else {
            r = cut(T, it, m, cap, base, M, 0, 0, CUT_STRIP);
        }
        if (r != SB_PACK_NONE) return r;
        uncut = free == 0;
    }
    if (T->nomem) return SB_PACK_NOMEM;
    if (m > LEAF_MAX) return SB_PACK_NONE; /* too large for a leaf; the caller's run takes it */
    /* a piece with no slack and no cut found is most often a wrong set of
     * the right load: its leaf gets little */
    r = leaf(T, it, m, cap, M, uncut ? LEAF_UNCUT_WORK : LEAF_WORK);
    if (r == SB_PACK_PACKED)
        for (uint32_t j = 0; j < m; j++) T->p->off[it[j].id] += base;
    return r;
}

/* Packs the items at [base, base + cap), bands M: part by part in time. */
static int solve(strips *T, st_item *it, uint32_t m, int64_t cap, int64_t base, uint8_t M)
{
    if (T->work > T->budget) return T->culprit = false, SB_PACK_BUDGET;
    if (!m) return SB_PACK_PACKED;
    for (uint32_t i = 0; i < m; i++) {
        const sb_pack_node *nd = &T->p->nodes[it[i].id];
        if (nd->size > cap || !has_option_in(nd, M)) {
            T->culprit = true, T->cs = it[i].s0, T->ce = it[i].s1;
            return SB_PACK_NONE;
        }
    }
    qsort(it, m, sizeof *it, cmp_item);
    T->work += (uint64_t)m * SORT_COST * lg(m);
    for (uint32_t a = 0; a < m;) {
        uint32_t b = a + 1, end = it[a].s1;
        while (b < m && it[b].s0 <= end) {
            if (it[b].s1 > end) end = it[b].s1;
            b++;
        }
        int r = solve_part(T, it + a, b - a, cap, base, M);
        if (r != SB_PACK_PACKED) { /* the outermost solve of a side names its piece */
            T->culprit = true, T->cs = it[a].s0, T->ce = end;
            return r;
        }
        a = b;
    }
    return SB_PACK_PACKED;
}

/* Slack made into nodes (1-D). Where a part has a little slack, the cuts
 * need none: the free room of every section is cut into padding nodes,
 * which make the part a tiling, and a packing of the padded part is one of
 * the part (without them). Padding of exactly the holes' shapes restores a
 * tiling the cuts can find; other shapes may have none. The room of each
 * section is read as rectangles from the first section on: where it grows
 * a padding node starts, where it shrinks the open ones whose sizes sum to
 * the drop end (the fewest: a hole left by a missing node ends whole), and
 * where none sums to it the largest that holds the drop ends and what is
 * left of it starts again. The room alone does not tell which holes start
 * or end together. So the first try reads such a drop as two holes that
 * started together, one of the drop's size ending now (the largest open
 * one is split where it began), on a quarter of the padding's budget; the
 * second the same with the open one that began last, on a sixth of what
 * is left; the third reads it as above, on half of what is left, and further
 * tries draw these choices from a seeded stream (a growth may also end an
 * open node and start a larger one). No reading makes a node smaller than
 * the part's smallest, as no hole is: a drop is split only where both
 * parts are at least as large, and a smaller growth is an open hole ending
 * where a larger one starts. The room is read on the raw sections where
 * the problem has them (sb_pack_problem.raw_room: time cut at every end
 * point, before the searches kept only some), where a hole that ends and
 * one that starts a few points later do not meet on one boundary; each
 * padding node then covers the kept sections among its own. Refill alone
 * then takes each of the first three readings with its relays merged
 * (sb_relay_refill): where memory is handed from a node or hole to the next
 * of its size, as where memory is reused over time, the merged part has
 * fewer nodes to order at each boundary and packs where the padded part
 * itself ran out of its share; it may have lost the packing where the two
 * lie apart, so the padded part comes first. Then the first three readings run again on
 * the room read backward in time, from the last section: holes that end
 * together are then holes that start together, which the split readings
 * take apart where a later drop shows them; then the draws (PAD_ORDER).
 * A right padding packs at once; a wrong one most often
 * fails at once, or spends the try's share, so each try after the third
 * has at most a sixteenth of the padding's budget (the last what is
 * left), and a reading a try of the same kind took on at least as large a
 * share is not taken again (readings often agree: where the room shows
 * no drop that the open holes cannot make, the first three are one). */
enum { PAD_OPEN_MAX = 12, PAD_SHARE = 4, PAD_LATE_SHARE = 16 };
enum { WAYS_MAX = (1u << PAD_OPEN_MAX) + 2 * PAD_OPEN_MAX }; /* the ways to read a change (pad_drawn) */

/* The tries in order: the reading (pad_room's t), whether the room is read
 * backward in time, and whether refill alone takes the padded part's relays
 * merged (sb_relay_refill). */
static const struct pad_try {
    uint8_t t;
    bool backward, relays;
} PAD_ORDER[] = {{0, false, false}, {1, false, false},  {2, false, false},  {0, false, true},  {1, false, true},
                 {2, false, true},  {0, true, false},   {1, true, false},   {2, true, false},  {3, false, false},
                 {4, false, false}, {5, false, false},  {6, false, false},  {7, false, false}, {8, false, false},
                 {9, false, false}, {10, false, false}, {11, false, false}, {12, false, false}};
enum { PAD_TRIES = sizeof PAD_ORDER / sizeof PAD_ORDER[0] };

/* A padding node: free room over sections [s0, s1]. */
static sb_pack_node pad_node(uint32_t s0, uint32_t s1, int64_t size)
{
    return (sb_pack_node){.s0 = s0, .s1 = s1, .size = size, .nopt = 1, .qmask = {1}};
}

/* The padding of try `t` (0, 1: holes that started together, the largest
 * or the last begun split; 2: the rules; none with draws) into
 * nodes[p->n ..);
 * the number of nodes, or 0 where the room cannot be read so. */
static uint32_t pad_room(const sb_pack_problem *p, const int64_t *room, uint32_t K, sb_pack_node *nodes, uint32_t t,
                         uint64_t *work)
{
    sba_rng rng = {p->seed ^ sba_mix64(t)};
    const bool split = t < 2, last = t == 1, draws = t > 2;
    uint32_t n = p->n, nopen = 0, start[PAD_OPEN_MAX];
    int64_t size[PAD_OPEN_MAX], open = 0, least = INT64_MAX;
    for (uint32_t i = 0; i < p->n; i++) least = min64(least, p->nodes[i].size);
    for (uint32_t k = 0; k <= K; k++) {
        if (open > room[k]) {
            int64_t drop = open - room[k];
            /* the subsets of the open ones that sum to the drop: the
             * fewest, one of them drawn */
            uint32_t best = 0, bestn = PAD_OPEN_MAX + 1, ties = 0;
            for (uint32_t set = 1; set < (1u << nopen); set++) {
                int64_t sum = 0;
                for (uint32_t x = 0; x < nopen; x++)
                    if (set >> x & 1u) sum += size[x];
                uint32_t c = (uint32_t)__builtin_popcount(set);
                if (sum != drop || c > bestn) continue;
                ties = c < bestn ? 1 : ties + 1;
                if (c < bestn || (draws && sba_rng_next(&rng) % ties == 0)) best = set, bestn = c;
            }
            *work += 1u << nopen;
            /* none: the largest that holds the drop (or one drawn) ends */
            uint32_t big = PAD_OPEN_MAX, holds = 0;
            for (uint32_t x = 0; !best && x < nopen; x++) {
                if (size[x] <= drop) continue;
                holds++;
                if (big == PAD_OPEN_MAX || (draws  ? sba_rng_next(&rng) % holds == 0
                                            : last ? start[x] > start[big]
                                                   : size[x] > size[big]))
                    big = x;
            }
            if (!best && big < PAD_OPEN_MAX && split && drop >= least && size[big] - drop >= least) {
                /* two holes that started together: the drop's ends now */
                nodes[n++] = pad_node(start[big], k - 1, drop);
                size[big] -= drop, open -= drop;
                continue;
            }
            if (!best) best = big < PAD_OPEN_MAX ? 1u << big : (1u << nopen) - 1;
            uint32_t keep = 0;
            for (uint32_t x = 0; x < nopen; x++) {
                if (best >> x & 1u) {
                    nodes[n++] = pad_node(start[x], k - 1, size[x]);
                    open -= size[x];
                } else {
                    start[keep] = start[x], size[keep++] = size[x];
                }
            }
            nopen = keep;
        }
        if (open < room[k]) {
            /* a growth: a new node, or an open one ends and a larger one
             * starts: drawn, or where the growth is smaller than any node
             * (no hole of its own), the largest open one (the last begun) */
            uint32_t x = PAD_OPEN_MAX;
            if (draws && nopen && sba_rng_next(&rng) % 4 == 0) {
                x = (uint32_t)(sba_rng_next(&rng) % nopen);
            } else if (nopen && room[k] - open < least) {
                x = 0;
                for (uint32_t y = 1; y < nopen; y++)
                    if (last ? start[y] > start[x] : size[y] > size[x]) x = y;
            }
            if (x < PAD_OPEN_MAX) {
                nodes[n++] = pad_node(start[x], k - 1, size[x]);
                open -= size[x];
                start[x] = start[nopen - 1], size[x] = size[nopen - 1], nopen--;
            }
            if (nopen == PAD_OPEN_MAX) return 0;
            start[nopen] = k, size[nopen++] = room[k] - open;
            open = room[k];
        }
    }
    return n;
}

/* A reading drawn at random (Drawn) into nodes[p->n ..): at every change
 * of the room one of the ways to read it, each as likely. A drop: a set of
 * open holes whose sizes sum to it ends; one ends and a smaller one starts
 * in its place; or, of an open hole read as two that started together,
 * the drop's part ends. A growth: a hole starts; or an open one ends and a
 * larger one starts. No hole is smaller than the part's smallest node. A
 * draw that meets a change none of the ways reads is drawn again; the
 * number of nodes, or 0 after WALK_DRAWS draws. */
static uint32_t pad_drawn(const sb_pack_problem *p, const int64_t *room, uint32_t K, sb_pack_node *nodes,
                          sba_rng *rng, uint64_t *work)
{
    int64_t least = INT64_MAX;
    for (uint32_t i = 0; i < p->n; i++) least = min64(least, p->nodes[i].size);
    for (uint32_t draw = 0; draw < WALK_DRAWS; draw++) {
        uint32_t n = p->n, nopen = 0, start[PAD_OPEN_MAX];
        int64_t size[PAD_OPEN_MAX], open = 0;
        bool read = true;
        for (uint32_t k = 0; k <= K && read; k++) {
            if (open == room[k]) continue;
            /* the ways: a set of open ones ends (ends), one ends and another
             * starts in its place (hand), or one is split (split); a new one */
            enum { ENDS, HAND, SPLIT, NEW };
            uint32_t kind[WAYS_MAX], arg[WAYS_MAX], ways = 0;
            if (open > room[k]) {
                const int64_t drop = open - room[k];
                for (uint32_t set = 1; set < (1u << nopen); set++) {
                    int64_t sum = 0;
                    for (uint32_t x = 0; x < nopen; x++)
                        if (set >> x & 1u) sum += size[x];
                    if (sum == drop) kind[ways] = ENDS, arg[ways++] = set;
                }
                *work += 1u << nopen;
                for (uint32_t x = 0; x < nopen; x++) { /* x's rest stays open: never where no room is left */
                    if (size[x] - drop < least) continue;
                    kind[ways] = HAND, arg[ways++] = x;
                    if (drop >= least) kind[ways] = SPLIT, arg[ways++] = x;
                }
            } else {
                if (room[k] - open >= least) kind[ways] = NEW, arg[ways++] = 0;
                for (uint32_t x = 0; x < nopen; x++) kind[ways] = HAND, arg[ways++] = x;
            }
            if (!ways) {
                read = false;
                break;
            }
            const uint32_t w = (uint32_t)(sba_rng_next(rng) % ways);
            if (kind[w] == SPLIT) {
                const uint32_t x = arg[w];
                const int64_t drop = open - room[k];
                nodes[n++] = pad_node(start[x], k - 1, drop);
                size[x] -= drop, open -= drop;
                continue;
            }
            const uint32_t ends = kind[w] == ENDS ? arg[w] : kind[w] == HAND ? 1u << arg[w] : 0;
            uint32_t keep = 0;
            for (uint32_t x = 0; x < nopen; x++) {
                if (ends >> x & 1u) nodes[n++] = pad_node(start[x], k - 1, size[x]), open -= size[x];
                else start[keep] = start[x], size[keep++] = size[x];
            }
            nopen = keep;
            if (open < room[k]) { /* what the change leaves starts a hole */
                if (nopen == PAD_OPEN_MAX) read = false;
                else start[nopen] = k, size[nopen++] = room[k] - open, open = room[k];
            }
        }
        *work += K;
        if (read && open == 0) return n;
    }
    return 0;
}

/* Padding nodes nodes[p->n, n) read on the raw sections, each over the kept
 * ones among them, none where it lies between two (a hole's room in the
 * kept sections is as in the raw ones: it packs the same). The number of
 * nodes left. */
static uint32_t to_kept(const sb_pack_problem *p, sb_pack_node *nodes, uint32_t n)
{
    if (!p->raw_room) return n;
    uint32_t m = p->n;
    for (uint32_t i = p->n; i < n; i++) {
        uint32_t s0 = p->raw_rank[nodes[i].s0], e = p->raw_rank[nodes[i].s1 + 1];
        if (e > s0) nodes[i].s0 = s0, nodes[i].s1 = e - 1, nodes[m++] = nodes[i];
    }
    return m;
}

/* A key of the padding nodes nodes[from, n): the same nodes in any order
 * (readings that split different holes may make the same), the same key. */
static uint64_t padding_key(const sb_pack_node *nodes, uint32_t from, uint32_t n)
{
    uint64_t key = n;
    for (uint32_t i = from; i < n; i++)
        key += sba_mix64(sba_mix64(sba_mix64(nodes[i].s0) ^ nodes[i].s1) ^ (uint64_t)nodes[i].size);
    return key;
}

/* Drawn: readings drawn one after another, each searched by the cuts on
 * WALK_WORK units per node, within `budget`; a reading drawn before is
 * not searched again. */
static int pack_drawn(const sb_pack_problem *p, const sba_allocator *a, const int64_t *room, uint32_t RK,
                      sb_pack_node *nodes, int64_t *off, uint32_t *opt, uint64_t budget, uint64_t *work,
                      uint64_t *visited)
{
    sba_rng rng = {p->seed ^ 0xD4A3E5C1B2F60798ull};
    sba_keyset seen = {.cap = WALK_KEYS};
    if (!(seen.slot = sba_malloc(a, (size_t)WALK_KEYS * sizeof *seen.slot))) return SB_PACK_NOMEM;
    memset(seen.slot, 0, (size_t)WALK_KEYS * sizeof *seen.slot);
    int r = SB_PACK_NONE;
    for (uint32_t misses = 0; r == SB_PACK_NONE && *work < budget && misses < WALK_DRAWS;) {
        uint32_t n = to_kept(p, nodes, pad_drawn(p, room, RK, nodes, &rng, work));
        const uint64_t key = n ? padding_key(nodes, p->n, n) : 0;
        if (!n || sba_keyset_has(&seen, key)) { /* none read, or one searched before */
            misses++;
            continue;
        }
        sba_keyset_add(&seen, key);
        misses = 0;
        sb_pack_problem padded = *p;
        padded.n = n, padded.nodes = nodes, padded.off = off, padded.opt = opt, padded.slack = NULL;
        padded.drawn = false;
        uint64_t w = 0, v = 0, share = (uint64_t)WALK_WORK * p->n;
        r = sb_strips_pack(&padded, a, share < left_of(budget, *work) ? share : left_of(budget, *work), &w, &v);
        *work += w, *visited += v;
        if (r == SB_PACK_BUDGET) r = SB_PACK_NONE;
    }
    sba_free(a, seen.slot);
    return r;
}

/* Pads p, a 1-D part (only those are padded: cuttable), and cuts the
 * padded part, within `budget` (the caller's whole: *work already holds
 * what it spent). */
static int pack_padded(const sb_pack_problem *p, const sba_allocator *a, uint64_t budget, uint64_t *work,
                       uint64_t *visited)
{
    const int64_t cap = p->cap / p->align * p->align;
    const uint32_t K = p->K, RK = p->raw_room ? p->raw_K : K; /* the sections read */
    int64_t *room = sba_malloc(a, (size_t)(RK + 2) * sizeof *room);
    int64_t *back = sba_malloc(a, (size_t)(RK + 2) * sizeof *back); /* room, last section first */
    /* a padding node is a hole that started where the room grew, or the
     * part of one split off where it dropped; a section starts one hole or
     * splits one (a split leaves no growth), so there are at most RK */
    uint32_t most = p->n + RK;
    sb_pack_node *nodes = sba_malloc(a, (size_t)most * sizeof *nodes);
    int64_t *off = sba_malloc(a, (size_t)most * sizeof *off);
    uint32_t *opt = sba_malloc(a, (size_t)most * sizeof *opt);
    int r = SB_PACK_NOMEM;
    if (!room || !back || !nodes || !off || !opt) goto done;
    r = SB_PACK_NONE;
    memset(room, 0, (size_t)(K + 2) * sizeof *room);
    for (uint32_t i = 0; i < p->n; i++) room[p->nodes[i].s0] += p->nodes[i].size, room[p->nodes[i].s1 + 1] -= p->nodes[i].size;
    int64_t load = 0, total = 0;
    for (uint32_t k = 0; k < K; k++) {
        load += room[k];
        room[k] = cap - load;
        if (room[k] < 0) goto done;
        total += room[k];
    }
    if (p->raw_room) memcpy(room, p->raw_room, (size_t)RK * sizeof *room);
    room[RK] = 0;
    for (uint32_t k = 0; k < RK; k++) back[k] = room[RK - 1 - k];
    back[RK] = 0;
    *work += p->n + RK;
    if (!total || total > cap * (int64_t)K / SLACK_FRACTION) goto done;
    memcpy(nodes, p->nodes, (size_t)p->n * sizeof *nodes);
    if (p->drawn) {
        r = pack_drawn(p, a, room, RK, nodes, off, opt, budget, work, visited);
        goto out;
    }
    const uint64_t whole = left_of(budget, *work);
    struct pad_taken {
        uint64_t key, share;
        bool relays;
    } taken[PAD_TRIES]; /* the tries taken: reading, share, kind */
    uint32_t ntaken = 0;
    for (uint32_t t = 0; t < PAD_TRIES && r == SB_PACK_NONE && *work < budget; t++) {
        const bool backward = PAD_ORDER[t].backward;
        uint32_t n = pad_room(p, backward ? back : room, RK, nodes, PAD_ORDER[t].t, work);
        for (uint32_t i = p->n; backward && i < n; i++) { /* into forward time */
            uint32_t s0 = nodes[i].s0;
            nodes[i].s0 = RK - 1 - nodes[i].s1, nodes[i].s1 = RK - 1 - s0;
        }
        if (n) n = to_kept(p, nodes, n); /* read on the raw sections */
        if (!n) continue;
        sb_pack_problem padded = *p;
        padded.n = n, padded.nodes = nodes, padded.off = off, padded.opt = opt, padded.slack = NULL;
        uint64_t w = 0, v = 0;
        /* this try's share: of what is left a quarter, a sixth, a half;
         * then each at most a sixteenth of the whole, the last the rest */
        static const uint64_t div[3] = {4, 6, 2};
        uint64_t until = t < 3 ? *work + left_of(budget, *work) / div[t] : budget;
        if (t >= 3 && t + 1 < PAD_TRIES && *work + whole / PAD_LATE_SHARE < budget) until = *work + whole / PAD_LATE_SHARE;
        /* a reading a try of the same kind took on at least this share
         * is not taken again: the same search on no more */
        const uint64_t key = padding_key(nodes, p->n, n), share = left_of(until, *work);
        bool again = false;
        for (uint32_t x = 0; x < ntaken; x++)
            again |= taken[x].key == key && taken[x].relays == PAD_ORDER[t].relays && taken[x].share >= share;
        if (again) continue;
        taken[ntaken++] = (struct pad_taken){key, share, PAD_ORDER[t].relays};
        /* refill on its relays merged (relay.c), or on its orders by
         * PQ-trees first, on half of the share (refill.c), where no
         * guillotine cut is needed, then the strips */
        sba_arena ar;
        sba_arena_init(&ar, a);
        r = PAD_ORDER[t].relays ? sb_relay_refill(&padded, &ar, share, &w, &v)
                                : sb_refill_pack(&padded, &ar, share / 2, &w, &v);
        sba_arena_free(&ar);
        *work += w, *visited += v;
        if (r == SB_PACK_NOMEM) break;
        if (!PAD_ORDER[t].relays && r != SB_PACK_PACKED) {
            w = v = 0;
            r = sb_strips_pack(&padded, a, left_of(until, *work), &w, &v);
            *work += w, *visited += v;
        }
        if (r == SB_PACK_BUDGET && until < budget) r = SB_PACK_NONE; /* the next try's turn */
    }
out:
    if (r == SB_PACK_PACKED)
        for (uint32_t i = 0; i < p->n; i++) p->off[i] = off[i], p->opt[i] = opt[i];
done:
    sba_free(a, room);
    sba_free(a, back);
    sba_free(a, nodes);
    sba_free(a, off);
    sba_free(a, opt);
    return r;
}

int sb_strips_pack(const sb_pack_problem *p, const sba_allocator *a, uint64_t budget, uint64_t *work,
                   uint64_t *visited)
{
    strips T = {.p = p, .a = a, .budget = budget, .failed = {.cap = FAILED_PIECES}, .scale = p->scale ? p->scale : 1};
    *work = *visited = 0;
    if (p->nfixed || !p->n || (p->Q != 1 && p->Q != 4)) return SB_PACK_NONE;
    st_item *it = sba_malloc(a, (size_t)p->n * sizeof *it);
    T.failed.slot = sba_malloc(a, (size_t)FAILED_PIECES * sizeof *T.failed.slot);
    if (!it || !T.failed.slot) {
        sba_free(a, it);
        sba_free(a, T.failed.slot);
        return SB_PACK_NOMEM;
    }
    memset(T.failed.slot, 0, (size_t)FAILED_PIECES * sizeof *T.failed.slot);
    bool even = true;
    for (uint32_t i = 0; i < p->n && even; i++) {
        const sb_pack_node *nd = &p->nodes[i];
        /* the load is bytes × quarters: every option must take as many */
        for (uint32_t o = 1; o < nd->nopt; o++) even &= popcount(nd->qmask[o]) == popcount(nd->qmask[0]);
        it[i] = (st_item){.s0 = nd->s0, .s1 = nd->s1, .id = i, .q = (uint8_t)popcount(nd->qmask[0]),
                          .w = nd->size * popcount(nd->qmask[0])};
    }
    int64_t cap = p->cap / p->align * p->align;
    uint8_t M = (uint8_t)((1u << p->Q) - 1);
    int r = SB_PACK_NONE;
    /* only a part without slack (or, in 1-D, with a little) is cut, and
     * not a small one: the same bound as for the pieces within (a part of
     * a few dozen nodes that live side by side is a partition of the
     * quarters, which the band cut splits at once and the whole-part
     * searches may not finish) */
    if (even && p->n > CUT_NODES) {
        qsort(it, p->n, sizeof *it, cmp_item);
        int64_t free = free_room(&T, it, p->n, cap, M);
        uint32_t k1 = 0;
        for (uint32_t i = 0; i < p->n; i++)
            if (it[i].s1 > k1) k1 = it[i].s1;
        if (free == 0) {
            r = solve(&T, it, p->n, cap, 0, M);
        } else if (cuttable(&T, free, k1 - it[0].s0 + 1, cap)) {
            /* the padding first, on a quarter (where it reads the holes
             * right it packs at once); then the slack read as holes one
             * at a time, then as any room, each on half of what is left */
            const uint64_t whole = T.budget;
            if (p->slack_cut) *p->slack_cut = true;
            uint64_t w = 0, v = 0;
            r = pack_padded(p, a, p->drawn ? budget : budget / PAD_SHARE, &w, &v);
            T.work += w, T.visited += v;
            if (r == SB_PACK_BUDGET) r = SB_PACK_NONE;
            for (uint32_t x = 0; x < 2 && r == SB_PACK_NONE && !T.nomem && !p->drawn; x++) {
                T.holes = x == 0;
                memset(T.failed.slot, 0, (size_t)FAILED_PIECES * sizeof *T.failed.slot);
                T.budget = T.work + left_of(whole, T.work) / 2;
                r = solve(&T, it, p->n, cap, 0, M);
                if (r == SB_PACK_BUDGET) r = SB_PACK_NONE;
            }
            T.budget = whole;
        }
    }
    sba_free(a, it);
    sba_free(a, T.failed.slot);
    if (T.nomem) r = SB_PACK_NOMEM;
    *work = T.work, *visited = T.visited;
    return r;
}

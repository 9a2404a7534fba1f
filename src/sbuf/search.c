/* search_packing: a complete search for a placement before anything spills.
 *
 * When select leaves nodes unplaced although the lower bound fits, the
 * function may still pack. This pass searches for a packing exactly, in the
 * spirit of MiniMalloc (Moffitt, ASPLOS'23), generalized to SBUF's bands.
 *
 * The 2-D problem is four 1-D ones. Every base partition is a multiple of 32,
 * so two placements share partitions iff they share a quarter band (each
 * contains the first partition of every quarter it reaches). A node chooses an
 * option — the quarters its height class allows at one base — and must take
 * the same byte range in each of them. Precoloured nodes are fixed obstacles.
 *
 * Time is cut into sections at every interval end point, and only the
 * sections where some node starts and some node ends are kept (the maximal
 * cliques of the interval graph): where none ends, every node live in the
 * section is live in the next one too, and where none starts, in the one
 * before, so its bounds follow from that one's. Two nodes meet in time iff
 * they share a kept section, so nothing is lost; a part whose nodes share
 * one point (the reloads of one instruction) is one section. A place is a
 * (quarter, section). The search keeps a floor per place: the end of the
 * highest node placed there. Any packing can be pushed down until every node
 * rests on another, on a fixed rectangle or on 0; placed in order of address,
 * each then lands at the maximum floor of its places (bumped above fixed
 * rectangles). Both complete searches build only such canonical packings:
 *   - by lowest floor (dfs): take the lowest floor f, at the place with the
 *     fewest candidates; branch on every unplaced node and option covering it
 *     that lands exactly at f, and finally on leaving it empty at f, which
 *     raises its floor to the lowest height a node could still start there;
 *   - in address order (dfs_address, MiniMalloc's form): branch on every
 *     unplaced node and option where it lands, in order of (address, rank),
 *     never below the last placement, and never at or above the lowest top an
 *     unplaced node could reach (that node could take the room below); a
 *     node identical to one that failed at an address is not tried there.
 * In both, as in MiniMalloc, where each node lands is kept up to date as
 * floors rise (a placement raises its neighbours' landings, a place left
 * empty those of the nodes through it, undone on backtrack), not
 * recomputed over its sections wherever it is read: with long-lived nodes
 * the floor search read each one's sections for every candidate of every
 * place it scanned.
 * A third run, the greedy skip, is the first with its floor raised straight
 * to the next landing: fast where a packing exists, it can only pack.
 * Pruning, in every search node: in each section, the unplaced bytes ×
 * quarters must fit in the room above max(floor, lowest landing of the nodes
 * left there, the last address in address order) — a place stays empty below
 * the lowest node that can still use it — less the fixed rectangles there.
 * Sizes and addresses are multiples of the alignment, so the capacity is
 * rounded down to it. When the fixed rectangles sit mostly in the upper
 * half, the search runs on the mirrored SBUF (a ↦ capacity − a − size), so
 * that it decides the places they constrain first rather than last. Decomposition: where no unplaced
 * node crosses from one section to the next, each side packs or fails on its
 * own, so a failure on one side never retries the other; the parts where the
 * live set empties are searched apart, and only those where select failed.
 *
 * The runs (PLAN): first the quick ones, each on a sixty-fourth of the
 * part's budget: the skyline tiling search (skyline.c), with every node
 * taking its whole band (so the quarters a node of fewer partitions leaves
 * free are given up with it; a 2-D part with no slack then once more with
 * time mirrored), then with its exact quarters (in each, a
 * part with no slack is first cut by the strips, and a 1-D one they do
 * not pack searched by its orders, refill.c, on three quarters of what
 * is left); six greedy
 * runs (by area, start and end, and in MiniMalloc's three orders) and the
 * time sweeps. A 2-D part with no slack then gets the strips by bands
 * alone with their sets checked section by section (strips.c, Fills) on
 * a quarter of what is left; a part with no slack a run on its relays
 * (relay.c: a node and the one of its size and options that starts where
 * it ends, each the only one of its kind there, read as one node) on an
 * eighth of what is left, a 2-D part then again with time mirrored (every
 * node's sections reversed: a packing of that part is one of the part) on
 * an eighth (a 1-D part, whose merged part refill takes, keeping apart the
 * merges that wall it in, on half, forwards only); a part with no
 * slack (or, in 1-D, one the strips cut with a little) the skyline by
 * bands on half of what is left, and
 * the strips alone: with no slack, their bounds ever wider (STRIPS_LADDER),
 * each on a third of what is left, then restarted (STRIPS_RESTARTS) on an
 * eighth each; with a little, once (STRIPS_WIDE) on a quarter. Then eight rounds of restarts of the greedy runs, each
 * order perturbed by a seed (every key moved by up to 5 %) and the nodes
 * the part's greedy runs left out so far moved up (BLAME_STEPS), each run
 * on a sixty-fourth of what is left. A 1-D part the strips cut with a
 * little slack then gets its padding read at random, reading after
 * reading (strips.c, Drawn), and the strips with the lightest sets first
 * (strips.c, Light), each on a quarter of what is left. Then MiniMalloc's round robin, the address
 * search in its three orders on a doubling limit, up to a sixteenth of the
 * part's budget each; then every complete search in turn on half of what
 * is left. The budget counts
 * work — search nodes plus landing evaluations and section scans — never
 * seconds, so the answer is the same on any machine. A function has 4e9
 * units (options->search_budget); each fixpoint iteration takes up to 7/8
 * of what is left, shared fairly by its failing parts, the smallest
 * first (what one leaves goes to the larger ones), so the iterations
 * after spill code still search; 1e9 is 1 to 3 s on parts of hundreds of nodes,
 * up to 15 s on functions of a million tensors. The report says whether
 * the search packed, proved infeasibility or ran out.
 *
 * Given a packing, both complete searches and the skyline can follow it
 * (sb_search_follow): at every level only the candidate that packing
 * places next is kept (by lowest floor: what it puts at the chosen place,
 * or leaving the place empty), so a packing where no node could sit lower
 * is reached to the end exactly when no rule cuts it (in the skyline,
 * which gives up whole runs, where it leaves no byte free); the tests
 * follow planted packings so.
 *
 * Requires: build, select. Produces: base/addr of every node of the parts it
 * packs. Complexity: exponential in the worst case, bounded by the budget. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/rng.h"
#include "sbuf/sbuf.h"

#define DEFAULT_BUDGET 4000000000ull
#define REPAIR_BUDGET 150000000ull
/* Up to this many pairs of nodes sharing a section, the complete searches
 * list them to keep landings up to date (8 bytes each). */
#define NEIGHBOUR_PAIRS 4000000ull
/* The strips' runs alone (KIND_STRIPS_WIDE) on a part with no slack: their
 * bounds × each scale of the ladder in turn, then restarts (strips.c,
 * Bounds) × STRIPS_WIDE; on a 1-D part they cut with a little slack, one
 * run × STRIPS_WIDE. */
static const uint32_t STRIPS_LADDER[] = {4, 16, 64, 256};
enum { STRIPS_LADDER_LEN = sizeof STRIPS_LADDER / sizeof STRIPS_LADDER[0], STRIPS_RESTARTS = 8, STRIPS_WIDE = 16 };
/* What the skyline by bands reports of a 1-D part that the strips cut with
 * a little slack (search_run's *slack). */
enum { SLACK_CUT = -2 };
enum { MAX_OPTIONS = 4, OUTCOME_PACKED = 1, OUTCOME_INFEASIBLE = 2,
       OUTCOME_BUDGET = 3 };
/* The searches: by lowest floor with the greedy skip (can only pack), by
 * lowest floor, in address order (both complete); the time sweeps, the
 * skylines, the strips alone, the run on the relays, the strips with
 * the lightest sets first, the strips by bands with their sets'
 * sections filled and the strips on paddings drawn at random (all pack
 * only). */
enum { KIND_GREEDY, KIND_FLOOR, KIND_ADDRESS, KIND_SWEEP, KIND_SWEEP_BACK, KIND_SKYLINE, KIND_SKYLINE_BANDS,
       KIND_STRIPS_WIDE, KIND_RELAY, KIND_STRIPS_LIGHT, KIND_FILLS, KIND_DRAWN };

typedef struct sx_node {
    uint32_t id;           /* sb node id */
    uint32_t s0, s1;       /* sections covered, inclusive */
    int64_t size;          /* aligned bytes */
    uint32_t nopt;
    uint8_t qmask[MAX_OPTIONS]; /* quarters of each option */
    int32_t base[MAX_OPTIONS];
    uint32_t weight;       /* quarters of its options (all the same) */
    uint8_t kind;          /* KIND_*: which per-section demand it counts in */
} sx_node;

/* How a node's options constrain the quarters, for the per-band bounds: one
 * option (it must take those quarters), either half, or anything else (only
 * in the total). */
enum { DEMAND_FREE = 0, DEMAND_ONE = 1, DEMAND_HALVES = 2 };
enum { MASKS = 16, NSETS = 8 };
/* The quarter sets the per-band bounds check: each quarter, each half, the
 * lower three, all four. */
static const uint8_t SETS[NSETS] = {1, 2, 4, 8, 3, 12, 7, 15};

typedef sb_pack_fixed sx_fixed;

typedef struct trail_entry {
    uint32_t idx;
    int64_t old;
} trail_entry;

typedef struct sx {
    sb_ctx *c;
    sba_arena *ar;         /* the run's own arena, freed when it ends */
    sx_node *nodes;
    uint32_t nleft;
    sx_fixed *fixed;
    uint32_t nfixed;
    uint32_t **fcover;     /* per section: the fixed rectangles covering it */
    uint32_t *nfcover;
    uint32_t K, Q;         /* sections, quarters searched (1 when every rectangle includes quarter 0) */
    int64_t *floor;        /* [q * K + k] */
    int64_t *rem;          /* per section: unplaced bytes × quarters */
    int64_t *dset;         /* [k * NSETS + x]: unplaced bytes of one-option nodes taking every quarter of SETS[x] */
    int64_t *dhalf;        /* per section: unplaced bytes of nodes that take either half */
    uint32_t **cover;      /* per section: nodes covering it */
    uint32_t *ncover;
    uint32_t *ucount;      /* per section: unplaced nodes covering it */
    uint32_t *cross;       /* per section k: unplaced nodes covering k and k + 1 */
    uint32_t *pstack;      /* nodes placed, in order (undone on failure) */
    uint32_t npstack;
    bool *placed;
    int64_t *off;
    uint32_t *opt;
    trail_entry *trail;
    uint32_t ntrail, captrail;
    int64_t cap, align;
    uint64_t visited, work, budget; /* search nodes; nodes + landing evaluations */
    bool exhausted;
    bool greedy_skip;      /* the fast, incomplete skip (see dfs_floor) */
    bool *left_out;        /* per node: unplaced when the fewest were (NULL: not kept) */
    uint32_t fewest_left;
    int64_t last;          /* address search: the last placement's address and node */
    uint32_t lastnode;
    struct ocand *ocands;  /* candidates, a stack of levels */
    const sb_guide *guide; /* the packing followed (sb_search_follow), or NULL */
    uint32_t *twin;        /* per node: the first node identical to it (itself if none) */
    uint64_t *failed_in;   /* per node and option: the search node where it failed at failed_at */
    int64_t *failed_at;
    uint32_t nocand, capocand;
    int64_t *minland;      /* per place, the lowest an unplaced node lands (see landings) */
    uint32_t *by_start;    /* the nodes by first section; those starting at k from first_at[k] */
    uint32_t *first_at;
    struct ocand *lands;   /* landings' scratch: every unplaced node and option where it lands */
    uint32_t *next;        /* landings' scratch: the next section not yet painted */
    /* the address search's landings, kept as placements raise them */
    bool inc;
    int64_t *raw;          /* [i * MAX_OPTIONS + o]: the highest floor under node i, option o */
    uint32_t *nbr_of, *nbr; /* the nodes sharing a section with i: nbr[nbr_of[i] .. nbr_of[i + 1]) */
    /* the time sweep */
    uint32_t *nstart;      /* per section: unplaced nodes starting there */
    struct sw_iv *ivs;     /* occupied intervals of the levels, a stack */
    uint32_t nivs, capivs;
    struct sw_iv *closed;  /* room given up, per section, a stack */
    uint32_t nclosed, capclosed;
} sx;

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* Where node i with option o would land: the highest floor under it, bumped
 * above any fixed rectangle in its way. cap + 1 when it does not fit. */
static int64_t land(sx *S, uint32_t i, uint32_t o)
{
    const sx_node *nd = &S->nodes[i];
    int64_t off = 0;
    if (S->inc) {
        off = S->raw[(size_t)i * MAX_OPTIONS + o];
        S->work++;
    } else {
        S->work += (uint64_t)(nd->s1 - nd->s0 + 1) * nd->weight; /* every option takes as many quarters */
        for (uint32_t q = 0; q < S->Q; q++) {
            if (!(nd->qmask[o] & (1u << q))) continue;
            const int64_t *f = &S->floor[(size_t)q * S->K];
            for (uint32_t k = nd->s0; k <= nd->s1; k++)
                if (f[k] > off) off = f[k];
        }
    }
    for (bool moved = S->nfixed > 0; moved;) {
        moved = false;
        S->work += S->nfixed;
        for (uint32_t x = 0; x < S->nfixed; x++) {
            const sx_fixed *fx = &S->fixed[x];
            if (!(fx->qmask & nd->qmask[o]) || fx->s1 < nd->s0 || nd->s1 < fx->s0) continue;
            if (off < fx->hi && fx->lo < off + nd->size) {
                off = align_up(fx->hi, S->align);
                moved = true;
            }
        }
    }
    return off + nd->size <= S->cap ? off : S->cap + 1;
}

/* Sets floor idx to v, on the trail (which has room for it). */
static void floor_to(sx *S, uint32_t idx, int64_t v)
{
    S->trail[S->ntrail++] = (trail_entry){idx, S->floor[idx]};
    S->floor[idx] = v;
}

/* Lifts the kept landings of unplaced node j's options that take a quarter
 * of `mask` to `top`, on the trail (which has room for them). */
static void lift_landings(sx *S, uint32_t j, uint8_t mask, int64_t top)
{
    const sx_node *nj = &S->nodes[j];
    const uint32_t places = S->Q * S->K;
    for (uint32_t oj = 0; oj < nj->nopt; oj++) {
        int64_t *r = &S->raw[(size_t)j * MAX_OPTIONS + oj];
        if (*r >= top || !(nj->qmask[oj] & mask)) continue;
        S->trail[S->ntrail++] = (trail_entry){places + j * MAX_OPTIONS + oj, *r};
        *r = top;
    }
}

/* Raises floor idx (place q * K + k) to v, on the trail; where landings
 * are kept (S->inc), those of the unplaced nodes through the place rise
 * with it, as a placement raises them (raise_landings). */
static bool set_floor(sx *S, uint32_t idx, int64_t v)
{
    uint32_t q = idx / S->K, k = idx % S->K, most = 1;
    if (S->inc) most += S->ncover[k] * MAX_OPTIONS;
    if (!sba_arena_grow(S->ar, (void **)&S->trail, &S->captrail, S->ntrail + most, sizeof *S->trail))
        return false;
    floor_to(S, idx, v);
    if (!S->inc) return true;
    S->work += S->ncover[k];
    for (uint32_t x = 0; x < S->ncover[k]; x++)
        if (!S->placed[S->cover[k][x]]) lift_landings(S, S->cover[k][x], (uint8_t)(1u << q), v);
    return true;
}

/* Trail entries from Q × K on are kept landings (raw), below floors. */
static void undo_to(sx *S, uint32_t mark)
{
    size_t places = (size_t)S->Q * S->K;
    while (S->ntrail > mark) {
        trail_entry *t = &S->trail[--S->ntrail];
        if (t->idx < places) S->floor[t->idx] = t->old;
        else S->raw[t->idx - places] = t->old;
    }
}

/* Raises the kept landings of the unplaced nodes that share a place with i,
 * option o, to its top (the trail has room: see put). */
static void raise_landings(sx *S, uint32_t i, uint32_t o, int64_t top)
{
    S->work += S->nbr_of[i + 1] - S->nbr_of[i];
    for (uint32_t x = S->nbr_of[i]; x < S->nbr_of[i + 1]; x++)
        if (!S->placed[S->nbr[x]]) lift_landings(S, S->nbr[x], S->nodes[i].qmask[o], top);
}

/* The bytes of place (q, k) from `from` up that nodes can still take: the
 * capacity less the fixed rectangles there. */
static int64_t room_at(const sx *S, uint32_t q, uint32_t k, int64_t from)
{
    int64_t room = S->cap - from;
    for (uint32_t x = 0; x < S->nfcover[k]; x++) {
        const sx_fixed *fx = &S->fixed[S->fcover[k][x]];
        if (!(fx->qmask & (1u << q))) continue;
        int64_t lo = fx->lo > from ? fx->lo : from, hi = fx->hi < S->cap ? fx->hi : S->cap;
        if (hi > lo) room -= hi - lo;
    }
    return room;
}

/* Whether section k can still hold its unplaced nodes, every place's room
 * starting at e[q] (a lower bound on where anything placed there from now on
 * lands). Besides the total (bytes × quarters), each band is checked on its
 * own: the nodes that must take every quarter of a set T (one option covering
 * T) sit at one address in all of them, above the highest e[q] of T, so their
 * bytes fit the smallest room of T above it; and the nodes that take either
 * half fit the room the halves have left above their highest e[q] once the
 * nodes bound to them are in. Without these a section whose quarters are
 * full to different heights looks roomy to a full-height node that cannot
 * fit above the highest. */
static bool section_fits(const sx *S, uint32_t k, const int64_t *e)
{
    bool clear = S->nfcover[k] == 0; /* no fixed rectangle: the room is all above e */
    int64_t room = 0;
    for (uint32_t q = 0; q < S->Q; q++) room += clear ? S->cap - e[q] : room_at(S, q, k, e[q]);
    if (S->rem[k] > room) return false;
    if (S->Q == 1) return true;
    int64_t bound[MASKS] = {0};
    const int64_t *ds = &S->dset[(size_t)k * NSETS];
    for (uint32_t x = 0; x < NSETS; x++) {
        uint32_t T = SETS[x];
        int64_t top = 0, r = INT64_MAX;
        for (uint32_t q = 0; q < SBA_BANDS; q++)
            if ((T & (1u << q)) && e[q] > top) top = e[q];
        if (clear) {
            r = S->cap - top;
        } else {
            for (uint32_t q = 0; q < SBA_BANDS; q++)
                if (T & (1u << q)) {
                    int64_t rq = room_at(S, q, k, top);
                    if (rq < r) r = rq;
                }
        }
        if (ds[x] > r) return false;
        bound[T] = r - ds[x];
    }
    return S->dhalf[k] <= bound[3] + bound[12];
}

/* What one section's full check costs, in work units: in 2-D, the room
 * of every band set as well as the total. */
static uint64_t check_cost(const sx *S) { return S->Q == 1 ? 1 : (uint64_t)S->Q * (NSETS + 1); }

static void floors_of(const sx *S, uint32_t k, int64_t at, int64_t *e)
{
    for (uint32_t q = 0; q < S->Q; q++) {
        int64_t f = S->floor[(size_t)q * S->K + k];
        e[q] = f > at ? f : at;
    }
}

/* The room above the floors still holds the unplaced demand of section k. */
static bool section_ok(const sx *S, uint32_t k)
{
    if (S->Q == 1) return S->rem[k] <= room_at(S, 0, k, S->floor[k]); /* the hot 1-D case, inline */
    int64_t e[SBA_BANDS];
    floors_of(S, k, 0, e);
    return section_fits(S, k, e);
}

/* Adds (sign 1) or takes away (-1) node nd's demand in section k. */
static void add_demand(sx *S, const sx_node *nd, uint32_t k, int64_t sign)
{
    S->rem[k] += sign * nd->size * nd->weight;
    if (nd->kind == DEMAND_ONE) {
        for (uint32_t x = 0; x < NSETS; x++)
            if ((nd->qmask[0] & SETS[x]) == SETS[x]) S->dset[(size_t)k * NSETS + x] += sign * nd->size;
    } else if (nd->kind == DEMAND_HALVES) {
        S->dhalf[k] += sign * nd->size;
    }
}

static void mark_placed(sx *S, uint32_t i, bool placed)
{
    const sx_node *nd = &S->nodes[i];
    S->placed[i] = placed;
    S->nleft += placed ? -1u : 1u;
    for (uint32_t k = nd->s0; k <= nd->s1; k++) {
        add_demand(S, nd, k, placed ? -1 : 1);
        S->ucount[k] += placed ? -1u : 1u;
        if (k < nd->s1) S->cross[k] += placed ? -1u : 1u;
    }
    if (placed) S->pstack[S->npstack++] = i;
    else S->npstack--;
    if (placed && S->left_out && S->nleft < S->fewest_left) {
        /* the furthest this run got: what it left out there */
        uint32_t n = S->npstack + S->nleft;
        S->fewest_left = S->nleft;
        for (uint32_t x = 0; x < n; x++) S->left_out[x] = !S->placed[x];
        S->work += n;
    }
}

/* Undoes every placement and floor change made since the marks. */
static void unwind(sx *S, uint32_t pmark, uint32_t tmark)
{
    while (S->npstack > pmark) mark_placed(S, S->pstack[S->npstack - 1], false);
    undo_to(S, tmark);
}


typedef int (*solve_fn)(sx *S, uint32_t ka, uint32_t kb);
enum { SPLIT_ONE = 2 };

/* Decomposition: where no unplaced node crosses from one section to the
 * next, the nodes on either side only meet floors of their own sections, so
 * each side packs or fails on its own. Packing them one after the other, a
 * failing side fails the state without retrying the others. Returns the
 * result, or SPLIT_ONE with [*ka, *kb] narrowed to the only side. */
static int split(sx *S, uint32_t *ka, uint32_t *kb, solve_fn solve)
{
    uint32_t a = *ka, end = *kb;
    S->work += end - a + 1;
    while (a <= end && !S->ucount[a]) a++;
    if (a > end) return 1; /* nothing left here */
    uint32_t b = a;
    while (b < end && S->cross[b]) b++;
    uint32_t rest = b + 1;
    while (rest <= end && !S->ucount[rest]) rest++;
    if (rest > end) {
        *ka = a, *kb = b;
        return SPLIT_ONE;
    }
    uint32_t pmark = S->npstack, tmark = S->ntrail;
    for (;;) {
        int r = solve(S, a, b);
        if (r != 1) {
            unwind(S, pmark, tmark);
            return r;
        }
        for (a = b + 1; a <= end && !S->ucount[a];) a++;
        if (a > end) return 1;
        for (b = a; b < end && S->cross[b];) b++;
    }
}

/* Counts one search node; false when the budget is spent. */
static bool tick(sx *S)
{
    S->visited++;
    if (++S->work > S->budget) S->exhausted = true;
    return !S->exhausted;
}

/* Places node i with option o at `at`, raising the floors it covers. */
static bool put(sx *S, uint32_t i, uint32_t o, int64_t at)
{
    const sx_node *nd = &S->nodes[i];
    /* room on the trail for every floor it raises and landing it lifts */
    uint32_t most = (nd->s1 - nd->s0 + 1) * nd->weight;
    if (S->inc) most += (S->nbr_of[i + 1] - S->nbr_of[i]) * MAX_OPTIONS;
    if (!sba_arena_grow(S->ar, (void **)&S->trail, &S->captrail, S->ntrail + most, sizeof *S->trail)) return false;
    for (uint32_t q = 0; q < S->Q; q++) {
        if (!(nd->qmask[o] & (1u << q))) continue;
        for (uint32_t k = nd->s0; k <= nd->s1; k++) floor_to(S, q * S->K + k, at + nd->size);
    }
    if (S->inc) raise_landings(S, i, o, at + nd->size);
    mark_placed(S, i, true);
    S->off[i] = at;
    S->opt[i] = o;
    return true;
}

static int dfs(sx *S, uint32_t ka, uint32_t kb);

static int place_and_recurse(sx *S, uint32_t i, uint32_t o, int64_t at, uint32_t ka, uint32_t kb)
{
    const sx_node *nd = &S->nodes[i];
    uint32_t mark = S->ntrail;
    if (!put(S, i, o, at)) return -1;
    int r = 0;
    bool bound_ok = true;
    for (uint32_t k = nd->s0; k <= nd->s1 && bound_ok; k++) bound_ok = section_ok(S, k);
    /* every unplaced node that meets the raised floors must still fit */
    for (uint32_t k = nd->s0; k <= nd->s1 && bound_ok; k++)
        for (uint32_t x = 0; x < S->ncover[k] && bound_ok; x++) {
            uint32_t j = S->cover[k][x];
            if (S->placed[j] || (k > nd->s0 && S->nodes[j].s0 < k)) continue; /* checked already */
            bool fits = false;
            for (uint32_t oo = 0; oo < S->nodes[j].nopt && !fits; oo++) fits = land(S, j, oo) <= S->cap;
            bound_ok = fits;
        }
    if (bound_ok) {
        r = dfs(S, ka, kb);
    } else {
        r = 0;
    }
    if (r != 1) {
        mark_placed(S, i, false);
        undo_to(S, mark);
    }
    return r;
}

/* ---- the search in address order ------------------------------------------
 * MiniMalloc's canonical form: nodes are placed in order of (address, rank)
 * with rank their place in the candidate order, each where it lands. Any
 * packing, pushed down until every node rests on another (or a fixed
 * rectangle, or 0), is built this way. Pruning: placements only rise, so
 * every section's room starts at the last address; and nothing is placed at
 * or above the lowest top an unplaced node could reach (it would leave room
 * below that the node could take instead: a packing with the node there
 * exists if this one does). */
typedef struct ocand {
    int64_t at;
    uint32_t node, opt;
} ocand;

static int cmp_ocand(const void *a, const void *b)
{
    const ocand *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    if (x->node != y->node) return x->node < y->node ? -1 : 1;
    return x->opt < y->opt ? -1 : x->opt > y->opt;
}

/* The room above max(floor, at) still holds section k's unplaced demand. */
static bool section_ok_from(const sx *S, uint32_t k, int64_t at)
{
    if (S->Q == 1) return S->rem[k] <= room_at(S, 0, k, S->floor[k] > at ? S->floor[k] : at);
    int64_t e[SBA_BANDS];
    floors_of(S, k, at, e);
    return section_fits(S, k, e);
}

/* The same, on the total (bytes × quarters) only. */
static bool total_ok_from(const sx *S, uint32_t k, int64_t at)
{
    int64_t room = 0;
    for (uint32_t q = 0; q < S->Q; q++) {
        int64_t f = S->floor[(size_t)q * S->K + k];
        room += room_at(S, q, k, f > at ? f : at);
    }
    return S->rem[k] <= room;
}

static int cmp_landing(const void *a, const void *b)
{
    const ocand *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The first section from k on whose lowest landing is not yet painted. */
static uint32_t unpainted(uint32_t *next, uint32_t k)
{
    uint32_t r = k;
    while (next[r] != r) r = next[r];
    while (next[k] != r) {
        uint32_t up = next[k];
        next[k] = r;
        k = up;
    }
    return r;
}

/* Where every unplaced node of [ka, kb] lands. A place stays empty below the
 * lowest landing of the nodes that could use it, so each section's room
 * starts there, or at `from` when that is higher (MiniMalloc's unallocated
 * floor). Where the nodes' spans are long, the lowest landings are painted
 * in order of landing, each section once, so this costs the sort of the
 * landings rather than the spans; short spans are lowered directly. With
 * `collect`, pushes the canonical candidates of the address search and
 * gives the lowest top a node could reach. 1 when every section still has
 * room, 0 when one has not (or a node fits nowhere), -1 out of memory or
 * budget. */
static int landings(sx *S, uint32_t ka, uint32_t kb, int64_t from, bool collect, int64_t *min_top)
{
    uint32_t nl = 0, lo = S->first_at[ka], hi = S->first_at[kb + 1];
    uint64_t spans = 0;
    if (collect && !sba_arena_grow(S->ar, (void **)&S->ocands, &S->capocand,
                                   S->nocand + (hi - lo) * MAX_OPTIONS + 1, sizeof *S->ocands))
        return -1;
    for (uint32_t x = lo; x < hi; x++) {
        uint32_t j = S->by_start[x];
        if (S->placed[j]) continue;
        const sx_node *nd = &S->nodes[j];
        int64_t lowest = S->cap + 1;
        for (uint32_t o = 0; o < nd->nopt; o++) {
            int64_t at = land(S, j, o);
            if (at > S->cap) continue;
            if (at < lowest) lowest = at;
            S->lands[nl++] = (ocand){at, j, o};
            spans += nd->s1 - nd->s0 + 1;
            if (collect && (at > S->last || (at == S->last && j >= S->lastnode)))
                S->ocands[S->nocand++] = (ocand){at, j, o};
        }
        if (lowest > S->cap) return 0; /* j fits nowhere any more */
        if (collect && lowest + nd->size < *min_top) *min_top = lowest + nd->size;
    }
    S->work += (uint64_t)(kb - ka + 1) * check_cost(S);
    if (S->exhausted || S->work > S->budget) {
        S->exhausted = true;
        return -1;
    }
    for (uint32_t q = 0; q < S->Q; q++)
        for (uint32_t k = ka; k <= kb; k++) S->minland[(size_t)q * S->K + k] = S->cap;
    uint32_t lg = 1;
    while ((1u << lg) < nl) lg++;
    bool direct = spans <= (uint64_t)nl * lg * 4;
    S->work += direct ? spans : (uint64_t)nl * lg;
    if (direct) {
        /* short spans: each landing lowers its sections directly */
        for (uint32_t x = 0; x < nl; x++) {
            const sx_node *nd = &S->nodes[S->lands[x].node];
            for (uint32_t q = 0; q < S->Q; q++) {
                if (!(nd->qmask[S->lands[x].opt] & (1u << q))) continue;
                int64_t *ml = &S->minland[(size_t)q * S->K], at = S->lands[x].at;
                for (uint32_t k = nd->s0; k <= nd->s1; k++)
                    if (at < ml[k]) ml[k] = at;
            }
        }
    } else {
        /* long ones: painted in order of landing, each section once */
        qsort(S->lands, nl, sizeof *S->lands, cmp_landing);
        for (uint32_t q = 0; q < S->Q; q++) {
            int64_t *ml = &S->minland[(size_t)q * S->K];
            for (uint32_t k = ka; k <= kb + 1; k++) S->next[k] = k;
            for (uint32_t x = 0; x < nl; x++) {
                const sx_node *nd = &S->nodes[S->lands[x].node];
                if (!(nd->qmask[S->lands[x].opt] & (1u << q))) continue;
                for (uint32_t k = unpainted(S->next, nd->s0); k <= nd->s1; k = unpainted(S->next, k + 1)) {
                    ml[k] = S->lands[x].at;
                    S->next[k] = k + 1;
                }
            }
        }
    }
    for (uint32_t k = ka; k <= kb; k++) {
        if (!S->ucount[k]) continue;
        int64_t e[SBA_BANDS];
        for (uint32_t q = 0; q < S->Q; q++) {
            size_t at = (size_t)q * S->K + k;
            int64_t f = S->floor[at] > S->minland[at] ? S->floor[at] : S->minland[at];
            e[q] = f > from ? f : from;
        }
        if (S->Q == 1 ? S->rem[k] > room_at(S, 0, k, e[0]) : !section_fits(S, k, e)) return 0;
    }
    return 1;
}

/* Following a packing: keeps, of this level's candidates from `base`, only
 * the one the guide places next: the unplaced node of [ka, kb] lowest in
 * it (then by rank), where it sits there. */
static void follow(sx *S, uint32_t ka, uint32_t kb, uint32_t base)
{
    uint32_t next = UINT32_MAX;
    int64_t lowest = 0;
    for (uint32_t x = S->first_at[ka]; x < S->first_at[kb + 1]; x++) {
        uint32_t j = S->by_start[x];
        int64_t at = S->guide->addr[S->nodes[j].id];
        if (!S->placed[j] && (next == UINT32_MAX || at < lowest || (at == lowest && j < next))) next = j, lowest = at;
    }
    uint32_t keep = base;
    for (uint32_t x = base; x < S->nocand; x++) {
        const ocand *oc = &S->ocands[x];
        if (oc->node == next && oc->at == lowest && S->nodes[next].base[oc->opt] == S->guide->base[S->nodes[next].id])
            S->ocands[keep++] = *oc;
    }
    S->nocand = keep;
}

static int dfs_address(sx *S, uint32_t ka, uint32_t kb)
{
    if (S->nleft == 0) return 1;
    if (!tick(S)) return -1;
    int r = split(S, &ka, &kb, dfs_address);
    if (r != SPLIT_ONE) return r;
    /* candidates: every unplaced node of [ka, kb] where it lands */
    uint32_t base = S->nocand;
    int64_t min_top = S->cap + 1;
    r = landings(S, ka, kb, S->last, true, &min_top);
    if (r != 1) {
        S->nocand = base;
        return r;
    }
    S->work += (uint64_t)(kb - ka + 1) * S->Q;
    /* only those below the lowest top are tried (dominance, below) */
    uint32_t keep = base;
    for (uint32_t x = base; x < S->nocand; x++)
        if (S->ocands[x].at < min_top) S->ocands[keep++] = S->ocands[x];
    S->nocand = keep;
    qsort(S->ocands + base, S->nocand - base, sizeof *S->ocands, cmp_ocand);
    if (S->guide) follow(S, ka, kb, base);
    r = 0;
    const uint64_t here = S->visited;
    for (uint32_t x = base; x < S->nocand && r == 0; x++) {
        ocand oc = S->ocands[x];
        if (oc.at >= min_top) break; /* dominated: see above */
        /* a node identical to one that failed here at this address and
         * option fails too: the two are interchangeable */
        size_t tw = (size_t)S->twin[oc.node] * MAX_OPTIONS + oc.opt;
        if (S->failed_in[tw] == here && S->failed_at[tw] == oc.at) continue;
        uint32_t mark = S->ntrail;
        if (!put(S, oc.node, oc.opt, oc.at)) {
            r = -1;
            break;
        }
        /* the sections it covers in full; the others' total only, as the
         * search below checks them in full with the landings */
        bool ok = true;
        const sx_node *nd = &S->nodes[oc.node];
        for (uint32_t k = ka; k <= kb && ok; k++)
            if (S->ucount[k])
                ok = nd->s0 <= k && k <= nd->s1 ? section_ok_from(S, k, oc.at) : total_ok_from(S, k, oc.at);
        S->work += (uint64_t)(kb - ka + 1) * S->Q + (uint64_t)(nd->s1 - nd->s0 + 1) * (check_cost(S) - S->Q);
        if (ok) {
            int64_t last = S->last;
            uint32_t lastnode = S->lastnode;
            S->last = oc.at, S->lastnode = oc.node;
            r = dfs_address(S, ka, kb);
            S->last = last, S->lastnode = lastnode;
        }
        if (r != 1) {
            mark_placed(S, oc.node, false);
            undo_to(S, mark);
        }
        if (r == 0) S->failed_in[tw] = here, S->failed_at[tw] = oc.at;
    }
    S->nocand = base;
    return r;
}

/* ---- the search by lowest floor ------------------------------------------ */

/* Packs the unplaced nodes of sections [ka, kb] (no unplaced node crosses
 * either end). 1 packed, 0 no packing below this state, -1 out of memory or
 * budget. */
static int dfs_floor(sx *S, uint32_t ka, uint32_t kb, uint32_t base);

/* Following a packing in the search by lowest floor, at place (q, k) with
 * floor f: 1 when the packing puts an unplaced node there at f (the
 * candidates from base narrowed to it, none if it does not land there),
 * 0 when it leaves the place empty at f (the candidates are not tried but
 * still bound how far the floor rises), -1 when a node of it starts there
 * below f (a rule raised the floor past it). */
static int follow_floor(sx *S, uint32_t q, uint32_t k, int64_t f, uint32_t base, uint32_t *nc)
{
    for (uint32_t x = 0; x < S->ncover[k]; x++) {
        uint32_t i = S->cover[k][x];
        const sx_node *nd = &S->nodes[i];
        if (S->placed[i]) continue;
        int64_t at = S->guide->addr[nd->id];
        uint32_t o = 0;
        while (o < nd->nopt && nd->base[o] != S->guide->base[nd->id]) o++;
        if (o == nd->nopt || !(nd->qmask[o] & (1u << q)) || at + nd->size <= f) continue;
        if (at < f) return -1;
        if (at > f) continue;
        uint32_t keep = 0;
        for (uint32_t y = 0; y < *nc; y++)
            if (S->ocands[base + y].node == i && S->ocands[base + y].opt == o) S->ocands[base + keep++] = S->ocands[base + y];
        *nc = keep;
        S->nocand = base + keep;
        return 1;
    }
    return 0;
}

static int dfs(sx *S, uint32_t ka, uint32_t kb)
{
    uint32_t base = S->nocand;
    int r = dfs_floor(S, ka, kb, base);
    S->nocand = base;
    return r;
}

/* dfs, with this level's candidates on the stack from base. */
static int dfs_floor(sx *S, uint32_t ka, uint32_t kb, uint32_t base)
{
    if (S->nleft == 0) return 1;
    if (!tick(S)) return -1;
    int sr = split(S, &ka, &kb, dfs);
    if (sr != SPLIT_ONE) return sr;
    if ((sr = landings(S, ka, kb, 0, false, NULL)) != 1) return sr;
    uint32_t mark = S->ntrail;
    for (;;) {
        /* the lowest floor among sections that still have unplaced nodes
         * (the scans over every place count as work: a part with many
         * sections costs more per search node) */
        S->work += (uint64_t)(kb - ka + 1) * S->Q * 2;
        if (S->work > S->budget) {
            S->exhausted = true;
            return -1;
        }
        int64_t f = S->cap + 1;
        for (uint32_t k = ka; k <= kb; k++) {
            if (!S->ucount[k]) continue;
            for (uint32_t q = 0; q < S->Q; q++)
                if (S->floor[(size_t)q * S->K + k] < f) f = S->floor[(size_t)q * S->K + k];
        }
        if (f >= S->cap) {
            undo_to(S, mark);
            return 0; /* nodes remain but no room anywhere */
        }
        /* Fail first: among the places at floor f, the one with the fewest
         * candidates landing there (none: it must stay empty). */
        uint32_t bq = 0, bk = UINT32_MAX, nc = UINT32_MAX, usable = 0;
        int64_t next = S->cap;
        for (uint32_t k = ka; k <= kb && nc > 0; k++) {
            if (!S->ucount[k]) continue;
            for (uint32_t q = 0; q < S->Q && nc > 0; q++) {
                if (S->floor[(size_t)q * S->K + k] != f) continue;
                uint32_t n = 0, use = 0;
                int64_t nx = S->cap;
                for (uint32_t x = 0; x < S->ncover[k]; x++) {
                    uint32_t i = S->cover[k][x];
                    if (S->placed[i]) continue;
                    for (uint32_t o = 0; o < S->nodes[i].nopt; o++) {
                        if (!(S->nodes[i].qmask[o] & (1u << q))) continue;
                        use++;
                        int64_t at = land(S, i, o);
                        if (at == f) n++;
                        else if (at > f && at < nx) nx = at;
                    }
                }
                if (n < nc) {
                    nc = n, bq = q, bk = k, usable = use, next = nx;
                }
                /* one search node can scan many places: stop mid-scan too */
                if (S->work > S->budget) {
                    S->exhausted = true;
                    return -1;
                }
            }
        }
        /* collect the chosen place's candidates, in node (size) order, on
         * the stack above base (deeper levels push above them) */
        nc = 0;
        S->nocand = base;
        for (uint32_t x = 0; x < S->ncover[bk]; x++) {
            uint32_t i = S->cover[bk][x];
            if (S->placed[i]) continue;
            for (uint32_t o = 0; o < S->nodes[i].nopt; o++) {
                if (!(S->nodes[i].qmask[o] & (1u << bq)) || land(S, i, o) != f) continue;
                if (!sba_arena_grow(S->ar, (void **)&S->ocands, &S->capocand, base + nc + 1, sizeof *S->ocands))
                    return -1;
                S->ocands[base + nc++] = (ocand){f, i, o};
            }
        }
        S->nocand = base + nc;
        if (usable == 0) {
            /* nothing unplaced can ever use (bq, bk): close it */
            if (!set_floor(S, bq * S->K + bk, S->cap)) return -1;
            continue;
        }
        /* following a packing: only what it puts at (bq, bk) from f on */
        int held = S->guide ? follow_floor(S, bq, bk, f, base, &nc) : 0;
        if (held < 0) {
            undo_to(S, mark);
            return 0;
        }
        /* branch: each candidate (they are in size order already) */
        for (uint32_t x = 0; x < nc && (!S->guide || held); x++) {
            ocand oc = S->ocands[base + x];
            int r = place_and_recurse(S, oc.node, oc.opt, f, ka, kb);
            if (r != 0) return r;
        }
        if (held) {
            undo_to(S, mark);
            return 0;
        }
        /* branch: (bq, bk) stays empty at f. A node landing at f now may
         * still end up there later, resting on a node placed from now on (at
         * f or above) that overlaps it: its bottom is then at least f plus
         * the smallest such node. So the floor rises to the lowest of those
         * bounds and of the heights where the other nodes land already.
         * The greedy variant skips straight to where the other nodes land:
         * it may miss packings, so it only ever proves feasibility. */
        for (uint32_t x = 0; x < nc && !S->greedy_skip; x++) {
            uint32_t j = S->ocands[base + x].node;
            int64_t step = S->cap;
            for (uint32_t k = S->nodes[j].s0; k <= S->nodes[j].s1; k++)
                for (uint32_t y = 0; y < S->ncover[k]; y++) {
                    uint32_t m = S->cover[k][y];
                    if (m != j && !S->placed[m] && S->nodes[m].size < step) step = S->nodes[m].size;
                }
            if (f + step < next) next = f + step;
        }
        if (!set_floor(S, bq * S->K + bk, next)) return -1;
        if (!section_ok(S, bk)) {
            undo_to(S, mark);
            return 0;
        }
        S->visited++;
        if (++S->work > S->budget) {
            S->exhausted = true;
            return -1;
        }
    }
}


/* ---- the time sweep -------------------------------------------------------
 * Nodes are placed in order of their first section, all those starting in
 * section k before any starting later. A node placed so far starts at or
 * before k, so it meets a node starting at k iff it is live at k: whether a
 * place is free needs only the occupancy of section k. In k, the lowest free
 * address over the quarters is taken; every node starting there that fits at
 * it (in an option covering that quarter) is a branch, largest first; the
 * last branch gives that free run up for section k. Pruning: the free,
 * not given-up bytes of section k must hold the nodes still to start there.
 * Where every section is full to the capacity (zero slack), nothing can be
 * given up, every node rests at the bottom of a free run, and the sweep is
 * complete; elsewhere it is a heuristic, so it only ever proves a packing.
 * Its strength is locality: a choice is checked against its own section at
 * once, where the floor searches meet a wrong choice far away. */
typedef struct sw_iv {
    int64_t lo, hi;
    uint32_t q;            /* quarter; for given-up room also its section in k */
    uint32_t k;
} sw_iv;

static int cmp_iv(const void *a, const void *b)
{
    const sw_iv *x = a, *y = b;
    if (x->q != y->q) return x->q < y->q ? -1 : 1;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static bool sw_push(sx *S, sw_iv **v, uint32_t *n, uint32_t *cap, sw_iv iv)
{
    if (!sba_arena_grow(S->ar, (void **)v, cap, *n + 1, sizeof **v)) return false;
    (*v)[(*n)++] = iv;
    return true;
}

/* Whether [at, at + size) is clear in quarter q of the sorted intervals
 * iv[0..n) (grouped by quarter). */
static bool sw_clear(const sw_iv *iv, uint32_t n, uint32_t q, int64_t at, int64_t size)
{
    for (uint32_t x = 0; x < n; x++) {
        if (iv[x].q != q) continue;
        if (iv[x].lo >= at + size) break;
        if (iv[x].hi > at) return false;
    }
    return true;
}

/* Whether node i with option o at `at` misses every fixed rectangle. */
static bool sw_misses_fixed(const sx *S, uint32_t i, uint32_t o, int64_t at)
{
    const sx_node *nd = &S->nodes[i];
    for (uint32_t x = 0; x < S->nfixed; x++) {
        const sx_fixed *fx = &S->fixed[x];
        if ((fx->qmask & nd->qmask[o]) && fx->s0 <= nd->s1 && nd->s0 <= fx->s1 && at < fx->hi &&
            fx->lo < at + nd->size)
            return false;
    }
    return true;
}


static int cmp_iv_lo(const void *a, const void *b)
{
    const sw_iv *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* The longest run of addresses free in every quarter of mask m among the
 * intervals iv[0..n) (sorted by lo; q holds each one's quarter mask). */
static int64_t sw_longest(const sx *S, const sw_iv *iv, uint32_t n, uint32_t m)
{
    int64_t cur = 0, best = 0;
    for (uint32_t x = 0; x < n; x++) {
        if (!(iv[x].q & m)) continue;
        if (iv[x].lo - cur > best) best = iv[x].lo - cur;
        if (iv[x].hi > cur) cur = iv[x].hi;
    }
    return S->cap - cur > best ? S->cap - cur : best;
}

/* Look-ahead after node j was placed in section k: every node still to
 * start while j is live must find, at its first section, a run of free
 * addresses as long as itself in the quarters of one of its options. The
 * nodes placed so far all start at or before k, so those that meet such a
 * node are live at its first section: if no run is long enough there now,
 * none will be. Without this a wrong choice is met only when the sweep
 * reaches that section. */
static int sw_ahead(sx *S, uint32_t j, uint32_t k)
{
    const sx_node *nd = &S->nodes[j];
    for (uint32_t k2 = k + 1; k2 <= nd->s1 && k2 < S->K; k2++) {
        if (!S->nstart[k2]) continue;
        uint32_t base = S->nivs;
        for (uint32_t x = 0; x < S->ncover[k2]; x++) {
            uint32_t i = S->cover[k2][x];
            if (!S->placed[i]) continue;
            if (!sw_push(S, &S->ivs, &S->nivs, &S->capivs,
                         (sw_iv){S->off[i], S->off[i] + S->nodes[i].size, S->nodes[i].qmask[S->opt[i]], k2}))
                return -1;
        }
        for (uint32_t x = 0; x < S->nfcover[k2]; x++) {
            const sx_fixed *fx = &S->fixed[S->fcover[k2][x]];
            if (!sw_push(S, &S->ivs, &S->nivs, &S->capivs, (sw_iv){fx->lo, fx->hi, fx->qmask, k2})) return -1;
        }
        uint32_t n = S->nivs - base;
        S->work += 4 * ((uint64_t)n + S->ncover[k2]); /* the sort and the run scans cost more than one unit each */
        sw_iv *iv = n ? S->ivs + base : NULL; /* ivs is NULL while nothing was pushed */
        if (n > 1) qsort(iv, n, sizeof *iv, cmp_iv_lo);
        int64_t run[MASKS];
        for (uint32_t m = 0; m < MASKS; m++) run[m] = -1;
        bool ok = true;
        for (uint32_t x = 0; x < S->ncover[k2] && ok; x++) {
            uint32_t i = S->cover[k2][x];
            const sx_node *ni = &S->nodes[i];
            if (S->placed[i] || ni->s0 != k2) continue;
            bool fits = false;
            for (uint32_t o = 0; o < ni->nopt && !fits; o++) {
                uint32_t m = ni->qmask[o];
                if (run[m] < 0) run[m] = sw_longest(S, iv, n, m);
                fits = run[m] >= ni->size;
            }
            ok = fits;
        }
        S->nivs = base;
        if (!ok) return 0;
        if (S->work > S->budget) {
            S->exhausted = true;
            return -1;
        }
    }
    return 1;
}

static int sweep(sx *S, uint32_t k)
{
    while (k < S->K && !S->nstart[k]) k++;
    if (k >= S->K) return 1;
    if (!tick(S)) return -1;
    /* the occupancy of section k: placed nodes, fixed rectangles, given-up room */
    uint32_t base = S->nivs;
    for (uint32_t x = 0; x < S->ncover[k]; x++) {
        uint32_t j = S->cover[k][x];
        if (!S->placed[j]) continue;
        for (uint32_t q = 0; q < S->Q; q++)
            if (S->nodes[j].qmask[S->opt[j]] & (1u << q) &&
                !sw_push(S, &S->ivs, &S->nivs, &S->capivs, (sw_iv){S->off[j], S->off[j] + S->nodes[j].size, q, k}))
                return -1;
    }
    for (uint32_t x = 0; x < S->nfcover[k]; x++) {
        const sx_fixed *fx = &S->fixed[S->fcover[k][x]];
        for (uint32_t q = 0; q < S->Q; q++)
            if ((fx->qmask & (1u << q)) && !sw_push(S, &S->ivs, &S->nivs, &S->capivs, (sw_iv){fx->lo, fx->hi, q, k}))
                return -1;
    }
    for (uint32_t x = S->nclosed; x-- > 0 && S->closed[x].k == k;)
        if (!sw_push(S, &S->ivs, &S->nivs, &S->capivs, S->closed[x])) return -1;
    uint32_t n = S->nivs - base;
    S->work += 4 * ((uint64_t)n + S->ncover[k]); /* the sort and the scans cost more than one unit each */
    sw_iv *iv = n ? S->ivs + base : NULL; /* ivs is NULL while nothing was pushed */
    if (n > 1) qsort(iv, n, sizeof *iv, cmp_iv);
    /* free bytes and the lowest free address of each quarter */
    int64_t free_bytes = 0, low = S->cap, lowtop = S->cap;
    uint32_t lowq = 0;
    for (uint32_t q = 0; q < S->Q; q++) {
        int64_t cur = 0, first = -1, firsttop = S->cap;
        for (uint32_t x = 0; x < n; x++) {
            const sw_iv *v = &iv[x];
            if (v->q != q) continue;
            if (v->lo > cur) {
                free_bytes += v->lo - cur;
                if (first < 0) first = cur, firsttop = v->lo;
            }
            if (v->hi > cur) cur = v->hi;
        }
        if (cur < S->cap) {
            free_bytes += S->cap - cur;
            if (first < 0) first = cur, firsttop = S->cap;
        }
        if (first >= 0 && first < low) low = first, lowtop = firsttop, lowq = q;
    }
    int64_t need = 0;
    for (uint32_t x = 0; x < S->ncover[k]; x++) {
        uint32_t j = S->cover[k][x];
        if (!S->placed[j] && S->nodes[j].s0 == k) need += S->nodes[j].size * S->nodes[j].weight;
    }
    int r = 0;
    if (need > free_bytes || low >= S->cap) {
        S->nivs = base;
        return 0;
    }
    /* branch: each node starting here that fits at (lowq, low) */
    for (uint32_t x = 0; x < S->ncover[k] && r == 0; x++) {
        uint32_t j = S->cover[k][x];
        const sx_node *nd = &S->nodes[j];
        if (S->placed[j] || nd->s0 != k || low + nd->size > S->cap) continue;
        for (uint32_t o = 0; o < nd->nopt && r == 0; o++) {
            if (!(nd->qmask[o] & (1u << lowq))) continue;
            bool fits = true;
            for (uint32_t q = 0; q < S->Q && fits; q++)
                if (nd->qmask[o] & (1u << q)) fits = sw_clear(iv, n, q, low, nd->size);
            if (!fits || (S->nfixed && !sw_misses_fixed(S, j, o, low))) continue;
            S->placed[j] = true, S->off[j] = low, S->opt[j] = o;
            S->nstart[k]--;
            S->nleft--;
            r = sw_ahead(S, j, k);
            if (r == 1) r = sweep(S, k);
            if (r != 1) {
                S->placed[j] = false;
                S->nstart[k]++;
                S->nleft++;
            }
        }
    }
    if (r == 0) {
        /* give the free run up for this section */
        uint32_t mark = S->nclosed;
        if (!sw_push(S, &S->closed, &S->nclosed, &S->capclosed, (sw_iv){low, lowtop, lowq, k})) r = -1;
        else r = sweep(S, k);
        S->nclosed = mark;
    }
    S->nivs = base;
    return r;
}

/* ---- setting up one part ------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t section_of(const uint64_t *pts, uint32_t np, uint64_t t)
{
    uint32_t lo = 0, hi = np;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (pts[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

uint32_t sb_kept_sections(uint32_t K, const uint32_t *s0, const uint32_t *s1, uint32_t n, uint8_t *events,
                          uint32_t *rank)
{
    memset(events, 0, K);
    for (uint32_t x = 0; x < n; x++) events[s0[x]] |= 1, events[s1[x]] |= 2;
    rank[0] = 0;
    for (uint32_t k = 0; k < K; k++) rank[k + 1] = rank[k] + (events[k] == 3);
    return rank[K];
}

static uint8_t quarters_at(int32_t base, int64_t partitions)
{
    return (uint8_t)sb_quarter_mask(base, partitions);
}

/* The widest lifespan the orders tell apart (bytes × width stays in range). */
#define WIDTH_MAX ((int64_t)1 << 31)

/* A node's lifespan width for the orders (MiniMalloc's W, and its A = bytes
 * × W) in the time of the problem the function comes from, where both its
 * ends carry one (import-csv keeps MiniMalloc's times: a buffer alive over
 * many steps with few events between weighs as it does there); 0 where they
 * do not. */
static int64_t time_width(const sb_ctx *c, const sb_node *nd)
{
    const bir_inst *a = c->lin.points[nd->start].inst, *b = c->lin.points[nd->end].inst;
    if (!a->has_time || !b->has_time || b->time < a->time) return 0;
    uint64_t d = (uint64_t)b->time - (uint64_t)a->time;
    return d < (uint64_t)WIDTH_MAX ? (int64_t)d + 1 : WIDTH_MAX;
}

/* Whether the node's rectangle holds quarter 0 wherever it goes: where
 * every one does, any two share partitions and one band is exact (1-D). */
static bool in_quarter0(const sb_node *nd)
{
    return nd->precoloured ? quarters_at(nd->base, nd->partitions) & 1u : nd->partitions > 64;
}

/* Whether every node of ids[0..n) holds quarter 0 (one exact band: 1-D). */
static bool one_band(const sb_ctx *c, const uint32_t *ids, uint32_t n)
{
    for (uint32_t x = 0; x < n; x++)
        if (!in_quarter0(&c->info[ids[x]])) return false;
    return true;
}

/* The candidate orders of the portfolio, each a key compared largest first:
 * area; earlier start; later end (each then longer); and MiniMalloc's three
 * (W the lifespan's width, A area in bytes × width, T the heaviest section's
 * total demand; see time_width). */
enum { ORDER_AREA = 0, ORDER_START, ORDER_END, ORDER_WAT, ORDER_TAW, ORDER_TWA, ORDER_COUNT };

typedef struct order_key {
    int64_t k[3];
    uint32_t idx;
} order_key;

static int cmp_key(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x->k[i] != y->k[i]) return x->k[i] > y->k[i] ? -1 : 1;
    return x->idx < y->idx ? -1 : 1;
}

/* Nodes are identical when they cover the same sections with the same size
 * and options (unused option slots are zero); sorted by those, each run of
 * equals shares one twin, its first. */
static int cmp_shape(const sx_node *x, const sx_node *y)
{
    if (x->s0 != y->s0) return x->s0 < y->s0 ? -1 : 1;
    if (x->s1 != y->s1) return x->s1 < y->s1 ? -1 : 1;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    int d = memcmp(x->qmask, y->qmask, sizeof x->qmask);
    return d ? d : memcmp(x->base, y->base, sizeof x->base);
}

static int cmp_twin(const void *a, const void *b)
{
    const sx_node *x = *(const sx_node *const *)a, *y = *(const sx_node *const *)b;
    int d = cmp_shape(x, y);
    return d ? d : x < y ? -1 : x > y;
}

static bool find_twins(sx *S, sba_arena *ar)
{
    uint32_t n = S->nleft;
    const sx_node **by = sba_arena_array(ar, (size_t)n + 1, sizeof *by);
    S->twin = sba_arena_array(ar, (size_t)n + 1, sizeof *S->twin);
    S->failed_in = sba_arena_array(ar, (size_t)n * MAX_OPTIONS + 1, sizeof *S->failed_in);
    S->failed_at = sba_arena_array(ar, (size_t)n * MAX_OPTIONS + 1, sizeof *S->failed_at);
    if (!by || !S->twin || !S->failed_in || !S->failed_at) return false;
    for (uint32_t i = 0; i < n; i++) by[i] = &S->nodes[i];
    qsort(by, n, sizeof *by, cmp_twin);
    for (uint32_t x = 0, first = 0; x < n; x++) {
        const sx_node *u = by[x];
        if (!x || cmp_shape(by[x - 1], u)) first = (uint32_t)(u - S->nodes);
        S->twin[u - S->nodes] = first;
    }
    S->work += n;
    return true;
}

/* One run: its search (KIND_*), the order of its nodes (ORDER_*), and a
 * seed that perturbs that order (0: none). */
typedef struct sx_run {
    int kind;
    uint32_t order, seed; /* the strips alone: seed 0, or a restart's (order_seed) */
    uint32_t scale;       /* the strips alone: their bounds × this */
    bool mirrored;        /* the part with time mirrored (a packing of it is one of the part) */
} sx_run;

/* Squeaky-wheel restarts (Joslin and Clements, JAIR 1999): a restart moves
 * each node up its order by 1/BLAME_STEPS of the nodes for every earlier
 * greedy run of the part that left it out where it got furthest. The
 * nodes that were hard to place are then tried first at the places they
 * land, while the rest keeps its order. */
enum { BLAME_STEPS = 16 };

/* A restart's order: every key moved by up to PERTURB_PERCENT of itself,
 * from a stream of the run's seed, so that nodes of nearly equal keys come
 * in another order at each restart, the same on every machine. */
#define PERTURB_PERCENT 5
static void perturb(order_key *key, sba_rng *rng)
{
    for (int z = 0; z < 3; z++) {
        double u = (double)(sba_rng_next(rng) >> 11) / 9007199254740992.0; /* [0, 1) */
        key->k[z] = (int64_t)((double)key->k[z] * (1 + PERTURB_PERCENT / 100.0 * (2 * u - 1)));
    }
}

/* A packing problem as the skyline runs take it: a part without slack is
 * cut first (strips.c); a 1-D tiling the cuts did not pack is searched by
 * its orders (refill.c), on three quarters of what is left (no cut splits
 * memory reused over time, and there the strips give up early); what is
 * left goes whole to the skyline. With `alone` (the runs with wide
 * bounds, and the strips filled section by section) the strips have it
 * all. With `relays`, the problem is read with its relays as one node each
 * (relay.c), and refill keeps apart the ones that wall it in (NONE where no
 * relay merges). Sets *pp->slack to 0 when it packs. */
static int pack_problem(const sb_pack_problem *pp, sba_arena *ar, uint64_t budget, bool alone, bool relays,
                        uint64_t *work, uint64_t *visited)
{
    sb_pack_problem rp;
    const sb_pack_problem *q = pp; /* what the strips and the skyline take */
    uint32_t *of = NULL;
    if (relays) {
        of = sba_arena_array(ar, (size_t)pp->n + 1, sizeof *of);
        uint32_t merged = of ? sb_relay_merge(pp, ar, &rp, of, NULL) : UINT32_MAX;
        if (merged == UINT32_MAX) return SB_PACK_NOMEM;
        if (!merged) return SB_PACK_NONE;
        q = &rp;
    }
    int sr = sb_strips_pack(q, ar->a, alone ? budget : budget / 2, work, visited);
    if (sr != SB_PACK_PACKED && sr != SB_PACK_NOMEM && pp->Q == 1 && !pp->nfixed && !alone && *work < budget) {
        uint64_t w1 = 0, v1 = 0, share = (budget - *work) / 4 * 3;
        sr = relays ? sb_relay_refill(pp, ar, share, &w1, &v1) : sb_refill_pack(pp, ar, share, &w1, &v1);
        *work += w1, *visited += v1;
        if (sr == SB_PACK_PACKED) q = pp; /* refill packed pp itself */
    }
    if (sr == SB_PACK_PACKED) *pp->slack = 0;
    if (sr != SB_PACK_PACKED && sr != SB_PACK_NOMEM && !alone) {
        uint64_t w2 = 0, v2 = 0;
        sr = sb_skyline_pack(q, ar, *work < budget ? budget - *work : 0, &w2, &v2);
        *work += w2, *visited += v2;
    }
    if (sr == SB_PACK_PACKED && q != pp) sb_relay_spread(&rp, of, pp);
    return sr;
}

/* Searches one part: the nodes ids[0..n) (representatives, some
 * precoloured). `blame` (NULL: not kept): per node id, how many greedy runs
 * of the part left it out where they got furthest, which a greedy run adds
 * to and a restart's order heeds (BLAME_STEPS). */
static int search_run(sb_ctx *c, sba_arena *ar, const uint32_t *ids, uint32_t n, sx_run run, uint32_t *blame, bool flip,
                      uint64_t budget, int64_t *slack)
{
    const uint32_t mode = run.order;
    const int kind = run.kind;
    /* sizes and addresses are multiples of the alignment: so is every top */
    sx S = {.c = c, .ar = ar, .cap = c->t->sbuf_bytes / c->t->sbuf_align * c->t->sbuf_align, .align = c->t->sbuf_align, .budget = budget,
            .greedy_skip = kind == KIND_GREEDY};
    uint64_t *pts = sba_arena_array(ar, (size_t)2 * n + 1, sizeof *pts);
    S.nodes = sba_arena_array(ar, (size_t)n + 1, sizeof *S.nodes);
    S.fixed = sba_arena_array(ar, (size_t)n + 1, sizeof *S.fixed);
    order_key *keys = sba_arena_array(ar, (size_t)n + 1, sizeof *keys);
    if (!pts || !S.nodes || !S.fixed || !keys) return -1;
    uint32_t np = 0;
    const bool all_full = one_band(c, ids, n);
    for (uint32_t x = 0; x < n; x++) {
        const sb_node *nd = &c->info[ids[x]];
        pts[np++] = nd->start;
        pts[np++] = (uint64_t)nd->end + 1;
    }
    qsort(pts, np, sizeof *pts, cmp_u64);
    uint32_t u = 0;
    for (uint32_t x = 0; x < np; x++)
        if (!u || pts[x] != pts[u - 1]) pts[u++] = pts[x];
    /* sections between end points, then only those sb_kept_sections keeps */
    uint32_t *raw0 = sba_arena_array(ar, (size_t)n + 1, sizeof *raw0);
    uint32_t *raw1 = sba_arena_array(ar, (size_t)n + 1, sizeof *raw1);
    uint32_t *rank = sba_arena_array(ar, u + 1, sizeof *rank);
    uint32_t *width = sba_arena_array(ar, (size_t)n + 1, sizeof *width); /* per node: raw sections, for the orders */
    int64_t *timew = sba_arena_array(ar, (size_t)n + 1, sizeof *timew);  /* and its time width */
    uint8_t *events = sba_arena_array(ar, u + 1, sizeof *events);
    if (!raw0 || !raw1 || !rank || !width || !timew || !events) return -1;
    for (uint32_t x = 0; x < n; x++) {
        const sb_node *nd = &c->info[ids[x]];
        raw0[x] = section_of(pts, u, nd->start), raw1[x] = section_of(pts, u, (uint64_t)nd->end + 1) - 1;
    }
    S.K = sb_kept_sections(u - 1, raw0, raw1, n, events, rank);
    S.Q = all_full ? 1 : SBA_BANDS;
    S.guide = (kind == KIND_ADDRESS || kind == KIND_FLOOR || kind == KIND_SKYLINE) && !flip ? c->guide : NULL;
    uint32_t nn = 0;
    for (uint32_t x = 0; x < n; x++) {
        const sb_node *nd = &c->info[ids[x]];
        uint32_t s0 = rank[raw0[x]], s1 = rank[raw1[x] + 1] - 1;
        width[nn] = raw1[x] - raw0[x] + 1; /* a precoloured node's is overwritten by the next */
        timew[nn] = time_width(c, nd);
        if (kind == KIND_SWEEP_BACK || run.mirrored) {
            /* the sweep backwards in time, or a mirrored run: sections
             * mirrored (addresses do not depend on time's direction) */
            uint32_t t = s0;
            s0 = S.K - 1 - s1, s1 = S.K - 1 - t;
        }
        if (nd->precoloured) {
            int64_t lo = flip ? S.cap - nd->addr - nd->bytes : nd->addr;
            S.fixed[S.nfixed++] = (sx_fixed){s0, s1, quarters_at(nd->base, nd->partitions), lo, lo + nd->bytes};
            continue;
        }
        sx_node *sn = &S.nodes[nn];
        *sn = (sx_node){.id = ids[x], .s0 = s0, .s1 = s1, .size = nd->bytes};
        for (uint32_t k = 0; k < sb_height_bands(nd->height); k++) {
            int32_t base = (int32_t)sb_height_band_start(nd->height, k);
            if (!(nd->base_mask & (1u << (base / 32))) || base + nd->partitions > c->t->partitions) continue;
            sn->base[sn->nopt] = base;
            sn->qmask[sn->nopt] = all_full ? 1 : quarters_at(base, nd->partitions);
            sn->nopt++;
        }
        sn->weight = (uint32_t)__builtin_popcount(sn->qmask[0]);
        sn->kind = all_full ? DEMAND_FREE /* one band: the total says it all */
                   : sn->nopt == 1 ? DEMAND_ONE
                   : sn->nopt == 2 && sn->qmask[0] == 3 && sn->qmask[1] == 12 ? DEMAND_HALVES : DEMAND_FREE;
        nn++;
    }
    int64_t *total = sba_arena_array(ar, (size_t)S.K + 1, sizeof *total);
    if (!total) return -1;
    sba_rng rng = {run.seed * 0x9E3779B97F4A7C15ull + mode};
    /* widths in the problem's time only where every node has one (a
     * module may give times to some instructions only): the two measures
     * do not compare */
    bool timed = true;
    for (uint32_t i = 0; i < nn; i++) timed = timed && timew[i] > 0;
    for (uint32_t i = 0; i < nn; i++)
        for (uint32_t k = S.nodes[i].s0; k <= S.nodes[i].s1; k++) total[k] += S.nodes[i].size * S.nodes[i].weight;
    for (uint32_t i = 0; i < nn; i++) {
        const sx_node *sn = &S.nodes[i];
        const sb_node *nd = &c->info[sn->id];
        int64_t area = sn->size * sn->weight, len = nd->end - nd->start, w = width[i], t = 0;
        if (timed) w = timew[i], len = w - 1;
        for (uint32_t k = sn->s0; k <= sn->s1; k++)
            if (total[k] > t) t = total[k];
        order_key *key = &keys[i];
        *key = (order_key){{0}, i};
        switch (mode) {
        case ORDER_AREA: *key = (order_key){{area, len, 0}, i}; break;
        case ORDER_START: *key = (order_key){{-(int64_t)nd->start, len, 0}, i}; break;
        case ORDER_END: *key = (order_key){{(int64_t)nd->end, len, 0}, i}; break;
        case ORDER_WAT: *key = (order_key){{w, area * (len + 1), t}, i}; break;
        case ORDER_TAW: *key = (order_key){{t, area * (len + 1), w}, i}; break;
        default: *key = (order_key){{t, w, area * (len + 1)}, i}; break;
        }
        if (run.seed && kind != KIND_STRIPS_WIDE) perturb(key, &rng); /* the strips order their own */
    }
    /* Nodes in size order, so that candidates come out largest first. */
    qsort(keys, nn, sizeof *keys, cmp_key);
    const bool blamed = blame && kind == KIND_GREEDY;
    if (blamed && run.seed) {
        /* a restart: the nodes left out before move up (BLAME_STEPS) */
        int64_t step = nn / BLAME_STEPS ? nn / BLAME_STEPS : 1;
        for (uint32_t x = 0; x < nn; x++)
            keys[x].k[0] = (int64_t)blame[S.nodes[keys[x].idx].id] * step - x, keys[x].k[1] = keys[x].k[2] = 0;
        qsort(keys, nn, sizeof *keys, cmp_key);
    }
    sx_node *sorted = sba_arena_array(ar, (size_t)nn + 1, sizeof *sorted);
    if (!sorted) return -1;
    for (uint32_t x = 0; x < nn; x++) sorted[x] = S.nodes[keys[x].idx];
    S.nodes = sorted;
    S.nleft = nn;
    if (blamed) {
        if (!(S.left_out = sba_arena_array(ar, (size_t)nn + 1, sizeof *S.left_out))) return -1;
        S.fewest_left = nn;
        for (uint32_t i = 0; i < nn; i++) S.left_out[i] = true;
    }
    S.floor = sba_arena_array(ar, (size_t)S.Q * S.K + 1, sizeof *S.floor);
    S.rem = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.rem);
    S.dset = sba_arena_array(ar, (size_t)S.K * NSETS + 1, sizeof *S.dset);
    S.dhalf = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.dhalf);
    S.ncover = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.ncover);
    S.ucount = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.ucount);
    S.cross = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.cross);
    S.minland = sba_arena_array(ar, (size_t)S.Q * S.K + 1, sizeof *S.minland);
    S.pstack = sba_arena_array(ar, (size_t)nn + 1, sizeof *S.pstack);
    S.cover = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.cover);
    S.placed = sba_arena_array(ar, (size_t)nn + 1, sizeof *S.placed);
    S.off = sba_arena_array(ar, (size_t)nn + 1, sizeof *S.off);
    S.opt = sba_arena_array(ar, (size_t)nn + 1, sizeof *S.opt);
    if (!S.floor || !S.rem || !S.dset || !S.dhalf || !S.ncover || !S.ucount || !S.cross || !S.minland || !S.pstack || !S.cover || !S.placed || !S.off || !S.opt) return -1;
    for (uint32_t i = 0; i < nn; i++) {
        for (uint32_t k = S.nodes[i].s0; k <= S.nodes[i].s1; k++) {
            S.ncover[k]++;
            add_demand(&S, &S.nodes[i], k, 1);
            if (k < S.nodes[i].s1) S.cross[k]++;
        }
    }
    for (uint32_t k = 0; k < S.K; k++) {
        S.cover[k] = sba_arena_array(ar, (size_t)S.ncover[k] + 1, sizeof **S.cover);
        if (!S.cover[k]) return -1;
        S.ucount[k] = S.ncover[k];
        S.ncover[k] = 0;
    }
    for (uint32_t i = 0; i < nn; i++)
        for (uint32_t k = S.nodes[i].s0; k <= S.nodes[i].s1; k++) S.cover[k][S.ncover[k]++] = i;
    /* the nodes by first section (counting sort: by rank among equals) */
    S.by_start = sba_arena_array(ar, (size_t)nn + 1, sizeof *S.by_start);
    S.first_at = sba_arena_array(ar, (size_t)S.K + 2, sizeof *S.first_at);
    S.next = sba_arena_array(ar, (size_t)S.K + 2, sizeof *S.next);
    S.lands = sba_arena_array(ar, (size_t)nn * MAX_OPTIONS + 1, sizeof *S.lands);
    if (!S.by_start || !S.first_at || !S.next || !S.lands) return -1;
    for (uint32_t i = 0; i < nn; i++) S.first_at[S.nodes[i].s0 + 1]++;
    for (uint32_t k = 0; k < S.K; k++) S.first_at[k + 1] += S.first_at[k];
    for (uint32_t i = 0; i < nn; i++) S.by_start[S.first_at[S.nodes[i].s0]++] = i;
    for (uint32_t k = S.K; k > 0; k--) S.first_at[k] = S.first_at[k - 1];
    S.first_at[0] = 0;
    /* the complete searches keep every node's landings up to date as
     * nodes are placed (as MiniMalloc keeps minimum offsets), where the
     * pairs of nodes that share a section are not too many to list: a
     * landing is then read, not recomputed over the node's sections */
    if (kind == KIND_ADDRESS || kind == KIND_FLOOR || kind == KIND_GREEDY) {
        uint64_t pairs = 0;
        for (uint32_t i = 0; i < nn; i++) pairs += S.first_at[S.nodes[i].s1 + 1] - S.first_at[S.nodes[i].s0];
        if (pairs <= NEIGHBOUR_PAIRS) {
            S.nbr_of = sba_arena_array(ar, (size_t)nn + 2, sizeof *S.nbr_of);
            S.nbr = sba_arena_array(ar, (size_t)2 * pairs + 1, sizeof *S.nbr);
            S.raw = sba_arena_array(ar, (size_t)nn * MAX_OPTIONS + 1, sizeof *S.raw);
            if (!S.nbr_of || !S.nbr || !S.raw) return -1;
            /* i meets j when one starts within the other's sections */
            for (uint32_t i = 0; i < nn; i++)
                for (uint32_t x = S.first_at[S.nodes[i].s0]; x < S.first_at[S.nodes[i].s1 + 1]; x++) {
                    uint32_t j = S.by_start[x];
                    if (j == i || (S.nodes[j].s0 == S.nodes[i].s0 && j < i)) continue;
                    S.nbr_of[i + 2]++, S.nbr_of[j + 2]++;
                }
            for (uint32_t i = 0; i < nn; i++) S.nbr_of[i + 2] += S.nbr_of[i + 1];
            for (uint32_t i = 0; i < nn; i++)
                for (uint32_t x = S.first_at[S.nodes[i].s0]; x < S.first_at[S.nodes[i].s1 + 1]; x++) {
                    uint32_t j = S.by_start[x];
                    if (j == i || (S.nodes[j].s0 == S.nodes[i].s0 && j < i)) continue;
                    S.nbr[S.nbr_of[i + 1]++] = j, S.nbr[S.nbr_of[j + 1]++] = i;
                }
            S.inc = true;
        }
        if (kind == KIND_ADDRESS && !find_twins(&S, ar)) return -1;
    }
    S.fcover = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.fcover);
    S.nfcover = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.nfcover);
    if (!S.fcover || !S.nfcover) return -1;
    for (uint32_t x = 0; x < S.nfixed; x++)
        for (uint32_t k = S.fixed[x].s0; k <= S.fixed[x].s1; k++) S.nfcover[k]++;
    for (uint32_t k = 0; k < S.K; k++) {
        if (!S.nfcover[k]) continue;
        if (!(S.fcover[k] = sba_arena_array(ar, S.nfcover[k], sizeof **S.fcover))) return -1;
        S.nfcover[k] = 0;
    }
    for (uint32_t x = 0; x < S.nfixed; x++)
        for (uint32_t k = S.fixed[x].s0; k <= S.fixed[x].s1; k++) S.fcover[k][S.nfcover[k]++] = x;
    bool bound_ok = true;
    for (uint32_t k = 0; k < S.K; k++) bound_ok &= section_ok(&S, k);
    int r = 0;
    if (kind == KIND_SKYLINE && S.Q == 1 && !S.guide) return OUTCOME_BUDGET; /* the band run was this one */
    if (bound_ok && kind >= KIND_SKYLINE) {
        sb_pack_node *pn = sba_arena_array(ar, (size_t)nn + 1, sizeof *pn);
        if (!pn) return -1;
        for (uint32_t i = 0; i < nn; i++) {
            const sx_node *sn = &S.nodes[i];
            pn[i] = (sb_pack_node){.s0 = sn->s0, .s1 = sn->s1, .size = sn->size, .nopt = sn->nopt};
            memcpy(pn[i].qmask, sn->qmask, sizeof pn[i].qmask);
            /* first try: every node takes its whole band, so quarters a node
             * of fewer partitions leaves free are given up with it */
            if ((kind == KIND_SKYLINE_BANDS || kind == KIND_STRIPS_WIDE || kind == KIND_RELAY || kind == KIND_FILLS) &&
                S.Q > 1)
                for (uint32_t o = 0; o < sn->nopt; o++)
                    pn[i].qmask[o] = quarters_at(sn->base[o], sb_height_band_width(c->info[sn->id].height));
        }
        sb_pack_problem pp = {.K = S.K, .Q = S.Q, .n = nn, .nfixed = S.nfixed, .nodes = pn, .fixed = S.fixed,
                              .cap = S.cap, .align = S.align, .seed = 0x5b1a5eedull + mode, .off = S.off, .opt = S.opt};
        if (S.Q == 1 && !S.nfixed && !run.mirrored) {
            /* the room of every raw section: holes that end and start a
             * few points apart are read apart (strips.c, Slack); the raw
             * sections are read forwards */
            int64_t *room = sba_arena_array(ar, u, sizeof *room);
            if (!room) return -1;
            for (uint32_t x = 0; x < n; x++)
                if (!c->info[ids[x]].precoloured)
                    room[raw0[x]] += c->info[ids[x]].bytes, room[raw1[x] + 1] -= c->info[ids[x]].bytes;
            int64_t load = 0;
            for (uint32_t x = 0; x + 1 < u; x++) load += room[x], room[x] = S.cap - load;
            pp.raw_room = room, pp.raw_rank = rank, pp.raw_K = u - 1;
        }
        uint64_t work = 0, visited = 0;
        int64_t left_over = -1;
        bool slack_cut = false;
        pp.slack = &left_over, pp.slack_cut = &slack_cut;
        int sr;
        if (S.guide) {
            /* following a packing: the skyline alone, on its addresses */
            pp.guide_at = sba_arena_array(ar, (size_t)nn + 1, sizeof *pp.guide_at);
            pp.guide_opt = sba_arena_array(ar, (size_t)nn + 1, sizeof *pp.guide_opt);
            if (!pp.guide_at || !pp.guide_opt) return -1;
            for (uint32_t i = 0; i < nn; i++) {
                const sx_node *sn = &S.nodes[i];
                pp.guide_at[i] = S.guide->addr[sn->id];
                pp.guide_opt[i] = sn->nopt;
                for (uint32_t o = 0; o < sn->nopt; o++)
                    if (sn->base[o] == S.guide->base[sn->id]) pp.guide_opt[i] = o;
            }
            sr = sb_skyline_pack(&pp, ar, budget, &work, &visited);
        } else {
            const bool wide = kind == KIND_STRIPS_WIDE || kind == KIND_STRIPS_LIGHT;
            pp.scale = wide ? run.scale : 1;
            pp.order_seed = wide ? run.seed : 0;
            pp.light = kind == KIND_STRIPS_LIGHT;
            pp.section_fills = kind == KIND_FILLS;
            pp.drawn = kind == KIND_DRAWN;
            sr = pack_problem(&pp, ar, budget, wide || kind == KIND_FILLS || kind == KIND_DRAWN, kind == KIND_RELAY,
                              &work, &visited);
            if (kind == KIND_SKYLINE_BANDS) *slack = slack_cut ? SLACK_CUT : left_over;
        }
        S.work = work, S.visited = visited;
        r = sr == SB_PACK_PACKED ? 1 : sr == SB_PACK_NOMEM ? -1 : 0;
    } else if (bound_ok && kind >= KIND_SWEEP) {
        if (!(S.nstart = sba_arena_array(ar, (size_t)S.K + 1, sizeof *S.nstart))) return -1;
        for (uint32_t i = 0; i < nn; i++) S.nstart[S.nodes[i].s0]++;
        r = sweep(&S, 0);
    } else if (bound_ok) {
        r = kind == KIND_ADDRESS ? dfs_address(&S, 0, S.K - 1) : dfs(&S, 0, S.K - 1);
    }
    if (blamed && r != 1)
        for (uint32_t i = 0; i < nn; i++) blame[S.nodes[i].id] += S.left_out[i];
    c->rep->search_nodes += S.visited;
    c->search_left -= S.work < c->search_left ? S.work : c->search_left;
    if (ar->failed) return -1; /* out of memory, whatever the search said after */
    if (r == 1) {
        for (uint32_t i = 0; i < nn; i++) {
            sb_node *nd = &c->info[S.nodes[i].id];
            nd->base = S.nodes[i].base[S.opt[i]];
            nd->addr = flip ? S.cap - S.off[i] - S.nodes[i].size : S.off[i];
            nd->placed = true;
            nd->spill = false;
        }
        return OUTCOME_PACKED;
    }
    if (r == 0 && (kind == KIND_GREEDY || kind >= KIND_SWEEP)) return OUTCOME_BUDGET; /* proves nothing */
    return S.exhausted ? OUTCOME_BUDGET : r == 0 ? OUTCOME_INFEASIBLE : -1;
}

/* One run of the portfolio on a part, in an arena of its own. */
static int search_part(sb_ctx *c, const uint32_t *ids, uint32_t n, sx_run run, uint32_t *blame, bool flip, uint64_t budget,
                       int64_t *slack)
{
    sba_arena ar;
    sba_arena_init(&ar, c->ar.a);
    int r = search_run(c, &ar, ids, n, run, blame, flip, budget, slack);
    sba_arena_free(&ar);
    return r;
}

uint64_t sb_search_budget(const sba_alloc_options *o) { return o->search_budget ? o->search_budget : DEFAULT_BUDGET; }

/* Whether the part's precoloured rectangles weigh (bytes × time) more in
 * the upper half of the SBUF than in the lower. The searches fill from
 * address 0 up, so they then run on the mirrored SBUF (address a of size s
 * at capacity - a - s), where the places the fixed rectangles constrain are
 * decided first rather than last. */
static bool fixed_above_middle(const sb_ctx *c, const uint32_t *ids, uint32_t n)
{
    double moment = 0;
    for (uint32_t x = 0; x < n; x++) {
        const sb_node *nd = &c->info[ids[x]];
        if (!nd->precoloured) continue;
        double w = (double)nd->bytes * (double)(nd->end - nd->start + 1) * (double)nd->partitions;
        moment += w * ((double)nd->addr + (double)nd->bytes / 2 - (double)c->t->sbuf_bytes / 2);
    }
    return moment > 0;
}

/* The runs tried on a part, as the header schedules them, until one packs
 * or proves it cannot: the skyline search packs most zero-slack parts at
 * once, and its band run the mixed heights whose partition counts leave
 * quarters free; the greedy skip is fast where a packing exists; the
 * lowest-floor search is strongest on zero-slack 1-D parts; the address
 * search on mixed heights and on parts with a little slack. */
static const sx_run PLAN[] = {
    {KIND_SKYLINE_BANDS, ORDER_AREA, 0, 0, false}, {KIND_SKYLINE, ORDER_AREA, 0, 0, false},
    {KIND_GREEDY, ORDER_AREA, 0, 0, false},        {KIND_GREEDY, ORDER_START, 0, 0, false},
    {KIND_GREEDY, ORDER_END, 0, 0, false},         {KIND_GREEDY, ORDER_TWA, 0, 0, false},
    {KIND_GREEDY, ORDER_TAW, 0, 0, false},         {KIND_GREEDY, ORDER_WAT, 0, 0, false},
    {KIND_SWEEP, ORDER_AREA, 0, 0, false},         {KIND_SWEEP_BACK, ORDER_AREA, 0, 0, false},
    {KIND_ADDRESS, ORDER_TWA, 0, 0, false},        {KIND_FLOOR, ORDER_AREA, 0, 0, false},
    {KIND_ADDRESS, ORDER_AREA, 0, 0, false},       {KIND_FLOOR, ORDER_START, 0, 0, false},
    {KIND_ADDRESS, ORDER_TAW, 0, 0, false},        {KIND_FLOOR, ORDER_END, 0, 0, false},
    {KIND_ADDRESS, ORDER_WAT, 0, 0, false},        {KIND_STRIPS_WIDE, ORDER_AREA, 0, 0, false},
    {KIND_RELAY, ORDER_AREA, 0, 0, false},         {KIND_STRIPS_LIGHT, ORDER_AREA, 0, 0, false},
    {KIND_FILLS, ORDER_AREA, 0, 0, false},         {KIND_DRAWN, ORDER_AREA, 0, 0, false},
};
enum { PLAN_LEN = sizeof PLAN / sizeof PLAN[0] };
/* The first round's limit per complete run, in work units. */
#define ROUND_ROBIN_START ((uint64_t)1 << 20)
/* Rounds of restarts of the greedy runs (see sb_search_packing). */
enum { GREEDY_RESTARTS = 8 };
/* The largest part whose padding is read at random: in larger ones the
 * right readings are too rare to be drawn (none of 95 drawn on a part of
 * 678 nodes, or of 612 on one of 450), and its searches, the strips',
 * are the slowest units (the failing functions of 1,000 and 2,000
 * tensors with 5 % holes took up to 75 % longer with it). */
enum { DRAWN_NODES = 512 };

/* The index in PLAN of the run of a kind that has one. */
static uint32_t plan_index(int kind)
{
    uint32_t p = 0;
    while (PLAN[p].kind != kind) p++;
    return p;
}

/* The runs that can only pack: the skyline searches, the greedy runs and
 * the time sweeps. */
static bool pack_only(int kind) { return kind == KIND_GREEDY || kind >= KIND_SWEEP; }

/* The last complete run of the plan: it takes all that is left. */
static uint32_t last_complete(void)
{
    uint32_t p = PLAN_LEN - 1;
    while (p > 0 && pack_only(PLAN[p].kind)) p--;
    return p;
}

/* The runs of the round robin: the address search in MiniMalloc's orders. */
static bool in_round_robin(uint32_t p)
{
    return PLAN[p].kind == KIND_ADDRESS &&
           (PLAN[p].order == ORDER_TWA || PLAN[p].order == ORDER_TAW || PLAN[p].order == ORDER_WAT);
}

/* A run on a part, on `share`; what it used comes off *left. A greedy run
 * reads and adds to the part's `blame` (search_run). */
static int run_one(sb_ctx *c, const uint32_t *ids, uint32_t n, sx_run run, uint32_t *blame, bool flip,
                   uint64_t share, uint64_t *left, int64_t *band_slack)
{
    uint64_t before = c->search_left;
    int r = search_part(c, ids, n, run, blame, flip, share, band_slack);
    uint64_t used = before - c->search_left;
    *left -= used < *left ? used : *left;
    return r;
}

/* Run p of the plan, its order perturbed by `seed` (0: none). */
static int run_plan(sb_ctx *c, const uint32_t *ids, uint32_t n, uint32_t p, uint32_t seed, uint32_t *blame,
                    bool flip, uint64_t share, uint64_t *left, int64_t *band_slack)
{
    sx_run run = PLAN[p];
    run.seed = seed;
    return run_one(c, ids, n, run, blame, flip, share, left, band_slack);
}

/* The keys (start, node) in start order, their nodes into ids. */
static void ids_by_start(order_key *keys, uint32_t m, uint32_t *ids)
{
    qsort(keys, m, sizeof *keys, cmp_key); /* -start descending = start ascending */
    for (uint32_t x = 0; x < m; x++) ids[x] = keys[x].idx;
}

/* The end of the part of ids (in start order) that begins at a: where the
 * live set empties. *reach: the part's last point. */
static uint32_t part_end(const sb_ctx *c, const uint32_t *ids, uint32_t m, uint32_t a, uint32_t *reach)
{
    uint32_t b = a + 1;
    *reach = c->info[ids[a]].end;
    for (; b < m && c->info[ids[b]].start <= *reach; b++)
        if (c->info[ids[b]].end > *reach) *reach = c->info[ids[b]].end;
    return b;
}

uint32_t sb_parts(sb_ctx *c, uint32_t *ids, uint32_t *m, uint32_t *from)
{
    order_key *keys = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *keys);
    if (!keys) return UINT32_MAX;
    *m = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->info[i].rep == i) keys[*m] = (order_key){{-(int64_t)c->info[i].start, 0, 0}, i}, ++*m;
    ids_by_start(keys, *m, ids);
    uint32_t np = 0, reach;
    for (uint32_t a = 0; a < *m; a = part_end(c, ids, *m, a, &reach)) from[np++] = a;
    from[np] = *m;
    return np;
}

/* A part: ids[a .. b) of sb_parts's order. */
typedef struct part_span {
    uint32_t a, b;
} part_span;

/* Smallest first; equal sizes in program order. */
static int cmp_span(const void *x, const void *y)
{
    const part_span *p = x, *q = y;
    if (p->b - p->a != q->b - q->a) return p->b - p->a < q->b - q->a ? -1 : 1;
    return (p->a > q->a) - (p->a < q->a);
}

sba_status sb_search_packing(sb_ctx *c, bool *packed)
{
    *packed = false;
    /* Parts: representatives sorted by start; a part ends where the live set empties. */
    uint32_t *ids = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *ids), m = 0;
    uint32_t *from = sba_arena_array(&c->ar, (size_t)c->n + 2, sizeof *from);
    part_span *fail = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *fail);
    uint32_t *blame = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *blame); /* search_run */
    uint32_t np = ids && from && fail && blame ? sb_parts(c, ids, &m, from) : UINT32_MAX;
    if (np == UINT32_MAX) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    /* The parts where select failed, the smallest first; each gets a fair
     * share of what is left, so what one that packs at once leaves goes to
     * those after it, the large ones that need it. */
    uint32_t nfailing = 0, outcome = 0;
    bool all = true;
    for (uint32_t p = 0; p < np; p++) {
        uint32_t a = from[p], b = from[p + 1];
        bool failed = false;
        for (uint32_t x = a; x < b; x++) failed |= c->info[ids[x]].spill;
        if (failed) fail[nfailing++] = (part_span){a, b};
    }
    qsort(fail, nfailing, sizeof *fail, cmp_span);
    /* This iteration leaves an eighth of what is left to the next: after
     * spill code the function is easier, and must still be searched. */
    uint64_t pool = c->search_left - c->search_left / 8, spent = 0;
    for (uint32_t x = 0; x < nfailing; x++) {
        uint32_t a = fail[x].a, b = fail[x].b;
        /* The portfolio (PLAN), as the header says. */
        uint64_t left = (pool - (spent < pool ? spent : pool)) / (nfailing - x), at_start = c->search_left;
        int r = OUTCOME_BUDGET;
        bool flip = fixed_above_middle(c, ids + a, b - a);
        int64_t band_slack = -1; /* the skyline's, every node in its whole band, or SLACK_CUT */
        uint32_t p = 0, last = 0;
        const uint64_t total = left;
        bool mirrored = false; /* a run on the part with time mirrored ended its search */
        /* the quick runs first, each on a sixty-fourth (the time sweeps
         * on less): the skyline searches, the greedy runs. A 2-D part with
         * no slack also gets the skyline by bands with time mirrored (a
         * packing of that part is one of the part): bottom-left in the
         * other direction, it meets its dead ends elsewhere. */
        for (p = 0; p < PLAN_LEN && r == OUTCOME_BUDGET && left > 0; p++) {
            if (!pack_only(PLAN[p].kind) || PLAN[p].kind == KIND_STRIPS_WIDE || PLAN[p].kind == KIND_RELAY ||
                PLAN[p].kind == KIND_STRIPS_LIGHT || PLAN[p].kind == KIND_FILLS || PLAN[p].kind == KIND_DRAWN)
                continue;
            bool sweep = PLAN[p].kind == KIND_SWEEP || PLAN[p].kind == KIND_SWEEP_BACK;
            r = run_plan(c, ids + a, b - a, p, 0, blame, flip, sweep ? left / 128 : left / 64, &left, &band_slack);
            last = p;
            if (PLAN[p].kind == KIND_SKYLINE_BANDS && band_slack == 0 && !one_band(c, ids + a, b - a) &&
                r == OUTCOME_BUDGET && left > 0) {
                sx_run run = PLAN[p];
                run.mirrored = true;
                r = run_one(c, ids + a, b - a, run, blame, flip, left / 64, &left, &band_slack);
                band_slack = 0, mirrored = r != OUTCOME_BUDGET; /* the plan reads the slack forwards */
            }
        }
        /* A part with no slack at all, every node in its whole band, is
         * the skyline search's (nothing may be left empty there, which
         * makes it the strongest, and its cuts apply): half of what is
         * left, before the complete searches. So is a 1-D part with a
         * little slack that the strips cut (strips.c, Slack): on planted
         * 1-D functions of 350-700 tensors with 2-8 % of the tiling left
         * out, 22 of 32 pack this way, 14 on the quick run's share. */
        const bool tight = band_slack == 0 || band_slack == SLACK_CUT, zero = band_slack == 0;
        /* A 2-D part with no slack then gets the strips by bands again,
         * checking each section of a set as their sweep completes it
         * (strips.c, Fills), on a quarter of what is left: dense parts,
         * where most sets of a strip's load do not fill the quarters, are
         * cut so; elsewhere the checks cost what the plain strips would
         * spend on the sets. The strips alone: the skyline by bands that
         * took half of the run after them was the quick run's again (the
         * same part, order and seed), which only went a little further;
         * the strips of large dense parts need more than an eighth. */
        if (zero && !one_band(c, ids + a, b - a) && r == OUTCOME_BUDGET && left > 0)
            r = run_plan(c, ids + a, b - a, plan_index(KIND_FILLS), 0, blame, flip, left / 4, &left, &band_slack),
            last = plan_index(KIND_FILLS);
        /* A part with no slack at all then gets its relays read as one
         * node each (relay.c), on an eighth of what is left: where memory
         * is handed from one tensor to the next of its size, the merged
         * part is one the cuts or the skyline finish although no cut
         * splits the part itself (2-D walls, which refill, 1-D only,
         * cannot take). It can only pack; on a part with a little slack
         * the runs after it need the eighth. A 1-D part gets half: its
         * merged part goes to refill, whose restarts need the share, and
         * the 1-D tilings the cuts take pack in the quick runs. */
        if (zero && r == OUTCOME_BUDGET && left > 0)
            r = run_plan(c, ids + a, b - a, plan_index(KIND_RELAY), 0, blame, flip,
                         one_band(c, ids + a, b - a) ? left / 2 : left / 8, &left, &band_slack),
            last = plan_index(KIND_RELAY);
        /* On a 2-D part, the merged part once more with time mirrored,
         * on an eighth: its strips and skyline search the other way. (A
         * 1-D merged part goes to refill, whose orders follow the handing
         * on of memory forwards: mirrored, the walls the benchmark plants
         * spill.) */
        if (zero && !one_band(c, ids + a, b - a) && r == OUTCOME_BUDGET && left > 0) {
            sx_run run = PLAN[plan_index(KIND_RELAY)];
            run.mirrored = true;
            r = run_one(c, ids + a, b - a, run, blame, flip, left / 8, &left, &band_slack);
            last = plan_index(KIND_RELAY), mirrored = r != OUTCOME_BUDGET;
        }
        for (p = 0; tight && p < PLAN_LEN && r == OUTCOME_BUDGET && left > 0; p++)
            if (PLAN[p].kind == KIND_SKYLINE_BANDS)
                r = run_plan(c, ids + a, b - a, p, 0, blame, flip, left / 2, &left, &band_slack), last = p;
        /* Then, on a part with no slack, the strips alone, their bounds
         * 4, 16, 64 and 256 times wider, each on a third of what is left,
         * then restarted at 16 times, each restart on an eighth: where a
         * cut was missed (a seed's steps and tries spent on wrong sets of
         * the right load, a split's work on a wrong side), more of each
         * finds it, but so much more of a wrong branch can take it all;
         * a restart leaves some items out first (strips.c, Bounds). The
         * searches after seldom pack a large part without slack. On a 1-D
         * part the strips cut with a little slack, once, 16 times wider,
         * on a quarter: there the greedy restarts after need the rest. */
        uint32_t seed = 0, scale = 0;
        for (uint32_t w = 0; tight && w < (zero ? STRIPS_LADDER_LEN : 1) && r == OUTCOME_BUDGET && left > 0; w++) {
            sx_run run = {KIND_STRIPS_WIDE, ORDER_AREA, 0, zero ? STRIPS_LADDER[w] : STRIPS_WIDE, false};
            r = run_one(c, ids + a, b - a, run, blame, flip, zero ? left / 3 : left / 4, &left, &band_slack);
            last = plan_index(KIND_STRIPS_WIDE), scale = run.scale;
        }
        for (uint32_t s = 1; zero && s <= STRIPS_RESTARTS && r == OUTCOME_BUDGET && left > 0; s++) {
            sx_run run = {KIND_STRIPS_WIDE, ORDER_AREA, s, STRIPS_WIDE, false};
            r = run_one(c, ids + a, b - a, run, blame, flip, left / 8, &left, &band_slack);
            last = plan_index(KIND_STRIPS_WIDE), scale = run.scale, seed = s;
        }
        /* Restarts of the greedy runs, each order perturbed by a seed:
         * where a packing exists the greedy skip finds it fast or not at
         * all, and which order finds it is a matter of near ties among the
         * keys, and of the nodes left out before (BLAME_STEPS). Each run on a sixty-fourth of what is left, while that is
         * at least the round robin's first limit (below it a restart does
         * too little to be worth what the complete runs lose). */
        for (uint32_t s = 1; s <= GREEDY_RESTARTS && r == OUTCOME_BUDGET && left / 64 >= ROUND_ROBIN_START; s++)
            for (p = 0; p < PLAN_LEN && r == OUTCOME_BUDGET && left > 0; p++)
                if (PLAN[p].kind == KIND_GREEDY)
                    r = run_plan(c, ids + a, b - a, p, s, blame, flip, left / 64, &left, &band_slack), last = p, seed = s,
                    scale = 0;
        /* A 1-D part the strips cut with a little slack, of at most
         * DRAWN_NODES nodes: its padding read at random, reading after
         * reading (strips.c, Drawn), on a quarter of what is left. After
         * the greedy restarts: before them, or before the strips alone, it
         * took what packed others. */
        if (band_slack == SLACK_CUT && b - a <= DRAWN_NODES && r == OUTCOME_BUDGET && left > 0)
            r = run_plan(c, ids + a, b - a, plan_index(KIND_DRAWN), 0, blame, flip, left / 4, &left, &band_slack),
            last = plan_index(KIND_DRAWN), seed = scale = 0;
        /* A 1-D part the strips cut with a little slack: the strips once
         * more, every set's items left first (strips.c, Light), on a
         * quarter of what is left. After the greedy restarts, which pack
         * others of these parts on what they get. */
        if (band_slack == SLACK_CUT && r == OUTCOME_BUDGET && left > 0)
            r = run_plan(c, ids + a, b - a, plan_index(KIND_STRIPS_LIGHT), 0, blame, flip, left / 4, &left, &band_slack),
            last = plan_index(KIND_STRIPS_LIGHT), seed = scale = 0;
        /* MiniMalloc's round robin: its three address orders, every run
         * of a round on the same limit, doubled each round while it is at
         * most a sixteenth of the part's budget. Which order suits a part
         * cannot be told in advance, and a search's time is heavy-tailed
         * in it: a poor order costs no more than a good one's search at
         * the same scale. */
        for (uint64_t limit = ROUND_ROBIN_START; r == OUTCOME_BUDGET && left > 0 && limit <= total / 16; limit *= 2)
            for (p = 0; p < PLAN_LEN && r == OUTCOME_BUDGET && left > 0; p++) {
                if (!in_round_robin(p)) continue;
                r = run_plan(c, ids + a, b - a, p, 0, blame, flip, limit < left ? limit : left, &left, &band_slack);
                last = p, seed = scale = 0;
            }
        /* then each complete run in turn on half of what is left: an order
         * that needs a deep search gets it */
        for (p = 0; p < PLAN_LEN && r == OUTCOME_BUDGET && left > 0; p++) {
            if (pack_only(PLAN[p].kind)) continue;
            uint64_t share = p < last_complete() ? left / 2 : left;
            r = run_plan(c, ids + a, b - a, p, 0, blame, flip, share, &left, &band_slack);
            last = p, seed = scale = 0;
        }
        p = last + 1;
        /* Out of memory is its own outcome: taken for a spent budget, it
         * would give a different (spilled) allocation without a word. */
        if (r < 0) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory in the exact packer");
        static const char *const kinds[] = {"greedy", "lowest-floor", "address-order", "time sweep",
                                            "time sweep backwards", "skyline", "skyline by bands",
                                            "strips alone", "relays merged", "strips, lightest sets first",
                                            "strips by bands, filled section by section",
                                            "strips on paddings drawn at random"};
        static const char *const orders[] = {"area", "start", "end", "W-A-T", "T-A-W", "T-W-A"};
        char how[96]; /* the strips alone have no order, but bounds */
        if (scale)
            snprintf(how, sizeof how, "bounds x%u%s", scale, seed ? ", restart " : "");
        else
            snprintf(how, sizeof how, "%s order%s", orders[PLAN[p - 1].order], seed ? " perturbed by seed " : "");
        char restart[64] = "";
        if (seed) snprintf(restart, sizeof restart, scale ? "%u" : "%u, left out first", seed);
        sb_log(c, "search: part of %u nodes %s (run %u: %s, %s%s%s%s) after %llu search nodes (work left %llu)",
               b - a,
               r == OUTCOME_PACKED ? "packed" : r == OUTCOME_INFEASIBLE ? "proved infeasible" : "exhausted its budget",
               p, kinds[PLAN[p - 1].kind], how, restart, flip ? ", mirrored" : "", mirrored ? ", time mirrored" : "",
               (unsigned long long)c->rep->search_nodes, (unsigned long long)c->search_left);
        spent += at_start - c->search_left;
        if (r != OUTCOME_PACKED) all = false;
        if (r > (int)outcome) outcome = (uint32_t)r;
    }
    if (outcome > c->rep->search_outcome) c->rep->search_outcome = outcome;
    *packed = all;
    return SBA_OK;
}

/* ---- repair ----------------------------------------------------------------
 * Where select (and the search, if it ran) left a few nodes unplaced in a
 * function otherwise placed — typically reloads and stores that spill code
 * made, at points where the live bytes fill the SBUF — the rest of the
 * placement is kept: a window of nodes around the unplaced ones is searched
 * again, every other node it meets held where it is as a fixed rectangle.
 * The windows, in turn: the unplaced nodes and their neighbours; then, for
 * widths of 4, 16, 64 and 256 program points, every node whose whole live
 * range lies within that distance of an unplaced one's (where the live bytes
 * fill the SBUF a node can move only if the nodes around it can). Without
 * it the spill fixpoint spills one node per iteration around such points,
 * each iteration placing the function anew. */
enum { REPAIR_MAX_FAILED = 16, REPAIR_MAX_WINDOW = 256, REPAIR_WINDOWS = 5, INSERT_MAX_FAILED = 1024 };

/* Marks with role 1 the window of width w (0: the neighbours) around the
 * unplaced node `only`, or around every unplaced node (UINT32_MAX); the
 * number of its nodes, or UINT32_MAX when it is too large. */
static uint32_t repair_window(sb_ctx *c, uint8_t *role, uint32_t w, uint32_t only)
{
    memset(role, 0, c->n);
    uint32_t nw = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const sb_node *nd = &c->info[i];
        if (nd->rep != i || nd->precoloured || nd->placed || (only != UINT32_MAX && i != only)) continue;
        role[i] = 1;
        if (w == 0)
            for (uint32_t k = 0; k < nd->degree; k++) {
                uint32_t j = c->info[nd->adj[k]].rep;
                if (!c->info[j].precoloured && c->info[j].placed) role[j] = 1;
            }
    }
    if (w > 0)
        for (uint32_t i = 0; i < c->n; i++) {
            const sb_node *f = &c->info[i];
            if (role[i] != 1 || f->placed) continue;
            uint32_t lo = f->start > w ? f->start - w : 0, hi = f->end + w;
            for (uint32_t j = 0; j < c->n; j++) {
                const sb_node *nd = &c->info[j];
                if (nd->rep == j && !nd->precoloured && nd->placed && lo <= nd->start && nd->end <= hi) role[j] = 1;
            }
        }
    for (uint32_t i = 0; i < c->n; i++) nw += role[i] == 1;
    return nw <= REPAIR_MAX_WINDOW ? nw : UINT32_MAX;
}

/* Searches the window marked with role 1 again: every other placed node in
 * its time holds its place (role 2 while the runs last), the unplaced ones
 * outside it wait. Per window: the skyline (exact quarters, then whole
 * bands) and the complete search in address order, each on `share`. */
static int search_window(sb_ctx *c, uint32_t *ids, uint8_t *role, uint64_t share)
{
    static const int kinds[] = {KIND_SKYLINE, KIND_SKYLINE_BANDS, KIND_ADDRESS};
    uint32_t n = 0, lo = UINT32_MAX, hi = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (role[i] == 1) {
            ids[n++] = i;
            if (c->info[i].start < lo) lo = c->info[i].start;
            if (c->info[i].end > hi) hi = c->info[i].end;
        }
    for (uint32_t i = 0; i < c->n; i++) {
        sb_node *nd = &c->info[i];
        if (nd->rep != i || role[i] || nd->end < lo || hi < nd->start || !(nd->placed || nd->precoloured))
            continue;
        if (!nd->precoloured) role[i] = 2, nd->precoloured = true;
        ids[n++] = i;
    }
    bool flip = fixed_above_middle(c, ids, n);
    int r = OUTCOME_BUDGET;
    for (uint32_t y = 0; y < 3 && r == OUTCOME_BUDGET; y++) {
        int64_t slack;
        r = search_part(c, ids, n, (sx_run){kinds[y], ORDER_AREA, 0, 0, false}, NULL, flip, share, &slack);
        if (r == OUTCOME_INFEASIBLE) r = OUTCOME_BUDGET; /* this window only: a wider one may pack */
    }
    for (uint32_t i = 0; i < c->n; i++)
        if (role[i] == 2) c->info[i].precoloured = false;
    return r;
}

/* Repairs the windows around `only` (or every unplaced node), widening, each
 * on `share` per run. The outcome; *tried and *nw the windows searched and
 * the last one's size. */
static int repair_windows(sb_ctx *c, uint32_t only, uint32_t *ids, uint8_t *role, uint64_t share,
                          uint32_t *tried, uint32_t *nw)
{
    static const uint32_t widths[REPAIR_WINDOWS] = {0, 4, 16, 64, 256};
    int r = OUTCOME_BUDGET;
    for (uint32_t x = 0; x < REPAIR_WINDOWS && r == OUTCOME_BUDGET && share > 0; x++) {
        uint32_t size = repair_window(c, role, widths[x], only);
        if (size == UINT32_MAX) break;
        *nw = size, ++*tried;
        r = search_window(c, ids, role, share);
    }
    return r;
}

sba_status sb_search_repair(sb_ctx *c, bool *packed)
{
    *packed = false;
    uint32_t nf = 0;
    for (uint32_t i = 0; i < c->n; i++) nf += c->info[i].rep == i && !c->info[i].precoloured && !c->info[i].placed;
    if (!nf || nf > REPAIR_MAX_FAILED) return SBA_OK;
    uint32_t *ids = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *ids);
    uint8_t *role = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *role); /* 1 window, 2 held */
    if (!ids || !role) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    uint64_t budget = c->repair_left < REPAIR_BUDGET ? c->repair_left : REPAIR_BUDGET, saved = c->search_left;
    c->search_left = budget; /* the runs draw on the repair's own budget */
    uint32_t nw = 0, tried = 0;
    int r = repair_windows(c, UINT32_MAX, ids, role, budget / (REPAIR_WINDOWS * 3), &tried, &nw);
    c->repair_left -= budget - c->search_left;
    c->search_left = saved;
    if (r < 0) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory in the exact packer");
    sb_log(c, "search: repair of %u unplaced nodes (%u windows, the last of %u nodes) %s", nf, tried, nw,
           r == OUTCOME_PACKED ? "packed" : "failed");
    *packed = r == OUTCOME_PACKED;
    if (*packed && c->rep->search_outcome < OUTCOME_PACKED) c->rep->search_outcome = OUTCOME_PACKED;
    return SBA_OK;
}

/* ---- insertion -------------------------------------------------------------
 * Where the search of a part ran out, select's placement of it stands, with
 * many nodes unplaced: too many for one repair. They are put in one at a
 * time, largest area (bytes × partitions × live range) first, each by a
 * repair of its own windows (in 1-D its box windows first, see below):
 * the placed nodes around it move, everything else holds, the other
 * unplaced nodes wait. Rounds repeat while one puts
 * something in, as every node put in changes the windows of the others. A
 * large-neighbourhood search that only ever adds: every node it places is
 * one less to spill. (Taking a smaller neighbour out to put a larger node in
 * lowered the unplaced area but spilled more nodes on the planted families
 * with holes, so it is not done.) It has an allowance of its own, apart
 * from the repair's: the iterations after spill code live on the repair. */
typedef struct insert_key {
    uint64_t area;
    uint32_t id;
} insert_key;

static int cmp_insert(const void *a, const void *b)
{
    const insert_key *x = a, *y = b;
    if (x->area != y->area) return x->area > y->area ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Box windows (1-D). A time window holds every node live around the
 * unplaced one, the whole height of the SBUF: dozens of nodes, too many
 * for the search to finish on its share, so on the 1-D functions with
 * holes most insertions ran out. A box window holds a few: the unplaced
 * node u taken at an address a, the placed nodes live beside it whose
 * bytes meet [a - h, a + size + h), and (ring 1) the placed nodes live
 * beside those that meet it too; every other node holds. It makes room for
 * u at a where few nodes must move, or shows at once that they cannot. The
 * addresses tried are where u's bottom or top meets a neighbour's, the
 * cheapest first (the bytes × live range of the nodes in the way; a
 * precoloured one rules the address out); the shapes, narrowest first:
 * (ring 0, h 0), (ring 1, h = size), (ring 1, h = 3 × size). A window of
 * the same nodes as one searched before is skipped. Each window's search
 * gets a BOX_SHARE-th of a time window's share; the time windows follow on
 * what is left. In 2-D a box frees the nodes of every band
 * around the address: on 4 failing functions it spilled 7–21 more, so
 * there only the time windows run. */
enum { BOX_ADDRS = 6, BOX_SHAPES = 3, BOX_SHARE = 4 };

typedef struct box_cand {
    int64_t at;
    uint64_t cost;
} box_cand;

static int cmp_box(const void *a, const void *b)
{
    const box_cand *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static bool bytes_meet(const sb_node *nd, int64_t lo, int64_t hi) { return nd->addr < hi && lo < nd->addr + nd->bytes; }

/* The cost of taking u at `at` (UINT64_MAX: a precoloured node is there). */
static uint64_t box_cost(const sb_ctx *c, const sb_node *u, int64_t at)
{
    uint64_t cost = 0;
    for (uint32_t k = 0; k < u->degree; k++) {
        const sb_node *v = &c->info[c->info[u->adj[k]].rep];
        if (!(v->placed || v->precoloured) || !bytes_meet(v, at, at + u->bytes)) continue;
        if (v->precoloured) return UINT64_MAX;
        cost += (uint64_t)v->bytes * (uint64_t)(v->end - v->start + 1);
    }
    return cost;
}

/* Up to BOX_ADDRS addresses for u, cheapest first, into out; their count. */
static uint32_t box_addrs(const sb_ctx *c, uint32_t u, box_cand *cand, box_cand *out)
{
    const sb_node *nu = &c->info[u];
    const int64_t align = c->t->sbuf_align, top = c->t->sbuf_bytes / align * align - nu->bytes;
    uint32_t nc = 0;
    if (top < 0) return 0;
    cand[nc++] = (box_cand){0, 0}, cand[nc++] = (box_cand){top, 0};
    for (uint32_t k = 0; k < nu->degree; k++) {
        const sb_node *v = &c->info[c->info[nu->adj[k]].rep];
        if (!(v->placed || v->precoloured)) continue;
        const int64_t at[4] = {v->addr, v->addr + v->bytes, v->addr + v->bytes - nu->bytes, v->addr - nu->bytes};
        for (uint32_t y = 0; y < 4; y++)
            if (at[y] >= 0 && at[y] <= top && at[y] % align == 0) cand[nc++] = (box_cand){at[y], 0};
    }
    for (uint32_t x = 0; x < nc; x++) cand[x].cost = box_cost(c, nu, cand[x].at);
    qsort(cand, nc, sizeof *cand, cmp_box);
    uint32_t m = 0;
    for (uint32_t x = 0; x < nc && m < BOX_ADDRS && cand[x].cost != UINT64_MAX; x++)
        if (!m || cand[x].at != out[m - 1].at) out[m++] = cand[x];
    return m;
}

/* Marks with role 1 the box window of u at [lo, hi) (ring 0 or 1); its
 * size, or UINT32_MAX when it is too large (as a time window's bound). */
static uint32_t box_window(sb_ctx *c, uint8_t *role, uint32_t u, int64_t lo, int64_t hi, uint32_t ring)
{
    memset(role, 0, c->n);
    role[u] = 1;
    uint32_t nw = 1;
    for (uint32_t k = 0; k < c->info[u].degree; k++) {
        uint32_t j = c->info[c->info[u].adj[k]].rep;
        const sb_node *v = &c->info[j];
        if (!role[j] && v->placed && !v->precoloured && bytes_meet(v, lo, hi)) role[j] = 1, nw++;
    }
    if (ring)
        for (uint32_t k = 0; k < c->info[u].degree; k++) {
            uint32_t j = c->info[c->info[u].adj[k]].rep;
            if (role[j] != 1) continue;
            for (uint32_t l = 0; l < c->info[j].degree; l++) {
                uint32_t w = c->info[c->info[j].adj[l]].rep;
                const sb_node *v = &c->info[w];
                if (!role[w] && v->placed && !v->precoloured && bytes_meet(v, lo, hi)) role[w] = 3, nw++;
            }
        }
    for (uint32_t i = 0; i < c->n; i++)
        if (role[i] == 3) role[i] = 1;
    return nw <= REPAIR_MAX_WINDOW ? nw : UINT32_MAX;
}

/* Puts u in by its box windows, each search on `share`: the outcome. */
static int box_windows(sb_ctx *c, uint32_t u, uint32_t *ids, uint8_t *role, box_cand *cand, uint64_t share)
{
    static const struct {
        uint32_t ring, widen;
    } shapes[BOX_SHAPES] = {{0, 0}, {1, 1}, {1, 3}};
    box_cand best[BOX_ADDRS];
    const uint32_t na = box_addrs(c, u, cand, best);
    const int64_t s = c->info[u].bytes;
    int r = OUTCOME_BUDGET;
    uint64_t seen[BOX_SHAPES * BOX_ADDRS];
    uint32_t nseen = 0;
    for (uint32_t y = 0; y < BOX_SHAPES && r == OUTCOME_BUDGET; y++)
        for (uint32_t x = 0; x < na && r == OUTCOME_BUDGET && share > 0; x++) {
            const int64_t h = s * shapes[y].widen;
            if (box_window(c, role, u, best[x].at - h, best[x].at + s + h, shapes[y].ring) == UINT32_MAX) continue;
            /* the same nodes from another address: searched already */
            uint64_t key = 0;
            for (uint32_t i = 0; i < c->n; i++)
                if (role[i] == 1) key += sba_mix64(i + 1);
            bool again = false;
            for (uint32_t z = 0; z < nseen && !again; z++) again = seen[z] == key;
            if (again) continue;
            seen[nseen++] = key;
            r = search_window(c, ids, role, share);
        }
    return r;
}

sba_status sb_search_insert(sb_ctx *c, bool *packed)
{
    *packed = false;
    insert_key *keys = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *keys);
    uint32_t *ids = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *ids);
    uint8_t *role = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *role);
    box_cand *cand = sba_arena_array(&c->ar, 4 * (size_t)c->n + 2, sizeof *cand); /* box_addrs */
    if (!keys || !ids || !role || !cand) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    bool one_band = true;
    for (uint32_t i = 0; i < c->n && one_band; i++)
        if (c->info[i].rep == i) one_band = in_quarter0(&c->info[i]);
    uint32_t nf = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const sb_node *nd = &c->info[i];
        if (nd->rep == i && !nd->precoloured && !nd->placed)
            keys[nf++] = (insert_key){(uint64_t)nd->bytes * (uint64_t)nd->partitions *
                                      (uint64_t)(nd->end - nd->start + 1), i};
    }
    if (!nf || nf > INSERT_MAX_FAILED) return SBA_OK;
    qsort(keys, nf, sizeof *keys, cmp_insert);
    uint64_t budget = c->insert_left, saved = c->search_left;
    c->search_left = budget; /* the runs draw on the insertion's allowance */
    uint32_t left = nf, rounds = 0;
    int r = OUTCOME_BUDGET;
    for (uint32_t before = UINT32_MAX; left && left < before && c->search_left > 0 && r >= 0; rounds++) {
        before = left;
        uint32_t keep = 0;
        for (uint32_t x = 0; x < left; x++) {
            uint32_t nw = 0, tried = 0;
            uint64_t share = c->search_left / (left - x) / (REPAIR_WINDOWS * 3);
            if (r >= 0) r = one_band ? box_windows(c, keys[x].id, ids, role, cand, share / BOX_SHARE) : OUTCOME_BUDGET;
            if (r >= 0 && r != OUTCOME_PACKED) r = repair_windows(c, keys[x].id, ids, role, share, &tried, &nw);
            if (r != OUTCOME_PACKED) keys[keep++] = keys[x]; /* keeps the order */
        }
        left = keep;
    }
    uint64_t used = budget - c->search_left;
    c->insert_left -= used;
    c->search_left = saved;
    if (r < 0) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory in the exact packer");
    sb_log(c, "search: insertion put %u of %u unplaced nodes in, %u rounds (work %llu)", nf - left, nf, rounds,
           (unsigned long long)used);
    *packed = left == 0;
    if (*packed && c->rep->search_outcome < OUTCOME_PACKED) c->rep->search_outcome = OUTCOME_PACKED;
    return SBA_OK;
}

/* ---- following a packing -------------------------------------------------- */
sba_status sb_search_follow(sb_ctx *c, const sb_guide *g, sb_follow search, uint32_t *followed, uint32_t *parts)
{
    static const int kinds[] = {KIND_ADDRESS, KIND_FLOOR, KIND_SKYLINE};
    uint32_t *ids = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *ids), m = 0;
    uint32_t *from = sba_arena_array(&c->ar, (size_t)c->n + 2, sizeof *from);
    uint32_t np = ids && from ? sb_parts(c, ids, &m, from) : UINT32_MAX;
    if (np == UINT32_MAX) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    *followed = 0, *parts = np;
    c->guide = g;
    int r = OUTCOME_PACKED;
    for (uint32_t p = 0; p < np && r >= 0; p++) {
        int64_t slack;
        c->search_left = UINT64_MAX;
        r = search_part(c, ids + from[p], from[p + 1] - from[p], (sx_run){kinds[search], ORDER_AREA, 0, 0, false}, NULL, false,
                        UINT64_MAX / 2, &slack);
        *followed += r == OUTCOME_PACKED;
    }
    c->guide = NULL;
    return r < 0 ? sba_err(c->err, SBA_ERR_NOMEM, "out of memory in the exact packer") : SBA_OK;
}

/* ---- the nodes spill code made ---------------------------------------------
 * Reloads and the def copies of spilled tensors cannot spill again: where
 * select, even with them first, leaves one unplaced, the function
 * allocates only if they fit together. They are searched alone: every
 * other node is unplaced (select puts them back around them, and spills
 * what does not fit), and each part of theirs where one was left runs the
 * plan, each run on a quarter of what is left of RESCUE_BUDGET, and a part
 * with no slack the strips with wide bounds after the skyline by bands
 * (the def copies of the tensors one instruction defines, all spilled,
 * partition the quarters exactly: the strips' band cuts and subset sums
 * take them apart, the other runs ran 56 such nodes out). They are
 * short, so their parts are small; the reloads of one instruction share
 * its point and are one section. The allowance is their own, not drawn
 * from the search budget: the iterations that make them come last, when
 * that may be spent. It is RESCUE_BUDGET per part and RESCUE_POOL per
 * function, so that a function whose fixpoint runs long still ends in
 * bounded work. */
#define RESCUE_BUDGET 200000000ull
#define RESCUE_POOL 1000000000ull

uint64_t sb_rescue_budget(void) { return RESCUE_POOL; }

sba_status sb_search_unspillable(sb_ctx *c)
{
    uint32_t *ids = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *ids), m = 0;
    uint32_t *part = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *part);
    order_key *keys = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *keys);
    if (!ids || !part || !keys) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < c->n; i++) {
        sb_node *nd = &c->info[i];
        if (nd->rep != i || nd->precoloured) continue;
        if (nd->unspillable) keys[m++] = (order_key){{-(int64_t)nd->start, 0, 0}, i};
        else nd->placed = false, nd->spill = false;
    }
    ids_by_start(keys, m, ids);
    uint64_t saved = c->search_left;
    uint32_t searched = 0, failed = 0, infeasible = 0;
    int r = OUTCOME_PACKED;
    for (uint32_t a = 0; a < m && r >= 0;) {
        uint32_t reach, b = part_end(c, ids, m, a, &reach), first = c->info[ids[a]].start;
        bool unplaced = false;
        for (uint32_t x = a; x < b; x++) unplaced |= !c->info[ids[x]].placed;
        if (unplaced) {
            /* the part, and the precoloured rectangles in its time */
            uint32_t n = 0;
            for (uint32_t x = a; x < b; x++) part[n++] = ids[x];
            for (uint32_t i = 0; i < c->n; i++) {
                const sb_node *nd = &c->info[i];
                if (nd->rep == i && nd->precoloured && nd->start <= reach && first <= nd->end) part[n++] = i;
            }
            bool flip = fixed_above_middle(c, part, n);
            uint64_t left = c->rescue_left < RESCUE_BUDGET ? c->rescue_left : RESCUE_BUDGET, given = left;
            r = OUTCOME_BUDGET;
            int64_t slack = -1;
            for (uint32_t p = 0; p < PLAN_LEN && r == OUTCOME_BUDGET && left > 0; p++) {
                if (PLAN[p].kind == KIND_STRIPS_WIDE) continue;
                c->search_left = left;
                r = search_part(c, part, n, PLAN[p], NULL, flip, p < last_complete() ? left / 4 : left, &slack);
                left = c->search_left;
                /* a part with no slack: the strips, with wide bounds */
                if (PLAN[p].kind == KIND_SKYLINE_BANDS && r == OUTCOME_BUDGET && slack == 0 && left > 0) {
                    sx_run run = {KIND_STRIPS_WIDE, ORDER_AREA, 0, STRIPS_WIDE, false};
                    r = search_part(c, part, n, run, NULL, flip, left / 4, &slack);
                    left = c->search_left;
                }
            }
            c->rescue_left -= given - left;
            searched++;
            failed += r != OUTCOME_PACKED;
            infeasible += r == OUTCOME_INFEASIBLE;
        }
        a = b;
    }
    c->search_left = saved;
    if (r < 0) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory in the exact packer");
    sb_log(c, "search: the nodes spill code made, alone: %u of %u parts packed, %u proved infeasible",
           searched - failed, searched, infeasible);
    return SBA_OK;
}

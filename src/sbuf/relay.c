/* relay: the exact packer's reading of memory handed from one tensor to the
 * next.
 *
 * An allocator that reuses freed memory most often gives a tensor that
 * starts the room of one that has just ended, where both are the same size:
 * the tiles of one shape that a loop makes one after another, or the room a
 * tensor frees taken whole by the next. Where, at a boundary between two
 * sections, exactly one node of a size and set of options ends and exactly
 * one of the same starts, the two are read as one node over both (a relay),
 * and so on down a chain: the merged problem has the same load in every
 * section, fewer nodes, and a packing of it is one of the problem (each
 * member at its chain's address and option). It may lose every packing
 * where the two lie apart, so it only packs; a run on it is one run among
 * the others (search.c). Refill on the merged problem keeps apart the
 * merges that wall it in (Walls, below).
 *
 * Requires: a packing problem (sb_pack_problem). Produces: the merged
 * problem and each node's chain; with refill, a packing. Complexity:
 * O(n log n) per merge; refill's, per round and probe. */
#include <stdlib.h>
#include <string.h>

#include "sbuf/sbuf.h"

/* A node at a boundary, keyed by size and options. */
typedef struct relay_key {
    const sb_pack_node *nd;
    uint32_t idx;
} relay_key;

static int cmp_node(const sb_pack_node *a, const sb_pack_node *b)
{
    if (a->size != b->size) return a->size < b->size ? -1 : 1;
    if (a->nopt != b->nopt) return a->nopt < b->nopt ? -1 : 1;
    return memcmp(a->qmask, b->qmask, a->nopt);
}

static int cmp_key(const void *x, const void *y)
{
    const relay_key *a = x, *b = y;
    int c = cmp_node(a->nd, b->nd);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

/* The end of the run of equal nodes at x in sorted keys[0 .. n). */
static uint32_t run_end(const relay_key *keys, uint32_t n, uint32_t x)
{
    uint32_t y = x + 1;
    while (y < n && !cmp_node(keys[y].nd, keys[x].nd)) y++;
    return y;
}

uint32_t sb_relay_merge(const sb_pack_problem *p, sba_arena *ar, sb_pack_problem *out, uint32_t *of,
                        const uint8_t *apart)
{
    const uint32_t n = p->n, K = p->K;
    uint32_t *end = sba_arena_array(ar, (size_t)n + 1, sizeof *end); /* a chain's last section */
    /* the chains ending at section k, a list through next (an absorbed
     * node stays in its own, skipped) */
    uint32_t *first = sba_arena_array(ar, (size_t)K + 1, sizeof *first);
    uint32_t *next = sba_arena_array(ar, (size_t)n + 1, sizeof *next);
    uint32_t *start_of = sba_arena_array(ar, (size_t)K + 2, sizeof *start_of);
    uint32_t *by_start = sba_arena_array(ar, (size_t)n + 1, sizeof *by_start);
    relay_key *ek = sba_arena_array(ar, (size_t)n + 1, sizeof *ek);
    relay_key *sk = sba_arena_array(ar, (size_t)n + 1, sizeof *sk);
    bool *absorbed = sba_arena_array(ar, (size_t)n + 1, sizeof *absorbed);
    if (!end || !first || !next || !start_of || !by_start || !ek || !sk || !absorbed) return UINT32_MAX;
    for (uint32_t k = 0; k < K; k++) first[k] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        of[i] = i, end[i] = p->nodes[i].s1;
        next[i] = first[end[i]], first[end[i]] = i;
        start_of[p->nodes[i].s0 + 1]++;
    }
    for (uint32_t k = 0; k < K; k++) start_of[k + 1] += start_of[k];
    for (uint32_t i = 0; i < n; i++) by_start[start_of[p->nodes[i].s0]++] = i;
    for (uint32_t k = K; k > 0; k--) start_of[k] = start_of[k - 1];
    start_of[0] = 0;
    /* In time order: the chains that end before boundary b meet the nodes
     * that start at it; a chain that takes one ends where its new node
     * does, so it is met again at that node's end. */
    uint32_t merged = 0;
    for (uint32_t b = 1; b < K; b++) {
        uint32_t ne = 0, ns = 0;
        for (uint32_t c = first[b - 1]; c != UINT32_MAX; c = next[c])
            if (!absorbed[c]) ek[ne++] = (relay_key){&p->nodes[c], c};
        first[b - 1] = UINT32_MAX;
        for (uint32_t x = start_of[b]; x < start_of[b + 1]; x++)
            sk[ns++] = (relay_key){&p->nodes[by_start[x]], by_start[x]};
        if (!ne || !ns || (apart && apart[b])) continue;
        qsort(ek, ne, sizeof *ek, cmp_key);
        qsort(sk, ns, sizeof *sk, cmp_key);
        for (uint32_t x = 0, y = 0; x < ne && y < ns;) {
            int c = cmp_node(ek[x].nd, sk[y].nd);
            uint32_t xe = run_end(ek, ne, x), ye = run_end(sk, ns, y);
            if (c < 0) { x = xe; continue; }
            if (c > 0) { y = ye; continue; }
            if (xe == x + 1 && ye == y + 1) {
                /* the only one of its kind on each side: one node */
                uint32_t h = ek[x].idx, j = sk[y].idx;
                absorbed[j] = true, of[j] = h, end[h] = p->nodes[j].s1;
                next[h] = first[end[h]], first[end[h]] = h;
                merged++;
            }
            x = xe, y = ye;
        }
    }
    if (!merged) return 0;
    /* The chains, in the order of their first nodes. */
    sb_pack_node *nodes = sba_arena_array(ar, (size_t)(n - merged) + 1, sizeof *nodes);
    uint32_t *idx = sba_arena_array(ar, (size_t)n + 1, sizeof *idx);
    if (!nodes || !idx) return UINT32_MAX;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (absorbed[i]) continue;
        nodes[m] = p->nodes[i];
        nodes[m].s1 = end[i];
        idx[i] = m++;
    }
    for (uint32_t i = 0; i < n; i++) of[i] = idx[of[i]];
    *out = *p;
    out->n = m;
    out->nodes = nodes;
    out->off = sba_arena_array(ar, (size_t)m + 1, sizeof *out->off);
    out->opt = sba_arena_array(ar, (size_t)m + 1, sizeof *out->opt);
    out->guide_at = NULL, out->guide_opt = NULL, out->reach = NULL;
    if (!out->off || !out->opt) return UINT32_MAX;
    return merged;
}

void sb_relay_spread(const sb_pack_problem *merged, const uint32_t *of, const sb_pack_problem *p)
{
    for (uint32_t i = 0; i < p->n; i++) p->off[i] = merged->off[of[i]], p->opt[i] = merged->opt[of[i]];
}

/* ---- walls ----------------------------------------------------------------
 * Refill on a problem whose relays are merged may meet a wall: a boundary no
 * run gets past whatever its ties, because a merge before it joined two
 * nodes that lie apart in every packing (planted walls of 2,000 tensors,
 * seed 3: 13,049 runs, every one stopped at boundary 31 of 500; with the
 * merges at boundary 8 kept apart, runs go on to 397). Each round searches
 * the merged problem on a quarter of what is left; where it stops at d,
 * the merges of a block of WALL_BLOCK boundaries up to d are kept apart
 * too, the latest block first, and a probe (a few runs' work) tells
 * whether refill then gets past d. A block that does is halved while one
 * half alone does, and kept apart from then on; the next round goes on from
 * there. Where no block gets past d, or after WALL_ROUNDS rounds, the last
 * round has all that is left; refill's runs are the same on the same
 * problem, so that round first goes over its round's runs again (at most a
 * quarter of the budget, and the probes as much). Keeping a merge apart
 * never loses a packing: the problem only gains nodes. */
enum { WALL_BLOCK = 16, WALL_ROUNDS = 16, WALL_PROBE_RUNS = 8, WALL_PROBE_SHARE = 16 };

/* Refill on p with its relays merged except at the boundaries apart (NULL:
 * none; where nothing merges, NONE, unless some are apart: then p itself),
 * within budget, adding what it spends; on PACKED, p holds the packing. */
static int refill_merged(const sb_pack_problem *p, const sba_allocator *a, const uint8_t *apart, uint64_t budget,
                         uint64_t *work, uint64_t *visited, sb_reach *reach)
{
    sba_arena ar;
    sba_arena_init(&ar, a);
    sb_pack_problem m;
    uint32_t *of = sba_arena_array(&ar, (size_t)p->n + 1, sizeof *of);
    const uint32_t merged = of ? sb_relay_merge(p, &ar, &m, of, apart) : UINT32_MAX;
    int r = merged == UINT32_MAX ? SB_PACK_NOMEM : SB_PACK_NONE;
    if (merged != UINT32_MAX && (merged || apart)) {
        uint64_t w = 0, v = 0;
        if (!merged) m = *p;
        m.reach = reach;
        r = sb_refill_pack(&m, &ar, budget, &w, &v);
        *work += w, *visited += v;
        if (r == SB_PACK_PACKED && merged) sb_relay_spread(&m, of, p);
    }
    sba_arena_free(&ar);
    return r;
}

/* Whether keeping apart the merges at boundaries lo .. hi as well takes
 * refill past boundary d on budget pb: 1 it does, 0 not, 2 it packed (p
 * holds the packing), -1 out of memory. */
static int passes(const sb_pack_problem *p, const sba_allocator *a, const uint8_t *apart, uint8_t *probe, uint32_t lo,
                  uint32_t hi, uint32_t d, uint64_t pb, uint64_t *work, uint64_t *visited)
{
    memcpy(probe, apart, (size_t)p->K + 1);
    memset(probe + lo, 1, (size_t)(hi - lo) + 1);
    sb_reach reach;
    int r = refill_merged(p, a, probe, pb, work, visited, &reach);
    return r == SB_PACK_PACKED ? 2 : r == SB_PACK_NOMEM ? -1 : reach.boundary > d;
}

int sb_relay_refill(const sb_pack_problem *p, sba_arena *ar, uint64_t budget, uint64_t *work, uint64_t *visited)
{
    *work = *visited = 0;
    uint8_t *apart = sba_arena_array(ar, (size_t)p->K + 1, sizeof *apart);
    uint8_t *probe = sba_arena_array(ar, (size_t)p->K + 1, sizeof *probe);
    if (!apart || !probe) return SB_PACK_NOMEM;
    bool kept = false;
    for (uint32_t round = 0;; round++) {
        const uint64_t left = budget > *work ? budget - *work : 0;
        if (!left) return SB_PACK_BUDGET;
        const uint64_t share = round == WALL_ROUNDS ? left : left / 4;
        sb_reach reach;
        int r = refill_merged(p, ar->a, kept ? apart : NULL, share, work, visited, &reach);
        if (r != SB_PACK_BUDGET || round == WALL_ROUNDS) return r;
        /* a probe has a few of this round's first runs, and probes as much as the round */
        const uint32_t d = reach.boundary;
        uint64_t pb = share / WALL_PROBE_SHARE;
        if (pb > WALL_PROBE_RUNS * reach.first_run) pb = WALL_PROBE_RUNS * reach.first_run;
        const uint64_t stop = *work + share;
        uint32_t lo = 0, hi = d;
        int x = 0;
        for (;; hi = lo - 1) {
            lo = hi + 1 > WALL_BLOCK ? hi + 1 - WALL_BLOCK : 0;
            x = passes(p, ar->a, apart, probe, lo, hi, d, pb, work, visited);
            if (x || !lo || *work >= stop || *work >= budget) break;
        }
        while (x == 1 && lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            int y = passes(p, ar->a, apart, probe, lo, mid, d, pb, work, visited);
            if (y == 1) {
                hi = mid;
                continue;
            }
            if (y == 0 && (y = passes(p, ar->a, apart, probe, mid + 1, hi, d, pb, work, visited)) == 1) {
                lo = mid + 1;
                continue;
            }
            if (y != 0) x = y; /* packed, or out of memory */
            break;             /* else neither half alone: the block stays whole */
        }
        if (x < 0) return SB_PACK_NOMEM;
        if (x == 2) return SB_PACK_PACKED;
        if (x == 1) memset(apart + lo, 1, (size_t)(hi - lo) + 1), kept = true;
        else round = WALL_ROUNDS - 1; /* no wall found: the rest to the last round */
    }
}

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
 * the others (search.c).
 *
 * Requires: a packing problem (sb_pack_problem). Produces: the merged
 * problem and each node's chain. Complexity: O(n log n). */
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

uint32_t sb_relay_merge(const sb_pack_problem *p, sba_arena *ar, sb_pack_problem *out, uint32_t *of)
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
        if (!ne || !ns) continue;
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
    out->guide_at = NULL, out->guide_opt = NULL;
    if (!out->off || !out->opt) return UINT32_MAX;
    return merged;
}

void sb_relay_spread(const sb_pack_problem *merged, const uint32_t *of, const sb_pack_problem *p)
{
    for (uint32_t i = 0; i < p->n; i++) p->off[i] = merged->off[of[i]], p->opt[i] = merged->opt[of[i]];
}

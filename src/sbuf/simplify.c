/* simplify: Chaitin-Briggs simplification with the generalized
 * significant-degree test.
 *
 * A node is trivially colourable when Σ sb_impact(i, j) over its neighbours still
 * in the graph is below its colour count k(i) = sb_possible_placements(i): then
 * some (band, offset) is free whatever they do. Such nodes are removed first
 * (a worklist); when none is left, the node with the least cost/degree² is
 * removed anyway and pushed optimistically (Briggs): select may still place it.
 * Precoloured nodes never leave the graph; their impact always counts.
 *
 * Requires: build, find_costs. Produces: the colouring order (the reverse of
 * the removal stack). Complexity: O((n + E) log n) with a lazy heap for the
 * spill choice, whose keys only grow as neighbours leave. */
#include <math.h>

#include "base/error.h"
#include "sbuf/sbuf.h"

typedef struct cand {
    double metric;
    uint32_t node, degree;
} cand;

typedef struct cheap {
    cand *v;
    uint32_t n;
} cheap;

static bool before(const cand *a, const cand *b)
{
    if (a->metric != b->metric) return a->metric < b->metric;
    return a->node < b->node;
}

static void cpush(cheap *h, cand x)
{
    uint32_t i = h->n++;
    while (i && before(&x, &h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static cand cpop(cheap *h)
{
    cand top = h->v[0], x = h->v[--h->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        const cand *best = &x;
        if (l < h->n && before(&h->v[l], best)) m = l, best = &h->v[l];
        if (l + 1 < h->n && before(&h->v[l + 1], best)) m = l + 1;
        if (m == i) break;
        h->v[i] = h->v[m];
        i = m;
    }
    if (h->n) h->v[i] = x;
    return top;
}

static double metric(const sb_node *nd, uint32_t degree)
{
    if (isinf(nd->cost)) return INFINITY;
    double d = degree ? (double)degree : 1.0;
    return nd->cost / (d * d);
}

sba_status sb_simplify(sb_ctx *c, uint32_t *order, uint32_t *norder)
{
    uint32_t n = c->n;
    int64_t *sums = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *sums);
    int64_t *k = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *k);
    uint32_t *deg = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *deg);
    uint8_t *state = sba_arena_array(&c->ar, (size_t)n + 1, 1); /* 0 in graph, 1 queued, 2 removed */
    uint32_t *low = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *low);
    uint32_t *stack = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *stack);
    cheap h = {sba_arena_array(&c->ar, (size_t)n * 2 + 16, sizeof(cand)), 0};
    if (!sums || !k || !deg || !state || !low || !stack || !h.v)
        return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    uint32_t nlow = 0, nstack = 0, left = 0;
    for (uint32_t i = 0; i < n; i++) {
        const sb_node *nd = &c->info[i];
        if (nd->rep != i || nd->precoloured) {
            state[i] = 2;
            continue;
        }
        left++;
        k[i] = sb_possible_placements(c, i);
        for (uint32_t a = 0; a < nd->degree; a++) sums[i] += sb_impact(c, i, nd->adj[a]);
        deg[i] = nd->degree;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (state[i] == 2) continue;
        if (sums[i] < k[i]) {
            low[nlow++] = i;
            state[i] = 1;
        } else {
            cpush(&h, (cand){metric(&c->info[i], deg[i]), i, deg[i]});
        }
    }
    uint32_t optimistic = 0;
    while (left) {
        uint32_t v;
        if (nlow) {
            /* A stale entry (the node left) is popped and re-pushed only once
             * per pop, so the heap never outgrows its first fill. */
            v = low[--nlow];
        } else {
            cand x = cpop(&h);
            if (state[x.node] != 0) continue;
            if (x.degree != deg[x.node]) {
                /* stale: its degree fell since; its key grew */
                x.degree = deg[x.node];
                x.metric = metric(&c->info[x.node], x.degree);
                cpush(&h, x);
                continue;
            }
            v = x.node;
            optimistic++;
        }
        state[v] = 2;
        stack[nstack++] = v;
        left--;
        const sb_node *nv = &c->info[v];
        for (uint32_t a = 0; a < nv->degree; a++) {
            uint32_t j = nv->adj[a];
            if (state[j] == 2) continue;
            sums[j] -= sb_impact(c, j, v);
            deg[j]--;
            if (state[j] == 0 && sums[j] < k[j]) {
                state[j] = 1;
                low[nlow++] = j;
            }
        }
    }
    for (uint32_t i = 0; i < nstack; i++) order[i] = stack[nstack - 1 - i];
    *norder = nstack;
    sb_log(c, "simplify: %u nodes, %u pushed optimistically", nstack, optimistic);
    return SBA_OK;
}

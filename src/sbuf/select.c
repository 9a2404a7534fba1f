/* select: geometric placement of each node at a real (base partition, address).
 *
 * For every band its height class allows (and its accesses permit), the node
 * sits at the band's first partition; the byte ranges of the placed
 * neighbours whose partitions meet that band are swept in address order, and
 * the aligned gaps that hold the node are its free spots. Precoloured nodes
 * are placed from the start, so they are obstacles like any other.
 *
 * The rule that chooses among free spots (documented in docs/passes.md):
 *   lowest (colouring, greedy-size): the lowest address, then the lowest base —
 *     it packs every band from the bottom, leaving the free space above in one
 *     piece, where the largest later tensor fits best;
 *   best-fit (the XLA heap simulator's rule): the smallest gap that holds the
 *     node, then the lowest address and base.
 * A node with no free spot is marked for spilling.
 *
 * Requires: build (adjacency), a colouring order. Produces: base, addr, placed
 * or spill. Complexity: O(Σ_i deg(i) log deg(i) × bands(i)). */
#include <stdlib.h>

#include "base/error.h"
#include "sbuf/sbuf.h"

static int cmp_range(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* The best spot in one band: *addr and *gap, false when none. */
static bool spot_in_band(sb_ctx *c, uint32_t i, int32_t base, int64_t *addr, int64_t *gap)
{
    const sb_node *nd = &c->info[i];
    uint32_t n = 0;
    for (uint32_t k = 0; k < nd->degree; k++) {
        const sb_node *nj = &c->info[nd->adj[k]];
        if (!nj->placed) continue;
        if (nj->base >= base + nd->partitions || base >= nj->base + nj->partitions) continue;
        c->gaps[n][0] = nj->addr;
        c->gaps[n][1] = nj->addr + nj->bytes;
        n++;
    }
    if (n > 1) qsort(c->gaps, n, sizeof *c->gaps, cmp_range); /* gaps is NULL while no neighbour needed it */
    int64_t a = c->t->sbuf_align, cap = c->t->sbuf_bytes, cur = 0;
    bool found = false;
    for (uint32_t k = 0; k <= n; k++) {
        int64_t lo = align_up(cur, a), hi = k < n ? c->gaps[k][0] : cap;
        if (hi - lo >= nd->bytes && lo + nd->bytes <= cap) {
            int64_t g = k < n ? hi - lo : INT64_MAX;
            if (!found || (c->rule == SB_RULE_BEST_FIT && g < *gap)) {
                *addr = lo;
                *gap = g;
                found = true;
                if (c->rule == SB_RULE_LOWEST) return true;
            }
        }
        if (k < n && c->gaps[k][1] > cur) cur = c->gaps[k][1];
    }
    return found;
}

bool sb_select_node(sb_ctx *c, uint32_t i)
{
    sb_node *nd = &c->info[i];
    if (nd->degree > c->capgaps) {
        c->gaps = sba_arena_array(&c->ar, nd->degree, sizeof *c->gaps);
        if (!c->gaps) {
            c->capgaps = 0;
            return false;
        }
        c->capgaps = nd->degree;
    }
    bool found = false;
    int64_t best_addr = 0, best_gap = 0;
    int32_t best_base = 0;
    for (uint32_t k = 0; k < sb_height_bands(nd->height); k++) {
        int32_t base = (int32_t)sb_height_band_start(nd->height, k);
        if (!(nd->base_mask & (1u << (base / 32))) || base + nd->partitions > c->t->partitions) continue;
        int64_t addr = 0, gap = 0;
        if (!spot_in_band(c, i, base, &addr, &gap)) continue;
        bool better = !found || (c->rule == SB_RULE_BEST_FIT && gap != best_gap ? gap < best_gap
                                                                                : addr < best_addr);
        if (better) {
            found = true;
            best_addr = addr;
            best_gap = gap;
            best_base = base;
        }
    }
    if (!found) return false;
    nd->base = best_base;
    nd->addr = best_addr;
    nd->placed = true;
    return true;
}

uint32_t sb_select_nodes(sb_ctx *c, const uint32_t *order, uint32_t norder)
{
    uint32_t failed = 0;
    for (uint32_t k = 0; k < norder; k++) {
        sb_node *nd = &c->info[order[k]];
        if (nd->placed) continue;
        nd->spill = !sb_select_node(c, order[k]);
        failed += nd->spill;
    }
    sb_log(c, "select: %u placed, %u to spill", norder - failed, failed);
    return failed;
}

/* Representatives to colour, in a strategy's order. */
static uint32_t colourable(const sb_ctx *c, uint32_t *order)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->info[i].rep == i && !c->info[i].precoloured) order[n++] = i;
    return n;
}

/* Unspillable nodes (spill code's own placements) first: a spill mark on one
 * of them stops the fixpoint (the guard), so they must not be crowded out by
 * tensors that could still go to DRAM. Then decreasing size, then longer
 * life, then id: keys sorted alone, so that the comparison needs no context
 * (the library keeps no mutable statics). */
typedef struct size_key {
    int64_t bytes;
    uint32_t life, id;
    bool unspillable;
} size_key;

static int cmp_size(const void *a, const void *b)
{
    const size_key *x = a, *y = b;
    if (x->unspillable != y->unspillable) return x->unspillable ? -1 : 1;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->life != y->life) return x->life > y->life ? -1 : 1;
    return x->id < y->id ? -1 : 1;
}

void sb_order_by_size(sb_ctx *c, uint32_t *order, uint32_t *norder)
{
    *norder = colourable(c, order);
    size_key *keys = sba_arena_array(&c->ar, (size_t)*norder + 1, sizeof *keys);
    if (!keys) return; /* the arena's failure flag is checked by the driver */
    for (uint32_t k = 0; k < *norder; k++) {
        const sb_node *nd = &c->info[order[k]];
        keys[k] = (size_key){nd->bytes, nd->end - nd->start, order[k], nd->unspillable};
    }
    qsort(keys, *norder, sizeof *keys, cmp_size);
    for (uint32_t k = 0; k < *norder; k++) order[k] = keys[k].id;
}

/* ---- the guard's last resort -------------------------------------------- */

/* Called when a node that cannot be spilled (spill code's own) is left
 * unplaced. Before the function is declared impossible, select runs once
 * more from scratch with the unspillable nodes first, each in its best-fit
 * spot, then the rest by size: the colouring order may have crowded them out
 * although they fit together. Returns the nodes left unplaced. */
uint32_t sb_reselect_unspillable_first(sb_ctx *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        sb_node *nd = &c->info[i];
        if (nd->rep != i || nd->precoloured) continue;
        nd->placed = false;
        nd->spill = false;
    }
    uint32_t failed = sb_select_around_placed(c);
    sb_log(c, "reselect, unspillable first: %u left unplaced", failed);
    return failed;
}

uint32_t sb_select_around_placed(sb_ctx *c)
{
    uint32_t *order = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *order), norder = 0;
    if (!order) return c->n;
    uint32_t rule = c->rule;
    sb_order_by_size(c, order, &norder);
    c->rule = SB_RULE_BEST_FIT;
    uint32_t failed = sb_select_nodes(c, order, norder);
    c->rule = rule;
    return failed;
}

/* Whether some partition quarter at some point of node v's range must hold
 * more than the SB size: the bytes of v and its neighbours live there, a
 * tensor whose band is fixed (pre-placed, or one band) counted in its own
 * quarters, the others spread over the quarters they would take (bytes ×
 * quarters / 4). Adding bytes of tensors in different bands proves nothing.
 * Fills the point, the first quarter and the demand of the worst case. */
bool sb_band_overflow(const sb_ctx *c, uint32_t v, uint32_t *point, uint32_t *quarter, int64_t *need)
{
    const sb_node *nv = &c->info[v];
    *need = -1;
    for (uint32_t p = nv->start; p <= nv->end; p++) {
        int64_t fixed[SBA_BANDS] = {0}, weighted = 0;
        for (uint32_t k = 0; k <= nv->degree; k++) {
            uint32_t j = k < nv->degree ? nv->adj[k] : v;
            const sb_node *nj = &c->info[j];
            if (nj->rep != j || nj->start > p || p > nj->end) continue;
            if (nj->precoloured || sb_height_bands(nj->height) == 1) {
                int32_t base = nj->precoloured ? nj->base : (int32_t)sb_height_band_start(nj->height, 0);
                int64_t top = nj->precoloured ? base + nj->partitions : base + (int64_t)nj->band_width;
                for (uint32_t q = 0; q < SBA_BANDS; q++)
                    if ((int64_t)q * 32 < top && base < (int32_t)(q + 1) * 32) fixed[q] += nj->bytes;
                weighted += nj->bytes * ((top - base + 31) / 32);
            } else {
                weighted += nj->bytes * (nj->band_width / 32);
            }
        }
        int64_t avg = (weighted + SBA_BANDS - 1) / SBA_BANDS;
        if (avg > *need) *need = avg, *point = p, *quarter = SBA_BANDS;
        for (uint32_t q = 0; q < SBA_BANDS; q++)
            if (fixed[q] > *need) *need = fixed[q], *point = p, *quarter = q;
    }
    return *need > c->t->sbuf_bytes;
}

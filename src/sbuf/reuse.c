/* reuse: placements carried from one fixpoint iteration to the next.
 *
 * Spill code changes the function only where the spilled tensors live: it
 * shortens their ranges and adds reloads and stores inside them. A part
 * (a run of the program where the live set never empties) with no spilled
 * tensor comes back the same in the next iteration, its program points
 * only shifted. Where every node of such a part was placed — often by the
 * exact search, at a cost of a good share of the budget — the next
 * iteration places its nodes where they were instead of asking select and
 * the search again. Without it a later iteration, its budget mostly spent,
 * can fail a part that packed before, and spills there what had fitted
 * (the planted 2-D function of 2,000 tensors, seed 2, spilled hundreds
 * where its first iteration had packed every part but one).
 *
 * A part is the same when its hash is: over its representatives, each
 * one's location, its live range relative to the part's first point, its
 * bytes, partitions, height class, allowed bases and partner members.
 * A placement remembered is a placement verified then (no two nodes of the
 * part meet), and no node of another part meets one of this part in time,
 * so the placement stays valid; the verifier proves the final allocation
 * as always.
 *
 * Requires: build (the parts), a placement. Produces: placed nodes with
 * base and addr. Complexity: O(n log n). */
#include <string.h>

#include "base/error.h"
#include "base/rng.h"
#include "sbuf/sbuf.h"

typedef struct sb_hint {
    uint64_t sig;   /* the hash of the part the node was in */
    int64_t addr;
    int32_t base;
    uint32_t stamp; /* the iteration that recorded it, plus one */
} sb_hint;

/* The part's hash: a sum of its nodes' (order does not matter). */
static uint64_t part_sig(const sb_ctx *c, const uint32_t *ids, uint32_t a, uint32_t b)
{
    uint32_t first = c->info[ids[a]].start;
    uint64_t sig = sba_mix64(b - a);
    for (uint32_t x = a; x < b; x++) {
        const sb_node *nd = &c->info[ids[x]];
        uint32_t members = 0;
        for (uint32_t m = nd->next_member; m != SB_NO_NODE; m = c->info[m].next_member)
            members = members * 31 + c->info[m].loc->index + 1;
        uint64_t h = sba_mix64(nd->loc->index);
        h = sba_mix64(h ^ ((uint64_t)(nd->start - first) << 32 | (nd->end - first)));
        h = sba_mix64(h ^ (uint64_t)nd->bytes);
        h = sba_mix64(h ^ ((uint64_t)nd->partitions << 40 | (uint64_t)nd->base_mask << 8 | nd->height));
        h = sba_mix64(h ^ ((uint64_t)members << 2 | (uint64_t)nd->precoloured << 1 | nd->unspillable));
        if (nd->precoloured) h = sba_mix64(h ^ (uint64_t)nd->addr ^ ((uint64_t)nd->base << 48));
        sig += h;
    }
    return sig;
}

typedef struct parts {
    uint32_t *ids, *from, m, np;
} parts;

static bool cut(sb_ctx *c, parts *P)
{
    P->ids = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *P->ids);
    P->from = sba_arena_array(&c->ar, (size_t)c->n + 2, sizeof *P->from);
    if (!P->ids || !P->from) return false;
    P->np = sb_parts(c, P->ids, &P->m, P->from);
    return P->np != UINT32_MAX;
}

sba_status sb_remember_placed_parts(sb_ctx *c)
{
    uint32_t need = c->fn->nloc_index;
    if (need > c->nhint) {
        const sba_allocator *a = c->keep.a;
        sb_hint *h = sba_malloc(a, (size_t)need * sizeof *h);
        if (!h) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        memset(h, 0, (size_t)need * sizeof *h);
        sba_free(a, c->hint);
        c->hint = h;
        c->nhint = need;
    }
    parts P;
    if (!cut(c, &P)) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t p = 0; p < P.np; p++) {
        uint32_t a = P.from[p], b = P.from[p + 1];
        bool all = true;
        for (uint32_t x = a; x < b && all; x++) all = c->info[P.ids[x]].placed && !c->info[P.ids[x]].spill;
        if (!all) continue;
        uint64_t sig = part_sig(c, P.ids, a, b);
        for (uint32_t x = a; x < b; x++) {
            const sb_node *nd = &c->info[P.ids[x]];
            c->hint[nd->loc->index] = (sb_hint){sig, nd->addr, nd->base, c->iteration + 1};
        }
    }
    return SBA_OK;
}

uint32_t sb_reuse_placed_parts(sb_ctx *c)
{
    if (!c->hint || c->iteration == 0) return 0;
    parts P;
    if (!cut(c, &P)) return UINT32_MAX;
    uint32_t nodes = 0, reused = 0;
    for (uint32_t p = 0; p < P.np; p++) {
        uint32_t a = P.from[p], b = P.from[p + 1];
        uint64_t sig = part_sig(c, P.ids, a, b);
        bool same = true;
        for (uint32_t x = a; x < b && same; x++) {
            uint32_t li = c->info[P.ids[x]].loc->index;
            same = li < c->nhint && c->hint[li].stamp == c->iteration && c->hint[li].sig == sig;
        }
        if (!same) continue;
        reused++;
        for (uint32_t x = a; x < b; x++) {
            sb_node *nd = &c->info[P.ids[x]];
            if (nd->precoloured) continue;
            const sb_hint *h = &c->hint[nd->loc->index];
            nd->addr = h->addr;
            nd->base = h->base;
            nd->placed = true;
            nd->spill = false;
            nodes++;
        }
    }
    if (reused) sb_log(c, "reuse: %u parts (%u nodes) placed as in the last iteration", reused, nodes);
    return nodes;
}

void sb_forget_placed_parts(sb_ctx *c)
{
    sba_free(c->keep.a, c->hint);
    c->hint = NULL;
    c->nhint = 0;
}

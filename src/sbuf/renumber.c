/* renumber_locations: dense node ids and one Info record per node.
 *
 * A node is an SB placement of a set that is not a function output (the
 * seed's candidate(): type SB and !isTensorKindOutput), with at least one
 * access. A placement whose addr and base are both given is precoloured: a
 * fixed rectangle that constrains the others and is never moved; SB outputs
 * must be precoloured. The id is recorded in c->node_of[loc->index].
 *
 * Requires: def-use lists. Produces: c->info[0..n), SbRenumberLocationsCount.
 * Complexity: O(locations + accesses). */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "sbuf/sbuf.h"

/* A pre-placed base that the start-partition rule, the tensor's accesses or
 * the target's partitions forbid; names the bases that would do. */
static sba_status bad_base(sb_ctx *c, const bir_location *loc, const sb_node *nd)
{
    char allowed[64] = "none";
    size_t len = 0;
    for (uint32_t i = 0; i < 4; i++)
        if (((nd->base_mask >> i) & 1u) && 32 * (int64_t)i + nd->partitions <= c->t->partitions)
            len += (size_t)snprintf(allowed + len, sizeof allowed - len, "%s%u", len ? ", " : "", 32 * i);
    return sba_err(c->err, SBA_ERR_MODEL, "pre-placed %s: base partition %d is not allowed for %lld partitions "
                   "and the accesses of the tensor (allowed bases: %s)", loc->name, loc->base,
                   (long long)nd->partitions, allowed);
}

sba_status sb_renumber_locations(sb_ctx *c)
{
    bir_function *fn = c->fn;
    uint32_t n = 0;
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++) n += fn->sets[s]->locs[l]->type == BIR_MEM_SB;
    c->info = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *c->info);
    c->nnode_of = fn->nloc_index;
    c->node_of = sba_arena_array(&c->ar, (size_t)c->nnode_of + 1, sizeof *c->node_of);
    if (!c->info || !c->node_of) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < c->nnode_of; i++) c->node_of[i] = SB_NO_NODE;
    uint32_t id = 0, fixed_nodes = 0;
    for (uint32_t s = 0; s < fn->nsets; s++) {
        bir_set *set = fn->sets[s];
        bool output = bir_tensor_kind_is_output(set->kind);
        for (uint32_t l = 0; l < set->nlocs; l++) {
            bir_location *loc = set->locs[l];
            if (loc->type != BIR_MEM_SB) continue;
            bool accessed = loc->storage.nreaders + loc->storage.nwriters > 0;
            bool has_addr = loc->addr != BIR_NO_ADDR, has_base = loc->base != BIR_NO_BASE;
            bool fixed = has_addr && has_base;
            if (!accessed) continue;
            if (has_addr != has_base)
                return sba_err(c->err, SBA_ERR_MODEL, "SB location \"%s\" of set \"%s\" gives %s but not "
                               "%s: a pre-placed location needs both addr and base", loc->name,
                               set->name, has_addr ? "addr" : "base", has_addr ? "base" : "addr");
            if (output && !fixed)
                return sba_err(c->err, SBA_ERR_MODEL, "SB output \"%s\" of set \"%s\" must be pre-placed "
                               "(addr and base): function outputs are not allocated", loc->name,
                               set->name);
            sb_node *nd = &c->info[id];
            nd->loc = loc;
            nd->rep = id;
            nd->next_member = SB_NO_NODE;
            nd->partitions = bir_set_partitions(set);
            nd->nblocks = bir_set_nblocks(set);
            nd->bytes_per_block = bir_set_bytes_per_block(set);
            nd->live_n = nd->nblocks;
            nd->precoloured = fixed;
            nd->output = output;
            nd->unspillable = loc->alloc_flags != 0;
            nd->base = BIR_NO_BASE;
            if (nd->partitions > c->t->partitions)
                return sba_err(c->err, SBA_ERR_MODEL, "set \"%s\" has %lld partitions; the target has %u",
                               set->name, (long long)nd->partitions, c->t->partitions);
            sba_status st = bir_location_base_mask(loc, nd->partitions, &nd->base_mask, c->err);
            if (st != SBA_OK) return st;
            nd->own_mask = nd->base_mask;
            if (fixed) {
                nd->height = sb_height_class(nd->partitions, loc->base);
                if (nd->height == SB_HEIGHTS && nd->partitions > 64)
                    return sba_err(c->err, SBA_ERR_MODEL, "%s: tall tensors must be accessed starting at "
                                   "partition 0 (%lld partitions at base %d)", loc->name,
                                   (long long)nd->partitions, loc->base);
                if (nd->height == SB_HEIGHTS || loc->base + nd->partitions > c->t->partitions ||
                    !((nd->base_mask >> (loc->base / 32)) & 1u))
                    return bad_base(c, loc, nd);
                if (loc->addr % c->t->sbuf_align != 0)
                    return sba_err(c->err, SBA_ERR_MODEL, "pre-placed %s at byte %lld is not a multiple of "
                                   "the SB alignment %u", loc->name, (long long)loc->addr, c->t->sbuf_align);
                nd->base = loc->base;
                nd->addr = loc->addr;
                nd->placed = true;
                if (loc->live_n > 0) nd->live_n = loc->live_n;
            } else {
                nd->height = sb_height_for_mask(nd->partitions, nd->base_mask);
                if (nd->height == SB_HEIGHTS)
                    return sba_err(c->err, SBA_ERR_MODEL, "%s: no base partition satisfies the "
                                   "start-partition rule for every access of this %lld-partition tensor",
                                   loc->name, (long long)nd->partitions);
            }
            nd->band_width = sb_height_band_width(nd->height);
            fixed_nodes += fixed;
            c->node_of[loc->index] = id++;
        }
    }
    c->n = id;
    if (c->rep) {
        c->rep->nodes = id;
        c->rep->precoloured = fixed_nodes;
    }
    sb_log(c, "renumber locations: %u nodes (SbRenumberLocationsCount)", id);
    return SBA_OK;
}

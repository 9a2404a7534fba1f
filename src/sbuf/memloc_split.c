/* memloc_split: live-range (web) splitting.
 *
 * A placement written and read at disjoint stretches of the program has, as one
 * node, a live range spanning all of them. When a node has more than one def
 * and more than one use (the seed's gate), its accesses are cut into segments
 * at every write that overwrites the whole tensor outside any loop and does not
 * read it; each segment after the first moves to a clone — a new SB placement
 * of the same set — and its operands are rewired to the clone, so the segments
 * become independent, shorter nodes.
 *
 * Requires: renumber_locations, a linearization, def-use lists. Produces: the
 * clones (TotalSplitSbNodesCount); rebuilds the def-use lists when it made any.
 * Invalidates: node ids (the driver renumbers). Complexity: O(A log A) for A
 * accesses. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "bir/live.h"
#include "sbuf/sbuf.h"

typedef struct access {
    uint32_t point;
    bool write;
    bir_inst *inst;
    bir_operand *op;
} access;

static int cmp_access(const void *a, const void *b)
{
    const access *x = a, *y = b;
    if (x->point != y->point) return x->point < y->point ? -1 : 1;
    return (int)x->write - (int)y->write; /* an instruction reads before it writes */
}

static bool reads_location(const bir_inst *in, const bir_location *loc)
{
    for (uint32_t k = 0; k < in->nins; k++)
        if (in->ins[k].loc == loc) return true;
    return false;
}

/* A write that replaces every byte of every block of the tensor, in one
 * execution: a strided write's bounding box does not count. */
static bool covers_tensor(sb_ctx *c, const access *a)
{
    return bir_live_write_kills(&c->lin, a->inst, a->op);
}

static sba_status split_node(sb_ctx *c, sb_node *nd, uint32_t *clones)
{
    bir_location *loc = nd->loc;
    uint32_t n = loc->storage.nreaders + loc->storage.nwriters, k = 0;
    access *acc = sba_arena_array(&c->ar, n, sizeof *acc);
    uint32_t *seg = sba_arena_array(&c->ar, n, sizeof *seg);
    if (!acc || !seg) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < loc->storage.nreaders; i++) {
        bir_access a = loc->storage.readers[i];
        acc[k++] = (access){c->lin.point_of[a.inst->index], false, a.inst, &a.inst->ins[a.operand]};
    }
    for (uint32_t i = 0; i < loc->storage.nwriters; i++) {
        bir_access a = loc->storage.writers[i];
        acc[k++] = (access){c->lin.point_of[a.inst->index], true, a.inst, &a.inst->outs[a.operand]};
    }
    qsort(acc, n, sizeof *acc, cmp_access);
    uint32_t cur = 0;
    for (uint32_t i = 0; i < n; i++) {
        const access *a = &acc[i];
        if (i > 0 && a->write && c->lin.depth[a->inst->index] == 0 && !reads_location(a->inst, loc) &&
            acc[i - 1].point < a->point && covers_tensor(c, a))
            cur++;
        seg[i] = cur;
    }
    if (c->err->code != SBA_OK) return c->err->code;
    if (cur == 0) return SBA_OK;
    bir_location **clone = sba_arena_array(&c->ar, cur + 1, sizeof *clone);
    if (!clone) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    char base[512];
    for (uint32_t s = 1; s <= cur; s++) {
        snprintf(base, sizeof base, "%s.split%u", loc->name, s);
        const char *name = bir_set_fresh_location_name(loc->set, base);
        if (!name || !(clone[s] = bir_location_add(loc->set, name, BIR_MEM_SB, c->err))) {
            if (!name) sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
            return c->err->code;
        }
        int64_t tid = 0;
        for (uint32_t l = 0; l < loc->set->nlocs; l++)
            if (loc->set->locs[l] != clone[s] && loc->set->locs[l]->tensor_id >= tid)
                tid = loc->set->locs[l]->tensor_id + 1;
        clone[s]->tensor_id = tid;
        (*clones)++;
    }
    if (bir_set_build_tensor_id_map(loc->set, c->err) != SBA_OK) return c->err->code;
    for (uint32_t i = 0; i < n; i++)
        if (seg[i]) acc[i].op->loc = clone[seg[i]];
    sb_log(c, "memloc split: %s -> %u segments", loc->name, cur + 1);
    return SBA_OK;
}

sba_status sb_memloc_split(sb_ctx *c)
{
    uint32_t clones = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        sb_node *nd = &c->info[i];
        if (nd->precoloured || nd->output || nd->unspillable) continue;
        /* The seed's first two gates (no partition dimension, no tensor body)
         * hold already: renumber_locations takes every access's footprint,
         * which fails for such a set before this pass runs. */
        if (nd->loc->storage.nwriters <= 1 || nd->loc->storage.nreaders <= 1) continue;
        sba_status st = split_node(c, nd, &clones);
        if (st != SBA_OK) return st;
    }
    if (c->rep) c->rep->split_clones += clones;
    sb_log(c, "memloc split: %u clones (TotalSplitSbNodesCount)", clones);
    if (clones) return bir_function_build_def_use(c->fn, c->err);
    return SBA_OK;
}

/* find_first_defs, find_last_uses, find_loads: the def/use anchors of every
 * node, and the nodes that are plain loads of read-only DRAM data.
 *
 * The first def is the writer at the lowest program point over all members of
 * a partner group; a node with no writer is defined at entry when its set is
 * an input or a constant ("no first def find" otherwise). The last use is the
 * reader at the highest point; a value never read ends at its last def.
 * A plain load is a node written only by one DMALoad (or DMACopy, which the
 * compiler's dumps load with) that copies, through an identical access
 * pattern, from a DRAM tensor of the same geometry that the function never
 * writes: spilling it needs no store, only reloads from there.
 *
 * Requires: find_partners. Produces: first_def, last_use, entry_def, load_src.
 * Complexity: O(accesses). */
#include <string.h>

#include "base/error.h"
#include "sbuf/sbuf.h"

#define FOREACH_MEMBER(c, r, m) for (uint32_t m = (r); m != SB_NO_NODE; m = (c)->info[m].next_member)

static uint32_t point(const sb_ctx *c, const bir_inst *in) { return c->lin.point_of[in->index]; }

sba_status sb_find_first_defs(sb_ctx *c)
{
    for (uint32_t r = 0; r < c->n; r++) {
        sb_node *nd = &c->info[r];
        if (nd->rep != r) continue;
        nd->first_def = NULL;
        FOREACH_MEMBER(c, r, m) {
            const bir_storage *s = &c->info[m].loc->storage;
            for (uint32_t k = 0; k < s->nwriters; k++)
                if (!nd->first_def || point(c, s->writers[k].inst) < point(c, nd->first_def))
                    nd->first_def = s->writers[k].inst;
        }
        uint32_t kind = nd->loc->set->kind;
        nd->entry_def = bir_tensor_kind_is_input(kind) || kind == BIR_TK_CONST;
        if (!nd->first_def && !nd->entry_def)
            return sba_err(c->err, SBA_ERR_PROGRAM, "no first def find: %s", nd->loc->name);
    }
    return SBA_OK;
}

sba_status sb_find_last_uses(sb_ctx *c)
{
    for (uint32_t r = 0; r < c->n; r++) {
        sb_node *nd = &c->info[r];
        if (nd->rep != r) continue;
        const bir_inst *last = NULL, *last_def = NULL;
        FOREACH_MEMBER(c, r, m) {
            const bir_storage *s = &c->info[m].loc->storage;
            for (uint32_t k = 0; k < s->nreaders; k++)
                if (!last || point(c, s->readers[k].inst) > point(c, last)) last = s->readers[k].inst;
            for (uint32_t k = 0; k < s->nwriters; k++)
                if (!last_def || point(c, s->writers[k].inst) > point(c, last_def))
                    last_def = s->writers[k].inst;
        }
        if (!last || (last_def && point(c, last_def) > point(c, last))) last = last_def;
        if (!last) return sba_err(c->err, SBA_ERR_PROGRAM, "no last use find: %s", nd->loc->name);
        nd->last_use = last;
    }
    return SBA_OK;
}

static bool same_pattern(const bir_operand *x, const bir_operand *y)
{
    if (x->offset != y->offset || x->ndims != y->ndims || x->nterms != y->nterms) return false;
    if (memcmp(x->ap, y->ap, x->ndims * sizeof *x->ap) != 0) return false;
    for (uint32_t i = 0; i < x->nterms; i++)
        if (x->terms[i].loop != y->terms[i].loop || x->terms[i].coeff != y->terms[i].coeff) return false;
    return true;
}

sba_status sb_find_loads(sb_ctx *c)
{
    uint32_t loads = 0;
    for (uint32_t r = 0; r < c->n; r++) {
        sb_node *nd = &c->info[r];
        nd->load_src = NULL;
        if (nd->rep != r || nd->next_member != SB_NO_NODE || nd->precoloured || nd->output) continue;
        const bir_location *loc = nd->loc;
        if (loc->storage.nwriters != 1) continue;
        bir_inst *w = loc->storage.writers[0].inst;
        if ((w->opcode != BIR_OP_DMA_LOAD && w->opcode != BIR_OP_DMA_COPY) || w->nins != 1 || w->nouts != 1) continue;
        bir_operand *src = &w->ins[0];
        if (!src->loc || src->loc->type != BIR_MEM_DRAM || src->loc->storage.nwriters != 0) continue;
        const bir_set *ss = src->set, *ds = loc->set;
        if (bir_set_partitions(ss) != nd->partitions || bir_set_nblocks(ss) != nd->nblocks ||
            bir_set_bytes_per_block(ss) != nd->bytes_per_block ||
            bir_dtype_size(ss->dtype) != bir_dtype_size(ds->dtype) || !same_pattern(src, &w->outs[0]))
            continue;
        nd->load_src = src;
        loads++;
    }
    sb_log(c, "find loads: %u plain loads", loads);
    return SBA_OK;
}

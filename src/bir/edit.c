/* Program edits used by the allocator's spill code: new instructions, block
 * contents, fresh deterministic names, and re-indexing a function.
 *
 * Requires: a loaded function. Invalidates: fn->insts order and inst->index
 * until bir_function_reindex runs, and the def-use lists until
 * bir_function_build_def_use runs. */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/strmap.h"
#include "sballoc/bir.h"

sba_status bir_block_set_insts(bir_function *fn, bir_block *b, bir_inst *const *insts, uint32_t n,
                               sba_error *err)
{
    bir_inst **v = sba_arena_array(fn->module->arena, (size_t)n + 1, sizeof *v);
    if (!v) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        v[i] = insts[i];
        v[i]->parent = b;
    }
    b->insts = v;
    b->ninsts = b->capinsts = n;
    return SBA_OK;
}

/* Preorder walk of the block tree with an explicit stack. */
sba_status bir_function_reindex(bir_function *fn, sba_error *err)
{
    sba_arena *ar = fn->module->arena;
    uint32_t total = 0, loops = 0;
    for (uint32_t i = 0; i < fn->ninsts; i++) loops += fn->insts[i]->opcode == BIR_OP_LOOP;
    typedef struct { bir_block *const *blocks; uint32_t nblocks, b, i; } frame;
    frame *st = sba_arena_array(ar, (size_t)loops + 2, sizeof *st);
    bir_inst **out = NULL;
    uint32_t cap = 0;
    if (!st) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    uint32_t n = 0;
    st[n++] = (frame){fn->blocks, fn->nblocks, 0, 0};
    while (n) {
        frame *f = &st[n - 1];
        if (f->b == f->nblocks) {
            n--;
            continue;
        }
        const bir_block *blk = f->blocks[f->b];
        if (f->i == blk->ninsts) {
            f->b++;
            f->i = 0;
            continue;
        }
        bir_inst *in = blk->insts[f->i++];
        if (!sba_arena_grow(ar, (void **)&out, &cap, total + 1, sizeof *out))
            return sba_err(err, SBA_ERR_NOMEM, "out of memory");
        in->index = total;
        out[total++] = in;
        if (in->opcode == BIR_OP_LOOP) st[n++] = (frame){in->blocks, in->nblocks, 0, 0};
    }
    fn->insts = out;
    fn->ninsts = total;
    fn->capinsts = cap;
    return SBA_OK;
}

const char *bir_function_fresh_inst_name(bir_function *fn, const char *base)
{
    if (!bir_function_find_inst(fn, base)) return sba_arena_strdup(fn->module->arena, base);
    char buf[512];
    for (uint32_t k = 1;; k++) {
        snprintf(buf, sizeof buf, "%s.%u", base, k);
        if (!bir_function_find_inst(fn, buf)) return sba_arena_strdup(fn->module->arena, buf);
    }
}

const char *bir_set_fresh_location_name(bir_set *set, const char *base)
{
    if (!bir_set_find_location(set, base)) return sba_arena_strdup(set->fn->module->arena, base);
    char buf[512];
    for (uint32_t k = 1;; k++) {
        snprintf(buf, sizeof buf, "%s.%u", base, k);
        if (!bir_set_find_location(set, buf)) return sba_arena_strdup(set->fn->module->arena, buf);
    }
}

bool bir_operand_set_whole(bir_operand *op, bir_set *set)
{
    int64_t p = set->shape[0], f = set->shape[1];
    op->kind = BIR_OPND_PHYSICAL_AP;
    op->set = set;
    op->loc = set->locs[0];
    op->dtype = set->dtype;
    op->ndims = 2;
    op->ap = sba_arena_array(set->fn->module->arena, 2, sizeof *op->ap);
    if (!op->ap) return false;
    op->ap[0][0] = f;
    op->ap[0][1] = p;
    op->ap[1][0] = 1;
    op->ap[1][1] = f;
    return true;
}

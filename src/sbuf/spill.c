/* insert_spill_code: move the values of spilled nodes through DRAM.
 *
 * For each member placement L (of set S) of a spilled node:
 *   - its DRAM home is a new DRAM placement of S ("<L>.home"), or, for a plain
 *     load (find_loads), the read-only DRAM tensor it was loaded from;
 *   - after each def, a DMAStore copies what the def wrote from L to the home
 *     through the same access pattern ("<def>.spill.<L>"); a plain load's own
 *     DMALoad is deleted instead (it is re-issued where needed). When L has
 *     several defs, the first def instruction keeps L and each later one
 *     writes a new short-lived SB placement ("<L>.def") that its store copies
 *     from, so that no placement stays live between two defs;
 *   - before each use, a DMALoad copies what the use reads from the home into a
 *     new short-lived SB placement of S ("<L>.reload"), through the use's own
 *     access pattern, and the use reads that temporary ("<use>.reload.<L>").
 * L and the temporaries are marked so that later iterations never spill them
 * again: their ranges are already as short as they can be.
 *
 * Requires: select (node.spill); create_eintervals (the spill dump lists each
 * spilled node's). Produces: new instructions and placements.
 * Invalidates: every pass's results (the driver re-runs the front half).
 * Complexity: O(instructions + spilled accesses). */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "sbuf/sbuf.h"

/* New instructions anchored before or after an original one. */
typedef struct anchored {
    bir_inst *inst;
    uint32_t next;
} anchored;

typedef struct spill_state {
    sb_ctx *c;
    anchored *list;
    uint32_t n, cap;
    uint32_t *before, *after; /* by original inst->index: head of the list, or UINT32_MAX */
    bool *removed;
} spill_state;

static sba_status anchor(spill_state *s, bir_inst *at, bir_inst *in, bool after)
{
    if (!sba_arena_grow(&s->c->ar, (void **)&s->list, &s->cap, s->n + 1, sizeof *s->list))
        return sba_err(s->c->err, SBA_ERR_NOMEM, "out of memory");
    uint32_t *head = after ? &s->after[at->index] : &s->before[at->index];
    /* keep insertion order: append at the tail */
    s->list[s->n] = (anchored){in, UINT32_MAX};
    /* it runs when the instruction it serves does, in the problem's time too */
    in->time = at->time, in->has_time = at->has_time;
    if (*head == UINT32_MAX) {
        *head = s->n;
    } else {
        uint32_t k = *head;
        while (s->list[k].next != UINT32_MAX) k = s->list[k].next;
        s->list[k].next = s->n;
    }
    s->n++;
    return SBA_OK;
}

/* A DMA copy instruction from `src` to `dst` (operand values copied). */
static bir_inst *dma(sb_ctx *c, const char *base, uint32_t opcode, const bir_operand *src,
                     const bir_operand *dst)
{
    bir_function *fn = c->fn;
    const char *name = bir_function_fresh_inst_name(fn, base);
    if (!name) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory"), NULL;
    bir_inst *in = bir_inst_new(fn, name, opcode, c->err);
    if (!in) return NULL;
    in->engine = BIR_ENG_DMA;
    in->ins = sba_arena_array(fn->module->arena, 1, sizeof *in->ins);
    in->outs = sba_arena_array(fn->module->arena, 1, sizeof *in->outs);
    if (!in->ins || !in->outs) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory"), NULL;
    in->ins[0] = *src;
    in->outs[0] = *dst;
    in->ins[0].extras = in->outs[0].extras = (bir_extras){0};
    in->nins = in->nouts = 1;
    return in;
}

static int64_t next_tensor_id(const bir_set *set)
{
    int64_t id = 0;
    for (uint32_t i = 0; i < set->nlocs; i++)
        if (set->locs[i]->tensor_id >= id) id = set->locs[i]->tensor_id + 1;
    return id;
}

static bir_location *new_location(sb_ctx *c, bir_set *set, const char *base, uint32_t type, uint32_t flags)
{
    int64_t id = next_tensor_id(set);
    const char *name = bir_set_fresh_location_name(set, base);
    if (!name) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory"), NULL;
    bir_location *loc = bir_location_add(set, name, type, c->err);
    if (!loc) return NULL;
    loc->tensor_id = id;
    loc->alloc_flags = flags;
    return bir_set_build_tensor_id_map(set, c->err) == SBA_OK ? loc : NULL;
}

static bool same_access(const bir_operand *x, const bir_operand *y)
{
    if (x->offset != y->offset || x->dtype != y->dtype || x->ndims != y->ndims || x->nterms != y->nterms)
        return false;
    if (memcmp(x->ap, y->ap, x->ndims * sizeof *x->ap) != 0) return false;
    for (uint32_t i = 0; i < x->nterms; i++)
        if (x->terms[i].loop != y->terms[i].loop || x->terms[i].coeff != y->terms[i].coeff) return false;
    return true;
}

static sba_status spill_location(spill_state *s, sb_node *nd, bir_location *L)
{
    sb_ctx *c = s->c;
    bir_set *S = L->set;
    char base[600];
    bir_operand home = {0};
    if (nd->load_src) {
        home = *nd->load_src;
    } else {
        snprintf(base, sizeof base, "%s.home", L->name);
        bir_location *h = new_location(c, S, base, BIR_MEM_DRAM, BIR_LOC_SPILL_HOME);
        if (!h) return c->err->code;
        home.set = S;
        home.loc = h;
    }
    /* Snapshot the accesses: the edits below change the operands. */
    uint32_t nw = L->storage.nwriters, nr = L->storage.nreaders;
    bir_access *w = sba_arena_array(&c->ar, (size_t)nw + 1, sizeof *w);
    bir_access *r = sba_arena_array(&c->ar, (size_t)nr + 1, sizeof *r);
    bir_location **tmps = sba_arena_array(&c->ar, (size_t)nr + 1, sizeof *tmps);
    if (!w || !r || !tmps) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    if (nw) memcpy(w, L->storage.writers, nw * sizeof *w); /* an empty list may be NULL */
    if (nr) memcpy(r, L->storage.readers, nr * sizeof *r);
    /* With more than one def, L itself would stay live from the first def to
     * the last store (across whole loops when the defs straddle one): L keeps
     * the first def instruction, each later one writes its own short-lived
     * placement. */
    bir_location *def_tmp = L;
    for (uint32_t k = 0; k < nw; k++) {
        bir_inst *def = w[k].inst;
        if (nd->load_src) {
            s->removed[def->index] = true; /* rematerialized where it is used */
            c->rep->remats++;
            continue;
        }
        bir_operand *op = &def->outs[w[k].operand];
        if (k > 0) {
            if (w[k - 1].inst != def) {
                snprintf(base, sizeof base, "%s.def", L->name);
                def_tmp = new_location(c, S, base, BIR_MEM_SB, BIR_LOC_SPILLED_DEF);
                if (!def_tmp) return c->err->code;
            }
            op->loc = def_tmp;
        }
        bir_operand to = *op;
        to.set = home.set;
        to.loc = home.loc;
        snprintf(base, sizeof base, "%s.spill.%s", def->name, L->name);
        bir_inst *st = dma(c, base, BIR_OP_DMA_STORE, op, &to);
        if (!st || anchor(s, def, st, true) != SBA_OK) return c->err->code;
        c->rep->stores++;
    }
    for (uint32_t k = 0; k < nr; k++) {
        bir_inst *use = r[k].inst;
        bir_operand *op = &use->ins[r[k].operand];
        /* An instruction reading L twice through one pattern needs one reload:
         * two would hold the same value twice over. Its reads are adjacent. */
        uint32_t j = k;
        while (j > 0 && r[j - 1].inst == use && !same_access(&use->ins[r[j - 1].operand], op)) j--;
        if (j > 0 && r[j - 1].inst == use) {
            op->loc = tmps[j - 1];
            tmps[k] = tmps[j - 1];
            continue;
        }
        snprintf(base, sizeof base, "%s.reload", L->name);
        bir_location *tmp = new_location(c, S, base, BIR_MEM_SB, BIR_LOC_RELOAD_TEMP);
        if (!tmp) return c->err->code;
        bir_operand from = *op, into = *op;
        from.set = home.set;
        from.loc = home.loc;
        if (nd->load_src) from.dtype = home.dtype;
        into.loc = tmp;
        snprintf(base, sizeof base, "%s.reload.%s", use->name, L->name);
        bir_inst *ld = dma(c, base, BIR_OP_DMA_LOAD, &from, &into);
        if (!ld || anchor(s, use, ld, false) != SBA_OK) return c->err->code;
        op->loc = tmp;
        tmps[k] = tmp;
        c->rep->reloads++;
    }
    L->alloc_flags |= BIR_LOC_SPILLED_DEF;
    return SBA_OK;
}

/* Rebuilds every block with the anchored instructions in place. */
static sba_status rebuild_block(spill_state *s, bir_block *b)
{
    sb_ctx *c = s->c;
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->ninsts; i++) {
        uint32_t idx = b->insts[i]->index;
        for (uint32_t k = s->before[idx]; k != UINT32_MAX; k = s->list[k].next) n++;
        for (uint32_t k = s->after[idx]; k != UINT32_MAX; k = s->list[k].next) n++;
        n += !s->removed[idx];
    }
    bir_inst **v = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *v);
    if (!v) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    n = 0;
    for (uint32_t i = 0; i < b->ninsts; i++) {
        uint32_t idx = b->insts[i]->index;
        for (uint32_t k = s->before[idx]; k != UINT32_MAX; k = s->list[k].next) v[n++] = s->list[k].inst;
        if (!s->removed[idx]) v[n++] = b->insts[i];
        for (uint32_t k = s->after[idx]; k != UINT32_MAX; k = s->list[k].next) v[n++] = s->list[k].inst;
    }
    return bir_block_set_insts(c->fn, b, v, n, c->err);
}

sba_status sb_insert_spill_code(sb_ctx *c)
{
    bir_function *fn = c->fn;
    uint32_t ni = fn->ninsts;
    spill_state s = {c, NULL, 0, 0, sba_arena_array(&c->ar, (size_t)ni + 1, sizeof(uint32_t)),
                     sba_arena_array(&c->ar, (size_t)ni + 1, sizeof(uint32_t)),
                     sba_arena_array(&c->ar, (size_t)ni + 1, sizeof(bool))};
    if (!s.before || !s.after || !s.removed) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < ni; i++) s.before[i] = s.after[i] = UINT32_MAX;
    for (uint32_t r = 0; r < c->n; r++) {
        sb_node *nd = &c->info[r];
        if (nd->rep != r || !nd->spill) continue;
        c->rep->spilled++;
        c->rep->spilled_bytes += (uint64_t)nd->bytes;
        if (sb_dumping(c, SBA_DUMP_SPILL)) {
            sb_log(c, "spill %s: %lld bytes, cost %.0f, live [%u, %u]", nd->loc->name, (long long)nd->bytes,
                   nd->cost, nd->start, nd->end);
            for (uint64_t e = c->eint_of[r]; e < c->eint_of[r + 1] && e < c->eint_of[r] + 64; e++)
                sb_log(c, "  eInterval{start=%u, end=%u, block=%lld}", c->eint[e].start, c->eint[e].end,
                       (long long)c->eint[e].block);
        }
        for (uint32_t m = r; m != SB_NO_NODE; m = c->info[m].next_member) {
            sba_status st = spill_location(&s, nd, c->info[m].loc);
            if (st != SBA_OK) return st;
        }
    }
    /* Every block: the function's and every loop's; loops are found through the
     * original instruction list, which the rebuild does not change. */
    for (uint32_t b = 0; b < fn->nblocks; b++) {
        sba_status st = rebuild_block(&s, fn->blocks[b]);
        if (st != SBA_OK) return st;
    }
    for (uint32_t i = 0; i < ni; i++) {
        bir_inst *in = fn->insts[i];
        if (in->opcode != BIR_OP_LOOP) continue;
        for (uint32_t b = 0; b < in->nblocks; b++) {
            sba_status st = rebuild_block(&s, in->blocks[b]);
            if (st != SBA_OK) return st;
        }
    }
    sba_status st = bir_function_reindex(fn, c->err);
    if (st == SBA_OK) st = bir_function_build_def_use(fn, c->err);
    return st;
}

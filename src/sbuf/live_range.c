/* live_range and create_eintervals: the 2-D-plus-time live model.
 *
 * Time: a node is live from its first def to its last use, in program points,
 * extended across loops as the seed's _with_loop pass does: with c the common
 * prefix of the def's and the use's loop nests, a def nested deeper than c
 * moves to the header of the loop at depth c, a use nested deeper moves to
 * that loop's end (the back edge). A value carried around a back edge — in
 * some loop, a read in one iteration may see what an earlier iteration wrote
 * (bir_live_note) — is live across that whole loop. An input is defined at entry; an output
 * (pre-placed) stays live to the end of the function. The rule itself is
 * bir/live.c, shared with the PSUM and DRAM allocators; this pass applies it
 * to partner groups and adds the shrink factor.
 *
 * Space: the partition span is the tensor's P; the byte span is liveN ×
 * bytesPerBlock, where liveN = NBlocks / shrink. The shrink factor is the trip
 * count of the loop L when every access selects its block by L's axis (same
 * first block and step), the node is not carried around L, and no plain read
 * (a constant block or all blocks) is present; NBlocks must be a multiple of it.
 * A footprint beyond the partition budget is an error: "<name> is too big for
 * SB, requires <N> bytes with SB size <M>".
 *
 * create_eintervals folds the result into one eInterval{start, end, block} per
 * node and live block.
 *
 * Requires: find_first_defs, find_last_uses. Produces: start, end, live_n,
 * bytes, loop_carried; c->eint. Complexity: O(Σ accesses × loop depth). */
#include <assert.h>
#include <string.h>

#include "base/error.h"
#include "bir/live.h"
#include "sbuf/sbuf.h"

/* The seed's setLiveN: NBlocks / shrink, which must divide. */
static int64_t live_n_of(int64_t nblocks, int64_t shrink)
{
    assert(nblocks % shrink == 0 && "number of blocks is not a multiple of shrink factor");
    return nblocks / shrink;
}

/* The def/use anchors with the common-nest extension (bir/live.c, shared
 * with the PSUM and DRAM allocators). */
static void anchor_interval(sb_ctx *c, sb_node *nd)
{
    bir_live_anchor(&c->lin, nd->first_def, nd->last_use, nd->entry_def, &nd->start, &nd->end);
}

typedef struct shrink_state {
    bool ok, any;
    const bir_inst *loop;
    int64_t coeff, first;
} shrink_state;

static sba_status note_shrink(sb_ctx *c, shrink_state *s, const bir_inst *in, const bir_operand *op)
{
    bir_footprint fp;
    if (bir_operand_footprint(in, op, &fp, c->err) != SBA_OK) return c->err->code;
    if (fp.blocks != BIR_BLOCKS_AXIS || fp.block_coeff < 1) {
        s->ok = false; /* a plain read or write disables the shrink path */
        return SBA_OK;
    }
    if (!s->any) {
        /* keep ok: a plain access seen before the first axis-indexed one still disables */
        *s = (shrink_state){s->ok, true, fp.block_loop, fp.block_coeff, fp.block};
    } else if (fp.block_loop != s->loop || fp.block_coeff != s->coeff || fp.block != s->first) {
        s->ok = false;
    }
    return SBA_OK;
}

/* For how many of its outer loops the read through op sees only what a
 * write of the group r left earlier in the same iteration
 * (bir_live_read_local_depth). */
static uint32_t read_local(const sb_ctx *c, uint32_t r, const bir_inst *in, const bir_operand *op)
{
    uint32_t best = 0;
    for (uint32_t m = r; m != SB_NO_NODE; m = c->info[m].next_member) {
        const bir_storage *s = &c->info[m].loc->storage;
        for (uint32_t k = 0; k < s->nwriters; k++) {
            const bir_inst *w = s->writers[k].inst;
            uint32_t d = bir_live_read_local_depth(&c->lin, in, op, w, &w->outs[s->writers[k].operand]);
            if (d > best) best = d;
        }
    }
    return best;
}

/* The seed's shrinkDim: the B axis (before the partition dimension) whose
 * index the loop steps, i.e. whose stride in blocks is the loop's block
 * coefficient and whose extent the trip count divides; -1 when none is. */
static int32_t shrink_dim_of(const bir_set *s, int64_t coeff, int64_t trips)
{
    int64_t stride = 1;
    for (int32_t d = s->partition_dim - 1; d >= 0; d--) {
        if (stride == coeff && s->shape[d] % trips == 0) return d;
        stride *= s->shape[d];
    }
    return -1;
}

/* The physical blocks (liveN) of group r and the seed's shrinkDim: NBlocks /
 * shrink when every access of every member selects its block by one loop's
 * axis and the value is not carried around that loop, else NBlocks (and -1).
 * Leaves the group's accesses noted in ls, for the interval. */
static sba_status group_live_n(sb_ctx *c, bir_live_scratch *ls, uint32_t r, int64_t *live_n, int32_t *shrink_dim)
{
    const sb_node *nd = &c->info[r];
    shrink_state sh = {true, false, NULL, 0, 0};
    for (uint32_t m = r; m != SB_NO_NODE; m = c->info[m].next_member) {
        const bir_storage *s = &c->info[m].loc->storage;
        for (uint32_t k = 0; k < s->nreaders; k++) {
            sba_status st = note_shrink(c, &sh, s->readers[k].inst, &s->readers[k].inst->ins[s->readers[k].operand]);
            if (st != SBA_OK) return st;
        }
        for (uint32_t k = 0; k < s->nwriters; k++) {
            sba_status st = note_shrink(c, &sh, s->writers[k].inst, &s->writers[k].inst->outs[s->writers[k].operand]);
            if (st != SBA_OK) return st;
        }
    }
    /* A write kills the value where one iteration writes all of it; a read
     * of only what an earlier write of the same iteration left (the block
     * this iteration uses, say) sees no earlier iteration (bir_live_note). */
    bir_live_begin(ls);
    for (uint32_t m = r; m != SB_NO_NODE; m = c->info[m].next_member) {
        const bir_storage *s = &c->info[m].loc->storage;
        for (uint32_t k = 0; k < s->nreaders; k++) {
            const bir_inst *in = s->readers[k].inst;
            const bir_operand *op = &in->ins[s->readers[k].operand];
            bir_live_note(ls, in, op, false, read_local(c, r, in, op));
        }
        for (uint32_t k = 0; k < s->nwriters; k++) {
            const bir_inst *w = s->writers[k].inst;
            bir_live_note(ls, w, &w->outs[s->writers[k].operand], true, 0);
        }
    }
    *live_n = nd->nblocks;
    *shrink_dim = -1;
    if (sh.ok && sh.any && nd->nblocks > 1) {
        int64_t trips = bir_loop_trip_count(sh.loop);
        bool carried = bir_live_carried_in(ls, sh.loop);
        if (!carried && trips > 1 && nd->nblocks % trips == 0) {
            *live_n = live_n_of(nd->nblocks, trips);
            *shrink_dim = shrink_dim_of(nd->loc->set, sh.coeff, trips);
        }
    }
    return SBA_OK;
}

int64_t sb_group_live_bytes(sb_ctx *c, bir_live_scratch *ls, uint32_t r)
{
    int64_t live_n = c->info[r].nblocks;
    int32_t dim;
    if (!ls || group_live_n(c, ls, r, &live_n, &dim) != SBA_OK) live_n = c->info[r].nblocks;
    return live_n * c->info[r].bytes_per_block;
}

static sba_status node_live_range(sb_ctx *c, bir_live_scratch *ls, uint32_t r)
{
    sb_node *nd = &c->info[r];
    anchor_interval(c, nd);
    int64_t live_n;
    int32_t shrink_dim;
    sba_status st = group_live_n(c, ls, r, &live_n, &shrink_dim);
    if (st != SBA_OK) return st;
    nd->loop_carried = false;
    for (uint32_t m = r; m != SB_NO_NODE; m = c->info[m].next_member) {
        const bir_storage *s = &c->info[m].loc->storage;
        for (uint32_t k = 0; k < s->nreaders; k++)
            nd->loop_carried |= bir_live_extend(ls, s->readers[k].inst, &nd->start, &nd->end);
        for (uint32_t k = 0; k < s->nwriters; k++)
            nd->loop_carried |= bir_live_extend(ls, s->writers[k].inst, &nd->start, &nd->end);
    }
    if (nd->output) nd->end = c->lin.npoints ? c->lin.npoints - 1 : 0;
    nd->shrink_dim = -1;
    if (!nd->precoloured) {
        nd->live_n = live_n;
        nd->shrink_dim = shrink_dim;
    }
    int64_t raw = nd->live_n * nd->bytes_per_block, align = c->t->sbuf_align;
    nd->bytes = (raw + align - 1) / align * align;
    if (nd->precoloured) {
        if (nd->addr + raw > c->t->sbuf_bytes)
            return sba_err(c->err, SBA_ERR_MODEL, "pre-placed %s ends at byte %lld, beyond the SB size %lld",
                           nd->loc->name, (long long)(nd->addr + raw), (long long)c->t->sbuf_bytes);
    } else if (nd->bytes > c->t->sbuf_bytes) {
        /* the aligned footprint: the raw one may be within the size and still not fit */
        char src[96];
        return sba_err(c->err, SBA_ERR_ALLOC, "%s%s is too big for SB, requires %lld bytes with SB size %lld",
                       nd->loc->name, bir_inst_source(nd->first_def, src, sizeof src), (long long)nd->bytes,
                       (long long)c->t->sbuf_bytes);
    }
    return SBA_OK;
}

/* The seed's firstDefs / lastUses: representatives bucketed by the point
 * that starts (the def, or the loop header it moved to) and ends (the use,
 * or the loop end) their interval, in id order within a point. */
static sba_status bucket(sb_ctx *c, bool by_end, uint32_t **ids, uint32_t **of)
{
    uint32_t np = c->lin.npoints;
    *of = sba_arena_array(&c->ar, (size_t)np + 2, sizeof **of);
    *ids = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof **ids);
    if (!*of || !*ids) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t r = 0; r < c->n; r++)
        if (c->info[r].rep == r) (*of)[(by_end ? c->info[r].end : c->info[r].start) + 1]++;
    for (uint32_t p = 0; p < np; p++) (*of)[p + 1] += (*of)[p];
    uint32_t *fill = sba_arena_array(&c->ar, (size_t)np + 1, sizeof *fill);
    if (!fill) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    memcpy(fill, *of, (size_t)np * sizeof *fill);
    for (uint32_t r = 0; r < c->n; r++)
        if (c->info[r].rep == r) (*ids)[fill[by_end ? c->info[r].end : c->info[r].start]++] = r;
    return SBA_OK;
}

static sba_status build_maps(sb_ctx *c)
{
    sba_status st = bucket(c, false, &c->first_defs, &c->first_defs_of);
    return st == SBA_OK ? bucket(c, true, &c->last_uses, &c->last_uses_of) : st;
}

sba_status sb_live_range(sb_ctx *c)
{
    bir_live_scratch ls;
    if (!bir_live_scratch_init(&ls, &c->lin, &c->ar)) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t r = 0; r < c->n; r++) {
        if (c->info[r].rep != r) continue;
        sba_status st = node_live_range(c, &ls, r);
        if (st != SBA_OK) return st;
    }
    sba_status st = build_maps(c);
    if (st != SBA_OK) return st;
    /* Members share their representative's interval and footprint. */
    for (uint32_t i = 0; i < c->n; i++) {
        sb_node *nd = &c->info[i];
        if (nd->rep == i) continue;
        const sb_node *r = &c->info[nd->rep];
        nd->start = r->start;
        nd->end = r->end;
        nd->live_n = r->live_n;
        nd->shrink_dim = r->shrink_dim;
        nd->bytes = r->bytes;
    }
    return SBA_OK;
}

sba_status sb_create_eintervals(sb_ctx *c)
{
    c->eint_of = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *c->eint_of);
    if (!c->eint_of) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    uint64_t total = 0;
    for (uint32_t r = 0; r < c->n; r++) {
        c->eint_of[r] = total;
        if (c->info[r].rep == r) total += (uint64_t)c->info[r].live_n;
    }
    c->eint_of[c->n] = total;
    c->neint = total;
    c->eint = sba_arena_array(&c->ar, (size_t)total + 1, sizeof *c->eint);
    if (!c->eint) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    /* The seed walks the maps: each node from the point that first defines
     * it; its end is where it is last used. */
    for (uint32_t p = 0; p < c->lin.npoints; p++)
        for (uint32_t k = c->first_defs_of[p]; k < c->first_defs_of[p + 1]; k++) {
            const sb_node *nd = &c->info[c->first_defs[k]];
            for (int64_t b = 0; b < nd->live_n; b++)
                c->eint[c->eint_of[c->first_defs[k]] + (uint64_t)b] = (sb_einterval){nd->start, nd->end, b};
        }
    if (!sb_dumping(c, SBA_DUMP_LIVE)) return SBA_OK;
    for (uint32_t r = 0; r < c->n; r++) {
        const sb_node *nd = &c->info[r];
        if (nd->rep != r) continue;
        char dim[32] = "";
        if (nd->live_n < nd->nblocks) snprintf(dim, sizeof dim, ", shrink dim %d", nd->shrink_dim);
        sb_log(c, "live %s: [%u, %u] x %lld block%s x %lld bytes%s%s%s", nd->loc->name, nd->start, nd->end,
               (long long)nd->live_n, nd->live_n == 1 ? "" : "s", (long long)nd->bytes_per_block, dim,
               nd->loop_carried ? " (loop-carried)" : "", nd->precoloured ? " (precoloured)" : "");
        for (uint64_t e = c->eint_of[r]; e < c->eint_of[r + 1] && e < c->eint_of[r] + 64; e++)
            sb_log(c, "  eInterval{start=%u, end=%u, block=%lld}", c->eint[e].start, c->eint[e].end,
                   (long long)c->eint[e].block);
    }
    return SBA_OK;
}

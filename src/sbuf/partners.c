/* find_partners: conservative coalescing before the graph is built.
 *
 * Two placements become partners — one node, one storage region — when an
 * elementwise instruction (TensorCopy, TensorTensor, TensorScalar, Activation)
 * reads one (a) and writes the other (b) through identical access patterns,
 * a dies there and b is born there, and both live in the instruction's own
 * loop nest without being carried around a back edge. That covers the copy
 * whose source dies at the copy (the copy becomes a no-op) and the chain
 * acc1 = acc0 ⊕ x (an in-place accumulation). Members thus never hold two
 * different live values at once, and an instruction contributes at most one
 * pair, so two operands read together are never partners. A GpSimd library
 * instruction (Gather, TopK, ...) never pairs: it re-reads its inputs while
 * it writes (bir_opcode_rereads_inputs).
 *
 * Members are compared by the partition offset of their access (the seed's
 * (tp, base) comparator); the transitive expansion is a union-find; the Briggs
 * conservative gate refuses a group whose bytes per partition exceed the SB
 * capacity: the log says "accumulation group is too large for SB" and partners
 * are disabled for the function. A group select cannot place is split back
 * into its members for the next iteration before anything is spilled (the
 * partner retry, sb_split_failed_groups).
 *
 * Requires: renumber_locations, a linearization, def-use lists. Produces:
 * node.rep and member chains. Complexity: O(A + n α(n)). */
#include <string.h>

#include "base/error.h"
#include "bir/live.h"
#include "sbuf/sbuf.h"

static uint32_t find(sb_node *info, uint32_t i)
{
    while (info[i].rep != i) {
        info[i].rep = info[info[i].rep].rep;
        i = info[i].rep;
    }
    return i;
}

static bool same_ap(const bir_operand *x, const bir_operand *y)
{
    if (x->offset != y->offset || x->ndims != y->ndims || x->nterms != y->nterms) return false;
    if (bir_dtype_size(x->dtype) != bir_dtype_size(y->dtype)) return false;
    if (memcmp(x->ap, y->ap, x->ndims * sizeof *x->ap) != 0) return false;
    for (uint32_t i = 0; i < x->nterms; i++)
        if (x->terms[i].loop != y->terms[i].loop || x->terms[i].coeff != y->terms[i].coeff) return false;
    return true;
}

static bool same_nest(const sb_ctx *c, const bir_inst *x, const bir_inst *y)
{
    uint32_t d = c->lin.depth[x->index];
    if (d != c->lin.depth[y->index]) return false;
    return d == 0 || c->lin.nest[x->index][d - 1] == c->lin.nest[y->index][d - 1];
}

/* Every access of loc is in in's loop nest and on the right side of point p:
 * before or at it (a dies at p, its first access a write) or at or after it
 * (b is born at p by a write). And the value is carried around no loop
 * (bir/live.h): a first write that leaves bytes a later read of the same
 * iteration sees makes those bytes the previous iteration's, so it is not a
 * birth. */
static bool confined(const sb_ctx *c, bir_live_scratch *ls, bir_location *loc, const bir_inst *in, bool dies)
{
    uint32_t p = c->lin.point_of[in->index], first = UINT32_MAX, last = 0;
    bool first_is_write = false;
    for (int w = 0; w < 2; w++) {
        const bir_access *acc = w ? loc->storage.writers : loc->storage.readers;
        uint32_t n = w ? loc->storage.nwriters : loc->storage.nreaders;
        for (uint32_t k = 0; k < n; k++) {
            const bir_inst *x = acc[k].inst;
            uint32_t q = c->lin.point_of[x->index];
            if (!same_nest(c, x, in)) return false;
            if (q < first || (q == first && !w)) {
                first = q;
                first_is_write = w;
            }
            if (q > last) last = q;
        }
    }
    if (!first_is_write || (dies ? last != p : first != p)) return false;
    bir_live_interval iv;
    return c->lin.depth[in->index] == 0 || !bir_live_locations(ls, &loc, 1, false, &iv) || !iv.carried;
}

static bool elementwise(uint32_t op)
{
    return op == BIR_OP_TENSOR_COPY || op == BIR_OP_TENSOR_TENSOR || op == BIR_OP_TENSOR_SCALAR ||
           op == BIR_OP_ACTIVATION;
}

static bool colorable_node(const sb_node *nd)
{
    return !nd->precoloured && !nd->output && !nd->unspillable;
}

static bool split_before(const sb_ctx *c, const bir_location *loc)
{
    for (uint32_t i = 0; i < c->nsplit; i++)
        if (c->split[i] == loc) return true;
    return false;
}

static void pair_for(sb_ctx *c, bir_live_scratch *ls, bir_inst *in)
{
    if (bir_opcode_rereads_inputs(in->opcode) || !elementwise(in->opcode) || in->nouts != 1) return;
    const bir_operand *out = &in->outs[0];
    if (!out->loc || out->loc->type != BIR_MEM_SB || sb_node_of(c, out->loc) == SB_NO_NODE) return;
    uint32_t b = sb_node_of(c, out->loc);
    if (!colorable_node(&c->info[b]) || split_before(c, out->loc)) return;
    for (uint32_t k = 0; k < in->nins; k++)
        if (in->ins[k].loc == out->loc) return;
    for (uint32_t k = 0; k < in->nins; k++) {
        const bir_operand *op = &in->ins[k];
        if (!op->loc || op->loc->type != BIR_MEM_SB || sb_node_of(c, op->loc) == SB_NO_NODE) continue;
        uint32_t a = sb_node_of(c, op->loc);
        const sb_node *na = &c->info[a], *nb = &c->info[b];
        if (!colorable_node(na) || split_before(c, op->loc) || na->partitions != nb->partitions || na->nblocks != nb->nblocks ||
            na->bytes_per_block != nb->bytes_per_block || !same_ap(op, out))
            continue;
        /* a must not be read again by this instruction through another pattern. */
        bool other = false;
        for (uint32_t j = 0; j < in->nins; j++)
            other |= j != k && in->ins[j].loc == op->loc && !same_ap(&in->ins[j], op);
        if (other || !confined(c, ls, op->loc, in, true) || !confined(c, ls, out->loc, in, false)) continue;
        uint32_t ra = find(c->info, a), rb = find(c->info, b);
        if (ra == rb) continue;
        uint32_t mask = c->info[ra].base_mask & c->info[rb].base_mask;
        if (sb_height_for_mask(nb->partitions, mask) == SB_HEIGHTS) continue;
        bir_footprint fa, fb;
        if (bir_operand_footprint(in, op, &fa, c->err) != SBA_OK ||
            bir_operand_footprint(in, out, &fb, c->err) != SBA_OK)
            return;
        /* the seed's comparator: the same partition offset in both tensors */
        if (fa.part_lo != fb.part_lo) continue;
        uint32_t lo = ra < rb ? ra : rb, hi = ra < rb ? rb : ra;
        c->info[hi].rep = lo;
        c->info[lo].base_mask = mask;
        return; /* one pair per instruction */
    }
}

sba_status sb_find_partners(sb_ctx *c)
{
    sb_log(c, "find partners");
    uint32_t groups = 0, members = 0;
    if (c->partners_enabled) {
        bir_live_scratch ls;
        if (!bir_live_scratch_init(&ls, &c->lin, &c->ar)) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < c->fn->ninsts; i++) pair_for(c, &ls, c->fn->insts[i]);
        if (c->err->code != SBA_OK) return c->err->code;
    }
    /* expand: every member points at its representative, chained from it. */
    for (uint32_t i = 0; i < c->n; i++) c->info[i].rep = find(c->info, i);
    for (uint32_t i = c->n; i-- > 0;) {
        uint32_t r = c->info[i].rep;
        if (r == i) continue;
        c->info[i].next_member = c->info[r].next_member;
        c->info[r].next_member = i;
    }
    int64_t cap = c->t->sbuf_bytes;
    bool too_large = false;
    /* The seed's trace: the group count first, then each group's lines. */
    for (uint32_t r = 0; r < c->n; r++) groups += c->info[r].rep == r && c->info[r].next_member != SB_NO_NODE;
    bir_live_scratch ls;
    bool have_ls = groups && bir_live_scratch_init(&ls, &c->lin, &c->ar);
    sb_log(c, "found %u accumulation groups", groups);
    for (uint32_t r = 0; r < c->n; r++) {
        if (c->info[r].rep != r || c->info[r].next_member == SB_NO_NODE) continue;
        uint32_t count = 0, largest = r;
        /* Members share P, NBlocks and bytesPerBlock; the group takes its
         * live (shrunk) blocks, as live_range counts them — not all of its
         * blocks: a group whose loop keeps one block live needs one
         * block's bytes. */
        int64_t need = sb_group_live_bytes(c, have_ls ? &ls : NULL, r);
        for (uint32_t m = r; m != SB_NO_NODE; m = c->info[m].next_member) count++;
        members += count;
        sb_log(c, "largest = %s", c->info[largest].loc->name);
        sb_log(c, "tensors = %u", count);
        sb_log(c, "requires %lld bytes/partition", (long long)need);
        if (need > cap) {
            sb_log(c, "accumulation group is too large for SB");
            too_large = true;
        }
    }
    if (too_large) {
        /* The Briggs-conservative gate: fall back to the uncoalesced graph. */
        c->partners_enabled = false;
        for (uint32_t i = 0; i < c->n; i++) {
            c->info[i].rep = i;
            c->info[i].next_member = SB_NO_NODE;
            c->info[i].base_mask = c->info[i].own_mask;
        }
        groups = members = 0;
        if (c->rep) c->rep->partners_disabled = true;
    } else {
        sb_log(c, "expanding partners");
    }
    for (uint32_t r = 0; r < c->n; r++) {
        sb_node *nd = &c->info[r];
        if (nd->rep == r && !nd->precoloured) {
            nd->height = sb_height_for_mask(nd->partitions, nd->base_mask);
            nd->band_width = sb_height_band_width(nd->height);
        }
    }
    if (c->rep) {
        c->rep->partner_groups = groups;
        c->rep->partner_members = members;
    }
    return SBA_OK;
}

bool sb_split_failed_groups(sb_ctx *c)
{
    bool any = false;
    for (uint32_t r = 0; r < c->n; r++) {
        const sb_node *nd = &c->info[r];
        if (nd->rep != r || !nd->spill || nd->next_member == SB_NO_NODE) continue;
        for (uint32_t m = r; m != SB_NO_NODE; m = c->info[m].next_member) {
            if (!sba_arena_grow(&c->keep, (void **)&c->split, &c->capsplit, c->nsplit + 1, sizeof *c->split))
                return true; /* the driver sees keep.failed */
            c->split[c->nsplit++] = c->info[m].loc;
        }
        sb_log(c, "partner retry: %s's group does not fit; its members are tried alone", nd->loc->name);
        any = true;
    }
    return any;
}

/* linearize: program points for a function body.
 *
 * Walks the blocks in order. An ordinary instruction takes one point; a Loop
 * takes a header point, then the points of its body, then an end point (the
 * back edge, the seed's opcode-105 terminator). Every instruction also gets its
 * loop nest, outermost first.
 *
 * Requires: a loaded or re-indexed function (fn->insts in program order).
 * Produces: a bir_linear in the caller's arena. Complexity: O(points + Σ nest
 * depth), with an explicit stack so that deep nests cannot overflow the C
 * stack. */
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "sballoc/program.h"

static const char *const point_kind_names[BIR_PT_COUNT] = {"inst", "loop", "end"};

const char *bir_point_kind_name(uint32_t k) { return k < BIR_PT_COUNT ? point_kind_names[k] : NULL; }

int64_t bir_loop_trip_count(const bir_inst *loop)
{
    const bir_loop_axis *a = &loop->axis;
    if (a->ub <= a->lb || a->stride <= 0) return 0;
    return (a->ub - a->lb + a->stride - 1) / a->stride;
}

sba_status bir_linearize(const bir_function *fn, sba_arena *ar, bir_linear *out, sba_error *err)
{
    memset(out, 0, sizeof *out);
    out->fn = fn;
    uint32_t n = fn->ninsts, nloops = 0, maxd = 0;
    for (uint32_t i = 0; i < n; i++) nloops += fn->insts[i]->opcode == BIR_OP_LOOP;
    out->points = sba_arena_array(ar, (size_t)n + nloops + 1, sizeof *out->points);
    out->point_of = sba_arena_array(ar, (size_t)n + 1, sizeof *out->point_of);
    out->end_of = sba_arena_array(ar, (size_t)n + 1, sizeof *out->end_of);
    out->nest = sba_arena_array(ar, (size_t)n + 1, sizeof *out->nest);
    out->depth = sba_arena_array(ar, (size_t)n + 1, sizeof *out->depth);
    bir_inst **stack = sba_arena_array(ar, (size_t)nloops + 1, sizeof *stack);
    if (!out->points || !out->point_of || !out->end_of || !out->nest || !out->depth || !stack)
        return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) out->end_of[i] = UINT32_MAX;

    /* fn->insts is the preorder of the block tree (a Loop before its body), so
     * the open loops form a stack: before each instruction, every open loop
     * that does not hold it ends. */
    uint32_t d = 0, p = 0;
    for (uint32_t i = 0; i <= n; i++) {
        bir_inst *in = i < n ? fn->insts[i] : NULL;
        const bir_inst *holder = in ? in->parent->loop : NULL;
        while (d && stack[d - 1] != holder) {
            bir_inst *loop = stack[--d];
            out->end_of[loop->index] = p;
            out->points[p++] = (bir_point){BIR_PT_LOOP_END, loop};
        }
        if (!in) break;
        out->depth[in->index] = d;
        if (d) {
            bir_inst **nest = sba_arena_array(ar, d, sizeof *nest);
            if (!nest) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
            memcpy(nest, stack, d * sizeof *nest);
            out->nest[in->index] = nest;
        }
        out->point_of[in->index] = p;
        if (in->opcode == BIR_OP_LOOP) {
            out->points[p++] = (bir_point){BIR_PT_LOOP_HEADER, in};
            stack[d++] = in;
            if (d > maxd) maxd = d;
        } else {
            out->points[p++] = (bir_point){BIR_PT_INST, in};
        }
    }
    out->npoints = p;
    out->max_depth = maxd;
    return SBA_OK;
}

/* A linearization with its own arena, for callers outside the library. */
typedef struct owned_linear {
    bir_linear lin; /* first: the public pointer is this member's */
    sba_arena ar;
} owned_linear;

bir_linear *bir_linear_new(const bir_function *fn, const sba_allocator *a, sba_error *err)
{
    owned_linear *o = sba_malloc(a, sizeof *o);
    if (!o) {
        sba_err(err, SBA_ERR_NOMEM, "out of memory");
        return NULL;
    }
    sba_arena_init(&o->ar, a);
    if (bir_linearize(fn, &o->ar, &o->lin, err) != SBA_OK) {
        bir_linear_free(&o->lin);
        return NULL;
    }
    return &o->lin;
}

void bir_linear_free(bir_linear *lin)
{
    if (!lin) return;
    owned_linear *o = (owned_linear *)lin;
    const sba_allocator *a = o->ar.a;
    sba_arena_free(&o->ar);
    sba_free(a, o);
}

/* ---- JSON paths of instructions and operands --------------------------- */

int64_t bir_function_index(const bir_function *fn)
{
    for (uint32_t i = 0; fn->module && i < fn->module->nfns; i++)
        if (fn->module->fns[i] == fn) return i;
    return 0;
}

/* The ancestor of `in` that is `up` loops above it (0: in itself). */
static const bir_inst *ancestor(const bir_inst *in, uint32_t up)
{
    while (up--) in = in->parent->loop;
    return in;
}

const char *bir_inst_path(const bir_function *fn, const bir_inst *in, const bir_operand *op,
                          char *buf, size_t size)
{
    if (!size) return buf;
    buf[0] = '\0';
    if (!fn || !in || !in->parent) return buf;
    uint32_t depth = 0;
    for (const bir_inst *c = in; c->parent->loop; c = c->parent->loop) {
        if (!c->parent->loop->parent) return buf;
        depth++;
    }
    size_t len = 0;
    sba_appendf(buf, size, &len, "functions[%lld]", (long long)bir_function_index(fn));
    for (uint32_t up = depth + 1; up-- > 0;) {
        const bir_inst *a = ancestor(in, up);
        const bir_block *blk = a->parent;
        bir_block *const *owner = blk->loop ? blk->loop->blocks : fn->blocks;
        uint32_t nowner = blk->loop ? blk->loop->nblocks : fn->nblocks, b = 0, i = 0;
        while (b < nowner && owner[b] != blk) b++;
        while (i < blk->ninsts && blk->insts[i] != a) i++;
        if (b == nowner || i == blk->ninsts) {
            buf[0] = '\0';
            return buf;
        }
        sba_appendf(buf, size, &len, ".blocks[%u].instructions[%u]", b, i);
    }
    for (uint32_t k = 0; op && k < in->nins; k++)
        if (&in->ins[k] == op) sba_appendf(buf, size, &len, ".ins[%u]", k);
    for (uint32_t k = 0; op && k < in->nouts; k++)
        if (&in->outs[k] == op) sba_appendf(buf, size, &len, ".outs[%u]", k);
    return buf;
}

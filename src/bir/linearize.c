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

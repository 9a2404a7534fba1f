/* validate: static checks of a loaded program against its target.
 *
 * In order, the first failure wins:
 *   1. every set with an SB or PSUM placement has at most the target's
 *      partitions;
 *   2. in program order, every memory operand names a placement of its own
 *      set, lies inside its tensor with an allowed start partition
 *      (bir_operand_footprint), and a Matmult writes only PSUM ("Matmult dst
 *      tensor is not psum");
 *   3. every read of an Internal tensor is reached by a write: a use at point
 *      u needs a def at a point before u, or a def anywhere inside a loop that
 *      encloses u (a value carried around the back edge). Inputs and Const
 *      tensors are defined at entry; the others are not checked. Failures are
 *      counted per tensor, in the public compiler's words "N memlocs were
 *      undefined at use point", listing each tensor's first undefined read.
 * Loop axes, strides and bounds, and memsetref/memref names, are checked by
 * the loader.
 *
 * Errors carry the JSON path of the offending value (bir_inst_path, linearize.c).
 *
 * Requires: a loaded function with def-use lists (bir_function_build_def_use).
 * Produces: nothing; a scratch arena is freed before returning. Complexity:
 * O(points + operands × footprint + Σ reads × log writes) per function. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "sballoc/program.h"

enum { MAX_LISTED = 8 };

typedef struct validator {
    const bir_function *fn;
    const sba_target *t;
    sba_error *err;
    sba_arena *ar;
    bir_linear lin;
} validator;

/* One tensor's first read that no write reaches. */
typedef struct undefined_use {
    const bir_set *set;
    const bir_inst *in;
    uint32_t operand;
    uint32_t point;
} undefined_use;

/* ---- paths ------------------------------------------------------------- */

/* ---- checks ------------------------------------------------------------ */

static bool has_type(const bir_set *s, uint32_t types)
{
    for (uint32_t i = 0; i < s->nlocs; i++)
        if (s->locs[i]->type & types) return true;
    return false;
}

static sba_status check_partitions(const validator *v)
{
    for (uint32_t i = 0; i < v->fn->nsets; i++) {
        const bir_set *s = v->fn->sets[i];
        int64_t p = bir_set_partitions(s);
        if (!has_type(s, BIR_MEM_SB | BIR_MEM_PSUM) || p <= (int64_t)v->t->partitions) continue;
        char path[256];
        snprintf(path, sizeof path, "functions[%lld].allocations[%u].tensor_shape[%d]",
                 (long long)bir_function_index(v->fn), i, s->partition_dim);
        return sba_err_path(v->err, SBA_ERR_PROGRAM, path, "tensor \"%s\" has %lld partitions; the "
                            "target has %u", s->name, (long long)p, v->t->partitions);
    }
    return SBA_OK;
}

/* Only DRAM, SB and PSUM hold a placement (seed 003): an address, base or
 * bank on any other memory type would be taken for one by a later reader. */
static sba_status check_placeable(const validator *v)
{
    for (uint32_t i = 0; i < v->fn->nsets; i++)
        for (uint32_t l = 0; l < v->fn->sets[i]->nlocs; l++) {
            const bir_location *loc = v->fn->sets[i]->locs[l];
            const char *key = loc->addr != BIR_NO_ADDR ? "addr" : loc->base != BIR_NO_BASE ? "base"
                            : loc->has_bank ? "bank" : NULL;
            if (!key || bir_is_placeable(loc->type)) continue;
            char path[256];
            snprintf(path, sizeof path, "functions[%lld].allocations[%u].memorylocations[%u].%s",
                     (long long)bir_function_index(v->fn), i, l, key);
            return sba_err_path(v->err, SBA_ERR_MODEL, path, "location \"%s\" of type %s has a placement (%s); "
                                "only DRAM, SB and PSUM are placeable", loc->name,
                                bir_memory_type_name(loc->type) ? bir_memory_type_name(loc->type) : "?", key);
        }
    return SBA_OK;
}

static sba_status check_operand(const validator *v, const bir_inst *in, const bir_operand *op,
                                const char *role, uint32_t k)
{
    if (op->kind != BIR_OPND_PHYSICAL_AP && op->kind != BIR_OPND_SYMBOLIC_AP) return SBA_OK;
    char path[256], src[96];
    bir_inst_source(in, src, sizeof src);
    if (!op->set)
        return sba_err_path(v->err, SBA_ERR_PROGRAM, bir_inst_path(v->fn, in, op, path, sizeof path),
                            "%s[%u] of instruction \"%s\"%s names no tensor", role, k, in->name, src);
    if (op->loc && op->loc->set != op->set)
        return sba_err_path(v->err, SBA_ERR_PROGRAM, bir_inst_path(v->fn, in, op, path, sizeof path),
                            "%s[%u] of instruction \"%s\"%s: memref \"%s\" is not a memory location of "
                            "set \"%s\"", role, k, in->name, src, op->loc->name, op->set->name);
    bir_footprint fp;
    return bir_operand_footprint(in, op, &fp, v->err);
}

static sba_status check_inst(const validator *v, const bir_inst *in)
{
    sba_status s;
    for (uint32_t k = 0; k < in->nins; k++)
        if ((s = check_operand(v, in, &in->ins[k], "ins", k)) != SBA_OK) return s;
    for (uint32_t k = 0; k < in->nouts; k++)
        if ((s = check_operand(v, in, &in->outs[k], "outs", k)) != SBA_OK) return s;
    if (in->opcode != BIR_OP_MATMULT) return SBA_OK;
    for (uint32_t k = 0; k < in->nouts; k++) {
        const bir_operand *op = &in->outs[k];
        if (op->kind != BIR_OPND_PHYSICAL_AP && op->kind != BIR_OPND_SYMBOLIC_AP) continue;
        const bir_location *loc = op->loc ? op->loc : op->set->nlocs ? op->set->locs[0] : NULL;
        if (loc && loc->type == BIR_MEM_PSUM) continue;
        char path[256], src[96];
        const char *where = loc ? bir_memory_type_name(loc->type) : NULL;
        return sba_err_path(v->err, SBA_ERR_PROGRAM, bir_inst_path(v->fn, in, op, path, sizeof path),
                            "Matmult dst tensor is not psum: instruction \"%s\"%s outs[%u] writes "
                            "tensor \"%s\" in %s", in->name, bir_inst_source(in, src, sizeof src), k,
                            op->set->name, where ? where : "no memory");
    }
    return SBA_OK;
}

/* ---- reads that no write reaches --------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_use(const void *a, const void *b)
{
    const undefined_use *x = a, *y = b;
    if (x->point != y->point) return (x->point > y->point) - (x->point < y->point);
    return (x->operand > y->operand) - (x->operand < y->operand);
}

/* Whether some def point in sorted defs[0..n) reaches a use at point u:
 * one before u, or one in [u, end] of u's outermost enclosing loop. */
static bool reached(const validator *v, const uint32_t *defs, uint32_t n, const bir_inst *use)
{
    uint32_t u = v->lin.point_of[use->index];
    if (n && defs[0] < u) return true;
    if (!v->lin.depth[use->index]) return false;
    uint32_t end = v->lin.end_of[v->lin.nest[use->index][0]->index];
    uint32_t lo = 0, hi = n; /* the first def >= u */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (defs[mid] < u) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && defs[lo] <= end;
}

/* The first undefined read of an Internal set, if any. */
static sba_status first_undefined(const validator *v, const bir_set *s, undefined_use *out, bool *found)
{
    *found = false;
    const bir_storage *st = &s->storage;
    if (!st->nreaders) return SBA_OK;
    uint32_t *defs = sba_arena_array(v->ar, st->nwriters + 1, sizeof *defs);
    if (!defs) return sba_err(v->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < st->nwriters; i++) defs[i] = v->lin.point_of[st->writers[i].inst->index];
    qsort(defs, st->nwriters, sizeof *defs, cmp_u32);
    for (uint32_t i = 0; i < st->nreaders; i++) {
        const bir_access *r = &st->readers[i];
        if (reached(v, defs, st->nwriters, r->inst)) continue;
        undefined_use u = {s, r->inst, r->operand, v->lin.point_of[r->inst->index]};
        if (!*found || cmp_use(&u, out) < 0) *out = u;
        *found = true;
    }
    return SBA_OK;
}

static sba_status check_undefined(validator *v)
{
    const bir_function *fn = v->fn;
    undefined_use *uses = sba_arena_array(v->ar, fn->nsets + 1, sizeof *uses);
    if (!uses) return sba_err(v->err, SBA_ERR_NOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < fn->nsets; i++) {
        if (fn->sets[i]->kind != BIR_TK_INTERNAL) continue;
        bool found;
        sba_status s = first_undefined(v, fn->sets[i], &uses[n], &found);
        if (s != SBA_OK) return s;
        n += found;
    }
    if (!n) return SBA_OK;
    qsort(uses, n, sizeof *uses, cmp_use);
    char msg[700], path[256];
    size_t len = 0;
    sba_appendf(msg, sizeof msg, &len, "%u memlocs were undefined at use point:", n);
    for (uint32_t i = 0; i < n && i < MAX_LISTED; i++) {
        char src[96];
        sba_appendf(msg, sizeof msg, &len, "%s tensor \"%s\" read by instruction \"%s\"%s ins[%u]",
               i ? ";" : "", uses[i].set->name, uses[i].in->name, bir_inst_source(uses[i].in, src, sizeof src),
               uses[i].operand);
    }
    if (n > MAX_LISTED) sba_appendf(msg, sizeof msg, &len, "; and %u more", n - MAX_LISTED);
    bir_inst_path(fn, uses[0].in, &uses[0].in->ins[uses[0].operand], path, sizeof path);
    return sba_err_path(v->err, SBA_ERR_PROGRAM, path, "%s", msg);
}

/* ---- entry points ------------------------------------------------------ */

sba_status bir_validate_function(const bir_function *fn, const sba_target *t, sba_error *err)
{
    sba_error_clear(err);
    sba_arena ar;
    sba_arena_init(&ar, fn->module ? fn->module->arena->a : NULL);
    validator v = {.fn = fn, .t = t, .err = err, .ar = &ar};
    sba_status s = check_partitions(&v);
    if (s == SBA_OK) s = check_placeable(&v);
    for (uint32_t i = 0; s == SBA_OK && i < fn->ninsts; i++) s = check_inst(&v, fn->insts[i]);
    if (s == SBA_OK) s = bir_linearize(fn, &ar, &v.lin, err);
    if (s == SBA_OK) s = check_undefined(&v);
    sba_arena_free(&ar);
    return s;
}

sba_status bir_validate_module(const bir_module *m, sba_error *err)
{
    sba_error_clear(err);
    for (uint32_t i = 0; i < m->nfns; i++) {
        sba_status s = bir_validate_function(m->fns[i], &m->target, err);
        if (s != SBA_OK) return s;
    }
    return SBA_OK;
}

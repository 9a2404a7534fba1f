/* Model -> JSON: the canonical writer.
 *
 * Keys are written in one fixed order per object, optional keys only when they
 * carry a value, and the keys the model keeps verbatim (bir_extras) after them
 * in their input order. So a file this writer produced reloads to the same
 * model and re-saves byte-identical. The text is jansson's, two-space indented.
 * A module read in the compiler's spelling (bir_module.spelling) is written
 * back in it: its enum spellings are values of their own, and a key the
 * input lacked (BIR_OMIT_*) stays out while it holds its default.
 *
 * Requires: a module that loaded or was built through the API. Produces: text.
 * Complexity: linear in the module. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "sballoc/bir.h"

typedef struct saver {
    bool failed;
    bool compiler; /* the module's spelling is the compiler's */
} saver;

/* Whether to write a key the object may have been read without. */
static bool keep(const saver *S, uint32_t omitted, uint32_t bit) { return !S->compiler || !(omitted & bit); }

/* json_object_set_new that remembers a failure instead of leaking. */
static void put(saver *S, json_t *obj, const char *key, json_t *v)
{
    if (!v || json_object_set_new(obj, key, v) != 0) S->failed = true;
}

static void append(saver *S, json_t *arr, json_t *v)
{
    if (!v || json_array_append_new(arr, v) != 0) S->failed = true;
}

static void put_extras(saver *S, json_t *obj, const bir_extras *ex)
{
    for (uint32_t i = 0; i < ex->n; i++) {
        json_error_t je;
        json_t *v = json_loads(ex->v[i].json, JSON_DECODE_ANY, &je);
        put(S, obj, ex->v[i].key, v);
    }
}

static json_t *int_pair(int64_t a, int64_t b)
{
    return json_pack("[II]", (json_int_t)a, (json_int_t)b);
}

static json_t *save_location(saver *S, const bir_location *loc, uint32_t pos)
{
    json_t *o = json_object();
    if (!o) return S->failed = true, NULL;
    put(S, o, "name", json_string(loc->name));
    put(S, o, "type", json_string(bir_memory_type_name(loc->type)));
    if (loc->addr != BIR_NO_ADDR) put(S, o, "addr", json_integer(loc->addr));
    if (loc->base != BIR_NO_BASE) put(S, o, "base", json_integer(loc->base));
    if (loc->has_bank) put(S, o, "bank", json_integer(loc->bank));
    if (loc->has_dims) put(S, o, "dims", int_pair(loc->dims[0], loc->dims[1]));
    if (loc->live_n > 0) put(S, o, "live_n", json_integer(loc->live_n));
    if (loc->pack_id_hint != -1) put(S, o, "pack_id_hint", json_integer(loc->pack_id_hint));
    /* an absent tensor_id is the location's position in its set */
    if (loc->tensor_id != (int64_t)pos || keep(S, loc->omitted, BIR_OMIT_TENSOR_ID))
        put(S, o, "tensor_id", json_integer(loc->tensor_id));
    if (loc->var_id != BIR_NO_ID) put(S, o, "var_id", json_integer(loc->var_id));
    if (loc->table_entry_id != BIR_NO_ID) put(S, o, "table_entry_id", json_integer(loc->table_entry_id));
    if (loc->memloc_set_id != BIR_NO_ID) put(S, o, "memloc_set_id", json_integer(loc->memloc_set_id));
    if (loc->allocated || keep(S, loc->omitted, BIR_OMIT_ALLOCATED)) put(S, o, "allocated", json_boolean(loc->allocated));
    if (loc->pinned) put(S, o, "pinned", json_true());
    if (loc->storage.user_allocated) put(S, o, "user_allocated", json_true());
    if (loc->nalias) {
        json_t *a = json_array();
        for (uint32_t i = 0; i < loc->nalias; i++) {
            const bir_location *peer = bir_alias_peer(loc->alias[i]);
            append(S, a, json_pack("[ssi]", peer->set->name, peer->name, (int)bir_alias_kind(loc->alias[i])));
        }
        put(S, o, "alias", a);
    }
    put_extras(S, o, &loc->extras);
    return o;
}

static json_t *save_set(saver *S, const bir_set *set)
{
    json_t *o = json_object();
    if (!o) return S->failed = true, NULL;
    put(S, o, "name", json_string(set->name));
    if (set->kind != BIR_TK_INTERNAL || keep(S, set->omitted, BIR_OMIT_KIND))
        put(S, o, "kind", json_string(bir_tensor_kind_name(set->kind)));
    if (set->tensor_class != BIR_TC_TENSOR || keep(S, set->omitted, BIR_OMIT_TENSOR_CLASS))
        put(S, o, "tensor_class", json_string(bir_tensor_class_name(set->tensor_class)));
    put(S, o, "dtype", json_string(bir_dtype_name(set->dtype)));
    json_t *shape = json_array();
    for (uint32_t i = 0; i < set->rank; i++) append(S, shape, json_integer(set->shape[i]));
    put(S, o, "tensor_shape", shape);
    if (set->partition_dim != 0 || keep(S, set->omitted, BIR_OMIT_PARTITION_DIM))
        put(S, o, "partition_dim", json_integer(set->partition_dim));
    if (set->addr_space != BIR_AS_LOCAL || keep(S, set->omitted, BIR_OMIT_ADDR_SPACE))
        put(S, o, "addr_space", json_string(bir_addr_space_name(set->addr_space)));
    if (set->storage.user_allocated) put(S, o, "user_allocated", json_true());
    json_t *locs = json_array();
    for (uint32_t i = 0; i < set->nlocs; i++) append(S, locs, save_location(S, set->locs[i], i));
    put(S, o, "memorylocations", locs);
    put_extras(S, o, &set->extras);
    return o;
}

static json_t *save_operand(saver *S, const bir_operand *op)
{
    if (op->kind == BIR_OPND_OTHER) {
        json_error_t je;
        json_t *v = json_loads(op->raw, 0, &je);
        if (!v) S->failed = true;
        return v;
    }
    json_t *o = json_object();
    if (!o) return S->failed = true, NULL;
    /* An operand the allocator points at a placement of its own names its set too. */
    bool moved = op->loc->alloc_flags != 0;
    if (op->kind != BIR_OPND_PHYSICAL_AP || keep(S, op->omitted, BIR_OMIT_KIND))
        put(S, o, "kind", json_string(op->kind == BIR_OPND_SYMBOLIC_AP ? "symbolic_ap" : "physical_ap"));
    if (moved || keep(S, op->omitted, BIR_OMIT_MEMSETREF)) put(S, o, "memsetref", json_string(op->set->name));
    if (op->loc != op->set->locs[0] || keep(S, op->omitted, BIR_OMIT_MEMREF))
        put(S, o, "memref", json_string(op->loc->name));
    if (op->dtype != op->set->dtype || keep(S, op->omitted, BIR_OMIT_DTYPE))
        put(S, o, "dtype", json_string(bir_dtype_name(op->dtype)));
    if (op->offset != 0 || keep(S, op->omitted, BIR_OMIT_OFFSET)) put(S, o, "offset", json_integer(op->offset));
    json_t *ap = json_array();
    for (uint32_t i = 0; i < op->ndims; i++) append(S, ap, int_pair(op->ap[i][0], op->ap[i][1]));
    put(S, o, "ap", ap);
    if (op->nterms) {
        json_t *t = json_array();
        for (uint32_t i = 0; i < op->nterms; i++)
            append(S, t, json_pack("[sI]", op->terms[i].loop->axis.name, (json_int_t)op->terms[i].coeff));
        put(S, o, "terms", t);
    }
    put_extras(S, o, &op->extras);
    return o;
}

static json_t *save_blocks(saver *S, bir_block *const *blocks, uint32_t n);

static json_t *save_operands(saver *S, const bir_operand *ops, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++) append(S, a, save_operand(S, &ops[i]));
    return a;
}

static json_t *save_inst(saver *S, const bir_inst *in)
{
    json_t *o = json_object();
    if (!o) return S->failed = true, NULL;
    put(S, o, "name", json_string(in->name));
    put(S, o, "opcode", json_string(in->opcode_name));
    if (in->engine != BIR_ENG_UNASSIGNED || keep(S, in->omitted, BIR_OMIT_ENGINE))
        put(S, o, "engine", json_string(bir_engine_name(in->engine)));
    if (in->nins || keep(S, in->omitted, BIR_OMIT_INS)) put(S, o, "ins", save_operands(S, in->ins, in->nins));
    if (in->nouts || keep(S, in->omitted, BIR_OMIT_OUTS)) put(S, o, "outs", save_operands(S, in->outs, in->nouts));
    if (in->opcode == BIR_OP_LOOP) {
        put(S, o, "LoopAxis", json_pack("{s:s, s:I, s:I, s:I}", "name", in->axis.name, "lb",
                                        (json_int_t)in->axis.lb, "ub", (json_int_t)in->axis.ub,
                                        "stride", (json_int_t)in->axis.stride));
        put(S, o, "blocks", save_blocks(S, in->blocks, in->nblocks));
    }
    put_extras(S, o, &in->extras);
    return o;
}

static json_t *save_blocks(saver *S, bir_block *const *blocks, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++) {
        const bir_block *b = blocks[i];
        json_t *o = json_object();
        if (!o) {
            S->failed = true;
            continue;
        }
        put(S, o, "name", json_string(b->name));
        if (b->ninsts || keep(S, b->omitted, BIR_OMIT_INSTRUCTIONS)) {
            json_t *insts = json_array();
            for (uint32_t k = 0; k < b->ninsts; k++) append(S, insts, save_inst(S, b->insts[k]));
            put(S, o, "instructions", insts);
        }
        put_extras(S, o, &b->extras);
        append(S, a, o);
    }
    return a;
}

static json_t *save_module(saver *S, const bir_module *m)
{
    json_t *root = json_object();
    if (!root) return S->failed = true, NULL;
    if (m->version != 2 || keep(S, m->omitted, BIR_OMIT_VERSION)) put(S, root, "version", json_integer(m->version));
    if (m->arch) put(S, root, "arch", json_string(m->arch));
    if (m->has_target) {
        const sba_target *t = &m->target;
        put(S, root, "target",
            json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "name", t->name, "partitions",
                      (json_int_t)t->partitions, "sbuf_bytes_per_partition", (json_int_t)t->sbuf_bytes,
                      "sbuf_alignment", (json_int_t)t->sbuf_align, "psum_banks", (json_int_t)t->psum_banks,
                      "psum_bank_bytes", (json_int_t)t->psum_bank_bytes, "psum_alignment",
                      (json_int_t)t->psum_align));
    }
    json_t *fns = json_array();
    for (uint32_t i = 0; i < m->nfns; i++) {
        const bir_function *fn = m->fns[i];
        json_t *o = json_object();
        if (!o) {
            S->failed = true;
            continue;
        }
        put(S, o, "name", json_string(fn->name));
        if (fn->nsets || keep(S, fn->omitted, BIR_OMIT_ALLOCATIONS)) {
            json_t *sets = json_array();
            for (uint32_t k = 0; k < fn->nsets; k++) append(S, sets, save_set(S, fn->sets[k]));
            put(S, o, "allocations", sets);
        }
        if (fn->nblocks || keep(S, fn->omitted, BIR_OMIT_BLOCKS))
            put(S, o, "blocks", save_blocks(S, fn->blocks, fn->nblocks));
        put_extras(S, o, &fn->extras);
        append(S, fns, o);
    }
    put(S, root, "functions", fns);
    put_extras(S, root, &m->extras);
    return root;
}

static sba_status check_model(const bir_module *m, sba_error *err)
{
    /* pack_id_hint is PSUM only, on save as on load (the seed's toJson assert). */
    for (uint32_t f = 0; f < m->nfns; f++)
        for (uint32_t s = 0; s < m->fns[f]->nsets; s++) {
            const bir_set *set = m->fns[f]->sets[s];
            for (uint32_t l = 0; l < set->nlocs; l++)
                if (set->locs[l]->pack_id_hint != -1 && set->locs[l]->type != BIR_MEM_PSUM)
                    return sba_err(err, SBA_ERR_MODEL, "%s: PackIdHint only applies to PSUM.",
                                   set->locs[l]->name);
        }
    /* An instruction made through the API with BIR_OP_OTHER has no wire name
     * until the caller gives one; say so rather than fail as out of memory. */
    for (uint32_t f = 0; f < m->nfns; f++)
        for (uint32_t i = 0; i < m->fns[f]->ninsts; i++)
            if (!m->fns[f]->insts[i]->opcode_name)
                return sba_err(err, SBA_ERR_MODEL, "instruction \"%s\" of function \"%s\" has no "
                               "opcode name", m->fns[f]->insts[i]->name, m->fns[f]->name);
    return SBA_OK;
}

sba_status bir_save_buffer(const bir_module *m, char **out, size_t *len, sba_error *err)
{
    *out = NULL;
    *len = 0;
    sba_status st = check_model(m, err);
    if (st != SBA_OK) return st;
    saver S = {.compiler = m->spelling == BIR_SPELLING_COMPILER};
    json_t *root = save_module(&S, m);
    /* json_dumpb measures, then writes into the module's allocator: jansson's
     * own json_dumps drops bytes when its buffer cannot grow (2.14 ignores the
     * failure while writing a key) and would need a copy anyway. */
    size_t n = (!S.failed && root) ? json_dumpb(root, NULL, 0, JSON_INDENT(2)) : 0;
    char *buf = n ? sba_malloc(m->arena->a, n + 2) : NULL;
    if (buf && json_dumpb(root, buf, n, JSON_INDENT(2)) != n) {
        sba_free(m->arena->a, buf);
        buf = NULL;
    }
    json_decref(root);
    if (!buf) return sba_err(err, SBA_ERR_NOMEM, "out of memory while writing JSON");
    buf[n] = '\n';
    buf[n + 1] = '\0';
    *out = buf;
    *len = n + 1;
    return SBA_OK;
}

void bir_free_text(const bir_module *m, char *text) { sba_free(m->arena->a, text); }

sba_status bir_write_text(const bir_module *m, char *text, size_t len, const char *path, sba_error *err)
{
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "wb");
    if (!f) {
        bir_free_text(m, text);
        return sba_err(err, SBA_ERR_IO, "cannot open %s for writing", path);
    }
    bool ok = fwrite(text, 1, len, f) == len;
    ok = (to_stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
    bir_free_text(m, text);
    return ok ? SBA_OK : sba_err(err, SBA_ERR_IO, "write error on %s", path);
}

sba_status bir_save_file(const bir_module *m, const char *path, sba_error *err)
{
    char *text;
    size_t len;
    sba_status st = bir_save_buffer(m, &text, &len, err);
    return st == SBA_OK ? bir_write_text(m, text, len, path, err) : st;
}

/* Model -> JSON: the canonical writer.
 *
 * Keys are written in one fixed order per object, optional keys only when they
 * carry a value, and the keys the model keeps verbatim (bir_extras) after them
 * in their input order. So a file this writer produced reloads to the same
 * model and re-saves byte-identical. The layout is jansson's JSON_INDENT(2),
 * written directly by base/json's writer (to a file, streamed) with no
 * document in between.
 * A module read in the compiler's spelling (bir_module.spelling) is written
 * back in it: its enum spellings are values of their own, and a key the
 * input lacked (BIR_OMIT_*) stays out while it holds its default.
 *
 * Requires: a module that loaded or was built through the API. Produces: text.
 * Complexity: linear in the module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "sballoc/bir.h"

typedef struct saver {
    sba_jw w;
    const sba_allocator *a;
    bool failed;
    bool compiler; /* the module's spelling is the compiler's */
} saver;

/* Whether to write a key the object may have been read without. */
static bool keep(const saver *S, uint32_t omitted, uint32_t bit) { return !S->compiler || !(omitted & bit); }

/* Each put_* writes one member of the innermost object. */
static void put_str(saver *S, const char *key, const char *v)
{
    sba_jw_key(&S->w, key);
    sba_jw_string(&S->w, v);
}

static void put_int(saver *S, const char *key, int64_t v)
{
    sba_jw_key(&S->w, key);
    sba_jw_int(&S->w, v);
}

static void put_bool(saver *S, const char *key, bool v)
{
    sba_jw_key(&S->w, key);
    sba_jw_bool(&S->w, v);
}

/* Text the model keeps verbatim (an extra, a carried-through operand), laid
 * out as the writer lays out everything else. */
static void put_json(saver *S, const char *text)
{
    sba_json_doc *d = sba_json_parse(text, strlen(text), SBA_JSON_DECODE_ANY, S->a, NULL, NULL);
    if (!d) {
        S->failed = true;
        return;
    }
    sba_jw_value(&S->w, sba_json_doc_root(d));
    sba_json_doc_free(d);
}

static void put_extras(saver *S, const bir_extras *ex)
{
    for (uint32_t i = 0; i < ex->n; i++) {
        sba_jw_key(&S->w, ex->v[i].key);
        put_json(S, ex->v[i].json);
    }
}

static void put_int_pair(saver *S, int64_t a, int64_t b)
{
    sba_jw_open(&S->w, '[');
    sba_jw_elem(&S->w);
    sba_jw_int(&S->w, a);
    sba_jw_elem(&S->w);
    sba_jw_int(&S->w, b);
    sba_jw_close(&S->w, ']');
}

static void save_location(saver *S, const bir_location *loc, uint32_t pos)
{
    sba_jw_open(&S->w, '{');
    put_str(S, "name", loc->name);
    put_str(S, "type", bir_memory_type_name(loc->type));
    if (loc->addr != BIR_NO_ADDR) put_int(S, "addr", loc->addr);
    if (loc->base != BIR_NO_BASE) put_int(S, "base", loc->base);
    if (loc->has_bank) put_int(S, "bank", loc->bank);
    if (loc->has_dims) {
        sba_jw_key(&S->w, "dims");
        put_int_pair(S, loc->dims[0], loc->dims[1]);
    }
    if (loc->live_n > 0) put_int(S, "live_n", loc->live_n);
    if (loc->pack_id_hint != -1) put_int(S, "pack_id_hint", loc->pack_id_hint);
    /* an absent tensor_id is the location's position in its set */
    if (loc->tensor_id != (int64_t)pos || keep(S, loc->omitted, BIR_OMIT_TENSOR_ID))
        put_int(S, "tensor_id", loc->tensor_id);
    if (loc->var_id != BIR_NO_ID) put_int(S, "var_id", loc->var_id);
    if (loc->table_entry_id != BIR_NO_ID) put_int(S, "table_entry_id", loc->table_entry_id);
    if (loc->memloc_set_id != BIR_NO_ID) put_int(S, "memloc_set_id", loc->memloc_set_id);
    if (loc->allocated || keep(S, loc->omitted, BIR_OMIT_ALLOCATED)) put_bool(S, "allocated", loc->allocated);
    if (loc->pinned) put_bool(S, "pinned", true);
    if (loc->storage.user_allocated) put_bool(S, "user_allocated", true);
    if (loc->nalias) {
        sba_jw_key(&S->w, "alias");
        sba_jw_open(&S->w, '[');
        for (uint32_t i = 0; i < loc->nalias; i++) {
            const bir_location *peer = bir_alias_peer(loc->alias[i]);
            sba_jw_elem(&S->w);
            sba_jw_open(&S->w, '[');
            sba_jw_elem(&S->w);
            sba_jw_string(&S->w, peer->set->name);
            sba_jw_elem(&S->w);
            sba_jw_string(&S->w, peer->name);
            sba_jw_elem(&S->w);
            sba_jw_int(&S->w, (int)bir_alias_kind(loc->alias[i]));
            sba_jw_close(&S->w, ']');
        }
        sba_jw_close(&S->w, ']');
    }
    put_extras(S, &loc->extras);
    sba_jw_close(&S->w, '}');
}

static void save_set(saver *S, const bir_set *set)
{
    sba_jw_open(&S->w, '{');
    put_str(S, "name", set->name);
    if (set->kind != BIR_TK_INTERNAL || keep(S, set->omitted, BIR_OMIT_KIND))
        put_str(S, "kind", bir_tensor_kind_name(set->kind));
    if (set->tensor_class != BIR_TC_TENSOR || keep(S, set->omitted, BIR_OMIT_TENSOR_CLASS))
        put_str(S, "tensor_class", bir_tensor_class_name(set->tensor_class));
    put_str(S, "dtype", bir_dtype_name(set->dtype));
    sba_jw_key(&S->w, "tensor_shape");
    sba_jw_open(&S->w, '[');
    for (uint32_t i = 0; i < set->rank; i++) {
        sba_jw_elem(&S->w);
        sba_jw_int(&S->w, set->shape[i]);
    }
    sba_jw_close(&S->w, ']');
    if (set->partition_dim != 0 || keep(S, set->omitted, BIR_OMIT_PARTITION_DIM))
        put_int(S, "partition_dim", set->partition_dim);
    if (set->addr_space != BIR_AS_LOCAL || keep(S, set->omitted, BIR_OMIT_ADDR_SPACE))
        put_str(S, "addr_space", bir_addr_space_name(set->addr_space));
    if (set->storage.user_allocated) put_bool(S, "user_allocated", true);
    sba_jw_key(&S->w, "memorylocations");
    sba_jw_open(&S->w, '[');
    for (uint32_t i = 0; i < set->nlocs; i++) {
        sba_jw_elem(&S->w);
        save_location(S, set->locs[i], i);
    }
    sba_jw_close(&S->w, ']');
    put_extras(S, &set->extras);
    sba_jw_close(&S->w, '}');
}

static void save_operand(saver *S, const bir_operand *op)
{
    if (op->kind == BIR_OPND_OTHER) {
        put_json(S, op->raw);
        return;
    }
    sba_jw_open(&S->w, '{');
    /* An operand the allocator points at a placement of its own names its set too. */
    bool moved = op->loc->alloc_flags != 0;
    if (op->kind != BIR_OPND_PHYSICAL_AP || keep(S, op->omitted, BIR_OMIT_KIND))
        put_str(S, "kind", op->kind == BIR_OPND_SYMBOLIC_AP ? "symbolic_ap" : "physical_ap");
    if (moved || keep(S, op->omitted, BIR_OMIT_MEMSETREF)) put_str(S, "memsetref", op->set->name);
    if (op->loc != op->set->locs[0] || keep(S, op->omitted, BIR_OMIT_MEMREF)) put_str(S, "memref", op->loc->name);
    if (op->dtype != op->set->dtype || keep(S, op->omitted, BIR_OMIT_DTYPE))
        put_str(S, "dtype", bir_dtype_name(op->dtype));
    if (op->offset != 0 || keep(S, op->omitted, BIR_OMIT_OFFSET)) put_int(S, "offset", op->offset);
    sba_jw_key(&S->w, "ap");
    sba_jw_open(&S->w, '[');
    for (uint32_t i = 0; i < op->ndims; i++) {
        sba_jw_elem(&S->w);
        put_int_pair(S, op->ap[i][0], op->ap[i][1]);
    }
    sba_jw_close(&S->w, ']');
    if (op->nterms) {
        sba_jw_key(&S->w, "terms");
        sba_jw_open(&S->w, '[');
        for (uint32_t i = 0; i < op->nterms; i++) {
            sba_jw_elem(&S->w);
            sba_jw_open(&S->w, '[');
            sba_jw_elem(&S->w);
            sba_jw_string(&S->w, op->terms[i].loop->axis.name);
            sba_jw_elem(&S->w);
            sba_jw_int(&S->w, op->terms[i].coeff);
            sba_jw_close(&S->w, ']');
        }
        sba_jw_close(&S->w, ']');
    }
    put_extras(S, &op->extras);
    sba_jw_close(&S->w, '}');
}

static void save_blocks(saver *S, bir_block *const *blocks, uint32_t n);

static void save_operands(saver *S, const bir_operand *ops, uint32_t n)
{
    sba_jw_open(&S->w, '[');
    for (uint32_t i = 0; i < n; i++) {
        sba_jw_elem(&S->w);
        save_operand(S, &ops[i]);
    }
    sba_jw_close(&S->w, ']');
}

static void save_inst(saver *S, const bir_inst *in)
{
    sba_jw_open(&S->w, '{');
    put_str(S, "name", in->name);
    put_str(S, "opcode", in->opcode_name);
    if (in->has_time) put_int(S, "time", in->time);
    if (in->engine != BIR_ENG_UNASSIGNED || keep(S, in->omitted, BIR_OMIT_ENGINE))
        put_str(S, "engine", bir_engine_name(in->engine));
    if (in->nins || keep(S, in->omitted, BIR_OMIT_INS)) {
        sba_jw_key(&S->w, "ins");
        save_operands(S, in->ins, in->nins);
    }
    if (in->nouts || keep(S, in->omitted, BIR_OMIT_OUTS)) {
        sba_jw_key(&S->w, "outs");
        save_operands(S, in->outs, in->nouts);
    }
    if (in->opcode == BIR_OP_LOOP) {
        sba_jw_key(&S->w, "LoopAxis");
        sba_jw_open(&S->w, '{');
        put_str(S, "name", in->axis.name);
        put_int(S, "lb", in->axis.lb);
        put_int(S, "ub", in->axis.ub);
        put_int(S, "stride", in->axis.stride);
        sba_jw_close(&S->w, '}');
        sba_jw_key(&S->w, "blocks");
        save_blocks(S, in->blocks, in->nblocks);
    }
    put_extras(S, &in->extras);
    sba_jw_close(&S->w, '}');
}

static void save_blocks(saver *S, bir_block *const *blocks, uint32_t n)
{
    sba_jw_open(&S->w, '[');
    for (uint32_t i = 0; i < n; i++) {
        const bir_block *b = blocks[i];
        sba_jw_elem(&S->w);
        sba_jw_open(&S->w, '{');
        put_str(S, "name", b->name);
        if (b->ninsts || keep(S, b->omitted, BIR_OMIT_INSTRUCTIONS)) {
            sba_jw_key(&S->w, "instructions");
            sba_jw_open(&S->w, '[');
            for (uint32_t k = 0; k < b->ninsts; k++) {
                sba_jw_elem(&S->w);
                save_inst(S, b->insts[k]);
            }
            sba_jw_close(&S->w, ']');
        }
        put_extras(S, &b->extras);
        sba_jw_close(&S->w, '}');
    }
    sba_jw_close(&S->w, ']');
}

static void save_module(saver *S, const bir_module *m)
{
    sba_jw_open(&S->w, '{');
    if (m->version != 2 || keep(S, m->omitted, BIR_OMIT_VERSION)) put_int(S, "version", m->version);
    if (m->arch) put_str(S, "arch", m->arch);
    if (m->has_target) {
        const sba_target *t = &m->target;
        sba_jw_key(&S->w, "target");
        sba_jw_open(&S->w, '{');
        put_str(S, "name", t->name);
        put_int(S, "partitions", t->partitions);
        put_int(S, "sbuf_bytes_per_partition", t->sbuf_bytes);
        put_int(S, "sbuf_alignment", t->sbuf_align);
        put_int(S, "psum_banks", t->psum_banks);
        put_int(S, "psum_bank_bytes", t->psum_bank_bytes);
        put_int(S, "psum_alignment", t->psum_align);
        sba_jw_close(&S->w, '}');
    }
    sba_jw_key(&S->w, "functions");
    sba_jw_open(&S->w, '[');
    for (uint32_t i = 0; i < m->nfns; i++) {
        const bir_function *fn = m->fns[i];
        sba_jw_elem(&S->w);
        sba_jw_open(&S->w, '{');
        put_str(S, "name", fn->name);
        if (fn->nsets || keep(S, fn->omitted, BIR_OMIT_ALLOCATIONS)) {
            sba_jw_key(&S->w, "allocations");
            sba_jw_open(&S->w, '[');
            for (uint32_t k = 0; k < fn->nsets; k++) {
                sba_jw_elem(&S->w);
                save_set(S, fn->sets[k]);
            }
            sba_jw_close(&S->w, ']');
        }
        if (fn->nblocks || keep(S, fn->omitted, BIR_OMIT_BLOCKS)) {
            sba_jw_key(&S->w, "blocks");
            save_blocks(S, fn->blocks, fn->nblocks);
        }
        put_extras(S, &fn->extras);
        sba_jw_close(&S->w, '}');
    }
    sba_jw_close(&S->w, ']');
    put_extras(S, &m->extras);
    sba_jw_close(&S->w, '}');
    sba_jw_raw(&S->w, "\n", 1);
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

/* The module through a writer set up by the caller (buffer or file). */
static sba_status save_with(const bir_module *m, saver *S, char **out, size_t *len, sba_error *err)
{
    save_module(S, m);
    bool bad_utf8 = S->w.bad_utf8;
    if (!sba_jw_finish(&S->w, out, len) || S->failed) {
        if (out && *out) {
            sba_free(S->a, *out);
            *out = NULL;
        }
        if (bad_utf8) return sba_err(err, SBA_ERR_MODEL, "a name or string is not valid UTF-8");
        return sba_err(err, S->w.f ? SBA_ERR_IO : SBA_ERR_NOMEM,
                       S->w.f ? "write error" : "out of memory while writing JSON");
    }
    return SBA_OK;
}

sba_status bir_save_buffer(const bir_module *m, char **out, size_t *len, sba_error *err)
{
    *out = NULL;
    *len = 0;
    sba_status st = check_model(m, err);
    if (st != SBA_OK) return st;
    saver S = {.a = m->arena->a, .compiler = m->spelling == BIR_SPELLING_COMPILER};
    sba_jw_init_buffer(&S.w, S.a);
    return save_with(m, &S, out, len, err);
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
    sba_status st = check_model(m, err);
    if (st != SBA_OK) return st;
    /* Streamed: the text of a large module is never held whole in memory. */
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "wb");
    if (!f) return sba_err(err, SBA_ERR_IO, "cannot open %s for writing", path);
    saver S = {.a = m->arena->a, .compiler = m->spelling == BIR_SPELLING_COMPILER};
    sba_jw_init_file(&S.w, f, S.a);
    st = save_with(m, &S, NULL, NULL, err);
    bool closed = to_stdout ? fflush(f) == 0 : fclose(f) == 0;
    if (st == SBA_OK && !closed) st = sba_err(err, SBA_ERR_IO, "write error on %s", path);
    if (st == SBA_ERR_IO && strcmp(err->message, "write error") == 0)
        st = sba_err(err, SBA_ERR_IO, "write error on %s", path);
    return st;
}

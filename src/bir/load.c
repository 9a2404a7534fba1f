/* JSON -> model: the BIR module loader.
 *
 * Parsing is base/json's (jansson's grammar: strict, duplicate keys rejected,
 * full int64); a text it rejects is re-parsed by jansson for the message and
 * its line:column. This file walks the document once, checking every value's
 * type and range, and builds the model. Errors name the JSON path of the offending value. Sets are built
 * before blocks so that operands resolve; aliases load in a second pass over a
 * function's sets, after every location exists, as the seed's loader does.
 * Keys the model does not interpret are kept verbatim (bir_extras).
 *
 * Two spellings load: sballoc's own and the one the compiler writes in its
 * BIR dumps (its engine and dtype names, an operand that names only its
 * location in memref, repeated instruction names). A spelling only the
 * compiler uses marks the module BIR_SPELLING_COMPILER, and every object
 * records the keys it lacked (BIR_OMIT_*), so that save writes the module
 * back as it was read.
 *
 * Requires: nothing. Produces: a bir_module with def-use lists and tensor-id
 * maps built. Complexity: linear in the document. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/strmap.h"
#include "base/vec.h"
#include "sballoc/bir.h"

enum { MAX_FILE_BYTES = 1 << 30, MAX_LOOP_DEPTH = 64, MAX_RANK = 16, MAX_AP_DIMS = 8, MAX_TERMS = 4096 };

typedef struct pending_alias {
    bir_location *loc;
    sba_json *entries;
    const char *path;
} pending_alias;

typedef SBA_VEC(pending_alias) pending_vec;

typedef struct loader {
    bir_module *m;
    sba_error *err;
    char path[4096]; /* longer than sba_error.path: the error keeps the tail */
    size_t plen;
    bool failed;
    bir_inst *loops[MAX_LOOP_DEPTH]; /* enclosing loops while parsing a body */
    uint32_t depth;
    struct sba_strmap *block_names; /* the current function's block names */
    struct sba_strmap *loc_names;   /* the current function's location names, made on
                                       first use by an operand's memref */
    struct sba_strmap *loc_dups;    /* the names among them that two sets share */
    bool compiler;                  /* a spelling only the compiler uses was seen */
    bool timed;                     /* an instruction of the current function had a "time": */
    int64_t last_time;              /* the latest one */
    /* What only loading needs (name tables, pending aliases, the text
     * table), freed when the load ends: none of it is the model's. */
    sba_arena scratch;
    struct sba_strmap *texts;       /* operand texts kept once: the same text is one copy */
    char *buf;                      /* a text being made, before it is looked up */
    size_t capbuf;
    /* The document's own copy of each key the loader asks for, by the
     * address of the loader's (static) key string: a member is then found by
     * comparing pointers, and a key no object has is absent at once. */
    const sba_json_doc *doc;
    struct {
        const char *name, *key;
    } keys[64];
} loader;

/* ---- paths and errors -------------------------------------------------- */

/* Appends to the path, cut at its buffer's end. Every member and element
 * pushes and pops, so these avoid snprintf. */
static void path_append(loader *L, const char *s, size_t n)
{
    size_t room = sizeof L->path - 1 - L->plen;
    if (n > room) n = room;
    memcpy(L->path + L->plen, s, n);
    L->plen += n;
    L->path[L->plen] = '\0';
}

static size_t push_key(loader *L, const char *key)
{
    size_t saved = L->plen;
    if (L->plen) path_append(L, ".", 1);
    path_append(L, key, strlen(key));
    return saved;
}

static size_t push_index(loader *L, size_t i)
{
    size_t saved = L->plen;
    char buf[24], *p = buf + sizeof buf;
    *--p = ']';
    do *--p = (char)('0' + i % 10);
    while (i /= 10);
    *--p = '[';
    path_append(L, p, (size_t)(buf + sizeof buf - p));
    return saved;
}

static void pop(loader *L, size_t saved)
{
    L->plen = saved;
    L->path[saved] = '\0';
}

#define FAIL(L, code, ...)                                                  \
    do {                                                                    \
        sba_err_path((L)->err, (code), (L)->path, __VA_ARGS__);             \
        (L)->failed = true;                                                 \
        return false;                                                       \
    } while (0)

static bool nomem(loader *L) { FAIL(L, SBA_ERR_NOMEM, "out of memory"); }

/* Records "PATH: message" in the module's warnings; false when out of memory. */
static bool warn(loader *L, const char *fmt, ...) SBA_PRINTF(2, 3);
static bool warn(loader *L, const char *fmt, ...)
{
    char msg[512], line[sizeof L->path + sizeof msg + 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s%s%s", L->path, L->plen ? ": " : "", msg);
    bir_module *m = L->m;
    const char *copy = sba_arena_strdup(m->arena, line);
    if (!copy || !sba_arena_grow(m->arena, (void **)&m->warnings, &m->capwarnings, m->nwarnings + 1,
                                 sizeof *m->warnings))
        return nomem(L);
    m->warnings[m->nwarnings++] = copy;
    return true;
}

/* A model error (from model.c) rethrown with the current path. */
static bool rethrow(loader *L, sba_error *inner)
{
    sba_err_path(L->err, inner->code, L->path, "%s", inner->message);
    L->failed = true;
    return false;
}

static const char *type_name(const sba_json *v)
{
    switch (sba_json_typeof(v)) {
    case SBA_JSON_OBJECT: return "an object";
    case SBA_JSON_ARRAY: return "an array";
    case SBA_JSON_STRING: return "a string";
    case SBA_JSON_INTEGER: return "an integer";
    case SBA_JSON_REAL: return "a real number";
    case SBA_JSON_TRUE:
    case SBA_JSON_FALSE: return "a boolean";
    case SBA_JSON_NULL: return "null";
    }
    return "a value";
}

/* ---- typed access ------------------------------------------------------ */

/* Member `key` of obj, or NULL. key is one of the loader's static strings. */
static sba_json *get(loader *L, const sba_json *obj, const char *key)
{
    uint32_t h = (uint32_t)((uintptr_t)key >> 3) & 63;
    if (L->keys[h].name != key) {
        L->keys[h].name = key;
        L->keys[h].key = sba_json_doc_key(L->doc, key);
    }
    return sba_json_object_get_key(obj, L->keys[h].key);
}

/* Member `key` of obj, or NULL when absent (missing required keys fail). */
static bool member(loader *L, sba_json *obj, const char *key, bool required, sba_json **out)
{
    *out = get(L, obj, key);
    if (!*out && required) FAIL(L, SBA_ERR_SCHEMA, "missing required key \"%s\"", key);
    return true;
}

static bool want_type(loader *L, sba_json *v, sba_json_type t, const char *what)
{
    if (sba_json_typeof(v) == t || (t == SBA_JSON_TRUE && sba_json_is_boolean(v))) return true;
    FAIL(L, SBA_ERR_SCHEMA, "expected %s, got %s", what, type_name(v));
}

static bool get_string(loader *L, sba_json *obj, const char *key, bool required, const char **out)
{
    sba_json *v;
    if (!member(L, obj, key, required, &v)) return false;
    if (!v) return true;
    size_t s = push_key(L, key);
    if (!want_type(L, v, SBA_JSON_STRING, "a string")) return false;
    if (sba_json_string_length(v) == 0) FAIL(L, SBA_ERR_SCHEMA, "expected a non-empty string");
    if (strlen(sba_json_string_value(v)) != sba_json_string_length(v))
        FAIL(L, SBA_ERR_SCHEMA, "a name must not contain a NUL character");
    *out = sba_json_string_value(v);
    pop(L, s);
    return true;
}

static bool get_int(loader *L, sba_json *obj, const char *key, bool required, int64_t lo, int64_t hi,
                    int64_t *out)
{
    sba_json *v;
    if (!member(L, obj, key, required, &v)) return false;
    if (!v) return true;
    size_t s = push_key(L, key);
    if (!want_type(L, v, SBA_JSON_INTEGER, "an integer")) return false;
    sba_json_int_t x = sba_json_integer_value(v);
    if (x < lo || x > hi)
        FAIL(L, SBA_ERR_SCHEMA, "expected an integer in [%" PRId64 ", %" PRId64 "], got %lld", lo, hi,
             (long long)x);
    *out = x;
    pop(L, s);
    return true;
}

static bool get_bool(loader *L, sba_json *obj, const char *key, bool *out)
{
    sba_json *v;
    if (!member(L, obj, key, false, &v)) return false;
    if (!v) return true;
    size_t s = push_key(L, key);
    if (!want_type(L, v, SBA_JSON_TRUE, "a boolean")) return false;
    *out = sba_json_is_true(v);
    pop(L, s);
    return true;
}

static bool get_enum(loader *L, sba_json *obj, const char *key, bool required,
                     bool (*parse)(const char *, uint32_t *), const char *what, const char *choices,
                     uint32_t *out)
{
    const char *name = NULL;
    if (!get_string(L, obj, key, required, &name)) return false;
    if (!name) return true;
    if (!parse(name, out)) {
        size_t s = push_key(L, key);
        /* A letter-case variant of a known name: an engine does not change
         * the allocation, so it is taken with a warning; a dtype sizes every
         * access, so it is an error that names the known spelling. */
        const char *known = parse == bir_engine_parse ? bir_engine_near_miss(name)
                            : parse == bir_dtype_parse ? bir_dtype_near_miss(name)
                                                       : NULL;
        if (known && parse == bir_engine_parse && parse(known, out)) {
            if (!warn(L, "engine \"%s\" taken as \"%s\": did you mean \"%s\"? (names are case-sensitive)", name,
                      known, known))
                return false;
            pop(L, s);
            return true;
        }
        if (known)
            FAIL(L, SBA_ERR_SCHEMA, "unknown %s \"%s\": did you mean \"%s\"? (names are case-sensitive)", what,
                 name, known);
        FAIL(L, SBA_ERR_SCHEMA, "unknown %s \"%s\" (expected one of: %s)", what, name, choices);
    }
    return true;
}

static bool get_array(loader *L, sba_json *obj, const char *key, bool required, sba_json **out)
{
    if (!member(L, obj, key, required, out)) return false;
    if (!*out) return true;
    size_t s = push_key(L, key);
    if (!want_type(L, *out, SBA_JSON_ARRAY, "an array")) return false;
    pop(L, s);
    return true;
}

/* Gives an arena list exactly n slots before it is filled: a list that
 * doubled from 4 would leave its smaller copies behind, for every tensor. */
static bool reserve(loader *L, void **v, uint32_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return true;
    if (n > UINT32_MAX) return nomem(L);
    void *nv = sba_arena_array(L->m->arena, n, sz);
    if (!nv) return nomem(L);
    *v = nv;
    *cap = (uint32_t)n;
    return true;
}

/* The compact JSON text of v, in the module's arena; NULL when out of memory.
 * sba_json_dumpb measures, then writes into our buffer: jansson's own json_dumps
 * drops bytes when its buffer cannot grow (2.14 ignores the failure while
 * writing a key), and allocates with functions a program may replace. */
static const char *dump_to_arena(loader *L, const sba_json *v, size_t flags)
{
    size_t n = sba_json_dumpb(v, NULL, 0, flags);
    char *text = n ? sba_arena_alloc(L->m->arena, n + 1) : NULL;
    if (!text || sba_json_dumpb(v, text, n, flags) != n) return NULL;
    text[n] = '\0';
    return text;
}

/* Text s, n bytes and NUL-terminated, as the one copy in the module's arena
 * that every equal text shares (the operands that are not memory accesses
 * repeat a few texts thousands of times); NULL when out of memory. */
static const char *shared_text(loader *L, const char *s, size_t n)
{
    if (!L->texts && !(L->texts = sba_strmap_new(&L->scratch))) return NULL;
    const char *c = sba_strmap_get(L->texts, s);
    if (c) return c;
    char *copy = sba_arena_strndup(L->m->arena, s, n);
    if (!copy || sba_strmap_put(L->texts, copy, copy, NULL) < 0) return NULL;
    return copy;
}

/* The compact JSON text of v as shared_text; NULL when out of memory. */
static const char *dump_shared(loader *L, const sba_json *v, size_t flags)
{
    size_t n = sba_json_dumpb(v, NULL, 0, flags);
    if (n + 1 > L->capbuf) {
        size_t cap = L->capbuf ? L->capbuf : 256;
        while (cap < n + 1) cap *= 2;
        if (!(L->buf = sba_arena_alloc(&L->scratch, cap))) return NULL;
        L->capbuf = cap;
    }
    if (!n || sba_json_dumpb(v, L->buf, n, flags) != n) return NULL;
    L->buf[n] = '\0';
    return shared_text(L, L->buf, n);
}

/* Whether key is in the NULL-terminated list `known`. Every object of a
 * module passes each of its keys through here: the first byte rules out
 * most names without a call. */
static bool is_known(const char *const *known, const char *key)
{
    for (const char *const *p = known; *p; p++)
        if ((*p)[0] == key[0] && strcmp(*p, key) == 0) return true;
    return false;
}

/* Keeps every member of obj whose key is not in `known`, in input order. */
static bool keep_extras(loader *L, sba_json *obj, const char *const *known, bir_extras *out)
{
    const char *key;
    sba_json *v;
    uint32_t n = 0;
    sba_json_object_foreach(obj, key, v) n += !is_known(known, key);
    if (n == 0) return true;
    out->v = sba_arena_array(L->m->arena, n, sizeof *out->v);
    if (!out->v) return nomem(L);
    sba_json_object_foreach(obj, key, v) {
        if (is_known(known, key)) continue;
        bir_extra *e = &out->v[out->n++];
        e->key = sba_arena_strdup(L->m->arena, key);
        e->json = dump_to_arena(L, v, SBA_JSON_COMPACT | SBA_JSON_ENCODE_ANY);
        if (!e->key || !e->json) return nomem(L);
    }
    return true;
}

/* ---- allocations ------------------------------------------------------- */

/* The names the enum parsers accept, for messages. */
static const char *const DTYPES = "float32, bfloat16, float16, float8_e4m3, float8_e5m2, int8, uint8, int16, "
                                  "uint16, int32, uint32, int64, uint64, float64, float8e4, float8e5, bool";
static const char *const ENGINES = "unassigned, act, dma, dve, pe, pool, sp, Unassigned, Activation, PE, DVE, "
                                   "Pool, SP, ALL";

/* Records that obj lacks key: bit goes into *omitted. */
static void note_omitted(loader *L, sba_json *obj, const char *key, uint32_t bit, uint32_t *omitted)
{
    if (!get(L, obj, key)) *omitted |= bit;
}

/* An optional debug-style member `key` of obj: a non-empty string copied into
 * the arena, or NULL when absent, null or empty. Another type is an error. */
static bool get_note(loader *L, sba_json *obj, const char *key, const char **out)
{
    sba_json *v = get(L, obj, key);
    if (!v || sba_json_is_null(v)) return true;
    size_t s = push_key(L, key);
    if (!want_type(L, v, SBA_JSON_STRING, "a string")) return false;
    if (sba_json_string_length(v) && strlen(sba_json_string_value(v)) == sba_json_string_length(v) &&
        !(*out = sba_arena_strdup(L->m->arena, sba_json_string_value(v))))
        return nomem(L);
    pop(L, s);
    return true;
}

/* The object under `debug` (kept verbatim as an extra key), or NULL when
 * absent or null. */
static bool get_debug(loader *L, sba_json *obj, sba_json **out)
{
    *out = get(L, obj, "debug");
    if (!*out || sba_json_is_null(*out)) {
        *out = NULL;
        return true;
    }
    size_t s = push_key(L, "debug");
    if (!want_type(L, *out, SBA_JSON_OBJECT, "a debug object")) return false;
    pop(L, s);
    return true;
}

static const char *const MEMTYPES = "Unallocated, Input, Output, DRAM, SB, PSUM, RNGSTATE, REG";

static const char *const location_keys[] = {
    "name", "type", "addr", "base", "bank", "dims", "live_n", "pack_id_hint", "tensor_id",
    "var_id", "table_entry_id", "memloc_set_id", "allocated", "pinned", "user_allocated", "alias",
    NULL};

static bool load_location(loader *L, bir_set *set, sba_json *jl, pending_vec *pending)
{
    if (!want_type(L, jl, SBA_JSON_OBJECT, "a memory location object")) return false;
    const char *name = NULL;
    uint32_t type = 0;
    if (!get_string(L, jl, "name", true, &name)) return false;
    if (!get_enum(L, jl, "type", true, bir_memory_type_parse, "memory type", MEMTYPES, &type))
        return false;
    sba_error inner;
    bir_location *loc = bir_location_add(set, name, type, &inner);
    if (!loc) {
        size_t s = push_key(L, "name");
        rethrow(L, &inner);
        pop(L, s);
        return false;
    }
    int64_t v;
    if (get(L, jl, "addr")) {
        if (!get_int(L, jl, "addr", true, 0, INT64_MAX, &v)) return false;
        loc->addr = v;
    }
    if (get(L, jl, "base")) {
        if (!get_int(L, jl, "base", true, 0, 1 << 20, &v)) return false;
        loc->base = (int32_t)v;
    }
    if (get(L, jl, "bank")) {
        if (!get_int(L, jl, "bank", true, INT64_MIN, INT64_MAX, &loc->bank)) return false;
        loc->has_bank = true;
    }
    sba_json *dims;
    if (!get_array(L, jl, "dims", false, &dims)) return false;
    if (dims) {
        size_t s = push_key(L, "dims");
        if (sba_json_array_size(dims) != 2)
            FAIL(L, SBA_ERR_SCHEMA, "expected [partitions, bytes per partition], got %zu elements",
                 sba_json_array_size(dims));
        for (size_t i = 0; i < 2; i++) {
            size_t si = push_index(L, i);
            sba_json *d = sba_json_array_get(dims, i);
            if (!want_type(L, d, SBA_JSON_INTEGER, "an integer")) return false;
            if (sba_json_integer_value(d) < 0) FAIL(L, SBA_ERR_SCHEMA, "expected a non-negative integer");
            loc->dims[i] = sba_json_integer_value(d);
            pop(L, si);
        }
        loc->has_dims = true;
        pop(L, s);
    }
    if (!get_int(L, jl, "live_n", false, 1, INT64_MAX, &loc->live_n)) return false;
    int64_t hint = -1;
    if (!get_int(L, jl, "pack_id_hint", false, -1, INT32_MAX, &hint)) return false;
    if (hint != -1) {
        size_t s = push_key(L, "pack_id_hint");
        if (bir_location_set_pack_id_hint(loc, (int32_t)hint, &inner) != SBA_OK) return rethrow(L, &inner);
        pop(L, s);
    }
    /* tensor_id is checked by the tensor-id map ("Unassigned tensorId"). */
    if (!get_int(L, jl, "tensor_id", false, INT64_MIN, INT64_MAX, &loc->tensor_id)) return false;
    if (!get_int(L, jl, "var_id", false, -1, INT64_MAX, &loc->var_id)) return false;
    if (!get_int(L, jl, "table_entry_id", false, -1, INT64_MAX, &loc->table_entry_id)) return false;
    if (!get_int(L, jl, "memloc_set_id", false, -1, INT64_MAX, &loc->memloc_set_id)) return false;
    bool b = false;
    if (!get_bool(L, jl, "allocated", &b)) return false;
    if (get(L, jl, "allocated")) bir_location_set_allocated(loc, b);
    note_omitted(L, jl, "tensor_id", BIR_OMIT_TENSOR_ID, &loc->omitted);
    note_omitted(L, jl, "allocated", BIR_OMIT_ALLOCATED, &loc->omitted);
    if (!get_bool(L, jl, "pinned", &loc->pinned)) return false;
    if (!get_bool(L, jl, "user_allocated", &loc->storage.user_allocated)) return false;
    sba_json *alias;
    if (!get_array(L, jl, "alias", false, &alias)) return false;
    if (alias && sba_json_array_size(alias) > 0) {
        size_t s = push_key(L, "alias");
        const char *p = sba_arena_strdup(&L->scratch, L->path);
        pop(L, s);
        if (!p || !SBA_VEC_PUSH(&L->scratch, pending, ((pending_alias){loc, alias, p})))
            return nomem(L);
    }
    return keep_extras(L, jl, location_keys, &loc->extras);
}

static const char *const set_keys[] = {
    "name", "kind", "tensor_class", "dtype", "tensor_shape", "partition_dim", "addr_space",
    "memorylocations", "user_allocated", NULL};

static bool load_set(loader *L, bir_function *fn, sba_json *js, pending_vec *pending)
{
    if (!want_type(L, js, SBA_JSON_OBJECT, "a memory location set object")) return false;
    const char *name = NULL;
    if (!get_string(L, js, "name", true, &name)) return false;
    sba_error inner;
    bir_set *set = bir_set_add(fn, name, &inner);
    if (!set) {
        size_t s = push_key(L, "name");
        rethrow(L, &inner);
        pop(L, s);
        return false;
    }
    if (!get_enum(L, js, "kind", false, bir_tensor_kind_parse, "tensor kind",
                  "ExternalInput, ExternalInputParameter, Input, ExternalOutput, "
                  "ExternalOutputParameter, Output, Const, Internal, Pointer, InternalInterface",
                  &set->kind))
        return false;
    if (!get_enum(L, js, "tensor_class", false, bir_tensor_class_parse, "tensor class",
                  "Tensor, LoopTensor, NeuronTensor, NeuronWeightTensor, IdentityWeightTensor, "
                  "NeuronBlockTensor, DRAM2DBlockTensor, Neuron3DBlockTensor, DRAM3DBlockTensor, "
                  "NeuronLocalTensor, NeuronSBTensor, NeuronPSUMTensor, SingleValueTensor",
                  &set->tensor_class))
        return false;
    if (!get_enum(L, js, "dtype", true, bir_dtype_parse, "dtype", DTYPES, &set->dtype)) return false;
    L->compiler |= set->dtype >= BIR_DT_FLOAT8E4;
    sba_json *shape;
    if (!get_array(L, js, "tensor_shape", true, &shape)) return false;
    size_t s = push_key(L, "tensor_shape");
    size_t rank = sba_json_array_size(shape);
    if (rank == 0 || rank > MAX_RANK)
        FAIL(L, SBA_ERR_SCHEMA, "expected 1 to %d dimensions, got %zu", MAX_RANK, rank);
    set->rank = (uint32_t)rank;
    set->shape = sba_arena_array(L->m->arena, rank, sizeof *set->shape);
    if (!set->shape) return nomem(L);
    int64_t total = bir_dtype_size(set->dtype);
    for (size_t i = 0; i < rank; i++) {
        size_t si = push_index(L, i);
        sba_json *d = sba_json_array_get(shape, i);
        if (!want_type(L, d, SBA_JSON_INTEGER, "an integer")) return false;
        if (sba_json_integer_value(d) < 1)
            FAIL(L, SBA_ERR_SCHEMA, "tensor size must be more than 0, got dimension %lld",
                 (long long)sba_json_integer_value(d));
        set->shape[i] = sba_json_integer_value(d);
        if (__builtin_mul_overflow(total, set->shape[i], &total))
            FAIL(L, SBA_ERR_LIMIT, "the tensor's size in bytes overflows 64 bits");
        pop(L, si);
    }
    pop(L, s);
    int64_t pd = 0;
    if (!get_int(L, js, "partition_dim", false, 0, (int64_t)rank - 1, &pd)) return false;
    set->partition_dim = (int32_t)pd;
    if (!get_enum(L, js, "addr_space", false, bir_addr_space_parse, "address space",
                  "Local, Shared, Debug", &set->addr_space))
        return false;
    if (!get_bool(L, js, "user_allocated", &set->storage.user_allocated)) return false;
    note_omitted(L, js, "kind", BIR_OMIT_KIND, &set->omitted);
    note_omitted(L, js, "tensor_class", BIR_OMIT_TENSOR_CLASS, &set->omitted);
    note_omitted(L, js, "partition_dim", BIR_OMIT_PARTITION_DIM, &set->omitted);
    note_omitted(L, js, "addr_space", BIR_OMIT_ADDR_SPACE, &set->omitted);
    sba_json *dbg;
    if (!get_debug(L, js, &dbg)) return false;
    if (dbg) {
        s = push_key(L, "debug");
        if (!get_note(L, dbg, "tensor_name", &set->src_name)) return false;
        pop(L, s);
    }
    sba_json *locs;
    if (!get_array(L, js, "memorylocations", true, &locs)) return false;
    s = push_key(L, "memorylocations");
    if (sba_json_array_size(locs) == 0) FAIL(L, SBA_ERR_SCHEMA, "a set needs at least one memory location");
    if (!reserve(L, (void **)&set->locs, &set->caplocs, sba_json_array_size(locs), sizeof *set->locs))
        return false;
    size_t i;
    sba_json *jl;
    sba_json_array_foreach(locs, i, jl) {
        size_t si = push_index(L, i);
        if (!load_location(L, set, jl, pending)) return false;
        pop(L, si);
    }
    pop(L, s);
    if (set->addr_space != BIR_AS_LOCAL) {
        bool dram = false;
        for (uint32_t k = 0; k < set->nlocs; k++) dram |= set->locs[k]->type == BIR_MEM_DRAM;
        if (!dram) {
            s = push_key(L, "addr_space");
            FAIL(L, SBA_ERR_MODEL, "address space %s applies to DRAM only, and set \"%s\" has no "
                 "DRAM memory location", bir_addr_space_name(set->addr_space), set->name);
        }
    }
    if (bir_set_build_tensor_id_map(set, &inner) != SBA_OK) return rethrow(L, &inner);
    return keep_extras(L, js, set_keys, &set->extras);
}

/* The second pass: resolve each alias entry and add the edge. Two schema
 * versions: [destSet, destMemLoc, kind] (current) and [destMemLoc, kind]
 * (version 1: the name is looked up across the function's sets). The kind may
 * be a boolean, an integer or an integral real. */
static bool load_aliases(loader *L, bir_function *fn, const pending_alias *pa)
{
    size_t base = L->plen;
    snprintf(L->path, sizeof L->path, "%s", pa->path);
    L->plen = strlen(L->path);
    size_t i;
    sba_json *e;
    sba_json_array_foreach(pa->entries, i, e) {
        size_t si = push_index(L, i);
        if (!sba_json_is_array(e) || sba_json_array_size(e) < 2 || sba_json_array_size(e) > 3)
            FAIL(L, SBA_ERR_SCHEMA, "expected an alias entry [destSetName, destMemLocName, kind] "
                 "or [destMemLocName, kind]");
        size_t n = sba_json_array_size(e);
        for (size_t k = 0; k + 1 < n; k++)
            if (!sba_json_is_string(sba_json_array_get(e, k)))
                FAIL(L, SBA_ERR_SCHEMA, "alias entry element %zu: expected a name, got %s", k,
                     type_name(sba_json_array_get(e, k)));
        sba_json *jk = sba_json_array_get(e, n - 1);
        double kd;
        if (sba_json_is_boolean(jk)) kd = sba_json_is_true(jk);
        else if (sba_json_is_integer(jk)) kd = (double)sba_json_integer_value(jk);
        else if (sba_json_is_real(jk)) kd = sba_json_real_value(jk);
        else FAIL(L, SBA_ERR_SCHEMA, "alias kind: expected a boolean or a number, got %s", type_name(jk));
        if (kd < 0 || kd > 7 || kd != (double)(int64_t)kd)
            FAIL(L, SBA_ERR_MODEL, "Integer too large for field: alias kind %g is not a 3-bit mask", kd);
        bir_location *dst = NULL;
        if (n == 3) {
            const char *sn = sba_json_string_value(sba_json_array_get(e, 0));
            const char *ln = sba_json_string_value(sba_json_array_get(e, 1));
            bir_set *ds = bir_function_find_set(fn, sn);
            if (!ds) FAIL(L, SBA_ERR_MODEL, "alias target set \"%s\" does not exist", sn);
            dst = bir_set_find_location(ds, ln);
            if (!dst) FAIL(L, SBA_ERR_MODEL, "alias target \"%s\" is not a memory location of set \"%s\"", ln, sn);
        } else {
            const char *ln = sba_json_string_value(sba_json_array_get(e, 0));
            for (uint32_t k = 0; k < fn->nsets; k++) {
                bir_location *c = bir_set_find_location(fn->sets[k], ln);
                if (c && dst)
                    FAIL(L, SBA_ERR_MODEL, "alias target \"%s\" is ambiguous: sets \"%s\" and \"%s\" "
                         "both have it; use [destSetName, destMemLocName, kind]", ln,
                         dst->set->name, c->set->name);
                if (c) dst = c;
            }
            if (!dst) FAIL(L, SBA_ERR_MODEL, "alias target memory location \"%s\" does not exist", ln);
        }
        sba_error inner;
        if (bir_location_add_alias(pa->loc, dst, (uint32_t)kd, &inner) != SBA_OK) return rethrow(L, &inner);
        pop(L, si);
    }
    pop(L, base);
    return true;
}

/* ---- program ----------------------------------------------------------- */

static bool load_blocks(loader *L, bir_function *fn, bir_inst *loop, sba_json *blocks);

static const char *const operand_keys[] = {"kind", "memsetref", "memref", "dtype", "offset",
                                           "ap", "terms", NULL};

/* The location `name` names among all of fn's sets: *out NULL when none,
 * *dup when more than one set has it. The tables are made on first use. */
static bool find_location(loader *L, bir_function *fn, const char *name, bir_location **out, bool *dup)
{
    if (!L->loc_names) {
        if (!(L->loc_names = sba_strmap_new(&L->scratch)) || !(L->loc_dups = sba_strmap_new(&L->scratch)))
            return nomem(L);
        for (uint32_t i = 0; i < fn->nsets; i++)
            for (uint32_t k = 0; k < fn->sets[i]->nlocs; k++) {
                bir_location *loc = fn->sets[i]->locs[k];
                int r = sba_strmap_put(L->loc_names, loc->name, loc, NULL);
                if (r == 0) r = sba_strmap_put(L->loc_dups, loc->name, loc, NULL);
                if (r < 0) return nomem(L);
            }
    }
    *out = sba_strmap_get(L->loc_names, name);
    *dup = *out && sba_strmap_get(L->loc_dups, name);
    return true;
}

/* An operand's set and location from memsetref and/or memref (one may be
 * absent, not both): memref alone must name a location of exactly one set;
 * with both, the location must belong to the set. */
static bool resolve_refs(loader *L, bir_function *fn, const char *setname, const char *locname, bir_operand *op)
{
    bir_location *any = NULL;
    bool dup = false;
    if (setname) {
        op->set = bir_function_find_set(fn, setname);
        if (!op->set) {
            push_key(L, "memsetref");
            FAIL(L, SBA_ERR_PROGRAM, "memsetref \"%s\" names no memory location set of function \"%s\"",
                 setname, fn->name);
        }
        op->loc = locname ? bir_set_find_location(op->set, locname) : op->set->locs[0];
        if (op->loc) return true;
        if (!find_location(L, fn, locname, &any, &dup)) return false;
        push_key(L, "memref");
        if (any)
            FAIL(L, SBA_ERR_PROGRAM, "memref \"%s\" and memsetref \"%s\" disagree: \"%s\" is a memory location "
                 "of set \"%s\", not of \"%s\"", locname, setname, locname, any->set->name, setname);
        FAIL(L, SBA_ERR_PROGRAM, "memref \"%s\" names no memory location of set \"%s\"", locname, setname);
    }
    if (!find_location(L, fn, locname, &any, &dup)) return false;
    size_t saved = push_key(L, "memref");
    if (!any) FAIL(L, SBA_ERR_PROGRAM, "memref \"%s\" names no memory location of function \"%s\"", locname, fn->name);
    if (dup) {
        const bir_set *other = NULL;
        for (uint32_t i = 0; i < fn->nsets && !other; i++)
            if (fn->sets[i] != any->set && bir_set_find_location(fn->sets[i], locname)) other = fn->sets[i];
        FAIL(L, SBA_ERR_PROGRAM, "memref \"%s\" is ambiguous: sets \"%s\" and \"%s\" both have a memory location "
             "of that name; add \"memsetref\"", locname, any->set->name, other ? other->name : "?");
    }
    pop(L, saved);
    op->set = any->set;
    op->loc = any;
    return true;
}

static bool load_operand(loader *L, bir_function *fn, sba_json *jo, bir_operand *op)
{
    if (!want_type(L, jo, SBA_JSON_OBJECT, "an operand object")) return false;
    const char *kind = "physical_ap";
    if (!get_string(L, jo, "kind", false, &kind)) return false;
    if (strcmp(kind, "physical_ap") == 0) op->kind = BIR_OPND_PHYSICAL_AP;
    else if (strcmp(kind, "symbolic_ap") == 0) op->kind = BIR_OPND_SYMBOLIC_AP;
    else {
        /* register_ap, register_access, imm_value, imm_array, symbolic_imm_value
         * and any other kind: not memory, carried through as given. */
        op->kind = BIR_OPND_OTHER;
        op->kind_name = shared_text(L, kind, strlen(kind));
        op->raw = dump_shared(L, jo, SBA_JSON_COMPACT);
        return op->raw && op->kind_name ? true : nomem(L);
    }
    const char *setname = NULL, *locname = NULL;
    if (!get_string(L, jo, "memsetref", false, &setname)) return false;
    if (!get_string(L, jo, "memref", false, &locname)) return false;
    if (!setname && !locname)
        FAIL(L, SBA_ERR_SCHEMA, "an access operand needs \"memref\" (its memory location) or \"memsetref\" "
             "(its set)");
    if (!resolve_refs(L, fn, setname, locname, op)) return false;
    if (!setname) {
        op->omitted |= BIR_OMIT_MEMSETREF;
        L->compiler = true;
    }
    if (!locname) op->omitted |= BIR_OMIT_MEMREF;
    op->dtype = op->set->dtype;
    if (!get_enum(L, jo, "dtype", false, bir_dtype_parse, "dtype", DTYPES, &op->dtype)) return false;
    L->compiler |= op->dtype >= BIR_DT_FLOAT8E4;
    note_omitted(L, jo, "kind", BIR_OMIT_KIND, &op->omitted);
    note_omitted(L, jo, "dtype", BIR_OMIT_DTYPE, &op->omitted);
    note_omitted(L, jo, "offset", BIR_OMIT_OFFSET, &op->omitted);
    if (!get_int(L, jo, "offset", false, INT64_MIN / 4, INT64_MAX / 4, &op->offset)) return false;
    sba_json *ap;
    if (!get_array(L, jo, "ap", true, &ap)) return false;
    size_t s = push_key(L, "ap");
    size_t nd = sba_json_array_size(ap);
    if (nd == 0 || nd > MAX_AP_DIMS)
        FAIL(L, SBA_ERR_SCHEMA, "expected 1 to %d [step, num] pairs, the partition pair first, got %zu",
             MAX_AP_DIMS, nd);
    op->ndims = (uint32_t)nd;
    op->ap = sba_arena_array(L->m->arena, nd, sizeof *op->ap);
    if (!op->ap) return nomem(L);
    for (size_t i = 0; i < nd; i++) {
        size_t si = push_index(L, i);
        sba_json *pr = sba_json_array_get(ap, i);
        if (!sba_json_is_array(pr) || sba_json_array_size(pr) != 2 ||
            !sba_json_is_integer(sba_json_array_get(pr, 0)) || !sba_json_is_integer(sba_json_array_get(pr, 1)))
            FAIL(L, SBA_ERR_SCHEMA, "expected a [step, num] pair of integers");
        op->ap[i][0] = sba_json_integer_value(sba_json_array_get(pr, 0));
        op->ap[i][1] = sba_json_integer_value(sba_json_array_get(pr, 1));
        if (op->ap[i][1] < 1 || op->ap[i][1] > (1 << 24))
            FAIL(L, SBA_ERR_SCHEMA, "num must be in [1, %d], got %lld", 1 << 24, (long long)op->ap[i][1]);
        if (op->ap[i][0] < -(1ll << 40) || op->ap[i][0] > (1ll << 40))
            FAIL(L, SBA_ERR_SCHEMA, "step must be in [%lld, %lld], got %lld", -(1ll << 40), 1ll << 40,
                 (long long)op->ap[i][0]);
        pop(L, si);
    }
    pop(L, s);
    sba_json *terms;
    if (!get_array(L, jo, "terms", false, &terms)) return false;
    if (!terms && op->kind == BIR_OPND_SYMBOLIC_AP)
        FAIL(L, SBA_ERR_SCHEMA, "a symbolic_ap needs \"terms\" (its [loop, coefficient] pairs; [] for none): "
                                "without them it touches the same elements in every iteration");
    if (terms && op->kind != BIR_OPND_SYMBOLIC_AP) {
        s = push_key(L, "terms");
        FAIL(L, SBA_ERR_SCHEMA, "only a symbolic_ap has offset terms");
    }
    if (terms && sba_json_array_size(terms)) {
        s = push_key(L, "terms");
        size_t nt = sba_json_array_size(terms);
        /* A term per loop of the nest is the most a kernel writes; the count
         * is held in 16 bits (bir_operand.nterms). */
        if (nt > MAX_TERMS) FAIL(L, SBA_ERR_LIMIT, "more than %d terms", MAX_TERMS);
        op->terms = sba_arena_array(L->m->arena, nt, sizeof *op->terms);
        if (!op->terms) return nomem(L);
        for (size_t i = 0; i < nt; i++) {
            size_t si = push_index(L, i);
            sba_json *t = sba_json_array_get(terms, i);
            if (!sba_json_is_array(t) || sba_json_array_size(t) != 2 || !sba_json_is_string(sba_json_array_get(t, 0)) ||
                !sba_json_is_integer(sba_json_array_get(t, 1)))
                FAIL(L, SBA_ERR_SCHEMA, "expected a term [loopAxisName, coefficient]");
            const char *axis = sba_json_string_value(sba_json_array_get(t, 0));
            bir_inst *loop = NULL;
            for (uint32_t d = L->depth; d-- > 0 && !loop;)
                if (strcmp(L->loops[d]->axis.name, axis) == 0) loop = L->loops[d];
            if (!loop) FAIL(L, SBA_ERR_PROGRAM, "loop axis \"%s\" is not in scope", axis);
            int64_t c = sba_json_integer_value(sba_json_array_get(t, 1));
            if (c < -(1ll << 40) || c > (1ll << 40))
                FAIL(L, SBA_ERR_SCHEMA, "coefficient must be in [%lld, %lld], got %lld", -(1ll << 40), 1ll << 40,
                     (long long)c);
            op->terms[op->nterms++] = (bir_term){loop, c};
            pop(L, si);
        }
        pop(L, s);
    }
    return keep_extras(L, jo, operand_keys, &op->extras);
}

static bool load_operands(loader *L, bir_function *fn, sba_json *ji, const char *key,
                          bir_operand **out, uint32_t *n)
{
    sba_json *arr;
    if (!get_array(L, ji, key, false, &arr)) return false;
    if (!arr || sba_json_array_size(arr) == 0) return true;
    size_t s = push_key(L, key);
    if (sba_json_array_size(arr) > 4096) FAIL(L, SBA_ERR_LIMIT, "more than 4096 operands");
    *out = sba_arena_array(L->m->arena, sba_json_array_size(arr), sizeof **out);
    if (!*out) return nomem(L);
    size_t i;
    sba_json *jo;
    sba_json_array_foreach(arr, i, jo) {
        size_t si = push_index(L, i);
        if (!load_operand(L, fn, jo, &(*out)[i])) return false;
        pop(L, si);
    }
    *n = (uint32_t)sba_json_array_size(arr);
    pop(L, s);
    return true;
}

static const char *const inst_keys[] = {"name", "opcode", "engine", "ins", "outs", "LoopAxis",
                                        "blocks", "time", NULL};

static bool load_inst(loader *L, bir_function *fn, bir_block *b, sba_json *ji)
{
    if (!want_type(L, ji, SBA_JSON_OBJECT, "an instruction object")) return false;
    const char *name = NULL, *opname = NULL;
    if (!get_string(L, ji, "name", true, &name)) return false;
    if (!get_string(L, ji, "opcode", true, &opname)) return false;
    uint32_t opcode = BIR_OP_OTHER;
    if (!bir_opcode_parse(opname, &opcode) && bir_opcode_near_miss(opname)) {
        /* Not a new opcode but a misspelt known one, whose meaning (a DMA
         * copy, an elementwise op, a loop) the allocator would lose. */
        size_t s = push_key(L, "opcode");
        FAIL(L, SBA_ERR_SCHEMA, "unknown opcode \"%s\": did you mean \"%s\"? (names are case-sensitive)", opname,
             bir_opcode_near_miss(opname));
        pop(L, s);
    }
    /* A repeated name is the compiler's spelling: sballoc's own names are unique. */
    L->compiler |= bir_function_find_inst(fn, name) != NULL;
    sba_error inner;
    bir_inst *in = bir_inst_add(fn, b, name, opcode, &inner);
    if (!in) {
        size_t s = push_key(L, "name");
        rethrow(L, &inner);
        pop(L, s);
        return false;
    }
    if (opcode == BIR_OP_OTHER && !(in->opcode_name = sba_arena_strdup(L->m->arena, opname)))
        return nomem(L);
    if (!get_enum(L, ji, "engine", false, bir_engine_parse, "engine", ENGINES, &in->engine)) return false;
    L->compiler |= in->engine >= BIR_ENG_CC_UNASSIGNED;
    note_omitted(L, ji, "engine", BIR_OMIT_ENGINE, &in->omitted);
    note_omitted(L, ji, "ins", BIR_OMIT_INS, &in->omitted);
    note_omitted(L, ji, "outs", BIR_OMIT_OUTS, &in->omitted);
    in->has_time = get(L, ji, "time") != NULL;
    if (!get_int(L, ji, "time", false, INT64_MIN, INT64_MAX, &in->time)) return false;
    if (in->has_time) {
        /* program order is the order; the time only measures it */
        if (L->timed && in->time < L->last_time) {
            size_t s = push_key(L, "time");
            FAIL(L, SBA_ERR_PROGRAM, "time %lld is before the time of an earlier instruction (%lld): times "
                 "never decrease in program order", (long long)in->time, (long long)L->last_time);
            pop(L, s);
        }
        L->timed = true, L->last_time = in->time;
    }
    sba_json *dbg;
    if (!get_debug(L, ji, &dbg)) return false;
    if (dbg) {
        size_t s = push_key(L, "debug");
        sba_json *line = get(L, dbg, "lineno");
        if (line && !sba_json_is_null(line) && !get_int(L, dbg, "lineno", true, 0, INT64_MAX, &in->src_line))
            return false;
        if (!get_note(L, dbg, "op_name", &in->src_op)) return false;
        pop(L, s);
    }
    if (!load_operands(L, fn, ji, "ins", &in->ins, &in->nins)) return false;
    if (!load_operands(L, fn, ji, "outs", &in->outs, &in->nouts)) return false;
    sba_json *axis = get(L, ji, "LoopAxis");
    sba_json *blocks = get(L, ji, "blocks");
    if (opcode != BIR_OP_LOOP) {
        if (axis || blocks) {
            size_t s = push_key(L, axis ? "LoopAxis" : "blocks");
            FAIL(L, SBA_ERR_PROGRAM, "only a Loop instruction has %s", axis ? "a LoopAxis" : "blocks");
            pop(L, s);
        }
        return keep_extras(L, ji, inst_keys, &in->extras);
    }
    if (!member(L, ji, "LoopAxis", true, &axis)) return false;
    size_t s = push_key(L, "LoopAxis");
    if (!want_type(L, axis, SBA_JSON_OBJECT, "a LoopAxis object {name, lb, ub, stride}")) return false;
    const char *an = NULL;
    if (!get_string(L, axis, "name", true, &an)) return false;
    if (!get_int(L, axis, "lb", true, -(1ll << 40), 1ll << 40, &in->axis.lb)) return false;
    if (!get_int(L, axis, "ub", true, -(1ll << 40), 1ll << 40, &in->axis.ub)) return false;
    in->axis.stride = 1;
    if (!get_int(L, axis, "stride", false, -(1ll << 40), 1ll << 40, &in->axis.stride)) return false;
    if (in->axis.stride <= 0) FAIL(L, SBA_ERR_PROGRAM, "loop stride must be positive, got %lld",
                                   (long long)in->axis.stride);
    if (in->axis.ub < in->axis.lb)
        FAIL(L, SBA_ERR_PROGRAM, "loop upper bound %lld is below its lower bound %lld",
             (long long)in->axis.ub, (long long)in->axis.lb);
    for (uint32_t d = 0; d < L->depth; d++)
        if (strcmp(L->loops[d]->axis.name, an) == 0)
            FAIL(L, SBA_ERR_PROGRAM, "loop axis \"%s\" shadows an enclosing loop's axis", an);
    /* The axis has no room for unknown keys: refuse them rather than drop them. */
    const char *key;
    sba_json *jv;
    sba_json_object_foreach(axis, key, jv) {
        if (strcmp(key, "name") && strcmp(key, "lb") && strcmp(key, "ub") && strcmp(key, "stride")) {
            push_key(L, key);
            FAIL(L, SBA_ERR_SCHEMA, "unknown LoopAxis key \"%s\" (expected: name, lb, ub, stride)", key);
        }
    }
    if (!(in->axis.name = sba_arena_strdup(L->m->arena, an))) return nomem(L);
    pop(L, s);
    if (!get_array(L, ji, "blocks", true, &blocks)) return false;
    if (L->depth == MAX_LOOP_DEPTH) FAIL(L, SBA_ERR_LIMIT, "loops nest deeper than %d", MAX_LOOP_DEPTH);
    L->loops[L->depth++] = in;
    s = push_key(L, "blocks");
    if (!load_blocks(L, fn, in, blocks)) return false;
    pop(L, s);
    L->depth--;
    return keep_extras(L, ji, inst_keys, &in->extras);
}

static const char *const block_keys[] = {"name", "instructions", NULL};

static bool load_blocks(loader *L, bir_function *fn, bir_inst *loop, sba_json *blocks)
{
    size_t i;
    sba_json *jb;
    sba_json_array_foreach(blocks, i, jb) {
        size_t si = push_index(L, i);
        if (!want_type(L, jb, SBA_JSON_OBJECT, "a block object {name, instructions}")) return false;
        const char *name = NULL;
        if (!get_string(L, jb, "name", true, &name)) return false;
        sba_error inner;
        bir_block *b = bir_block_add(fn, loop, name, &inner);
        if (!b) return rethrow(L, &inner);
        int put = sba_strmap_put(L->block_names, b->name, b, NULL);
        if (put < 0) return nomem(L);
        if (put == 0) {
            push_key(L, "name");
            FAIL(L, SBA_ERR_PROGRAM, "duplicate block name \"%s\" in function \"%s\"", name, fn->name);
        }
        sba_json *insts;
        if (!get_array(L, jb, "instructions", false, &insts)) return false;
        note_omitted(L, jb, "instructions", BIR_OMIT_INSTRUCTIONS, &b->omitted);
        if (!reserve(L, (void **)&b->insts, &b->capinsts, sba_json_array_size(insts), sizeof *b->insts))
            return false;
        if (insts) {
            size_t s = push_key(L, "instructions");
            size_t k;
            sba_json *ji;
            sba_json_array_foreach(insts, k, ji) {
                size_t sk = push_index(L, k);
                if (!load_inst(L, fn, b, ji)) return false;
                pop(L, sk);
            }
            pop(L, s);
        }
        if (!keep_extras(L, jb, block_keys, &b->extras)) return false;
        pop(L, si);
    }
    return true;
}

/* ---- functions and module ---------------------------------------------- */

/* The instructions under a "blocks" array, loops' bodies included; what is
 * not shaped as expected counts nothing (the walk reports it). */
static size_t count_insts(loader *L, const sba_json *blocks, uint32_t depth)
{
    size_t n = 0, i, k;
    sba_json *jb, *ji;
    if (depth > MAX_LOOP_DEPTH) return 0;
    sba_json_array_foreach(blocks, i, jb) {
        sba_json *insts = get(L, jb, "instructions");
        n += sba_json_array_size(insts);
        sba_json_array_foreach(insts, k, ji) n += count_insts(L, get(L, ji, "blocks"), depth + 1);
    }
    return n;
}

static const char *const function_keys[] = {"name", "allocations", "blocks", NULL};

/* The name of set i of function fn, for the function's set-name index. */
static const char *set_name(const void *fn, uint32_t i) { return ((const bir_function *)fn)->sets[i]->name; }

static bool load_function(loader *L, sba_json *jf)
{
    if (!want_type(L, jf, SBA_JSON_OBJECT, "a function object")) return false;
    const char *name = NULL;
    if (!get_string(L, jf, "name", true, &name)) return false;
    sba_error inner;
    bir_function *fn = bir_function_add(L->m, name, &inner);
    if (!fn) {
        size_t s = push_key(L, "name");
        rethrow(L, &inner);
        pop(L, s);
        return false;
    }
    sba_json *allocs, *blocks;
    if (!get_array(L, jf, "allocations", false, &allocs)) return false;
    note_omitted(L, jf, "allocations", BIR_OMIT_ALLOCATIONS, &fn->omitted);
    note_omitted(L, jf, "blocks", BIR_OMIT_BLOCKS, &fn->omitted);
    L->loc_names = L->loc_dups = NULL;
    L->timed = false;
    pending_vec pending = {0};
    /* The set and instruction tables and lists at their final size at once. */
    size_t ninsts = count_insts(L, get(L, jf, "blocks"), 0);
    if (!sba_nameidx_reserve(fn->set_by_name, (uint32_t)sba_json_array_size(allocs), set_name, fn) ||
        !sba_strmap_reserve(fn->inst_by_name, (uint32_t)ninsts))
        return nomem(L);
    if (!reserve(L, (void **)&fn->sets, &fn->capsets, sba_json_array_size(allocs), sizeof *fn->sets) ||
        !reserve(L, (void **)&fn->insts, &fn->capinsts, ninsts, sizeof *fn->insts))
        return false;
    if (allocs) {
        size_t s = push_key(L, "allocations");
        size_t i;
        sba_json *js;
        sba_json_array_foreach(allocs, i, js) {
            size_t si = push_index(L, i);
            if (!load_set(L, fn, js, &pending)) return false;
            pop(L, si);
        }
        pop(L, s);
    }
    for (uint32_t i = 0; i < pending.n; i++)
        if (!load_aliases(L, fn, &pending.v[i])) return false;
    if (!get_array(L, jf, "blocks", false, &blocks)) return false;
    if (!(L->block_names = sba_strmap_new(&L->scratch))) return nomem(L);
    if (blocks) {
        size_t s = push_key(L, "blocks");
        if (!load_blocks(L, fn, NULL, blocks)) return false;
        pop(L, s);
    }
    if (bir_function_build_def_use(fn, &inner) != SBA_OK) return rethrow(L, &inner);
    return keep_extras(L, jf, function_keys, &fn->extras);
}

static const char *const target_keys[] = {"name", "partitions", "sbuf_bytes_per_partition",
                                          "sbuf_alignment", "psum_banks", "psum_bank_bytes",
                                          "psum_alignment", NULL};

static bool load_target(loader *L, sba_json *jt)
{
    size_t s = push_key(L, "target");
    if (!want_type(L, jt, SBA_JSON_OBJECT, "a target object")) return false;
    sba_target *t = &L->m->target;
    const char *name = NULL;
    if (!get_string(L, jt, "name", false, &name)) return false;
    if (name) {
        const sba_target *p = sba_target_preset(name);
        if (p) *t = *p;
        if (!(t->name = sba_arena_strdup(L->m->arena, name))) return nomem(L);
    } else {
        t->name = "custom";
    }
    int64_t v;
#define FIELD(key, lo, hi, dst)                                                          \
    if (get(L, jt, key)) {                                                      \
        if (!get_int(L, jt, key, true, lo, hi, &v)) return false;                        \
        dst = v;                                                                         \
    }
    FIELD("partitions", 1, 128, t->partitions)
    FIELD("sbuf_bytes_per_partition", 1, 1ll << 32, t->sbuf_bytes)
    FIELD("sbuf_alignment", 1, 1 << 16, t->sbuf_align)
    FIELD("psum_banks", 1, 64, t->psum_banks)
    FIELD("psum_bank_bytes", 1, 1 << 24, t->psum_bank_bytes)
    FIELD("psum_alignment", 1, 1 << 16, t->psum_align)
#undef FIELD
    if (t->sbuf_align & (t->sbuf_align - 1)) FAIL(L, SBA_ERR_SCHEMA, "sbuf_alignment must be a power of two");
    if (t->psum_align & (t->psum_align - 1)) FAIL(L, SBA_ERR_SCHEMA, "psum_alignment must be a power of two");
    const char *key;
    sba_json *jv;
    sba_json_object_foreach(jt, key, jv) {
        bool known = false;
        for (const char *const *p = target_keys; *p && !known; p++) known = strcmp(*p, key) == 0;
        if (!known) {
            push_key(L, key);
            FAIL(L, SBA_ERR_SCHEMA, "unknown target key \"%s\" (expected: name, partitions, "
                 "sbuf_bytes_per_partition, sbuf_alignment, psum_banks, psum_bank_bytes, "
                 "psum_alignment)", key);
        }
    }
    L->m->has_target = true;
    pop(L, s);
    return true;
}

static const char *const module_keys[] = {"version", "arch", "target", "functions", NULL};

static bool load_module(loader *L, sba_json *root)
{
    if (!sba_json_is_object(root)) FAIL(L, SBA_ERR_SCHEMA, "expected a BIR module object at the top level, got %s",
                                    type_name(root));
    if (!get_int(L, root, "version", false, 1, 1000, &L->m->version)) return false;
    note_omitted(L, root, "version", BIR_OMIT_VERSION, &L->m->omitted);
    L->compiler |= get(L, root, "queues") != NULL;
    const char *arch = NULL;
    if (!get_string(L, root, "arch", false, &arch)) return false;
    if (arch) {
        const sba_target *p = sba_target_preset(arch);
        if (!p) {
            size_t s = push_key(L, "arch");
            FAIL(L, SBA_ERR_SCHEMA, "unknown arch \"%s\" (expected one of: trn1, inf2, trn2, trn3, "
                 "gen2, gen3, gen4)", arch);
            pop(L, s);
        }
        L->m->target = *p;
        if (!(L->m->arch = sba_arena_strdup(L->m->arena, arch))) return nomem(L);
    }
    sba_json *jt = get(L, root, "target");
    if (jt && !load_target(L, jt)) return false;
    sba_json *fns;
    if (!get_array(L, root, "functions", true, &fns)) return false;
    size_t s = push_key(L, "functions");
    size_t i;
    sba_json *jf;
    sba_json_array_foreach(fns, i, jf) {
        size_t si = push_index(L, i);
        if (!load_function(L, jf)) return false;
        pop(L, si);
    }
    pop(L, s);
    L->m->spelling = L->compiler ? BIR_SPELLING_COMPILER : BIR_SPELLING_SBALLOC;
    return keep_extras(L, root, module_keys, &L->m->extras);
}

/* Whether a failed json_loadb failed for want of memory. jansson says so for
 * most allocations, but a string its lexer cannot copy becomes an invalid
 * token, and a failure before parsing leaves no message. Parsing is
 * deterministic, so a second parse that does not fail the same way proves the
 * first failure was memory; a real syntax error fails identically twice. */
static bool parse_ran_out_of_memory(const char *text, size_t len, const json_error_t *first)
{
    if (json_error_code(first) == json_error_out_of_memory || first->text[0] == '\0') return true;
    json_error_t again;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &again);
    if (root) {
        json_decref(root);
        return true;
    }
    return again.position != first->position || strcmp(again.text, first->text) != 0;
}

/* The error of a text our parser rejected: jansson, which accepts the same
 * grammar, re-parses it to say what is wrong and where (line:column). */
static void syntax_error(const char *text, size_t len, size_t pos, sba_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (root) {
        /* The two grammars disagree: say where ours stopped. */
        json_decref(root);
        int line = 1, col = 1;
        for (size_t i = 0; i < pos && i < len; i++) {
            if (text[i] == '\n') line++, col = 1;
            else col++;
        }
        sba_err_pos(err, SBA_ERR_PARSE, line, col, "invalid JSON");
        return;
    }
    if (parse_ran_out_of_memory(text, len, &je)) {
        sba_err(err, SBA_ERR_NOMEM, "out of memory parsing the input");
        return;
    }
    /* jansson reports a duplicate key or a bad token with its position. */
    sba_err_pos(err, json_error_code(&je) == json_error_stack_overflow ? SBA_ERR_LIMIT : SBA_ERR_PARSE,
                je.line > 0 ? je.line : 1, je.column > 0 ? je.column : 1, "%s", je.text);
}

/* Parses text, then builds the model. `owned`, when not NULL, is the caller's
 * copy of text (from `a`), and `mapped` a mapping of the file that holds it:
 * either is released as soon as the text is parsed, so the text and the model
 * are never resident together. */
static bir_module *load_text(const char *text, size_t len, char *owned, void *mapped, const sba_allocator *a,
                             sba_error *err)
{
    sba_error_clear(err);
    size_t pos = 0;
    bool nomem = false;
    sba_json_doc *doc = sba_json_parse(text, len, 0, a, &pos, &nomem);
    if (!doc && nomem) sba_err(err, SBA_ERR_NOMEM, "out of memory");
    else if (!doc) syntax_error(text, len, pos, err);
    sba_free(a, owned);
    if (mapped) munmap(mapped, len);
    if (!doc) return NULL;
    bir_module *m = bir_module_new(a);
    if (!m) {
        sba_json_doc_free(doc);
        sba_err(err, SBA_ERR_NOMEM, "out of memory");
        return NULL;
    }
    loader L = {.m = m, .err = err, .doc = doc};
    sba_arena_init(&L.scratch, a);
    bool ok = load_module(&L, sba_json_doc_root(doc));
    if (ok && L.scratch.failed) ok = (sba_err(err, SBA_ERR_NOMEM, "out of memory"), false);
    sba_arena_free(&L.scratch);
    sba_json_doc_free(doc);
    if (ok && bir_module_failed(m)) ok = (sba_err(err, SBA_ERR_NOMEM, "out of memory"), false);
    if (!ok) {
        bir_module_free(m);
        return NULL;
    }
    return m;
}

bir_module *bir_load_buffer(const char *text, size_t len, const char *file, const sba_allocator *a,
                            sba_error *err)
{
    (void)file;
    return load_text(text, len, NULL, NULL, a, err);
}

bir_module *bir_load_file(const char *path, const sba_allocator *a, sba_error *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        sba_err(err, SBA_ERR_IO, "cannot open: %s", strerror(errno));
        return NULL;
    }
    /* A regular file says its size: refuse a huge one before reading it. */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > MAX_FILE_BYTES) {
        if (f != stdin) fclose(f);
        sba_err(err, SBA_ERR_LIMIT, "the input is larger than the %d MiB limit", MAX_FILE_BYTES >> 20);
        return NULL;
    }
    /* A regular file is mapped, not read: the parser reads the page cache
     * itself, with no copy of 1 byte in 1 and no anonymous pages to fault in
     * and zero. The mapping goes as soon as the text is parsed. A file that
     * cannot be mapped (or standard input, a pipe) is read instead. */
    if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t n = (size_t)st.st_size;
        void *map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fileno(f), 0);
        if (map != MAP_FAILED) {
            fclose(f);
            posix_madvise(map, n, POSIX_MADV_SEQUENTIAL);
            return load_text(map, n, NULL, map, a, err);
        }
    }
    /* Otherwise the text is read into a buffer of the file's size (one byte
     * more to see that it did not grow): doubling would copy, and hold both
     * copies. */
    size_t cap = 1 << 16, len = 0;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) cap = (size_t)st.st_size + 1;
    char *buf = sba_malloc(a, cap);
    while (buf) {
        if (len == cap) {
            /* Exactly at the limit is allowed: only a byte past it fails. */
            if (cap >= MAX_FILE_BYTES && getc(f) == EOF) break;
            if (cap >= MAX_FILE_BYTES) {
                sba_free(a, buf);
                if (f != stdin) fclose(f);
                sba_err(err, SBA_ERR_LIMIT, "the input is larger than the %d MiB limit", MAX_FILE_BYTES >> 20);
                return NULL;
            }
            char *nb = sba_realloc(a, buf, cap * 2);
            if (!nb) {
                sba_free(a, buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    bool rerr = ferror(f);
    if (f != stdin) fclose(f);
    if (!buf) {
        sba_err(err, SBA_ERR_NOMEM, "out of memory reading the input");
        return NULL;
    }
    if (rerr) {
        sba_free(a, buf);
        sba_err(err, SBA_ERR_IO, "read error");
        return NULL;
    }
    return load_text(buf, len, buf, NULL, a, err);
}

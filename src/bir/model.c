/* The memory-location model of seed 003: modules, functions, sets (logical
 * tensors), locations (placements), the alias relation and the def-use lists.
 *
 * Everything lives in the module's arena. Names are unique per owner (function
 * names in a module, set and instruction names in a function, location names in
 * a set); unique ids come from one module-wide counter. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/strmap.h"
#include "sballoc/bir.h"

/* ---- helpers ----------------------------------------------------------- */

/* Sets of at most this many placements find them by a linear scan. */
enum { SMALL_SET = 8 };

static sba_arena *fn_arena(const bir_function *fn) { return fn->module->arena; }

/* The name of set i of function fn (the name index's view of fn->sets). */
static const char *set_name(const void *fn, uint32_t i) { return ((const bir_function *)fn)->sets[i]->name; }

static sba_status nomem(sba_error *err) { return sba_err(err, SBA_ERR_NOMEM, "out of memory"); }

static int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return INT64_MAX;
    return r;
}

/* ---- module ------------------------------------------------------------ */

bir_module *bir_module_new(const sba_allocator *a)
{
    sba_arena *ar = sba_malloc(a, sizeof *ar);
    if (!ar) return NULL;
    sba_arena_init(ar, a);
    bir_module *m = sba_arena_zalloc(ar, sizeof *m);
    if (!m) {
        sba_arena_free(ar);
        sba_free(a, ar);
        return NULL;
    }
    m->arena = ar;
    m->version = 2;
    m->target = *sba_target_preset("trn2");
    return m;
}

void bir_module_free(bir_module *m)
{
    if (!m) return;
    sba_arena *ar = m->arena;
    const sba_allocator *a = ar->a;
    sba_arena_free(ar);
    sba_free(a, ar);
}

bool bir_module_failed(const bir_module *m) { return m->arena->failed; }

static bool same_geometry(const sba_target *a, const sba_target *b)
{
    return a->partitions == b->partitions && a->sbuf_bytes == b->sbuf_bytes && a->sbuf_align == b->sbuf_align &&
           a->psum_banks == b->psum_banks && a->psum_bank_bytes == b->psum_bank_bytes &&
           a->psum_align == b->psum_align;
}

sba_status bir_module_set_target(bir_module *m, const sba_target *t, sba_error *err)
{
    /* The module's own target again: nothing to record (a module read
     * without "arch" is written back without it). */
    if (t == &m->target ||
        (same_geometry(t, &m->target) && (t->name == m->target.name ||
                                           (t->name && m->target.name && !strcmp(t->name, m->target.name)))))
        return SBA_OK;
    const sba_target *preset = t->name ? sba_target_preset(t->name) : NULL;
    if (preset && same_geometry(preset, t)) {
        m->arch = preset->name;
        m->target = *preset;
        m->has_target = false;
        return SBA_OK;
    }
    const char *name = sba_arena_strdup(m->arena, t->name ? t->name : "custom");
    if (!name) return nomem(err);
    m->target = *t;
    m->target.name = name;
    m->has_target = true;
    return SBA_OK;
}

/* ---- construction ------------------------------------------------------ */

bir_function *bir_function_add(bir_module *m, const char *name, sba_error *err)
{
    for (uint32_t i = 0; i < m->nfns; i++)
        if (strcmp(m->fns[i]->name, name) == 0)
            return sba_err(err, SBA_ERR_MODEL, "duplicate function name \"%s\"", name), NULL;
    bir_function *fn = sba_arena_zalloc(m->arena, sizeof *fn);
    if (!fn || !(fn->name = sba_arena_strdup(m->arena, name)) ||
        !(fn->set_by_name = sba_arena_alloc(m->arena, sizeof *fn->set_by_name)) ||
        !(fn->inst_by_name = sba_strmap_new(m->arena)) ||
        !sba_arena_grow(m->arena, (void **)&m->fns, &m->capfns, m->nfns + 1, sizeof *m->fns))
        return nomem(err), NULL;
    sba_nameidx_init(fn->set_by_name, m->arena);
    fn->module = m;
    m->fns[m->nfns++] = fn;
    return fn;
}

bir_set *bir_set_add(bir_function *fn, const char *name, sba_error *err)
{
    sba_arena *ar = fn_arena(fn);
    if (bir_function_find_set(fn, name))
        return sba_err(err, SBA_ERR_MODEL, "duplicate set name \"%s\" in function \"%s\"", name,
                       fn->name), NULL;
    bir_set *set = sba_arena_zalloc(ar, sizeof *set);
    if (!set || !(set->name = sba_arena_strdup(ar, name)) ||
        !sba_arena_grow(ar, (void **)&fn->sets, &fn->capsets, fn->nsets + 1, sizeof *fn->sets))
        return nomem(err), NULL;
    fn->sets[fn->nsets] = set;
    if (!sba_nameidx_add(fn->set_by_name, fn->nsets, set_name, fn)) return nomem(err), NULL;
    set->fn = fn;
    set->partition_dim = 0;
    set->kind = BIR_TK_INTERNAL;
    set->tensor_class = BIR_TC_TENSOR;
    set->unique_id = ++fn->module->next_unique_id;
    fn->nsets++;
    return set;
}

bir_location *bir_location_add(bir_set *set, const char *name, uint32_t type, sba_error *err)
{
    sba_arena *ar = fn_arena(set->fn);
    if (!bir_memory_type_name(type))
        return sba_err(err, SBA_ERR_MODEL, "Unknown memory type %u", type), NULL;
    if (bir_set_find_location(set, name))
        return sba_err(err, SBA_ERR_MODEL, "duplicate memory location name \"%s\" in set \"%s\"",
                       name, set->name), NULL;
    bir_location *loc = sba_arena_zalloc(ar, sizeof *loc);
    if (!loc || !(loc->name = sba_arena_strdup(ar, name)) ||
        !sba_arena_grow(ar, (void **)&set->locs, &set->caplocs, set->nlocs + 1, sizeof *set->locs))
        return nomem(err), NULL;
    /* Most sets hold one or two placements: a name table (16 slots at least)
     * would be the set's largest part, so it is built only for large sets. */
    if (set->loc_by_name) {
        if (sba_strmap_put(set->loc_by_name, loc->name, loc, NULL) < 0) return nomem(err), NULL;
    } else if (set->nlocs + 1 > SMALL_SET) {
        if (!(set->loc_by_name = sba_strmap_new(ar))) return nomem(err), NULL;
        for (uint32_t i = 0; i < set->nlocs; i++)
            if (sba_strmap_put(set->loc_by_name, set->locs[i]->name, set->locs[i], NULL) < 0)
                return nomem(err), NULL;
        if (sba_strmap_put(set->loc_by_name, loc->name, loc, NULL) < 0) return nomem(err), NULL;
    }
    loc->set = set;
    loc->index = set->fn->nloc_index++;
    loc->type = type;
    loc->addr = BIR_NO_ADDR;
    loc->base = BIR_NO_BASE;
    loc->pack_id_hint = -1;
    loc->tensor_id = set->nlocs;
    loc->var_id = loc->table_entry_id = loc->memloc_set_id = BIR_NO_ID;
    /* The id cascade: a location's id comes from the module's counter, reached
     * through its set and function. */
    loc->unique_id = ++set->fn->module->next_unique_id;
    set->locs[set->nlocs++] = loc;
    return loc;
}

bir_set *bir_function_find_set(const bir_function *fn, const char *name)
{
    uint32_t i = sba_nameidx_get(fn->set_by_name, name, set_name, fn);
    return i == UINT32_MAX ? NULL : fn->sets[i];
}

bir_inst *bir_function_find_inst(const bir_function *fn, const char *name)
{
    return sba_strmap_get(fn->inst_by_name, name);
}

bir_location *bir_set_find_location(const bir_set *set, const char *name)
{
    if (set->loc_by_name) return sba_strmap_get(set->loc_by_name, name);
    for (uint32_t i = 0; i < set->nlocs; i++)
        if (strcmp(set->locs[i]->name, name) == 0) return set->locs[i];
    return NULL;
}

/* buildTensorId2MemLoc: every id must be assigned (>= 0) and distinct. */
sba_status bir_set_build_tensor_id_map(bir_set *set, sba_error *err)
{
    int64_t max = -1;
    for (uint32_t i = 0; i < set->nlocs; i++) {
        const bir_location *loc = set->locs[i];
        if (loc->tensor_id < 0)
            return sba_err(err, SBA_ERR_MODEL, "Unassigned tensorId: memory location \"%s\" of set "
                           "\"%s\" has tensor_id %lld", loc->name, set->name,
                           (long long)loc->tensor_id);
        if (loc->tensor_id > max) max = loc->tensor_id;
    }
    if (max >= (int64_t)set->nlocs * 4 + 1024)
        return sba_err(err, SBA_ERR_LIMIT, "tensor_id %lld of set \"%s\" is too large for its %u "
                       "memory locations", (long long)max, set->name, set->nlocs);
    uint32_t n = (uint32_t)(max + 1);
    bir_location **map = sba_arena_array(fn_arena(set->fn), n ? n : 1, sizeof *map);
    if (!map) return nomem(err);
    for (uint32_t i = 0; i < set->nlocs; i++) {
        bir_location *loc = set->locs[i];
        bir_location **slot = &map[loc->tensor_id];
        if (*slot)
            return sba_err(err, SBA_ERR_MODEL, "memory locations \"%s\" and \"%s\" of set \"%s\" "
                           "share tensor_id %lld", (*slot)->name, loc->name, set->name,
                           (long long)loc->tensor_id);
        *slot = loc;
    }
    set->by_tensor_id = map;
    set->n_by_tensor_id = n;
    return SBA_OK;
}

bir_location *bir_set_location_by_tensor_id(const bir_set *set, int64_t tensor_id)
{
    if (tensor_id < 0) return NULL;
    if (set->by_tensor_id)
        return (uint64_t)tensor_id < set->n_by_tensor_id ? set->by_tensor_id[tensor_id] : NULL;
    for (uint32_t i = 0; i < set->nlocs; i++)
        if (set->locs[i]->tensor_id == tensor_id) return set->locs[i];
    return NULL;
}

uint64_t bir_location_unique_id(const bir_location *loc) { return loc->unique_id; }

void bir_location_set_allocated(bir_location *loc, bool allocated)
{
    loc->allocated = allocated;
    loc->set->allocated = allocated;
}

int64_t bir_location_bank(const bir_location *loc)
{
    if (loc->bank == INT64_MIN) return INT64_MAX; /* no magnitude fits: outside every PSUM */
    return loc->bank < 0 ? -loc->bank : loc->bank;
}

bool bir_is_placeable(uint32_t type)
{
    return type == BIR_MEM_DRAM || type == BIR_MEM_SB || type == BIR_MEM_PSUM;
}

const char *bir_location_describe(const bir_location *loc, char *buf, size_t size)
{
    const char *type = bir_memory_type_name(loc->type);
    if (!type) type = "?";
    if (loc->type == BIR_MEM_SB && loc->addr != BIR_NO_ADDR)
        snprintf(buf, size, "SB addr %lld base %d", (long long)loc->addr, loc->base == BIR_NO_BASE ? 0 : loc->base);
    else if (loc->type == BIR_MEM_PSUM && loc->has_bank && loc->addr != BIR_NO_ADDR)
        snprintf(buf, size, "PSUM bank %lld addr %lld", (long long)bir_location_bank(loc), (long long)loc->addr);
    else if (loc->type == BIR_MEM_DRAM) {
        const char *as = bir_addr_space_name(loc->set->addr_space);
        if (loc->addr != BIR_NO_ADDR)
            snprintf(buf, size, "DRAM %s addr %lld", as ? as : "?", (long long)loc->addr);
        else
            snprintf(buf, size, "DRAM %s", as ? as : "?");
    } else if (bir_is_placeable(loc->type))
        snprintf(buf, size, "%s (unplaced)", type);
    else
        snprintf(buf, size, "%s", type);
    return buf;
}

sba_status bir_location_set_pack_id_hint(bir_location *loc, int32_t hint, sba_error *err)
{
    if (hint != -1 && loc->type != BIR_MEM_PSUM)
        return sba_err(err, SBA_ERR_MODEL, "%s: PackIdHint only applies to PSUM.", loc->name);
    loc->pack_id_hint = hint;
    return SBA_OK;
}

/* ---- geometry ---------------------------------------------------------- */

int64_t bir_set_partitions(const bir_set *set)
{
    if (set->rank == 0 || set->partition_dim < 0 || (uint32_t)set->partition_dim >= set->rank)
        return 1;
    return set->shape[set->partition_dim];
}

int64_t bir_set_nblocks(const bir_set *set)
{
    int64_t n = 1;
    for (int32_t i = 0; i < set->partition_dim && (uint32_t)i < set->rank; i++)
        n = mul_sat(n, set->shape[i]);
    return n;
}

int64_t bir_set_bytes_per_block(const bir_set *set)
{
    int64_t n = bir_dtype_size(set->dtype);
    for (uint32_t i = (uint32_t)set->partition_dim + 1; i < set->rank; i++)
        n = mul_sat(n, set->shape[i]);
    return n;
}

int64_t bir_set_elements(const bir_set *set)
{
    int64_t n = 1;
    for (uint32_t i = 0; i < set->rank; i++) n = mul_sat(n, set->shape[i]);
    return n;
}

/* ---- aliases ----------------------------------------------------------- */

sba_status bir_alias_make(bir_location *peer, uint32_t kind, bir_alias_ptr *out, sba_error *err)
{
    *out = 0;
    uintptr_t p = (uintptr_t)peer;
    if (p & 7) return sba_err(err, SBA_ERR_MODEL, "Pointer is not sufficiently aligned");
    if (kind & ~7u) return sba_err(err, SBA_ERR_MODEL, "Integer too large for field (alias kind %u)", kind);
    *out = (bir_alias_ptr)(kind | (p & ~(uintptr_t)7));
    return SBA_OK;
}

bir_location *bir_alias_peer(bir_alias_ptr ap) { return (bir_location *)(uintptr_t)(ap & ~(bir_alias_ptr)7); }
uint32_t bir_alias_kind(bir_alias_ptr ap) { return (uint32_t)(ap & 7); }
bool bir_alias_has(bir_alias_ptr ap, uint32_t kind) { return (kind & ap & 7) == kind; }

uint32_t bir_alias_kinds(bir_alias_ptr ap, uint32_t out[2])
{
    uint32_t n = 0;
    if (bir_alias_has(ap, BIR_ALIAS_MAY)) out[n++] = BIR_ALIAS_MAY;
    if (bir_alias_has(ap, BIR_ALIAS_MUST)) out[n++] = BIR_ALIAS_MUST;
    return n;
}

/* Sorted insert with kind-OR merge. The order is the peer's unique id, so the
 * relation is saved in the same order on every run. */
static bool insert_edge(bir_location *loc, bir_alias_ptr ap)
{
    uint64_t key = bir_alias_peer(ap)->unique_id;
    uint32_t lo = 0, hi = loc->nalias;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (bir_alias_peer(loc->alias[mid])->unique_id < key) lo = mid + 1;
        else hi = mid;
    }
    if (lo < loc->nalias && bir_alias_peer(loc->alias[lo]) == bir_alias_peer(ap)) {
        loc->alias[lo] |= ap & 7;
        return true;
    }
    if (!sba_arena_grow(fn_arena(loc->set->fn), (void **)&loc->alias, &loc->capalias,
                        loc->nalias + 1, sizeof *loc->alias))
        return false;
    memmove(&loc->alias[lo + 1], &loc->alias[lo], (size_t)(loc->nalias - lo) * sizeof *loc->alias);
    loc->alias[lo] = ap;
    loc->nalias++;
    return true;
}

sba_status bir_location_add_alias(bir_location *src, bir_location *dst, uint32_t kind, sba_error *err)
{
    if (src->type != BIR_MEM_DRAM || dst->type != BIR_MEM_DRAM)
        return sba_err(err, SBA_ERR_MODEL, "%s -> %s. Aliasing only permitted for DRAM locations.",
                       src->name, dst->name);
    bir_alias_ptr fwd, back;
    sba_status st = bir_alias_make(dst, kind, &fwd, err);
    if (st == SBA_OK) st = bir_alias_make(src, kind, &back, err);
    if (st != SBA_OK) return st;
    if (!insert_edge(src, fwd) || !insert_edge(dst, back)) return nomem(err);
    return SBA_OK;
}

bir_location *bir_location_must_alias(const bir_location *loc)
{
    for (uint32_t i = 0; i < loc->nalias; i++)
        if (bir_alias_has(loc->alias[i], BIR_ALIAS_MUST)) return bir_alias_peer(loc->alias[i]);
    return NULL;
}

/* ---- program ----------------------------------------------------------- */

bir_block *bir_block_add(bir_function *fn, bir_inst *loop, const char *name, sba_error *err)
{
    sba_arena *ar = fn_arena(fn);
    bir_block *b = sba_arena_zalloc(ar, sizeof *b);
    if (!b || !(b->name = sba_arena_strdup(ar, name))) return nomem(err), NULL;
    b->loop = loop;
    bool ok = loop ? sba_arena_grow(ar, (void **)&loop->blocks, &loop->capblocks, loop->nblocks + 1,
                                    sizeof *loop->blocks)
                   : sba_arena_grow(ar, (void **)&fn->blocks, &fn->capblocks, fn->nblocks + 1,
                                    sizeof *fn->blocks);
    if (!ok) return nomem(err), NULL;
    if (loop) loop->blocks[loop->nblocks++] = b;
    else fn->blocks[fn->nblocks++] = b;
    return b;
}

bir_inst *bir_inst_new(bir_function *fn, const char *name, uint32_t opcode, sba_error *err)
{
    sba_arena *ar = fn_arena(fn);
    /* Names may repeat (the compiler's own dumps repeat them): the map keeps
     * the first instruction of each name. */
    bir_inst *in = sba_arena_zalloc(ar, sizeof *in);
    if (!in || !(in->name = sba_arena_strdup(ar, name)) ||
        sba_strmap_put(fn->inst_by_name, in->name, in, NULL) < 0)
        return nomem(err), NULL;
    in->opcode = opcode;
    in->src_line = -1;
    in->opcode_name = bir_opcode_name(opcode);
    return in;
}

bir_inst *bir_inst_add(bir_function *fn, bir_block *block, const char *name, uint32_t opcode,
                       sba_error *err)
{
    sba_arena *ar = fn_arena(fn);
    bir_inst *in = bir_inst_new(fn, name, opcode, err);
    if (!in) return NULL;
    if (!sba_arena_grow(ar, (void **)&block->insts, &block->capinsts, block->ninsts + 1,
                        sizeof *block->insts) ||
        !sba_arena_grow(ar, (void **)&fn->insts, &fn->capinsts, fn->ninsts + 1, sizeof *fn->insts))
        return nomem(err), NULL;
    in->parent = block;
    in->index = fn->ninsts;
    block->insts[block->ninsts++] = in;
    fn->insts[fn->ninsts++] = in;
    return in;
}

const char *bir_inst_source(const bir_inst *in, char *buf, size_t size)
{
    if (!size) return buf;
    buf[0] = '\0';
    if (!in) return buf;
    if (in->src_line >= 0 && in->src_op)
        snprintf(buf, size, " (line %lld, %s)", (long long)in->src_line, in->src_op);
    else if (in->src_line >= 0)
        snprintf(buf, size, " (line %lld)", (long long)in->src_line);
    else if (in->src_op)
        snprintf(buf, size, " (%s)", in->src_op);
    return buf;
}

/* Gives a list room for exactly the n accesses counted into it (keeping a
 * larger one from an earlier build), and empties it for the fill. */
static bool size_list(sba_arena *ar, bir_access **v, uint32_t *n, uint32_t *cap)
{
    if (*n > *cap) {
        bir_access *nv = sba_arena_array(ar, *n, sizeof *nv);
        if (!nv) return false;
        *v = nv;
        *cap = *n;
    }
    *n = 0;
    return true;
}

static bool size_storage(sba_arena *ar, bir_storage *s)
{
    return size_list(ar, &s->readers, &s->nreaders, &s->capreaders) &&
           size_list(ar, &s->writers, &s->nwriters, &s->capwriters);
}

static void clear_storage(bir_storage *s)
{
    s->nreaders = 0;
    s->nwriters = 0;
}

sba_status bir_function_build_def_use(bir_function *fn, sba_error *err)
{
    sba_arena *ar = fn_arena(fn);
    for (uint32_t i = 0; i < fn->nsets; i++) {
        clear_storage(&fn->sets[i]->storage);
        for (uint32_t j = 0; j < fn->sets[i]->nlocs; j++) clear_storage(&fn->sets[i]->locs[j]->storage);
    }
    /* Two passes, counting then filling, so that every list is allocated once
     * at its size: a growing list would leave its smaller copies behind in
     * the arena, on every tensor. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < fn->ninsts; i++) {
            bir_inst *in = fn->insts[i];
            for (int w = 0; w < 2; w++) {
                bir_operand *ops = w ? in->outs : in->ins;
                uint32_t nops = w ? in->nouts : in->nins;
                for (uint32_t k = 0; k < nops; k++) {
                    bir_operand *op = &ops[k];
                    if (!op->set) continue;
                    bir_storage *st[2] = {&op->set->storage, op->loc ? &op->loc->storage : NULL};
                    for (int j = 0; j < 2 && st[j]; j++) {
                        uint32_t *n = w ? &st[j]->nwriters : &st[j]->nreaders;
                        bir_access **v = w ? &st[j]->writers : &st[j]->readers;
                        uint32_t *cap = w ? &st[j]->capwriters : &st[j]->capreaders;
                        /* (a placement its set no longer lists was not sized) */
                        if (pass && !sba_arena_grow(ar, (void **)v, cap, *n + 1, sizeof **v))
                            return nomem(err);
                        if (pass) (*v)[*n] = (bir_access){in, k};
                        (*n)++;
                    }
                }
            }
        }
        if (pass) break;
        for (uint32_t i = 0; i < fn->nsets; i++) {
            if (!size_storage(ar, &fn->sets[i]->storage)) return nomem(err);
            for (uint32_t j = 0; j < fn->sets[i]->nlocs; j++)
                if (!size_storage(ar, &fn->sets[i]->locs[j]->storage)) return nomem(err);
        }
    }
    return SBA_OK;
}

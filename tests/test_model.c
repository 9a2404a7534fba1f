/* The memory-location model of seed 003: one test per rule the seed states,
 * each named for its rule. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sballoc/bir.h"

/* ---- fixtures ---------------------------------------------------------- */

static bir_module *new_module(void)
{
    bir_module *m = bir_module_new(NULL);
    cr_assert_not_null(m);
    return m;
}

static bir_function *new_function(bir_module *m, const char *name)
{
    sba_error err;
    bir_function *fn = bir_function_add(m, name, &err);
    cr_assert_not_null(fn, "%s", err.message);
    return fn;
}

static bir_set *new_set(bir_function *fn, const char *name)
{
    sba_error err;
    bir_set *s = bir_set_add(fn, name, &err);
    cr_assert_not_null(s, "%s", err.message);
    return s;
}

static bir_location *new_loc(bir_set *set, const char *name, uint32_t type)
{
    sba_error err;
    bir_location *l = bir_location_add(set, name, type, &err);
    cr_assert_not_null(l, "%s", err.message);
    return l;
}

/* A set holding one location of the given type. */
static bir_location *new_tensor(bir_function *fn, const char *name, uint32_t type)
{
    char sn[64];
    snprintf(sn, sizeof sn, "%s_set", name);
    return new_loc(new_set(fn, sn), name, type);
}

static bir_module *load_text(const char *text)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "test.json", NULL, &err);
    cr_assert_not_null(m, "load failed: %s: %s", err.path, err.message);
    return m;
}

/* ---- MemoryType -------------------------------------------------------- */

Test(memory_type, memory_type_values_are_bit_flags)
{
    cr_assert_eq(BIR_MEM_UNALLOCATED, 1);
    cr_assert_eq(BIR_MEM_INPUT, 2);
    cr_assert_eq(BIR_MEM_OUTPUT, 4);
    cr_assert_eq(BIR_MEM_DRAM, 8);
    cr_assert_eq(BIR_MEM_SB, 16);
    cr_assert_eq(BIR_MEM_PSUM, 32);
    cr_assert_eq(BIR_MEM_RNGSTATE, 64);
    cr_assert_eq(BIR_MEM_REG, 128);
}

Test(memory_type, memory_type_names_both_ways)
{
    static const struct {
        uint32_t v;
        const char *name;
    } table[] = {{1, "Unallocated"}, {2, "Input"}, {4, "Output"}, {8, "DRAM"},
                 {16, "SB"},         {32, "PSUM"}, {64, "RNGSTATE"}, {128, "REG"}};
    for (size_t i = 0; i < 8; i++) {
        cr_assert_str_eq(bir_memory_type_name(table[i].v), table[i].name);
        uint32_t v = 0;
        cr_assert(bir_memory_type_parse(table[i].name, &v), "%s", table[i].name);
        cr_assert_eq(v, table[i].v);
    }
}

Test(memory_type, unknown_memory_type_has_no_name)
{
    const uint32_t bad[] = {0, 3, 5, 24, 48, 96, 129, 256, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_null(bir_memory_type_name(bad[i]), "value %u", bad[i]);
    uint32_t v = 99;
    cr_assert_not(bir_memory_type_parse("Sb", &v), "names are case-sensitive");
    cr_assert_not(bir_memory_type_parse("", &v));
    cr_assert_not(bir_memory_type_parse("SBUF", &v));
    cr_assert_eq(v, 99, "a failed parse leaves the output alone");
    /* A location cannot be made with a value that is not a memory type. */
    bir_module *m = new_module();
    bir_set *s = new_set(new_function(m, "f"), "s");
    sba_error err;
    cr_assert_null(bir_location_add(s, "x", 24, &err));
    cr_assert_eq(err.code, SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "Unknown memory type 24");
    cr_assert_eq(s->nlocs, 0);
    bir_module_free(m);
}

Test(memory_type, only_dram_sb_psum_placeable)
{
    for (uint32_t v = 0; v <= 256; v++) {
        bool expect = v == 8 || v == 16 || v == 32;
        cr_assert_eq(bir_memory_type_placeable(v), expect, "type %u", v);
    }
}

/* ---- MemoryAddressSpace, TensorClass, TensorKind ------------------------- */

Test(enums, addr_space_values)
{
    cr_assert_eq(BIR_AS_LOCAL, 0);
    cr_assert_eq(BIR_AS_SHARED, 1);
    cr_assert_eq(BIR_AS_DEBUG, 2);
    const char *names[] = {"Local", "Shared", "Debug"};
    for (uint32_t i = 0; i < 3; i++) {
        cr_assert_str_eq(bir_addr_space_name(i), names[i]);
        uint32_t v = 99;
        cr_assert(bir_addr_space_parse(names[i], &v));
        cr_assert_eq(v, i);
    }
    cr_assert_null(bir_addr_space_name(3));
    uint32_t v;
    cr_assert_not(bir_addr_space_parse("local", &v));
}

Test(enums, tensor_class_neuron_weight_is_3)
{
    cr_assert_eq(BIR_TC_NEURON_WEIGHT_TENSOR, 3);
    cr_assert_eq(BIR_TC_COUNT, 13);
    const char *names[13] = {
        "Tensor", "LoopTensor", "NeuronTensor", "NeuronWeightTensor", "IdentityWeightTensor",
        "NeuronBlockTensor", "DRAM2DBlockTensor", "Neuron3DBlockTensor", "DRAM3DBlockTensor",
        "NeuronLocalTensor", "NeuronSBTensor", "NeuronPSUMTensor", "SingleValueTensor"};
    for (uint32_t i = 0; i < 13; i++) {
        cr_assert_str_eq(bir_tensor_class_name(i), names[i]);
        uint32_t v = 99;
        cr_assert(bir_tensor_class_parse(names[i], &v));
        cr_assert_eq(v, i);
    }
    cr_assert_null(bir_tensor_class_name(13));
    uint32_t v;
    cr_assert_not(bir_tensor_class_parse("WeightTensor", &v));
}

Test(enums, tensor_kind_values)
{
    cr_assert_eq(BIR_TK_COUNT, 10);
    const char *names[10] = {"ExternalInput", "ExternalInputParameter", "Input", "ExternalOutput",
                             "ExternalOutputParameter", "Output", "Const", "Internal", "Pointer",
                             "InternalInterface"};
    for (uint32_t i = 0; i < 10; i++) {
        cr_assert_str_eq(bir_tensor_kind_name(i), names[i]);
        uint32_t v = 99;
        cr_assert(bir_tensor_kind_parse(names[i], &v));
        cr_assert_eq(v, i);
    }
    cr_assert_eq(BIR_TK_CONST, 6);
    cr_assert_eq(BIR_TK_INTERNAL, 7);
    cr_assert_eq(BIR_TK_POINTER, 8);
    cr_assert_eq(BIR_TK_INTERNAL_INTERFACE, 9);
    cr_assert_null(bir_tensor_kind_name(10));
}

Test(enums, tensor_kind_group_predicates)
{
    for (uint32_t k = 0; k < 12; k++) {
        cr_assert_eq(bir_tensor_kind_is_input(k), k <= 2, "input %u", k);
        cr_assert_eq(bir_tensor_kind_is_external_input(k), k <= 1, "external input %u", k);
        cr_assert_eq(bir_tensor_kind_is_output(k), k >= 3 && k <= 5, "output %u", k);
        cr_assert_eq(bir_tensor_kind_is_external_output(k), k == 3 || k == 4, "external output %u", k);
    }
    /* The predicates are unsigned: (k-3) wraps for k < 3. */
    cr_assert_not(bir_tensor_kind_is_output(UINT32_MAX));
    cr_assert_not(bir_tensor_kind_is_input(UINT32_MAX));
}

/* The set-level attributes default as the format says. */
Test(enums, set_defaults_are_internal_tensor_local)
{
    bir_module *m = new_module();
    bir_set *s = new_set(new_function(m, "f"), "s");
    cr_assert_eq(s->kind, BIR_TK_INTERNAL);
    cr_assert_eq(s->tensor_class, BIR_TC_TENSOR);
    cr_assert_eq(s->addr_space, BIR_AS_LOCAL);
    cr_assert_eq(s->partition_dim, 0);
    cr_assert_eq(s->nlocs, 0);
    bir_module_free(m);
}

Test(enums, dtype_sizes)
{
    const struct {
        const char *name;
        uint32_t size;
    } t[] = {{"float32", 4}, {"bfloat16", 2}, {"float16", 2}, {"float8_e4m3", 1},
             {"float8_e5m2", 1}, {"int8", 1}, {"uint8", 1}, {"int16", 2}, {"uint16", 2},
             {"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8}, {"float64", 8},
             {"float8e4", 1}, {"float8e5", 1}, {"bool", 1}};
    cr_assert_eq(BIR_DT_COUNT, 17);
    for (uint32_t i = 0; i < 17; i++) {
        uint32_t v = 99;
        cr_assert(bir_dtype_parse(t[i].name, &v));
        cr_assert_eq(v, i);
        cr_assert_str_eq(bir_dtype_name(i), t[i].name);
        cr_assert_eq(bir_dtype_size(i), t[i].size, "%s", t[i].name);
    }
    cr_assert_eq(bir_dtype_size(BIR_DT_COUNT), 0);
}

Test(enums, opcodes_matmult_8_loop_105)
{
    cr_assert_eq(BIR_OP_MATMULT, 8);
    cr_assert_eq(BIR_OP_LOOP, 105);
    cr_assert_str_eq(bir_opcode_name(8), "Matmult");
    cr_assert_str_eq(bir_opcode_name(105), "Loop");
    uint32_t v;
    cr_assert(bir_opcode_parse("Loop", &v));
    cr_assert_eq(v, 105);
    cr_assert_null(bir_opcode_name(BIR_OP_OTHER));
    cr_assert_not(bir_opcode_parse("Frobnicate", &v));
    cr_assert_str_eq(bir_engine_name(BIR_ENG_PE), "pe");
    cr_assert(bir_engine_parse("dma", &v));
    cr_assert_eq(v, BIR_ENG_DMA);
}

/* ---- AliasPtr ---------------------------------------------------------- */

Test(alias_ptr, alias_ptr_packs_peer_high_kind_low)
{
    bir_module *m = new_module();
    bir_location *peer = new_tensor(new_function(m, "f"), "d", BIR_MEM_DRAM);
    cr_assert_eq((uintptr_t)peer & 7, 0);
    for (uint32_t kind = 0; kind < 8; kind++) {
        bir_alias_ptr ap = 0xdead;
        sba_error err;
        cr_assert_eq(bir_alias_make(peer, kind, &ap, &err), SBA_OK);
        cr_assert_eq(ap, (((uint64_t)(uintptr_t)peer) & ~(uint64_t)7) | kind);
        cr_assert_eq(bir_alias_peer(ap), peer);
        cr_assert_eq(bir_alias_kind(ap), kind);
    }
    bir_module_free(m);
}

Test(alias_ptr, alias_ptr_rejects_misaligned_pointer)
{
    _Alignas(8) char storage[16];
    for (int off = 1; off < 8; off++) {
        bir_alias_ptr ap = 0xdead;
        sba_error err;
        cr_assert_eq(bir_alias_make((bir_location *)(void *)(storage + off), 1, &ap, &err),
                     SBA_ERR_MODEL);
        cr_assert_str_eq(err.message, "Pointer is not sufficiently aligned");
        cr_assert_eq(ap, 0, "the word is cleared first, as the seed's constructor does");
    }
}

Test(alias_ptr, alias_ptr_rejects_kind_over_3_bits)
{
    bir_module *m = new_module();
    bir_location *peer = new_tensor(new_function(m, "f"), "d", BIR_MEM_DRAM);
    const uint32_t bad[] = {8, 9, 15, 16, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bir_alias_ptr ap = 0xdead;
        sba_error err;
        cr_assert_eq(bir_alias_make(peer, bad[i], &ap, &err), SBA_ERR_MODEL);
        char expect[96];
        snprintf(expect, sizeof expect, "Integer too large for field (alias kind %u)", bad[i]);
        cr_assert_str_eq(err.message, expect);
        cr_assert_eq(ap, 0);
    }
    /* Through addAlias, a wide kind adds no half edge. */
    bir_location *other = new_tensor(m->fns[0], "e", BIR_MEM_DRAM);
    sba_error err;
    cr_assert_eq(bir_location_add_alias(peer, other, 8, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "Integer too large for field (alias kind 8)");
    cr_assert_eq(peer->nalias, 0);
    cr_assert_eq(other->nalias, 0);
    bir_module_free(m);
}

Test(alias_ptr, alias_has_is_subset_test)
{
    bir_module *m = new_module();
    bir_location *peer = new_tensor(new_function(m, "f"), "d", BIR_MEM_DRAM);
    for (uint32_t have = 0; have < 8; have++) {
        bir_alias_ptr ap;
        cr_assert_eq(bir_alias_make(peer, have, &ap, NULL), SBA_OK);
        for (uint32_t q = 0; q < 8; q++)
            cr_assert_eq(bir_alias_has(ap, q), (q & have) == q, "has(%u, %u)", have, q);
    }
    /* The seed's worked cases: 3 holds 1 and 3; 1 does not hold 3; 2 holds no 3. */
    bir_alias_ptr ap;
    bir_alias_make(peer, 3, &ap, NULL);
    cr_assert(bir_alias_has(ap, 1));
    cr_assert(bir_alias_has(ap, 3));
    bir_alias_make(peer, 1, &ap, NULL);
    cr_assert_not(bir_alias_has(ap, 3));
    bir_alias_make(peer, 2, &ap, NULL);
    cr_assert_not(bir_alias_has(ap, 3));
    cr_assert_not(bir_alias_has(ap, 1));
    bir_module_free(m);
}

Test(alias_ptr, get_alias_kind_lists_1_and_3)
{
    bir_module *m = new_module();
    bir_location *peer = new_tensor(new_function(m, "f"), "d", BIR_MEM_DRAM);
    /* kind -> expected list */
    const struct {
        uint32_t kind, n, k0, k1;
    } t[] = {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 0, 0, 0}, {3, 2, 1, 3},
             {4, 0, 0, 0}, {5, 1, 1, 0}, {6, 0, 0, 0}, {7, 2, 1, 3}};
    for (size_t i = 0; i < 8; i++) {
        bir_alias_ptr ap;
        cr_assert_eq(bir_alias_make(peer, t[i].kind, &ap, NULL), SBA_OK);
        uint32_t out[2] = {99, 99};
        cr_assert_eq(bir_alias_kinds(ap, out), t[i].n, "kind %u", t[i].kind);
        if (t[i].n > 0) cr_assert_eq(out[0], t[i].k0);
        if (t[i].n > 1) cr_assert_eq(out[1], t[i].k1);
    }
    bir_module_free(m);
}

/* ---- addAlias ---------------------------------------------------------- */

static uint32_t edge_kind(const bir_location *from, const bir_location *to, uint32_t *count)
{
    uint32_t n = 0, kind = 0;
    for (uint32_t i = 0; i < from->nalias; i++)
        if (bir_alias_peer(from->alias[i]) == to) {
            n++;
            kind = bir_alias_kind(from->alias[i]);
        }
    *count = n;
    return kind;
}

Test(alias, alias_is_symmetric)
{
    bir_module *m = new_module();
    bir_function *fn = new_function(m, "f");
    bir_location *a = new_tensor(fn, "a", BIR_MEM_DRAM);
    bir_location *b = new_tensor(fn, "b", BIR_MEM_DRAM);
    sba_error err;
    cr_assert_eq(bir_location_add_alias(a, b, 1, &err), SBA_OK);
    uint32_t n;
    cr_assert_eq(edge_kind(a, b, &n), 1);
    cr_assert_eq(n, 1);
    cr_assert_eq(edge_kind(b, a, &n), 1);
    cr_assert_eq(n, 1);
    cr_assert_eq(a->nalias, 1);
    cr_assert_eq(b->nalias, 1);
    bir_module_free(m);
}

Test(alias, alias_kind_is_ored_not_duplicated)
{
    bir_module *m = new_module();
    bir_function *fn = new_function(m, "f");
    bir_location *a = new_tensor(fn, "a", BIR_MEM_DRAM);
    bir_location *b = new_tensor(fn, "b", BIR_MEM_DRAM);
    cr_assert_eq(bir_location_add_alias(a, b, 1, NULL), SBA_OK);
    cr_assert_eq(bir_location_add_alias(a, b, 3, NULL), SBA_OK);
    uint32_t n;
    cr_assert_eq(edge_kind(a, b, &n), 3);
    cr_assert_eq(n, 1, "one edge, not two");
    cr_assert_eq(edge_kind(b, a, &n), 3);
    cr_assert_eq(n, 1);
    /* OR, not overwrite: adding 4 from the other end keeps 3. */
    cr_assert_eq(bir_location_add_alias(b, a, 4, NULL), SBA_OK);
    cr_assert_eq(edge_kind(a, b, &n), 7);
    cr_assert_eq(edge_kind(b, a, &n), 7);
    cr_assert_eq(a->nalias, 1);
    cr_assert_eq(b->nalias, 1);
    /* Adding a smaller kind never clears bits. */
    cr_assert_eq(bir_location_add_alias(a, b, 1, NULL), SBA_OK);
    cr_assert_eq(edge_kind(a, b, &n), 7);
    bir_module_free(m);
}

Test(alias, get_must_alias_returns_first_kind_3_peer)
{
    bir_module *m = new_module();
    bir_function *fn = new_function(m, "f");
    bir_location *a = new_tensor(fn, "a", BIR_MEM_DRAM);
    bir_location *b = new_tensor(fn, "b", BIR_MEM_DRAM);
    bir_location *c = new_tensor(fn, "c", BIR_MEM_DRAM);
    bir_location *d = new_tensor(fn, "d", BIR_MEM_DRAM);
    cr_assert_null(bir_location_must_alias(a), "no edges: no must-alias");
    cr_assert_eq(bir_location_add_alias(a, b, 1, NULL), SBA_OK);
    cr_assert_eq(bir_location_add_alias(a, c, 2, NULL), SBA_OK);
    cr_assert_null(bir_location_must_alias(a), "kinds 1 and 2 are not MustAlias");
    cr_assert_eq(bir_location_add_alias(a, d, 3, NULL), SBA_OK);
    cr_assert_eq(bir_location_must_alias(a), d);
    /* c's edge becomes 2|1 = 3; c sorts before d, so it is now the first. */
    cr_assert_eq(bir_location_add_alias(a, c, 1, NULL), SBA_OK);
    cr_assert_eq(bir_location_must_alias(a), c);
    cr_assert_eq(bir_location_must_alias(d), a);
    cr_assert_null(bir_location_must_alias(b));
    bir_module_free(m);
}

Test(alias, alias_vector_is_sorted)
{
    bir_module *m = new_module();
    bir_function *fn = new_function(m, "f");
    enum { N = 40 };
    bir_location *hub = new_tensor(fn, "hub", BIR_MEM_DRAM);
    bir_location *peers[N];
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        peers[i] = new_tensor(fn, name, BIR_MEM_DRAM);
    }
    /* Insert in a scrambled order, some twice. */
    for (int i = 0; i < N; i++) {
        int j = (i * 17 + 5) % N;
        cr_assert_eq(bir_location_add_alias(hub, peers[j], 1, NULL), SBA_OK);
        if (i % 3 == 0) cr_assert_eq(bir_location_add_alias(peers[j], hub, 1, NULL), SBA_OK);
    }
    cr_assert_eq(hub->nalias, N);
    for (uint32_t i = 0; i < hub->nalias; i++) {
        cr_assert_eq(bir_alias_peer(hub->alias[i]), peers[i], "entry %u in creation order", i);
        if (i) cr_assert_lt(bir_alias_peer(hub->alias[i - 1])->unique_id,
                            bir_alias_peer(hub->alias[i])->unique_id);
    }
    for (int i = 0; i < N; i++) {
        cr_assert_eq(peers[i]->nalias, 1);
        cr_assert_eq(bir_alias_peer(peers[i]->alias[0]), hub);
    }
    bir_module_free(m);
}

Test(alias, alias_refused_for_non_dram)
{
    bir_module *m = new_module();
    bir_function *fn = new_function(m, "f");
    bir_location *dram = new_tensor(fn, "dram_a", BIR_MEM_DRAM);
    bir_location *sb = new_tensor(fn, "sb_t", BIR_MEM_SB);
    bir_location *psum = new_tensor(fn, "ps_acc", BIR_MEM_PSUM);
    bir_location *in = new_tensor(fn, "io_in", BIR_MEM_INPUT);
    const struct {
        bir_location *src, *dst;
        const char *msg;
    } t[] = {
        {dram, sb, "dram_a -> sb_t. Aliasing only permitted for DRAM locations."},
        {sb, dram, "sb_t -> dram_a. Aliasing only permitted for DRAM locations."},
        {dram, psum, "dram_a -> ps_acc. Aliasing only permitted for DRAM locations."},
        {sb, sb, "sb_t -> sb_t. Aliasing only permitted for DRAM locations."},
        {psum, sb, "ps_acc -> sb_t. Aliasing only permitted for DRAM locations."},
        {in, dram, "io_in -> dram_a. Aliasing only permitted for DRAM locations."},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        sba_error err;
        cr_assert_eq(bir_location_add_alias(t[i].src, t[i].dst, 3, &err), SBA_ERR_MODEL);
        cr_assert_str_eq(err.message, t[i].msg);
    }
    cr_assert_eq(dram->nalias + sb->nalias + psum->nalias + in->nalias, 0, "no half edges");
    bir_module_free(m);
}

/* ---- identity and placement fields -------------------------------------- */

Test(location, set_allocated_mirrors_to_set)
{
    bir_module *m = new_module();
    bir_set *s = new_set(new_function(m, "f"), "s");
    bir_location *a = new_loc(s, "a", BIR_MEM_SB);
    bir_location *b = new_loc(s, "b", BIR_MEM_DRAM);
    cr_assert_not(s->allocated);
    cr_assert_not(a->allocated);
    bir_location_set_allocated(a, true);
    cr_assert(a->allocated);
    cr_assert(s->allocated);
    cr_assert_not(b->allocated);
    bir_location_set_allocated(b, false);
    cr_assert_not(s->allocated, "the last call is mirrored");
    cr_assert(a->allocated);
    bir_module_free(m);
}

Test(location, unique_id_from_module_counter)
{
    bir_module *m = new_module();
    bir_function *f1 = new_function(m, "f1");
    bir_set *s1 = new_set(f1, "s");
    bir_location *l1 = new_loc(s1, "a", BIR_MEM_SB);
    bir_location *l2 = new_loc(s1, "b", BIR_MEM_DRAM);
    bir_function *f2 = new_function(m, "f2");
    bir_set *s2 = new_set(f2, "s"); /* same name, other function */
    bir_location *l3 = new_loc(s2, "a", BIR_MEM_SB);
    bir_set *s3 = new_set(f1, "t"); /* back to the first function */
    bir_location *l4 = new_loc(s3, "a", BIR_MEM_SB);
    const uint64_t ids[] = {s1->unique_id, l1->unique_id, l2->unique_id, s2->unique_id,
                            l3->unique_id, s3->unique_id, l4->unique_id};
    for (size_t i = 1; i < sizeof ids / sizeof ids[0]; i++)
        cr_assert_lt(ids[i - 1], ids[i], "one counter across sets, locations and functions");
    cr_assert_gt(ids[0], 0);
    cr_assert_eq(m->next_unique_id, ids[6]);
    cr_assert_eq(bir_location_unique_id(l3), l3->unique_id);
    /* Another module counts on its own. */
    bir_module *m2 = new_module();
    bir_set *o = new_set(new_function(m2, "f"), "s");
    cr_assert_eq(o->unique_id, ids[0]);
    bir_module_free(m2);
    bir_module_free(m);
}

Test(location, tensor_id_must_be_assigned)
{
    bir_module *m = new_module();
    bir_set *s = new_set(new_function(m, "f"), "s");
    bir_location *a = new_loc(s, "a", BIR_MEM_SB);
    new_loc(s, "b", BIR_MEM_SB);
    sba_error err;
    cr_assert_eq(bir_set_build_tensor_id_map(s, &err), SBA_OK);
    a->tensor_id = -1;
    cr_assert_eq(bir_set_build_tensor_id_map(s, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "Unassigned tensorId: memory location \"a\" of set \"s\" has "
                                  "tensor_id -1");
    a->tensor_id = INT64_MIN;
    cr_assert_eq(bir_set_build_tensor_id_map(s, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "Unassigned tensorId: memory location \"a\" of set \"s\" has "
                                  "tensor_id -9223372036854775808");
    /* Ids must be distinct as well. */
    a->tensor_id = 1;
    cr_assert_eq(bir_set_build_tensor_id_map(s, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "memory locations \"a\" and \"b\" of set \"s\" share tensor_id 1");
    bir_module_free(m);
}

Test(location, location_by_tensor_id)
{
    bir_module *m = new_module();
    bir_set *s = new_set(new_function(m, "f"), "s");
    bir_location *a = new_loc(s, "a", BIR_MEM_DRAM);
    bir_location *b = new_loc(s, "b", BIR_MEM_SB);
    bir_location *c = new_loc(s, "c", BIR_MEM_PSUM);
    cr_assert_eq(a->tensor_id, 0, "the default is the position in the set");
    cr_assert_eq(b->tensor_id, 1);
    cr_assert_eq(c->tensor_id, 2);
    /* Before the map is built the lookup scans. */
    cr_assert_eq(bir_set_location_by_tensor_id(s, 1), b);
    a->tensor_id = 5;
    c->tensor_id = 0;
    cr_assert_eq(bir_set_build_tensor_id_map(s, NULL), SBA_OK);
    cr_assert_eq(bir_set_location_by_tensor_id(s, 5), a);
    cr_assert_eq(bir_set_location_by_tensor_id(s, 1), b);
    cr_assert_eq(bir_set_location_by_tensor_id(s, 0), c);
    cr_assert_null(bir_set_location_by_tensor_id(s, 2), "a hole");
    cr_assert_null(bir_set_location_by_tensor_id(s, 6));
    cr_assert_null(bir_set_location_by_tensor_id(s, -1));
    cr_assert_null(bir_set_location_by_tensor_id(s, INT64_MAX));
    bir_module_free(m);
}

Test(location, pack_id_hint_defaults_to_minus_1)
{
    bir_module *m = new_module();
    bir_set *s = new_set(new_function(m, "f"), "s");
    const uint32_t types[] = {BIR_MEM_DRAM, BIR_MEM_SB, BIR_MEM_PSUM, BIR_MEM_REG};
    for (size_t i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "l%zu", i);
        bir_location *l = new_loc(s, name, types[i]);
        cr_assert_eq(l->pack_id_hint, -1);
        /* Other fields start unplaced and unknown. */
        cr_assert_eq(l->addr, BIR_NO_ADDR);
        cr_assert_eq(l->base, BIR_NO_BASE);
        cr_assert_eq(l->var_id, BIR_NO_ID);
        cr_assert_eq(l->table_entry_id, BIR_NO_ID);
        cr_assert_eq(l->memloc_set_id, BIR_NO_ID);
        cr_assert_not(l->has_bank);
        cr_assert_eq(l->set, s);
    }
    bir_module_free(m);
}

Test(location, pack_id_hint_psum_only)
{
    bir_module *m = new_module();
    bir_function *fn = new_function(m, "f");
    bir_location *ps = new_tensor(fn, "acc", BIR_MEM_PSUM);
    bir_location *sb = new_tensor(fn, "tile", BIR_MEM_SB);
    bir_location *dr = new_tensor(fn, "buf", BIR_MEM_DRAM);
    sba_error err;
    cr_assert_eq(bir_location_set_pack_id_hint(ps, 7, &err), SBA_OK);
    cr_assert_eq(ps->pack_id_hint, 7);
    cr_assert_eq(bir_location_set_pack_id_hint(sb, 0, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "tile: PackIdHint only applies to PSUM.");
    cr_assert_eq(sb->pack_id_hint, -1, "a refused hint is not stored");
    cr_assert_eq(bir_location_set_pack_id_hint(dr, 3, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "buf: PackIdHint only applies to PSUM.");
    /* Resetting to the default is allowed anywhere. */
    cr_assert_eq(bir_location_set_pack_id_hint(sb, -1, &err), SBA_OK);
    cr_assert_eq(bir_location_set_pack_id_hint(ps, -1, &err), SBA_OK);
    cr_assert_eq(ps->pack_id_hint, -1);
    bir_module_free(m);
}

Test(location, psum_bank_is_signed_64)
{
    /* Through the JSON path: the bank is kept signed, including its extremes. */
    bir_module *m = load_text(
        "{\"functions\": [{\"name\": \"f\", \"allocations\": ["
        "{\"name\": \"a\", \"dtype\": \"float32\", \"tensor_shape\": [128, 4], \"memorylocations\": ["
        "{\"name\": \"p0\", \"type\": \"PSUM\", \"bank\": -9223372036854775808},"
        "{\"name\": \"p1\", \"type\": \"PSUM\", \"bank\": -3},"
        "{\"name\": \"p2\", \"type\": \"PSUM\", \"bank\": 9223372036854775807},"
        "{\"name\": \"p3\", \"type\": \"PSUM\"}]}]}]}");
    bir_set *s = m->fns[0]->sets[0];
    cr_assert_eq(s->locs[0]->bank, INT64_MIN);
    cr_assert(s->locs[0]->has_bank);
    cr_assert_eq(s->locs[1]->bank, -3);
    cr_assert_eq(s->locs[2]->bank, INT64_MAX);
    cr_assert_not(s->locs[3]->has_bank);
    _Static_assert(sizeof s->locs[0]->bank == 8, "bank is 64-bit");
    _Static_assert((__typeof__(s->locs[0]->bank))-1 < 0, "bank is signed");
    bir_module_free(m);
}

/* ---- geometry ---------------------------------------------------------- */

static bir_set *shaped(bir_module *m, const char *name, uint32_t dtype, int32_t pd, uint32_t rank,
                       int64_t *dims)
{
    bir_set *s = new_set(m->fns[0], name);
    s->dtype = dtype;
    s->partition_dim = pd;
    s->rank = rank;
    s->shape = dims;
    return s;
}

Test(geometry, set_geometry)
{
    bir_module *m = new_module();
    new_function(m, "f");
    static int64_t pf[] = {128, 512};          /* (P, F) */
    static int64_t bpf[] = {4, 128, 64};       /* (B, P, F) */
    static int64_t bbpff[] = {2, 3, 64, 5, 7}; /* (B, B, P, F, F) */
    static int64_t p[] = {96};                 /* (P) */
    static int64_t fp[] = {10, 32};            /* (B, P) with partition_dim 1 */
    bir_set *a = shaped(m, "a", BIR_DT_BFLOAT16, 0, 2, pf);
    cr_assert_eq(bir_set_partitions(a), 128);
    cr_assert_eq(bir_set_nblocks(a), 1);
    cr_assert_eq(bir_set_bytes_per_block(a), 1024);
    cr_assert_eq(bir_set_elements(a), 65536);
    bir_set *b = shaped(m, "b", BIR_DT_FLOAT32, 1, 3, bpf);
    cr_assert_eq(bir_set_partitions(b), 128);
    cr_assert_eq(bir_set_nblocks(b), 4);
    cr_assert_eq(bir_set_bytes_per_block(b), 256);
    cr_assert_eq(bir_set_elements(b), 4 * 128 * 64);
    bir_set *c = shaped(m, "c", BIR_DT_INT8, 2, 5, bbpff);
    cr_assert_eq(bir_set_partitions(c), 64);
    cr_assert_eq(bir_set_nblocks(c), 6);
    cr_assert_eq(bir_set_bytes_per_block(c), 35);
    bir_set *d = shaped(m, "d", BIR_DT_FLOAT64, 0, 1, p);
    cr_assert_eq(bir_set_partitions(d), 96);
    cr_assert_eq(bir_set_nblocks(d), 1);
    cr_assert_eq(bir_set_bytes_per_block(d), 8, "no F dims: one element per partition");
    bir_set *e = shaped(m, "e", BIR_DT_FLOAT16, 1, 2, fp);
    cr_assert_eq(bir_set_partitions(e), 32);
    cr_assert_eq(bir_set_nblocks(e), 10);
    cr_assert_eq(bir_set_bytes_per_block(e), 2);
    bir_module_free(m);
}

Test(geometry, set_geometry_from_json)
{
    bir_module *m = load_text(
        "{\"functions\": [{\"name\": \"f\", \"allocations\": ["
        "{\"name\": \"w\", \"dtype\": \"bfloat16\", \"tensor_shape\": [8, 128, 256], "
        "\"partition_dim\": 1, \"memorylocations\": [{\"name\": \"w\", \"type\": \"SB\"}]}]}]}");
    bir_set *w = m->fns[0]->sets[0];
    cr_assert_eq(bir_set_partitions(w), 128);
    cr_assert_eq(bir_set_nblocks(w), 8);
    cr_assert_eq(bir_set_bytes_per_block(w), 512);
    bir_module_free(m);
}

/* ---- the name -> placement table and names ------------------------------ */

Test(names, name_to_placement_table)
{
    bir_module *m = new_module();
    bir_function *fn = new_function(m, "f");
    bir_set *s = new_set(fn, "x");
    bir_location *a = new_loc(s, "x_dram", BIR_MEM_DRAM);
    bir_location *b = new_loc(s, "x_sb", BIR_MEM_SB);
    cr_assert_eq(bir_set_find_location(s, "x_dram"), a);
    cr_assert_eq(bir_set_find_location(s, "x_sb"), b);
    cr_assert_null(bir_set_find_location(s, "x_psum"));
    cr_assert_eq(s->nlocs, 2);
    cr_assert_eq(s->locs[0], a, "placements in insertion order");
    cr_assert_eq(s->locs[1], b);
    /* A location name is unique in its set, not across sets. */
    sba_error err;
    cr_assert_null(bir_location_add(s, "x_sb", BIR_MEM_PSUM, &err));
    cr_assert_str_eq(err.message, "duplicate memory location name \"x_sb\" in set \"x\"");
    cr_assert_eq(s->nlocs, 2);
    bir_set *t = new_set(fn, "y");
    bir_location *c = new_loc(t, "x_sb", BIR_MEM_SB);
    cr_assert_eq(bir_set_find_location(t, "x_sb"), c);
    cr_assert_eq(bir_set_find_location(s, "x_sb"), b);
    /* The function's set table. */
    cr_assert_eq(bir_function_find_set(fn, "x"), s);
    cr_assert_eq(bir_function_find_set(fn, "y"), t);
    cr_assert_null(bir_function_find_set(fn, "z"));
    cr_assert_null(bir_set_add(fn, "x", &err));
    cr_assert_str_eq(err.message, "duplicate set name \"x\" in function \"f\"");
    cr_assert_eq(fn->nsets, 2);
    cr_assert_null(bir_function_add(m, "f", &err));
    cr_assert_str_eq(err.message, "duplicate function name \"f\"");
    cr_assert_eq(m->nfns, 1);
    /* Names are copied. */
    char buf[8] = "tmp";
    bir_location *d = new_loc(t, buf, BIR_MEM_SB);
    buf[0] = 'X';
    cr_assert_str_eq(d->name, "tmp");
    cr_assert_eq(bir_set_find_location(t, "tmp"), d);
    bir_module_free(m);
}

/* ---- def-use ----------------------------------------------------------- */

static const char *const DEF_USE_JSON =
    "{\"functions\": [{\"name\": \"f\", \"allocations\": ["
    " {\"name\": \"x\", \"kind\": \"ExternalInput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 4],"
    "  \"memorylocations\": [{\"name\": \"x\", \"type\": \"DRAM\"}]},"
    " {\"name\": \"t\", \"dtype\": \"float32\", \"tensor_shape\": [128, 4],"
    "  \"memorylocations\": [{\"name\": \"t0\", \"type\": \"SB\"}, {\"name\": \"t1\", \"type\": \"SB\"}]},"
    " {\"name\": \"y\", \"kind\": \"ExternalOutput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 4],"
    "  \"memorylocations\": [{\"name\": \"y\", \"type\": \"DRAM\"}]}],"
    " \"blocks\": [{\"name\": \"entry\", \"instructions\": ["
    "  {\"name\": \"load\", \"opcode\": \"DMALoad\","
    "   \"ins\": [{\"memsetref\": \"x\", \"ap\": [[4, 128], [1, 4]]}],"
    "   \"outs\": [{\"memsetref\": \"t\", \"ap\": [[4, 128], [1, 4]]}]},"
    "  {\"name\": \"add\", \"opcode\": \"TensorTensor\","
    "   \"ins\": [{\"kind\": \"imm_value\", \"value\": 1},"
    "             {\"memsetref\": \"t\", \"ap\": [[4, 128], [1, 4]]},"
    "             {\"memsetref\": \"t\", \"memref\": \"t1\", \"ap\": [[4, 128], [1, 4]]}],"
    "   \"outs\": [{\"memsetref\": \"t\", \"memref\": \"t1\", \"ap\": [[4, 128], [1, 4]]}]},"
    "  {\"name\": \"store\", \"opcode\": \"DMAStore\","
    "   \"ins\": [{\"memsetref\": \"t\", \"memref\": \"t1\", \"ap\": [[4, 128], [1, 4]]}],"
    "   \"outs\": [{\"memsetref\": \"y\", \"ap\": [[4, 128], [1, 4]]}]}]}]}]}";

static void expect_access(const bir_access *a, const bir_inst *in, uint32_t operand)
{
    cr_assert_eq(a->inst, in, "expected %s, got %s", in->name, a->inst ? a->inst->name : "NULL");
    cr_assert_eq(a->operand, operand);
}

Test(def_use, def_use_lists)
{
    bir_module *m = load_text(DEF_USE_JSON);
    bir_function *fn = m->fns[0];
    bir_inst *load = bir_function_find_inst(fn, "load");
    bir_inst *add = bir_function_find_inst(fn, "add");
    bir_inst *store = bir_function_find_inst(fn, "store");
    cr_assert_not_null(load);
    cr_assert_not_null(add);
    cr_assert_not_null(store);
    bir_set *x = bir_function_find_set(fn, "x"), *t = bir_function_find_set(fn, "t"),
            *y = bir_function_find_set(fn, "y");
    bir_location *t0 = bir_set_find_location(t, "t0"), *t1 = bir_set_find_location(t, "t1");
    /* x: read once by load, never written. */
    cr_assert_eq(x->storage.nreaders, 1);
    cr_assert_eq(x->storage.nwriters, 0);
    expect_access(&x->storage.readers[0], load, 0);
    /* t: written by load and add (outs), read by add twice and store (ins). */
    cr_assert_eq(t->storage.nwriters, 2);
    expect_access(&t->storage.writers[0], load, 0);
    expect_access(&t->storage.writers[1], add, 0);
    cr_assert_eq(t->storage.nreaders, 3);
    expect_access(&t->storage.readers[0], add, 1); /* the immediate at 0 is not memory */
    expect_access(&t->storage.readers[1], add, 2);
    expect_access(&t->storage.readers[2], store, 0);
    /* Per placement: no memref means the set's first location. */
    cr_assert_eq(t0->storage.nwriters, 1);
    expect_access(&t0->storage.writers[0], load, 0);
    cr_assert_eq(t0->storage.nreaders, 1);
    expect_access(&t0->storage.readers[0], add, 1);
    cr_assert_eq(t1->storage.nwriters, 1);
    expect_access(&t1->storage.writers[0], add, 0);
    cr_assert_eq(t1->storage.nreaders, 2);
    expect_access(&t1->storage.readers[0], add, 2);
    expect_access(&t1->storage.readers[1], store, 0);
    /* y: written by store only. */
    cr_assert_eq(y->storage.nwriters, 1);
    cr_assert_eq(y->storage.nreaders, 0);
    expect_access(&y->storage.writers[0], store, 0);
    /* Rebuilding clears first: no duplicates. */
    cr_assert_eq(bir_function_build_def_use(fn, NULL), SBA_OK);
    cr_assert_eq(t->storage.nwriters, 2);
    cr_assert_eq(t->storage.nreaders, 3);
    cr_assert_eq(t1->storage.nreaders, 2);
    bir_module_free(m);
}

Test(def_use, instructions_are_in_program_order)
{
    bir_module *m = load_text(DEF_USE_JSON);
    bir_function *fn = m->fns[0];
    cr_assert_eq(fn->ninsts, 3);
    const char *names[] = {"load", "add", "store"};
    for (uint32_t i = 0; i < 3; i++) {
        cr_assert_str_eq(fn->insts[i]->name, names[i]);
        cr_assert_eq(fn->insts[i]->index, i);
        cr_assert_eq(fn->insts[i]->parent, fn->blocks[0]);
    }
    cr_assert_eq(fn->insts[0]->opcode, BIR_OP_DMA_LOAD);
    cr_assert_eq(fn->insts[1]->nins, 3);
    cr_assert_eq(fn->insts[1]->ins[0].kind, BIR_OPND_OTHER);
    cr_assert_null(fn->insts[1]->ins[0].set);
    bir_module_free(m);
}

/* ---- module lifetime and memory hook ------------------------------------ */

typedef struct failing {
    long left; /* allocations allowed; -1 never fails */
} failing;

static void *f_alloc(void *ud, size_t n)
{
    failing *f = ud;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    return malloc(n);
}
static void *f_realloc(void *ud, void *p, size_t n)
{
    failing *f = ud;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    return realloc(p, n);
}
static void f_free(void *ud, void *p)
{
    (void)ud;
    free(p);
}

Test(module, out_of_memory_is_a_status)
{
    failing f = {0};
    sba_allocator a = {f_alloc, f_realloc, f_free, &f};
    cr_assert_null(bir_module_new(&a), "no memory: no module");
    f.left = 1;
    cr_assert_null(bir_module_new(&a), "the arena struct but no chunk");
    /* With the module made, a large enough build runs out and says so. */
    f.left = 3;
    bir_module *m = bir_module_new(&a);
    cr_assert_not_null(m);
    bir_function *fn = bir_function_add(m, "f", NULL);
    cr_assert_not_null(fn);
    sba_error err = {0};
    bool failed = false;
    for (int i = 0; i < 100000 && !failed; i++) {
        char name[32];
        snprintf(name, sizeof name, "set%d", i);
        if (!bir_set_add(fn, name, &err)) failed = true;
    }
    cr_assert(failed);
    cr_assert_eq(err.code, SBA_ERR_NOMEM);
    cr_assert_str_eq(err.message, "out of memory");
    cr_assert(bir_module_failed(m));
    bir_module_free(m);
}

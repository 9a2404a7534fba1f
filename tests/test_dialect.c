/* The compiler's own spelling of BIR (tests/data/compiler/): every kernel
 * there loads, is recognised as the compiler's spelling, saves back equal to
 * its input as JSON, and after allocation equal to it but for the placement
 * keys allocation fills, verified. The spellings map to the engines and
 * dtypes they stand for; an operand may name its location, its set or both;
 * the kernel source lines reach the messages. GpSimd library instructions
 * (Gather, Max8) never get an output over one of their inputs: not from the
 * allocator, even when only that would fit, and the verifier refuses one.
 * A tensor the compiler loads with DMACopy is rematerialized when spilled. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sballoc/alloc.h"
#include "sballoc/bir.h"
#include "sballoc/program.h"
#include "sballoc/verify.h"

/* ---- helpers ------------------------------------------------------------- */

static const char *const kernels[] = {"sample", "gather", "matmul_psum", "loop_tiles", "placed_matmul"};
enum { NKERNELS = sizeof kernels / sizeof kernels[0] };

static void kernel_path(const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/tests/data/compiler/%s.json", SBALLOC_SOURCE_DIR, name);
}

static bir_module *load_kernel(const char *name)
{
    char path[512];
    kernel_path(name, path, sizeof path);
    sba_error err;
    bir_module *m = bir_load_file(path, NULL, &err);
    cr_assert_not_null(m, "%s: %s: %s", name, err.path, err.message);
    cr_assert_eq(bir_validate_module(m, &err), SBA_OK, "%s does not validate: %s", name, err.message);
    return m;
}

static json_t *read_json(const char *name)
{
    char path[512];
    kernel_path(name, path, sizeof path);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j, "%s: %s", path, je.text);
    return j;
}

static json_t *saved_json(const bir_module *m)
{
    char *text;
    size_t len;
    sba_error err;
    cr_assert_eq(bir_save_buffer(m, &text, &len, &err), SBA_OK, "%s", err.message);
    json_error_t je;
    json_t *j = json_loadb(text, len, 0, &je);
    bir_free_text(m, text);
    cr_assert_not_null(j, "saved text is not JSON: %s", je.text);
    return j;
}

/* Drops, from every memory location, the keys allocation fills. */
static void strip_placements(json_t *root)
{
    static const char *const keys[] = {"addr", "base", "bank", "dims", "live_n", "allocated"};
    size_t i, k, l;
    json_t *fn, *set, *loc;
    json_array_foreach(json_object_get(root, "functions"), i, fn)
        json_array_foreach(json_object_get(fn, "allocations"), k, set)
            json_array_foreach(json_object_get(set, "memorylocations"), l, loc)
                for (size_t n = 0; n < sizeof keys / sizeof keys[0]; n++) json_object_del(loc, keys[n]);
}

static void assert_json_equal(json_t *want, json_t *got, const char *what)
{
    if (json_equal(want, got)) return;
    char *a = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS), *b = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
    size_t d = 0;
    while (a[d] && a[d] == b[d]) d++;
    size_t from = d > 80 ? d - 80 : 0;
    cr_assert_fail("%s: the saved module differs from the input at\n  input: %.160s\n  saved: %.160s", what, a + from,
            b + from);
    free(a);
    free(b);
}

static bir_inst *inst_at(bir_module *m, uint32_t i) { return m->fns[0]->insts[i]; }

static bir_location *loc_named(const bir_module *m, const char *name)
{
    const bir_function *fn = m->fns[0];
    for (uint32_t i = 0; i < fn->nsets; i++) {
        bir_location *l = bir_set_find_location(fn->sets[i], name);
        if (l) return l;
    }
    cr_assert_fail("no location \"%s\"", name);
    return NULL;
}

static bool sb_overlap(const bir_location *a, const bir_location *b)
{
    int64_t pa = bir_set_partitions(a->set), pb = bir_set_partitions(b->set);
    int64_t na = a->live_n ? a->live_n : bir_set_nblocks(a->set), nb = b->live_n ? b->live_n : bir_set_nblocks(b->set);
    int64_t ea = a->addr + na * bir_set_bytes_per_block(a->set), eb = b->addr + nb * bir_set_bytes_per_block(b->set);
    return a->base < b->base + pb && b->base < a->base + pa && a->addr < eb && b->addr < ea;
}

static void verify_ok(const bir_module *m, const char *what)
{
    sba_error err;
    sba_verify_report rep;
    cr_assert_eq(sba_verify_module(m, &rep, &err), SBA_OK, "%s: %s: %s", what, err.path, err.message);
    cr_assert(rep.exhaustive);
}

static sba_status allocate(bir_module *m, int64_t sbuf_bytes, sba_error *err)
{
    sba_target t = m->target;
    if (sbuf_bytes) t.sbuf_bytes = sbuf_bytes;
    sba_alloc_options o = {.target = &t};
    sba_alloc_report r = {0};
    sba_status s = sba_allocate_module(m, &o, &r, err);
    sba_alloc_report_free(&r);
    return s;
}

/* ---- the spelling --------------------------------------------------------- */

Test(dialect, every_kernel_is_read_in_the_compilers_spelling)
{
    for (size_t i = 0; i < NKERNELS; i++) {
        bir_module *m = load_kernel(kernels[i]);
        cr_assert_eq(m->spelling, BIR_SPELLING_COMPILER, "%s", kernels[i]);
        bir_module_free(m);
    }
}

Test(dialect, engines_and_dtypes_stand_for_the_public_ones)
{
    const struct {
        const char *cc;
        uint32_t unit;
    } eng[] = {{"Activation", BIR_ENG_ACT}, {"PE", BIR_ENG_PE}, {"DVE", BIR_ENG_DVE}, {"Pool", BIR_ENG_POOL},
               {"SP", BIR_ENG_SP}, {"Unassigned", BIR_ENG_UNASSIGNED}, {"ALL", BIR_ENG_ALL},
               {"act", BIR_ENG_ACT}, {"dma", BIR_ENG_DMA}, {"pool", BIR_ENG_POOL}};
    for (size_t i = 0; i < sizeof eng / sizeof eng[0]; i++) {
        uint32_t e = BIR_ENG_COUNT;
        cr_assert(bir_engine_parse(eng[i].cc, &e), "%s", eng[i].cc);
        cr_assert_eq(bir_engine_unit(e), eng[i].unit, "%s", eng[i].cc);
        cr_assert_str_eq(bir_engine_name(e), eng[i].cc, "a spelling is written back as read");
    }
    cr_assert_eq(bir_engine_unit(BIR_ENG_COUNT), BIR_ENG_COUNT);
    uint32_t a, b;
    cr_assert(bir_dtype_parse("float8e4", &a) && bir_dtype_parse("float8_e4m3", &b));
    cr_assert_neq(a, b);
    cr_assert_eq(bir_dtype_size(a), bir_dtype_size(b));
    cr_assert(bir_dtype_parse("float8e5", &a) && bir_dtype_size(a) == 1);
    cr_assert(bir_dtype_parse("bool", &a) && bir_dtype_size(a) == 1);
    const char *lib[] = {"Gather", "NonzeroWithCount", "Nonzero", "LocalGather", "Max8", "TopK",
                         "MatchReplace8", "RangeSelect", "MaxIndex8"};
    for (size_t i = 0; i < sizeof lib / sizeof lib[0]; i++) {
        uint32_t op = BIR_OP_OTHER;
        cr_assert(bir_opcode_parse(lib[i], &op), "%s", lib[i]);
        cr_assert(bir_opcode_rereads_inputs(op), "%s", lib[i]);
        cr_assert_str_eq(bir_opcode_name(op), lib[i]);
    }
    const uint32_t plain[] = {BIR_OP_TENSOR_COPY, BIR_OP_TENSOR_TENSOR, BIR_OP_ACTIVATION, BIR_OP_MATMULT,
                              BIR_OP_DMA_COPY, BIR_OP_OTHER, BIR_OP_LOOP};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) cr_assert_not(bir_opcode_rereads_inputs(plain[i]));
}

Test(dialect, the_sample_reads_as_written)
{
    bir_module *m = load_kernel("sample");
    bir_function *fn = m->fns[0];
    cr_assert_eq(fn->ninsts, 5);
    cr_assert_eq(inst_at(m, 1)->engine, BIR_ENG_CC_DVE);
    cr_assert_eq(inst_at(m, 3)->engine, BIR_ENG_ALL);
    cr_assert_str_eq(inst_at(m, 3)->opcode_name, "AllEngineBarrier");
    /* I-2 reads t by memref alone, I-5 u by memsetref alone, I-3 names both. */
    const bir_operand *t = &inst_at(m, 1)->ins[0], *u = &inst_at(m, 4)->ins[0], *mm = &inst_at(m, 2)->ins[0];
    cr_assert_str_eq(t->set->name, "t_set");
    cr_assert_str_eq(t->loc->name, "t");
    cr_assert_str_eq(u->loc->name, "u");
    cr_assert_str_eq(mm->set->name, "m_set");
    cr_assert_eq(t->omitted & (BIR_OMIT_MEMSETREF | BIR_OMIT_MEMREF), BIR_OMIT_MEMSETREF);
    cr_assert_eq(u->omitted & (BIR_OMIT_MEMSETREF | BIR_OMIT_MEMREF), BIR_OMIT_MEMREF);
    cr_assert_eq(mm->omitted & (BIR_OMIT_MEMSETREF | BIR_OMIT_MEMREF), 0);
    cr_assert_eq(mm->set->dtype, BIR_DT_FLOAT8E4);
    cr_assert_eq(inst_at(m, 2)->src_line, 14);
    cr_assert_str_eq(inst_at(m, 2)->src_op, "nl.exp");
    cr_assert_str_eq(mm->set->src_name, "m");
    char src[64];
    cr_assert_str_eq(bir_inst_source(inst_at(m, 2), src, sizeof src), " (line 14, nl.exp)");
    /* The def-use lists see accesses by memref alone. */
    cr_assert_eq(t->set->storage.nreaders, 1);
    cr_assert_eq(t->set->storage.nwriters, 1);
    bir_module_free(m);
}

Test(dialect, repeated_instruction_names_load)
{
    bir_module *m = load_kernel("gather");
    cr_assert_str_eq(inst_at(m, 4)->name, "I-5");
    cr_assert_str_eq(inst_at(m, 5)->name, "I-5");
    cr_assert_eq(bir_function_find_inst(m->fns[0], "I-5"), inst_at(m, 4), "the first of a name");
    bir_module_free(m);
}

/* ---- save writes back what it read ---------------------------------------- */

Test(dialect, fmt_writes_every_kernel_back_unchanged)
{
    for (size_t i = 0; i < NKERNELS; i++) {
        bir_module *m = load_kernel(kernels[i]);
        json_t *in = read_json(kernels[i]), *out = saved_json(m);
        assert_json_equal(in, out, kernels[i]);
        json_decref(in);
        json_decref(out);
        bir_module_free(m);
    }
}

Test(dialect, alloc_adds_only_placements_and_verifies)
{
    for (size_t i = 0; i < NKERNELS; i++) {
        bir_module *m = load_kernel(kernels[i]);
        sba_error err;
        cr_assert_eq(allocate(m, 0, &err), SBA_OK, "%s: %s", kernels[i], err.message);
        verify_ok(m, kernels[i]);
        json_t *in = read_json(kernels[i]), *out = saved_json(m);
        strip_placements(in);
        strip_placements(out);
        assert_json_equal(in, out, kernels[i]);
        json_decref(in);
        json_decref(out);
        bir_module_free(m);
    }
}

Test(dialect, sballoc_spelling_still_gets_every_key)
{
    /* A module without any of the compiler's spellings is written in the
     * canonical layout: defaults appear. */
    const char *text = "{\"functions\": [{\"name\": \"f\", \"allocations\": [{\"name\": \"t\", \"dtype\": "
                       "\"float32\", \"tensor_shape\": [128, 4], \"memorylocations\": [{\"name\": \"t\", "
                       "\"type\": \"SB\"}]}]}]}";
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "t", NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    cr_assert_eq(m->spelling, BIR_SPELLING_SBALLOC);
    json_t *out = saved_json(m);
    cr_assert_not_null(json_object_get(out, "version"));
    json_t *set = json_array_get(json_object_get(json_array_get(json_object_get(out, "functions"), 0), "allocations"), 0);
    cr_assert_not_null(json_object_get(set, "tensor_class"));
    json_decref(out);
    bir_module_free(m);
}

Test(dialect, an_operand_redirected_by_the_allocator_names_its_set)
{
    /* Only memref given: the reader resolves it by name across the sets.
     * When allocation points it at a placement of its own, save adds the set
     * so that the name cannot resolve elsewhere. */
    bir_module *m = load_kernel("sample");
    bir_operand *t = &inst_at(m, 1)->ins[0];
    sba_error err;
    bir_location *other = bir_location_add(t->set, "t.reload", BIR_MEM_SB, &err);
    cr_assert_not_null(other);
    other->alloc_flags = BIR_LOC_RELOAD_TEMP;
    t->loc = other;
    json_t *out = saved_json(m);
    json_t *op = json_array_get(
        json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
                                                                              json_object_get(out, "functions"), 0),
                                                                          "blocks"),
                                                           0),
                                            "instructions"),
                            1),
                        "ins"),
        0);
    cr_assert_str_eq(json_string_value(json_object_get(op, "memref")), "t.reload");
    cr_assert_str_eq(json_string_value(json_object_get(op, "memsetref")), "t_set");
    json_decref(out);
    bir_module_free(m);
}

Test(dialect, a_load_by_dmacopy_is_reloaded_from_its_source_not_stored)
{
    /* The compiler loads with DMACopy. On 4096 bytes x (1024) cannot stay
     * beside a (4096): x, a plain load of a read-only input, is reloaded
     * from that input when next used, with no spill store. */
    bir_module *m = load_kernel("remat_load");
    sba_alloc_options o = {0};
    sba_alloc_report r = {0};
    sba_error err;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "%s", err.message);
    cr_assert_eq(r.nfns, 1);
    cr_assert_eq(r.fns[0].spilled, 1);
    cr_assert_eq(r.fns[0].remats, 1);
    cr_assert_eq(r.fns[0].stores, 0);
    sba_alloc_report_free(&r);
    verify_ok(m, "remat_load");
    bir_module_free(m);
}

/* ---- library instructions -------------------------------------------------- */

Test(dialect, a_library_output_never_overlaps_its_inputs)
{
    bir_module *m = load_kernel("gather");
    sba_error err;
    cr_assert_eq(allocate(m, 0, &err), SBA_OK, "%s", err.message);
    verify_ok(m, "gather");
    const bir_location *t = loc_named(m, "t"), *i = loc_named(m, "i"), *g = loc_named(m, "g"), *m8 = loc_named(m, "m8");
    cr_assert_not(sb_overlap(g, t), "the Gather's output over its table");
    cr_assert_not(sb_overlap(g, i), "the Gather's output over its indices");
    cr_assert_not(sb_overlap(m8, g), "the Max8's output over its input");
    bir_module_free(m);
}

Test(dialect, a_library_instruction_is_not_coalesced_even_when_only_that_fits)
{
    /* 4096 bytes per partition: the table (2048), the indices (64) and the
     * gathered rows (2048) do not fit side by side. An elementwise
     * TensorTensor in the Gather's place may write over the table it
     * consumes (partners); the Gather may not, so allocation fails and says
     * where, in the kernel's source. */
    bir_module *m = load_kernel("gather");
    bir_inst *g = inst_at(m, 2);
    g->opcode = BIR_OP_TENSOR_TENSOR;
    g->opcode_name = "TensorTensor";
    sba_error err;
    cr_assert_eq(allocate(m, 4096, &err), SBA_OK, "elementwise: %s", err.message);
    verify_ok(m, "elementwise");
    cr_assert(sb_overlap(loc_named(m, "g"), loc_named(m, "t")), "the partners share their bytes");
    bir_module_free(m);

    m = load_kernel("gather");
    cr_assert_eq(allocate(m, 4096, &err), SBA_ERR_ALLOC);
    cr_assert(strstr(err.message, "(I-3 (line 20, nisa.gather))"), "%s", err.message);
    bir_module_free(m);
}

Test(dialect, verify_refuses_a_gather_written_over_its_table)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/verify/fail_library_overlap.json", SBALLOC_SOURCE_DIR);
    sba_error err;
    bir_module *m = bir_load_file(path, NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    cr_assert_eq(bir_validate_module(m, &err), SBA_OK, "%s", err.message);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_ERR_PROGRAM);
    cr_assert_str_eq(err.path, "functions[0].blocks[0].instructions[2].outs[0]");
    cr_assert_str_eq(err.message,
                     "verify: library instruction \"I-3\" (Gather) (line 20, nisa.gather) writes tensor \"g_set\" "
                     "(SB location \"g\") over its own input tensor \"t_set\" (SB location \"t\") at partitions "
                     "[0, 128) bytes [0, 2048): it re-reads its inputs while it writes, so its output must not "
                     "overlap them");
    /* The same placement under an elementwise opcode is an in-place update:
     * accepted once the Max8's output is moved off its own input. */
    bir_inst *g = inst_at(m, 2);
    g->opcode = BIR_OP_TENSOR_TENSOR;
    g->opcode_name = "TensorTensor";
    loc_named(m, "m8")->addr = 4096;
    verify_ok(m, "in place");
    bir_module_free(m);
}

Test(dialect, verify_names_the_source_line)
{
    /* The compiler's own placement of the matmul kernel, broken: the moving
     * operand loaded over the stationary one before the Matmult reads it. */
    bir_module *m = load_kernel("placed_matmul");
    verify_ok(m, "placed");
    bir_location *bt = loc_named(m, "bt");
    bt->addr = 0; /* over at: the second load clobbers the first before the Matmult reads it */
    sba_error err;
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_ERR_PROGRAM);
    cr_assert(strstr(err.message, "instruction \"I-3\" (line 32, nisa.nc_matmul) reads tensor \"at_set\""), "%s",
              err.message);
    cr_assert(strstr(err.message, "written there by instruction \"I-2\" (line 31, nl.load)"), "%s", err.message);
    bir_module_free(m);
}

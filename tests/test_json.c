/* JSON load and save: byte-identical round trips of every example, of the
 * worked example of docs/format.md and of a generated 10,000-set module; the
 * wire rules of the memory-location model (signed bank, both alias schemas,
 * alias kind coercion, pack_id_hint refused on save); unknown keys kept at
 * every level; and an allocation-failure sweep through the memory hook. */
#include <criterion/criterion.h>
#include <glob.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "sballoc/bir.h"

/* ---- helpers ----------------------------------------------------------- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static bir_module *load_ok(const char *text, size_t len, const char *what)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, len, what, NULL, &err);
    cr_assert_not_null(m, "%s: load failed: %d:%d %s: %s", what, err.line, err.column, err.path,
                       err.message);
    return m;
}

static char *save_ok(const bir_module *m, const char *what)
{
    char *text = NULL;
    size_t len = 0;
    sba_error err;
    cr_assert_eq(bir_save_buffer(m, &text, &len, &err), SBA_OK, "%s: save failed: %s", what,
                 err.message);
    cr_assert_not_null(text);
    cr_assert_eq(strlen(text), len);
    cr_assert_eq(text[len - 1], '\n', "a final newline");
    /* Saved text is the module's allocator's: copy it out to the C heap. */
    char *copy = strdup(text);
    bir_free_text(m, text);
    return copy;
}

/* load -> save -> load -> save; the two saved texts must be byte-identical.
 * Returns the first saved text (malloc'd). */
static char *round_trip(const char *text, size_t len, const char *what)
{
    bir_module *m1 = load_ok(text, len, what);
    char *s1 = save_ok(m1, what);
    bir_module_free(m1);
    bir_module *m2 = load_ok(s1, strlen(s1), what);
    char *s2 = save_ok(m2, what);
    bir_module_free(m2);
    size_t n1 = strlen(s1), n2 = strlen(s2), at = 0;
    while (at < n1 && at < n2 && s1[at] == s2[at]) at++;
    cr_assert(n1 == n2 && at == n1, "%s: re-save differs at byte %zu of %zu/%zu", what, at, n1, n2);
    free(s2);
    return s1;
}

static bir_module *load_str(const char *text)
{
    return load_ok(text, strlen(text), "inline");
}

/* ---- round trips of files ---------------------------------------------- */

Test(round_trip, every_example_is_byte_identical)
{
    /* The directory may be filled in parallel: zero files is not a failure. */
    glob_t g;
    int rc = glob(SBALLOC_SOURCE_DIR "/examples/*.json", 0, NULL, &g);
    cr_assert(rc == 0 || rc == GLOB_NOMATCH, "glob failed: %d", rc);
    size_t n = rc == 0 ? g.gl_pathc : 0;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        char *text = read_all(g.gl_pathv[i], &len);
        free(round_trip(text, len, g.gl_pathv[i]));
        free(text);
    }
    cr_log_info("%zu example(s) round-tripped", n);
    globfree(&g);
}

Test(round_trip, format_worked_example)
{
    size_t len;
    char *text = read_all(SBALLOC_SOURCE_DIR "/tests/data/format_example.json", &len);
    char *saved = round_trip(text, len, "format_example.json");
    /* The canonical layout, pinned by a golden file. */
    size_t glen;
    char *golden = read_all(SBALLOC_SOURCE_DIR "/tests/data/format_example.saved.json", &glen);
    cr_assert_str_eq(saved, golden);
    /* And a golden file is itself a fixed point. */
    free(round_trip(golden, glen, "format_example.saved.json"));
    bir_module *m = load_ok(golden, glen, "golden");
    char *again = save_ok(m, "golden");
    cr_assert_str_eq(again, golden, "a saved file re-saves unchanged on the first try");
    bir_module_free(m);
    free(again);
    free(golden);
    free(saved);
    free(text);
}

/* The worked example matches the one in docs/format.md. */
Test(round_trip, format_example_is_the_documented_one)
{
    size_t dlen, elen;
    char *doc = read_all(SBALLOC_SOURCE_DIR "/docs/format.md", &dlen);
    char *ex = read_all(SBALLOC_SOURCE_DIR "/tests/data/format_example.json", &elen);
    const char *start = strstr(doc, "```json\n");
    cr_assert_not_null(start);
    start += strlen("```json\n");
    const char *end = strstr(start, "```");
    cr_assert_not_null(end);
    cr_assert_eq((size_t)(end - start), elen, "tests/data/format_example.json is out of date");
    cr_assert_eq(memcmp(start, ex, elen), 0, "tests/data/format_example.json is out of date");
    free(doc);
    free(ex);
}

Test(round_trip, file_api_and_missing_file)
{
    char path[] = "/tmp/sballoc_test_json_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    size_t len;
    char *text = read_all(SBALLOC_SOURCE_DIR "/tests/data/format_example.json", &len);
    bir_module *m = load_ok(text, len, "example");
    sba_error err;
    cr_assert_eq(bir_save_file(m, path, &err), SBA_OK, "%s", err.message);
    char *want = save_ok(m, "example");
    bir_module_free(m);
    size_t flen;
    char *got = read_all(path, &flen);
    cr_assert_str_eq(got, want);
    bir_module *m2 = bir_load_file(path, NULL, &err);
    cr_assert_not_null(m2, "%s", err.message);
    bir_module_free(m2);
    unlink(path);
    cr_assert_null(bir_load_file(path, NULL, &err));
    cr_assert_eq(err.code, SBA_ERR_IO);
    cr_assert_str_eq(err.message, "cannot open: No such file or directory");
    free(got);
    free(want);
    free(text);
}

/* ---- a generated 10,000-set module ------------------------------------- */

static bir_operand *operands(bir_module *m, uint32_t n)
{
    bir_operand *ops = sba_arena_array(m->arena, n, sizeof *ops);
    cr_assert_not_null(ops);
    return ops;
}

static void set_access(bir_module *m, bir_operand *op, bir_set *set, bir_location *loc)
{
    op->kind = BIR_OPND_PHYSICAL_AP;
    op->set = set;
    op->loc = loc;
    op->dtype = set->dtype;
    op->offset = 0;
    op->ndims = 2;
    op->ap = sba_arena_array(m->arena, 2, sizeof *op->ap);
    cr_assert_not_null(op->ap);
    int64_t f = bir_set_bytes_per_block(set) / bir_dtype_size(set->dtype);
    op->ap[0][0] = f;
    op->ap[0][1] = bir_set_partitions(set);
    op->ap[1][0] = 1;
    op->ap[1][1] = f;
}

/* Every field the model has gets a non-default value somewhere. */
static bir_module *generate(uint32_t nsets)
{
    bir_module *m = bir_module_new(NULL);
    cr_assert_not_null(m);
    m->arch = "trn1";
    m->target = *sba_target_preset("trn1");
    sba_error err;
    bir_function *fn = bir_function_add(m, "generated", &err);
    cr_assert_not_null(fn);
    bir_location *prev_dram = NULL, *prev2_dram = NULL;
    bir_set **sets = malloc(nsets * sizeof *sets);
    for (uint32_t i = 0; i < nsets; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%u", i);
        bir_set *s = bir_set_add(fn, name, &err);
        cr_assert_not_null(s, "%s", err.message);
        sets[i] = s;
        s->dtype = i % BIR_DT_COUNT;
        s->kind = i % BIR_TK_COUNT;
        s->tensor_class = i % BIR_TC_COUNT;
        s->rank = 1 + i % 3;
        s->shape = sba_arena_array(m->arena, s->rank, sizeof *s->shape);
        for (uint32_t d = 0; d < s->rank; d++) s->shape[d] = 1 + (int64_t)((i * 7 + d * 13) % 128);
        s->partition_dim = (int32_t)(i % s->rank);
        s->storage.user_allocated = i % 11 == 0;
        uint32_t type = (uint32_t[]){BIR_MEM_SB, BIR_MEM_DRAM, BIR_MEM_PSUM}[i % 3];
        snprintf(name, sizeof name, "t%u_%s", i, bir_memory_type_name(type));
        bir_location *l = bir_location_add(s, name, type, &err);
        cr_assert_not_null(l, "%s", err.message);
        if (i % 5 == 0) {
            l->addr = (int64_t)i * 64;
            l->base = (int32_t)(i % 4) * 32;
        }
        if (type == BIR_MEM_PSUM) {
            l->has_bank = true;
            l->bank = i % 9 == 2 ? -(int64_t)i : (int64_t)(i % 8);
            if (i % 2) cr_assert_eq(bir_location_set_pack_id_hint(l, (int32_t)(i % 16), &err), SBA_OK);
        }
        if (i % 4 == 1) {
            l->has_dims = true;
            l->dims[0] = bir_set_partitions(s);
            l->dims[1] = bir_set_bytes_per_block(s);
            l->live_n = 1 + i % 3;
        }
        if (i % 6 == 0) l->var_id = i;
        if (i % 6 == 1) l->table_entry_id = i * 2;
        if (i % 6 == 2) l->memloc_set_id = i * 3;
        if (i % 7 == 0) bir_location_set_allocated(l, true);
        l->pinned = i % 13 == 0;
        l->storage.user_allocated = i % 17 == 0;
        if (i % 10 == 0) {
            /* A second placement: a DRAM home, with a non-default tensor id. */
            snprintf(name, sizeof name, "t%u_home", i);
            bir_location *h = bir_location_add(s, name, BIR_MEM_DRAM, &err);
            cr_assert_not_null(h, "%s", err.message);
            h->tensor_id = 5;
            if (i % 20 == 0) s->addr_space = (i / 20) % 3;
        }
        bir_location *dram = type == BIR_MEM_DRAM ? l : s->nlocs > 1 ? s->locs[1] : NULL;
        if (dram) {
            if (prev_dram && i % 2 == 1)
                cr_assert_eq(bir_location_add_alias(dram, prev_dram, 1, &err), SBA_OK);
            if (prev2_dram && i % 3 == 0)
                cr_assert_eq(bir_location_add_alias(prev2_dram, dram, 3, &err), SBA_OK);
            prev2_dram = prev_dram;
            prev_dram = dram;
        }
        cr_assert_eq(bir_set_build_tensor_id_map(s, &err), SBA_OK, "%s", err.message);
    }
    /* A body: a copy every 10 sets, and a loop with a symbolic access. */
    bir_block *entry = bir_block_add(fn, NULL, "entry", &err);
    cr_assert_not_null(entry);
    for (uint32_t i = 0; i + 1 < nsets; i += 10) {
        char name[32];
        snprintf(name, sizeof name, "copy%u", i);
        bir_inst *in = bir_inst_add(fn, entry, name, BIR_OP_TENSOR_COPY, &err);
        cr_assert_not_null(in, "%s", err.message);
        in->engine = (i / 10) % BIR_ENG_COUNT;
        in->ins = operands(m, 1);
        in->nins = 1;
        set_access(m, &in->ins[0], sets[i], sets[i]->locs[0]);
        in->outs = operands(m, 1);
        in->nouts = 1;
        set_access(m, &in->outs[0], sets[i + 1], sets[i + 1]->locs[0]);
    }
    bir_inst *loop = bir_inst_add(fn, entry, "loop", BIR_OP_LOOP, &err);
    cr_assert_not_null(loop);
    loop->axis = (bir_loop_axis){"k", 0, 8, 2};
    bir_block *body = bir_block_add(fn, loop, "body", &err);
    cr_assert_not_null(body);
    bir_inst *in = bir_inst_add(fn, body, "inner", BIR_OP_ACTIVATION, &err);
    cr_assert_not_null(in);
    in->engine = BIR_ENG_ACT;
    in->ins = operands(m, 1);
    in->nins = 1;
    set_access(m, &in->ins[0], sets[3], sets[3]->locs[0]);
    in->ins[0].kind = BIR_OPND_SYMBOLIC_AP;
    in->ins[0].terms = sba_arena_array(m->arena, 1, sizeof *in->ins[0].terms);
    in->ins[0].terms[0] = (bir_term){loop, 1};
    in->ins[0].nterms = 1;
    in->ins[0].dtype = BIR_DT_INT8;
    in->ins[0].offset = 3;
    free(sets);
    cr_assert_eq(bir_function_build_def_use(fn, &err), SBA_OK);
    cr_assert_not(bir_module_failed(m));
    return m;
}

Test(round_trip, generated_10000_sets)
{
    bir_module *m = generate(10000);
    char *s1 = save_ok(m, "generated");
    bir_module_free(m);
    /* API -> text -> model -> text: the first save is already canonical. */
    bir_module *m2 = load_ok(s1, strlen(s1), "generated");
    cr_assert_eq(m2->nfns, 1);
    cr_assert_eq(m2->fns[0]->nsets, 10000);
    cr_assert_eq(m2->fns[0]->ninsts, 1002);
    cr_assert_str_eq(m2->arch, "trn1");
    char *s2 = save_ok(m2, "generated");
    bir_module_free(m2);
    cr_assert_eq(strlen(s1), strlen(s2));
    cr_assert_str_eq(s1, s2);
    free(round_trip(s1, strlen(s1), "generated"));
    free(s1);
    free(s2);
}

/* ---- wire rules of the model ------------------------------------------- */

#define FN_PREFIX "{\"functions\": [{\"name\": \"f\", \"allocations\": ["
#define FN_SUFFIX "]}]}"

Test(wire, negative_psum_bank_survives)
{
    const char *text =
        FN_PREFIX
        "{\"name\": \"acc\", \"dtype\": \"float32\", \"tensor_shape\": [128, 4], \"memorylocations\": ["
        "{\"name\": \"p0\", \"type\": \"PSUM\", \"bank\": -3},"
        "{\"name\": \"p1\", \"type\": \"PSUM\", \"bank\": -9223372036854775808},"
        "{\"name\": \"p2\", \"type\": \"PSUM\", \"bank\": 0}]}" FN_SUFFIX;
    char *saved = round_trip(text, strlen(text), "bank");
    cr_assert_not_null(strstr(saved, "\"bank\": -3,"), "%s", saved);
    cr_assert_not_null(strstr(saved, "\"bank\": -9223372036854775808,"));
    cr_assert_not_null(strstr(saved, "\"bank\": 0,"), "a bank of 0 is still written");
    bir_module *m = load_str(saved);
    cr_assert_eq(m->fns[0]->sets[0]->locs[0]->bank, -3);
    cr_assert_eq(m->fns[0]->sets[0]->locs[1]->bank, INT64_MIN);
    cr_assert_eq(m->fns[0]->sets[0]->locs[2]->bank, 0);
    cr_assert(m->fns[0]->sets[0]->locs[2]->has_bank);
    bir_module_free(m);
    free(saved);
}

#define TWO_DRAM_SETS \
    "{\"name\": \"A\", \"dtype\": \"float32\", \"tensor_shape\": [4], \"memorylocations\": [" \
    "  {\"name\": \"a\", \"type\": \"DRAM\", \"alias\": [%s]}]}," \
    "{\"name\": \"B\", \"dtype\": \"float32\", \"tensor_shape\": [4], \"memorylocations\": [" \
    "  {\"name\": \"b\", \"type\": \"DRAM\"}]}," \
    "{\"name\": \"C\", \"dtype\": \"float32\", \"tensor_shape\": [4], \"memorylocations\": [" \
    "  {\"name\": \"c\", \"type\": \"DRAM\"}, {\"name\": \"c2\", \"type\": \"DRAM\"}]}," \
    "{\"name\": \"D\", \"dtype\": \"float32\", \"tensor_shape\": [4], \"memorylocations\": [" \
    "  {\"name\": \"d\", \"type\": \"DRAM\"}]}"

static bir_module *with_aliases(const char *entries, char **saved)
{
    char sets[2048], text[4096];
    snprintf(sets, sizeof sets, TWO_DRAM_SETS, entries);
    snprintf(text, sizeof text, FN_PREFIX "%s" FN_SUFFIX, sets);
    *saved = round_trip(text, strlen(text), entries);
    return load_str(text);
}

/* The "alias" array of location `loc` of set `set` in saved text. */
static json_t *saved_alias(json_t *root, const char *set, const char *loc)
{
    json_t *sets = json_object_get(json_array_get(json_object_get(root, "functions"), 0), "allocations");
    size_t i, k;
    json_t *s, *l;
    json_array_foreach(sets, i, s) {
        if (strcmp(json_string_value(json_object_get(s, "name")), set)) continue;
        json_array_foreach(json_object_get(s, "memorylocations"), k, l)
            if (!strcmp(json_string_value(json_object_get(l, "name")), loc))
                return json_object_get(l, "alias");
    }
    return NULL;
}

static void expect_entry(json_t *alias, size_t i, const char *set, const char *loc, json_int_t kind)
{
    json_t *e = json_array_get(alias, i);
    cr_assert_not_null(e, "entry %zu missing", i);
    cr_assert_eq(json_array_size(e), 3, "written as version 2");
    cr_assert_str_eq(json_string_value(json_array_get(e, 0)), set);
    cr_assert_str_eq(json_string_value(json_array_get(e, 1)), loc);
    cr_assert(json_is_integer(json_array_get(e, 2)), "the kind is written as an integer");
    cr_assert_eq(json_integer_value(json_array_get(e, 2)), kind);
}

Test(wire, alias_schema_v1_loads_and_saves_as_v2)
{
    char *saved;
    bir_module *m = with_aliases("[\"b\", 3], [\"c2\", 1]", &saved);
    bir_location *a = m->fns[0]->sets[0]->locs[0];
    cr_assert_eq(a->nalias, 2);
    cr_assert_str_eq(bir_alias_peer(a->alias[0])->name, "b");
    cr_assert_eq(bir_alias_kind(a->alias[0]), 3);
    cr_assert_str_eq(bir_alias_peer(a->alias[1])->name, "c2");
    cr_assert_eq(bir_alias_kind(a->alias[1]), 1);
    json_error_t je;
    json_t *root = json_loads(saved, 0, &je);
    cr_assert_not_null(root);
    json_t *aa = saved_alias(root, "A", "a");
    cr_assert_eq(json_array_size(aa), 2);
    expect_entry(aa, 0, "B", "b", 3);
    expect_entry(aa, 1, "C", "c2", 1);
    /* The reverse edges are written on the peers too. */
    json_t *ba = saved_alias(root, "B", "b");
    cr_assert_eq(json_array_size(ba), 1);
    expect_entry(ba, 0, "A", "a", 3);
    json_t *c2a = saved_alias(root, "C", "c2");
    cr_assert_eq(json_array_size(c2a), 1);
    expect_entry(c2a, 0, "A", "a", 1);
    cr_assert_null(saved_alias(root, "C", "c"), "no alias key without edges");
    json_decref(root);
    bir_module_free(m);
    free(saved);
}

Test(wire, alias_kind_true_3_and_3_0_load)
{
    char *saved;
    bir_module *m = with_aliases("[\"B\", \"b\", true], [\"C\", \"c\", 3], [\"D\", \"d\", 3.0], "
                                 "[\"C\", \"c2\", false]",
                                 &saved);
    bir_location *a = m->fns[0]->sets[0]->locs[0];
    cr_assert_eq(a->nalias, 4);
    const char *names[] = {"b", "c", "c2", "d"};
    const uint32_t kinds[] = {1, 3, 0, 3};
    for (uint32_t i = 0; i < 4; i++) {
        cr_assert_str_eq(bir_alias_peer(a->alias[i])->name, names[i]);
        cr_assert_eq(bir_alias_kind(a->alias[i]), kinds[i], "%s", names[i]);
    }
    json_error_t je;
    json_t *root = json_loads(saved, 0, &je);
    json_t *aa = saved_alias(root, "A", "a");
    expect_entry(aa, 0, "B", "b", 1);
    expect_entry(aa, 1, "C", "c", 3);
    expect_entry(aa, 2, "C", "c2", 0);
    expect_entry(aa, 3, "D", "d", 3);
    json_decref(root);
    bir_module_free(m);
    free(saved);
}

Test(wire, alias_kind_outside_3_bits_is_refused)
{
    /* Reals far outside int64 must be refused before any conversion. */
    const char *kinds[] = {"1e300", "-1e300", "8", "8.0", "7.5", "-1", "9223372036854775807"};
    const char *shown[] = {"1e+300", "-1e+300", "8", "8", "7.5", "-1", "9.22337e+18"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char entry[64], sets[2048], text[4096];
        snprintf(entry, sizeof entry, "[\"B\", \"b\", %s]", kinds[i]);
        snprintf(sets, sizeof sets, TWO_DRAM_SETS, entry);
        snprintf(text, sizeof text, FN_PREFIX "%s" FN_SUFFIX, sets);
        sba_error err;
        cr_assert_null(bir_load_buffer(text, strlen(text), "x", NULL, &err), "kind %s", kinds[i]);
        cr_assert_eq(err.code, SBA_ERR_MODEL);
        char expect[128];
        snprintf(expect, sizeof expect, "Integer too large for field: alias kind %s is not a 3-bit mask",
                 shown[i]);
        cr_assert_str_eq(err.message, expect);
        cr_assert_str_eq(err.path, "functions[0].allocations[0].memorylocations[0].alias[0]");
    }
}

Test(wire, alias_entries_merge_by_or_and_sort_by_creation)
{
    /* Listed out of order and twice: saved once each, in creation order, kinds ORed. */
    char *saved;
    bir_module *m = with_aliases("[\"D\", \"d\", 1], [\"B\", \"b\", 2], [\"D\", \"d\", 2], "
                                 "[\"b\", 1]",
                                 &saved);
    json_error_t je;
    json_t *root = json_loads(saved, 0, &je);
    json_t *aa = saved_alias(root, "A", "a");
    cr_assert_eq(json_array_size(aa), 2);
    expect_entry(aa, 0, "B", "b", 3);
    expect_entry(aa, 1, "D", "d", 3);
    expect_entry(saved_alias(root, "D", "d"), 0, "A", "a", 3);
    json_decref(root);
    bir_module_free(m);
    free(saved);
}

Test(wire, pack_id_hint_on_non_psum_refused_on_save)
{
    bir_module *m = load_str(
        FN_PREFIX
        "{\"name\": \"t\", \"dtype\": \"float32\", \"tensor_shape\": [128, 4], \"memorylocations\": ["
        "{\"name\": \"acc\", \"type\": \"PSUM\", \"pack_id_hint\": 2},"
        "{\"name\": \"tile\", \"type\": \"SB\"}]}" FN_SUFFIX);
    bir_location *acc = m->fns[0]->sets[0]->locs[0];
    bir_location *tile = m->fns[0]->sets[0]->locs[1];
    cr_assert_eq(acc->pack_id_hint, 2);
    char *ok = save_ok(m, "psum hint");
    cr_assert_not_null(strstr(ok, "\"pack_id_hint\": 2,"));
    free(ok);
    /* Set behind the setter's back: the writer refuses, as the seed's toJson. */
    tile->pack_id_hint = 0;
    char untouched[] = "untouched";
    char *text = untouched;
    size_t len = 99;
    sba_error err;
    cr_assert_eq(bir_save_buffer(m, &text, &len, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "tile: PackIdHint only applies to PSUM.");
    cr_assert_null(text);
    cr_assert_eq(len, 0);
    char path[] = "/tmp/sballoc_test_hint_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    cr_assert_eq(bir_save_file(m, path, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "tile: PackIdHint only applies to PSUM.");
    unlink(path);
    bir_module_free(m);
}

Test(wire, instruction_without_opcode_name_refused_on_save)
{
    bir_module *m = bir_module_new(NULL);
    bir_function *fn = bir_function_add(m, "f", NULL);
    bir_block *b = bir_block_add(fn, NULL, "entry", NULL);
    bir_inst *in = bir_inst_add(fn, b, "mystery", BIR_OP_OTHER, NULL);
    cr_assert_not_null(in);
    cr_assert_null(in->opcode_name);
    char *text;
    size_t len;
    sba_error err;
    cr_assert_eq(bir_save_buffer(m, &text, &len, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "instruction \"mystery\" of function \"f\" has no opcode name");
    in->opcode_name = "Custom";
    char *saved = save_ok(m, "custom opcode");
    cr_assert_not_null(strstr(saved, "\"opcode\": \"Custom\","));
    free(saved);
    bir_module_free(m);
}

/* ---- unknown keys ------------------------------------------------------ */

static const char *const EXTRAS_JSON =
    "{\"version\": 2, \"x_module\": {\"nested\": [1, 2.5, \"s\", null, true, {\"k\": \"v\"}]},"
    " \"functions\": [{\"name\": \"f\", \"x_fn\": 1,"
    "  \"allocations\": [{\"name\": \"s\", \"x_set\": \"h\\u00e9llo \\\"q\\\"\", \"dtype\": \"float32\","
    "    \"tensor_shape\": [128, 4],"
    "    \"memorylocations\": [{\"x_loc_first\": [], \"name\": \"l\", \"type\": \"DRAM\", \"x_loc\": {}}]}],"
    "  \"blocks\": [{\"name\": \"b\", \"x_block\": -5, \"instructions\": ["
    "    {\"name\": \"i\", \"opcode\": \"DMACopy\", \"x_inst\": false,"
    "     \"ins\": [{\"memsetref\": \"s\", \"ap\": [[4, 128], [1, 4]], \"x_op\": \"keep\"},"
    "               {\"kind\": \"imm_value\", \"value\": 2.0, \"x_other\": [1]}],"
    "     \"outs\": [], \"x_inst2\": 12345678901234}]}]}],"
    " \"x_module_last\": \"z\"}";

static void expect_extra(const bir_extras *ex, uint32_t i, const char *key, const char *json)
{
    cr_assert_lt(i, ex->n, "extra %s missing", key);
    cr_assert_str_eq(ex->v[i].key, key);
    cr_assert_str_eq(ex->v[i].json, json);
}

Test(extras, unknown_keys_at_every_level_are_kept)
{
    bir_module *m = load_str(EXTRAS_JSON);
    cr_assert_eq(m->extras.n, 2);
    expect_extra(&m->extras, 0, "x_module", "{\"nested\":[1,2.5,\"s\",null,true,{\"k\":\"v\"}]}");
    expect_extra(&m->extras, 1, "x_module_last", "\"z\"");
    bir_function *fn = m->fns[0];
    cr_assert_eq(fn->extras.n, 1);
    expect_extra(&fn->extras, 0, "x_fn", "1");
    cr_assert_eq(fn->sets[0]->extras.n, 1);
    expect_extra(&fn->sets[0]->extras, 0, "x_set", "\"h\xc3\xa9llo \\\"q\\\"\"");
    bir_location *l = fn->sets[0]->locs[0];
    cr_assert_eq(l->extras.n, 2);
    expect_extra(&l->extras, 0, "x_loc_first", "[]");
    expect_extra(&l->extras, 1, "x_loc", "{}");
    cr_assert_eq(fn->blocks[0]->extras.n, 1);
    expect_extra(&fn->blocks[0]->extras, 0, "x_block", "-5");
    bir_inst *in = fn->insts[0];
    cr_assert_eq(in->extras.n, 2);
    expect_extra(&in->extras, 0, "x_inst", "false");
    expect_extra(&in->extras, 1, "x_inst2", "12345678901234");
    cr_assert_eq(in->ins[0].extras.n, 1);
    expect_extra(&in->ins[0].extras, 0, "x_op", "\"keep\"");
    cr_assert_eq(in->ins[1].kind, BIR_OPND_OTHER);
    cr_assert_str_eq(in->ins[1].kind_name, "imm_value");
    cr_assert_str_eq(in->ins[1].raw, "{\"kind\":\"imm_value\",\"value\":2.0,\"x_other\":[1]}");
    bir_module_free(m);
}

Test(extras, unknown_keys_are_written_after_the_known_ones)
{
    char *saved = round_trip(EXTRAS_JSON, strlen(EXTRAS_JSON), "extras");
    json_error_t je;
    json_t *root = json_loads(saved, 0, &je);
    cr_assert_not_null(root);
    /* Key order of each object: the known keys first, then the kept ones in input order. */
    const char *key;
    json_t *v;
    const char *mod_keys[] = {"version", "functions", "x_module", "x_module_last"};
    size_t i = 0;
    json_object_foreach(root, key, v) cr_assert_str_eq(key, mod_keys[i++]);
    cr_assert_eq(i, 4);
    json_t *want = json_pack("{s:[i,f,s,n,b,{s:s}]}", "nested", 1, 2.5, "s", 1, "k", "v");
    cr_assert(json_equal(json_object_get(root, "x_module"), want));
    json_decref(want);
    json_t *fn = json_array_get(json_object_get(root, "functions"), 0);
    const char *fn_keys[] = {"name", "allocations", "blocks", "x_fn"};
    i = 0;
    json_object_foreach(fn, key, v) cr_assert_str_eq(key, fn_keys[i++]);
    json_t *loc = json_array_get(json_object_get(json_array_get(json_object_get(fn, "allocations"), 0),
                                                 "memorylocations"), 0);
    const char *loc_keys[] = {"name", "type", "tensor_id", "allocated", "x_loc_first", "x_loc"};
    i = 0;
    json_object_foreach(loc, key, v) cr_assert_str_eq(key, loc_keys[i++]);
    cr_assert_eq(i, 6);
    json_t *set = json_array_get(json_object_get(fn, "allocations"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(set, "x_set")), "h\xc3\xa9llo \"q\"");
    json_t *inst = json_array_get(json_object_get(json_array_get(json_object_get(fn, "blocks"), 0),
                                                  "instructions"), 0);
    cr_assert(json_is_false(json_object_get(inst, "x_inst")));
    cr_assert_eq(json_integer_value(json_object_get(inst, "x_inst2")), 12345678901234);
    json_t *op0 = json_array_get(json_object_get(inst, "ins"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(op0, "x_op")), "keep");
    json_t *op1 = json_array_get(json_object_get(inst, "ins"), 1);
    want = json_pack("{s:s, s:f, s:[i]}", "kind", "imm_value", "value", 2.0, "x_other", 1);
    cr_assert(json_equal(op1, want), "a non-memory operand is written back as given");
    json_decref(want);
    json_t *blk = json_array_get(json_object_get(fn, "blocks"), 0);
    cr_assert_eq(json_integer_value(json_object_get(blk, "x_block")), -5);
    json_decref(root);
    free(saved);
}

/* ---- the memory hook --------------------------------------------------- */

typedef struct failing {
    long left; /* successful calls left; -1 never fails */
    long calls;
} failing;

static void *f_alloc(void *ud, size_t n)
{
    failing *f = ud;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    f->calls++;
    return malloc(n);
}
static void *f_realloc(void *ud, void *p, size_t n)
{
    failing *f = ud;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    f->calls++;
    return realloc(p, n);
}
static void f_free(void *ud, void *p)
{
    (void)ud;
    free(p);
}

Test(memory, load_fails_cleanly_at_every_allocation)
{
    size_t len;
    char *text = read_all(SBALLOC_SOURCE_DIR "/tests/data/format_example.json", &len);
    /* Small chunks would need many hook calls; the example is small, so
     * sweep until the load succeeds. ASan checks that nothing leaks. */
    long n;
    for (n = 0; n < 10000; n++) {
        failing f = {n, 0};
        sba_allocator a = {f_alloc, f_realloc, f_free, &f};
        sba_error err;
        bir_module *m = bir_load_buffer(text, len, "x", &a, &err);
        if (m) {
            bir_module_free(m);
            break;
        }
        cr_assert_eq(err.code, SBA_ERR_NOMEM, "after %ld calls: %s", n, err.message);
        cr_assert_str_eq(err.message, "out of memory");
    }
    cr_assert_gt(n, 1, "a load takes at least the arena and one chunk");
    cr_assert_lt(n, 10000);
    free(text);
}

Test(memory, save_fails_cleanly_without_memory)
{
    size_t len;
    char *text = read_all(SBALLOC_SOURCE_DIR "/tests/data/format_example.json", &len);
    failing f = {-1, 0};
    sba_allocator a = {f_alloc, f_realloc, f_free, &f};
    sba_error err;
    bir_module *m = bir_load_buffer(text, len, "x", &a, &err);
    cr_assert_not_null(m);
    f.left = 0;
    char untouched[] = "untouched";
    char *out = untouched;
    size_t n = 5;
    cr_assert_eq(bir_save_buffer(m, &out, &n, &err), SBA_ERR_NOMEM);
    cr_assert_str_eq(err.message, "out of memory while writing JSON");
    cr_assert_null(out);
    f.left = -1;
    cr_assert_eq(bir_save_buffer(m, &out, &n, &err), SBA_OK);
    long before = f.calls;
    bir_free_text(m, out);
    cr_assert_eq(f.calls, before, "freeing takes nothing");
    bir_module_free(m);
    free(text);
}

Test(memory, a_large_load_uses_few_hook_calls)
{
    bir_module *g = generate(2000);
    char *s = save_ok(g, "generated");
    bir_module_free(g);
    failing f = {-1, 0};
    sba_allocator a = {f_alloc, f_realloc, f_free, &f};
    sba_error err;
    bir_module *m = bir_load_buffer(s, strlen(s), "x", &a, &err);
    cr_assert_not_null(m);
    cr_assert_lt(f.calls, 64, "the arena takes chunks, not one call per object (%ld)", f.calls);
    bir_module_free(m);
    free(s);
}

/* A letter-case variant of a known engine is taken as that engine, with a
 * warning that names it (docs/errors.md W001); a known spelling warns nothing. */
Test(near_miss, engine_letter_case_warns)
{
    static const char fmt[] =
        "{\"version\": 2, \"functions\": [{\"name\": \"f\", \"allocations\": [{\"name\": \"t\", \"dtype\": "
        "\"float32\", \"tensor_shape\": [128, 4], \"memorylocations\": [{\"name\": \"t\", \"type\": \"SB\"}]}], "
        "\"blocks\": [{\"name\": \"e\", \"instructions\": [{\"name\": \"z\", \"opcode\": \"Memset\", \"engine\": "
        "\"%s\", \"outs\": [{\"memsetref\": \"t\", \"ap\": [[4, 128], [1, 4]]}]}]}]}]}";
    char text[1024];
    snprintf(text, sizeof text, fmt, "POOL");
    bir_module *m = load_ok(text, strlen(text), "engine POOL");
    cr_assert_eq(m->fns[0]->insts[0]->engine, BIR_ENG_POOL);
    cr_assert_eq(m->nwarnings, 1);
    cr_assert_str_eq(m->warnings[0], "functions[0].blocks[0].instructions[0].engine: engine \"POOL\" taken as "
                                     "\"pool\": did you mean \"pool\"? (names are case-sensitive)");
    bir_module_free(m);
    snprintf(text, sizeof text, fmt, "pool");
    m = load_ok(text, strlen(text), "engine pool");
    cr_assert_eq(m->nwarnings, 0);
    bir_module_free(m);
}

/* The near-miss lookups: letter case only, and never for a known name. */
Test(near_miss, lookups)
{
    cr_assert_str_eq(bir_opcode_near_miss("DmaLoad"), "DMALoad");
    cr_assert_str_eq(bir_opcode_near_miss("tensorcopy"), "TensorCopy");
    cr_assert_null(bir_opcode_near_miss("DMALoad"));
    cr_assert_null(bir_opcode_near_miss("MyCustomOp"));
    cr_assert_str_eq(bir_dtype_near_miss("BFloat16"), "bfloat16");
    cr_assert_null(bir_dtype_near_miss("bf16"));
    cr_assert_str_eq(bir_engine_near_miss("DMA"), "dma");
    cr_assert_null(bir_engine_near_miss("dma"));
}

/* CSV interop: the imported program makes the allocator's interference graph
 * exactly the lifespan-intersection graph (touching lifespans do not
 * conflict), on a small table and on random tables full of shared end
 * points; the optional and legacy columns; every input error with its line
 * and column; export(import(x)) after allocation, also through JSON; and the
 * independent checker on good and broken packings. The MiniMalloc challenging
 * instances, when ../shared holds them, are imported, packed and checked. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sballoc/alloc.h"
#include "sballoc/csv.h"
#include "sballoc/program.h"
#include "sballoc/verify.h"

/* ---- helpers ------------------------------------------------------------ */

/* Four buffers: p and q touch at 4, r spans both, s starts where r ends. */
static const char SMALL[] = "id,lower,upper,size\n"
                            "p,0,4,8\n"
                            "q,4,10,8\n"
                            "r,2,10,8\n"
                            "s,10,12,16\n";

static bir_module *import_ok(const char *text, int64_t capacity)
{
    sba_error err;
    bir_module *m = sba_csv_import(text, strlen(text), capacity, NULL, &err);
    cr_assert_not_null(m, "import failed: %d:%d: %s", err.line, err.column, err.message);
    return m;
}

static void import_fails(const char *text, int64_t capacity, sba_status code, int line, int column,
                         const char *message)
{
    sba_error err;
    bir_module *m = sba_csv_import(text, strlen(text), capacity, NULL, &err);
    cr_assert_null(m, "import of %s should fail", text);
    cr_assert_eq(err.code, code, "code %d, expected %d: %s", err.code, code, err.message);
    cr_assert_eq(err.line, line, "line %d, expected %d: %s", err.line, line, err.message);
    cr_assert_eq(err.column, column, "column %d, expected %d: %s", err.column, column, err.message);
    cr_assert_str_eq(err.message, message);
}

/* The allocator's edges, from its interference-graph dump. */
typedef struct edge_log {
    char (*a)[32], (*b)[32];
    uint32_t n, cap;
} edge_log;

static void on_line(void *ud, const char *line)
{
    edge_log *e = ud;
    char x[32], y[32];
    if (sscanf(line, "edge %31s -- %31s", x, y) != 2) return;
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 64;
        e->a = realloc(e->a, e->cap * sizeof *e->a);
        e->b = realloc(e->b, e->cap * sizeof *e->b);
        cr_assert(e->a && e->b);
    }
    snprintf(e->a[e->n], sizeof e->a[e->n], "%s", x);
    snprintf(e->b[e->n], sizeof e->b[e->n], "%s", y);
    e->n++;
}

static bool has_edge(const edge_log *e, const char *x, const char *y)
{
    for (uint32_t i = 0; i < e->n; i++)
        if ((!strcmp(e->a[i], x) && !strcmp(e->b[i], y)) || (!strcmp(e->a[i], y) && !strcmp(e->b[i], x)))
            return true;
    return false;
}

/* Runs the front half; returns its edges and fills the report. */
static edge_log analyze_edges(bir_module *m, sba_function_report *fr)
{
    edge_log e = {0};
    sba_alloc_options o = {.log = on_line, .log_ud = &e, .dump = SBA_DUMP_IGRAPH};
    sba_alloc_report r;
    sba_error err;
    cr_assert_eq(sba_analyze_module(m, &o, &r, &err), SBA_OK, "analyze: %s", err.message);
    cr_assert_eq(r.nfns, 1);
    *fr = r.fns[0];
    sba_alloc_report_free(&r);
    return e;
}

static void edges_free(edge_log *e)
{
    free(e->a);
    free(e->b);
}

/* A buffer's lifespan, read back from the imported sets in order. */
typedef struct span {
    char id[16];
    int64_t lower, upper, size;
} span;

static void assert_exact(bir_module *m, const span *sp, uint32_t n)
{
    sba_function_report fr;
    edge_log e = analyze_edges(m, &fr);
    uint64_t want = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            bool conflict = sp[i].lower < sp[j].upper && sp[j].lower < sp[i].upper;
            want += conflict;
            cr_assert_eq(has_edge(&e, sp[i].id, sp[j].id), conflict, "%s [%lld, %lld) and %s [%lld, %lld): %s",
                         sp[i].id, (long long)sp[i].lower, (long long)sp[i].upper, sp[j].id,
                         (long long)sp[j].lower, (long long)sp[j].upper, conflict ? "missing edge" : "extra edge");
        }
    cr_assert_eq(e.n, want);
    cr_assert_eq(fr.edges, want);
    edges_free(&e);
}

static char *export_ok(const bir_module *m)
{
    char *text;
    size_t len;
    sba_error err;
    cr_assert_eq(sba_csv_export(m, &text, &len, &err), SBA_OK, "export: %s", err.message);
    cr_assert_eq(strlen(text), len);
    return text;
}

static void allocate_ok(bir_module *m, uint32_t strategy)
{
    sba_alloc_options o = {.strategy = strategy};
    sba_alloc_report r;
    sba_error err;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "allocate: %s", err.message);
    cr_assert_eq(r.fns[0].spilled, 0u, "unexpected spill");
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
}

static void check_ok(const char *text, int64_t capacity, sba_csv_check_report *rep)
{
    sba_error err;
    cr_assert_eq(sba_csv_check(text, strlen(text), capacity, rep, NULL, &err), SBA_OK, "check: %d:%d: %s",
                 err.line, err.column, err.message);
}

static void check_fails(const char *text, int64_t capacity, sba_status code, int line, int column,
                        const char *message)
{
    sba_error err;
    cr_assert_eq(sba_csv_check(text, strlen(text), capacity, NULL, NULL, &err), code, "%s", err.message);
    cr_assert_eq(err.line, line, "line %d: %s", err.line, err.message);
    cr_assert_eq(err.column, column, "column %d: %s", err.column, err.message);
    cr_assert_str_eq(err.message, message);
}

/* A line's length without its last field (and comma) when `strip`. */
static size_t columns(const char *line, size_t n, bool strip)
{
    if (!strip) return n;
    while (n && line[n - 1] != ',') n--;
    return n ? n - 1 : 0;
}

/* Every line of `out` is the line of `in` plus an offset field (or, when
 * `in` has an offset column, with its offset field filled in). */
static void assert_columns(const char *in, const char *out, bool in_has_offset)
{
    while (*in) {
        const char *ie = strchr(in, '\n'), *oe = strchr(out, '\n');
        if (!ie) ie = in + strlen(in);
        cr_assert_not_null(oe, "output ends before \"%s\"", in);
        size_t ni = columns(in, (size_t)(ie - in), in_has_offset), no = columns(out, (size_t)(oe - out), true);
        cr_assert(ni == no && !strncmp(in, out, ni), "line \"%.*s\" became \"%.*s\"", (int)(ie - in), in,
                  (int)(oe - out), out);
        in = *ie ? ie + 1 : ie;
        out = oe + 1;
    }
    cr_assert_eq(*out, '\0', "extra output: %s", out);
}

static void assert_prefix_lines(const char *in, const char *out) { assert_columns(in, out, false); }

/* ---- the encoding ------------------------------------------------------- */

Test(csv_import, builds_one_full_height_tensor_per_buffer)
{
    bir_module *m = import_ok(SMALL, 32);
    cr_assert(m->has_target);
    cr_assert_eq(m->target.partitions, 128u);
    cr_assert_eq(m->target.sbuf_bytes, 32);
    cr_assert_eq(m->target.sbuf_align, 8u);
    cr_assert_eq(m->nfns, 1u);
    const bir_function *fn = m->fns[0];
    cr_assert_eq(fn->nsets, 4u);
    const char *ids[] = {"p", "q", "r", "s"};
    for (uint32_t i = 0; i < 4; i++) {
        const bir_set *s = fn->sets[i];
        cr_assert_str_eq(s->name, ids[i]);
        cr_assert_eq(s->nlocs, 1u);
        cr_assert_str_eq(s->locs[0]->name, ids[i]);
        cr_assert_eq(s->locs[0]->type, (uint32_t)BIR_MEM_SB);
        cr_assert_eq(s->dtype, (uint32_t)BIR_DT_UINT8);
        cr_assert_eq(bir_set_partitions(s), 128);
        cr_assert_eq(bir_set_bytes_per_block(s), i == 3 ? 16 : 8);
        cr_assert_eq(s->locs[0]->storage.nwriters, 1u);
        cr_assert_eq(s->locs[0]->storage.nreaders, 1u);
    }
    /* Steps 0, 2, 3, 4, 9, 10, 11: def@t before use@t, empty ones left out. */
    const char *names[] = {"def@0", "def@2", "use@3", "def@4", "use@9", "def@10", "use@11"};
    const int64_t times[] = {0, 2, 3, 4, 9, 10, 11}; /* each carries its step (the orders' widths) */
    cr_assert_eq(fn->ninsts, 7u);
    for (uint32_t i = 0; i < 7; i++) {
        cr_assert_str_eq(fn->insts[i]->name, names[i]);
        cr_assert(fn->insts[i]->has_time);
        cr_assert_eq(fn->insts[i]->time, times[i]);
    }
    cr_assert_eq(fn->insts[0]->opcode, (uint32_t)BIR_OP_MEMSET);
    cr_assert_str_eq(fn->insts[2]->opcode_name, "Release");
    cr_assert_eq(fn->insts[4]->nins, 2u); /* q and r end together */
    bir_module_free(m);
}

/* Spill code runs when the instruction it serves does: it carries that
 * instruction's time, so the times still never decrease and the allocated
 * module loads again. */
Test(csv_import, spill_code_carries_the_time_it_serves)
{
    /* three buffers of 8 bytes live at once over [4, 6), in 16 bytes: one spills */
    bir_module *m = import_ok("id,lower,upper,size\na,0,10,8\nb,2,8,8\nc,4,6,8\n", 16);
    bir_function *fn = m->fns[0];
    const uint32_t imported = fn->ninsts;
    sba_alloc_options o = {.strategy = SBA_STRATEGY_COLORING};
    sba_alloc_report r;
    sba_error err;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "allocate: %s", err.message);
    cr_assert_gt(r.fns[0].spilled, 0u);
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    cr_assert_gt(fn->ninsts, imported);
    for (uint32_t i = 0; i < fn->ninsts; i++) {
        cr_assert(fn->insts[i]->has_time, "instruction %s has no time", fn->insts[i]->name);
        if (i) cr_assert_geq(fn->insts[i]->time, fn->insts[i - 1]->time, "%s", fn->insts[i]->name);
    }
    char *json;
    size_t len;
    cr_assert_eq(bir_save_buffer(m, &json, &len, &err), SBA_OK);
    bir_module *back = bir_load_buffer(json, len, "t.json", NULL, &err);
    cr_assert_not_null(back, "%s: %s", err.path, err.message);
    bir_free_text(m, json);
    bir_module_free(back);
    bir_module_free(m);
}

Test(csv_import, conflicts_iff_lifespans_intersect)
{
    bir_module *m = import_ok(SMALL, 32);
    span sp[] = {{"p", 0, 4, 8}, {"q", 4, 10, 8}, {"r", 2, 10, 8}, {"s", 10, 12, 16}};
    assert_exact(m, sp, 4);
    bir_module_free(m);
}

Test(csv_import, peak_pressure_is_peak_live_bytes)
{
    bir_module *m = import_ok(SMALL, 32);
    sba_function_report fr;
    edge_log e = analyze_edges(m, &fr);
    edges_free(&e);
    cr_assert_eq(fr.peak_pressure, 16); /* never three of p, q, r at once */
    cr_assert_eq(fr.lower_bound_total, 16);
    cr_assert_eq(fr.points, 7u);
    bir_module_free(m);
}

/* Random tables over few time steps: many buffers share end points. */
Test(csv_import, exact_on_random_tables)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 20; round++) {
        enum { N = 60 };
        span sp[N];
        char text[N * 48 + 64];
        size_t len = (size_t)snprintf(text, sizeof text, "id,lower,upper,size\n");
        for (uint32_t i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int64_t lo = (int64_t)(x % 12) - 3, hi = lo + 1 + (int64_t)((x >> 8) % 6);
            sp[i] = (span){"", lo, hi, 1 + (int64_t)((x >> 16) % 5)};
            snprintf(sp[i].id, sizeof sp[i].id, "b%u", i);
            len += (size_t)snprintf(text + len, sizeof text - len, "%s,%lld,%lld,%lld\n", sp[i].id,
                                    (long long)lo, (long long)hi, (long long)sp[i].size);
        }
        bir_module *m = import_ok(text, 1000);
        assert_exact(m, sp, N);
        bir_module_free(m);
    }
}

Test(csv_import, legacy_headers_and_ignored_columns)
{
    /* begin for lower, end inclusive: x is [0, 3), y [3, 6): they touch. */
    const char *text = "id,begin,end,size,hint,gaps\r\n"
                       "x,0,2,4,7,\r\n"
                       "y,3,5,4,,1-2 4-5\r\n"
                       "\r\n";
    bir_module *m = import_ok(text, 4);
    span sp[] = {{"x", 0, 3, 4}, {"y", 3, 6, 4}};
    assert_exact(m, sp, 2);
    allocate_ok(m, SBA_STRATEGY_COLORING);
    char *out = export_ok(m);
    cr_assert_str_eq(out, "id,lower,upper,size,offset\nx,0,3,4,0\ny,3,6,4,0\n");
    bir_free_text(m, out);
    bir_module_free(m);

    m = import_ok("\xEF\xBB\xBF id , start , upper , size \nz,5,6,2\n", 4);
    cr_assert_str_eq(m->fns[0]->sets[0]->name, "z");
    cr_assert_str_eq(m->fns[0]->insts[0]->name, "def@5");
    cr_assert_str_eq(m->fns[0]->insts[1]->name, "use@5");
    bir_module_free(m);
}

Test(csv_import, alignment_from_sizes_capped)
{
    bir_module *m = import_ok("id,lower,upper,size\na,0,1,24\nb,0,1,40\n", 100);
    cr_assert_eq(m->target.sbuf_align, 8u); /* gcd 8 */
    bir_module_free(m);
    m = import_ok("id,lower,upper,size\na,0,1,3\nb,0,1,5\n", 100);
    cr_assert_eq(m->target.sbuf_align, 1u);
    bir_module_free(m);
    m = import_ok("id,lower,upper,size\na,0,1,12\n", 100);
    cr_assert_eq(m->target.sbuf_align, 4u); /* the power of two in 12 */
    bir_module_free(m);
    m = import_ok("id,lower,upper,size\na,0,1,65536\nb,1,2,131072\n", 1 << 20);
    cr_assert_eq(m->target.sbuf_align, 4096u);
    bir_module_free(m);
}

Test(csv_import, alignment_column_honoured)
{
    const char *text = "id,lower,upper,size,alignment\n"
                       "a,0,4,3,\n"
                       "b,1,5,5,8\n"
                       "c,2,6,1,2\n";
    bir_module *m = import_ok(text, 64);
    cr_assert_eq(m->target.sbuf_align, 8u);
    const bir_set *b = m->fns[0]->sets[1];
    cr_assert_eq(b->extras.n, 1u);
    cr_assert_str_eq(b->extras.v[0].key, "csv_alignment");
    cr_assert_str_eq(b->extras.v[0].json, "8");
    cr_assert_eq(m->fns[0]->sets[0]->extras.n, 0u);
    for (uint32_t s = 0; s < 3; s++) {
        allocate_ok(m, s);
        for (uint32_t i = 0; i < 3; i++) cr_assert_eq(m->fns[0]->sets[i]->locs[0]->addr % 8, 0);
        char *out = export_ok(m);
        assert_prefix_lines(text, out);
        check_ok(out, 64, NULL);
        bir_free_text(m, out);
    }
    bir_module_free(m);
}

Test(csv_import, offsets_are_pre_placed)
{
    const char *text = "id,lower,upper,size,offset\n"
                       "a,0,10,4,4\n"
                       "b,0,10,4,\n"
                       "c,2,4,4,\n"
                       "d,5,8,4,0\n";
    bir_module *m = import_ok(text, 12);
    const bir_location *a = m->fns[0]->sets[0]->locs[0], *bl = m->fns[0]->sets[1]->locs[0];
    cr_assert_eq(a->addr, 4);
    cr_assert_eq(a->base, 0);
    cr_assert_eq(bl->addr, BIR_NO_ADDR);
    for (uint32_t s = 0; s < 3; s++) {
        allocate_ok(m, s);
        cr_assert_eq(a->addr, 4);
        cr_assert_eq(m->fns[0]->sets[3]->locs[0]->addr, 0);
        char *out = export_ok(m);
        check_ok(out, 12, NULL);
        assert_columns(text, out, true);
        cr_assert(strstr(out, "\na,0,10,4,4\n") && strstr(out, "\nd,5,8,4,0\n"), "%s", out);
        bir_free_text(m, out);
    }
    bir_module_free(m);
}

/* ---- errors ------------------------------------------------------------- */

Test(csv_import, header_errors)
{
    import_fails("", 8, SBA_ERR_SCHEMA, 1, 1, "empty input: expected the header id,lower,upper,size");
    import_fails("id,lower,upper,bytes\n", 8, SBA_ERR_SCHEMA, 1, 16,
                 "unknown column \"bytes\" (expected id, lower, upper, size, alignment, offset, hint or gaps; "
                 "begin or start for lower, end for an inclusive upper)");
    import_fails("id,lower,upper\na,0,1\n", 8, SBA_ERR_SCHEMA, 1, 15, "missing column \"size\" in the header");
    import_fails("id,begin,lower,upper,size\n", 8, SBA_ERR_SCHEMA, 1, 10,
                 "column \"lower\" repeats column \"begin\" (both give lower)");
    import_fails("id,lower,end,upper,size\n", 8, SBA_ERR_SCHEMA, 1, 14,
                 "column \"upper\" repeats column \"end\" (both give upper)");
}

Test(csv_import, row_errors)
{
    const char *h = "id,lower,upper,size\n";
    char buf[256];
#define ROW(r) (snprintf(buf, sizeof buf, "%s%s", h, r), buf)
    import_fails(ROW("a,0,x1,4\n"), 8, SBA_ERR_PARSE, 2, 5, "expected an integer for upper, found \"x1\"");
    import_fails(ROW("a,0,1.5,4\n"), 8, SBA_ERR_PARSE, 2, 5, "expected an integer for upper, found \"1.5\"");
    import_fails(ROW("a,0,1,4\nb, ,2,4\n"), 8, SBA_ERR_PARSE, 3, 3, "empty lower field: expected an integer");
    import_fails(ROW("a,0,1,99999999999999999999\n"), 8, SBA_ERR_PARSE, 2, 7,
                 "expected an integer for size, found \"99999999999999999999\"");
    import_fails(ROW("a,3,3,4\n"), 8, SBA_ERR_SCHEMA, 2, 5,
                 "upper 3 is not after lower 3: the lifespan [lower, upper) is empty");
    import_fails(ROW("a,3,2,4\n"), 8, SBA_ERR_SCHEMA, 2, 5,
                 "upper 2 is not after lower 3: the lifespan [lower, upper) is empty");
    import_fails(ROW("a,0,1,0\n"), 8, SBA_ERR_SCHEMA, 2, 7, "size 0 must be positive");
    import_fails(ROW("a,0,1,-4\n"), 8, SBA_ERR_SCHEMA, 2, 7, "size -4 must be positive");
    import_fails(ROW("a,0,1,4\nb,0,1,9\n"), 8, SBA_ERR_SCHEMA, 3, 7,
                 "size 9 of buffer \"b\" exceeds the capacity 8");
    import_fails(ROW("a,0,1\n"), 8, SBA_ERR_PARSE, 2, 6, "expected 4 fields as in the header, found 3");
    import_fails(ROW("a,0,1,4,5\n"), 8, SBA_ERR_PARSE, 2, 9, "expected 4 fields as in the header, found 5");
    import_fails(ROW("a,0,1,4\n\na,2,3,4\n"), 8, SBA_ERR_SCHEMA, 4, 1, "duplicate id \"a\" (first on line 2)");
    import_fails(ROW(",0,1,4\n"), 8, SBA_ERR_SCHEMA, 2, 1, "empty id");
#undef ROW
    import_fails("id,begin,end,size\na,3,2,4\n", 8, SBA_ERR_SCHEMA, 2, 5,
                 "end 2 is before begin 3: the lifespan is empty");
    import_fails("id,lower,upper,size,offset\na,0,1,4,6\n", 8, SBA_ERR_SCHEMA, 2, 9,
                 "fixed buffer \"a\" at offset 6 ends at 10, beyond the capacity 8");
    import_fails("id,lower,upper,size,offset\na,0,1,4,-1\n", 8, SBA_ERR_SCHEMA, 2, 9, "offset -1 must be at least 0");
    import_fails("id,lower,upper,size,alignment\na,0,1,4,3\n", 8, SBA_ERR_SCHEMA, 2, 9,
                 "alignment 3 of buffer \"a\" is not a power of two up to 65536");
    import_fails("id,lower,upper,size,alignment\na,0,1,4,0\n", 8, SBA_ERR_SCHEMA, 2, 9, "alignment 0 must be positive");
    import_fails("id,lower,upper,size,alignment,offset\na,0,1,4,8,\nb,0,1,4,,4\n", 16, SBA_ERR_SCHEMA, 3, 10,
                 "offset 4 of buffer \"b\" is not a multiple of 8, the largest alignment of the alignment column "
                 "(the target has one SB alignment)");
}

Test(csv_import, capacity_errors)
{
    import_fails(SMALL, 0, SBA_ERR_USAGE, 0, 0, "capacity 0 is out of range (1 to 4294967296 bytes)");
    import_fails(SMALL, SBA_CSV_MAX_CAPACITY + 1, SBA_ERR_USAGE, 0, 0,
                 "capacity 4294967297 is out of range (1 to 4294967296 bytes)");
}

/* ---- export ------------------------------------------------------------- */

Test(csv_export, round_trip_every_strategy)
{
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        bir_module *m = import_ok(SMALL, 32);
        allocate_ok(m, s);
        char *out = export_ok(m);
        cr_assert(!strncmp(out, "id,lower,upper,size,offset\n", 27), "%s", out);
        assert_prefix_lines(SMALL + 20, out + 27);
        sba_csv_check_report rep;
        check_ok(out, 32, &rep);
        cr_assert_eq(rep.buffers, 4u);
        cr_assert_eq(rep.conflicts, 2u);
        cr_assert_eq(rep.peak_live, 16);
        cr_assert_leq(rep.peak_used, 32);
        bir_free_text(m, out);
        bir_module_free(m);
    }
}

Test(csv_export, round_trip_through_json)
{
    const char *text = "id,lower,upper,size,alignment,offset\n"
                       "a,0,4,8,,\n"
                       "b,1,5,8,16,\n"
                       "c,2,3,8,,16\n";
    bir_module *m = import_ok(text, 64);
    allocate_ok(m, SBA_STRATEGY_COLORING);
    char *json, *direct = export_ok(m);
    size_t len;
    sba_error err;
    cr_assert_eq(bir_save_buffer(m, &json, &len, &err), SBA_OK);
    bir_module *back = bir_load_buffer(json, len, "t.json", NULL, &err);
    cr_assert_not_null(back, "%s: %s", err.path, err.message);
    cr_assert_eq(back->fns[0]->ninsts, m->fns[0]->ninsts);
    for (uint32_t i = 0; i < m->fns[0]->ninsts; i++) { /* the times come back */
        cr_assert(back->fns[0]->insts[i]->has_time);
        cr_assert_eq(back->fns[0]->insts[i]->time, m->fns[0]->insts[i]->time);
    }
    char *again = export_ok(back);
    cr_assert_str_eq(again, direct);
    assert_columns(text, direct, true);
    check_ok(direct, 64, NULL);
    bir_free_text(m, json);
    bir_free_text(m, direct);
    bir_free_text(back, again);
    bir_module_free(back);
    bir_module_free(m);
}

Test(csv_export, refuses_unallocated_spilled_and_foreign_modules)
{
    char *text;
    size_t len;
    sba_error err;
    bir_module *m = import_ok(SMALL, 32);
    cr_assert_eq(sba_csv_export(m, &text, &len, &err), SBA_ERR_ALLOC);
    cr_assert_str_eq(err.message, "buffer \"p\" has no SB address: allocate the module first");
    bir_module_free(m);

    /* a is live across b and c, which each fill the capacity: a spills. */
    m = import_ok("id,lower,upper,size\na,0,10,8\nb,1,2,8\nc,3,4,8\n", 8);
    sba_alloc_report r;
    sba_status st = sba_allocate_module(m, NULL, &r, &err);
    cr_assert_eq(st, SBA_OK, "%s", err.message);
    cr_assert_gt(r.fns[0].spilled, 0u);
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_csv_export(m, &text, &len, &err), SBA_ERR_ALLOC);
    cr_assert_str_eq(err.message, "buffer \"a\" was spilled to DRAM: the allocation does not fit, so it is not a "
                                  "packing");
    bir_module_free(m);

    const char *json = "{\"functions\": [{\"name\": \"f\", \"allocations\": [{\"name\": \"t\", \"dtype\": "
                       "\"uint8\", \"tensor_shape\": [128, 4], \"memorylocations\": [{\"name\": \"t0\", \"type\": "
                       "\"SB\", \"addr\": 0, \"base\": 0}]}], \"blocks\": [{\"name\": \"entry\", \"instructions\": "
                       "[{\"name\": \"w\", \"opcode\": \"Memset\", \"outs\": [{\"memsetref\": \"t\", \"ap\": "
                       "[[4, 128], [1, 4]]}]}, {\"name\": \"use@3\", \"opcode\": \"Release\", \"ins\": "
                       "[{\"memsetref\": \"t\", \"ap\": [[4, 128], [1, 4]]}]}]}]}]}";
    m = bir_load_buffer(json, strlen(json), "f.json", NULL, &err);
    cr_assert_not_null(m, "%s: %s", err.path, err.message);
    cr_assert_eq(sba_csv_export(m, &text, &len, &err), SBA_ERR_SCHEMA);
    cr_assert_str_eq(err.message, "buffer \"t\" is written by instruction \"w\", not by a def@<time> instruction: "
                                  "not an imported CSV buffer");
    bir_module_free(m);
}

/* ---- the checker -------------------------------------------------------- */

Test(csv_check, accepts_packings)
{
    sba_csv_check_report rep;
    /* Touching lifespans may share bytes. */
    check_ok("id,lower,upper,size,offset\na,0,3,4,0\nb,3,9,4,0\nc,0,9,4,4\n", 8, &rep);
    cr_assert_eq(rep.buffers, 3u);
    cr_assert_eq(rep.conflicts, 2u);
    cr_assert_eq(rep.peak_live, 8);
    cr_assert_eq(rep.peak_used, 8);
    check_ok("id,lower,upper,size,offset\n", 8, &rep);
    cr_assert_eq(rep.buffers, 0u);
    check_ok("id,lower,upper,size,alignment,offset\na,0,3,4,4,4\n", 8, &rep);
}

Test(csv_check, rejects_broken_packings)
{
    check_fails("id,lower,upper,size,offset\na,0,3,4,0\nb,2,9,4,2\n", 8, SBA_ERR_ALLOC, 3, 9,
                "buffers \"a\" (line 2) and \"b\" overlap: lifespans [0, 3) and [2, 9) intersect and bytes [0, 4) "
                "and [2, 6) overlap");
    /* Found however the lines are ordered. */
    check_fails("id,lower,upper,size,offset\nb,2,9,4,2\nc,9,10,8,0\na,0,3,4,0\n", 8, SBA_ERR_ALLOC, 2, 9,
                "buffers \"a\" (line 4) and \"b\" overlap: lifespans [0, 3) and [2, 9) intersect and bytes [0, 4) "
                "and [2, 6) overlap");
    check_fails("id,lower,upper,size,offset\na,0,3,4,6\n", 8, SBA_ERR_ALLOC, 2, 9,
                "buffer \"a\" at offset 6 ends at 10, beyond the capacity 8");
    check_fails("id,lower,upper,size,offset\na,0,3,4,\n", 8, SBA_ERR_ALLOC, 2, 9, "buffer \"a\" has no offset");
    check_fails("id,lower,upper,size,alignment,offset\na,0,3,4,4,2\n", 8, SBA_ERR_ALLOC, 2, 11,
                "buffer \"a\" at offset 2 is not aligned to 4");
    check_fails("id,lower,upper,size\na,0,3,4\n", 8, SBA_ERR_SCHEMA, 1, 1,
                "no offset column: the CSV is a problem, not a packing");
    check_fails("id,lower,upper,size,offset\na,0,3,4,zero\n", 8, SBA_ERR_PARSE, 2, 9,
                "expected an integer for offset, found \"zero\"");
}

/* ---- MiniMalloc's instances --------------------------------------------- */

static char *read_shared(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/../shared/bench/minimalloc/%s", SBALLOC_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 20);
    cr_assert_not_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

Test(csv_minimalloc, instances_import_exactly_and_pack)
{
    static const struct {
        const char *file;
        int64_t capacity, peak;
    } cases[] = {{"input.12.csv", 12, 12}, {"C.1048576.csv", 1048576, 1039360}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *text = read_shared(cases[i].file, &len);
        if (!text) {
            cr_log_info("%s not found beside the source tree: skipped", cases[i].file);
            continue;
        }
        sba_error err;
        bir_module *m = sba_csv_import(text, len, cases[i].capacity, NULL, &err);
        cr_assert_not_null(m, "%s: %d:%d: %s", cases[i].file, err.line, err.column, err.message);
        sba_alloc_report r;
        cr_assert_eq(sba_allocate_module(m, NULL, &r, &err), SBA_OK, "%s: %s", cases[i].file, err.message);
        cr_assert_eq(r.fns[0].lower_bound_total, cases[i].peak, "%s", cases[i].file);
        cr_assert_eq(r.fns[0].peak_pressure, cases[i].peak, "%s", cases[i].file);
        bool fits = r.fns[0].spilled == 0;
        sba_alloc_report_free(&r);
        if (fits) {
            char *out = export_ok(m);
            assert_prefix_lines(text, out);
            sba_csv_check_report rep;
            check_ok(out, cases[i].capacity, &rep);
            cr_assert_eq(rep.peak_live, cases[i].peak);
            bir_free_text(m, out);
        }
        bir_module_free(m);
        free(text);
    }
}

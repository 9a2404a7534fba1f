/* The SVG picture (src/report/svg.c): same input, same bytes; one tensor
 * group per accessed SB placement with one rectangle per partition quarter it
 * touches; tooltip contents; spill code recognised the same from the
 * allocator's flags and from the names of a reloaded module; well-formed
 * markup; write errors; and aggregation at 100k tensors (bounded size and
 * time). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sballoc/alloc.h"
#include "sballoc/draw.h"
#include "sballoc/gen.h"
#include "sballoc/program.h"

/* ---- helpers ------------------------------------------------------------ */

static bir_module *load_example(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", SBALLOC_SOURCE_DIR, name);
    sba_error err;
    bir_module *m = bir_load_file(path, NULL, &err);
    cr_assert_not_null(m, "%s: %s", path, err.message);
    return m;
}

static void allocate(bir_module *m, sba_alloc_report *r)
{
    sba_error err;
    cr_assert_eq(sba_allocate_module(m, NULL, r, &err), SBA_OK, "allocate: %s", err.message);
}

/* The picture as a malloc'd string (free it). */
static char *draw(const bir_module *m, const sba_alloc_report *r, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    cr_assert_not_null(f);
    sba_error err;
    sba_status st = sba_draw_svg(m, r, f, &err);
    cr_assert_eq(st, SBA_OK, "draw: %s", err.message);
    cr_assert_eq(fclose(f), 0);
    if (len) *len = n;
    return buf;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = strstr(s, needle); p; p = strstr(p + k, needle)) n++;
    return n;
}

static uint32_t accessed_sb(const bir_module *m)
{
    uint32_t n = 0;
    for (uint32_t f = 0; f < m->nfns; f++)
        for (uint32_t i = 0; i < m->fns[f]->nsets; i++)
            for (uint32_t j = 0; j < m->fns[f]->sets[i]->nlocs; j++) {
                const bir_location *L = m->fns[f]->sets[i]->locs[j];
                n += L->type == BIR_MEM_SB && (L->storage.nreaders || L->storage.nwriters);
            }
    return n;
}

/* Rectangles the picture must give the accessed SB placements: one per
 * partition quarter touched. */
static uint32_t quarter_rects(const bir_module *m)
{
    uint32_t n = 0;
    for (uint32_t f = 0; f < m->nfns; f++)
        for (uint32_t i = 0; i < m->fns[f]->nsets; i++)
            for (uint32_t j = 0; j < m->fns[f]->sets[i]->nlocs; j++) {
                const bir_location *L = m->fns[f]->sets[i]->locs[j];
                if (L->type != BIR_MEM_SB || !(L->storage.nreaders || L->storage.nwriters)) continue;
                int64_t lo = L->base, hi = L->base + bir_set_partitions(L->set);
                for (int64_t q = 0; q < 4; q++) n += lo < 32 * (q + 1) && hi > 32 * q;
            }
    return n;
}

/* The text of the tensor group whose <title> starts with `name (`; NULL when
 * there is none. Malloc'd. */
static char *tensor_group(const char *svg, const char *name)
{
    char key[256];
    snprintf(key, sizeof key, "<title>%s (", name);
    const char *t = strstr(svg, key);
    if (!t) return NULL;
    const char *g = t;
    while (g > svg && strncmp(g, "<g class=\"tensor\"", 17) != 0) g--;
    const char *e = strstr(t, "</g>");
    cr_assert_not_null(e);
    size_t n = (size_t)(e - g) + 4;
    char *out = malloc(n + 1);
    cr_assert_not_null(out);
    memcpy(out, g, n);
    out[n] = 0;
    return out;
}

/* A small well-formedness check: every element closes in order, attribute
 * values are quoted, and no raw '&' or '<' appears in text. */
static void assert_well_formed(const char *s)
{
    enum { MAX_DEPTH = 64 };
    const char *stack[MAX_DEPTH];
    size_t lens[MAX_DEPTH];
    int depth = 0;
    const char *p = strstr(s, "<svg");
    cr_assert_not_null(p);
    while (*p) {
        if (*p == '&') {
            cr_assert(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) || !strncmp(p, "&gt;", 4) ||
                          !strncmp(p, "&quot;", 6),
                      "raw & at byte %zu", (size_t)(p - s));
            p++;
            continue;
        }
        if (*p != '<') {
            p++;
            continue;
        }
        if (p[1] == '/') {
            const char *n = p + 2;
            size_t len = strcspn(n, ">");
            cr_assert_gt(depth, 0, "close without open at byte %zu", (size_t)(p - s));
            depth--;
            cr_assert(len == lens[depth] && !strncmp(n, stack[depth], len), "mismatched close at byte %zu",
                      (size_t)(p - s));
            p = n + len + 1;
            continue;
        }
        const char *n = p + 1;
        size_t len = strcspn(n, " \t\n/>");
        cr_assert_gt(len, 0, "bad tag at byte %zu", (size_t)(p - s));
        const char *q = n + len;
        bool in_quote = false;
        for (; *q && (in_quote || *q != '>'); q++) {
            if (*q == '"') in_quote = !in_quote;
            cr_assert(in_quote || *q != '<', "'<' inside a tag at byte %zu", (size_t)(q - s));
        }
        cr_assert_eq(*q, '>', "unterminated tag");
        if (q[-1] != '/') {
            cr_assert_lt(depth, MAX_DEPTH);
            stack[depth] = n;
            lens[depth++] = len;
        }
        p = q + 1;
    }
    cr_assert_eq(depth, 0, "%d elements left open", depth);
}

/* ---- tests -------------------------------------------------------------- */

static const char *const examples[] = {"matmul_tiled.json",  "softmax_rows.json", "attention.json",
                                       "preplaced.json",     "dram_alias.json",   "spill_pressure.json"};

Test(draw, deterministic)
{
    bir_module *m = load_example("spill_pressure.json");
    sba_alloc_report r;
    allocate(m, &r);
    size_t n1, n2;
    char *a = draw(m, &r, &n1), *b = draw(m, &r, &n2);
    cr_assert_eq(n1, n2);
    cr_assert(!memcmp(a, b, n1), "two drawings of one module differ");
    free(a);
    free(b);
    sba_alloc_report_free(&r);
    bir_module_free(m);
}

/* Every example: one group per accessed SB placement, one rectangle per
 * quarter, well-formed. A reload temporary also has a hatch overlay. */
Test(draw, one_group_per_placement)
{
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        bir_module *m = load_example(examples[i]);
        sba_alloc_report r;
        allocate(m, &r);
        char *svg = draw(m, &r, NULL);
        assert_well_formed(svg);
        uint32_t want = accessed_sb(m);
        cr_assert_gt(want, 0, "%s", examples[i]);
        cr_assert_eq(count(svg, "<g class=\"tensor\""), want, "%s", examples[i]);
        size_t rects = 0;
        for (const char *g = strstr(svg, "<g class=\"tensor\""); g; g = strstr(g + 1, "<g class=\"tensor\"")) {
            const char *e = strstr(g, "</g>");
            for (const char *x = strstr(g, "\n<rect "); x && x < e; x = strstr(x + 1, "\n<rect ")) rects++;
        }
        cr_assert_eq(rects, quarter_rects(m), "%s", examples[i]);
        cr_assert_eq(count(svg, "data-aggregated=\"0\""), m->nfns, "%s", examples[i]);
        free(svg);
        sba_alloc_report_free(&r);
        bir_module_free(m);
    }
}

Test(draw, tooltip)
{
    bir_module *m = load_example("matmul_tiled.json");
    sba_alloc_report r;
    allocate(m, &r);
    char *svg = draw(m, &r, NULL);
    char *g = tensor_group(svg, "aT_panel");
    cr_assert_not_null(g);
    const bir_location *L = bir_set_find_location(bir_function_find_set(m->fns[0], "aT_panel_set"), "aT_panel");
    cr_assert_not_null(L);
    cr_assert_eq(L->addr, 4096, "the colourer placed aT_panel elsewhere: update the expected bytes");
    cr_assert_not_null(strstr(g, "<title>aT_panel (set aT_panel_set)\nshape [16, 128, 128] bfloat16, live_n 16\n"
                                 "partitions [0, 128)\nbytes [4,096, 8,192) (4,096 B per partition)\n"),
                       "%s", g);
    /* Written inside the kl loop (header 2) and read inside the n loop (end 15), both in m. */
    cr_assert_not_null(strstr(g, "live points [2, 15]\nnot spilled</title>"), "%s", g);
    cr_assert_eq(count(g, "\n<rect "), 4);
    cr_assert_not_null(strstr(g, "<text"), "a 4 KiB tensor over 14 points has room for its label");
    free(g);
    /* bias_sb is an input of the m loop's every iteration: live to its end. */
    g = tensor_group(svg, "bias_sb");
    cr_assert_not_null(g);
    cr_assert_not_null(strstr(g, "live points [0, 16]"), "%s", g);
    free(g);
    free(svg);
    sba_alloc_report_free(&r);
    bir_module_free(m);
}

/* Spill code: the spilled placement has a dashed outline and names its home,
 * a reload temporary is hatched; markers for stores and reloads. The same
 * picture comes from the module in memory (allocator flags) and from its
 * saved JSON (names only). */
Test(draw, spill_marks_and_reload)
{
    bir_module *m = load_example("spill_pressure.json");
    sba_alloc_report r;
    allocate(m, &r);
    cr_assert_gt(r.fns[0].spilled, 0);
    char *svg = draw(m, NULL, NULL);
    char *g = tensor_group(svg, "w0");
    cr_assert_not_null(g);
    cr_assert_not_null(strstr(g, "class=\"spilled\""), "%s", g);
    cr_assert_not_null(strstr(g, "spilled: stored to DRAM w0.home</title>"), "%s", g);
    free(g);
    g = tensor_group(svg, "w0.reload");
    cr_assert_not_null(g);
    cr_assert_not_null(strstr(g, "fill=\"url(#hatch)\""), "%s", g);
    cr_assert_not_null(strstr(g, "reload temporary</title>"), "%s", g);
    free(g);
    cr_assert_eq(count(svg, "<title>spill store "), r.fns[0].stores);
    cr_assert_eq(count(svg, "<title>reload "), r.fns[0].reloads);

    char *text;
    size_t len;
    sba_error err;
    cr_assert_eq(bir_save_buffer(m, &text, &len, &err), SBA_OK);
    bir_module *m2 = bir_load_buffer(text, len, "saved", NULL, &err);
    cr_assert_not_null(m2, "%s", err.message);
    bir_free_text(m, text);
    char *svg2 = draw(m2, NULL, NULL);
    cr_assert_str_eq(svg, svg2, "the reloaded module draws differently");
    free(svg);
    free(svg2);
    bir_module_free(m2);
    sba_alloc_report_free(&r);
    bir_module_free(m);
}

/* Without a report the lower bound is computed; with one, the report's, and
 * the header shows the report's figures. */
Test(draw, lower_bound_source)
{
    bir_module *m = load_example("softmax_rows.json");
    sba_alloc_report r;
    allocate(m, &r);
    char *with = draw(m, &r, NULL), *without = draw(m, NULL, NULL);
    cr_assert_eq(r.fns[0].lower_bound_total, 16416);
    cr_assert_not_null(strstr(with, "lower bound 16,416 B (allocator)"));
    cr_assert_not_null(strstr(without, "(computed)"));
    cr_assert_null(strstr(with, "(computed)"));
    /* Every figure of the header line is its own: none overwrites another. */
    cr_assert_eq(r.fns[0].spilled_bytes, 0);
    cr_assert_not_null(strstr(with, "allocation: 1 iteration, 0 spilled (0 B/partition), 0 stores, 0 reloads, "
                                    "0 remats; high-water per band 20,480 20,480 20,480 20,480 B;"),
                       "%.400s", strstr(with, "allocation:") ? strstr(with, "allocation:") : with);
    free(with);
    free(without);
    sba_alloc_report_free(&r);
    bir_module_free(m);
}

Test(draw, write_error)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f) cr_skip_test("no /dev/full");
    bir_module *m = load_example("matmul_tiled.json");
    sba_error err;
    cr_assert_eq(sba_draw_svg(m, NULL, f, &err), SBA_ERR_IO);
    cr_assert_str_eq(err.message, "cannot write the picture");
    fclose(f);
    bir_module_free(m);
}

/* 100k tensors: most placements are below a pixel; the picture aggregates
 * them, stays under 30 MB and takes under 2 s (10 s with sanitizers). */
Test(draw, aggregates_at_100k, .timeout = 600)
{
    sba_gen_options o;
    sba_gen_defaults(&o);
    o.tensors = 100000;
    sba_error err;
    bir_module *m = sba_gen_module(&o, NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    sba_alloc_report r;
    allocate(m, &r);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t n;
    char *svg = draw(m, &r, &n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    uint32_t total = accessed_sb(m);
    unsigned shapes = 0, aggregated = 0, placements = 0;
    const char *a = strstr(svg, "data-placements=");
    cr_assert_not_null(a);
    cr_assert_eq(sscanf(a, "data-placements=\"%u\" data-shapes=\"%u\" data-aggregated=\"%u\"", &placements, &shapes,
                        &aggregated),
                 3);
    cr_log_info("100k tensors: %u SB placements, %u shapes, %u aggregated, %zu bytes, %.3f s", placements, shapes,
                aggregated, n, s);
    cr_assert_eq(placements, total);
    cr_assert_eq(shapes + aggregated, total);
    cr_assert_gt(aggregated, 0);
    cr_assert_leq(shapes, 4000);
    cr_assert_eq(count(svg, "<g class=\"tensor\""), shapes);
    cr_assert_lt(n, 30u << 20, "%zu bytes", n);
#if defined(__SANITIZE_ADDRESS__)
    cr_assert_lt(s, 10.0, "%.3f s", s);
#else
    cr_assert_lt(s, 2.0, "%.3f s", s);
#endif
    assert_well_formed(svg);
    free(svg);
    sba_alloc_report_free(&r);
    bir_module_free(m);
}

/* The allocation-failure sweep: out of memory is a recoverable status.
 *
 * A representative run (load a file, allocate SBUF with spilling inside loops,
 * save) is first counted, then repeated once per allocation with the Nth one
 * failing, for every N up to the count. Every run must end in SBA_ERR_NOMEM
 * with a message (or succeed when N is past the count), must not crash, and
 * must give back every block it took. The hook counts blocks itself, so a
 * leak fails the test in any build; the asan preset adds LeakSanitizer.
 *
 * jansson's allocations go through the same hook (json_set_alloc_funcs), so a
 * failure inside the writer is covered too, with two allowances for jansson
 * 2.14 itself:
 *  - its lexer ignores a failure to grow its token buffer (lex_save drops the
 *    byte), which silently changes a key or reads past the buffer; so while
 *    jansson parses (json_loadb and json_loads, wrapped below) its allocations
 *    are counted but never failed. A module whose tokens never grow that
 *    buffer is swept through the parser as well (parser_sweep).
 *  - the writer absorbs some failures; a run may then succeed, but its text
 *    must be the text of the run without failures.
 * The hook is global state: each test restores jansson's functions. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sballoc/alloc.h"
#include "sballoc/bir.h"
#include "sballoc/csv.h"
#include "sballoc/verify.h"

/* ---- the failing hook ---------------------------------------------------- */

typedef struct hook {
    unsigned long count;   /* allocations that may fail (malloc and realloc) */
    unsigned long fail_at; /* 1-based index of the one that fails; 0: none */
    long live;             /* blocks taken and not given back */
    bool failed;           /* the failure was injected */
    bool failed_in_json;   /* ... into an allocation of jansson's */
    int parsing;           /* inside jansson's parser: count nothing, fail nothing */
    bool fail_in_parser;   /* parser_sweep: the parser's allocations count too */
} hook;

static hook H;

static bool should_fail(bool json)
{
    if (H.parsing && json && !H.fail_in_parser) return false;
    H.count++;
    if (H.fail_at && H.count == H.fail_at) {
        H.failed = true;
        H.failed_in_json = json;
        return true;
    }
    return false;
}

static void *take(bool json, size_t size)
{
    if (should_fail(json)) return NULL;
    void *p = malloc(size);
    if (p) H.live++;
    return p;
}

static void *hook_alloc(void *ud, size_t size)
{
    (void)ud;
    return take(false, size);
}

static void *hook_realloc(void *ud, void *ptr, size_t size)
{
    (void)ud;
    if (should_fail(false)) return NULL;
    void *p = realloc(ptr, size);
    if (p && !ptr) H.live++;
    return p;
}

static void hook_free(void *ud, void *ptr)
{
    (void)ud;
    if (!ptr) return;
    H.live--;
    free(ptr);
}

static void *json_hook_alloc(size_t size) { return take(true, size); }
static void json_hook_free(void *ptr) { hook_free(NULL, ptr); }

/* jansson's parser entry points, wrapped to mark where its allocations come
 * from; the library's calls bind to these, which call jansson's own. */
json_t *json_loadb(const char *buffer, size_t buflen, size_t flags, json_error_t *error)
{
    static json_t *(*real)(const char *, size_t, size_t, json_error_t *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "json_loadb");
    H.parsing++;
    json_t *v = real(buffer, buflen, flags, error);
    H.parsing--;
    return v;
}

json_t *json_loads(const char *input, size_t flags, json_error_t *error)
{
    static json_t *(*real)(const char *, size_t, json_error_t *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "json_loads");
    H.parsing++;
    json_t *v = real(input, flags, error);
    H.parsing--;
    return v;
}

static const sba_allocator failing = {hook_alloc, hook_realloc, hook_free, NULL};

static json_malloc_t saved_malloc;
static json_free_t saved_free;

static void install(void)
{
    json_get_alloc_funcs(&saved_malloc, &saved_free);
    json_set_alloc_funcs(json_hook_alloc, json_hook_free);
}

static void restore(void) { json_set_alloc_funcs(saved_malloc, saved_free); }

/* ---- the representative run --------------------------------------------- */

typedef struct scenario {
    const char *file;   /* under the source directory; NULL: text or csv */
    const char *text;   /* an inline module */
    const char *csv;    /* a MiniMalloc problem of capacity sbuf_bytes */
    bool search;        /* the exact packer places it (colouring alone would spill) */
    int64_t sbuf_bytes; /* a tiny custom target; 0: the module's */
    bool spills;        /* the run is meant to spill */
    bool verify;        /* also run the verifier on the result */
} scenario;

/* Load, allocate, save (and verify). Returns the first failing status; *saved
 * receives a copy of the saved text (plain malloc, outside the hook). */
static sba_status run_once(const scenario *s, sba_error *err, char **saved)
{
    *saved = NULL;
    bir_module *m;
    if (s->file) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SBALLOC_SOURCE_DIR, s->file);
        m = bir_load_file(path, &failing, err);
    } else if (s->csv) {
        m = sba_csv_import(s->csv, strlen(s->csv), s->sbuf_bytes, &failing, err);
    } else {
        m = bir_load_buffer(s->text, strlen(s->text), "inline", &failing, err);
    }
    if (!m) return err->code;
    sba_target t = m->target;
    if (s->sbuf_bytes && !s->csv) t.sbuf_bytes = s->sbuf_bytes;
    sba_alloc_options o = {.target = &t};
    sba_alloc_report r;
    sba_status st = sba_allocate_module(m, &o, &r, err);
    if (st == SBA_OK) {
        if (s->spills) cr_expect(r.nfns > 0 && r.fns[0].spilled > 0, "%s: the scenario is meant to spill", s->file);
        if (s->search)
            cr_expect(r.nfns > 0 && r.fns[0].spilled == 0 && r.fns[0].search_outcome == 1,
                      "the scenario is meant to be packed by the exact packer");
        char *text;
        size_t len;
        st = bir_save_buffer(m, &text, &len, err);
        if (st == SBA_OK) {
            *saved = strdup(text);
            bir_free_text(m, text);
        }
    }
    sba_alloc_report_free(&r);
    if (st == SBA_OK && s->verify) {
        sba_verify_report vr;
        st = sba_verify_module(m, &vr, err);
    }
    bir_module_free(m);
    return st;
}

static void sweep(const scenario *s)
{
    const char *name = s->file ? s->file : s->csv ? "csv problem" : "inline module";
    install();
    sba_error err;
    char *baseline, *saved;
    memset(&H, 0, sizeof H);
    H.fail_in_parser = !s->file;
    sba_status st = run_once(s, &err, &baseline);
    cr_assert_eq(st, SBA_OK, "%s: the run without failures fails: %s", name, err.message);
    cr_assert_eq(H.live, 0, "%s: %ld blocks leaked without failures", name, H.live);
    unsigned long total = H.count, absorbed = 0, bad = 0;
    cr_assert_gt(total, 10, "%s: only %lu allocations counted", name, total);
    for (unsigned long n = 1; n <= total + 1 && bad < 5; n++) {
        memset(&H, 0, sizeof H);
        H.fail_in_parser = !s->file;
        H.fail_at = n;
        memset(&err, 0, sizeof err);
        st = run_once(s, &err, &saved);
        bool ok;
        if (n > total) {
            ok = st == SBA_OK && !H.failed;
            cr_expect(ok, "%s: N = %lu past the count fails: %s", name, n, err.message);
        } else if (st == SBA_OK && H.failed_in_json) {
            /* jansson's writer absorbed the failure: the text must be exact. */
            ok = saved && strcmp(saved, baseline) == 0;
            absorbed++;
            cr_expect(ok, "%s: allocation %lu of %lu failing inside jansson changes the saved text", name, n,
                      total);
        } else {
            ok = st == SBA_ERR_NOMEM && err.code == st && err.message[0] && H.failed;
            cr_expect(ok, "%s: allocation %lu of %lu failing gives status %s (%s), not nomem", name, n, total,
                      sba_status_name(st), err.message);
        }
        cr_expect_eq(H.live, 0, "%s: allocation %lu of %lu failing leaks %ld blocks", name, n, total, H.live);
        bad += !ok || H.live != 0;
        free(saved);
    }
    free(baseline);
    restore();
    cr_log_info("%s: %lu allocations, %lu runs, %lu failures absorbed by jansson's writer", name, total,
                total + 1, absorbed);
}

/* Loops, a reload inside a loop and a rematerialised load: SB shrunk to 8 KiB. */
Test(oom, matmul_tiled_tiny_target)
{
    scenario s = {.file = "examples/matmul_tiled.json", .sbuf_bytes = 8192, .spills = true};
    sweep(&s);
}

/* The exact packer: lifespans where colouring leaves a hole, so that only
 * the search places everything. A failure inside the search is out of
 * memory like any other — never taken for a spent budget, which would give a
 * different, spilled allocation. */
Test(oom, exact_packer)
{
    static const char trap[] = "id,lower,upper,size\n"
                               "t0,5,8,1\n"
                               "t1,5,8,4\n"
                               "t2,4,6,3\n"
                               "t3,2,7,4\n"
                               "t4,6,11,4\n";
    scenario s = {.csv = trap, .sbuf_bytes = 13, .search = true, .verify = true};
    sweep(&s);
}

/* The verifier on an allocated module: its own memory, same rule. */
Test(oom, attention_spill_and_verify)
{
    scenario s = {.file = "examples/attention.json", .sbuf_bytes = 2048, .spills = true, .verify = true};
    sweep(&s);
}

/* Every allocation, the parser's included: no token is long enough to grow
 * jansson's token buffer (see the top of this file). */
Test(oom, parser_sweep)
{
    scenario s = {.text = "{\"functions\": [{\"name\": \"f\", \"x\": [1, 2, {\"y\": true}]}, {\"name\": \"g\"}]}"};
    sweep(&s);
}

/* bench_alloc: every allocation strategy over every workload we have, with
 * the quality of the answer, its time, its memory and its proof.
 *
 * Workloads, each run once per strategy (coloring, best-fit, greedy-size):
 *   - MiniMalloc's instances, read from ../shared/bench/minimalloc beside the
 *     source tree (skipped with a note when absent): every *.csv there,
 *     imported with sba_csv_import at the capacity its name carries
 *     (A.1048576.csv: 1,048,576; input.12.csv: 12);
 *   - the kernels in examples/ (every .json file);
 *   - generated kernels (sba_gen_module, the defaults of `sballoc gen`) of
 *     1,000, 10,000 and 100,000 tensors, saved as JSON to a temporary file
 *     and loaded from it like `sballoc alloc` would;
 *   - generated kernels of 1,000 to 1,000,000 tensors built in memory through
 *     the C API, with no JSON: these give the growth exponents;
 *   - planted packing instances (sba_gen_planted, `sballoc gen --planted`):
 *     a zero-slack packing exists by construction, 1-D (every tensor 128
 *     partitions) and 2-D (quarter, half and full heights 1:1:1), 64 KiB per
 *     partition, of 300, 1,000 and 2,000 tensors (--planted-sizes), seeds 1
 *     to 3 (--planted-seeds; --planted-first-seed N starts at N instead, for
 *     seeds the defaults were not chosen on); a 2-D family dense in time
 *     (`--span` a sixth of the tensors); a 2-D family of mostly quarter
 *     heights (3:1:1) with a span of a quarter of the tensors; a 1-D
 *     family with 5 % of the tiling left out (`--holes 5`), which has
 *     slack, and one at
 *     MiniMalloc's scale (1 MiB, tensors of at least 1 KiB, 1,024 steps)
 *     whose tensors live long for their size as theirs (`--elongation
 *     8`); 1-D and 2-D
 *     families grown as memory reused over time (`--walls`), which no
 *     guillotine cut splits, and the 1-D one with 2 % of its tensors left
 *     out (as an allocation trace with some buffers missing); colouring
 *     only, at most 30 s of CPU each;
 *   - MiniMalloc's challenging instances (capacity 1 MiB) with 2 % of their
 *     buffers left out, chosen by the planted families' seeds: a subset of a
 *     packable instance packs, and the slack the missing buffers leave is
 *     where an exact search tuned to the instances themselves loses its way;
 *     colouring only, at most 30 s each;
 *   - two of MiniMalloc's challenging instances stacked, every size
 *     halved: each pair once as it is (the same buffers whichever is on
 *     top), and each in both orders with the upper one shifted in time by
 *     one and by two fifths of its span (75 stacks of the six):
 *     packable (each half packs as its instance does), with more buffers
 *     than any one instance, as MiniMalloc's larger ones; colouring only,
 *     at most 30 s each.
 *   A summary gives the share packed with no spill and the median and
 *   largest times per family.
 * Each run is a child process (so its peak RSS, from getrusage, is its own),
 * limited to --timeout seconds of CPU (default 90; a run stopped there is
 * reported as such), which keeps the default run under ten minutes. It loads the input — timing the JSON parse alone, then
 * bir_load_buffer, whose difference is the model build — allocates
 * (sba_allocate_module: the report's lower bound, peak used, spills and
 * seconds per phase), verifies the result with sba_verify_module, and for a
 * CSV instance that fits exports the packing and checks it with
 * sba_csv_check. The results go to bench/results.md and bench/results.csv
 * under the source tree, and the markdown is printed. Growth exponents are
 * least-squares slopes of log(time) and log(peak RSS) against log(tensors)
 * over the in-memory kernels, with the slope between each pair of sizes.
 *
 * usage: bench_alloc [--source-dir DIR] [--sizes N,...] [--api-sizes N,...]
 *                    [--planted-sizes N,...] [--planted-seeds N] [--planted-first-seed N]
 *                    [--strategies S,...] [--only TEXT] [--timeout SECONDS]
 *                    [--no-write]
 * The source directory defaults to $SBALLOC_SOURCE_DIR, else ".". */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/json.h"
#include "base/rng.h"
#include "sballoc/alloc.h"
#include "sballoc/csv.h"
#include "sballoc/gen.h"
#include "sballoc/verify.h"

enum { MAX_SIZES = 8, MAX_CASES = 256, MAX_RUNS = MAX_CASES * SBA_STRATEGY_COUNT };

typedef enum case_kind {
    CASE_CSV = 0, CASE_EXAMPLE, CASE_GEN_JSON, CASE_GEN_API, CASE_PLANTED, CASE_SUBSET, CASE_STACK, CASE_KINDS
} case_kind;

static const char *const kind_names[CASE_KINDS] = {"minimalloc", "example", "gen-json", "gen-api", "planted",
                                                   "minimalloc-subset", "minimalloc-stack"};
static const char *const kind_titles[CASE_KINDS] = {
    "MiniMalloc instances (CSV import)",
    "Examples (every .json file in examples/)",
    "Generated kernels through JSON (`sballoc gen`, loaded from a file)",
    "Generated kernels through the C API (in memory, no JSON)",
    "Planted packing instances (`sballoc gen --planted`: a packing exists by construction)",
    "MiniMalloc's instances with 2 % of their buffers removed (seeded: a subset of a packable instance packs)",
    ("Two of MiniMalloc's instances stacked (sizes halved, the second above the first, shifted in time by a fifth "
     "or two of its span, or not: packable)"),
};
/* The buffers a MiniMalloc subset leaves out, in percent. */
enum { SUBSET_DROP = 2 };
enum { PLANTED_TIMEOUT = 30, PLANTED_CAPACITY = 65536 };

/* The planted families: zero slack, 1-D and 2-D; 2-D dense in time (its
 * span a sixth of the tensor count, so many more are live at once); and
 * 1-D with 5 % of the tiling left out, slack as in MiniMalloc's challenging
 * instances, where the guillotine decomposition does not apply, also at
 * their scale (1 MiB, tensors of at least 1 KiB over 1,024 steps) with
 * long-lived tensors as theirs (`--elongation 8`); walls, 1-D and 2-D,
 * zero slack with no guillotine cuts, and 1-D walls with 2 % left out. */
typedef struct planted_family {
    const char *name, *title;
    const char *heights; /* the mix (`--heights`) */
    uint32_t holes;
    uint32_t span_div; /* span = tensors / span_div; 0: the default span (or `span`) */
    bool walls;
    uint32_t span;       /* time steps, where not span_div (0: the default) */
    int64_t capacity;    /* 0: PLANTED_CAPACITY */
    int64_t min_size;    /* 0: the generator's */
    uint32_t elongation; /* `--elongation` (0: none) */
} planted_family;
static const planted_family PLANTED[] = {
    {.name = "1-D", .title = "1-D", .heights = "full"},
    {.name = "2-D", .title = "2-D (q:h:f 1:1:1)", .heights = "q:1,h:1,f:1"},
    {.name = "2-D dense", .title = "2-D, dense (span tensors / 6)", .heights = "q:1,h:1,f:1", .span_div = 6},
    {.name = "2-D quarter-heavy", .title = "2-D, quarter-heavy (q:h:f 3:1:1, span tensors / 4)",
     .heights = "q:3,h:1,f:1", .span_div = 4},
    {.name = "1-D 5% holes", .title = "1-D, 5 % holes", .heights = "full", .holes = 5},
    {.name = "1-D long 5% holes",
     .title = "1-D, 5 % holes, long-lived at MiniMalloc's scale (`--elongation 8`, 1 MiB, 1,024 steps)",
     .heights = "full", .holes = 5, .span = 1024, .capacity = 1048576, .min_size = 1024, .elongation = 8},
    /* MiniMalloc's challenging instances hold 154-296 buffers of a median
     * 2-8 % of the 1 MiB, over 72-114 distinct times */
    {.name = "1-D MiniMalloc sizes 5% holes",
     .title = "1-D, 5 % holes at MiniMalloc's sizes (`--min-size 16384 --elongation 4`, 1 MiB, span tensors / 3)",
     .heights = "full", .holes = 5, .span_div = 3, .capacity = 1048576, .min_size = 16384, .elongation = 4},
    {.name = "1-D walls", .title = "1-D walls (`--walls`, span tensors / 4)", .heights = "full", .walls = true},
    {.name = "2-D walls", .title = "2-D walls (`--walls`, q:h:f 1:1:1, span tensors / 4)", .heights = "q:1,h:1,f:1",
     .walls = true},
    {.name = "1-D walls 2% holes", .title = "1-D walls, 2 % holes (`--walls --holes 2`, span tensors / 4)",
     .heights = "full", .holes = 2, .walls = true},
};
enum { PLANTED_FAMILIES = sizeof PLANTED / sizeof PLANTED[0] };

typedef struct bench_case {
    case_kind kind;
    char name[96];
    char path[1024];
    int64_t capacity;     /* CSV, subsets and stacks only */
    uint32_t tensors;     /* generated only */
    uint64_t seed;        /* planted and subsets only */
    char upper[1024];     /* stacks: the instance on top (path the one below) */
    uint8_t shift;        /* stacks: the one on top shifted in time by shift / 5 of its span */
    const planted_family *family; /* planted only */
} bench_case;

typedef enum run_status { RUN_OK = 0, RUN_LOAD_FAILED, RUN_ALLOC_FAILED, RUN_CRASHED, RUN_TIMEOUT } run_status;

/* What a child sends back: plain data, fixed size. */
typedef struct result {
    uint32_t kase, strategy;
    uint32_t status;             /* run_status */
    char message[240];
    uint64_t sets;               /* memory-location sets in the module */
    uint32_t nodes, points, iterations;
    uint64_t edges;
    int64_t capacity, lower_bound, peak_used;
    uint32_t spilled;
    uint64_t spilled_bytes;
    uint64_t search_nodes;
    uint32_t search_outcome;
    double parse_s, build_s;     /* JSON parse alone; model build (load - parse, import, or generation) */
    bool has_parse;
    double alloc_s, phase_s[SBA_PHASE_COUNT];
    int verified;                /* 0 not run, 1 proved, 2 ok with sampled loops, -1 failed */
    double verify_s;
    char verify_message[160];
    int checked;                 /* CSV: 0 not run, 1 valid packing, -1 rejected */
    uint32_t stage;              /* reached: 0 start, 1 loaded, 2 allocated */
    long rss_loaded_kb, rss_peak_kb;
    long rss_base_kb, rss_alloc_kb; /* resident after the load; peak after the allocation */
} result;

typedef struct options {
    const char *source;
    uint32_t sizes[MAX_SIZES], nsizes;
    uint32_t api_sizes[MAX_SIZES], napi;
    uint32_t planted_sizes[MAX_SIZES], nplanted, planted_seeds, first_seed;
    bool strategy_on[SBA_STRATEGY_COUNT];
    const char *only;
    unsigned timeout;
    bool write;
} options;

/* ---- helpers ------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Resident set now, in kilobytes (Linux /proc/self/statm); 0 when unknown. */
static long resident_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* kilobytes on Linux */
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *len = n;
    return buf;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The capacity a MiniMalloc file name carries: the number before ".csv". */
static int64_t capacity_of(const char *name)
{
    size_t n = strlen(name);
    if (n < 5 || strcmp(name + n - 4, ".csv")) return 0;
    const char *end = name + n - 4, *s = end;
    while (s > name && s[-1] >= '0' && s[-1] <= '9') s--;
    if (s == end || (s > name && s[-1] != '.')) return 0;
    return strtoll(s, NULL, 10);
}

static bool parse_list(const char *s, uint32_t *out, uint32_t *n)
{
    *n = 0;
    while (*s) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || end == s || v < 1 || v > 100000000 || *n == MAX_SIZES) return false;
        out[(*n)++] = (uint32_t)v;
        if (*end == ',') end++;
        else if (*end) return false;
        s = end;
    }
    return true;
}

/* ---- one run, in a child ------------------------------------------------ */

static void fail(result *r, uint32_t status, const char *what, const sba_error *err)
{
    r->status = status;
    if (err && err->line > 0)
        snprintf(r->message, sizeof r->message, "%s: %d:%d: %.180s", what, err->line, err->column, err->message);
    else if (err)
        snprintf(r->message, sizeof r->message, "%s: %.200s", what, err->message);
    else
        snprintf(r->message, sizeof r->message, "%s", what);
}

/* Leaves out SUBSET_DROP percent of a CSV's buffers (every line after the
 * header), chosen by a stream of `seed`, in place; the new length. */
static size_t drop_rows(char *text, size_t len, uint64_t seed)
{
    sba_rng rng = {seed * 0x9E3779B97F4A7C15ull};
    size_t in = 0, out = 0;
    for (bool header = true; in < len; header = false) {
        size_t end = in;
        while (end < len && text[end] != '\n') end++;
        if (end < len) end++; /* with its newline */
        if (header || sba_rng_next(&rng) % 100 >= SUBSET_DROP) {
            memmove(text + out, text + in, end - in);
            out += end - in;
        }
        in = end;
    }
    text[out] = '\0';
    return out;
}

/* Two MiniMalloc CSV texts as one (rows id,lower,upper,size; their ids
 * renamed): every size halved, the second's rows shifted in time by `shift`
 * fifths of its span. NULL when a row does not read. */
static char *stack_rows(const char *lo, const char *hi, uint32_t shift, size_t *len)
{
    size_t cap = 2 * (strlen(lo) + strlen(hi)) + 64, n = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    n += (size_t)snprintf(out, cap, "id,lower,upper,size\n");
    long long dt = 0;
    for (int half = 0; half < 2; half++) {
        const char *t = half ? hi : lo;
        if (half && shift) {
            long long last = 0, a, b, z;
            for (const char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n'))
                if (sscanf(l + 1, "%*[^,],%lld,%lld,%lld", &a, &b, &z) == 3 && b > last) last = b;
            dt = last * shift / 5 / 1024 * 1024;
        }
        uint32_t row = 0;
        for (const char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
            long long a, b, z;
            if (sscanf(l + 1, "%*[^,],%lld,%lld,%lld", &a, &b, &z) != 3 || n + 96 > cap) {
                free(out);
                return NULL;
            }
            n += (size_t)snprintf(out + n, cap - n, "%c%u,%lld,%lld,%lld\n", half ? 'b' : 'a', row++, a + dt, b + dt, z / 2);
        }
    }
    *len = n;
    return out;
}

static bir_module *load(const bench_case *c, result *r)
{
    sba_error err;
    if (c->kind == CASE_PLANTED) {
        sba_planted_options p;
        sba_planted_defaults(&p);
        p.seed = c->seed;
        p.tensors = c->tensors;
        const planted_family *f = c->family;
        p.capacity = f->capacity ? f->capacity : PLANTED_CAPACITY;
        if (f->min_size) p.min_size = f->min_size;
        p.heights = f->heights;
        p.holes = f->holes;
        p.walls = f->walls;
        p.elongation = f->elongation;
        p.span = f->span_div ? c->tensors / f->span_div : f->span;
        double t0 = now();
        bir_module *m = sba_gen_planted(&p, false, NULL, &err);
        r->build_s = now() - t0;
        if (!m) fail(r, RUN_LOAD_FAILED, "gen --planted", &err);
        return m;
    }
    if (c->kind == CASE_GEN_API) {
        sba_gen_options g;
        sba_gen_defaults(&g);
        g.tensors = c->tensors;
        double t0 = now();
        bir_module *m = sba_gen_module(&g, NULL, &err);
        r->build_s = now() - t0;
        if (!m) fail(r, RUN_LOAD_FAILED, "gen", &err);
        return m;
    }
    size_t len;
    char *text = read_all(c->path, &len);
    if (!text) {
        fail(r, RUN_LOAD_FAILED, "cannot read the input", NULL);
        return NULL;
    }
    if (c->kind == CASE_SUBSET) len = drop_rows(text, len, c->seed);
    if (c->kind == CASE_STACK) {
        size_t ulen;
        char *upper = read_all(c->upper, &ulen), *both = upper ? stack_rows(text, upper, c->shift, &len) : NULL;
        free(upper);
        free(text);
        if (!both) {
            fail(r, RUN_LOAD_FAILED, "cannot read or stack the inputs", NULL);
            return NULL;
        }
        text = both;
    }
    bir_module *m;
    if (c->kind == CASE_CSV || c->kind == CASE_SUBSET || c->kind == CASE_STACK) {
        double t0 = now();
        m = sba_csv_import(text, len, c->capacity, NULL, &err);
        r->build_s = now() - t0;
        if (!m) fail(r, RUN_LOAD_FAILED, "import", &err);
    } else {
        double t0 = now();
        sba_json_doc *doc = sba_json_parse(text, len, 0, NULL, NULL, NULL);
        r->parse_s = now() - t0;
        r->has_parse = true;
        sba_json_doc_free(doc);
        t0 = now();
        m = bir_load_buffer(text, len, c->path, NULL, &err);
        double load_s = now() - t0;
        r->build_s = load_s > r->parse_s ? load_s - r->parse_s : 0;
        if (!m) fail(r, RUN_LOAD_FAILED, "load", &err);
    }
    free(text);
    return m;
}

static void summarize(const sba_alloc_report *rep, result *r)
{
    for (uint32_t f = 0; f < rep->nfns; f++) {
        const sba_function_report *fr = &rep->fns[f];
        r->nodes += fr->nodes;
        r->points += fr->points;
        r->edges += fr->edges;
        if (fr->iterations > r->iterations) r->iterations = fr->iterations;
        if (fr->capacity > r->capacity) r->capacity = fr->capacity;
        if (fr->lower_bound_total > r->lower_bound) r->lower_bound = fr->lower_bound_total;
        for (uint32_t q = 0; q < SBA_BANDS; q++)
            if (fr->high_water[q] > r->peak_used) r->peak_used = fr->high_water[q];
        r->spilled += fr->spilled;
        r->spilled_bytes += fr->spilled_bytes;
        r->search_nodes += fr->search_nodes;
        if (fr->search_outcome > r->search_outcome) r->search_outcome = fr->search_outcome;
        for (uint32_t p = 0; p < SBA_PHASE_COUNT; p++) r->phase_s[p] += fr->seconds[p];
    }
}

static void verify(bir_module *m, const bench_case *c, result *r)
{
    sba_error err;
    sba_verify_report vr;
    double t0 = now();
    sba_status st = sba_verify_module_opts(m, NULL, &vr, &err);
    r->verify_s = now() - t0;
    r->verified = st != SBA_OK ? -1 : vr.exhaustive ? 1 : 2;
    if (st != SBA_OK) snprintf(r->verify_message, sizeof r->verify_message, "%.150s", err.message);
    if ((c->kind != CASE_CSV && c->kind != CASE_SUBSET && c->kind != CASE_STACK) || r->spilled) return;
    char *text;
    size_t len;
    sba_csv_check_report cr;
    if (sba_csv_export(m, &text, &len, &err) == SBA_OK) {
        st = sba_csv_check(text, len, c->capacity, &cr, NULL, &err);
        bir_free_text(m, text);
    } else {
        st = err.code;
    }
    r->checked = st == SBA_OK ? 1 : -1;
    if (st != SBA_OK && r->verified >= 0)
        snprintf(r->verify_message, sizeof r->verify_message, "csv: %.150s", err.message);
}

static void send(int fd, const result *r)
{
    ssize_t w = write(fd, r, sizeof *r);
    if (w != (ssize_t)sizeof *r) _exit(1);
}

/* Sends the result after the load and after the allocation, so that a run
 * stopped later still says what it did, and at the end. */
static void run_one(const bench_case *c, uint32_t strategy, result *r, int fd)
{
    bir_module *m = load(c, r);
    if (!m) return;
    for (uint32_t f = 0; f < m->nfns; f++) r->sets += m->fns[f]->nsets;
    r->capacity = m->target.sbuf_bytes;
    r->rss_loaded_kb = r->rss_peak_kb = peak_rss_kb();
    r->rss_base_kb = resident_kb();
    r->stage = 1;
    send(fd, r);
    sba_alloc_options o = {.strategy = strategy};
    sba_alloc_report rep;
    sba_error err;
    double t0 = now();
    sba_status st = sba_allocate_module(m, &o, &rep, &err);
    r->alloc_s = now() - t0;
    summarize(&rep, r);
    sba_alloc_report_free(&rep);
    r->stage = 2;
    r->rss_peak_kb = r->rss_alloc_kb = peak_rss_kb();
    send(fd, r);
    if (st != SBA_OK) fail(r, RUN_ALLOC_FAILED, "alloc", &err);
    else verify(m, c, r);
    bir_module_free(m);
    r->rss_peak_kb = peak_rss_kb();
}

static const char *const stage_names[] = {"the load", "the allocation", "the verification"};

/* Runs run_one in a child with a time limit; the result comes back through a pipe. */
static void run_in_child(const bench_case *c, uint32_t kase, uint32_t strategy, unsigned timeout, result *r)
{
    memset(r, 0, sizeof *r);
    r->kase = kase;
    r->strategy = strategy;
    int fd[2];
    if (pipe(fd) != 0) {
        perror("bench_alloc: pipe");
        exit(1);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_alloc: fork");
        exit(1);
    }
    if (pid == 0) {
        close(fd[0]);
        /* CPU time, so that the machine's other load does not cut a run short;
         * the wall-clock alarm only catches a run that stopped making progress. */
        struct rlimit rl = {timeout, timeout + 5};
        setrlimit(RLIMIT_CPU, &rl);
        alarm(4 * timeout);
        run_one(c, strategy, r, fd[1]);
        r->status |= 0x100; /* the final record */
        send(fd[1], r);
        _exit(0);
    }
    close(fd[1]);
    result rec;
    size_t got = 0;
    bool done = false;
    for (;;) {
        ssize_t n = read(fd[0], (char *)&rec + got, sizeof rec - got);
        if (n <= 0) break;
        got += (size_t)n;
        if (got < sizeof rec) continue;
        done = (rec.status & 0x100) != 0;
        rec.status &= 0xff;
        *r = rec;
        got = 0;
    }
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (done) return;
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (sig == SIGXCPU || sig == SIGKILL) {
        r->status = RUN_TIMEOUT;
        snprintf(r->message, sizeof r->message, "stopped after %u s of CPU in %s", timeout, stage_names[r->stage]);
    } else if (sig == SIGALRM) {
        r->status = RUN_TIMEOUT;
        snprintf(r->message, sizeof r->message, "stopped after %u s of wall time in %s", 4 * timeout,
                 stage_names[r->stage]);
    } else {
        r->status = RUN_CRASHED;
        snprintf(r->message, sizeof r->message, "the run %s %d",
                 WIFSIGNALED(status) ? "died of signal" : "exited with status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
}

/* Generates a kernel and saves it as JSON, in a child (the parent stays small). */
static bool write_gen_json(uint32_t tensors, const char *path, double *seconds)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        sba_gen_options g;
        sba_gen_defaults(&g);
        g.tensors = tensors;
        sba_error err;
        bir_module *m = sba_gen_module(&g, NULL, &err);
        if (!m || bir_save_file(m, path, &err) != SBA_OK) {
            fprintf(stderr, "bench_alloc: gen %u: %s\n", tensors, err.message);
            _exit(1);
        }
        bir_module_free(m);
        _exit(0);
    }
    double t0 = now();
    int status = 0;
    waitpid(pid, &status, 0);
    *seconds = now() - t0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- output ------------------------------------------------------------- */

static void fmt_int(char *buf, size_t size, int64_t v)
{
    char raw[32];
    snprintf(raw, sizeof raw, "%lld", (long long)(v < 0 ? -v : v));
    size_t n = strlen(raw), k = 0;
    if (v < 0 && k + 1 < size) buf[k++] = '-';
    for (size_t i = 0; i < n && k + 2 < size; i++) {
        if (i && (n - i) % 3 == 0) buf[k++] = ',';
        buf[k++] = raw[i];
    }
    buf[k] = '\0';
}

static const char *outcome(const result *r, char *buf, size_t size)
{
    char b[32];
    switch (r->status) {
    case RUN_OK:
        if (!r->spilled) return "fits";
        fmt_int(b, sizeof b, (int64_t)r->spilled_bytes);
        snprintf(buf, size, "spilled %u (%s B)", r->spilled, b);
        return buf;
    case RUN_ALLOC_FAILED: snprintf(buf, size, "failed: %.90s", r->message); return buf;
    case RUN_LOAD_FAILED: snprintf(buf, size, "load failed: %.90s", r->message); return buf;
    default: snprintf(buf, size, "%.100s", r->message); return buf;
    }
}

static const char *verdict(const result *r, char *buf, size_t size)
{
    if (r->verified == 0) return "—";
    if (r->verified < 0) {
        snprintf(buf, size, "FAILED: %.80s", r->verify_message);
        return buf;
    }
    snprintf(buf, size, "%s %.1f ms%s", r->verified == 1 ? "ok" : "ok (sampled)", r->verify_s * 1e3,
             r->checked > 0 ? ", csv valid" : r->checked < 0 ? ", CSV REJECTED" : "");
    return buf;
}

static void md_cell_ms(FILE *f, double s, bool have)
{
    if (have) fprintf(f, " %.1f |", s * 1e3);
    else fprintf(f, " — |");
}

static void md_table(FILE *f, const bench_case *cases, const result *res, uint32_t nres, case_kind kind)
{
    bool any = false;
    for (uint32_t i = 0; i < nres && !any; i++) any = cases[res[i].kase].kind == kind;
    if (!any) return;
    fprintf(f, "\n### %s\n\n", kind_titles[kind]);
    fprintf(f, "| input | sets | strategy | lower bound | peak used | capacity | result | JSON parse ms | "
               "model build ms | alloc ms | verify | peak RSS MB | alloc memory B/set |\n");
    fprintf(f, "|---|---:|---|---:|---:|---:|---|---:|---:|---:|---|---:|---:|\n");
    for (uint32_t i = 0; i < nres; i++) {
        const result *r = &res[i];
        const bench_case *c = &cases[r->kase];
        if (c->kind != kind) continue;
        char sets[32], lb[32], pk[32], cap[32], oc[160], vd[200];
        if (r->sets) fmt_int(sets, sizeof sets, (int64_t)r->sets);
        else snprintf(sets, sizeof sets, "—");
        fmt_int(lb, sizeof lb, r->lower_bound);
        fmt_int(pk, sizeof pk, r->peak_used);
        if (r->capacity) fmt_int(cap, sizeof cap, r->capacity);
        else snprintf(cap, sizeof cap, "—");
        bool ran = r->status == RUN_OK || r->status == RUN_ALLOC_FAILED || r->stage == 2;
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s |", c->name, sets, sba_strategy_name(r->strategy),
                ran ? lb : "—", ran && r->status != RUN_ALLOC_FAILED ? pk : "—", cap, outcome(r, oc, sizeof oc));
        md_cell_ms(f, r->parse_s, r->has_parse && r->sets);
        md_cell_ms(f, r->build_s, r->sets);
        md_cell_ms(f, r->alloc_s, ran);
        fprintf(f, " %s | %.1f |", verdict(r, vd, sizeof vd), (double)r->rss_peak_kb / 1024.0);
        /* the allocator's own memory: its peak over what the loaded model held */
        if (r->stage == 2 && r->sets && r->rss_base_kb && r->rss_alloc_kb >= r->rss_base_kb)
            fprintf(f, " %.0f |\n", (double)(r->rss_alloc_kb - r->rss_base_kb) * 1024.0 / r->sets);
        else
            fprintf(f, " — |\n");
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One summary row: packed with no spill, median and largest time of the runs
 * `pick` chooses (a stopped run counts PLANTED_TIMEOUT seconds). */
static void md_summary_row(FILE *f, const char *family, const char *size, const bench_case *cases,
                           const result *res, uint32_t nres, bool (*pick)(const bench_case *, const void *),
                           const void *ud)
{
    uint32_t packed = 0, runs = 0;
    double t[MAX_RUNS];
    for (uint32_t i = 0; i < nres; i++) {
        if (!pick(&cases[res[i].kase], ud)) continue;
        packed += res[i].status == RUN_OK && !res[i].spilled && res[i].verified > 0;
        t[runs++] = res[i].status == RUN_TIMEOUT ? PLANTED_TIMEOUT : res[i].alloc_s;
    }
    if (!runs) return;
    qsort(t, runs, sizeof *t, cmp_double);
    double med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
    fprintf(f, "| %s | %s | %u/%u | %.2f s | %.2f s |\n", family, size, packed, runs, med, t[runs - 1]);
}

typedef struct planted_pick {
    uint32_t fam, size;
} planted_pick;

static bool is_planted(const bench_case *c, const void *ud)
{
    const planted_pick *pp = ud;
    return c->kind == CASE_PLANTED && c->family == &PLANTED[pp->fam] && c->tensors == pp->size;
}

static bool is_subset(const bench_case *c, const void *ud) { return c->kind == CASE_SUBSET; }
static bool is_stack(const bench_case *c, const void *ud) { return c->kind == CASE_STACK; }

/* Per planted family and size, and over the MiniMalloc subsets: packed with
 * no spill, median and largest time. */
static void md_planted_summary(FILE *f, const bench_case *cases, const result *res, uint32_t nres)
{
    bool any = false;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < nres; i++) {
        any |= cases[res[i].kase].kind == CASE_PLANTED || cases[res[i].kase].kind == CASE_SUBSET ||
               cases[res[i].kase].kind == CASE_STACK;
        if (cases[res[i].kase].kind != CASE_SUBSET || !res[i].sets) continue;
        if (res[i].sets < lo) lo = res[i].sets;
        if (res[i].sets > hi) hi = res[i].sets;
    }
    if (!any) return;
    fprintf(f, "\n#### Instances that pack by construction, summary\n\n| family | tensors | packed, no spill | median time | "
               "largest time |\n|---|---:|---:|---:|---:|\n");
    for (uint32_t fam = 0; fam < PLANTED_FAMILIES; fam++)
        for (uint32_t size = 0; size <= 1u << 30;) {
            uint32_t next = UINT32_MAX;
            for (uint32_t i = 0; i < nres; i++) {
                const bench_case *c = &cases[res[i].kase];
                planted_pick any_size = {fam, c->tensors};
                if (is_planted(c, &any_size) && c->tensors > size && c->tensors < next) next = c->tensors;
            }
            char sz[16];
            snprintf(sz, sizeof sz, "%u", size);
            md_summary_row(f, PLANTED[fam].title, sz, cases, res, nres, is_planted, &(planted_pick){fam, size});
            if (next == UINT32_MAX) break;
            size = next;
        }
    char sz[48];
    snprintf(sz, sizeof sz, "%llu–%llu", (unsigned long long)lo, (unsigned long long)hi);
    md_summary_row(f, "MiniMalloc's, 2 % of the buffers left out", sz, cases, res, nres, is_subset, NULL);
    lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < nres; i++) {
        if (cases[res[i].kase].kind != CASE_STACK || !res[i].sets) continue;
        if (res[i].sets < lo) lo = res[i].sets;
        if (res[i].sets > hi) hi = res[i].sets;
    }
    snprintf(sz, sizeof sz, "%llu–%llu", (unsigned long long)lo, (unsigned long long)hi);
    md_summary_row(f, "MiniMalloc's, two stacked", sz, cases, res, nres, is_stack, NULL);
}

static void md_phases(FILE *f, const bench_case *cases, const result *res, uint32_t nres)
{
    fprintf(f, "\n### Time per phase (ms)\n\n| input | strategy |");
    for (uint32_t p = 0; p < SBA_PHASE_COUNT; p++) fprintf(f, " %s |", sba_phase_name(p));
    fprintf(f, " total |\n|---|---|");
    for (uint32_t p = 0; p <= SBA_PHASE_COUNT; p++) fprintf(f, "---:|");
    fprintf(f, "\n");
    for (uint32_t i = 0; i < nres; i++) {
        const result *r = &res[i];
        if (r->status != RUN_OK && r->status != RUN_ALLOC_FAILED && r->stage < 2) continue;
        fprintf(f, "| %s | %s |", cases[r->kase].name, sba_strategy_name(r->strategy));
        for (uint32_t p = 0; p < SBA_PHASE_COUNT; p++) fprintf(f, " %.2f |", r->phase_s[p] * 1e3);
        fprintf(f, " %.2f |\n", r->alloc_s * 1e3);
    }
}

/* Least-squares slope of log(y) on log(x); NAN with fewer than two points. */
static double slope(const double *x, const double *y, uint32_t n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (x[i] <= 0 || y[i] <= 0) continue;
        double lx = log(x[i]), ly = log(y[i]);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, k++;
    }
    if (k < 2 || k * sxx - sx * sx <= 0) return NAN;
    return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

typedef double (*metric_fn)(const result *r);
static double m_alloc(const result *r) { return r->alloc_s; }
static double m_verify(const result *r) { return r->verify_s; }
static double m_rss(const result *r) { return (double)r->rss_peak_kb; }
static double m_load(const result *r) { return r->parse_s + r->build_s; }

/* A run whose allocation finished, even if its verification was stopped. */
static bool allocated(const result *r) { return r->status == RUN_OK || (r->status == RUN_TIMEOUT && r->stage == 2); }

static void md_growth_row(FILE *f, const bench_case *cases, const result *res, uint32_t nres, case_kind kind,
                          uint32_t strategy, const char *label, metric_fn metric)
{
    double x[MAX_SIZES], y[MAX_SIZES];
    uint32_t n = 0;
    for (uint32_t i = 0; i < nres && n < MAX_SIZES; i++) {
        const result *r = &res[i];
        bool known = metric == m_verify ? r->status == RUN_OK : allocated(r);
        if (cases[r->kase].kind != kind || r->strategy != strategy || !known) continue;
        x[n] = cases[r->kase].tensors;
        y[n++] = metric(r);
    }
    if (n < 2) return;
    fprintf(f, "| %s | %s | %.2f |", sba_strategy_name(strategy), label, slope(x, y, n));
    for (uint32_t i = 1; i < n; i++)
        fprintf(f, " %u→%u: %.2f%s", (unsigned)x[i - 1], (unsigned)x[i], slope(x + i - 1, y + i - 1, 2),
                i + 1 < n ? "," : "");
    fprintf(f, " |\n");
}

/* The fitted exponent of each phase's time over the in-memory kernels, per
 * strategy: a phase far above 1 is the one that stops scaling. */
static void md_phase_growth(FILE *f, const bench_case *cases, const result *res, uint32_t nres, const options *o)
{
    fprintf(f, "\nPer phase (in-memory kernels; phases under 1 ms at every size left out):\n\n| phase |");
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++)
        if (o->strategy_on[s]) fprintf(f, " %s |", sba_strategy_name(s));
    fprintf(f, "\n|---|");
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++)
        if (o->strategy_on[s]) fprintf(f, "---:|");
    fprintf(f, "\n");
    for (uint32_t p = 0; p < SBA_PHASE_COUNT; p++) {
        char row[512];
        size_t len = (size_t)snprintf(row, sizeof row, "| %s |", sba_phase_name(p));
        bool shown = false;
        for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
            if (!o->strategy_on[s]) continue;
            double x[MAX_SIZES], y[MAX_SIZES];
            uint32_t n = 0;
            bool big = false;
            for (uint32_t i = 0; i < nres && n < MAX_SIZES; i++) {
                const result *r = &res[i];
                if (cases[r->kase].kind != CASE_GEN_API || r->strategy != s || !allocated(r)) continue;
                x[n] = cases[r->kase].tensors;
                y[n++] = r->phase_s[p];
                big |= r->phase_s[p] >= 1e-3;
            }
            double e = n >= 2 && big ? slope(x, y, n) : NAN;
            shown |= !isnan(e);
            len += (size_t)snprintf(row + len, sizeof row - len, isnan(e) ? " — |" : " %.2f |", e);
        }
        if (shown) fprintf(f, "%s\n", row);
    }
}

static void md_growth(FILE *f, const bench_case *cases, const result *res, uint32_t nres, const options *o)
{
    fprintf(f, "\n### Growth exponents\n\n"
               "Slope of log(quantity) against log(tensors) (1 = linear), least squares over the sizes, then "
               "between consecutive sizes. Allocation time, verification time and peak RSS are from the "
               "in-memory kernels; the JSON load (parse + build) from the kernels read from JSON. The peak RSS "
               "of the smallest kernels is mostly the process itself, which flattens the first slopes.\n\n"
               "| strategy | quantity | fitted exponent | between sizes |\n|---|---|---:|---|\n");
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        if (!o->strategy_on[s]) continue;
        md_growth_row(f, cases, res, nres, CASE_GEN_API, s, "allocation time", m_alloc);
        md_growth_row(f, cases, res, nres, CASE_GEN_API, s, "verification time", m_verify);
        md_growth_row(f, cases, res, nres, CASE_GEN_API, s, "peak RSS", m_rss);
        md_growth_row(f, cases, res, nres, CASE_GEN_JSON, s, "JSON load time", m_load);
    }
    md_phase_growth(f, cases, res, nres, o);
}

static void write_markdown(FILE *f, const bench_case *cases, const result *res, uint32_t nres, const options *o,
                           const char *notes, double wall)
{
    fprintf(f, "## Allocation benchmark (`make bench`)\n\n"
               "Every strategy on every workload; each run in its own process. *lower bound*: the peak over "
               "program points of the live SB bytes per partition (`lower_bound_total`); *peak used*: the "
               "highest byte any placement reaches (`high_water`); *result*: fits, or the tensors spilled "
               "to DRAM and their bytes per partition; *model build*: `bir_load_buffer` minus the "
               "JSON parse (base/json) it contains, the CSV import, or the generation; *verify*: `sba_verify_module` "
               "(\"ok\" is a proof, \"sampled\" ran long loops in part), plus for CSV instances the exported "
               "packing checked by `sba_csv_check`; *alloc memory B/set*: the allocation's peak resident set "
               "over the resident set of the loaded model, per memory-location set (an upper bound on what the "
               "allocator itself holds). Each run may use %u s of CPU; a run stopped there says so. "
               "Release build, %ld cores online, %.0f s in all.\n",
               o->timeout, sysconf(_SC_NPROCESSORS_ONLN), wall);
    if (notes[0]) fprintf(f, "\n%s", notes);
    for (int k = 0; k < CASE_KINDS; k++) md_table(f, cases, res, nres, (case_kind)k);
    md_planted_summary(f, cases, res, nres);
    md_phases(f, cases, res, nres);
    md_growth(f, cases, res, nres, o);
}

static void write_csv(FILE *f, const bench_case *cases, const result *res, uint32_t nres)
{
    fprintf(f, "kind,input,tensors,sets,nodes,points,edges,strategy,capacity,lower_bound,peak_used,status,spilled,"
               "spilled_bytes,iterations,search_nodes,search_outcome,parse_ms,build_ms,alloc_ms");
    for (uint32_t p = 0; p < SBA_PHASE_COUNT; p++) fprintf(f, ",%s_ms", sba_phase_name(p));
    fprintf(f, ",verify,verify_ms,csv_check,rss_loaded_kb,rss_peak_kb,rss_base_kb,rss_alloc_kb,message\n");
    static const char *const st[] = {"ok", "load-failed", "alloc-failed", "crashed", "timeout"};
    for (uint32_t i = 0; i < nres; i++) {
        const result *r = &res[i];
        const bench_case *c = &cases[r->kase];
        fprintf(f, "%s,%s,%u,%llu,%u,%u,%llu,%s,%lld,%lld,%lld,%s,%u,%llu,%u,%llu,%u,%.3f,%.3f,%.3f",
                kind_names[c->kind], c->name, c->tensors, (unsigned long long)r->sets, r->nodes, r->points,
                (unsigned long long)r->edges, sba_strategy_name(r->strategy), (long long)r->capacity,
                (long long)r->lower_bound, (long long)r->peak_used,
                st[r->status], r->spilled,
                (unsigned long long)r->spilled_bytes, r->iterations, (unsigned long long)r->search_nodes,
                r->search_outcome, r->has_parse ? r->parse_s * 1e3 : 0.0, r->build_s * 1e3, r->alloc_s * 1e3);
        for (uint32_t p = 0; p < SBA_PHASE_COUNT; p++) fprintf(f, ",%.3f", r->phase_s[p] * 1e3);
        const char *v = r->verified == 1 ? "proved" : r->verified == 2 ? "sampled" : r->verified < 0 ? "failed" : "";
        const char *chk = r->checked > 0 ? "valid" : r->checked < 0 ? "rejected" : "";
        char msg[sizeof r->message];
        snprintf(msg, sizeof msg, "%s", r->message[0] ? r->message : r->verify_message);
        for (char *p = msg; *p; p++)
            if (*p == ',' || *p == '"' || *p == '\n') *p = ';';
        fprintf(f, ",%s,%.3f,%s,%ld,%ld,%ld,%ld,%s\n", v, r->verify_s * 1e3, chk, r->rss_loaded_kb, r->rss_peak_kb,
                r->rss_base_kb, r->rss_alloc_kb, msg);
    }
}

/* ---- the workloads ------------------------------------------------------ */

static bool wanted(const options *o, const char *name) { return !o->only || strstr(name, o->only); }

static uint32_t add_glob(bench_case *cases, uint32_t n, const options *o, const char *pattern, case_kind kind)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) return n;
    for (size_t i = 0; i < g.gl_pathc && n < MAX_CASES; i++) {
        const char *name = base_name(g.gl_pathv[i]);
        if (!wanted(o, name)) continue;
        bench_case *c = &cases[n];
        memset(c, 0, sizeof *c);
        c->kind = kind;
        snprintf(c->name, sizeof c->name, "%s", name);
        snprintf(c->path, sizeof c->path, "%s", g.gl_pathv[i]);
        if (kind == CASE_CSV && !(c->capacity = capacity_of(name))) continue;
        n++;
    }
    globfree(&g);
    return n;
}

/* MiniMalloc's challenging instances (capacity 1 MiB), each with
 * SUBSET_DROP percent of its buffers left out, the planted families' seeds. */
static uint32_t add_subsets(bench_case *cases, uint32_t n, const options *o, const char *pattern)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) return n;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *name = base_name(g.gl_pathv[i]);
        if (capacity_of(name) != 1048576) continue;
        for (uint32_t seed = o->first_seed; seed < o->first_seed + o->planted_seeds && n < MAX_CASES; seed++) {
            bench_case *c = &cases[n];
            memset(c, 0, sizeof *c);
            c->kind = CASE_SUBSET;
            c->capacity = 1048576;
            c->seed = seed;
            snprintf(c->name, sizeof c->name, "%.60s, %u %% left out, seed %u", name, SUBSET_DROP, seed);
            snprintf(c->path, sizeof c->path, "%s", g.gl_pathv[i]);
            if (wanted(o, c->name)) n++;
        }
    }
    globfree(&g);
    return n;
}

/* Every pair of MiniMalloc's challenging instances stacked (stack_rows):
 * once unshifted, and in each order shifted by one and two fifths. */
static uint32_t add_stacks(bench_case *cases, uint32_t n, const options *o, const char *pattern)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) return n;
    const char *mm[16];
    uint32_t k = 0;
    for (size_t i = 0; i < g.gl_pathc && k < 16; i++)
        if (capacity_of(base_name(g.gl_pathv[i])) == 1048576) mm[k++] = g.gl_pathv[i];
    for (uint32_t shift = 0; shift <= 2; shift++)
        for (uint32_t i = 0; i < k; i++)
            for (uint32_t j = shift ? 0 : i + 1; j < k && n < MAX_CASES; j++) {
                if (j == i) continue;
                bench_case *c = &cases[n];
                memset(c, 0, sizeof *c);
                c->kind = CASE_STACK;
                c->capacity = 1048576;
                c->shift = (uint8_t)shift;
                snprintf(c->name, sizeof c->name, "%.36s on %.36s%s", base_name(mm[j]), base_name(mm[i]),
                         shift == 1 ? ", shifted 1/5" : shift == 2 ? ", shifted 2/5" : "");
                snprintf(c->path, sizeof c->path, "%s", mm[i]);
                snprintf(c->upper, sizeof c->upper, "%s", mm[j]);
                if (wanted(o, c->name)) n++;
            }
    globfree(&g);
    return n;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_alloc [--source-dir DIR] [--sizes N,...] [--api-sizes N,...] "
                    "[--planted-sizes N,...] [--planted-seeds N] [--planted-first-seed N] [--strategies S,...] "
                    "[--only TEXT] [--timeout SECONDS] [--no-write]\n");
    return 2;
}

static int parse_args(int argc, char **argv, options *o)
{
    const char *env = getenv("SBALLOC_SOURCE_DIR");
    *o = (options){.source = env && *env ? env : ".", .timeout = 90, .write = true};
    o->nsizes = 3;
    o->sizes[0] = 1000, o->sizes[1] = 10000, o->sizes[2] = 100000;
    o->napi = 4;
    o->api_sizes[0] = 1000, o->api_sizes[1] = 10000, o->api_sizes[2] = 100000, o->api_sizes[3] = 1000000;
    o->nplanted = 3;
    o->planted_sizes[0] = 300, o->planted_sizes[1] = 1000, o->planted_sizes[2] = 2000;
    o->planted_seeds = 3;
    o->first_seed = 1;
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) o->strategy_on[s] = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-write")) {
            o->write = false;
            continue;
        }
        if (!v) return usage();
        i++;
        if (!strcmp(a, "--source-dir")) {
            o->source = v;
        } else if (!strcmp(a, "--sizes")) {
            if (!(!strcmp(v, "none") ? (o->nsizes = 0, true) : parse_list(v, o->sizes, &o->nsizes))) return usage();
        } else if (!strcmp(a, "--api-sizes")) {
            if (!(!strcmp(v, "none") ? (o->napi = 0, true) : parse_list(v, o->api_sizes, &o->napi))) return usage();
        } else if (!strcmp(a, "--planted-sizes")) {
            if (!(!strcmp(v, "none") ? (o->nplanted = 0, true) : parse_list(v, o->planted_sizes, &o->nplanted)))
                return usage();
        } else if (!strcmp(a, "--planted-seeds")) {
            o->planted_seeds = (uint32_t)strtoul(v, NULL, 10);
            if (!o->planted_seeds) return usage();
        } else if (!strcmp(a, "--planted-first-seed")) {
            o->first_seed = (uint32_t)strtoul(v, NULL, 10);
            if (!o->first_seed) return usage();
        } else if (!strcmp(a, "--strategies")) {
            for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) o->strategy_on[s] = false;
            char buf[128];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                uint32_t s;
                if (!sba_strategy_parse(t, &s)) return usage();
                o->strategy_on[s] = true;
            }
        } else if (!strcmp(a, "--only")) {
            o->only = v;
        } else if (!strcmp(a, "--timeout")) {
            o->timeout = (unsigned)strtoul(v, NULL, 10);
            if (!o->timeout) return usage();
        } else {
            return usage();
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_args(argc, argv, &o)) return 2;
    static bench_case cases[MAX_CASES];
    static result res[MAX_RUNS];
    char notes[1200] = "", path[1024], tmpl[1100];
    uint32_t n = 0;

    snprintf(path, sizeof path, "%s/../shared/bench/minimalloc", o.source);
    if (access(path, R_OK) != 0) {
        snprintf(notes, sizeof notes, "Note: %s is absent, so the MiniMalloc instances were skipped.\n", path);
        fprintf(stderr, "bench_alloc: %s", notes);
    } else {
        snprintf(tmpl, sizeof tmpl, "%s/*.csv", path);
        n = add_glob(cases, n, &o, tmpl, CASE_CSV);
    }
    snprintf(tmpl, sizeof tmpl, "%s/examples/*.json", o.source);
    n = add_glob(cases, n, &o, tmpl, CASE_EXAMPLE);

    const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    for (uint32_t i = 0; i < o.nsizes && n < MAX_CASES; i++) {
        bench_case *c = &cases[n];
        memset(c, 0, sizeof *c);
        c->kind = CASE_GEN_JSON;
        c->tensors = o.sizes[i];
        snprintf(c->name, sizeof c->name, "gen %u (JSON)", o.sizes[i]);
        snprintf(c->path, sizeof c->path, "%s/bench_alloc.%ld.%u.json", tmpdir, (long)getpid(), o.sizes[i]);
        if (!wanted(&o, c->name)) continue;
        double s;
        fprintf(stderr, "bench_alloc: generating %u tensors as JSON\n", o.sizes[i]);
        if (!write_gen_json(o.sizes[i], c->path, &s)) {
            fprintf(stderr, "bench_alloc: could not generate %s\n", c->path);
            continue;
        }
        n++;
    }
    for (uint32_t i = 0; i < o.napi && n < MAX_CASES; i++) {
        bench_case *c = &cases[n];
        memset(c, 0, sizeof *c);
        c->kind = CASE_GEN_API;
        c->tensors = o.api_sizes[i];
        snprintf(c->name, sizeof c->name, "gen %u (API)", o.api_sizes[i]);
        if (wanted(&o, c->name)) n++;
    }

    uint32_t nother = n;
    for (uint32_t fam = 0; fam < PLANTED_FAMILIES; fam++)
        for (uint32_t i = 0; i < o.nplanted; i++)
            for (uint32_t seed = o.first_seed; seed < o.first_seed + o.planted_seeds && n < MAX_CASES; seed++) {
                bench_case *c = &cases[n];
                memset(c, 0, sizeof *c);
                c->kind = CASE_PLANTED;
                c->tensors = o.planted_sizes[i];
                c->seed = seed;
                c->family = &PLANTED[fam];
                snprintf(c->name, sizeof c->name, "planted %s %u seed %u", PLANTED[fam].name, c->tensors, seed);
                if (wanted(&o, c->name)) n++;
            }

    if (access(path, R_OK) == 0) {
        snprintf(tmpl, sizeof tmpl, "%s/*.csv", path);
        n = add_subsets(cases, n, &o, tmpl);
        n = add_stacks(cases, n, &o, tmpl);
    }

    uint32_t total = 0, nres = 0;
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) total += o.strategy_on[s] ? nother : 0;
    total += o.strategy_on[SBA_STRATEGY_COLORING] ? n - nother : 0;
    double start = now();
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
            if (!o.strategy_on[s]) continue;
            bool planted = cases[k].kind == CASE_PLANTED || cases[k].kind == CASE_SUBSET || cases[k].kind == CASE_STACK;
            if (planted && s != SBA_STRATEGY_COLORING) continue;
            fprintf(stderr, "bench_alloc: [%u/%u] %s, %s ... ", nres + 1, total, cases[k].name, sba_strategy_name(s));
            double t0 = now();
            result *r = &res[nres++];
            run_in_child(&cases[k], k, s, planted && o.timeout > PLANTED_TIMEOUT ? PLANTED_TIMEOUT : o.timeout, r);
            char oc[160];
            fprintf(stderr, "%s, %.2f s\n", outcome(r, oc, sizeof oc), now() - t0);
        }
    double wall = now() - start;
    for (uint32_t k = 0; k < n; k++)
        if (cases[k].kind == CASE_GEN_JSON) remove(cases[k].path);

    write_markdown(stdout, cases, res, nres, &o, notes, wall);
    if (o.write) {
        snprintf(path, sizeof path, "%s/bench/results.md", o.source);
        FILE *f = fopen(path, "w");
        if (f) {
            write_markdown(f, cases, res, nres, &o, notes, wall);
            /* bench_json's tables (make bench runs it first), kept with these. */
            char jpath[4200];
            snprintf(jpath, sizeof jpath, "%s/bench/results_json.md", o.source);
            FILE *j = fopen(jpath, "r");
            if (j) {
                fprintf(f, "\n## JSON load and save, and functions in parallel (bench_json)\n\n");
                char buf[4096];
                size_t got;
                while ((got = fread(buf, 1, sizeof buf, j)) > 0) fwrite(buf, 1, got, f);
                fclose(j);
            }
            fclose(f);
        } else {
            fprintf(stderr, "bench_alloc: cannot write %s\n", path);
        }
        snprintf(path, sizeof path, "%s/bench/results.csv", o.source);
        f = fopen(path, "w");
        if (f) {
            write_csv(f, cases, res, nres);
            fclose(f);
        } else {
            fprintf(stderr, "bench_alloc: cannot write %s\n", path);
        }
    }
    uint32_t bad = 0;
    for (uint32_t i = 0; i < nres; i++)
        bad += res[i].verified < 0 || res[i].checked < 0 || res[i].status == RUN_CRASHED;
    if (bad) fprintf(stderr, "bench_alloc: %u runs failed verification or crashed\n", bad);
    return bad ? 1 : 0;
}

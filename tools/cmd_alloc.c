/* sballoc analyze / sballoc alloc: the allocators from the command line (alloc --help). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "sballoc/alloc.h"
#include "sballoc/verify.h"
#include "sballoc/draw.h"

static void print_line(void *ud, const char *line)
{
    fprintf((FILE *)ud, "%s\n", line);
}

static bool parse_dump(const char *list, uint32_t *out)
{
    static const struct {
        const char *name;
        uint32_t flag;
    } names[] = {{"nodes", SBA_DUMP_NODES}, {"live", SBA_DUMP_LIVE}, {"igraph", SBA_DUMP_IGRAPH},
                 {"pressure", SBA_DUMP_PRESSURE}, {"spill", SBA_DUMP_SPILL}};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        bool ok = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcmp(tok, names[i].name)) *out |= names[i].flag, ok = true;
        if (!ok) return false;
    }
    return true;
}

static void print_report(FILE *f, const sba_alloc_report *r, bool analyze)
{
    for (uint32_t i = 0; i < r->nfns; i++) {
        const sba_function_report *fr = &r->fns[i];
        fprintf(f, "function %s\n", fr->name);
        fprintf(f, "  nodes %u (precoloured %u), edges %llu, program points %u\n", fr->nodes, fr->precoloured,
                (unsigned long long)fr->edges, fr->points);
        fprintf(f, "  split clones %u, partner groups %u (%u tensors)%s\n", fr->split_clones, fr->partner_groups,
                fr->partner_members, fr->partners_disabled ? ", partners disabled" : "");
        fprintf(f, "  SB pressure %lld bytes/partition, lower bound %lld of %lld\n", (long long)fr->peak_pressure,
                (long long)fr->lower_bound_total, (long long)fr->capacity);
        fprintf(f, "  per band  lower bound:");
        for (int q = 0; q < SBA_BANDS; q++) fprintf(f, " %lld", (long long)fr->lower_bound[q]);
        fprintf(f, "\n");
        if (!analyze) {
            fprintf(f, "  per band  high-water: ");
            for (int q = 0; q < SBA_BANDS; q++) fprintf(f, " %lld", (long long)fr->high_water[q]);
            fprintf(f, "\n  fixpoint iterations %u, spilled %u (%llu bytes/partition), stores %u, reloads %u, "
                       "remats %u\n",
                    fr->iterations, fr->spilled, (unsigned long long)fr->spilled_bytes, fr->stores, fr->reloads,
                    fr->remats);
            static const char *const outcomes[] = {"not needed", "packed", "proved infeasible",
                                                   "exhausted its budget"};
            fprintf(f, "  exact search: %s (%llu search nodes)%s\n", outcomes[fr->search_outcome & 3],
                    (unsigned long long)fr->search_nodes,
                    fr->search_outcome == 3 ? "; --search-budget N searches longer" : "");
            if (fr->psum_tiles)
                fprintf(f, "  PSUM %u tiles in %u banks, %u accumulation groups\n", fr->psum_tiles,
                        fr->psum_banks_used, fr->psum_accum_groups);
            for (uint32_t as = 0; as < BIR_AS_COUNT; as++)
                if (fr->dram_scratch_bytes[as])
                    fprintf(f, "  DRAM scratch %s %lld bytes, lower bound %lld\n", bir_addr_space_name(as),
                            (long long)fr->dram_scratch_bytes[as], (long long)fr->dram_lower_bound[as]);
        }
        fprintf(f, "  time:");
        for (int p = 0; p < SBA_PHASE_COUNT; p++)
            if (fr->seconds[p] > 0) fprintf(f, " %s %.3f ms", sba_phase_name(p), fr->seconds[p] * 1e3);
        fprintf(f, "\n");
    }
}

/* The verifier's verdict and what it checked, for --report=json: "verified"
 * (a proof when exhaustive, else a sample of long loops), "failed" (with
 * the message) or "not run" (--no-verify). */
static json_t *verify_json(const char *verdict, const sba_verify_report *vr, const sba_error *err)
{
    if (!vr) return json_pack("{s:s}", "verdict", verdict);
    json_t *o = json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                          "verdict", verdict, "exhaustive", (int)vr->exhaustive, "functions",
                          (json_int_t)vr->functions, "tensors", (json_int_t)vr->tensors, "sb_locations",
                          (json_int_t)vr->locations, "psum_locations", (json_int_t)vr->psum_locations,
                          "dram_locations", (json_int_t)vr->dram_locations, "points", (json_int_t)vr->points,
                          "iterations", (json_int_t)vr->iterations, "sampled_loops",
                          (json_int_t)vr->sampled_loops, "reads", (json_int_t)vr->reads, "bytes",
                          (json_int_t)vr->bytes, "skipped_reads", (json_int_t)vr->skipped_reads, "writes",
                          (json_int_t)vr->writes, "copies", (json_int_t)vr->copies, "values",
                          (json_int_t)vr->values, "steps", (json_int_t)vr->steps);
    if (o && err) json_object_set_new(o, "message", json_string(err->message));
    return o;
}

/* --report=json: every field of each function's report; times by phase name;
 * the target; the verifier's verdict (verify_json). */
static void print_report_json(FILE *f, const bir_module *m, const sba_alloc_report *r, json_t *verify)
{
    json_t *fns = json_array();
    for (uint32_t i = 0; i < r->nfns; i++) {
        const sba_function_report *fr = &r->fns[i];
        json_t *hw = json_array(), *lb = json_array(), *sec = json_object(), *ds = json_object(),
               *dl = json_object();
        for (uint32_t as = 0; as < BIR_AS_COUNT; as++) {
            json_object_set_new(ds, bir_addr_space_name(as), json_integer(fr->dram_scratch_bytes[as]));
            json_object_set_new(dl, bir_addr_space_name(as), json_integer(fr->dram_lower_bound[as]));
        }
        for (int q = 0; q < SBA_BANDS; q++) {
            json_array_append_new(hw, json_integer(fr->high_water[q]));
            json_array_append_new(lb, json_integer(fr->lower_bound[q]));
        }
        for (int p = 0; p < SBA_PHASE_COUNT; p++) json_object_set_new(sec, sba_phase_name(p), json_real(fr->seconds[p]));
        json_array_append_new(
            fns, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, "
                           "s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:I, s:o}",
                           "name", fr->name, "nodes", (json_int_t)fr->nodes, "precoloured", (json_int_t)fr->precoloured,
                           "split_clones", (json_int_t)fr->split_clones, "partner_groups",
                           (json_int_t)fr->partner_groups, "partner_members", (json_int_t)fr->partner_members,
                           "partners_disabled", (int)fr->partners_disabled, "edges", (json_int_t)fr->edges, "points",
                           (json_int_t)fr->points, "iterations", (json_int_t)fr->iterations, "spilled",
                           (json_int_t)fr->spilled, "spilled_bytes", (json_int_t)fr->spilled_bytes, "reloads",
                           (json_int_t)fr->reloads, "stores", (json_int_t)fr->stores, "remats", (json_int_t)fr->remats,
                           "capacity", (json_int_t)fr->capacity, "high_water", hw, "lower_bound", lb,
                           "lower_bound_total", (json_int_t)fr->lower_bound_total, "peak_pressure",
                           (json_int_t)fr->peak_pressure, "search_nodes", (json_int_t)fr->search_nodes,
                           "search_outcome", (json_int_t)fr->search_outcome, "psum_tiles",
                           (json_int_t)fr->psum_tiles, "psum_banks_used", (json_int_t)fr->psum_banks_used,
                           "psum_accum_groups", (json_int_t)fr->psum_accum_groups, "dram_scratch_bytes", ds,
                           "dram_lower_bound", dl, "dram_placed", (json_int_t)fr->dram_placed, "seconds", sec));
    }
    json_t *root = json_pack("{s:s, s:I, s:o, s:o}", "target", m->target.name, "sbuf_bytes_per_partition",
                             (json_int_t)m->target.sbuf_bytes, "functions", fns, "verify", verify ? verify : json_null());
    json_dumpf(root, f, JSON_INDENT(2));
    fputc('\n', f);
    json_decref(root);
}

/* --svg FILE: the picture of the allocated module (src/report/svg.c). */
static int write_svg(const char *path, const bir_module *m, const sba_alloc_report *r)
{
    sba_error err;
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "sballoc: %s: error: cannot open for writing\n", path);
        return EXIT_BAD;
    }
    int rc = sba_draw_svg(m, r, f, &err) == SBA_OK ? EXIT_OK : cli_report(path, &err);
    if ((f == stdout ? fflush(f) : fclose(f)) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "sballoc: %s: error: cannot write\n", path);
        rc = EXIT_BAD;
    }
    return rc;
}

typedef struct alloc_args {
    const char *in, *out;
    const char **files;    /* every FILE; in is the first */
    int nfiles;
    uint32_t jobs;
    const char *target;
    const char *svg;
    bool log, report, report_json, no_verify, help;
    uint32_t dump, strategy;
    int64_t dram_page;
    uint64_t search_budget;
} alloc_args;

static const char ALLOC_HELP[] =
    "usage: sballoc alloc FILE... [-o OUT|DIR] [-j N] [--target trn1|trn2|trn3]\n"
    "                     [--strategy coloring|best-fit|greedy-size] [--dram-page N] [--search-budget N]\n"
    "                     [--report[=json]] [--svg FILE] [--log] [--dump=LIST] [--no-verify]\n"
    "\n"
    "Allocates PSUM, SBUF (with spilling) and the DRAM scratch of every function of each FILE,\n"
    "proves the result with the verifier and writes it to OUT. Without -o nothing is written.\n"
    "\n"
    "  -o OUT           write the allocated module to OUT ('-': standard output)\n"
    "  -o DIR           with several FILEs: write each to DIR/<its base name>; DIR must exist\n"
    "                   and the base names must differ\n"
    "  -j N             allocate and verify N functions at once (N files at once when there are several);\n"
    "                   the output is the same for every N. Reports, logs and errors are printed\n"
    "                   in FILE order once each file is done; on a terminal, stderr shows progress\n"
    "  --target T       the target preset, instead of the module's own geometry;\n"
    "                   the written module records it\n"
    "  --strategy S     coloring (default), best-fit or greedy-size\n"
    "  --dram-page N    DRAM scratch page in bytes, a power of two (default 512): every\n"
    "                   scratch address is a multiple of it and every size whole pages;\n"
    "                   the verifier checks the addresses against it\n"
    "  --search-budget N\n"
    "                   work units of the exact packer per function (default 4000000000;\n"
    "                   10^9 is 1 to 3 s on parts of hundreds of tensors, up to 15 s on\n"
    "                   functions of a million); it runs when colouring would spill a\n"
    "                   function whose lower bound fits. Reloads and def copies that\n"
    "                   select cannot place are searched on an allowance of their own\n"
    "  --report[=json]  print the allocator's figures (as text or as JSON)\n"
    "  --svg FILE       draw the allocated SBUF as SVG\n"
    "  --log            print the allocator's diagnostics\n"
    "  --dump=LIST      dumps among nodes, live, igraph, pressure, spill\n"
    "  --no-verify      skip the verifier\n"
    "\n"
    "The exit status is the worst over the FILEs: 0 all allocated, 1 one cannot be allocated\n"
    "(or fails verification), 2 bad usage or bad input.\n";

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int parse(const char *cmd, int argc, char **argv, alloc_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            a->help = true;
            return EXIT_OK;
        } else if (!strcmp(s, "-o") || !strcmp(s, "--target") || !strcmp(s, "--strategy") ||
                   !strcmp(s, "--dram-page") || !strcmp(s, "--search-budget") || !strcmp(s, "-j")) {
            if (i + 1 == argc) return cli_usage_error(cmd, "%s needs a value", s);
            const char *v = argv[++i];
            if (!strcmp(s, "-o")) a->out = v;
            else if (!strcmp(s, "-j")) {
                char *end;
                errno = 0;
                unsigned long n = strtoul(v, &end, 10);
                if (!*v || *end || errno || n == 0 || n > 64 || v[0] == '-')
                    return cli_usage_error(cmd, "-j: expected a count of 1 to 64, got \"%s\"", v);
                a->jobs = (uint32_t)n;
            }
            else if (!strcmp(s, "--target")) a->target = v;
            else if (!strcmp(s, "--search-budget")) {
                char *end;
                errno = 0;
                unsigned long long n = strtoull(v, &end, 10);
                if (!*v || *end || errno || n == 0 || v[0] == '-')
                    return cli_usage_error(cmd, "--search-budget: expected a positive integer, got \"%s\"", v);
                a->search_budget = n;
            } else if (!strcmp(s, "--dram-page")) {
                if (!cli_parse_dram_page(v, &a->dram_page))
                    return cli_usage_error(cmd, "--dram-page: expected a positive power of two, got \"%s\"", v);
            } else if (!sba_strategy_parse(v, &a->strategy))
                return cli_usage_error(cmd, "unknown strategy \"%s\" (expected coloring, best-fit or greedy-size)", v);
        } else if (!strcmp(s, "--log")) {
            a->log = true;
        } else if (!strcmp(s, "--report")) {
            a->report = true;
        } else if (!strcmp(s, "--report=json")) {
            a->report_json = true; /* not a->report: the text report's extra lines stay out of the JSON */
        } else if (!strcmp(s, "--svg")) {
            if (i + 1 == argc) return cli_usage_error(cmd, "%s needs a value", s);
            a->svg = argv[++i];
        } else if (!strcmp(s, "--no-verify")) {
            a->no_verify = true;
        } else if (!strncmp(s, "--dump=", 7)) {
            if (!parse_dump(s + 7, &a->dump))
                return cli_usage_error(cmd, "unknown dump in \"%s\" (expected nodes, live, igraph, pressure, spill)", s);
        } else if (s[0] == '-' && s[1]) {
            return cli_usage_error(cmd, "unknown option \"%s\"", s);
        } else {
            if (!a->in) a->in = s;
            a->files[a->nfiles++] = s;
        }
    }
    if (!a->in) return cli_usage_error(cmd, "expected a FILE");
    if (a->nfiles > 1) {
        struct stat st;
        if (a->svg) return cli_usage_error(cmd, "--svg draws one FILE, and %d were given", a->nfiles);
        if (a->out && (stat(a->out, &st) != 0 || !S_ISDIR(st.st_mode)))
            return cli_usage_error(cmd, "-o: with several FILEs, \"%s\" must be an existing directory", a->out);
        for (int i = 0; i < a->nfiles; i++) {
            if (!strcmp(a->files[i], "-"))
                return cli_usage_error(cmd, "standard input ('-') is one FILE only, alone");
            for (int k = 0; a->out && k < i; k++)
                if (!strcmp(base_name(a->files[i]), base_name(a->files[k])))
                    return cli_usage_error(cmd, "\"%s\" and \"%s\" would both be written to %s/%s",
                                           a->files[k], a->files[i], a->out, base_name(a->files[i]));
        }
    }
    if (a->target && !sba_target_preset(a->target))
        return cli_usage_error(cmd, "unknown target \"%s\" (expected trn1, trn2 or trn3)", a->target);
    return EXIT_OK;
}

/* What one FILE gave: its exit code, the error to print (against `where`),
 * and its report and log text when several FILEs run at once. */
typedef struct file_result {
    int rc;
    bool has_err;
    const char *where;
    char where_buf[4096];
    sba_error err;
    char *text;
    size_t ntext;
} file_result;

static void record(file_result *fr, const char *where, const sba_error *err)
{
    fr->has_err = true;
    snprintf(fr->where_buf, sizeof fr->where_buf, "%s", where);
    fr->where = fr->where_buf;
    fr->err = *err;
    fr->rc = err->code == SBA_ERR_ALLOC ? EXIT_CHECK : EXIT_BAD;
}

/* Progress on a terminal: "sballoc: alloc: 12/64 functions". */
typedef struct progress {
    const char *what;
    uint32_t shown;
} progress;

static void show_progress(void *ud, uint32_t done, uint32_t total)
{
    progress *p = ud;
    fprintf(stderr, "\rsballoc: alloc: %u/%u %s", done, total, p->what);
    fflush(stderr);
    p->shown = done;
}

static void end_progress(const progress *p)
{
    if (p->shown) fprintf(stderr, "\r\033[K");
}

/* Loads, allocates, verifies and writes one FILE to OUT (NULL: nowhere),
 * the report and log going to logf. Errors are recorded, not printed. */
static void alloc_file(const alloc_args *a, bool analyze, const char *in, const char *out, FILE *logf,
                       uint32_t jobs, progress *prog, file_result *res)
{
    sba_error err;
    res->rc = EXIT_OK;
    bir_module *m = bir_load_file(in, NULL, &err);
    if (!m) {
        record(res, strcmp(in, "-") == 0 ? "<stdin>" : in, &err);
        return;
    }
    /* The target is resolved here, once: --target replaces the module's own,
     * and every step after (allocator, verifier, report, picture, the saved
     * module) reads the module's. */
    if (a->target && bir_module_set_target(m, sba_target_preset(a->target), &err) != SBA_OK) {
        record(res, in, &err);
        bir_module_free(m);
        return;
    }
    sba_alloc_options o = {.target = NULL,
                           .strategy = a->strategy,
                           .log = (a->log || a->dump) ? print_line : NULL,
                           .log_ud = logf,
                           .dump = a->dump,
                           .dram_page = a->dram_page,
                           .search_budget = a->search_budget,
                           .jobs = jobs,
                           .progress = prog && m->nfns > 1 ? show_progress : NULL,
                           .progress_ud = prog};
    sba_alloc_report r;
    sba_status st = analyze ? sba_analyze_module(m, &o, &r, &err) : sba_allocate_module(m, &o, &r, &err);
    if (prog) end_progress(prog);
    json_t *verdict = NULL;
    if (st == SBA_OK && !analyze && !a->no_verify) {
        /* Every allocation is proved by the independent verifier before it is written. */
        sba_verify_report vr;
        sba_verify_options vo = {.dram_page = a->dram_page, /* the page the DRAM scratch was placed on */
                                 .jobs = jobs};
        st = sba_verify_module_opts(m, &vo, &vr, &err);
        if (st != SBA_OK && err.code != SBA_ERR_NOMEM && err.code != SBA_ERR_LIMIT) err.code = SBA_ERR_ALLOC;
        if (st == SBA_OK && a->report)
            fprintf(logf, "verified: %u functions, %llu reads checked%s\n", vr.functions,
                    (unsigned long long)vr.reads, vr.exhaustive ? "" : " (long loops sampled: not exhaustive)");
        if (a->report_json) verdict = verify_json(st == SBA_OK ? "verified" : "failed", &vr, st == SBA_OK ? NULL : &err);
        /* A rejected allocation still reports what was checked, then fails. */
        if (st != SBA_OK && a->report_json) print_report_json(logf, m, &r, verdict);
    } else if (st == SBA_OK && a->report_json) {
        verdict = verify_json(analyze ? "not run (analyze)" : "not run (--no-verify)", NULL, NULL);
    }
    if (st != SBA_OK) {
        record(res, in, &err);
    } else {
        if (a->report_json) print_report_json(logf, m, &r, verdict);
        else if (analyze || a->report) print_report(logf, &r, analyze);
        if (!analyze && out && bir_save_file(m, out, &err) != SBA_OK) record(res, out, &err);
    }
    if (st == SBA_OK && res->rc == EXIT_OK && a->svg) res->rc = write_svg(a->svg, m, &r);
    sba_alloc_report_free(&r);
    bir_module_free(m);
}

/* Several FILEs: threads take the next file; each file's text is kept and
 * printed in FILE order at the end, so the output does not depend on -j. */
typedef struct file_pool {
    const alloc_args *a;
    file_result *res;
    pthread_mutex_t lock;
    int next, done;
    progress *prog;
} file_pool;

static void *file_worker(void *arg)
{
    file_pool *P = arg;
    for (;;) {
        pthread_mutex_lock(&P->lock);
        int i = P->next < P->a->nfiles ? P->next++ : -1;
        pthread_mutex_unlock(&P->lock);
        if (i < 0) return NULL;
        file_result *res = &P->res[i];
        char out[4096];
        if (P->a->out) snprintf(out, sizeof out, "%s/%s", P->a->out, base_name(P->a->files[i]));
        FILE *logf = open_memstream(&res->text, &res->ntext);
        if (!logf) {
            sba_error err = {.code = SBA_ERR_NOMEM};
            snprintf(err.message, sizeof err.message, "out of memory");
            record(res, P->a->files[i], &err);
        } else {
            alloc_file(P->a, false, P->a->files[i], P->a->out ? out : NULL, logf, 1, NULL, res);
            fclose(logf);
        }
        pthread_mutex_lock(&P->lock);
        P->done++;
        if (P->prog) show_progress(P->prog, (uint32_t)P->done, (uint32_t)P->a->nfiles);
        pthread_mutex_unlock(&P->lock);
    }
}

static int alloc_files(const alloc_args *a)
{
    file_result *res = calloc((size_t)a->nfiles, sizeof *res);
    if (!res) return fprintf(stderr, "sballoc: alloc: out of memory\n"), EXIT_BAD;
    progress prog = {.what = "files"};
    file_pool P = {.a = a, .res = res, .prog = isatty(STDERR_FILENO) ? &prog : NULL};
    pthread_mutex_init(&P.lock, NULL);
    uint32_t jobs = a->jobs ? a->jobs : 1;
    if (jobs > (uint32_t)a->nfiles) jobs = (uint32_t)a->nfiles;
    pthread_t tid[64];
    uint32_t started = 0;
    for (; started + 1 < jobs; started++)
        if (pthread_create(&tid[started], NULL, file_worker, &P) != 0) break;
    file_worker(&P);
    for (uint32_t i = 0; i < started; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&P.lock);
    end_progress(&prog);
    int rc = EXIT_OK;
    for (int i = 0; i < a->nfiles; i++) {
        if (res[i].ntext) fwrite(res[i].text, 1, res[i].ntext, stdout);
        free(res[i].text);
        if (res[i].has_err) cli_report(res[i].where, &res[i].err);
        if (res[i].rc > rc) rc = res[i].rc;
    }
    fflush(stdout);
    free(res);
    return rc;
}

static int run_parsed(const char *cmd, alloc_args *a_, bool analyze);

static int run(const char *cmd, int argc, char **argv, bool analyze)
{
    const char **files = calloc((size_t)(argc > 0 ? argc : 1), sizeof *files);
    if (!files) return fprintf(stderr, "sballoc: %s: out of memory\n", cmd), EXIT_BAD;
    alloc_args a = {.out = NULL, .files = files};
    int rc = parse(cmd, argc, argv, &a);
    if (rc == EXIT_OK) rc = run_parsed(cmd, &a, analyze);
    free(files);
    return rc;
}

static int run_parsed(const char *cmd, alloc_args *a_, bool analyze)
{
    alloc_args a = *a_;
    if (a.help) {
        if (analyze) printf("usage: sballoc analyze FILE [--target trn1|trn2|trn3] [--log] [--dump=LIST]\n");
        else fputs(ALLOC_HELP, stdout);
        return EXIT_OK;
    }
    if (analyze && a.nfiles > 1) return cli_usage_error(cmd, "unexpected argument \"%s\"", a.files[1]);
    if (a.nfiles > 1) return alloc_files(&a);
    FILE *logf = analyze || !a.out || strcmp(a.out, "-") ? stdout : stderr;
    progress prog = {.what = "functions"};
    file_result res = {0};
    alloc_file(&a, analyze, a.in, analyze ? NULL : a.out, logf, a.jobs,
               isatty(STDERR_FILENO) ? &prog : NULL, &res);
    if (res.has_err) cli_report(res.where, &res.err);
    return res.rc;
}

int cmd_analyze(int argc, char **argv) { return run("analyze", argc, argv, true); }
int cmd_alloc(int argc, char **argv) { return run("alloc", argc, argv, false); }

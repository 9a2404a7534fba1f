/* bench_json: JSON save and load throughput on a large module.
 *
 * Builds a module of about 50 MB of canonical text through the API (two
 * functions, SB / DRAM / PSUM sets, DRAM homes with aliases, copies and loops
 * with symbolic accesses), then times bir_save_buffer and bir_load_buffer on it
 * (best of three runs each), checks that the loaded module re-saves
 * byte-identical, and prints a markdown table. MB is 10^6 bytes.
 *
 * Then, on the generated module of 100,000 tensors (`sballoc gen --seed 7
 * --tensors 100000 --target trn2`, about 180 MB), side by side in one run:
 * jansson's parse and its DOM dump (what the loader and saver cost before
 * base/json, once) against base/json's parse and the direct writer (the
 * best of three), in wall and CPU seconds; the model's own memory per tensor; and the sballoc command next to
 * this program (`check`, `alloc`, each a child process, the best of three
 * runs alternated: wall time, CPU time and peak RSS). The "before" figures of the model and the commands are the release
 * before base/json, measured once on the same machine (they are constants
 * here: that code is gone); the "previous" column is the release before
 * the model shrank and the verifier lost its hash lookups, measured the same
 * way. Last, a module of 64 functions of 5,000 tensors allocated and
 * verified with -j 1 and -j 2 (outputs compared byte for byte).
 *
 * usage: bench_json [TARGET_MB] [--no-large]   (default 50) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <jansson.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/json.h"
#include "sballoc/alloc.h"
#include "sballoc/bir.h"
#include "sballoc/gen.h"
#include "sballoc/verify.h"

/* The previous release's figures on this module, measured once on this
 * machine: parse, load and save from its bench_json; the commands the best
 * of five runs alternated with this release's (/usr/bin/time). */
#define PREV_PARSE "0.26 s (0.26 s), 705 MB/s"
#define PREV_LOAD "0.64 s (0.63 s)"
#define PREV_SAVE "1.17 s (1.16 s)"
#define PREV_MODEL "1,028 B"
#define PREV_CHECK "1.09 s (1.07 s), 284 MB"
#define PREV_ALLOC "2.85 s (2.60 s), 351 MB"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const sba_error *err)
{
    fprintf(stderr, "bench_json: %s: %s%s%s\n", what, err->path, err->path[0] ? ": " : "", err->message);
    exit(1);
}

static bir_operand *operands(bir_module *m, uint32_t n)
{
    bir_operand *ops = sba_arena_array(m->arena, n, sizeof *ops);
    if (!ops) {
        fprintf(stderr, "bench_json: out of memory\n");
        exit(1);
    }
    return ops;
}

/* A whole-tensor access pattern: partitions first, then the free bytes. */
static void whole(bir_module *m, bir_operand *op, bir_set *set, bir_location *loc)
{
    int64_t f = bir_set_bytes_per_block(set) / bir_dtype_size(set->dtype);
    op->kind = BIR_OPND_PHYSICAL_AP;
    op->set = set;
    op->loc = loc;
    op->dtype = set->dtype;
    op->ndims = 2;
    op->ap = sba_arena_array(m->arena, 2, sizeof *op->ap);
    if (!op->ap) {
        fprintf(stderr, "bench_json: out of memory\n");
        exit(1);
    }
    op->ap[0][0] = f;
    op->ap[0][1] = bir_set_partitions(set);
    op->ap[1][0] = 1;
    op->ap[1][1] = f;
}

typedef struct counts {
    uint64_t sets, locs, edges, insts;
} counts;

static void build_function(bir_module *m, const char *name, uint32_t nsets, counts *c)
{
    sba_error err;
    bir_function *fn = bir_function_add(m, name, &err);
    if (!fn) die("function", &err);
    bir_set **sets = malloc((size_t)nsets * sizeof *sets);
    bir_location *prev_home = NULL;
    static const uint32_t types[] = {BIR_MEM_SB, BIR_MEM_DRAM, BIR_MEM_SB, BIR_MEM_PSUM};
    for (uint32_t i = 0; i < nsets; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s_tensor_%u", name, i);
        bir_set *s = bir_set_add(fn, buf, &err);
        if (!s) die("set", &err);
        sets[i] = s;
        uint32_t type = types[i % 4];
        s->dtype = type == BIR_MEM_PSUM ? BIR_DT_FLOAT32 : BIR_DT_BFLOAT16;
        s->kind = i % 50 == 0 ? BIR_TK_EXTERNAL_INPUT : BIR_TK_INTERNAL;
        s->tensor_class = type == BIR_MEM_SB ? BIR_TC_NEURON_SB_TENSOR
                          : type == BIR_MEM_PSUM ? BIR_TC_NEURON_PSUM_TENSOR
                                                 : BIR_TC_DRAM_2D_BLOCK_TENSOR;
        s->rank = i % 3 == 0 ? 3 : 2;
        s->shape = sba_arena_array(m->arena, s->rank, sizeof *s->shape);
        if (s->rank == 3) {
            s->shape[0] = 1 + i % 4;
            s->shape[1] = 128;
            s->shape[2] = 64 << (i % 4);
            s->partition_dim = 1;
        } else {
            s->shape[0] = 32 << (i % 3);
            s->shape[1] = 512;
        }
        snprintf(buf, sizeof buf, "%s_tensor_%u_%s", name, i, bir_memory_type_name(type));
        bir_location *l = bir_location_add(s, buf, type, &err);
        if (!l) die("location", &err);
        c->locs++;
        if (type == BIR_MEM_PSUM) {
            l->has_bank = true;
            l->bank = i % 8;
            bir_location_set_pack_id_hint(l, (int32_t)(i % 4), NULL);
        }
        if (i % 3 == 0) {
            l->addr = (int64_t)(i % 100) * 1024;
            l->base = (int32_t)(i % 4) * 32;
            l->has_dims = true;
            l->dims[0] = bir_set_partitions(s);
            l->dims[1] = bir_set_bytes_per_block(s);
            bir_location_set_allocated(l, true);
        }
        if (type == BIR_MEM_SB && i % 8 == 0) {
            /* A DRAM home for the tile, must-aliased to the previous home. */
            snprintf(buf, sizeof buf, "%s_tensor_%u_home", name, i);
            bir_location *h = bir_location_add(s, buf, BIR_MEM_DRAM, &err);
            if (!h) die("home", &err);
            c->locs++;
            h->var_id = i;
            if (prev_home) {
                if (bir_location_add_alias(h, prev_home, BIR_ALIAS_MUST, &err) != SBA_OK) die("alias", &err);
                c->edges++;
            }
            prev_home = h;
        }
    }
    c->sets += nsets;
    /* The body: a copy per pair of sets, and every 64 copies a loop holding a
     * symbolic access. */
    bir_block *entry = bir_block_add(fn, NULL, "entry", &err);
    if (!entry) die("block", &err);
    for (uint32_t i = 0; i + 1 < nsets; i += 2) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s_copy_%u", name, i);
        bir_inst *in = bir_inst_add(fn, entry, buf, BIR_OP_TENSOR_COPY, &err);
        if (!in) die("instruction", &err);
        in->engine = BIR_ENG_DVE;
        in->ins = operands(m, 1);
        in->nins = 1;
        whole(m, &in->ins[0], sets[i], sets[i]->locs[0]);
        in->outs = operands(m, 1);
        in->nouts = 1;
        whole(m, &in->outs[0], sets[i + 1], sets[i + 1]->locs[0]);
        c->insts++;
        if (i % 128 == 0) {
            snprintf(buf, sizeof buf, "%s_loop_%u", name, i);
            bir_inst *loop = bir_inst_add(fn, entry, buf, BIR_OP_LOOP, &err);
            if (!loop) die("loop", &err);
            snprintf(buf, sizeof buf, "k%u", i);
            loop->axis = (bir_loop_axis){sba_arena_strdup(m->arena, buf), 0, 4, 1};
            snprintf(buf, sizeof buf, "%s_body_%u", name, i);
            bir_block *body = bir_block_add(fn, loop, buf, &err);
            if (!body) die("body", &err);
            snprintf(buf, sizeof buf, "%s_act_%u", name, i);
            bir_inst *act = bir_inst_add(fn, body, buf, BIR_OP_ACTIVATION, &err);
            if (!act) die("activation", &err);
            act->engine = BIR_ENG_ACT;
            act->ins = operands(m, 1);
            act->nins = 1;
            whole(m, &act->ins[0], sets[i], sets[i]->locs[0]);
            act->ins[0].kind = BIR_OPND_SYMBOLIC_AP;
            act->ins[0].terms = sba_arena_array(m->arena, 1, sizeof *act->ins[0].terms);
            act->ins[0].terms[0] = (bir_term){loop, 0};
            act->ins[0].nterms = 1;
            act->outs = operands(m, 1);
            act->nouts = 1;
            whole(m, &act->outs[0], sets[i], sets[i]->locs[0]);
            c->insts += 2;
        }
    }
    free(sets);
    if (bir_function_build_def_use(fn, &err) != SBA_OK) die("def-use", &err);
}

static bir_module *build(uint32_t nsets_per_fn, counts *c)
{
    memset(c, 0, sizeof *c);
    bir_module *m = bir_module_new(NULL);
    if (!m) {
        fprintf(stderr, "bench_json: out of memory\n");
        exit(1);
    }
    m->arch = "trn2";
    build_function(m, "forward", nsets_per_fn, c);
    build_function(m, "backward", nsets_per_fn, c);
    if (bir_module_failed(m)) {
        fprintf(stderr, "bench_json: out of memory building the module\n");
        exit(1);
    }
    return m;
}

static char *save(const bir_module *m, size_t *len)
{
    char *text;
    sba_error err;
    if (bir_save_buffer(m, &text, len, &err) != SBA_OK) die("save", &err);
    return text;
}

/* Runs `sballoc ARGS...` (the binary next to this program); wall seconds
 * and peak RSS in MB, or -1 when it failed. */
static double run_cli(const char *self, const char *const *args, double *rss_mb, double *cpu_s)
{
    char bin[4096];
    const char *slash = strrchr(self, '/');
    snprintf(bin, sizeof bin, "%.*ssballoc", slash ? (int)(slash - self + 1) : 0, self);
    const char *argv[16] = {bin};
    int n = 1;
    for (; args[n - 1] && n < 15; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    /* An intermediate child runs the command, so that its RUSAGE_CHILDREN is
     * the command's alone, and sends back the status and peak RSS. */
    int fds[2];
    if (pipe(fds) != 0) return -1;
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        pid_t g = fork();
        if (g == 0) {
            if (!freopen("/dev/null", "w", stdout)) _exit(127);
            execv(bin, (char *const *)(uintptr_t)argv);
            _exit(127);
        }
        int st = -1;
        long res[3] = {-1, 0, 0};
        if (g > 0 && waitpid(g, &st, 0) == g) {
            struct rusage ru;
            getrusage(RUSAGE_CHILDREN, &ru);
            res[0] = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
            res[1] = ru.ru_maxrss;
            res[2] = (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec +
                     ru.ru_stime.tv_usec;
        }
        _exit(write(fds[1], res, sizeof res) == (ssize_t)sizeof res ? 0 : 1);
    }
    close(fds[1]);
    long res[3] = {-1, 0, 0};
    bool got = pid > 0 && read(fds[0], res, sizeof res) == (ssize_t)sizeof res;
    close(fds[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    double t = now() - t0;
    *rss_mb = (double)res[1] * 1024.0 / 1e6;
    *cpu_s = (double)res[2] / 1e6;
    return got && res[0] == 0 ? t : -1;
}

/* Runs of one command vary with the load of a shared machine: the best of
 * RUNS (wall and CPU each), and the largest peak RSS. */
enum { RUNS = 3 };

typedef struct best {
    double wall, cpu, rss;
} best;

static void run_into(const char *self, const char *const *args, best *b)
{
    double rss, c, w = run_cli(self, args, &rss, &c);
    if (w < 0) {
        fprintf(stderr, "bench_json: sballoc %s %s failed\n", args[0], args[1]);
        exit(1);
    }
    if (b->wall == 0 || w < b->wall) b->wall = w;
    if (b->cpu == 0 || c < b->cpu) b->cpu = c;
    if (rss > b->rss) b->rss = rss;
}

static bool same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        if (ca != cb) same = false;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

typedef struct large_inputs {
    char in[64], fin[64];
    double check_s, check_rss, check_cpu, alloc_s, alloc_rss, alloc_cpu, j1_s, j1_rss, j1_cpu, j2_s, j2_rss,
        j2_cpu;
    bool j_same;
} large_inputs;

/* The generated inputs, written by a child (this process stays small, so the
 * commands it starts report their own peak RSS), and the commands' figures. */
static void large_commands(const char *self, large_inputs *L)
{
    snprintf(L->in, sizeof L->in, "/tmp/bench_json_100k.%ld", (long)getpid());
    snprintf(L->fin, sizeof L->fin, "/tmp/bench_json_64fn.%ld", (long)getpid());
    pid_t pid = fork();
    if (pid == 0) {
        sba_gen_options g;
        sba_gen_defaults(&g);
        g.seed = 7;
        g.tensors = 100000;
        sba_error err;
        bir_module *m = sba_gen_module(&g, NULL, &err);
        if (!m || bir_save_file(m, L->in, &err) != SBA_OK) _exit(1);
        bir_module_free(m);
        g.seed = 1;
        g.tensors = 5000;
        g.functions = 64;
        m = sba_gen_module(&g, NULL, &err);
        if (!m || bir_save_file(m, L->fin, &err) != SBA_OK) _exit(1);
        bir_module_free(m);
        _exit(0);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_json: cannot write the generated inputs\n");
        exit(1);
    }
    /* The 750 MB just written would otherwise be written back to disk
     * while the commands run, and be measured with them. */
    const char *written[] = {L->in, L->fin};
    for (int i = 0; i < 2; i++) {
        int fd = open(written[i], O_RDONLY);
        if (fd >= 0) {
            if (fsync(fd) != 0) fprintf(stderr, "bench_json: cannot sync %s\n", written[i]);
            close(fd);
        }
    }
    char out[80], o1[80], o2[80];
    snprintf(out, sizeof out, "%s.out", L->in);
    snprintf(o1, sizeof o1, "%s.j1", L->fin);
    snprintf(o2, sizeof o2, "%s.j2", L->fin);
    const char *check_args[] = {"check", L->in, NULL};
    const char *alloc_args[] = {"alloc", L->in, "-o", out, NULL};
    const char *a1[] = {"alloc", L->fin, "-o", o1, "-j", "1", NULL};
    const char *a2[] = {"alloc", L->fin, "-o", o2, "-j", "2", NULL};
    /* Alternated, so that a change in the machine's load falls on both sides. */
    best bc = {0}, ba = {0}, b1 = {0}, b2 = {0};
    for (int r = 0; r < RUNS; r++) {
        run_into(self, check_args, &bc);
        run_into(self, alloc_args, &ba);
        run_into(self, a1, &b1);
        run_into(self, a2, &b2);
    }
    L->check_s = bc.wall, L->check_cpu = bc.cpu, L->check_rss = bc.rss;
    L->alloc_s = ba.wall, L->alloc_cpu = ba.cpu, L->alloc_rss = ba.rss;
    L->j1_s = b1.wall, L->j1_cpu = b1.cpu, L->j1_rss = b1.rss;
    L->j2_s = b2.wall, L->j2_cpu = b2.cpu, L->j2_rss = b2.rss;
    L->j_same = same_file(o1, o2);
    remove(out);
    remove(o1);
    remove(o2);
}

/* Seconds of sba_allocate_module alone on a fresh load of the text with
 * `jobs` threads; the result verified (on as many threads, its seconds in
 * *verify_s), its saved text in *out (malloc'd). */
static double allocate_with(const char *text, size_t len, uint32_t jobs, char **out, size_t *outlen,
                            double *verify_s)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, len, "bench", NULL, &err);
    if (!m) die("load 64 functions", &err);
    sba_alloc_options o = {.jobs = jobs};
    double t0 = now();
    if (sba_allocate_module(m, &o, NULL, &err) != SBA_OK) die("allocate 64 functions", &err);
    double t = now() - t0;
    sba_verify_report vr;
    sba_verify_options vo = {.jobs = jobs};
    t0 = now();
    if (sba_verify_module_opts(m, &vo, &vr, &err) != SBA_OK) die("verify 64 functions", &err);
    *verify_s = now() - t0;
    if (bir_save_buffer(m, out, outlen, &err) != SBA_OK) die("save 64 functions", &err);
    char *copy = malloc(*outlen);
    if (!copy) die("copy", &err);
    memcpy(copy, *out, *outlen);
    bir_free_text(m, *out);
    *out = copy;
    bir_module_free(m);
    return t;
}

static void large(const large_inputs *L)
{
    sba_error err = {0};
    size_t len;
    char *text = read_file(L->in, &len);
    if (!text) die("read the generated module", &err);
    double mb = (double)len / 1e6;

    /* jansson, as the loader and the saver used it */
    json_error_t je;
    double w0 = now(), c0 = cpu();
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    double jp_w = now() - w0, jp_c = cpu() - c0;
    if (!root) {
        fprintf(stderr, "bench_json: jansson: %s\n", je.text);
        exit(1);
    }
    w0 = now(), c0 = cpu();
    size_t jn = json_dumpb(root, NULL, 0, JSON_INDENT(2));
    char *jtext = malloc(jn + 1);
    if (!jtext || json_dumpb(root, jtext, jn, JSON_INDENT(2)) != jn) die("jansson dump", &err);
    double jd_w = now() - w0, jd_c = cpu() - c0;
    json_decref(root);

    /* base/json and the model: the best of RUNS each (wall and CPU apart) */
    double bp_w = 1e30, bp_c = 1e30, ld_w = 1e30, ld_c = 1e30, sv_w = 1e30, sv_c = 1e30, doc_mb = 0, model_b = 0;
    char *stext = NULL;
    size_t slen = 0;
    for (int r = 0; r < RUNS; r++) {
        w0 = now(), c0 = cpu();
        sba_json_doc *doc = sba_json_parse(text, len, 0, NULL, NULL, NULL);
        bp_w = fmin(bp_w, now() - w0), bp_c = fmin(bp_c, cpu() - c0);
        if (!doc) die("parse", &err);
        doc_mb = (double)sba_json_doc_bytes(doc) / 1e6;
        sba_json_doc_free(doc);
        w0 = now(), c0 = cpu();
        bir_module *m = bir_load_buffer(text, len, "bench", NULL, &err);
        ld_w = fmin(ld_w, now() - w0), ld_c = fmin(ld_c, cpu() - c0);
        if (!m) die("load", &err);
        uint64_t sets = 0;
        for (uint32_t f = 0; f < m->nfns; f++) sets += m->fns[f]->nsets;
        model_b = (double)(m->arena->bytes - (size_t)(m->arena->end - m->arena->cur)) / (double)sets;
        if (stext) free(stext);
        char *t;
        w0 = now(), c0 = cpu();
        if (bir_save_buffer(m, &t, &slen, &err) != SBA_OK) die("save", &err);
        sv_w = fmin(sv_w, now() - w0), sv_c = fmin(sv_c, cpu() - c0);
        stext = malloc(slen + 1);
        if (!stext) die("copy", &err);
        memcpy(stext, t, slen + 1);
        bir_free_text(m, t);
        bir_module_free(m);
    }
    bool same = slen == jn + 1 && memcmp(stext, jtext, jn) == 0;
    free(stext);
    free(jtext);
    free(text);

    /* "previous": the release before this one, measured as described above. */
    printf("\n| 100,000 tensors (%.1f MB) | before: jansson | previous | now: base/json |\n|---|---:|---:|---:|\n",
           mb);
    printf("| parse, wall (CPU) | %.2f s (%.2f s), %.0f MB/s | %s | %.2f s (%.2f s), %.0f MB/s |\n", jp_w, jp_c,
           mb / jp_w, PREV_PARSE, bp_w, bp_c, mb / bp_w);
    printf("| parse, MB per CPU second | %.0f MB/s | | %.0f MB/s |\n", mb / jp_c, mb / bp_c);
    printf("| document held | | | %.0f MB |\n", doc_mb);
    printf("| load: parse + model build, wall (CPU) | | %s | %.2f s (%.2f s) |\n", PREV_LOAD, ld_w, ld_c);
    printf("| save, wall (CPU) | %.2f s (%.2f s), the DOM dump alone | %s | %.2f s (%.2f s), %.0f MB/s |\n", jd_w,
           jd_c, PREV_SAVE, sv_w, sv_c, mb / sv_w);
    printf("| saved text identical to jansson's | | | %s |\n", same ? "yes" : "NO");
    printf("| model memory per tensor (arena bytes used / sets) | 1,911 B | %s | %.0f B |\n", PREV_MODEL,
           model_b);
    printf("| `sballoc check`: wall (CPU), peak RSS | 4.87 s (4.84 s), 983 MB | %s | %.2f s (%.2f s), %.0f MB |\n",
           PREV_CHECK, L->check_s, L->check_cpu, L->check_rss);
    printf("| `sballoc alloc -o`: wall (CPU), peak RSS | 9.25 s (9.02 s), 1,017 MB | %s | %.2f s (%.2f s), %.0f MB "
           "|\n",
           PREV_ALLOC, L->alloc_s, L->alloc_cpu, L->alloc_rss);

    /* 64 functions of 5,000 tensors, -j 1 against -j 2 */
    text = read_file(L->fin, &len);
    if (!text) die("read the 64-function module", &err);
    char *t1, *t2;
    size_t n1, n2;
    /* The best of RUNS, alternated, as for the commands. */
    double a1 = 1e30, a2 = 1e30, v1 = 1e30, v2 = 1e30;
    bool same12 = true;
    for (int r = 0; r < RUNS; r++) {
        double v, a = allocate_with(text, len, 1, &t1, &n1, &v);
        a1 = fmin(a1, a), v1 = fmin(v1, v);
        a = allocate_with(text, len, 2, &t2, &n2, &v);
        a2 = fmin(a2, a), v2 = fmin(v2, v);
        same12 = same12 && n1 == n2 && memcmp(t1, t2, n1) == 0;
        free(t1);
        free(t2);
    }
    free(text);
    double la[3] = {0};
    FILE *lf = fopen("/proc/loadavg", "r");
    if (lf) {
        if (fscanf(lf, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3) la[0] = 0;
        fclose(lf);
    }
    printf("\n| 64 functions x 5,000 tensors (%.0f MB) | -j 1 | -j 2 |\n|---|---:|---:|\n", (double)len / 1e6);
    printf("| sba_allocate_module alone, wall (best of %d) | %.2f s | %.2f s (x%.2f) |\n", RUNS, a1, a2, a1 / a2);
    printf("| sba_verify_module_opts alone, wall (best of %d) | %.2f s | %.2f s (x%.2f) |\n", RUNS, v1, v2, v1 / v2);
    printf("| `sballoc alloc -o` (load, allocate, verify, save): wall (CPU), best of %d | %.2f s (%.2f s) | %.2f s (%.2f s) |\n",
           RUNS,
           L->j1_s, L->j1_cpu, L->j2_s, L->j2_cpu);
    printf("| peak RSS | %.0f MB | %.0f MB |\n", L->j1_rss, L->j2_rss);
    printf("| outputs byte-identical | | %s (API), %s (CLI) |\n", same12 ? "yes" : "NO", L->j_same ? "yes" : "NO");
    printf("| machine load average while measuring (2 cores) | %.1f | |\n", la[0]);
    remove(L->in);
    remove(L->fin);
}

int main(int argc, char **argv)
{
    bool no_large = argc > 1 && strcmp(argv[argc - 1], "--no-large") == 0;
    if (no_large) argc--;
    large_inputs L;
    memset(&L, 0, sizeof L);
    if (!no_large) large_commands(argv[0], &L);
    double target_mb = argc > 1 ? atof(argv[1]) : 50.0;
    if (target_mb <= 0) {
        fprintf(stderr, "usage: bench_json [TARGET_MB]\n");
        return 2;
    }
    /* Calibrate: bytes of text per set on a small module. */
    counts c;
    bir_module *probe = build(2000, &c);
    size_t plen;
    char *ptext = save(probe, &plen);
    bir_free_text(probe, ptext);
    bir_module_free(probe);
    double per_set = (double)plen / 4000.0;
    uint32_t nsets = (uint32_t)(target_mb * 1e6 / per_set / 2.0);
    if (nsets < 2) nsets = 2;

    bir_module *m = build(nsets, &c);
    size_t len = 0;
    char *text = NULL;
    double best_save = 1e30;
    for (int run = 0; run < 3; run++) {
        if (text) bir_free_text(m, text);
        double t0 = now();
        text = save(m, &len);
        double t = now() - t0;
        if (t < best_save) best_save = t;
    }
    double best_load = 1e30;
    bir_module *loaded = NULL;
    for (int run = 0; run < 3; run++) {
        if (loaded) bir_module_free(loaded);
        sba_error err;
        double t0 = now();
        loaded = bir_load_buffer(text, len, "bench", NULL, &err);
        double t = now() - t0;
        if (!loaded) die("load", &err);
        if (t < best_load) best_load = t;
    }
    size_t len2;
    char *text2 = save(loaded, &len2);
    bool identical = len2 == len && memcmp(text, text2, len) == 0;
    bir_free_text(loaded, text2);
    bir_module_free(loaded);
    bir_free_text(m, text);
    bir_module_free(m);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mb = (double)len / 1e6;
    printf("| bench_json | |\n|---|---|\n");
    printf("| module | 2 functions, %llu sets, %llu locations, %llu alias edges, %llu instructions |\n",
           (unsigned long long)c.sets, (unsigned long long)c.locs, (unsigned long long)c.edges,
           (unsigned long long)c.insts);
    printf("| text size | %.1f MB |\n", mb);
    printf("| save (best of 3) | %.3f s, %.1f MB/s |\n", best_save, mb / best_save);
    printf("| load (best of 3) | %.3f s, %.1f MB/s |\n", best_load, mb / best_load);
    printf("| re-save byte-identical | %s |\n", identical ? "yes" : "NO");
    printf("| peak RSS | %.0f MB |\n", (double)ru.ru_maxrss * 1024.0 / 1e6);
    if (!no_large) large(&L);
    return identical ? 0 : 1;
}

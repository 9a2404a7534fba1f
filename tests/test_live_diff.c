/* Differential test of the liveness rule against an unrolled simulation.
 *
 * Random small programs (seeded, the same on every run): two or three SB
 * tensors of [NB, 128, 4] float32, loops nested up to three deep with 1-4
 * iterations, and instructions that write (Memset), read (DMAStore), or read
 * one tensor and write another or the same (TensorCopy, TensorTensor). Every
 * access selects, independently, its blocks (all, one, or one per iteration
 * of an enclosing loop), its partitions (all, or a quarter: fixed or by
 * loop), and its free elements (all, a half, or every other element: fixed or
 * by loop).
 *
 * The simulation, written here without the library's footprint or live code:
 * run every iteration, keep for each tensor cell (block, partition quarter,
 * element) the step of its latest write; a read at step s of cells written at
 * steps w needs the tensor from min w to s. Then, for every tensor:
 *
 *   - sound: its live interval (bir_live_locations, and the SBUF front half's
 *     dump) holds the point of every step where it is needed, and the whole
 *     of every loop whose back edge it is needed across;
 *   - not spurious: a loop the rule says carries it (bir_live_carried_in, or
 *     "(loop-carried)" in the dump) is one the simulation needs it across.
 *
 * The rule is conservative where a write leaves gaps that other writes fill
 * (every other element twice), or where a read also touches bytes nothing
 * wrote (half the programs start by writing every tensor whole, so none do):
 * such programs are still checked for soundness, and counted apart for the
 * second check. Several gap-free partial writes that together cover a tensor
 * are a kill (bir/live.c), so they are checked for both. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/rng.h"
#include "bir/live.h"
#include "sballoc/alloc.h"
#include "sballoc/bir.h"
#include "sballoc/program.h"
#include "textbuf.h"

enum {
    PROGRAMS = 5000,
    MAX_T = 3,
    MAX_LOOPS = 8,
    MAX_INSTS = 14,
    MAX_DEPTH = 3,
    F = 4,
    QUARTERS = 4,
    MAX_NB = 4,
    CELLS = MAX_NB * QUARTERS * F,
    MAX_STEPS = 4096,
};

/* ---- PRNG (splitmix64) --------------------------------------------------- */

static sba_rng rng; /* the cases' seeded stream (base/rng.h) */

static int pick(int n) { return (int)(sba_rng_next(&rng) % (uint64_t)n); }

/* ---- the program --------------------------------------------------------- */

/* One selection of a component: all of it, a fixed part, or the part an
 * enclosing loop's axis value picks. */
enum { SEL_ALL = 0, SEL_FIXED, SEL_LOOP };
/* Free-element selections. */
enum { FREE_ALL = 0, FREE_HALF, FREE_PARITY };

typedef struct access {
    int t;
    int bsel, bval;        /* block: SEL_*, fixed block or loop id */
    int psel, pval;        /* partition quarter */
    int fkind, fsel, fval; /* free elements: FREE_*, then SEL_FIXED/SEL_LOOP */
} access;

typedef struct item {
    bool loop;
    int id;                /* loop id or instruction id */
    int first, n;          /* a loop's body: items [first, first + n) of its own list */
} item;

typedef struct program {
    int nt, nb[MAX_T];
    int nloops, trip[MAX_LOOPS], loop_depth[MAX_LOOPS];
    int ninsts;
    int kind[MAX_INSTS + MAX_T];   /* 0 write, 1 read, 2 read+write */
    access rd[MAX_INSTS + MAX_T], wr[MAX_INSTS + MAX_T];
    int inst_loops[MAX_INSTS + MAX_T][MAX_DEPTH], inst_depth[MAX_INSTS + MAX_T];
    /* The body tree: bodies[k] lists items, body 0 the function's. */
    item body[MAX_LOOPS + 1][MAX_INSTS + MAX_T + MAX_LOOPS];
    int nbody[MAX_LOOPS + 1];
    bool gappy;            /* some write is every other element */
} program;

static void choose_access(program *g, access *a, int t, const int *loops, int depth)
{
    a->t = t;
    int nb = g->nb[t];
    /* An enclosing loop whose every value picks a valid part of n parts. */
    int cand[MAX_DEPTH], nc;
#define LOOPS_UPTO(n)                                                                                        \
    nc = 0;                                                                                                  \
    for (int k = 0; k < depth; k++)                                                                          \
        if (g->trip[loops[k]] <= (n)) cand[nc++] = loops[k];
    LOOPS_UPTO(nb);
    a->bsel = nb == 1 ? SEL_ALL : pick(nc ? 3 : 2);
    if (a->bsel == SEL_FIXED) a->bval = pick(nb);
    if (a->bsel == SEL_LOOP) a->bval = cand[pick(nc)];
    LOOPS_UPTO(QUARTERS);
    a->psel = pick(nc ? 3 : 2);
    if (a->psel == SEL_FIXED) a->pval = pick(QUARTERS);
    if (a->psel == SEL_LOOP) a->pval = cand[pick(nc)];
    LOOPS_UPTO(2);
    a->fkind = pick(3);
    a->fsel = a->fkind == FREE_ALL ? SEL_ALL : nc && pick(2) ? SEL_LOOP : SEL_FIXED;
    if (a->fsel == SEL_FIXED) a->fval = pick(2);
    if (a->fsel == SEL_LOOP) a->fval = cand[pick(nc)];
#undef LOOPS_UPTO
}

static void gen_body(program *g, int b, int *loops, int depth)
{
    int n = 1 + pick(4);
    for (int i = 0; i < n && g->ninsts < MAX_INSTS; i++) {
        if (depth < MAX_DEPTH && g->nloops < MAX_LOOPS && pick(3) == 0) {
            int l = g->nloops++;
            g->trip[l] = 1 + pick(4);
            g->loop_depth[l] = depth;
            g->body[b][g->nbody[b]++] = (item){true, l, 0, 0};
            loops[depth] = l;
            gen_body(g, l + 1, loops, depth + 1);
            if (g->nbody[l + 1] == 0) g->nbody[b]--, g->nloops--; /* no empty loops */
            continue;
        }
        int id = g->ninsts++;
        g->kind[id] = pick(3);
        choose_access(g, &g->rd[id], pick(g->nt), loops, depth);
        choose_access(g, &g->wr[id], pick(g->nt), loops, depth);
        g->inst_depth[id] = depth;
        memcpy(g->inst_loops[id], loops, sizeof(int) * MAX_DEPTH);
        g->body[b][g->nbody[b]++] = (item){false, id, 0, 0};
    }
}

static void generate(program *g)
{
    memset(g, 0, sizeof *g);
    g->nt = 2 + pick(MAX_T - 1);
    for (int t = 0; t < g->nt; t++) g->nb[t] = 1 << pick(3);
    int loops[MAX_DEPTH] = {0};
    gen_body(g, 0, loops, 0);
    /* Every tensor is written before it is first read, in program order
     * (instruction ids are): a whole Memset up front if not, and in every
     * other program always (no read sees bytes never written). */
    bool init = pick(2);
    for (int t = 0; t < g->nt; t++) {
        bool w = false;
        if (init) goto memset;
        for (int i = 0; i < g->ninsts; i++) {
            if (g->kind[i] != 0 && g->rd[i].t == t) break;
            if (g->kind[i] != 1 && g->wr[i].t == t) {
                w = true;
                break;
            }
        }
        if (w) continue;
    memset:
        cr_assert_lt(g->ninsts, MAX_INSTS + MAX_T);
        int id = g->ninsts++;
        g->kind[id] = 0;
        g->wr[id] = (access){t, SEL_ALL, 0, SEL_ALL, 0, FREE_ALL, SEL_ALL, 0};
        g->inst_depth[id] = 0;
        memmove(&g->body[0][1], &g->body[0][0], sizeof(item) * (size_t)g->nbody[0]);
        g->body[0][0] = (item){false, id, 0, 0};
        g->nbody[0]++;
    }
    for (int i = 0; i < g->ninsts; i++) g->gappy |= g->kind[i] != 1 && g->wr[i].fkind == FREE_PARITY;
}

/* ---- JSON ----------------------------------------------------------------- */

static void put_access(buf *b, const program *g, const access *a, const char *prefix)
{
    int nb = g->nb[a->t];
    long offset = 0;
    char terms[256] = "";
    size_t tn = 0;
    /* partition pair first, then the block pair, then the free pair */
    put(b, "{\"kind\": \"symbolic_ap\", \"memsetref\": \"%s%d\", \"ap\": [[%d, %d]", prefix, a->t, F,
        a->psel == SEL_ALL ? 128 : 32);
    if (a->bsel == SEL_ALL && nb > 1) put(b, ", [%d, %d]", 128 * F, nb);
    int fstep = a->fkind == FREE_PARITY ? 2 : 1, fnum = a->fkind == FREE_ALL ? F : F / 2;
    put(b, ", [%d, %d]]", fstep, fnum);
    if (a->bsel == SEL_FIXED) offset += (long)a->bval * 128 * F;
    if (a->psel == SEL_FIXED) offset += (long)a->pval * 32 * F;
    int fpart = a->fkind == FREE_HALF ? F / 2 : 1;
    if (a->fsel == SEL_FIXED) offset += (long)a->fval * fpart;
    if (a->bsel == SEL_LOOP) tn += (size_t)snprintf(terms + tn, sizeof terms - tn, "%s[\"v%d\", %d]", tn ? ", " : "", a->bval, 128 * F);
    if (a->psel == SEL_LOOP) tn += (size_t)snprintf(terms + tn, sizeof terms - tn, "%s[\"v%d\", %d]", tn ? ", " : "", a->pval, 32 * F);
    if (a->fsel == SEL_LOOP) tn += (size_t)snprintf(terms + tn, sizeof terms - tn, "%s[\"v%d\", %d]", tn ? ", " : "", a->fval, fpart);
    put(b, ", \"offset\": %ld, \"terms\": [%s]}", offset, terms);
}

static void put_body(buf *b, const program *g, int k)
{
    put(b, "[");
    for (int i = 0; i < g->nbody[k]; i++) {
        const item *it = &g->body[k][i];
        if (i) put(b, ", ");
        if (it->loop) {
            put(b, "{\"name\": \"L%d\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"v%d\", \"lb\": 0, \"ub\": %d, "
                   "\"stride\": 1}, \"blocks\": [{\"name\": \"b%d\", \"instructions\": ",
                it->id, it->id, g->trip[it->id], it->id);
            put_body(b, g, it->id + 1);
            put(b, "}]}");
            continue;
        }
        int id = it->id, kind = g->kind[id];
        static const char *const op[] = {"Memset", "DMAStore", "TensorCopy"};
        const char *name = kind == 2 && g->rd[id].t == g->wr[id].t ? "TensorTensor" : op[kind];
        put(b, "{\"name\": \"i%d\", \"opcode\": \"%s\", \"ins\": [", id, name);
        if (kind != 0) put_access(b, g, &g->rd[id], "t");
        put(b, "], \"outs\": [");
        if (kind == 1) {
            access y = g->rd[id];
            put_access(b, g, &y, "Y");
        } else {
            put_access(b, g, &g->wr[id], "t");
        }
        put(b, "]}");
    }
    put(b, "]");
}

static void to_json(buf *b, const program *g)
{
    b->n = 0;
    put(b, "{\"version\": 2, \"arch\": \"trn2\", \"functions\": [{\"name\": \"f\", \"allocations\": [");
    for (int t = 0; t < g->nt; t++)
        put(b, "%s{\"name\": \"t%d\", \"dtype\": \"float32\", \"partition_dim\": 1, \"tensor_shape\": [%d, 128, %d], "
               "\"memorylocations\": [{\"name\": \"t%d\", \"type\": \"SB\"}]}, "
               "{\"name\": \"Y%d\", \"kind\": \"ExternalOutput\", \"dtype\": \"float32\", \"partition_dim\": 1, "
               "\"tensor_shape\": [%d, 128, %d], \"memorylocations\": [{\"name\": \"Y%d\", \"type\": \"DRAM\"}]}",
            t ? ", " : "", t, g->nb[t], F, t, t, g->nb[t], F, t);
    put(b, "], \"blocks\": [{\"name\": \"e\", \"instructions\": ");
    put_body(b, g, 0);
    put(b, "}]}]}");
}

/* ---- the simulation --------------------------------------------------------- */

typedef struct sim {
    const program *g;
    int val[MAX_LOOPS];
    int nsteps;
    int inst[MAX_STEPS];
    int edge_after[MAX_STEPS];      /* the loop whose back edge follows the step, or -1 */
    int last_write[MAX_T][CELLS];
    int need_step[MAX_T][MAX_STEPS + 1]; /* difference arrays over steps and transitions */
    int need_edge[MAX_T][MAX_STEPS + 1];
    bool overflow;
    bool garbage;                   /* some read touches a cell never written before it */
} sim;

static int sel_value(const sim *s, int sel, int fixed, int loopv) { return sel == SEL_FIXED ? fixed : s->val[loopv]; }

/* The cells one execution of a touches, as a bit mask. */
static uint64_t cells_of(const sim *s, const access *a)
{
    int nb = s->g->nb[a->t];
    uint64_t m = 0;
    for (int b = 0; b < nb; b++) {
        if (a->bsel != SEL_ALL && b != sel_value(s, a->bsel, a->bval, a->bval)) continue;
        for (int q = 0; q < QUARTERS; q++) {
            if (a->psel != SEL_ALL && q != sel_value(s, a->psel, a->pval, a->pval)) continue;
            for (int f = 0; f < F; f++) {
                if (a->fkind == FREE_HALF && f / (F / 2) != sel_value(s, a->fsel, a->fval, a->fval)) continue;
                if (a->fkind == FREE_PARITY && f % 2 != sel_value(s, a->fsel, a->fval, a->fval)) continue;
                m |= 1ull << ((b * QUARTERS + q) * F + f);
            }
        }
    }
    return m;
}

static void step(sim *s, int id)
{
    if (s->nsteps == MAX_STEPS) {
        s->overflow = true;
        return;
    }
    const program *g = s->g;
    int st = s->nsteps++;
    s->inst[st] = id;
    s->edge_after[st] = -1;
    if (g->kind[id] != 0) {
        const access *a = &g->rd[id];
        uint64_t m = cells_of(s, a);
        int w = INT32_MAX;
        for (int c = 0; c < CELLS; c++) {
            if (!(m >> c & 1)) continue;
            if (s->last_write[a->t][c] < 0) s->garbage = true;
            else if (s->last_write[a->t][c] < w) w = s->last_write[a->t][c];
        }
        if (w != INT32_MAX) {
            s->need_step[a->t][w]++, s->need_step[a->t][st + 1]--;
            s->need_edge[a->t][w]++, s->need_edge[a->t][st]--;
        }
    }
    if (g->kind[id] != 1) {
        const access *a = &g->wr[id];
        uint64_t m = cells_of(s, a);
        for (int c = 0; c < CELLS; c++)
            if (m >> c & 1) s->last_write[a->t][c] = st;
    }
}

static void run_body(sim *s, int k)
{
    const program *g = s->g;
    for (int i = 0; i < g->nbody[k] && !s->overflow; i++) {
        const item *it = &g->body[k][i];
        if (!it->loop) {
            step(s, it->id);
            continue;
        }
        for (int v = 0; v < g->trip[it->id]; v++) {
            if (v > 0 && s->nsteps > 0) s->edge_after[s->nsteps - 1] = it->id;
            s->val[it->id] = v;
            run_body(s, it->id + 1);
        }
    }
}

/* ---- the comparison ----------------------------------------------------------- */

typedef struct tally {
    long programs, tensors, sbuf_checked, sbuf_skipped, needs_checked, carries_claimed;
    long unsound, spurious, spurious_gappy;
} tally;

typedef struct log_buf {
    char s[65536];
    size_t n;
} log_buf;

static void log_line(void *ud, const char *line)
{
    log_buf *l = ud;
    int w = snprintf(l->s + l->n, sizeof l->s - l->n, "%s\n", line);
    if (w > 0 && (size_t)w < sizeof l->s - l->n) l->n += (size_t)w;
}

static const bir_inst *named(const bir_function *fn, const char *name)
{
    for (uint32_t i = 0; i < fn->ninsts; i++)
        if (!strcmp(fn->insts[i]->name, name)) return fn->insts[i];
    return NULL;
}

/* One tensor's interval and carried loops against the simulation; `who`
 * names the rule's entry for the messages. */
static void compare(tally *ty, const char *json, const program *g, const sim *s, const bir_linear *lin,
                    const uint32_t *inst_point, const bir_inst *const *loop_inst, int t, uint32_t start,
                    uint32_t end, const bool *carried, bool any_carried, const char *who)
{
    bool sim_carry[MAX_LOOPS] = {false}, sim_any = false;
    int ns = 0, ne = 0;
    bool bad = false;
    for (int st = 0; st < s->nsteps; st++) {
        ns += s->need_step[t][st];
        ne += s->need_edge[t][st];
        if (ns > 0) {
            uint32_t p = inst_point[s->inst[st]];
            ty->needs_checked++;
            if (p < start || p > end) bad = true;
        }
        if (ne > 0 && s->edge_after[st] >= 0) {
            int l = s->edge_after[st];
            sim_carry[l] = sim_any = true;
            const bir_inst *L = loop_inst[l];
            if (lin->point_of[L->index] < start || lin->end_of[L->index] > end) bad = true;
        }
    }
    if (bad) {
        ty->unsound++;
        if (ty->unsound <= 3) cr_log_error("%s: t%d live [%u, %u] misses a point where it is needed:\n%s", who, t, start, end, json);
    }
    bool spurious = false;
    if (carried) {
        for (int l = 0; l < g->nloops; l++) {
            ty->carries_claimed += carried[l];
            spurious |= carried[l] && !sim_carry[l];
        }
    } else {
        ty->carries_claimed += any_carried;
        spurious = any_carried && !sim_any;
    }
    if (spurious && (g->gappy || s->garbage)) {
        ty->spurious_gappy++;
    } else if (spurious) {
        ty->spurious++;
        if (ty->spurious <= 3) cr_log_error("%s: t%d claimed loop-carried, the simulation needs no carry:\n%s", who, t, json);
    }
}

static void check_program(tally *ty, const program *g, const char *json)
{
    sba_error err;
    bir_module *m = bir_load_buffer(json, strlen(json), "generated", NULL, &err);
    cr_assert_not_null(m, "generated program rejected: %s\n%s", err.message, json);
    bir_function *fn = m->fns[0];
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    bir_linear lin;
    cr_assert_eq(bir_linearize(fn, &ar, &lin, &err), SBA_OK, "%s", err.message);
    uint32_t inst_point[MAX_INSTS + MAX_T];
    const bir_inst *loop_inst[MAX_LOOPS];
    char name[16];
    for (int i = 0; i < g->ninsts; i++) {
        snprintf(name, sizeof name, "i%d", i);
        const bir_inst *in = named(fn, name);
        cr_assert_not_null(in);
        inst_point[i] = lin.point_of[in->index];
    }
    for (int l = 0; l < g->nloops; l++) {
        snprintf(name, sizeof name, "L%d", l);
        loop_inst[l] = named(fn, name);
        cr_assert_not_null(loop_inst[l]);
    }

    static sim s;
    memset(&s, 0, sizeof s);
    s.g = g;
    memset(s.last_write, 0xff, sizeof s.last_write);
    run_body(&s, 0);
    cr_assert_not(s.overflow, "program too long for the simulation");

    /* The shared rule, one placement at a time (as PSUM and DRAM use it). */
    bir_live_scratch ls;
    cr_assert(bir_live_scratch_init(&ls, &lin, &ar));
    for (int t = 0; t < g->nt; t++) {
        snprintf(name, sizeof name, "t%d", t);
        bir_location *loc = NULL;
        for (uint32_t k = 0; k < fn->nsets; k++)
            if (!strcmp(fn->sets[k]->name, name)) loc = fn->sets[k]->locs[0];
        cr_assert_not_null(loc);
        bir_live_interval iv;
        if (!bir_live_locations(&ls, &loc, 1, false, &iv)) continue;
        bool carried[MAX_LOOPS] = {false};
        for (int l = 0; l < g->nloops; l++) carried[l] = bir_live_carried_in(&ls, loop_inst[l]);
        ty->tensors++;
        compare(ty, json, g, &s, &lin, inst_point, loop_inst, t, iv.start, iv.end, carried, false,
                "bir_live_locations");
    }

    /* The SBUF front half, through its live dump (one node per tensor when
     * nothing was split or coalesced). */
    static log_buf lb;
    lb.n = 0;
    sba_alloc_options o = {.log = log_line, .log_ud = &lb, .dump = SBA_DUMP_LIVE};
    sba_alloc_report r;
    sba_status st = sba_analyze_module(m, &o, &r, &err);
    cr_assert_eq(st, SBA_OK, "analyze: %s\n%s", err.message, json);
    sba_alloc_report_free(&r);
    lb.s[lb.n] = 0;
    if (!strstr(lb.s, "memloc split: 0 clones") || !strstr(lb.s, "found 0 accumulation groups")) {
        ty->sbuf_skipped++;
    } else {
        for (int t = 0; t < g->nt; t++) {
            char key[32];
            snprintf(key, sizeof key, "live t%d: [", t);
            const char *p = strstr(lb.s, key);
            if (!p) continue;
            unsigned a, b;
            cr_assert_eq(sscanf(p + strlen(key), "%u, %u]", &a, &b), 2);
            const char *eol = strchr(p, '\n');
            const char *lc = strstr(p, "(loop-carried)");
            ty->sbuf_checked++;
            compare(ty, json, g, &s, &lin, inst_point, loop_inst, t, a, b, NULL, lc && (!eol || lc < eol),
                    "SBUF live_range");
        }
    }
    sba_arena_free(&ar);
    bir_module_free(m);
}

Test(live_diff, random_looped_programs)
{
    static program g;
    static buf b;
    tally ty = {0};
    for (uint64_t seed = 1; seed <= PROGRAMS; seed++) {
        rng.s = seed * 0x2545f4914f6cdd1dull;
        generate(&g);
        to_json(&b, &g);
        ty.programs++;
        check_program(&ty, &g, b.s);
    }
    cr_log_info("%ld programs, %ld tensors (%ld through the SBUF dump, %ld programs skipped there), %ld needed "
                "steps checked, %ld carries claimed; %ld unsound, %ld spurious carries, %ld conservative ones "
                "(a write leaves gaps, or a read sees never-written bytes)",
                ty.programs, ty.tensors, ty.sbuf_checked, ty.sbuf_skipped, ty.needs_checked, ty.carries_claimed,
                ty.unsound, ty.spurious, ty.spurious_gappy);
    fprintf(stderr,
            "live_diff: %ld programs, %ld tensors (%ld through the SBUF dump), %ld needed steps, %ld carries claimed; "
            "%ld unsound, %ld spurious, %ld conservative (gaps, never-written bytes)\n",
            ty.programs, ty.tensors, ty.sbuf_checked, ty.needs_checked, ty.carries_claimed, ty.unsound, ty.spurious,
            ty.spurious_gappy);
    cr_assert_eq(ty.unsound, 0, "%ld tensors not live where the simulation needs them", ty.unsound);
    cr_assert_eq(ty.spurious, 0, "%ld tensors claimed loop-carried without need", ty.spurious);
}

/* The carry of t around loop L in `body` (a loop of four iterations around
 * it), through the shared rule. */
static bool carried_around_loop(const char *body)
{
    static buf b;
    b.n = 0;
    put(&b, "{\"version\": 2, \"functions\": [{\"name\": \"f\", \"allocations\": [{\"name\": \"t\", \"dtype\": "
            "\"float32\", \"tensor_shape\": [128, 8], \"memorylocations\": [{\"name\": \"t\", \"type\": \"SB\"}]}, "
            "{\"name\": \"Y\", \"kind\": \"ExternalOutput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 8], "
            "\"memorylocations\": [{\"name\": \"Y\", \"type\": \"DRAM\"}]}], \"blocks\": [{\"name\": \"e\", "
            "\"instructions\": [{\"name\": \"L\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"i\", \"lb\": 0, "
            "\"ub\": 4, \"stride\": 1}, \"blocks\": [{\"name\": \"b\", \"instructions\": [%s]}]}]}]}]}",
        body);
    sba_error err;
    bir_module *m = bir_load_buffer(b.s, b.n, "case", NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    bir_function *fn = m->fns[0];
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    bir_linear lin;
    cr_assert_eq(bir_linearize(fn, &ar, &lin, &err), SBA_OK);
    bir_live_scratch ls;
    cr_assert(bir_live_scratch_init(&ls, &lin, &ar));
    bir_location *loc = fn->sets[0]->locs[0];
    bir_live_interval iv;
    cr_assert(bir_live_locations(&ls, &loc, 1, false, &iv));
    sba_arena_free(&ar);
    bir_module_free(m);
    return iv.carried;
}

#define W(name, ap, off) \
    "{\"name\": \"" name "\", \"opcode\": \"Memset\", \"outs\": [{\"memsetref\": \"t\", \"ap\": " ap ", \"offset\": " off "}]}"
#define R "{\"name\": \"r\", \"opcode\": \"DMAStore\", \"ins\": [{\"memsetref\": \"t\", \"ap\": [[8, 128], [1, 8]]}], " \
          "\"outs\": [{\"memsetref\": \"Y\", \"ap\": [[8, 128], [1, 8]]}]}"

/* Two halves written before the read replace the whole tensor in each
 * iteration: nothing is carried. One half, or two writes of the same half,
 * leave bytes of the previous iteration. */
Test(live_rule, pieces_that_cover_together_kill)
{
    cr_assert_not(carried_around_loop(W("lo", "[[8, 64], [1, 8]]", "0") ", " W("hi", "[[8, 64], [1, 8]]", "512") ", " R));
    cr_assert_not(carried_around_loop(W("left", "[[8, 128], [1, 4]]", "0") ", " W("right", "[[8, 128], [1, 4]]", "4") ", " R));
    cr_assert(carried_around_loop(W("lo", "[[8, 64], [1, 8]]", "0") ", " R));
    cr_assert(carried_around_loop(W("lo", "[[8, 64], [1, 8]]", "0") ", " W("lo2", "[[8, 64], [1, 8]]", "0") ", " R));
    /* a read between the pieces sees the previous iteration's second half */
    cr_assert(carried_around_loop(W("lo", "[[8, 64], [1, 8]]", "0") ", " R ", " W("hi", "[[8, 64], [1, 8]]", "512")));
}

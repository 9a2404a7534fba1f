/* Exhaustive small cases: thousands of generated functions of up to six SB
 * tensors on a tiny SBUF (256 bytes per partition, 32-byte alignment: 8
 * units), each allocated by sba_allocate_module and then
 *
 *   1. checked here, from the allocated module alone: every accessed SB
 *      location is placed at an allowed start partition, aligned, within the
 *      SBUF; any two whose live ranges overlap are disjoint in partition ×
 *      byte (live range: first to last access, widened to a whole loop when
 *      the location is also accessed outside it or read before written in
 *      it), unless they are a coalesced pair that meets only where one is
 *      copied onto the other;
 *   2. proved by the independent verifier (sba_verify_module);
 *   3. compared with a brute-force packer run on the ORIGINAL function: the
 *      front half's nodes (intervals, footprints, allowed bases), every
 *      (base, address) tried with backtracking. Colouring alone leaves a
 *      gap (functions spilled although a packing exists), printed; with the
 *      exact packer the gap must be zero (asserted). A function allocated
 *      without spilling must be packable (asserted).
 *
 * The generator: tensors of 32, 64 or 128 partitions and 32-128 bytes, loaded
 * from DRAM inputs or computed by elementwise ops (copies, in-place updates,
 * two-input ops), re-loaded (memloc_split), stored, sometimes one pre-placed,
 * and a random run of instructions inside a loop of two trips. The PRNG is
 * splitmix64 with a fixed seed: the cases are the same on every run. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/rng.h"
#include "sballoc/verify.h"
#include "sbuf/sbuf.h"
#include "textbuf.h"

enum { CASES = 3000, MAX_T = 6, CAP = 256, ALIGN = 32, MAX_INSTS = 64, BUDGET = 200000 };
/* The allocator's exact packer, when it runs, gets this many work units. */
#define SEARCH_BUDGET 50000u

/* ---- PRNG -------------------------------------------------------------- */

static sba_rng rng; /* the cases' seeded stream (base/rng.h) */

static uint32_t pick(uint32_t n) { return (uint32_t)(sba_rng_next(&rng) % n); }

/* ---- the generated case -------------------------------------------------- */

typedef struct gen_case {
    uint32_t nt;
    int p[MAX_T], f[MAX_T]; /* partitions, float32 elements per partition */
    bool fixed[MAX_T];
    int fixed_base[MAX_T];
    char insts[MAX_INSTS][512];
    uint32_t ninsts;
    uint32_t loop_lo, loop_hi; /* instructions [lo, hi) in the loop; lo == hi: none */
} gen_case;

static void ap_of(char *out, size_t size, const gen_case *g, const char *prefix, uint32_t t)
{
    snprintf(out, size, "{\"memsetref\": \"%s%u\", \"ap\": [[%d, %d], [1, %d]]}", prefix, t, g->f[t], g->p[t],
             g->f[t]);
}

static void add_inst(gen_case *g, const char *op, uint32_t out, const char *out_prefix, const uint32_t *in,
                     const char *const *in_prefix, uint32_t nin)
{
    cr_assert_lt(g->ninsts, MAX_INSTS);
    char *s = g->insts[g->ninsts];
    size_t n = (size_t)snprintf(s, 512, "{\"name\": \"i%u\", \"opcode\": \"%s\", \"ins\": [", g->ninsts, op);
    char ap[128];
    for (uint32_t k = 0; k < nin; k++) {
        ap_of(ap, sizeof ap, g, in_prefix[k], in[k]);
        n += (size_t)snprintf(s + n, 512 - n, "%s%s", k ? ", " : "", ap);
    }
    ap_of(ap, sizeof ap, g, out_prefix, out);
    snprintf(s + n, 512 - n, "], \"outs\": [%s]}", ap);
    g->ninsts++;
}

static void generate(gen_case *g)
{
    static const int heights[3] = {32, 64, 128};
    memset(g, 0, sizeof *g);
    g->nt = 1 + pick(MAX_T);
    for (uint32_t t = 0; t < g->nt; t++) {
        g->p[t] = heights[pick(3)];
        g->f[t] = 8 * (1 + (int)pick(4));
    }
    if (pick(10) == 0) {
        g->fixed[0] = true;
        uint32_t mask = bir_start_partition_mask(g->p[0]), b;
        do b = pick(4); while (!(mask >> b & 1u));
        g->fixed_base[0] = 32 * (int)b;
    }
    enum { UNDEF = 0, LIVE, DEAD };
    int state[MAX_T] = {0};
    uint32_t defined = 0;
    static const char *const T[2] = {"t", "t"}, *const X[1] = {"x"};
    for (;;) {
        uint32_t live[MAX_T], nlive = 0;
        for (uint32_t t = 0; t < g->nt; t++)
            if (state[t] == LIVE) live[nlive++] = t;
        if (defined == g->nt && nlive == 0) break;
        if (g->ninsts + MAX_T + 1 >= MAX_INSTS) { /* finish: store everything live */
            for (uint32_t k = 0; k < nlive; k++) {
                uint32_t in[1] = {live[k]};
                add_inst(g, "DMAStore", live[k], "y", in, T, 1);
            }
            break;
        }
        uint32_t r = pick(10);
        if (defined < g->nt && (nlive == 0 || r < 4)) {
            uint32_t t = defined++;
            uint32_t how = nlive ? pick(4) : 0;
            if (how <= 1) {
                uint32_t in[1] = {t};
                add_inst(g, "DMALoad", t, "t", in, X, 1);
            } else {
                /* Often the source's shape and its last use: a coalescing candidate. */
                uint32_t in[2] = {live[pick(nlive)], live[pick(nlive)]};
                if (pick(2)) {
                    g->p[t] = g->p[in[0]];
                    g->f[t] = g->f[in[0]];
                }
                add_inst(g, how == 2 ? "TensorCopy" : "TensorTensor", t, "t", in, T, how == 2 ? 1 : 2);
                if (pick(2) && !g->fixed[in[0]]) state[in[0]] = DEAD;
            }
            state[t] = LIVE;
        } else if (nlive) {
            uint32_t j = live[pick(nlive)];
            uint32_t in[2] = {j, live[pick(nlive)]};
            if (r == 4) {
                add_inst(g, "TensorTensor", j, "t", in, T, 2); /* in-place update */
            } else if (r == 5) {
                in[0] = j;
                add_inst(g, "DMALoad", j, "t", in, X, 1); /* a new value: a split point */
            } else if (r <= 7) {
                add_inst(g, "DMAStore", j, "y", in, T, 1);
            } else {
                add_inst(g, "DMAStore", j, "y", in, T, 1);
                state[j] = DEAD;
            }
        }
    }
    if (g->ninsts >= 2 && pick(2)) {
        g->loop_lo = pick(g->ninsts);
        g->loop_hi = g->loop_lo + 1 + pick(g->ninsts - g->loop_lo);
    }
}

static void to_json(const gen_case *g, buf *b)
{
    b->n = 0;
    put(b, "{\"target\": {\"sbuf_bytes_per_partition\": %d, \"sbuf_alignment\": %d}, \"functions\": [{\"name\": "
           "\"f\", \"allocations\": [", CAP, ALIGN);
    for (uint32_t t = 0; t < g->nt; t++) {
        put(b, "%s{\"name\": \"x%u\", \"kind\": \"ExternalInput\", \"dtype\": \"float32\", \"tensor_shape\": "
               "[%d, %d], \"memorylocations\": [{\"name\": \"x%u\", \"type\": \"DRAM\"}]}",
            t ? ", " : "", t, g->p[t], g->f[t], t);
        put(b, ", {\"name\": \"y%u\", \"kind\": \"ExternalOutput\", \"dtype\": \"float32\", \"tensor_shape\": "
               "[%d, %d], \"memorylocations\": [{\"name\": \"y%u\", \"type\": \"DRAM\"}]}",
            t, g->p[t], g->f[t], t);
        put(b, ", {\"name\": \"t%u\", \"dtype\": \"float32\", \"tensor_shape\": [%d, %d], \"memorylocations\": "
               "[{\"name\": \"t%u\", \"type\": \"SB\"",
            t, g->p[t], g->f[t], t);
        if (g->fixed[t]) put(b, ", \"addr\": 0, \"base\": %d", g->fixed_base[t]);
        put(b, "}]}");
    }
    put(b, "], \"blocks\": [{\"name\": \"entry\", \"instructions\": [");
    for (uint32_t k = 0; k < g->ninsts; k++) {
        if (k == g->loop_lo && g->loop_lo < g->loop_hi)
            put(b, "%s{\"name\": \"L\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"i\", \"lb\": 0, \"ub\": 2, "
                   "\"stride\": 1}, \"blocks\": [{\"name\": \"body\", \"instructions\": [", k ? ", " : "");
        bool first_in_loop = k == g->loop_lo && g->loop_lo < g->loop_hi;
        put(b, "%s%s", k && !first_in_loop ? ", " : "", g->insts[k]);
        if (k + 1 == g->loop_hi && g->loop_lo < g->loop_hi) put(b, "]}]}");
    }
    put(b, "]}]}]}");
}

static bir_module *load(const buf *b)
{
    sba_error err;
    bir_module *m = bir_load_buffer(b->s, b->n, "case.json", NULL, &err);
    cr_assert_not_null(m, "load failed: %s: %s\n%s", err.path, err.message, b->s);
    return m;
}

/* ---- the brute-force packer on the original function ---------------------- */

typedef struct bnode {
    int64_t p, units;
    uint32_t mask; /* allowed bases, bit i = partition 32·i */
    uint32_t start, end;
    bool fixed;
    int32_t base;
    int64_t at; /* address in units */
} bnode;

typedef struct packer {
    bnode v[MAX_T * 4];
    uint32_t n;
    int64_t cap_units;
    uint64_t visited;
} packer;

static bool clash(const bnode *a, const bnode *b)
{
    return a->start <= b->end && b->start <= a->end && a->base < b->base + b->p && b->base < a->base + a->p &&
           a->at < b->at + b->units && b->at < a->at + a->units;
}

/* A quick proof that nothing packs: at some point the live nodes need more
 * quarter-band × unit area than the SBUF has (a base is a multiple of 32, so
 * a node of P partitions takes ceil(P/32) quarters over its byte range). */
static bool area_exceeded(const packer *k)
{
    for (uint32_t i = 0; i < k->n; i++) {
        int64_t area = 0;
        for (uint32_t j = 0; j < k->n; j++)
            if (k->v[j].start <= k->v[i].start && k->v[i].start <= k->v[j].end)
                area += (k->v[j].p + 31) / 32 * k->v[j].units;
        if (area > 4 * k->cap_units) return true;
    }
    return false;
}

/* Largest area first (fixed nodes stay in front): failures show early. */
static void order_nodes(packer *k)
{
    for (uint32_t i = 1; i < k->n; i++)
        for (uint32_t j = i; j > 0 && !k->v[j - 1].fixed && !k->v[j].fixed &&
                             k->v[j - 1].p * k->v[j - 1].units < k->v[j].p * k->v[j].units;
             j--) {
            bnode t = k->v[j];
            k->v[j] = k->v[j - 1];
            k->v[j - 1] = t;
        }
}

/* 1: packed, 0: no packing, -1: budget exhausted. */
static int pack(packer *k, uint32_t i)
{
    if (i == k->n) return 1;
    if (++k->visited > BUDGET) return -1;
    bnode *x = &k->v[i];
    if (x->fixed) {
        for (uint32_t j = 0; j < i; j++)
            if (clash(x, &k->v[j])) return 0;
        return pack(k, i + 1);
    }
    for (int32_t b = 0; b < 4; b++) {
        if (!(x->mask >> b & 1u) || 32 * b + x->p > 128) continue;
        x->base = 32 * b;
        for (x->at = 0; x->at + x->units <= k->cap_units; x->at++) {
            bool ok = true;
            for (uint32_t j = 0; j < i && ok; j++) ok = !clash(x, &k->v[j]);
            if (!ok) continue;
            int r = pack(k, i + 1);
            if (r != 0) return r;
        }
    }
    return 0;
}

/* The front half of the allocator on function 0 (the driver's order), its
 * representatives as packer nodes, fixed ones first. */
static void front_nodes(bir_module *m, packer *k)
{
    sba_alloc_options o = {0};
    sba_function_report rep = {0};
    sba_error err = {0};
    sb_ctx c;
    sb_ctx_init(&c, m->fns[0], &m->target, &o, &rep, &err);
    sba_status st = bir_validate_module(m, &err);
    if (st == SBA_OK) st = sb_setup(&c);
    if (st == SBA_OK) st = sb_front_half(&c, SB_TO_LIVE);
    cr_assert_eq(st, SBA_OK, "front half: %s", err.message);
    k->n = 0;
    k->cap_units = m->target.sbuf_bytes / m->target.sbuf_align;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t r = 0; r < c.n; r++) {
            const sb_node *nd = &c.info[r];
            if (nd->rep != r || nd->precoloured != (pass == 0)) continue;
            cr_assert_lt(k->n, sizeof k->v / sizeof k->v[0]);
            k->v[k->n++] = (bnode){.p = nd->partitions, .units = nd->bytes / m->target.sbuf_align,
                                   .mask = nd->base_mask, .start = nd->start, .end = nd->end,
                                   .fixed = nd->precoloured, .base = nd->base,
                                   .at = nd->precoloured ? nd->addr / m->target.sbuf_align : 0};
        }
    sb_ctx_free(&c);
}

/* ---- the independent check of an allocated module ------------------------- */

typedef struct lrange {
    const bir_location *loc;
    uint32_t lo, hi;
    bool any;
    int64_t p, bytes; /* the placed rectangle: partitions × bytes per partition */
} lrange;

static uint32_t pt_of(const bir_linear *lin, const bir_inst *in) { return lin->point_of[in->index]; }

/* [first access, last access], widened to every loop that holds an access
 * and that the location is accessed outside of, or first read in. */
static lrange live_of(const bir_linear *lin, const bir_location *loc)
{
    lrange r = {loc, UINT32_MAX, 0, false, 0, 0};
    const bir_storage *s = &loc->storage;
    for (int w = 0; w < 2; w++)
        for (uint32_t k = 0; k < (w ? s->nwriters : s->nreaders); k++) {
            uint32_t p = pt_of(lin, (w ? s->writers : s->readers)[k].inst);
            if (p < r.lo) r.lo = p;
            if (p > r.hi) r.hi = p;
            r.any = true;
        }
    if (!r.any) return r;
    for (uint32_t pi = 0; pi < lin->npoints; pi++) {
        const bir_point *pt = &lin->points[pi];
        if (pt->kind != BIR_PT_LOOP_HEADER) continue;
        uint32_t h = pi, e = lin->end_of[pt->inst->index];
        bool inside = false, outside = false, first_read = false;
        uint32_t first = UINT32_MAX;
        for (int w = 0; w < 2; w++)
            for (uint32_t k = 0; k < (w ? s->nwriters : s->nreaders); k++) {
                uint32_t p = pt_of(lin, (w ? s->writers : s->readers)[k].inst);
                if (p > h && p < e) {
                    inside = true;
                    if (p < first || (p == first && !w)) first = p, first_read = !w;
                } else {
                    outside = true;
                }
            }
        if (inside && (outside || first_read)) {
            if (h < r.lo) r.lo = h;
            if (e > r.hi) r.hi = e;
        }
    }
    return r;
}

static bool same_operand(const bir_operand *a, const bir_operand *b)
{
    return a->offset == b->offset && a->ndims == b->ndims && !memcmp(a->ap, b->ap, a->ndims * sizeof *a->ap);
}

/* a and b share one region and meet only at an elementwise instruction that
 * reads one and writes the other through the same pattern. */
static bool coalesced(const bir_linear *lin, const lrange *a, const lrange *b)
{
    const bir_location *x = a->loc, *y = b->loc;
    if (x->addr != y->addr || x->base != y->base || a->p != b->p || a->bytes != b->bytes) return false;
    if (a->hi != b->lo && b->hi != a->lo) return false;
    if (a->hi == b->lo && b->hi == a->lo) return false;
    uint32_t p = a->hi == b->lo ? a->hi : b->hi;
    const bir_location *dies = a->hi == b->lo ? x : y, *born = a->hi == b->lo ? y : x;
    const bir_point *pt = &lin->points[p];
    if (pt->kind != BIR_PT_INST) return false;
    const bir_inst *in = pt->inst;
    if (in->nouts != 1 || in->outs[0].loc != born) return false;
    for (uint32_t k = 0; k < in->nins; k++)
        if (in->ins[k].loc == dies && same_operand(&in->ins[k], &in->outs[0])) return true;
    return false;
}

static void check_module(const bir_module *m, const char *text)
{
    const bir_function *fn = m->fns[0];
    const sba_target *t = &m->target;
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    bir_linear lin;
    sba_error err;
    cr_assert_eq(bir_linearize(fn, &ar, &lin, &err), SBA_OK);
    lrange v[256];
    uint32_t n = 0;
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++) {
            const bir_location *loc = fn->sets[s]->locs[l];
            if (loc->type != BIR_MEM_SB) continue;
            lrange r = live_of(&lin, loc);
            if (!r.any) continue;
            int64_t p = bir_set_partitions(loc->set), nb = bir_set_nblocks(loc->set);
            int64_t bytes = (loc->live_n > 0 ? loc->live_n : nb) * bir_set_bytes_per_block(loc->set);
            cr_assert(loc->addr >= 0 && loc->base >= 0, "%s unplaced\n%s", loc->name, text);
            cr_assert(loc->live_n <= nb, "%s: live_n %lld", loc->name, (long long)loc->live_n);
            cr_assert(bir_start_partition_mask(p) >> (loc->base / 32) & 1u, "%s: base %d for %lld partitions\n%s",
                      loc->name, loc->base, (long long)p, text);
            cr_assert_eq(loc->base % 32, 0, "%s: base %d", loc->name, loc->base);
            cr_assert_leq(loc->base + p, t->partitions, "%s", loc->name);
            cr_assert_eq(loc->addr % t->sbuf_align, 0, "%s: addr %lld", loc->name, (long long)loc->addr);
            if (loc->has_dims) cr_assert(loc->dims[0] == p && loc->dims[1] == bytes, "%s dims", loc->name);
            cr_assert_leq(loc->addr + bytes, t->sbuf_bytes, "%s beyond capacity\n%s", loc->name, text);
            cr_assert_lt(n, 256);
            r.p = p;
            r.bytes = bytes;
            v[n++] = r;
        }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            const bir_location *a = v[i].loc, *b = v[j].loc;
            if (v[i].hi < v[j].lo || v[j].hi < v[i].lo) continue;
            bool apart = a->base + v[i].p <= b->base || b->base + v[j].p <= a->base ||
                         a->addr + v[i].bytes <= b->addr || b->addr + v[j].bytes <= a->addr;
            if (apart || coalesced(&lin, &v[i], &v[j])) continue;
            cr_assert_fail("%s [%u,%u] at (%d, %lld) and %s [%u,%u] at (%d, %lld) overlap\n%s", a->name, v[i].lo,
                           v[i].hi, a->base, (long long)a->addr, b->name, v[j].lo, v[j].hi, b->base,
                           (long long)b->addr, text);
        }
    sba_arena_free(&ar);
}

/* ---- the test ------------------------------------------------------------- */

enum { SEARCH_INFEASIBLE = 2 }; /* sba_function_report.search_outcome: proved that nothing packs */

typedef struct tally {
    uint32_t spilled, errors, gap, gap_error, partnered, split, verified, proved;
} tally;

/* Allocates a fresh copy of the case with the exact packer's budget (1: the
 * colourer alone), checks it, and counts. */
static void allocate_case(const buf *text, uint32_t c, int packed, uint64_t budget, tally *t)
{
    bir_module *m = load(text);
    sba_alloc_options o = {.search_budget = budget};
    sba_alloc_report r;
    sba_error err;
    sba_status st = sba_allocate_module(m, &o, &r, &err);
    if (st != SBA_OK) {
        cr_assert_eq(st, SBA_ERR_ALLOC, "case %u: %s: %s\n%s", c, sba_status_name(st), err.message, text->s);
        t->errors++;
        t->gap_error += packed == 1;
    } else {
        const sba_function_report *fr = &r.fns[0];
        /* a proof that nothing packs must be sound (where the search sees
         * the function's own tensors: no partner group) */
        if (fr->partner_groups == 0)
            cr_assert(fr->search_outcome != SEARCH_INFEASIBLE || packed != 1,
                      "case %u: the search proved no packing exists, yet the brute force found one\n%s", c, text->s);
        t->proved += fr->search_outcome == SEARCH_INFEASIBLE;
        t->partnered += fr->partner_groups > 0;
        t->split += fr->split_clones > 0;
        if (fr->spilled) {
            t->spilled++;
            t->gap += packed == 1;
        } else {
            cr_assert_neq(packed, 0, "case %u: allocated without spilling, yet the brute force found no "
                          "packing\n%s", c, text->s);
        }
        check_module(m, text->s);
        sba_verify_report vr;
        sba_status vs = sba_verify_module(m, &vr, &err);
        cr_assert_eq(vs, SBA_OK, "case %u: verifier: %s\n%s", c, err.message, text->s);
        t->verified++;
    }
    sba_alloc_report_free(&r);
    bir_module_free(m);
}

static void print_tally(const char *what, const tally *t)
{
    printf("sbuf exhaustive, %s: %u spilled, %u failed (SBA_ERR_ALLOC), %u verified, %u proved unpackable by the "
           "search; GAP: %u spilled and %u failed although a packing exists\n",
           what, t->spilled, t->errors, t->verified, t->proved, t->gap, t->gap_error);
}

Test(sbuf_exhaustive, small_functions_are_valid_and_none_spills_that_packs, .timeout = 300)
{
    rng.s = 0x5ba11c0c;
    static gen_case g;
    static buf text;
    static packer k;
    uint32_t packable = 0, unpackable = 0, unknown = 0, looped = 0;
    tally colour = {0}, searched = {0};
    for (uint32_t c = 0; c < CASES; c++) {
        generate(&g);
        to_json(&g, &text);
        looped += g.loop_lo < g.loop_hi;

        bir_module *orig = load(&text);
        memset(&k, 0, sizeof k);
        front_nodes(orig, &k);
        order_nodes(&k);
        int packed = area_exceeded(&k) ? 0 : pack(&k, 0);
        bir_module_free(orig);
        packable += packed == 1;
        unpackable += packed == 0;
        unknown += packed < 0;

        uint32_t before = colour.spilled + colour.errors;
        allocate_case(&text, c, packed, 1, &colour);
        /* The exact packer runs only where select failed: elsewhere the
         * second allocation would repeat the first. */
        if (colour.spilled + colour.errors > before) allocate_case(&text, c, packed, SEARCH_BUDGET, &searched);
    }
    printf("sbuf exhaustive: %u cases (%u with a loop, %u with partners, %u split); brute force: %u packable, "
           "%u not, %u unknown\n",
           CASES, looped, colour.partnered, colour.split, packable, unpackable, unknown);
    print_tally("colouring alone", &colour);
    print_tally("with the exact packer", &searched);
    fflush(stdout);
    cr_assert_eq(searched.gap + searched.gap_error, 0u,
                 "the exact packer left %u functions spilled or failed although a packing exists",
                 searched.gap + searched.gap_error);
}

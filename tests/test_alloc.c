/* The SBUF allocator's back half, end to end through sba_allocate_module:
 * exact placements of small cases, the bundled examples on their targets,
 * spill code in and around loops (a value live across a loop, a loop-carried
 * accumulator, a rematerialized load), partners, pre-placed tensors, the
 * best-fit and greedy-size strategies, the fixpoint guard, determinism, and
 * generated kernels at pressures up to three times the SBUF.
 *
 * Every allocation is checked twice: by the independent verifier
 * (sba_verify_module) and by check_disjoint below, which recomputes each SB
 * placement's live range from the allocated program alone and asserts that
 * no two placements live at the same time share a partition and a byte.
 *
 * The small cases run on custom targets given by the module's "target" key:
 * a few hundred bytes per partition with 32-byte alignment, so that a handful
 * of [128, F] float32 tensors (4F bytes per partition) fill the SBUF. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "sballoc/alloc.h"
#include "sballoc/bir.h"
#include "sballoc/gen.h"
#include "sballoc/program.h"
#include "sballoc/verify.h"

/* ---- JSON builders ----------------------------------------------------- */

/* A module of one function "f" on an SBUF of `cap` bytes per partition. */
#define MODULE(cap, sets, body)                                                                          \
    "{\"target\": {\"sbuf_bytes_per_partition\": " #cap ", \"sbuf_alignment\": 32}, \"functions\": [{" \
    "\"name\": \"f\", \"allocations\": [" sets "], \"blocks\": [{\"name\": \"entry\", "                 \
    "\"instructions\": [" body "]}]}]}"

/* A float32 set [P, F] with one placement named like the set. */
#define TENSOR(name, kind, type, P, F)                                                                 \
    "{\"name\": \"" name "\", \"kind\": \"" kind "\", \"dtype\": \"float32\", \"tensor_shape\": [" #P \
    ", " #F "], \"memorylocations\": [{\"name\": \"" name "\", \"type\": \"" type "\"}]}"
#define SBT(name, P, F) TENSOR(name, "Internal", "SB", P, F)
#define DIN(name, P, F) TENSOR(name, "ExternalInput", "DRAM", P, F)
#define DOUT(name, P, F) TENSOR(name, "ExternalOutput", "DRAM", P, F)
/* An SB set pre-placed at (addr, base). */
#define PRE(name, P, F, addr, base)                                                                     \
    "{\"name\": \"" name "\", \"dtype\": \"float32\", \"tensor_shape\": [" #P ", " #F "], "           \
    "\"memorylocations\": [{\"name\": \"" name "\", \"type\": \"SB\", \"addr\": " #addr ", \"base\": " \
    #base "}]}"

/* The whole of a [P, F] tensor. */
#define OP(set, P, F) "{\"memsetref\": \"" set "\", \"ap\": [[" #F ", " #P "], [1, " #F "]]}"
#define INST(name, op, ins, outs)                                                                      \
    "{\"name\": \"" name "\", \"opcode\": \"" op "\", \"ins\": [" ins "], \"outs\": [" outs "]}"
#define LOOP(name, axis, trips, body)                                                                  \
    "{\"name\": \"" name "\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"" axis "\", \"lb\": 0, " \
    "\"ub\": " #trips ", \"stride\": 1}, \"blocks\": [{\"name\": \"" name "_body\", \"instructions\": [" \
    body "]}]}"

/* Full-height [128, F] tensors. */
#define W(set, F) OP(set, 128, F)
#define LOAD(name, src, dst, F) INST(name, "DMALoad", W(src, F), W(dst, F))
#define STORE(name, src, dst, F) INST(name, "DMAStore", W(src, F), W(dst, F))

/* ---- allocation and checks --------------------------------------------- */

typedef struct run {
    bir_module *m;
    sba_function_report rep; /* function 0 */
    sba_error err;
    sba_status st;
} run;

static bir_module *load_text(const char *text)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "test.json", NULL, &err);
    cr_assert_not_null(m, "load failed: %s: %s\n%s", err.path, err.message, text);
    return m;
}

/* Allocates m with `strategy`; keeps function 0's report. */
static void allocate(run *r, bir_module *m, uint32_t strategy)
{
    memset(r, 0, sizeof *r);
    r->m = m;
    sba_alloc_options o = {.strategy = strategy};
    sba_alloc_report rep;
    r->st = sba_allocate_module(m, &o, &rep, &r->err);
    if (rep.nfns) r->rep = rep.fns[0];
    sba_alloc_report_free(&rep);
}

static bir_location *find_loc(const bir_module *m, const char *name)
{
    const bir_function *fn = m->fns[0];
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++)
            if (!strcmp(fn->sets[s]->locs[l]->name, name)) return fn->sets[s]->locs[l];
    cr_assert_fail("no location %s", name);
    return NULL;
}

static bir_inst *find_inst(const bir_module *m, const char *name)
{
    bir_inst *in = bir_function_find_inst(m->fns[0], name);
    cr_assert_not_null(in, "no instruction %s", name);
    return in;
}

/* One SB placement as check_disjoint sees it: a rectangle and an inclusive
 * interval of program points. */
typedef struct placed {
    const bir_location *loc;
    int64_t p0, p1, a0, a1;  /* partitions [p0, p1), bytes [a0, a1) */
    uint32_t lo, hi;         /* live over points [lo, hi] */
    uint32_t first_inst;     /* the instruction of the first access */
    uint32_t last_inst;      /* the instruction of the last access */
} placed;

/* One access of a placement: its program point and whether it writes. */
typedef struct access_pt {
    uint32_t point;
    bool write;
} access_pt;

/* The live range of loc, from the program alone: first to last access; a
 * loop that holds some accesses and not others stretches the range to its
 * header (accesses after it) or its end (accesses before it); a loop whose
 * first access of loc is a read and that also writes loc carries a value
 * around its back edge, so the range covers the whole loop. */
static bool live_range_of(const bir_linear *lin, const bir_location *loc, uint32_t *lo_out, uint32_t *hi_out,
                          uint32_t *first_inst, uint32_t *last_inst)
{
    const bir_storage *s = &loc->storage;
    uint32_t n = s->nreaders + s->nwriters;
    if (!n) return false;
    access_pt *v = calloc(n, sizeof *v);
    const bir_inst **owner = calloc(n, sizeof *owner);
    cr_assert(v && owner);
    for (uint32_t i = 0; i < n; i++) {
        bool w = i >= s->nreaders;
        const bir_access *a = w ? &s->writers[i - s->nreaders] : &s->readers[i];
        v[i] = (access_pt){lin->point_of[a->inst->index], w};
        owner[i] = a->inst;
    }
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].point < lo) lo = v[i].point, *first_inst = owner[i]->index;
        if (v[i].point > hi) hi = v[i].point, *last_inst = owner[i]->index;
    }
    uint32_t nlo = lo, nhi = hi;
    for (uint32_t i = 0; i < n; i++) {
        const bir_inst *in = owner[i];
        for (uint32_t d = 0; d < lin->depth[in->index]; d++) {
            const bir_inst *loop = lin->nest[in->index][d];
            uint32_t h = lin->point_of[loop->index], e = lin->end_of[loop->index];
            bool before = false, after = false, writes = false;
            /* the first access inside the loop: lowest point, a read first */
            uint32_t first_pt = UINT32_MAX;
            bool first_is_read = false;
            for (uint32_t j = 0; j < n; j++) {
                if (v[j].point < h) before = true;
                if (v[j].point > e) after = true;
                if (v[j].point < h || v[j].point > e) continue;
                if (v[j].write) writes = true;
                if (v[j].point < first_pt) first_pt = v[j].point, first_is_read = !v[j].write;
                else if (v[j].point == first_pt && !v[j].write) first_is_read = true;
            }
            if (before && e > nhi) nhi = e;
            if (after && h < nlo) nlo = h;
            if (first_is_read && writes) {
                if (h < nlo) nlo = h;
                if (e > nhi) nhi = e;
            }
        }
    }
    free(v);
    free(owner);
    *lo_out = nlo;
    *hi_out = nhi;
    return true;
}

/* Whether two SB placements of fn live at the same time overlap in
 * partition × byte; the first such pair is described in msg. Two placements
 * may meet at one point only when one is last accessed and the other first
 * accessed by the same instruction and they occupy the same rectangle: a
 * copy onto its coalesced partner. */
static bool find_overlap(const bir_function *fn, char *msg, size_t size)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    bir_linear lin;
    sba_error err;
    cr_assert_eq(bir_linearize(fn, &ar, &lin, &err), SBA_OK, "%s", err.message);
    uint32_t cap = 0;
    for (uint32_t s = 0; s < fn->nsets; s++) cap += fn->sets[s]->nlocs;
    placed *pl = calloc(cap ? cap : 1, sizeof *pl);
    cr_assert_not_null(pl);
    uint32_t n = 0;
    for (uint32_t s = 0; s < fn->nsets; s++) {
        const bir_set *set = fn->sets[s];
        for (uint32_t l = 0; l < set->nlocs; l++) {
            const bir_location *loc = set->locs[l];
            if (loc->type != BIR_MEM_SB) continue;
            placed p = {.loc = loc};
            if (!live_range_of(&lin, loc, &p.lo, &p.hi, &p.first_inst, &p.last_inst)) continue;
            cr_assert(loc->addr >= 0 && loc->base >= 0, "%s is accessed but not placed", loc->name);
            int64_t blocks = loc->live_n ? loc->live_n : bir_set_nblocks(set);
            int64_t parts = loc->has_dims ? loc->dims[0] : bir_set_partitions(set);
            int64_t bytes = loc->has_dims ? loc->dims[1] : blocks * bir_set_bytes_per_block(set);
            p.p0 = loc->base;
            p.p1 = loc->base + parts;
            p.a0 = loc->addr;
            p.a1 = loc->addr + bytes;
            cr_assert_leq(p.p1, fn->module->target.partitions, "%s beyond the partitions", loc->name);
            cr_assert_leq(p.a1, fn->module->target.sbuf_bytes, "%s beyond the SBUF", loc->name);
            pl[n++] = p;
        }
    }
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++)
        for (uint32_t j = i + 1; j < n && !found; j++) {
            const placed *x = &pl[i], *y = &pl[j];
            bool space = x->p0 < y->p1 && y->p0 < x->p1 && x->a0 < y->a1 && y->a0 < x->a1;
            bool time = x->lo <= y->hi && y->lo <= x->hi;
            if (!space || !time) continue;
            bool same_rect = x->p0 == y->p0 && x->p1 == y->p1 && x->a0 == y->a0 && x->a1 == y->a1;
            bool handover = (x->hi == y->lo && x->last_inst == y->first_inst) ||
                            (y->hi == x->lo && y->last_inst == x->first_inst);
            if (same_rect && handover) continue;
            found = true;
            snprintf(msg, size,
                     "%s (partitions [%lld, %lld) bytes [%lld, %lld) live [%u, %u]) overlaps %s (partitions "
                     "[%lld, %lld) bytes [%lld, %lld) live [%u, %u]) in function %s",
                     x->loc->name, (long long)x->p0, (long long)x->p1, (long long)x->a0, (long long)x->a1, x->lo,
                     x->hi, y->loc->name, (long long)y->p0, (long long)y->p1, (long long)y->a0, (long long)y->a1,
                     y->lo, y->hi, fn->name);
        }
    free(pl);
    sba_arena_free(&ar);
    return found;
}

static void check_disjoint_function(const bir_function *fn)
{
    char msg[1024];
    cr_assert_not(find_overlap(fn, msg, sizeof msg), "%s", msg);
}

/* The allocation succeeded, the verifier proves it, and no two live
 * placements overlap. */
static void check_ok(const run *r)
{
    cr_assert_eq(r->st, SBA_OK, "allocation failed (%s): %s", sba_status_name(r->st), r->err.message);
    sba_error err;
    sba_status st = sba_verify_module(r->m, NULL, &err);
    cr_assert_eq(st, SBA_OK, "verifier (%s): %s", sba_status_name(st), err.message);
    for (uint32_t f = 0; f < r->m->nfns; f++) check_disjoint_function(r->m->fns[f]);
}

/* Loads text, allocates it with `strategy` and checks the result. */
static void alloc_ok(run *r, const char *text, uint32_t strategy)
{
    allocate(r, load_text(text), strategy);
    check_ok(r);
}

static void assert_at(const bir_module *m, const char *name, int64_t base, int64_t addr)
{
    const bir_location *loc = find_loc(m, name);
    cr_assert(loc->base == base && loc->addr == addr, "%s at (base %lld, addr %lld), expected (%lld, %lld)", name,
              (long long)loc->base, (long long)loc->addr, (long long)base, (long long)addr);
}

/* Whether the instruction sits inside a loop. */
static bool in_loop(const bir_inst *in) { return in->parent && in->parent->loop; }

/* Number of instructions of function 0 whose name contains `part`, and of
 * those inside a loop. */
static uint32_t count_insts(const bir_module *m, const char *part, uint32_t *inside)
{
    const bir_function *fn = m->fns[0];
    uint32_t n = 0, k = 0;
    for (uint32_t i = 0; i < fn->ninsts; i++)
        if (strstr(fn->insts[i]->name, part)) {
            n++;
            if (in_loop(fn->insts[i])) k++;
        }
    if (inside) *inside = k;
    return n;
}

/* ====================================================================== */
/* exact placements of small cases                                        */
/* ====================================================================== */

/* a dies before b is born: both take the bottom of the SBUF. */
Test(placement, disjoint_lives_share_address_0)
{
    run r;
    alloc_ok(&r,
             MODULE(1024, DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " SBT("a", 128, 16) ", " SBT("b", 128, 16),
                    LOAD("la", "x", "a", 16) ", " STORE("sa", "a", "y", 16) ", " LOAD("lb", "x", "b", 16) ", "
                    STORE("sb", "b", "y", 16)),
             SBA_STRATEGY_COLORING);
    assert_at(r.m, "a", 0, 0);
    assert_at(r.m, "b", 0, 0);
    cr_assert_eq(r.rep.iterations, 1);
    cr_assert_eq(r.rep.spilled, 0);
    bir_module_free(r.m);
}

/* Three full-height tensors of 64, 128 and 32 bytes live together stack
 * from address 0 with no gap: 0, s1, s1 + s2 in the order they are placed. */
#define THREE_FULL                                                                                        \
    MODULE(1024,                                                                                         \
           DIN("x8", 128, 8) ", " DIN("x16", 128, 16) ", " DIN("x32", 128, 32) ", " DOUT("y8", 128, 8) ", " \
           DOUT("y16", 128, 16) ", " DOUT("y32", 128, 32) ", " SBT("a", 128, 16) ", " SBT("b", 128, 32)      \
           ", " SBT("c", 128, 8),                                                                           \
           LOAD("la", "x16", "a", 16) ", " LOAD("lb", "x32", "b", 32) ", " LOAD("lc", "x8", "c", 8) ", "     \
           STORE("sa", "a", "y16", 16) ", " STORE("sb", "b", "y32", 32) ", " STORE("sc", "c", "y8", 8))

Test(placement, three_full_height_tensors_stack)
{
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        run r;
        alloc_ok(&r, THREE_FULL, s);
        const bir_location *v[3] = {find_loc(r.m, "a"), find_loc(r.m, "b"), find_loc(r.m, "c")};
        int64_t size[3] = {64, 128, 32}, top = 0;
        for (int i = 0; i < 3; i++) {
            cr_assert_eq(v[i]->base, 0);
            cr_assert_eq(v[i]->dims[1], size[i]);
            if (v[i]->addr + size[i] > top) top = v[i]->addr + size[i];
        }
        cr_assert_eq(top, 224, "%s: the three pack with no gap, top %lld", sba_strategy_name(s), (long long)top);
        if (s == SBA_STRATEGY_COLORING) {
            /* the colourer places a, b, c: 0, 64, 64 + 128 */
            assert_at(r.m, "a", 0, 0);
            assert_at(r.m, "b", 0, 64);
            assert_at(r.m, "c", 0, 192);
        } else {
            /* the size orders place b, a, c: 0, 128, 128 + 64 */
            assert_at(r.m, "b", 0, 0);
            assert_at(r.m, "a", 0, 128);
            assert_at(r.m, "c", 0, 192);
        }
        bir_module_free(r.m);
    }
}

/* Four quarter-height tensors live together: one per quarter, all at
 * address 0. A fifth goes back to the first quarter, above the first. */
#define QUARTERS(extra_set, extra_load, extra_store)                                                     \
    MODULE(1024,                                                                                         \
           DIN("x", 32, 16) ", " DOUT("y", 32, 16) ", " SBT("q0", 32, 16) ", " SBT("q1", 32, 16) ", "         \
           SBT("q2", 32, 16) ", " SBT("q3", 32, 16) extra_set,                                           \
           INST("l0", "DMALoad", OP("x", 32, 16), OP("q0", 32, 16)) ", "                                 \
           INST("l1", "DMALoad", OP("x", 32, 16), OP("q1", 32, 16)) ", "                                 \
           INST("l2", "DMALoad", OP("x", 32, 16), OP("q2", 32, 16)) ", "                                 \
           INST("l3", "DMALoad", OP("x", 32, 16), OP("q3", 32, 16)) extra_load ", "                       \
           INST("s0", "DMAStore", OP("q0", 32, 16), OP("y", 32, 16)) ", "                                \
           INST("s1", "DMAStore", OP("q1", 32, 16), OP("y", 32, 16)) ", "                                \
           INST("s2", "DMAStore", OP("q2", 32, 16), OP("y", 32, 16)) ", "                                \
           INST("s3", "DMAStore", OP("q3", 32, 16), OP("y", 32, 16)) extra_store)

Test(placement, quarter_height_tensors_spread_over_the_bands)
{
    run r;
    alloc_ok(&r, QUARTERS("", "", ""), SBA_STRATEGY_COLORING);
    assert_at(r.m, "q0", 0, 0);
    assert_at(r.m, "q1", 32, 0);
    assert_at(r.m, "q2", 64, 0);
    assert_at(r.m, "q3", 96, 0);
    for (int b = 0; b < SBA_BANDS; b++) cr_assert_eq(r.rep.high_water[b], 64, "band %d", b);
    bir_module_free(r.m);

    alloc_ok(&r,
             QUARTERS(", " SBT("q4", 32, 16), ", " INST("l4", "DMALoad", OP("x", 32, 16), OP("q4", 32, 16)),
                      ", " INST("s4", "DMAStore", OP("q4", 32, 16), OP("y", 32, 16))),
             SBA_STRATEGY_COLORING);
    assert_at(r.m, "q4", 0, 64);
    bir_module_free(r.m);
}

/* A half-height and two quarter-height tensors: the half takes partitions
 * 0-63, the quarters the free upper half, side by side at address 0. */
Test(placement, half_and_quarters_share_address_0)
{
    run r;
    alloc_ok(&r,
             MODULE(1024,
                    DIN("xh", 64, 16) ", " DIN("xq", 32, 16) ", " DOUT("yh", 64, 16) ", " DOUT("yq", 32, 16) ", "
                    SBT("h", 64, 16) ", " SBT("q0", 32, 16) ", " SBT("q1", 32, 16),
                    INST("lh", "DMALoad", OP("xh", 64, 16), OP("h", 64, 16)) ", "
                    INST("l0", "DMALoad", OP("xq", 32, 16), OP("q0", 32, 16)) ", "
                    INST("l1", "DMALoad", OP("xq", 32, 16), OP("q1", 32, 16)) ", "
                    INST("sh", "DMAStore", OP("h", 64, 16), OP("yh", 64, 16)) ", "
                    INST("s0", "DMAStore", OP("q0", 32, 16), OP("yq", 32, 16)) ", "
                    INST("s1", "DMAStore", OP("q1", 32, 16), OP("yq", 32, 16))),
             SBA_STRATEGY_COLORING);
    const bir_location *h = find_loc(r.m, "h"), *q0 = find_loc(r.m, "q0"), *q1 = find_loc(r.m, "q1");
    cr_assert_eq(h->addr, 0);
    cr_assert_eq(q0->addr, 0);
    cr_assert_eq(q1->addr, 0);
    /* the half at 0 or 64, the quarters in the other half, one each */
    int64_t other = h->base == 0 ? 64 : 0;
    cr_assert(h->base == 0 || h->base == 64);
    cr_assert(q0->base != q1->base);
    cr_assert(q0->base == other || q0->base == other + 32, "q0 at %d", q0->base);
    cr_assert(q1->base == other || q1->base == other + 32, "q1 at %d", q1->base);
    bir_module_free(r.m);
}

/* The overlap check itself: moving b onto a, which is live with it, is
 * caught here and by the verifier; moving it into free space is not. */
Test(placement, overlap_check_catches_a_moved_tensor)
{
    run r;
    alloc_ok(&r, THREE_FULL, SBA_STRATEGY_COLORING);
    bir_location *b = find_loc(r.m, "b");
    char msg[1024];
    b->addr = find_loc(r.m, "a")->addr;
    cr_assert(find_overlap(r.m->fns[0], msg, sizeof msg));
    cr_assert_not_null(strstr(msg, "overlaps"), "%s", msg);
    sba_error err;
    cr_assert_neq(sba_verify_module(r.m, NULL, &err), SBA_OK);
    b->addr = 512;
    cr_assert_not(find_overlap(r.m->fns[0], msg, sizeof msg), "%s", msg);
    cr_assert_eq(sba_verify_module(r.m, NULL, &err), SBA_OK, "%s", err.message);
    bir_module_free(r.m);
}

/* ====================================================================== */
/* the bundled examples                                                   */
/* ====================================================================== */

static bir_module *load_example(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", SBALLOC_SOURCE_DIR, name);
    sba_error err;
    bir_module *m = bir_load_file(path, NULL, &err);
    cr_assert_not_null(m, "%s: %s: %s", path, err.path, err.message);
    return m;
}

static const char *const examples[] = {"matmul_tiled.json", "softmax_rows.json", "attention.json",
                                       "preplaced.json",    "dram_alias.json",   "spill_pressure.json"};

Test(examples, every_example_allocates_on_its_target_and_verifies)
{
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        run r;
        allocate(&r, load_example(examples[i]), SBA_STRATEGY_COLORING);
        cr_assert_str_eq(r.m->arch, "trn2", "%s declares trn2", examples[i]);
        cr_assert_eq(r.m->target.sbuf_bytes, 212984);
        check_ok(&r);
        bool spills = !strcmp(examples[i], "spill_pressure.json");
        cr_assert_eq(r.rep.spilled > 0, spills, "%s: spilled %u", examples[i], r.rep.spilled);
        bir_module_free(r.m);
    }
}

/* The same kernel fits trn3 with no spill code: fourteen 16 KiB tensors. */
Test(examples, spill_pressure_fits_trn3_without_spilling)
{
    bir_module *m = load_example("spill_pressure.json");
    /* as if the file said "arch": "trn3": the allocator and the verifier
     * both take the module's target */
    m->target = *sba_target_preset("trn3");
    run r;
    allocate(&r, m, SBA_STRATEGY_COLORING);
    check_ok(&r);
    cr_assert_eq(r.rep.spilled, 0);
    cr_assert_eq(r.rep.iterations, 1);
    cr_assert_eq(r.rep.capacity, 245752);
    bir_module_free(m);
}

/* On trn2 the overflow (229,376 > 212,984 bytes) is spilled through DRAM:
 * stores and reloads, each accumulator's value carried through its home. */
Test(examples, spill_pressure_spills_on_trn2)
{
    run r;
    allocate(&r, load_example("spill_pressure.json"), SBA_STRATEGY_COLORING);
    check_ok(&r);
    cr_assert_gt(r.rep.spilled, 0);
    cr_assert_gt(r.rep.reloads, 0);
    cr_assert_gt(r.rep.iterations, 1);
    cr_assert_leq(r.rep.iterations, 32);
    uint32_t inside = 0;
    cr_assert_gt(count_insts(r.m, ".reload.", &inside), 0);
    cr_assert_gt(inside, 0, "reloads inside the loop");
    bir_module_free(r.m);
}

Test(examples, every_example_allocates_with_every_strategy)
{
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
        for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
            run r;
            allocate(&r, load_example(examples[i]), s);
            cr_assert_eq(r.st, SBA_OK, "%s with %s: %s", examples[i], sba_strategy_name(s), r.err.message);
            check_ok(&r);
            bir_module_free(r.m);
        }
}

/* ====================================================================== */
/* spill code in loops                                                    */
/* ====================================================================== */

/* On a 256-byte SBUF, `a` (64 bytes, made by Memset: not a plain load) is
 * read in every iteration of a 4-trip loop and after it, while the loop
 * also holds `b` (224 bytes) alone: a + b does not fit, so a goes to DRAM,
 * stored once after its def, reloaded inside the loop and after it. */
#define LIVE_ACROSS_LOOP                                                                                  \
    MODULE(256,                                                                                          \
           DIN("x56", 128, 56) ", " DOUT("y56", 128, 56) ", " DOUT("y16", 128, 16) ", " SBT("a", 128, 16)   \
           ", " SBT("b", 128, 56) ", " SBT("c", 128, 16),                                                   \
           INST("ma", "Memset", "", W("a", 16)) ", "                                                      \
           LOOP("L", "i", 4,                                                                              \
                INST("ua", "TensorTensor", W("a", 16) ", " W("a", 16), W("c", 16)) ", "                    \
                STORE("sc", "c", "y16", 16) ", " LOAD("lb", "x56", "b", 56) ", " STORE("sb", "b", "y56", 56)) \
           ", " STORE("sa", "a", "y16", 16))

Test(spill, value_live_across_a_loop_is_reloaded_inside_it)
{
    run r;
    alloc_ok(&r, LIVE_ACROSS_LOOP, SBA_STRATEGY_COLORING);
    /* a is spilled (b may be too: it is a plain load, rematerialized) */
    cr_assert(find_loc(r.m, "a")->alloc_flags & BIR_LOC_SPILLED_DEF, "a is spilled");
    cr_assert_geq(r.rep.spilled, 1);
    cr_assert_eq(r.rep.stores, 1, "one def, one store");
    cr_assert_geq(r.rep.reloads, 2);
    /* the store right after the Memset, outside the loop */
    const bir_inst *st = find_inst(r.m, "ma.spill.a");
    cr_assert_eq(st->opcode, BIR_OP_DMA_STORE);
    cr_assert_not(in_loop(st));
    cr_assert_str_eq(st->outs[0].loc->name, "a.home");
    cr_assert_eq(st->outs[0].loc->type, BIR_MEM_DRAM);
    /* the reload of the loop's use inside the loop, the other after it */
    const bir_inst *in = find_inst(r.m, "ua.reload.a");
    cr_assert_eq(in->opcode, BIR_OP_DMA_LOAD);
    cr_assert(in_loop(in));
    cr_assert_str_eq(in->ins[0].loc->name, "a.home");
    cr_assert_not(in_loop(find_inst(r.m, "sa.reload.a")));
    /* the loop's use reads the temporary */
    cr_assert_str_eq(find_inst(r.m, "ua")->ins[0].loc->name, "a.reload");
    bir_module_free(r.m);
}

/* An accumulator updated in place in every iteration (read before written
 * in the loop: its value crosses the back edge) is spilled: a store after
 * each def, inside the loop too, and a reload before each use; the verifier
 * follows the value through its DRAM home across all iterations. */
#define CARRIED_ACC                                                                                       \
    MODULE(256,                                                                                          \
           DIN("x16", 128, 16) ", " DIN("x56", 128, 56) ", " DOUT("y16", 128, 16) ", " DOUT("y56", 128, 56) \
           ", " SBT("acc", 128, 16) ", " SBT("t", 128, 16) ", " SBT("g", 128, 56),                          \
           INST("zero", "Memset", "", W("acc", 16)) ", "                                                   \
           LOOP("L", "i", 4,                                                                              \
                LOAD("lt", "x16", "t", 16) ", "                                                           \
                INST("accum", "TensorTensor", W("acc", 16) ", " W("t", 16), W("acc", 16)) ", "             \
                LOAD("lg", "x56", "g", 56) ", " STORE("sg", "g", "y56", 56)) ", "                           \
           STORE("out", "acc", "y16", 16))

Test(spill, loop_carried_accumulator_goes_through_dram)
{
    run r;
    alloc_ok(&r, CARRIED_ACC, SBA_STRATEGY_COLORING);
    cr_assert_geq(r.rep.spilled, 1);
    /* stores after the Memset and after the in-place update (inside the loop) */
    const bir_inst *s0 = find_inst(r.m, "zero.spill.acc"), *s1 = find_inst(r.m, "accum.spill.acc");
    cr_assert_not(in_loop(s0));
    cr_assert(in_loop(s1));
    cr_assert_str_eq(s1->outs[0].loc->name, "acc.home");
    /* acc keeps its first def; the update in the loop writes a placement of
     * its own, so nothing holds acc's SB space across the loop */
    const bir_location *acc = find_loc(r.m, "acc"), *d1 = s1->ins[0].loc;
    cr_assert_eq(s0->ins[0].loc, acc);
    cr_assert(acc->alloc_flags & BIR_LOC_SPILLED_DEF);
    cr_assert_str_eq(d1->name, "acc.def");
    cr_assert(d1->alloc_flags & BIR_LOC_SPILLED_DEF);
    cr_assert_eq(find_inst(r.m, "accum")->outs[0].loc, d1);
    cr_assert_eq(acc->storage.nwriters, 1);
    cr_assert_eq(acc->storage.nreaders, 1);
    /* reloads before the update (inside) and before the final store (after) */
    const bir_inst *r0 = find_inst(r.m, "accum.reload.acc"), *r1 = find_inst(r.m, "out.reload.acc");
    cr_assert(in_loop(r0));
    cr_assert_not(in_loop(r1));
    cr_assert_str_eq(r0->ins[0].loc->name, "acc.home");
    cr_assert_geq(r.rep.stores, 2);
    cr_assert_geq(r.rep.reloads, 2);
    bir_module_free(r.m);
}

/* A plain DMA load before a loop, read in every iteration, spilled: no store,
 * its DMALoad is deleted and re-issued from the DRAM source inside the loop. */
#define REMAT_IN_LOOP                                                                                     \
    MODULE(256,                                                                                          \
           DIN("x16", 128, 16) ", " DIN("x56", 128, 56) ", " DOUT("y16", 128, 16) ", " DOUT("y56", 128, 56) \
           ", " SBT("w", 128, 16) ", " SBT("c", 128, 16) ", " SBT("g", 128, 56),                            \
           LOAD("lw", "x16", "w", 16) ", "                                                                \
           LOOP("L", "i", 4,                                                                              \
                INST("use", "TensorTensor", W("w", 16) ", " W("w", 16), W("c", 16)) ", "                   \
                STORE("sc", "c", "y16", 16) ", " LOAD("lg", "x56", "g", 56) ", " STORE("sg", "g", "y56", 56)))

Test(spill, plain_load_is_rematerialized_from_its_source)
{
    run r;
    alloc_ok(&r, REMAT_IN_LOOP, SBA_STRATEGY_COLORING);
    cr_assert_gt(r.rep.remats, 0);
    cr_assert_eq(r.rep.stores, 0);
    cr_assert_eq(count_insts(r.m, ".spill.", NULL), 0, "no spill store");
    cr_assert_eq(count_insts(r.m, ".home", NULL), 0);
    const bir_inst *re = find_inst(r.m, "use.reload.w");
    cr_assert(in_loop(re));
    cr_assert_str_eq(re->ins[0].loc->name, "x16", "reloaded from its DRAM source");
    cr_assert_eq(count_insts(r.m, "lw", NULL), 0, "the original load is gone");
    bir_module_free(r.m);
}

/* ====================================================================== */
/* partners                                                               */
/* ====================================================================== */

/* A quarter-height copy whose source dies: the pair is one region, and on a
 * 64-byte SBUF it must be, since a and b are both accessed by the copy. */
Test(partners, copy_onto_a_dying_source_shares_base_and_addr)
{
    run r;
    alloc_ok(&r,
             MODULE(64,
                    DIN("x", 32, 16) ", " DOUT("y", 32, 16) ", " SBT("a", 32, 16) ", " SBT("b", 32, 16) ", "
                    SBT("q", 32, 16),
                    INST("lq", "DMALoad", OP("x", 32, 16), OP("q", 32, 16)) ", "
                    INST("la", "DMALoad", OP("x", 32, 16), OP("a", 32, 16)) ", "
                    INST("cp", "TensorCopy", OP("a", 32, 16), OP("b", 32, 16)) ", "
                    INST("sb", "DMAStore", OP("b", 32, 16), OP("y", 32, 16)) ", "
                    INST("sq", "DMAStore", OP("q", 32, 16), OP("y", 32, 16))),
             SBA_STRATEGY_COLORING);
    const bir_location *a = find_loc(r.m, "a"), *b = find_loc(r.m, "b"), *q = find_loc(r.m, "q");
    cr_assert_eq(a->addr, b->addr);
    cr_assert_eq(a->base, b->base);
    cr_assert_eq(r.rep.partner_groups, 1);
    cr_assert_eq(r.rep.spilled, 0);
    cr_assert_neq(a->base, q->base, "q lives alongside the pair in another quarter");
    bir_module_free(r.m);
}

/* An accumulation chain acc1 = acc0 + x, acc2 = acc1 + x inside a loop body:
 * one group, one placement, and every strategy keeps it. */
Test(partners, accumulation_chain_shares_one_placement_under_every_strategy)
{
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        run r;
        alloc_ok(&r,
                 MODULE(1024,
                        DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " SBT("t", 128, 16) ", " SBT("a0", 128, 16)
                        ", " SBT("a1", 128, 16) ", " SBT("a2", 128, 16),
                        LOOP("L", "i", 3,
                             LOAD("lt", "x", "t", 16) ", " LOAD("l0", "x", "a0", 16) ", "
                             INST("u1", "TensorTensor", W("a0", 16) ", " W("t", 16), W("a1", 16)) ", "
                             INST("u2", "TensorTensor", W("a1", 16) ", " W("t", 16), W("a2", 16)) ", "
                             STORE("st", "a2", "y", 16))),
                 s);
        const bir_location *a0 = find_loc(r.m, "a0"), *a1 = find_loc(r.m, "a1"), *a2 = find_loc(r.m, "a2");
        cr_assert(a0->addr == a1->addr && a1->addr == a2->addr, "%s", sba_strategy_name(s));
        cr_assert(a0->base == a1->base && a1->base == a2->base);
        cr_assert_eq(r.rep.partner_members, 3);
        bir_module_free(r.m);
    }
}

/* ====================================================================== */
/* pre-placed tensors                                                     */
/* ====================================================================== */

/* Pre-placed quarter and half tensors in three quarters, live through most of the
 * function; allocatable quarters and a half fill around them. The fixed
 * rectangles keep their places under every strategy, and nothing overlaps. */
#define FIXED_MIX                                                                                         \
    MODULE(256,                                                                                          \
           DIN("xq", 32, 16) ", " DIN("xq2", 32, 32) ", " DIN("xh", 64, 16) ", " DOUT("yq", 32, 16) ", "     \
           DOUT("yh", 64, 16) ", "                                                                        \
           PRE("fq", 32, 16, 0, 32) ", " PRE("fh", 64, 32, 64, 64) ", " SBT("q0", 32, 32) ", "              \
           SBT("q1", 32, 32) ", " SBT("h0", 64, 16),                                                        \
           INST("lfq", "DMALoad", OP("xq", 32, 16), OP("fq", 32, 16)) ", "                                \
           INST("lq0", "DMALoad", OP("xq2", 32, 32), OP("q0", 32, 32)) ", "                               \
           INST("lq1", "DMALoad", OP("xq2", 32, 32), OP("q1", 32, 32)) ", "                               \
           INST("lh0", "DMALoad", OP("xh", 64, 16), OP("h0", 64, 16)) ", "                                \
           INST("lfh", "Memset", "", OP("fh", 64, 32)) ", "                                               \
           INST("sq0", "TensorTensor", OP("q0", 32, 32) ", " OP("q1", 32, 32), OP("q0", 32, 32)) ", "     \
           INST("sh0", "DMAStore", OP("h0", 64, 16), OP("yh", 64, 16)) ", "                               \
           INST("sq", "DMAStore", OP("fq", 32, 16), OP("yq", 32, 16)) ", "                                \
           INST("sfh", "TensorTensor", OP("fh", 64, 32) ", " OP("fh", 64, 32), OP("fh", 64, 32)) ", "     \
           INST("so", "TensorTensor", OP("q0", 32, 32) ", " OP("q0", 32, 32), OP("q0", 32, 32)))

Test(precoloured, fixed_rectangles_stay_and_the_rest_fits_around_them)
{
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        run r;
        alloc_ok(&r, FIXED_MIX, s);
        assert_at(r.m, "fq", 32, 0);
        assert_at(r.m, "fh", 64, 64);
        cr_assert_eq(r.rep.precoloured, 2);
        cr_assert_eq(r.rep.spilled, 0, "%s: everything fits around the fixed tensors", sba_strategy_name(s));
        bir_module_free(r.m);
    }
}

/* The example with four pre-placed tensors keeps every one of them. */
Test(precoloured, preplaced_example_keeps_its_fixed_tensors)
{
    static const struct {
        const char *name;
        int64_t base, addr;
    } fixed[] = {{"lut_sb", 32, 196608}, {"w_sb", 64, 200704}, {"acc_out", 0, 204800}, {"stats_out", 96, 204800}};
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        run r;
        allocate(&r, load_example("preplaced.json"), s);
        check_ok(&r);
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            assert_at(r.m, fixed[i].name, fixed[i].base, fixed[i].addr);
        bir_module_free(r.m);
    }
}

/* ====================================================================== */
/* strategies                                                             */
/* ====================================================================== */

/* Best-fit takes the smallest gap that holds the tensor; lowest takes the
 * lowest address. Pre-placed A [96, 128) and B [160, 256) leave the gaps
 * [0, 96) and [128, 160): a 32-byte tensor goes to 0 under the colourer and
 * greedy-size, and fills the 32-byte gap exactly under best-fit. */
Test(strategy, best_fit_takes_the_tightest_gap)
{
    static const char text[] =
        MODULE(256,
               DIN("x", 128, 8) ", " DOUT("y8", 128, 8) ", " DOUT("y24", 128, 24) ", " PRE("A", 128, 8, 96, 0) ", "
               PRE("B", 128, 24, 160, 0) ", " SBT("n", 128, 8),
               INST("mA", "Memset", "", W("A", 8)) ", " INST("mB", "Memset", "", W("B", 24)) ", "
               LOAD("ln", "x", "n", 8) ", " STORE("sn", "n", "y8", 8) ", " STORE("sA", "A", "y8", 8) ", "
               STORE("sB", "B", "y24", 24));
    static const int64_t want[SBA_STRATEGY_COUNT] = {[SBA_STRATEGY_COLORING] = 0, [SBA_STRATEGY_BEST_FIT] = 128,
                                                     [SBA_STRATEGY_GREEDY_SIZE] = 0};
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        run r;
        alloc_ok(&r, text, s);
        assert_at(r.m, "A", 0, 96);
        assert_at(r.m, "B", 0, 160);
        cr_assert_eq(find_loc(r.m, "n")->addr, want[s], "%s puts n at %lld", sba_strategy_name(s),
                     (long long)find_loc(r.m, "n")->addr);
        bir_module_free(r.m);
    }
}

/* Every strategy through the spill fixpoint: each allocation verified. */
Test(strategy, best_fit_and_greedy_size_are_verified_on_spill_cases)
{
    static const char *const cases[] = {LIVE_ACROSS_LOOP, CARRIED_ACC, REMAT_IN_LOOP, THREE_FULL, FIXED_MIX};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (uint32_t s = SBA_STRATEGY_BEST_FIT; s < SBA_STRATEGY_COUNT; s++) {
            run r;
            allocate(&r, load_text(cases[i]), s);
            cr_assert_eq(r.st, SBA_OK, "case %zu with %s: %s", i, sba_strategy_name(s), r.err.message);
            check_ok(&r);
            bir_module_free(r.m);
        }
}

Test(strategy, names_round_trip)
{
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        uint32_t back = UINT32_MAX;
        cr_assert(sba_strategy_parse(sba_strategy_name(s), &back));
        cr_assert_eq(back, s);
    }
    uint32_t out;
    cr_assert_not(sba_strategy_parse("first-fit", &out));
}

/* ====================================================================== */
/* the guard                                                              */
/* ====================================================================== */

/* One instruction reads a (128 B) and b (96 B) and writes c (64 B): 288
 * bytes must be live at once on a 256-byte SBUF. Spilling cannot shorten a
 * reload temporary, so the guard names the point and the tensors. */
Test(guard, operands_of_one_instruction_that_cannot_fit)
{
    run r;
    allocate(&r,
             load_text(MODULE(256,
                              DIN("x32", 128, 32) ", " DIN("x24", 128, 24) ", " DOUT("y", 128, 16) ", "
                              SBT("a", 128, 32) ", " SBT("b", 128, 24) ", " SBT("c", 128, 16),
                              LOAD("la", "x32", "a", 32) ", " LOAD("lb", "x24", "b", 24) ", "
                              INST("op", "TensorTensor", W("a", 32) ", " W("b", 24), W("c", 16)) ", "
                              STORE("sc", "c", "y", 16))),
             SBA_STRATEGY_COLORING);
    cr_assert_eq(r.st, SBA_ERR_ALLOC, "%s: %s", sba_status_name(r.st), r.err.message);
    const char *want = "cannot allocate function \"f\" in SB: at point ";
    cr_assert_eq(strncmp(r.err.message, want, strlen(want)), 0, "%s", r.err.message);
    cr_assert_not_null(strstr(r.err.message, "(op)"), "names the instruction: %s", r.err.message);
    cr_assert_not_null(strstr(r.err.message, "need 288 bytes per partition with SB size 256"), "%s",
                       r.err.message);
    bir_module_free(r.m);
}

/* Three operands of 64 + 64 + 32 bytes on 128 bytes, under every strategy:
 * the guard, not a hang or a crash. (With an output as large as an input
 * the output would be the dying input's partner, and it would fit.) */
Test(guard, every_strategy_stops_with_the_guard)
{
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        run r;
        allocate(&r,
                 load_text(MODULE(128,
                                  DIN("x", 128, 16) ", " DOUT("y", 128, 8) ", " SBT("a", 128, 16) ", "
                                  SBT("b", 128, 16) ", " SBT("c", 128, 8),
                                  LOAD("la", "x", "a", 16) ", " LOAD("lb", "x", "b", 16) ", "
                                  INST("op", "TensorReduce", W("a", 16) ", " W("b", 16), W("c", 8)) ", "
                                  STORE("sc", "c", "y", 8))),
                 s);
        cr_assert_eq(r.st, SBA_ERR_ALLOC, "%s: %s", sba_strategy_name(s), r.err.message);
        cr_assert_not_null(strstr(r.err.message, "cannot allocate function \"f\" in SB: at point "), "%s",
                           r.err.message);
        bir_module_free(r.m);
    }
}

/* A planted 2-D function dense in time (a sixth as many steps as tensors,
 * 64 KiB per partition, zero slack), allocated with a search budget too
 * small to pack it: it spills, and the reloads and def copies fill points
 * that are already full. The lines of the log that begin with
 * lines.prefix are kept in lines.text. */
typedef struct kept_lines {
    const char *prefix;
    char text[2048];
} kept_lines;

static void keep_lines(void *ud, const char *line)
{
    kept_lines *k = ud;
    size_t len = strlen(k->text);
    if (!strncmp(line, k->prefix, strlen(k->prefix)) && len + strlen(line) + 2 < sizeof k->text)
        snprintf(k->text + len, sizeof k->text - len, "%s\n", line);
}

static void allocate_planted_dense(run *r, uint64_t seed, uint32_t tensors, kept_lines *lines)
{
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.seed = seed;
    p.tensors = tensors;
    p.span = tensors / 6;
    sba_error err;
    bir_module *m = sba_gen_planted(&p, false, NULL, &err);
    cr_assert_not_null(m, "gen --planted: %s", err.message);
    memset(r, 0, sizeof *r);
    r->m = m;
    lines->text[0] = '\0';
    sba_alloc_options o = {.search_budget = 10000000, .log = keep_lines, .log_ud = lines};
    sba_alloc_report rep;
    r->st = sba_allocate_module(m, &o, &rep, &r->err);
    if (rep.nfns) r->rep = rep.fns[0];
    sba_alloc_report_free(&rep);
}

/* Select, even with them first, leaves a reload or def copy unplaced; no
 * tensor that could spill is in its way. Those nodes are then searched
 * exactly on their own, and fit: the function allocates (it ended in "no
 * place found" before). */
Test(guard, nodes_spill_code_made_are_searched_alone)
{
    run r;
    kept_lines lines = {.prefix = "search: the nodes spill code made"};
    allocate_planted_dense(&r, 3, 200, &lines);
    check_ok(&r);
    cr_assert_gt(r.rep.spilled, 0);
    cr_assert_not_null(strstr(lines.text, "search: the nodes spill code made, alone: 1 of 1 parts packed"), "%s",
                       lines.text);
    bir_module_free(r.m);
}

/* Every iteration that does not finish spills a tensor that could still
 * spill, so the fixpoint ends; its bound only guards against a fault. This
 * function needs 40 iterations. */
Test(guard, fixpoint_runs_until_nothing_is_left_to_spill)
{
    run r;
    kept_lines lines = {.prefix = "search:"};
    allocate_planted_dense(&r, 2, 500, &lines);
    check_ok(&r);
    cr_assert_gt(r.rep.iterations, 32);
    bir_module_free(r.m);
}

/* A part where every node was placed comes back the same after spill code
 * elsewhere: the next iteration places it as it was, and the verifier
 * (check_ok) proves the result. Of this function's parts, the ones placed
 * are carried from each iteration to the next. */
Test(guard, placed_parts_are_carried_to_the_next_iteration)
{
    run r;
    kept_lines lines = {.prefix = "reuse:"};
    allocate_planted_dense(&r, 3, 200, &lines);
    check_ok(&r);
    cr_assert_gt(r.rep.iterations, 1);
    cr_assert_not_null(strstr(lines.text, "reuse: "), "no part carried over");
    bir_module_free(r.m);
}

/* ====================================================================== */
/* determinism                                                            */
/* ====================================================================== */

static char *alloc_and_save(const char *text, size_t len, uint32_t strategy, size_t *out_len)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, len, "det.json", NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    sba_alloc_options o = {.strategy = strategy};
    cr_assert_eq(sba_allocate_module(m, &o, NULL, &err), SBA_OK, "%s", err.message);
    char *out;
    cr_assert_eq(bir_save_buffer(m, &out, out_len, &err), SBA_OK, "%s", err.message);
    char *copy = malloc(*out_len + 1);
    cr_assert_not_null(copy);
    memcpy(copy, out, *out_len);
    copy[*out_len] = '\0';
    bir_free_text(m, out);
    bir_module_free(m);
    return copy;
}

static void assert_deterministic(const char *text, size_t len, const char *what)
{
    for (uint32_t s = 0; s < SBA_STRATEGY_COUNT; s++) {
        size_t n1, n2;
        char *t1 = alloc_and_save(text, len, s, &n1), *t2 = alloc_and_save(text, len, s, &n2);
        cr_assert(n1 == n2 && !memcmp(t1, t2, n1), "%s with %s: two runs differ", what, sba_strategy_name(s));
        free(t1);
        free(t2);
    }
}

Test(determinism, same_text_same_allocation)
{
    assert_deterministic(CARRIED_ACC, strlen(CARRIED_ACC), "CARRIED_ACC");
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        bir_module *m = load_example(examples[i]);
        char *text;
        size_t len;
        sba_error err;
        cr_assert_eq(bir_save_buffer(m, &text, &len, &err), SBA_OK);
        assert_deterministic(text, len, examples[i]);
        bir_free_text(m, text);
        bir_module_free(m);
    }
}

Test(determinism, generated_kernel_allocates_identically)
{
    sba_gen_options o;
    sba_gen_defaults(&o);
    o.seed = 7;
    o.tensors = 200;
    o.pressure = 1.5;
    sba_error err;
    bir_module *m = sba_gen_module(&o, NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    char *text;
    size_t len;
    cr_assert_eq(bir_save_buffer(m, &text, &len, &err), SBA_OK);
    size_t n1, n2;
    sba_error e1, e2;
    /* allocate twice, whether it succeeds or not, and compare */
    bir_module *m1 = bir_load_buffer(text, len, "g1", NULL, &e1), *m2 = bir_load_buffer(text, len, "g2", NULL, &e2);
    cr_assert(m1 && m2);
    sba_status s1 = sba_allocate_module(m1, NULL, NULL, &e1), s2 = sba_allocate_module(m2, NULL, NULL, &e2);
    cr_assert_eq(s1, s2);
    cr_assert_str_eq(e1.message, e2.message);
    char *t1, *t2;
    cr_assert_eq(bir_save_buffer(m1, &t1, &n1, &e1), SBA_OK);
    cr_assert_eq(bir_save_buffer(m2, &t2, &n2, &e2), SBA_OK);
    cr_assert(n1 == n2 && !memcmp(t1, t2, n1), "two runs differ");
    bir_free_text(m1, t1);
    bir_free_text(m2, t2);
    bir_module_free(m1);
    bir_module_free(m2);
    bir_free_text(m, text);
    bir_module_free(m);
}

/* ====================================================================== */
/* generated kernels: the fixpoint stays bounded                          */
/* ====================================================================== */

/* Kernels of 100-300 tensors at pressures from half the SBUF to three
 * times it. Each either allocates (verified, no overlap, within the
 * iteration bound) or stops with a clean SBA_ERR_ALLOC naming the function. */
Test(generated, fixpoint_is_bounded_at_every_pressure, .timeout = 120)
{
    static const double pressures[] = {0.5, 1.0, 1.5, 3.0};
    static const uint32_t sizes[] = {100, 200, 300};
    uint32_t ok = 0, refused = 0, spilled = 0;
    for (size_t p = 0; p < sizeof pressures / sizeof pressures[0]; p++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            sba_gen_options o;
            sba_gen_defaults(&o);
            o.seed = seed;
            o.tensors = sizes[(seed - 1) % 3];
            o.pressure = pressures[p];
            sba_error err;
            bir_module *m = sba_gen_module(&o, NULL, &err);
            cr_assert_not_null(m, "%s", err.message);
            /* every strategy at every pressure, each on a different size */
            uint32_t strategy = (uint32_t)((seed - 1 + p) % SBA_STRATEGY_COUNT);
            run r;
            allocate(&r, m, strategy);
            cr_assert_leq(r.rep.iterations, 32, "pressure %.1f seed %llu %s", o.pressure, (unsigned long long)seed,
                          sba_strategy_name(strategy));
            if (r.st == SBA_OK) {
                check_ok(&r);
                ok++;
                if (r.rep.spilled) spilled++;
                if (o.pressure > 1.0)
                    cr_assert_gt(r.rep.spilled, 0, "pressure %.1f cannot fit without spilling", o.pressure);
            } else {
                cr_assert_eq(r.st, SBA_ERR_ALLOC, "pressure %.1f seed %llu: %s: %s", o.pressure,
                             (unsigned long long)seed, sba_status_name(r.st), r.err.message);
                cr_assert_not_null(strstr(r.err.message, "cannot allocate function \"kernel\" in SB: "), "%s",
                                   r.err.message);
                cr_assert_gt(o.pressure, 0.5, "pressure 0.5 must fit: %s", r.err.message);
                refused++;
            }
            bir_module_free(m);
        }
    cr_log_info("generated kernels: %u allocated (%u with spill code), %u refused", ok, spilled, refused);
    cr_assert_gt(ok, 0);
}

/* ====================================================================== */
/* several threads: the verdict, the report and the error of a serial run */
/* ====================================================================== */

static bir_module *gen_functions(uint32_t nfns)
{
    sba_gen_options o;
    sba_gen_defaults(&o);
    o.seed = 5;
    o.tensors = 150;
    o.functions = nfns;
    sba_error err;
    bir_module *m = sba_gen_module(&o, NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    return m;
}

/* The first SB location of fn with an address. */
static bir_location *placed_sb(bir_function *fn)
{
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++)
            if (fn->sets[s]->locs[l]->type == BIR_MEM_SB && fn->sets[s]->locs[l]->addr != BIR_NO_ADDR)
                return fn->sets[s]->locs[l];
    cr_assert_fail("no placed SB location in %s", fn->name);
    return NULL;
}

Test(jobs, verify_on_threads_reports_and_fails_as_serial)
{
    bir_module *m = gen_functions(6);
    sba_error err, e1, e3;
    cr_assert_eq(sba_allocate_module(m, NULL, NULL, &err), SBA_OK, "%s", err.message);
    sba_verify_report r1, r3;
    sba_verify_options o1 = {.jobs = 1}, o3 = {.jobs = 3};
    cr_assert_eq(sba_verify_module_opts(m, &o1, &r1, &e1), SBA_OK, "%s", e1.message);
    cr_assert_eq(sba_verify_module_opts(m, &o3, &r3, &e3), SBA_OK, "%s", e3.message);
    cr_assert_eq(r3.functions, 6);
    cr_assert(memcmp(&r1, &r3, sizeof r1) == 0, "the reports differ");
    /* Two functions broken: the first in module order gives the error, and
     * the report counts the functions up to it, on any number of threads. */
    placed_sb(m->fns[2])->addr = m->target.sbuf_bytes;
    placed_sb(m->fns[4])->addr = m->target.sbuf_bytes + 1;
    sba_status s1 = sba_verify_module_opts(m, &o1, &r1, &e1), s3 = sba_verify_module_opts(m, &o3, &r3, &e3);
    cr_assert_neq(s1, SBA_OK);
    cr_assert_eq(s1, s3);
    cr_assert_str_eq(e1.message, e3.message);
    cr_assert_str_eq(e1.path, e3.path);
    cr_assert_eq(r1.functions, 3);
    cr_assert(memcmp(&r1, &r3, sizeof r1) == 0, "the reports of the failing run differ");
    bir_module_free(m);
}

Test(jobs, validation_on_threads_fails_as_serial)
{
    sba_error e1, e3;
    sba_status st[2];
    for (int k = 0; k < 2; k++) {
        bir_module *m = gen_functions(5);
        /* An SB tensor of more partitions than the target has, in functions 1 and 3. */
        for (uint32_t f = 1; f < 5; f += 2) {
            bir_set *s = NULL;
            for (uint32_t i = 0; i < m->fns[f]->nsets && !s; i++)
                if (m->fns[f]->sets[i]->locs[0]->type == BIR_MEM_SB) s = m->fns[f]->sets[i];
            cr_assert_not_null(s);
            s->shape[s->partition_dim] = 256 + f;
        }
        sba_alloc_options o = {.jobs = k ? 3 : 1};
        st[k] = sba_allocate_module(m, &o, NULL, k ? &e3 : &e1);
        bir_module_free(m);
    }
    cr_assert_neq(st[0], SBA_OK);
    cr_assert_eq(st[0], st[1]);
    cr_assert_str_eq(e1.message, e3.message);
    cr_assert_str_eq(e1.path, e3.path);
    cr_assert(strstr(e1.path, "functions[1]"), "the first broken function gives the error: %s", e1.path);
}

/* The kernel generator: determinism, round trip, the exact tensor count, the
 * heights mix, the pressure knob (peak live SB bytes per partition measured
 * here, independently, from the linearization and the def-use lists), the
 * program's validity and shape, option errors, allocation failures, and
 * scale. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "sballoc/gen.h"
#include "sballoc/program.h"

/* ---- helpers ------------------------------------------------------------ */

static sba_gen_options opts(uint64_t seed, uint32_t tensors, uint32_t depth, const char *heights,
                            double pressure)
{
    sba_gen_options o;
    sba_gen_defaults(&o);
    o.seed = seed;
    o.tensors = tensors;
    o.loop_depth = depth;
    o.heights = heights;
    o.pressure = pressure;
    return o;
}

static bir_module *gen_ok(const sba_gen_options *o)
{
    sba_error err;
    bir_module *m = sba_gen_module(o, NULL, &err);
    cr_assert_not_null(m, "generation failed: %s", err.message);
    return m;
}

static char *save_text(const bir_module *m, size_t *len)
{
    sba_error err;
    char *text;
    cr_assert_eq(bir_save_buffer(m, &text, len, &err), SBA_OK, "save failed: %s", err.message);
    return text;
}

static void assert_valid(const bir_module *m)
{
    sba_error err;
    cr_assert_eq(bir_validate_module(m, &err), SBA_OK, "invalid: %s: %s", err.path, err.message);
}

static bool is_sb(const bir_set *s) { return s->nlocs && s->locs[0]->type == BIR_MEM_SB; }

/* The peak over program points of the live SB bytes per partition: a set is
 * live from its first write to its last access, and across [header, end] of
 * every loop in which its first access is a read (ins before outs within an
 * instruction). Bytes: NBlocks × bytesPerBlock. */
static int64_t peak_live(const bir_function *fn)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    bir_linear lin;
    sba_error err;
    cr_assert_eq(bir_linearize(fn, &ar, &lin, &err), SBA_OK);
    int64_t *delta = sba_arena_array(&ar, (size_t)lin.npoints + 2, sizeof *delta);
    uint32_t *stamp = sba_arena_array(&ar, (size_t)fn->ninsts + 1, sizeof *stamp);
    cr_assert(delta && stamp);
    for (uint32_t s = 0; s < fn->nsets; s++) {
        const bir_set *set = fn->sets[s];
        if (!is_sb(set)) continue;
        const bir_storage *st = &set->storage;
        uint32_t n = st->nreaders + st->nwriters;
        if (n == 0) continue;
        /* The accesses in program order, reads first at one point. */
        uint64_t *key = sba_arena_array(&ar, n, sizeof *key);
        cr_assert_not_null(key);
        uint32_t k = 0, lo = UINT32_MAX, first = UINT32_MAX, hi = 0;
        for (uint32_t i = 0; i < st->nreaders; i++)
            key[k++] = (uint64_t)lin.point_of[st->readers[i].inst->index] << 33 |
                       st->readers[i].inst->index;
        for (uint32_t i = 0; i < st->nwriters; i++) {
            uint32_t p = lin.point_of[st->writers[i].inst->index];
            key[k++] = (uint64_t)p << 33 | (uint64_t)1 << 32 | st->writers[i].inst->index;
            if (p < lo) lo = p;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t p = (uint32_t)(key[i] >> 33);
            if (p > hi) hi = p;
            if (p < first) first = p;
        }
        if (lo == UINT32_MAX) lo = first; /* never written: from its first read */
        /* Insertion sort is enough: a set has a handful of accesses. */
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = i; j > 0 && key[j - 1] > key[j]; j--) {
                uint64_t t = key[j];
                key[j] = key[j - 1];
                key[j - 1] = t;
            }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t idx = (uint32_t)(key[i] & 0xFFFFFFFFu);
            bool read = ((key[i] >> 32) & 1) == 0;
            for (uint32_t d = 0; d < lin.depth[idx]; d++) {
                const bir_inst *loop = lin.nest[idx][d];
                if (stamp[loop->index] == s + 1) continue; /* not its first access in this loop */
                stamp[loop->index] = s + 1;
                if (!read) continue;
                uint32_t h = lin.point_of[loop->index], e = lin.end_of[loop->index];
                if (h < lo) lo = h;
                if (e > hi) hi = e;
            }
        }
        int64_t bytes = bir_set_nblocks(set) * bir_set_bytes_per_block(set);
        delta[lo] += bytes;
        delta[hi + 1] -= bytes;
    }
    int64_t live = 0, peak = 0;
    for (uint32_t p = 0; p < lin.npoints; p++) {
        live += delta[p];
        if (live > peak) peak = live;
    }
    sba_arena_free(&ar);
    return peak;
}

/* ---- determinism and round trip ----------------------------------------- */

Test(gen, same_options_give_identical_text)
{
    sba_gen_options o = opts(42, 800, 3, "q:1,h:2,f:1", 0.8);
    bir_module *a = gen_ok(&o), *b = gen_ok(&o);
    size_t la, lb;
    char *ta = save_text(a, &la), *tb = save_text(b, &lb);
    cr_assert_eq(la, lb);
    cr_assert(memcmp(ta, tb, la) == 0, "two runs with the same options differ");
    bir_free_text(a, ta);
    bir_free_text(b, tb);
    bir_module_free(a);
    bir_module_free(b);
}

Test(gen, different_seeds_differ)
{
    sba_gen_options o1 = opts(1, 300, 2, NULL, 0.7), o2 = opts(2, 300, 2, NULL, 0.7);
    bir_module *a = gen_ok(&o1), *b = gen_ok(&o2);
    size_t la, lb;
    char *ta = save_text(a, &la), *tb = save_text(b, &lb);
    cr_assert(la != lb || memcmp(ta, tb, la) != 0, "seeds 1 and 2 gave the same module");
    bir_free_text(a, ta);
    bir_free_text(b, tb);
    bir_module_free(a);
    bir_module_free(b);
}

Test(gen, saved_text_reloads_and_resaves_byte_identical)
{
    for (uint32_t depth = 0; depth <= 4; depth++) {
        sba_gen_options o = opts(7 + depth, 500, depth, NULL, 0.9);
        bir_module *m = gen_ok(&o);
        size_t len, len2;
        char *text = save_text(m, &len);
        sba_error err;
        bir_module *back = bir_load_buffer(text, len, "gen.json", NULL, &err);
        cr_assert_not_null(back, "reload failed: %s: %s", err.path, err.message);
        char *again = save_text(back, &len2);
        cr_assert_eq(len, len2, "depth %u: re-saved length differs", depth);
        cr_assert(memcmp(text, again, len) == 0, "depth %u: re-saved text differs", depth);
        bir_free_text(m, text);
        bir_free_text(back, again);
        bir_module_free(back);
        bir_module_free(m);
    }
}

Test(gen, trn1_is_recorded_as_arch_and_a_custom_geometry_as_target)
{
    sba_gen_options o = opts(3, 200, 2, NULL, 0.5);
    o.target = sba_target_preset("trn1");
    bir_module *m = gen_ok(&o);
    cr_assert_str_eq(m->arch, "trn1");
    cr_assert(!m->has_target);
    cr_assert_eq(m->target.sbuf_bytes, 180224);
    bir_module_free(m);

    sba_target custom = *sba_target_preset("trn2");
    custom.name = "half-sb";
    custom.sbuf_bytes = 98304;
    o.target = &custom;
    m = gen_ok(&o);
    cr_assert_null(m->arch);
    cr_assert(m->has_target);
    cr_assert_eq(m->target.sbuf_bytes, 98304);
    size_t len;
    char *text = save_text(m, &len);
    cr_assert_not_null(strstr(text, "\"sbuf_bytes_per_partition\": 98304"));
    bir_free_text(m, text);
    int64_t peak = peak_live(m->fns[0]);
    cr_assert(peak <= 98304 / 2 && peak >= 98304 / 2 * 9 / 10, "peak %lld", (long long)peak);
    bir_module_free(m);
}

/* ---- counts, heights, validity ------------------------------------------ */

Test(gen, tensor_count_is_exact_and_every_module_validates)
{
    static const uint32_t counts[] = {1, 2, 3, 4, 7, 8, 9, 10, 11, 15, 50, 100, 101, 999, 4000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        for (uint32_t depth = 0; depth <= 3; depth++) {
            sba_gen_options o = opts(100 + i, counts[i], depth, NULL, 0.7);
            bir_module *m = gen_ok(&o);
            cr_assert_eq(m->nfns, 1);
            cr_assert_eq(m->fns[0]->nsets, counts[i], "asked for %u sets at depth %u, got %u",
                         counts[i], depth, m->fns[0]->nsets);
            assert_valid(m);
            bir_module_free(m);
        }
}

/* Fractions of SB sets with 32, 64 and 128 partitions. */
static void height_fractions(const bir_module *m, double frac[3])
{
    uint32_t n[3] = {0, 0, 0}, total = 0;
    const bir_function *fn = m->fns[0];
    for (uint32_t s = 0; s < fn->nsets; s++) {
        if (!is_sb(fn->sets[s])) continue;
        int64_t p = bir_set_partitions(fn->sets[s]);
        cr_assert(p == 32 || p == 64 || p == 128, "set %s has %lld partitions", fn->sets[s]->name,
                  (long long)p);
        n[p == 32 ? 0 : p == 64 ? 1 : 2]++;
        total++;
    }
    cr_assert(total > 0);
    for (int c = 0; c < 3; c++) frac[c] = (double)n[c] / total;
}

Test(gen, heights_mix_is_honoured)
{
    static const struct {
        const char *mix;
        double want[3];
    } cases[] = {
        {"q:1,h:1,f:2", {0.25, 0.25, 0.5}},
        {"full", {0, 0, 1}},
        {"quarter", {1, 0, 0}},
        {"h:3,q:1", {0.25, 0.75, 0}},
        {"32:1,64:0,128:1", {0.5, 0, 0.5}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sba_gen_options o = opts(11, 20000, 2, cases[i].mix, 0.7);
        bir_module *m = gen_ok(&o);
        double f[3];
        height_fractions(m, f);
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(f[c] - cases[i].want[c]) < 0.05, "mix %s: class %d has %.3f, want %.3f",
                      cases[i].mix, c, f[c], cases[i].want[c]);
        bir_module_free(m);
    }
}

/* ---- pressure ------------------------------------------------------------ */

Test(gen, peak_live_bytes_follow_the_pressure)
{
    static const double pressures[] = {0.2, 0.5, 0.7, 1.0, 1.3, 2.5};
    int64_t cap = sba_target_preset("trn2")->sbuf_bytes;
    for (size_t i = 0; i < sizeof pressures / sizeof pressures[0]; i++)
        for (uint32_t depth = 0; depth <= 3; depth++) {
            sba_gen_options o = opts(5 + depth, 3000, depth, NULL, pressures[i]);
            bir_module *m = gen_ok(&o);
            double want = pressures[i] * (double)cap;
            int64_t peak = peak_live(m->fns[0]);
            cr_assert(peak <= want && peak >= 0.95 * want,
                      "pressure %.2f depth %u: peak %lld bytes per partition, target %.0f",
                      pressures[i], depth, (long long)peak, want);
            bir_module_free(m);
        }
}

Test(gen, pressure_above_one_exceeds_the_capacity)
{
    sba_gen_options o = opts(9, 2000, 2, "full", 1.2);
    bir_module *m = gen_ok(&o);
    cr_assert_gt(peak_live(m->fns[0]), m->target.sbuf_bytes);
    bir_module_free(m);
}

/* ---- the program's shape ------------------------------------------------- */

Test(gen, kernels_have_the_promised_ingredients)
{
    sba_gen_options o = opts(21, 3000, 3, NULL, 0.8);
    bir_module *m = gen_ok(&o);
    const bir_function *fn = m->fns[0];
    uint32_t matmul = 0, in_place_tt = 0, copies = 0, loads = 0, stores = 0, preplaced = 0;
    for (uint32_t i = 0; i < fn->ninsts; i++) {
        const bir_inst *in = fn->insts[i];
        cr_assert_eq(in->index, i, "fn->insts is not numbered in order");
        switch (in->opcode) {
        case BIR_OP_MATMULT:
            matmul++;
            cr_assert_eq(in->outs[0].loc->type, BIR_MEM_PSUM);
            break;
        case BIR_OP_TENSOR_TENSOR:
            in_place_tt += in->outs[0].set == in->ins[0].set;
            break;
        case BIR_OP_TENSOR_COPY: copies++; break;
        case BIR_OP_DMA_LOAD:
            loads++;
            cr_assert(bir_tensor_kind_is_external_input(in->ins[0].set->kind));
            break;
        case BIR_OP_DMA_STORE:
            stores++;
            cr_assert(bir_tensor_kind_is_external_output(in->outs[0].set->kind));
            break;
        default: break;
        }
    }
    for (uint32_t s = 0; s < fn->nsets; s++) {
        const bir_location *loc = fn->sets[s]->locs[0];
        if (loc->addr == BIR_NO_ADDR) continue;
        preplaced++;
        int64_t p = bir_set_partitions(fn->sets[s]);
        cr_assert(bir_start_partition_mask(p) >> (loc->base / 32) & 1, "%s: base %d for %lld partitions",
                  loc->name, loc->base, (long long)p);
        cr_assert_eq(loc->base % 32, 0);
        cr_assert(loc->addr % m->target.sbuf_align == 0);
        cr_assert(loc->addr + bir_set_bytes_per_block(fn->sets[s]) <= m->target.sbuf_bytes);
    }
    cr_assert(matmul && in_place_tt && copies && loads && stores && preplaced,
              "matmul %u, in-place TensorTensor %u, copies %u, loads %u, stores %u, pre-placed %u",
              matmul, in_place_tt, copies, loads, stores, preplaced);
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    bir_linear lin;
    sba_error err;
    cr_assert_eq(bir_linearize(fn, &ar, &lin, &err), SBA_OK);
    cr_assert_eq(lin.max_depth, 3);
    sba_arena_free(&ar);
    assert_valid(m);
    bir_module_free(m);
}

/* Pre-placed tensors that are live at the same time must not overlap, or no
 * allocation could exist at pressure below 1. */
Test(gen, simultaneously_live_preplaced_tensors_are_disjoint)
{
    sba_gen_options o = opts(4, 6000, 2, NULL, 0.9);
    bir_module *m = gen_ok(&o);
    const bir_function *fn = m->fns[0];
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    bir_linear lin;
    sba_error err;
    cr_assert_eq(bir_linearize(fn, &ar, &lin, &err), SBA_OK);
    typedef struct rect {
        int64_t a0, a1, p0, p1;
        uint32_t lo, hi;
    } rect;
    rect *r = sba_arena_array(&ar, fn->nsets, sizeof *r);
    cr_assert_not_null(r);
    uint32_t n = 0;
    for (uint32_t s = 0; s < fn->nsets; s++) {
        const bir_set *set = fn->sets[s];
        const bir_location *loc = set->locs[0];
        if (loc->addr == BIR_NO_ADDR || !set->storage.nwriters) continue;
        uint32_t lo = UINT32_MAX, hi = 0;
        for (int w = 0; w < 2; w++) {
            const bir_access *v = w ? set->storage.writers : set->storage.readers;
            uint32_t nv = w ? set->storage.nwriters : set->storage.nreaders;
            for (uint32_t i = 0; i < nv; i++) {
                uint32_t p = lin.point_of[v[i].inst->index];
                if (p < lo) lo = p;
                if (p > hi) hi = p;
            }
        }
        r[n++] = (rect){loc->addr, loc->addr + bir_set_bytes_per_block(set), loc->base,
                                loc->base + bir_set_partitions(set), lo, hi};
    }
    cr_assert_gt(n, 1);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            bool time = r[i].lo <= r[j].hi && r[j].lo <= r[i].hi;
            bool space = r[i].a0 < r[j].a1 && r[j].a0 < r[i].a1 && r[i].p0 < r[j].p1 && r[j].p0 < r[i].p1;
            cr_assert(!(time && space), "pre-placed tensors %u and %u overlap while live", i, j);
        }
    sba_arena_free(&ar);
    bir_module_free(m);
}

/* ---- errors --------------------------------------------------------------- */

/* ---- planted instances ---------------------------------------------------- */

/* The median number of steps a planted tensor lives: from its writer,
 * "def@t", to its reader, "use@t" (inclusive). */
static uint32_t median_life(const bir_module *m)
{
    const bir_function *fn = m->fns[0];
    uint32_t *life = calloc(fn->nsets + 1, sizeof *life), n = 0;
    cr_assert_not_null(life);
    for (uint32_t s = 0; s < fn->nsets; s++) {
        const bir_storage *st = &fn->sets[s]->storage;
        unsigned lo, hi;
        cr_assert(st->nwriters == 1 && st->nreaders == 1);
        cr_assert_eq(sscanf(st->writers[0].inst->name, "def@%u", &lo), 1);
        cr_assert_eq(sscanf(st->readers[0].inst->name, "use@%u", &hi), 1);
        life[n++] = hi - lo + 1;
    }
    for (uint32_t i = 1; i < n; i++) /* insertion sort: a few hundred */
        for (uint32_t j = i; j > 0 && life[j - 1] > life[j]; j--) {
            uint32_t t = life[j];
            life[j] = life[j - 1];
            life[j - 1] = t;
        }
    uint32_t med = life[n / 2];
    free(life);
    return med;
}

/* With --elongation N a box is cut in time N times less often than its
 * extents say, so tensors live longer (MiniMalloc's instances have tensors
 * that live a tenth of the time and take a fiftieth of the bytes): at 8,
 * the median tensor lives at least twice as long, over 5 seeds. The
 * instance is still a tiling (the planted answer verifies, in
 * tests/cli/planted.sh), and a walls instance refuses the option. */
Test(gen, planted_elongation_makes_tensors_live_longer)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        uint32_t med[2];
        for (int x = 0; x < 2; x++) {
            sba_planted_options p;
            sba_planted_defaults(&p);
            p.seed = seed, p.tensors = 300, p.heights = "full", p.capacity = 1048576, p.min_size = 1024;
            p.span = 1024, p.holes = 5, p.elongation = x ? 8 : 0;
            sba_error err;
            bir_module *m = sba_gen_planted(&p, false, NULL, &err);
            cr_assert_not_null(m, "%s", err.message);
            cr_assert_eq(m->fns[0]->nsets, 300u);
            med[x] = median_life(m);
            bir_module_free(m);
        }
        cr_assert_geq(med[1], 2 * med[0], "seed %llu: median life %u steps at elongation 8, %u without",
                      (unsigned long long)seed, med[1], med[0]);
    }
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.walls = true, p.heights = "full", p.elongation = 4;
    sba_error err;
    cr_assert_null(sba_gen_planted(&p, false, NULL, &err));
    cr_assert_eq(err.code, SBA_ERR_USAGE);
    cr_assert_not_null(strstr(err.message, "not to walls"), "%s", err.message);
}

/* The life [lo, last] and bytes per partition of set s of a planted
 * module written with its solution. */
static void planted_set(const bir_function *fn, uint32_t s, unsigned *lo, unsigned *last, int64_t *bytes)
{
    const bir_set *set = fn->sets[s];
    cr_assert(set->storage.nwriters == 1 && set->storage.nreaders == 1);
    cr_assert_eq(sscanf(set->storage.writers[0].inst->name, "def@%u", lo), 1);
    cr_assert_eq(sscanf(set->storage.readers[0].inst->name, "use@%u", last), 1);
    *bytes = set->locs[0]->dims[1];
}

/* --fill-holes keeps the pieces --holes leaves out, after the others: the
 * instance's tensors come first, the same names, lives and sizes, and
 * every step of the 1-D tiling is full to the capacity (its twin without
 * slack), over 4 seeds and two hole shares. */
Test(gen, planted_holes_filled_are_the_same_function_without_slack)
{
    for (uint64_t seed = 1; seed <= 4; seed++)
        for (uint32_t holes = 5; holes <= 20; holes += 15) {
            sba_planted_options p;
            sba_planted_defaults(&p);
            p.seed = seed, p.tensors = 300, p.heights = "full", p.holes = holes;
            sba_error err;
            bir_module *kept = sba_gen_planted(&p, true, NULL, &err);
            cr_assert_not_null(kept, "%s", err.message);
            p.fill_holes = true;
            bir_module *full = sba_gen_planted(&p, true, NULL, &err);
            cr_assert_not_null(full, "%s", err.message);
            const bir_function *a = kept->fns[0], *b = full->fns[0];
            cr_assert_eq(a->nsets, 300u);
            cr_assert_eq(b->nsets, (300u * 100 + (100 - holes) / 2) / (100 - holes), "seed %llu, holes %u: %u sets",
                         (unsigned long long)seed, holes, b->nsets);
            unsigned span = 0;
            for (uint32_t s = 0; s < b->nsets; s++) {
                unsigned lo, last;
                int64_t bytes;
                planted_set(b, s, &lo, &last, &bytes);
                if (last + 1 > span) span = last + 1;
                if (s >= a->nsets) continue;
                unsigned lo2, last2;
                int64_t bytes2;
                planted_set(a, s, &lo2, &last2, &bytes2);
                cr_assert_str_eq(a->sets[s]->name, b->sets[s]->name);
                cr_assert(lo == lo2 && last == last2 && bytes == bytes2, "seed %llu: set %u differs",
                          (unsigned long long)seed, s);
            }
            int64_t *load = calloc(span + 1, sizeof *load);
            cr_assert_not_null(load);
            for (uint32_t s = 0; s < b->nsets; s++) {
                unsigned lo, last;
                int64_t bytes;
                planted_set(b, s, &lo, &last, &bytes);
                load[lo] += bytes, load[last + 1] -= bytes;
            }
            int64_t live = 0;
            for (unsigned t = 0; t < span; t++) {
                live += load[t];
                cr_assert_eq(live, p.capacity, "seed %llu, holes %u: step %u holds %lld bytes",
                             (unsigned long long)seed, holes, t, (long long)live);
            }
            free(load);
            bir_module_free(kept);
            bir_module_free(full);
        }
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.fill_holes = true;
    sba_error err;
    cr_assert_null(sba_gen_planted(&p, false, NULL, &err));
    cr_assert_eq(err.code, SBA_ERR_USAGE);
    cr_assert_not_null(strstr(err.message, "fill-holes needs holes"), "%s", err.message);
}

Test(gen, bad_options_are_usage_errors)
{
    struct {
        uint32_t tensors, depth;
        const char *heights;
        double pressure;
        const char *needle;
    } cases[] = {
        {0, 2, NULL, 0.7, "tensors must be in 1.."},
        {100000001, 2, NULL, 0.7, "tensors must be in 1.."},
        {10, 9, NULL, 0.7, "loop depth must be in 0..8"},
        {10, 2, NULL, 0, "pressure must be in (0, 8]"},
        {10, 2, NULL, -1, "pressure must be in (0, 8]"},
        {10, 2, NULL, 8.5, "pressure must be in (0, 8]"},
        {10, 2, NULL, NAN, "pressure must be in (0, 8]"},
        {10, 2, "x:1", 0.7, "unknown height \"x\""},
        {10, 2, "", 0.7, "unknown height \"\""},
        {10, 2, "q:", 0.7, "expected a weight after ':'"},
        {10, 2, "q:1;h:1", 0.7, "expected ',' or the end"},
        {10, 2, "q:0,h:0", 0.7, "every weight is zero"},
        {10, 2, "q:2000000", 0.7, "a weight exceeds"},
        {10, 2, "q,", 0.7, "unknown height \"\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sba_gen_options o = opts(1, cases[i].tensors, cases[i].depth, cases[i].heights, cases[i].pressure);
        sba_error err;
        memset(&err, 0, sizeof err);
        cr_assert_null(sba_gen_module(&o, NULL, &err), "case %zu generated", i);
        cr_assert_eq(err.code, SBA_ERR_USAGE, "case %zu: code %d", i, err.code);
        cr_assert_not_null(strstr(err.message, cases[i].needle), "case %zu: message \"%s\"", i, err.message);
    }
    sba_gen_options o = opts(1, 10, 2, NULL, 0.7);
    sba_target odd = *sba_target_preset("trn2");
    odd.partitions = 64;
    o.target = &odd;
    cr_assert_null(sba_gen_module(&o, NULL, NULL)); /* a NULL error is allowed */
}

/* The Nth allocation fails: a clean NULL with "out of memory", never a crash
 * or a leak (the sanitizer build checks leaks). */
typedef struct failing {
    long left;
} failing;

static void *f_alloc(void *ud, size_t n)
{
    failing *f = ud;
    if (f->left-- <= 0) return NULL;
    return malloc(n);
}

static void *f_realloc(void *ud, void *p, size_t n)
{
    failing *f = ud;
    if (f->left-- <= 0) return NULL;
    return realloc(p, n);
}

static void f_free(void *ud, void *p)
{
    (void)ud;
    free(p);
}

Test(gen, every_allocation_failure_is_reported)
{
    sba_gen_options o = opts(5, 400, 2, NULL, 0.7);
    bool done = false;
    for (long n = 0; n < 100000 && !done; n++) {
        failing f = {n};
        sba_allocator a = {f_alloc, f_realloc, f_free, &f};
        sba_error err;
        bir_module *m = sba_gen_module(&o, &a, &err);
        if (m) {
            done = true;
            cr_assert_eq(m->fns[0]->nsets, 400);
            bir_module_free(m);
        } else {
            cr_assert_eq(err.code, SBA_ERR_NOMEM, "after %ld allocations: %s", n, err.message);
        }
    }
    cr_assert(done);
}

/* ---- scale ---------------------------------------------------------------- */

Test(gen, hundred_thousand_tensors_generate_quickly, .timeout = 60)
{
    sba_gen_options o = opts(1, 100000, 2, NULL, 0.7);
    clock_t t0 = clock();
    bir_module *m = gen_ok(&o);
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    cr_assert_eq(m->fns[0]->nsets, 100000);
    cr_assert_lt(s, 5.0, "100,000 tensors took %.2f s", s);
    int64_t peak = peak_live(m->fns[0]);
    cr_assert(peak <= 0.7 * m->target.sbuf_bytes && peak >= 0.95 * 0.7 * m->target.sbuf_bytes);
    bir_module_free(m);
}

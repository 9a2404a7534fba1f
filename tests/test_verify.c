/* The independent verifier (src/verify): hand-placed kernels in
 * tests/data/verify/ that must verify, and hand-broken ones that must be
 * rejected with an exact message; the ownership map against a brute-force
 * byte array; loop sampling and the step limit. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "sballoc/program.h"
#include "sballoc/verify.h"
#include "verify/space.h"

/* ---- helpers ------------------------------------------------------------- */

static bir_module *load_case(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/verify/%s.json", SBALLOC_SOURCE_DIR, name);
    sba_error err;
    bir_module *m = bir_load_file(path, NULL, &err);
    cr_assert_not_null(m, "%s: %s: %s", path, err.path, err.message);
    cr_assert_eq(bir_validate_module(m, &err), SBA_OK, "%s does not validate: %s", name, err.message);
    return m;
}

static sba_verify_report pass(const char *name)
{
    bir_module *m = load_case(name);
    sba_error err;
    sba_verify_report rep;
    sba_status s = sba_verify_module(m, &rep, &err);
    cr_assert_eq(s, SBA_OK, "%s: %s: %s", name, err.path, err.message);
    cr_assert(rep.exhaustive);
    bir_module_free(m);
    return rep;
}

static void fail(const char *name, sba_status code, const char *path, const char *message)
{
    bir_module *m = load_case(name);
    sba_error err;
    sba_status s = sba_verify_module(m, NULL, &err);
    cr_assert_eq(s, code, "%s: expected %s, got %s: %s", name, sba_status_name(code), sba_status_name(s),
                 err.message);
    cr_assert_str_eq(err.message, message);
    cr_assert_str_eq(err.path, path);
    bir_module_free(m);
}

/* ---- correct placements --------------------------------------------------- */

Test(verify, correct_kernel_passes)
{
    sba_verify_report rep = pass("pass_basic");
    cr_assert_eq(rep.functions, 1);
    cr_assert_eq(rep.locations, 3);
    /* load1, load2, add (2), store, and the output y at the end */
    cr_assert_eq(rep.reads, 6);
    cr_assert_eq(rep.bytes, 6ull * 128 * 1024);
    cr_assert_eq(rep.points, 4);
}

Test(verify, dead_tensor_space_reused) { pass("pass_reuse_dead"); }

Test(verify, spill_store_and_reload) { pass("pass_spill_reload"); }

Test(verify, loop_accumulator_placed_apart)
{
    sba_verify_report rep = pass("pass_loop_accumulator");
    cr_assert_eq(rep.points, 1 + 1 + 4 * 3 + 1); /* init, header, 4 × (ld, add, end), store */
}

Test(verify, modulo_placement_per_iteration_blocks) { pass("pass_modulo"); }

Test(verify, coalesced_move_partners_share_bytes) { pass("pass_move_partners"); }

Test(verify, partial_defs_compose) { pass("pass_partial_defs"); }

/* ---- placement rules ------------------------------------------------------ */

Test(verify, bad_start_partition)
{
    fail("fail_start_partition", SBA_ERR_MODEL, "functions[0].allocations[2].memorylocations[0]",
         "verify: SB location \"t\" of tensor \"t\": base partition 32 breaks the start-partition rule "
         "for 64 partitions (allowed: 0, 64)");
}

Test(verify, misaligned_addr)
{
    fail("fail_misaligned", SBA_ERR_MODEL, "functions[0].allocations[2].memorylocations[0]",
         "verify: SB location \"t\" of tensor \"t\": addr 16 is not a multiple of the SB alignment 32");
}

Test(verify, out_of_capacity)
{
    fail("fail_capacity", SBA_ERR_MODEL, "functions[0].allocations[2].memorylocations[0]",
         "verify: SB location \"t\" of tensor \"t\": bytes [212000, 213024) (live_n 1 x 1024 bytes per "
         "block) exceed the 212984 SB bytes per partition");
}

Test(verify, partitions_beyond_target)
{
    fail("fail_partitions", SBA_ERR_MODEL, "functions[0].allocations[2].memorylocations[0]",
         "verify: SB location \"t\" of tensor \"t\": partitions [96, 128) exceed the target's 96 "
         "partitions");
}

Test(verify, unplaced_location)
{
    fail("fail_unplaced", SBA_ERR_MODEL, "functions[0].allocations[2].memorylocations[0]",
         "verify: SB location \"t\" of tensor \"t\" is not placed: addr and base are required (accessed "
         "by instruction \"load\")");
}

Test(verify, live_n_out_of_range)
{
    bir_module *m = load_case("pass_modulo");
    bir_set *s = bir_function_find_set(m->fns[0], "s");
    s->locs[0]->live_n = 5;
    sba_error err;
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_ERR_MODEL);
    cr_assert_str_eq(err.message,
                     "verify: SB location \"s\" of tensor \"s\": live_n 5 is outside [1, 4] (the tensor's blocks)");
    bir_module_free(m);
}

/* ---- data flow ------------------------------------------------------------ */

Test(verify, overlap_partial_bytes)
{
    fail("fail_overlap_bytes", SBA_ERR_PROGRAM, "functions[0].blocks[0].instructions[2].ins[0]",
         "verify: instruction \"add\" reads tensor \"a\" (SB location \"a\") at partitions [0, 128) "
         "bytes [512, 1024), but tensor \"b\" written there by instruction \"load2\" overwrote it");
}

Test(verify, overlap_partial_partitions)
{
    fail("fail_overlap_partitions", SBA_ERR_PROGRAM, "functions[0].blocks[0].instructions[2].ins[0]",
         "verify: instruction \"add\" reads tensor \"a\" (SB location \"a\") at partitions [32, 64) "
         "bytes [0, 1024), but tensor \"b\" written there by instruction \"load2\" overwrote it");
}

/* A strided write defines only its elements: a clobber of the older value in
 * the gaps between them is still seen. */
Test(verify, strided_write_leaves_its_gaps)
{
    fail("fail_strided_write_gap", SBA_ERR_PROGRAM, "functions[0].blocks[0].instructions[4].ins[0]",
         "verify: instruction \"st\" reads tensor \"t\" (SB location \"t\") at partitions [0, 128) "
         "bytes [4, 8), but tensor \"z\" written there by instruction \"wz\" overwrote it");
}

Test(verify, partition_strided_write_leaves_its_gaps)
{
    fail("fail_strided_partition_gap", SBA_ERR_PROGRAM, "functions[0].blocks[0].instructions[4].ins[0]",
         "verify: instruction \"st\" reads tensor \"t\" (SB location \"t\") at partitions [1, 2) "
         "bytes [0, 12), but tensor \"z\" written there by instruction \"wz\" overwrote it");
}

/* ... and strided writes that together cover a tensor compose. */
Test(verify, strided_writes_compose) { pass("pass_strided_writes_compose"); }

Test(verify, broken_reload)
{
    fail("fail_broken_reload", SBA_ERR_PROGRAM, "functions[0].blocks[0].instructions[6].ins[0]",
         "verify: instruction \"use\" reads tensor \"t\" (SB location \"t_tmp\") at partitions [0, 128) "
         "bytes [2048, 3072): broken reload/spill data flow: the bytes hold an older value of the "
         "tensor (written there by instruction \"reload\"), not the value defined by instruction \"def2\"");
}

Test(verify, reload_from_never_stored_home)
{
    fail("fail_never_stored", SBA_ERR_PROGRAM, "functions[0].blocks[0].instructions[5].ins[0]",
         "verify: instruction \"use\" reads tensor \"t\" (SB location \"t_tmp\") at partitions [0, 128) "
         "bytes [2048, 3072): broken reload/spill data flow: the bytes were never written, but should "
         "hold the value defined by instruction \"def2\"");
}

Test(verify, loop_carried_accumulator_overwritten)
{
    fail("fail_loop_accumulator", SBA_ERR_PROGRAM,
         "functions[0].blocks[0].instructions[1].blocks[0].instructions[1].ins[0]",
         "verify: instruction \"acc_add\" reads tensor \"acc\" (SB location \"acc\") at partitions "
         "[0, 128) bytes [0, 512), but tensor \"tmp\" written there by instruction \"ld\" overwrote it "
         "(in iteration 0 of loop \"L\")");
}

Test(verify, modulo_blocks_read_after_loop)
{
    fail("fail_modulo_read_after", SBA_ERR_PROGRAM, "functions[0].blocks[0].instructions[1].ins[0]",
         "verify: instruction \"sum\" reads tensor \"s\" (SB location \"s\", block 0) at partitions "
         "[0, 128) bytes [0, 512), but tensor \"s\" (block 3) written there by instruction \"ld\" "
         "overwrote it");
}

Test(verify, modulo_with_enough_blocks_passes)
{
    bir_module *m = load_case("fail_modulo_read_after");
    bir_function_find_set(m->fns[0], "s")->locs[0]->live_n = 0; /* all four blocks */
    bir_function_find_set(m->fns[0], "r")->locs[0]->addr = 2048;
    sba_error err;
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "%s", err.message);
    bir_module_free(m);
}

Test(verify, conflict_in_a_middle_iteration)
{
    fail("fail_middle_iteration", SBA_ERR_PROGRAM,
         "functions[0].blocks[0].instructions[1].blocks[0].instructions[1].ins[1]",
         "verify: instruction \"mul\" reads tensor \"k\" (SB location \"k\") at partitions [0, 128) "
         "bytes [2560, 3072), but tensor \"s\" (block 5) written there by instruction \"ld\" overwrote "
         "it (in iteration 5 of loop \"L\")");
}

Test(verify, output_clobbered_before_the_end)
{
    fail("fail_output_clobbered", SBA_ERR_PROGRAM, "",
         "verify: the end of function \"f\" needs output tensor \"o\" (SB location \"o\") at partitions "
         "[0, 128) bytes [512, 1024), but tensor \"w\" written there by instruction \"clobber\" "
         "overwrote it");
}

/* ---- loops: sampling and the limit ----------------------------------------- */

Test(verify, sampling_when_over_budget)
{
    bir_module *m = load_case("fail_middle_iteration");
    sba_error err;
    sba_verify_report rep;
    /* 1 + 8 × 2 + 8 loop iterations exhaustively; 1 + 3 × 2 + 3 sampled. */
    sba_verify_options o = {.max_steps = 10};
    cr_assert_eq(sba_verify_module_opts(m, &o, &rep, &err), SBA_OK, "%s", err.message);
    cr_assert_not(rep.exhaustive);
    cr_assert_eq(rep.sampled_loops, 1);
    o.no_sampling = true;
    cr_assert_eq(sba_verify_module_opts(m, &o, &rep, &err), SBA_ERR_LIMIT);
    cr_assert_str_eq(err.message,
                     "verify: function \"f\" needs 25 simulation steps, more than the limit of 10");
    o = (sba_verify_options){.max_steps = 5};
    cr_assert_eq(sba_verify_module_opts(m, &o, &rep, &err), SBA_ERR_LIMIT);
    cr_assert_str_eq(err.message, "verify: function \"f\" needs 10 simulation steps even with long loops "
                                  "sampled, more than the limit of 5");
    o = (sba_verify_options){.max_steps = 25};
    cr_assert_eq(sba_verify_module_opts(m, &o, &rep, &err), SBA_ERR_PROGRAM);
    bir_module_free(m);
}

/* ---- the ownership map against a byte array ------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct brute_scan {
    const uint32_t *cells;
    int64_t width;
    uint64_t covered;
    bool ok;
} brute_scan;

static int compare_piece(void *ud, const vpiece *pc)
{
    brute_scan *b = ud;
    for (uint32_t p = pc->p0; p < pc->p1; p++)
        for (int64_t x = pc->x0; x < pc->x1; x++) {
            b->covered++;
            if (b->cells[p * b->width + x] != pc->val) b->ok = false;
        }
    return 0;
}

Test(verify, ownership_map_matches_brute_force)
{
    enum { PARTS = 16, BYTES = 300, PAGE = 64, ROUNDS = 4000 };
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    vpool pool;
    sba_vpool_init(&pool, &ar);
    vspace sp;
    cr_assert(sba_vspace_init(&sp, &pool, 0, BYTES, PARTS, 7, PAGE));
    static uint32_t cells[PARTS * BYTES];
    for (int i = 0; i < PARTS * BYTES; i++) cells[i] = 7;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (uint32_t r = 0; r < ROUNDS; r++) {
        uint32_t p0 = rng_next(&seed) % PARTS, p1 = p0 + 1 + rng_next(&seed) % (PARTS - p0);
        int64_t x0 = rng_next(&seed) % BYTES, x1 = x0 + 1 + rng_next(&seed) % (BYTES - x0);
        uint32_t val = 1 + rng_next(&seed) % 5; /* few values: merges happen */
        cr_assert(sba_vspace_write(&sp, &pool, p0, p1, x0, x1, val, 0));
        for (uint32_t p = p0; p < p1; p++)
            for (int64_t x = x0; x < x1; x++) cells[p * BYTES + x] = val;
        uint32_t q0 = rng_next(&seed) % PARTS, q1 = q0 + 1 + rng_next(&seed) % (PARTS - q0);
        int64_t y0 = rng_next(&seed) % BYTES, y1 = y0 + 1 + rng_next(&seed) % (BYTES - y0);
        brute_scan b = {cells, BYTES, 0, true};
        sba_vspace_scan(&sp, q0, q1, y0, y1, compare_piece, &b);
        cr_assert(b.ok, "round %u: the map disagrees with the byte array", r);
        cr_assert_eq(b.covered, (uint64_t)(q1 - q0) * (uint64_t)(y1 - y0), "round %u: pieces do not tile", r);
    }
    /* Merged segments: never more than one per distinct column of the byte array. */
    uint64_t distinct = 0;
    for (int64_t x = 0; x < BYTES; x++) {
        bool differs = x % PAGE == 0;
        for (uint32_t p = 0; p < PARTS && !differs; p++) differs = cells[p * BYTES + x] != cells[p * BYTES + x - 1];
        distinct += differs;
    }
    cr_assert_leq(sba_vspace_segments(&sp), distinct);
    sba_arena_free(&ar);
}

/* ---- random programs against a per-byte brute force ------------------------
 *
 * Small random kernels (partial rectangles, modulo live_n, spill-like copies
 * between a tensor's own locations, one loop whose axis picks blocks) with
 * random placements on a 2 KiB SBUF. The brute force keeps one value id per
 * byte of every partition and, per tensor block, the id each byte should
 * hold; its verdict and failing instruction must match the verifier's. */

enum { RB_SB = 2048, RB_MAXT = 6, RB_MAXI = 24, RB_MAXP = 128, RB_MAXX = 64, RB_MAXB = 4 };

typedef struct rb_opnd {
    int set;          /* tensor index; -1: the input x; -2: the output y */
    int loc;          /* 0 "m" (SB), 1 "h" (DRAM home), 2 "r" (SB) */
    int block;        /* constant block, or -1: the loop's iteration */
    int p0, p1, x0, x1; /* relative rectangle (bytes) */
} rb_opnd;

typedef struct rb_inst {
    const char *opcode;
    rb_opnd ins[2], out;
    int nins;
    bool in_loop;
} rb_inst;

typedef struct rb_tensor {
    int nb, parts, fel;        /* blocks, partitions, fp32 elements per block row */
    int base[3], addr[3], live[3];
} rb_tensor;

typedef struct rb_prog {
    rb_tensor t[RB_MAXT];
    int nt;
    rb_inst in[RB_MAXI];
    int ni, loop_lo, loop_hi, trip; /* instructions [loop_lo, loop_hi) form the loop */
} rb_prog;

static int rb_pick(uint64_t *s, int n) { return (int)(rng_next(s) % (uint64_t)n); }

static void rb_rect(uint64_t *s, const rb_tensor *t, rb_opnd *o, bool full)
{
    int bpb = t->fel * 4, shape = full ? 0 : rb_pick(s, 5);
    o->p0 = 0, o->p1 = t->parts, o->x0 = 0, o->x1 = bpb;
    if (shape == 1) o->x1 = bpb / 2;
    if (shape == 2) o->x0 = bpb / 2;
    /* Partition halves only where the half starts at an allowed partition. */
    if (shape == 3 && t->parts > 32) o->p1 = t->parts / 2;
    if (shape == 4 && t->parts > 32) o->p0 = t->parts / 2;
}

static void rb_block(uint64_t *s, const rb_prog *g, const rb_tensor *t, rb_opnd *o, bool in_loop)
{
    o->block = in_loop && t->nb == g->trip && rb_pick(s, 3) ? -1 : rb_pick(s, t->nb);
}

static void rb_generate(uint64_t *s, rb_prog *g)
{
    memset(g, 0, sizeof *g);
    g->nt = 3 + rb_pick(s, RB_MAXT - 2);
    g->trip = 2 + rb_pick(s, 3);
    bool packed = rb_pick(s, 2);
    int next = 0;
    for (int i = 0; i < g->nt; i++) {
        rb_tensor *t = &g->t[i];
        static const int nbs[] = {1, 2, 4}, ps[] = {32, 64, 128}, fs[] = {8, 16};
        t->nb = rb_pick(s, 2) ? g->trip : nbs[rb_pick(s, 3)];
        t->parts = ps[rb_pick(s, 3)];
        t->fel = fs[rb_pick(s, 2)];
        for (int l = 0; l < 3; l += 2) {
            int bpb = t->fel * 4;
            t->live[l] = 1 + rb_pick(s, t->nb);
            int bases = t->parts > 64 ? 1 : t->parts > 32 ? 2 : 4;
            t->base[l] = rb_pick(s, bases) * (128 / bases);
            int span = t->live[l] * bpb;
            if (l == 2 && rb_pick(s, 4) == 0 && t->addr[0] + 32 + span <= RB_SB) {
                /* The second location overlaps the first, shifted: the
                 * same tensor's bytes at two relative offsets. */
                t->base[2] = t->base[0];
                t->addr[2] = t->addr[0] + 32;
            } else if (packed && next + span <= RB_SB) {
                t->addr[l] = next;
                next += span;
            } else {
                t->addr[l] = 32 * rb_pick(s, (RB_SB - span) / 32 + 1);
            }
        }
    }
    g->ni = 6 + rb_pick(s, RB_MAXI - 6);
    g->loop_lo = rb_pick(s, g->ni / 2);
    g->loop_hi = rb_pick(s, 2) ? g->loop_lo : g->loop_lo + 2 + rb_pick(s, g->ni - g->loop_lo - 1);
    if (g->loop_hi > g->ni) g->loop_hi = g->ni;
    for (int k = 0; k < g->ni; k++) {
        rb_inst *in = &g->in[k];
        in->in_loop = k >= g->loop_lo && k < g->loop_hi;
        int kind = rb_pick(s, 10), a = rb_pick(s, g->nt);
        const rb_tensor *ta = &g->t[a];
        if (kind < 4) { /* load x -> a */
            in->opcode = "DMALoad";
            in->out = (rb_opnd){.set = a, .loc = rb_pick(s, 2) * 2};
            rb_block(s, g, ta, &in->out, in->in_loop);
            rb_rect(s, ta, &in->out, false);
            in->ins[0] = (rb_opnd){.set = -1, .block = 0};
            in->nins = 1;
        } else if (kind < 7) { /* compute b, c -> a */
            int b = rb_pick(s, g->nt), c = rb_pick(s, g->nt);
            in->opcode = "TensorTensor";
            in->out = (rb_opnd){.set = a, .loc = rb_pick(s, 2) * 2};
            in->ins[0] = (rb_opnd){.set = b, .loc = rb_pick(s, 2) * 2};
            in->ins[1] = (rb_opnd){.set = c, .loc = rb_pick(s, 2) * 2};
            in->nins = 2;
            rb_block(s, g, ta, &in->out, in->in_loop);
            rb_rect(s, ta, &in->out, false);
            for (int j = 0; j < 2; j++) {
                rb_block(s, g, &g->t[in->ins[j].set], &in->ins[j], in->in_loop);
                rb_rect(s, &g->t[in->ins[j].set], &in->ins[j], false);
            }
        } else if (kind < 9) { /* spill-like copy between a's own locations */
            static const int moves[][2] = {{0, 1}, {2, 1}, {1, 0}, {1, 2}, {0, 2}, {2, 0}};
            const int *mv = moves[rb_pick(s, 6)];
            in->opcode = mv[1] == 1 ? "DMAStore" : mv[0] == 1 ? "DMALoad" : "TensorCopy";
            in->ins[0] = (rb_opnd){.set = a, .loc = mv[0]};
            rb_block(s, g, ta, &in->ins[0], in->in_loop);
            rb_rect(s, ta, &in->ins[0], rb_pick(s, 2));
            in->out = in->ins[0];
            in->out.loc = mv[1];
            if (rb_pick(s, 4) == 0) rb_rect(s, ta, &in->out, false);
            in->nins = 1;
        } else { /* store a -> y */
            in->opcode = "DMAStore";
            in->ins[0] = (rb_opnd){.set = a, .loc = rb_pick(s, 2) * 2};
            rb_block(s, g, ta, &in->ins[0], in->in_loop);
            rb_rect(s, ta, &in->ins[0], false);
            in->out = (rb_opnd){.set = -2};
            in->nins = 1;
        }
    }
}

static void rb_cat(char *buf, size_t size, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void rb_cat(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && *len + (size_t)n < size, "random program text too long");
    *len += (size_t)n;
}

static void rb_operand(const rb_prog *g, const rb_opnd *o, char *buf, size_t size, size_t *len)
{
    static const char *const locs[] = {"m", "h", "r"};
    if (o->set < 0) {
        int h = 16, w = 16;
        rb_cat(buf, size, len, "{\"memsetref\": \"%s\", \"ap\": [[16, %d], [1, %d]]}", o->set == -1 ? "x" : "y", h, w);
        return;
    }
    const rb_tensor *t = &g->t[o->set];
    long long pf = (long long)t->parts * t->fel;
    long long off = ((long long)(o->block < 0 ? 0 : o->block) * t->parts + o->p0) * t->fel + o->x0 / 4;
    rb_cat(buf, size, len,
           "{\"kind\": \"%s\", \"memsetref\": \"t%d\", \"memref\": \"%s\", \"offset\": %lld, "
           "\"ap\": [[%d, %d], [1, %d]]",
           o->block < 0 ? "symbolic_ap" : "physical_ap", o->set, locs[o->loc], off, t->fel, o->p1 - o->p0,
           (o->x1 - o->x0) / 4);
    if (o->block < 0) rb_cat(buf, size, len, ", \"terms\": [[\"i\", %lld]]", pf);
    rb_cat(buf, size, len, "}");
}

static void rb_json(const rb_prog *g, char *buf, size_t size)
{
    size_t len = 0;
    rb_cat(buf, size, &len,
           "{\"arch\": \"trn2\", \"target\": {\"name\": \"trn2\", \"sbuf_bytes_per_partition\": %d}, "
           "\"functions\": [{\"name\": \"f\", \"allocations\": ["
           "{\"name\": \"x\", \"kind\": \"ExternalInput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 16], "
           "\"memorylocations\": [{\"name\": \"x\", \"type\": \"DRAM\"}]}, "
           "{\"name\": \"y\", \"kind\": \"ExternalOutput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 16], "
           "\"memorylocations\": [{\"name\": \"y\", \"type\": \"DRAM\"}]}",
           RB_SB);
    for (int i = 0; i < g->nt; i++) {
        const rb_tensor *t = &g->t[i];
        rb_cat(buf, size, &len,
               ", {\"name\": \"t%d\", \"dtype\": \"float32\", \"tensor_shape\": [%d, %d, %d], \"partition_dim\": 1, "
               "\"memorylocations\": [{\"name\": \"m\", \"type\": \"SB\", \"addr\": %d, \"base\": %d, \"live_n\": %d}, "
               "{\"name\": \"h\", \"type\": \"DRAM\"}, "
               "{\"name\": \"r\", \"type\": \"SB\", \"addr\": %d, \"base\": %d, \"live_n\": %d}]}",
               i, t->nb, t->parts, t->fel, t->addr[0], t->base[0], t->live[0], t->addr[2], t->base[2], t->live[2]);
    }
    rb_cat(buf, size, &len, "], \"blocks\": [{\"name\": \"entry\", \"instructions\": [");
    for (int k = 0; k < g->ni; k++) {
        if (k == g->loop_lo && g->loop_hi > g->loop_lo)
            rb_cat(buf, size, &len,
                   "%s{\"name\": \"L\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"i\", \"lb\": 0, \"ub\": %d, "
                   "\"stride\": 1}, \"blocks\": [{\"name\": \"body\", \"instructions\": [",
                   k ? ", " : "", g->trip);
        const rb_inst *in = &g->in[k];
        rb_cat(buf, size, &len, "%s{\"name\": \"i%d\", \"opcode\": \"%s\", \"ins\": [",
               k && k != g->loop_lo && k != g->loop_hi ? ", " : k == g->loop_hi && k ? ", " : "", k, in->opcode);
        for (int j = 0; j < in->nins; j++) {
            if (j) rb_cat(buf, size, &len, ", ");
            rb_operand(g, &in->ins[j], buf, size, &len);
        }
        rb_cat(buf, size, &len, "], \"outs\": [");
        rb_operand(g, &in->out, buf, size, &len);
        rb_cat(buf, size, &len, "]}");
        if (k + 1 == g->loop_hi && g->loop_hi > g->loop_lo) rb_cat(buf, size, &len, "]}]}");
    }
    rb_cat(buf, size, &len, "]}]}]}");
}

/* The brute force. */
typedef struct rb_state {
    uint32_t sb[RB_MAXP][RB_SB];
    uint32_t home[RB_MAXT][RB_MAXB][RB_MAXP][RB_MAXX];
    uint32_t want[RB_MAXT][RB_MAXB][RB_MAXP][RB_MAXX];
    uint32_t next;
} rb_state;

/* The cell of (operand's location, block) at relative (p, x). */
static uint32_t *rb_cell(rb_state *st, const rb_prog *g, const rb_opnd *o, int blk, int p, int x)
{
    const rb_tensor *t = &g->t[o->set];
    if (o->loc == 1) return &st->home[o->set][blk][p][x];
    int slot = blk % t->live[o->loc];
    return &st->sb[t->base[o->loc] + p][t->addr[o->loc] + slot * t->fel * 4 + x];
}

/* Runs the program; returns the index of the failing instruction or -1. */
static int rb_run(const rb_prog *g, rb_state *st)
{
    memset(st, 0, sizeof *st);
    st->next = 1;
    for (int k = 0; k < g->ni;) {
        bool loop = k == g->loop_lo && g->loop_hi > g->loop_lo;
        int end = loop ? g->loop_hi : k + 1, trips = loop ? g->trip : 1;
        for (int it = 0; it < trips; it++)
            for (int q = k; q < end; q++) {
                const rb_inst *in = &g->in[q];
                int blk_in[2], blk_out = in->out.block < 0 ? it : in->out.block;
                bool copy = in->out.set >= 0;
                for (int j = 0; j < in->nins; j++) {
                    blk_in[j] = in->ins[j].block < 0 ? it : in->ins[j].block;
                    copy &= in->ins[j].set == in->out.set && in->ins[j].loc != in->out.loc;
                }
                if (!copy)
                    for (int j = 0; j < in->nins; j++) {
                        const rb_opnd *o = &in->ins[j];
                        if (o->set < 0) continue;
                        for (int p = o->p0; p < o->p1; p++)
                            for (int x = o->x0; x < o->x1; x++) {
                                uint32_t w = st->want[o->set][blk_in[j]][p][x];
                                if (w && *rb_cell(st, g, o, blk_in[j], p, x) != w) return q;
                            }
                    }
                const rb_opnd *o = &in->out;
                if (o->set < 0) continue;
                const rb_opnd *src = NULL;
                int sblk = 0;
                for (int j = 0; copy && j < in->nins && !src; j++) {
                    const rb_opnd *c = &in->ins[j];
                    if (blk_in[j] == blk_out && c->p0 <= o->p0 && c->p1 >= o->p1 && c->x0 <= o->x0 && c->x1 >= o->x1)
                        src = c, sblk = blk_in[j];
                }
                static uint32_t tmp[RB_MAXP][RB_MAXX];
                uint32_t v = src ? 0 : st->next++;
                for (int p = o->p0; p < o->p1; p++)
                    for (int x = o->x0; x < o->x1; x++) tmp[p][x] = src ? *rb_cell(st, g, src, sblk, p, x) : v;
                for (int p = o->p0; p < o->p1; p++)
                    for (int x = o->x0; x < o->x1; x++) {
                        *rb_cell(st, g, o, blk_out, p, x) = tmp[p][x];
                        if (!src) st->want[o->set][blk_out][p][x] = v;
                    }
            }
        k = end;
    }
    return -1;
}

Test(verify, random_programs_match_brute_force, .timeout = 120)
{
    static rb_state st;
    static char text[1 << 16];
    uint64_t seed = 0x2545f4914f6cdd1dull;
    int passes = 0, fails = 0;
    for (int n = 0; n < 800; n++) {
        rb_prog g;
        rb_generate(&seed, &g);
        rb_json(&g, text, sizeof text);
        sba_error err;
        bir_module *m = bir_load_buffer(text, strlen(text), "random.json", NULL, &err);
        cr_assert_not_null(m, "program %d: %s: %s\n%s", n, err.path, err.message, text);
        int bad = rb_run(&g, &st);
        sba_status s = sba_verify_module(m, NULL, &err);
        if (bad < 0) {
            cr_assert_eq(s, SBA_OK, "program %d: the brute force passes, the verifier says: %s\n%s", n, err.message, text);
            passes++;
        } else {
            char who[64];
            snprintf(who, sizeof who, "instruction \"i%d\" ", bad);
            cr_assert_eq(s, SBA_ERR_PROGRAM, "program %d: the brute force fails at i%d, the verifier says %s: %s\n%s", n,
                         bad, sba_status_name(s), err.message, text);
            cr_assert_not_null(strstr(err.message, who), "program %d: expected a failure at i%d: %s\n%s", n, bad,
                               err.message, text);
            fails++;
        }
        bir_module_free(m);
    }
    cr_assert_gt(passes, 100, "too few passing programs (%d) to mean anything", passes);
    cr_assert_gt(fails, 100, "too few failing programs (%d) to mean anything", fails);
}

/* An instruction that reads and writes one placement updates it in place: its
 * read is checked (only a move between two placements of a tensor is a copy). */
Test(verify, in_place_update_reads_are_checked)
{
    bir_module *m = load_case("fail_in_place_update");
    sba_error err;
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_ERR_PROGRAM);
    cr_assert(strstr(err.message, "reads tensor \"c_set\"") && strstr(err.message, "overwrote it"), "%s",
              err.message);
    bir_module_free(m);
}

/* A gap pattern too wide to simulate is refused as a limit (V024), never
 * taken for a def of the whole range. */
Test(verify, strided_write_too_wide_is_a_limit)
{
    static const char text[] =
        "{\"version\": 2, \"functions\": [{\"name\": \"f\", \"allocations\": ["
        "{\"name\": \"Y\", \"kind\": \"ExternalOutput\", \"dtype\": \"float32\", \"tensor_shape\": [1, 2100000], "
        "\"memorylocations\": [{\"name\": \"Y\", \"type\": \"DRAM\"}]}], \"blocks\": [{\"name\": \"e\", "
        "\"instructions\": [{\"name\": \"w\", \"opcode\": \"Memset\", \"outs\": [{\"memsetref\": \"Y\", "
        "\"ap\": [[2100000, 1], [2, 1050000]]}]}]}]}]}";
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "wide", NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_ERR_LIMIT, "%s", err.message);
    cr_assert_str_eq(err.message, "verify: instruction \"w\" writes tensor \"Y\" with gaps over more than 1048576 "
                                  "elements, more than the verifier simulates");
    bir_module_free(m);
}

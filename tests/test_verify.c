/* The independent verifier (src/verify): hand-placed kernels in
 * tests/data/verify/ that must verify, and hand-broken ones that must be
 * rejected with an exact message; the ownership map against a brute-force
 * byte array; loop sampling and the step limit. */
#include <criterion/criterion.h>
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
    /* 1 + 8 × 2 steps exhaustively; 1 + 3 × 2 sampled. */
    sba_verify_options o = {.max_steps = 10};
    cr_assert_eq(sba_verify_module_opts(m, &o, &rep, &err), SBA_OK, "%s", err.message);
    cr_assert_not(rep.exhaustive);
    cr_assert_eq(rep.sampled_loops, 1);
    o.no_sampling = true;
    cr_assert_eq(sba_verify_module_opts(m, &o, &rep, &err), SBA_ERR_LIMIT);
    cr_assert_str_eq(err.message,
                     "verify: function \"f\" needs 17 simulation steps, more than the limit of 10");
    o = (sba_verify_options){.max_steps = 5};
    cr_assert_eq(sba_verify_module_opts(m, &o, &rep, &err), SBA_ERR_LIMIT);
    cr_assert_str_eq(err.message, "verify: function \"f\" needs 7 simulation steps even with long loops "
                                  "sampled, more than the limit of 5");
    o = (sba_verify_options){.max_steps = 17};
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
    vpool_init(&pool, &ar);
    vspace sp;
    cr_assert(vspace_init(&sp, &pool, 0, BYTES, PARTS, 7, PAGE));
    static uint32_t cells[PARTS * BYTES];
    for (int i = 0; i < PARTS * BYTES; i++) cells[i] = 7;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (uint32_t r = 0; r < ROUNDS; r++) {
        uint32_t p0 = rng_next(&seed) % PARTS, p1 = p0 + 1 + rng_next(&seed) % (PARTS - p0);
        int64_t x0 = rng_next(&seed) % BYTES, x1 = x0 + 1 + rng_next(&seed) % (BYTES - x0);
        uint32_t val = 1 + rng_next(&seed) % 5; /* few values: merges happen */
        cr_assert(vspace_write(&sp, &pool, p0, p1, x0, x1, val, 0));
        for (uint32_t p = p0; p < p1; p++)
            for (int64_t x = x0; x < x1; x++) cells[p * BYTES + x] = val;
        uint32_t q0 = rng_next(&seed) % PARTS, q1 = q0 + 1 + rng_next(&seed) % (PARTS - q0);
        int64_t y0 = rng_next(&seed) % BYTES, y1 = y0 + 1 + rng_next(&seed) % (BYTES - y0);
        brute_scan b = {cells, BYTES, 0, true};
        vspace_scan(&sp, q0, q1, y0, y1, compare_piece, &b);
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
    cr_assert_leq(vspace_segments(&sp), distinct);
    sba_arena_free(&ar);
}

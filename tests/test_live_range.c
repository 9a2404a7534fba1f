/* live_range against seed 000: the loop-aware endpoints, the loop-carried
 * accumulator, the shrink factor and the SB capacity guard. */
#include "sbuf_fixture.h"

/* ====================================================================== */
/* live_range: the loop-aware endpoints                                    */
/* ====================================================================== */

/* def in L, use after L: the common nest is empty and the def is deeper, so
 * the start moves to L's header. */
Test(live_range, def_deeper_than_common_nest_starts_at_loop_header)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("pad"),
                  LD("pre", "x", "pad") ", " LOOP("L", "i", 4, LD("def", "x", "a")) ", " ST("use", "a", "y")
                  ", " ST("post", "pad", "y")),
          SB_TO_LIVE);
    cr_assert_lt(pt(&f, "pre"), pt(&f, "L"));
    assert_interval(&f, "a", pt(&f, "L"), pt(&f, "use"));
    cr_assert_not(node(&f, "a")->loop_carried);
    fx_free(&f);
}

/* def before L, use in L: the use is deeper, so the end moves to L's end. */
Test(live_range, use_deeper_than_common_nest_ends_at_loop_end)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LD("def", "x", "a") ", " LOOP("L", "i", 4, ST("use", "a", "y") ", " ST("more", "x", "y"))),
          SB_TO_LIVE);
    assert_interval(&f, "a", pt(&f, "def"), end_pt(&f, "L"));
    cr_assert_lt(pt(&f, "use"), end_pt(&f, "L") - 1);
    fx_free(&f);
}

/* def in L1, use in the sibling L2: both ends move. */
Test(live_range, def_and_use_deeper_both_extend)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LOOP("L1", "i", 4, LD("def", "x", "a") ", " ST("other", "x", "y")) ", "
                  LOOP("L2", "j", 4, ST("other2", "x", "y") ", " ST("use", "a", "y"))),
          SB_TO_LIVE);
    assert_interval(&f, "a", pt(&f, "L1"), end_pt(&f, "L2"));
    cr_assert_lt(pt(&f, "L1"), pt(&f, "def"));
    cr_assert_gt(end_pt(&f, "L2"), pt(&f, "use"));
    fx_free(&f);
}

/* def and use in the same loop body: equal nests, no extension; and at
 * function level, the plain [def, use]. */
Test(live_range, equal_nests_do_not_extend)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b"),
                  LD("d0", "x", "b") ", " ST("u0", "b", "y") ", "
                  LOOP("L", "i", 4, ST("s0", "x", "y") ", " LD("def", "x", "a") ", " ST("use", "a", "y")
                       ", " ST("s1", "x", "y"))),
          SB_TO_LIVE);
    assert_interval(&f, "a", pt(&f, "def"), pt(&f, "use"));
    assert_interval(&f, "b", pt(&f, "d0"), pt(&f, "u0"));
    cr_assert_not(node(&f, "a")->loop_carried);
    fx_free(&f);
}

/* def in L/M, use in L: the common prefix is [L]; the def is deeper, at M. */
Test(live_range, def_deeper_in_a_nest_moves_to_the_inner_header)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LOOP("L", "i", 2, ST("s0", "x", "y") ", " LOOP("M", "j", 3, LD("def", "x", "a")) ", "
                                    ST("use", "a", "y") ", " ST("s1", "x", "y"))),
          SB_TO_LIVE);
    assert_interval(&f, "a", pt(&f, "M"), pt(&f, "use"));
    cr_assert_gt(pt(&f, "M"), pt(&f, "L"));
    fx_free(&f);
}

/* An input in SB is defined at entry: it starts at point 0, and a use inside
 * a loop ends at the outermost loop's end. */
Test(live_range, input_defined_at_entry)
{
    fx f;
    front(&f, MOD(SET("w", "Input", "SB", 128, 16) ", " DOUT("y", 128, 16) ", " DIN("x", 128, 16),
                  ST("s0", "x", "y") ", " LOOP("L", "i", 2, LOOP("M", "j", 2, ST("use", "w", "y"))) ", "
                  ST("s1", "x", "y")),
          SB_TO_LIVE);
    cr_assert(node(&f, "w")->entry_def);
    assert_interval(&f, "w", 0, end_pt(&f, "L"));
    fx_free(&f);
}

/* The loop-carried accumulator: in L, acc is read (rd) before it is written
 * (wr); the value crosses the back edge, so acc is live over all of L even
 * though its own def and last use are both the inner wr. */
Test(live_range, loop_carried_accumulator_is_live_across_the_loop)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("acc") ", " T("t"),
                  LOOP("L", "i", 4, ST("s0", "x", "y") ", " CP("rd", "acc", "t") ", " ADD("wr", "t", "t", "acc")
                                    ", " ST("s1", "x", "y"))),
          SB_TO_LIVE);
    const sb_node *acc = node(&f, "acc");
    cr_assert_eq(acc->first_def, inst(&f, "wr"));
    cr_assert_eq(acc->last_use, inst(&f, "wr"));
    cr_assert(acc->loop_carried);
    assert_interval(&f, "acc", pt(&f, "L"), end_pt(&f, "L"));
    /* t is written then read in each iteration: not carried. */
    cr_assert_not(node(&f, "t")->loop_carried);
    assert_interval(&f, "t", pt(&f, "rd"), pt(&f, "wr"));
    fx_free(&f);
}

/* The classic accumulator: initialised before L, updated in L, stored after:
 * live from the init to the store, carried in L. */
Test(live_range, accumulator_initialised_before_the_loop)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("acc") ", " T("v"),
                  INS("init", "Memset", "", A("acc")) ", "
                  LOOP("L", "i", 4, LD("ld", "x", "v") ", " ADD("upd", "acc", "v", "acc")) ", "
                  ST("out", "acc", "y")),
          SB_TO_LIVE);
    cr_assert(node(&f, "acc")->loop_carried);
    assert_interval(&f, "acc", pt(&f, "init"), pt(&f, "out"));
    assert_interval(&f, "v", pt(&f, "ld"), pt(&f, "upd"));
    fx_free(&f);
}

/* ---- the partition footprint: shrink ---------------------------------- */

/* [4, 128, 16] written and read block i in loop i of 4 trips: liveN = 4/4. */
#define BLOCKED_BODY(B, trips, sets, extra)                                                            \
    MOD(BLK("x", "ExternalInput", "DRAM", B, 128, 16) ", " BLK("y", "ExternalOutput", "DRAM", B, 128, 16) \
        ", " BLK("t", "Internal", "SB", B, 128, 16) sets,                                              \
        LOOP("L", "i", trips, INS("ld", "DMALoad", APX("x", 128, 16, "i", 2048),                      \
                                   APX("t", 128, 16, "i", 2048)) ", "                                 \
                              INS("st", "DMAStore", APX("t", 128, 16, "i", 2048),                     \
                                  APX("y", 128, 16, "i", 2048))) extra)

/* Seed 000's shrinkDim: the B axis the loop steps. t is [2, 4, 128, 16]
 * (partition_dim 2): a loop stepping one block (2,048 elements) per trip
 * collapses axis 1; one stepping four blocks collapses axis 0. */
#define SET4(name, kind, type)                                                                         \
    "{\"name\": \"" name "\", \"kind\": \"" kind "\", \"dtype\": \"float32\", \"tensor_shape\": [2, 4, 128, " \
    "16], \"partition_dim\": 2, \"memorylocations\": [{\"name\": \"" name "\", \"type\": \"" type "\"}]}"
#define TWO_AXES(trips, step)                                                                          \
    MOD(SET4("x", "ExternalInput", "DRAM") ", " SET4("y", "ExternalOutput", "DRAM") ", "               \
        SET4("t", "Internal", "SB"),                                                                   \
        LOOP("L", "i", trips, INS("ld", "DMALoad", APX("x", 128, 16, "i", step),                       \
                                   APX("t", 128, 16, "i", step)) ", "                                  \
                              INS("st", "DMAStore", APX("t", 128, 16, "i", step),                      \
                                  APX("y", 128, 16, "i", step))))

Test(live_range, shrink_dim_is_the_axis_the_loop_steps)
{
    fx f;
    front(&f, TWO_AXES(4, 2048), SB_TO_LIVE);
    cr_assert_eq(node(&f, "t")->live_n, 2);
    cr_assert_eq(node(&f, "t")->shrink_dim, 1);
    fx_free(&f);
    front(&f, TWO_AXES(2, 8192), SB_TO_LIVE);
    cr_assert_eq(node(&f, "t")->live_n, 4);
    cr_assert_eq(node(&f, "t")->shrink_dim, 0);
    fx_free(&f);
    front(&f, BLOCKED_BODY(4, 1, "", ""), SB_TO_LIVE); /* one trip: nothing collapses */
    cr_assert_eq(node(&f, "t")->live_n, 4);
    cr_assert_eq(node(&f, "t")->shrink_dim, -1);
    fx_free(&f);
}

Test(live_range, shrink_every_access_axis_indexed)
{
    fx f;
    front(&f, BLOCKED_BODY(4, 4, "", ""), SB_TO_LIVE);
    const sb_node *t = node(&f, "t");
    cr_assert_eq(t->nblocks, 4);
    cr_assert_eq(t->live_n, 1);
    cr_assert_eq(t->bytes_per_block, 64);
    cr_assert_eq(t->bytes, 64);
    cr_assert_eq(sb_create_eintervals(&f.c), SBA_OK);
    cr_assert_eq(f.c.neint, 1, "one eInterval per live block");
    fx_free(&f);
}

/* 8 blocks, 4 trips: liveN = NBlocks / trip count = 2. */
Test(live_range, shrink_divides_nblocks_by_the_trip_count)
{
    fx f;
    front(&f, BLOCKED_BODY(8, 4, "", ""), SB_TO_LIVE);
    const sb_node *t = node(&f, "t");
    cr_assert_eq(t->live_n, 2);
    cr_assert_eq(t->bytes, 128);
    cr_assert_eq(sb_create_eintervals(&f.c), SBA_OK);
    cr_assert_eq(f.c.neint, 2);
    uint32_t r = id(&f, "t");
    cr_assert_eq(f.c.eint_of[r + 1] - f.c.eint_of[r], 2);
    for (uint64_t e = f.c.eint_of[r]; e < f.c.eint_of[r + 1]; e++) {
        cr_assert_eq(f.c.eint[e].start, t->start);
        cr_assert_eq(f.c.eint[e].end, t->end);
        cr_assert_eq(f.c.eint[e].block, (int64_t)(e - f.c.eint_of[r]));
    }
    fx_free(&f);
}

/* The seed asserts NBlocks % shrink == 0 ("number of blocks is not a multiple
 * of shrink factor"); our shrink factor is a trip count, which need not
 * divide, so the condition is checked before the assert and such a tensor
 * keeps every block: 6 blocks, 4 trips -> liveN 6. */
Test(live_range, shrink_assert_condition_keeps_all_blocks)
{
    fx f;
    front(&f, BLOCKED_BODY(6, 4, "", ""), SB_TO_LIVE);
    const sb_node *t = node(&f, "t");
    cr_assert_eq(t->nblocks, 6);
    cr_assert_eq(t->live_n, 6);
    cr_assert_eq(t->bytes, 6 * 64);
    fx_free(&f);
}

/* A plain read (all blocks at once) disables the shrink path. */
Test(live_range, plain_read_disables_shrink)
{
    fx f;
    front(&f, BLOCKED_BODY(4, 4, ", " DOUT("r", 128, 16),
                           ", " INS("sum", "TensorReduce", APALL("t", 4, 128, 16, 2048), A("r"))),
          SB_TO_LIVE);
    cr_assert_eq(node(&f, "t")->live_n, 4);
    cr_assert_eq(node(&f, "t")->bytes, 256);
    fx_free(&f);
}

/* A constant-block read (block 2 after the loop) disables it too. */
Test(live_range, constant_block_read_disables_shrink)
{
    fx f;
    front(&f, MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 16) ", " BLK("t", "Internal", "SB", 4, 128, 16)
                  ", " DOUT("y", 128, 16),
                  LOOP("L", "i", 4, INS("ld", "DMALoad", APX("x", 128, 16, "i", 2048), APX("t", 128, 16, "i", 2048)))
                  ", " INS("st", "DMAStore", APB("t", 128, 16, 4096), A("y"))),
          SB_TO_LIVE);
    cr_assert_eq(node(&f, "t")->live_n, 4);
    fx_free(&f);
}

/* The same, allocated: block 2 survives the loop's later iterations (with
 * liveN 1 iteration 3 would overwrite it), as the verifier proves. */
Test(live_range, constant_block_read_after_the_loop_allocates_correctly)
{
    fx f;
    cr_assert_eq(analyze_log(&f, MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 16) ", "
                                     BLK("t", "Internal", "SB", 4, 128, 16) ", " DOUT("y", 128, 16),
                                     LOOP("L", "i", 4, INS("ld", "DMALoad", APX("x", 128, 16, "i", 2048),
                                                           APX("t", 128, 16, "i", 2048)))
                                     ", " INS("st", "DMAStore", APB("t", 128, 16, 4096), A("y"))),
                             true),
                 SBA_OK, "%s", f.err.message);
    cr_assert_eq(find_loc(&f, "t")->live_n, 4);
    assert_verified(&f);
    bir_module_free(f.m);
}

/* A tensor whose first access in the loop is a read is carried: no shrink. */
Test(live_range, carried_tensor_does_not_shrink)
{
    fx f;
    front(&f, MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 16) ", " BLK("t", "Input", "SB", 4, 128, 16)
                  ", " BLK("y", "ExternalOutput", "DRAM", 4, 128, 16),
                  LOOP("L", "i", 4, INS("st", "DMAStore", APX("t", 128, 16, "i", 2048), APX("y", 128, 16, "i", 2048))
                                    ", " INS("ld", "DMALoad", APX("x", 128, 16, "i", 2048),
                                             APX("t", 128, 16, "i", 2048)))),
          SB_TO_LIVE);
    cr_assert_eq(node(&f, "t")->live_n, 4);
    fx_free(&f);
}

/* ---- the capacity guard ------------------------------------------------ */

Test(live_range, too_big_for_sb)
{
    fx f;
    fx_init(&f, MOD(DIN("x", 128, 512) ", " DOUT("y", 128, 512) ", " SB("big", 128, 512),
                    INS("ld", "DMALoad", AP("x", 128, 512), AP("big", 128, 512)) ", "
                    INS("st", "DMAStore", AP("big", 128, 512), AP("y", 128, 512))));
    cr_assert_eq(run_passes(&f, SB_TO_LIVE), SBA_ERR_ALLOC);
    cr_assert_str_eq(f.err.message, "big is too big for SB, requires 2048 bytes with SB size 1024");
    fx_free(&f);
}

/* The footprint counted is liveN × bytesPerBlock: 4 blocks of 512 bytes fit
 * once shrunk to one. */
Test(live_range, shrunk_tensor_is_not_too_big)
{
    fx f;
    front(&f, MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 128) ", " BLK("y", "ExternalOutput", "DRAM", 4, 128, 128)
                  ", " BLK("t", "Internal", "SB", 4, 128, 128),
                  LOOP("L", "i", 4, INS("ld", "DMALoad", APX("x", 128, 128, "i", 16384), APX("t", 128, 128, "i", 16384))
                                    ", " INS("st", "DMAStore", APX("t", 128, 128, "i", 16384),
                                             APX("y", 128, 128, "i", 16384)))),
          SB_TO_LIVE);
    cr_assert_eq(node(&f, "t")->bytes, 512);
    fx_free(&f);
}

/* The footprint is placed in whole alignment units, so a tensor of 1,000
 * bytes needs 1,024: with a 1,000-byte SB the message must name what the
 * allocator needs, not the smaller raw size (which would read "requires
 * 1000 bytes with SB size 1000"). */
Test(live_range, too_big_names_the_aligned_footprint)
{
    fx f;
    fx_init(&f, "{\"target\": {\"sbuf_bytes_per_partition\": 1000, \"sbuf_alignment\": 32}, \"functions\": [{"
                "\"name\": \"f\", \"allocations\": [" DIN("x", 128, 250) ", " DOUT("y", 128, 250) ", "
                SB("t", 128, 250) "], \"blocks\": [{\"name\": \"entry\", \"instructions\": ["
                INS("ld", "DMALoad", AP("x", 128, 250), AP("t", 128, 250)) ", "
                INS("st", "DMAStore", AP("t", 128, 250), AP("y", 128, 250)) "]}]}]}");
    cr_assert_eq(run_passes(&f, SB_TO_LIVE), SBA_ERR_ALLOC);
    cr_assert_str_eq(f.err.message, "t is too big for SB, requires 1024 bytes with SB size 1000");
    fx_free(&f);
}

/* The seed's firstDefs / lastUses: every representative once in each, at
 * the point its interval starts and at the point it ends. */
Test(live_range, first_defs_and_last_uses_maps)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b"),
                  LD("la", "x", "a") ", " LOOP("L", "i", 4, CP("cp", "a", "b") ", " ST("st", "b", "y"))),
          SB_TO_LIVE);
    const char *names[] = {"a", "b"};
    for (int k = 0; k < 2; k++) {
        uint32_t v = id(&f, names[k]), seen_def = 0, seen_use = 0;
        for (uint32_t p = 0; p < f.c.lin.npoints; p++) {
            for (uint32_t q = f.c.first_defs_of[p]; q < f.c.first_defs_of[p + 1]; q++)
                if (f.c.first_defs[q] == v) {
                    seen_def++;
                    cr_assert_eq(p, f.c.info[v].start);
                }
            for (uint32_t q = f.c.last_uses_of[p]; q < f.c.last_uses_of[p + 1]; q++)
                if (f.c.last_uses[q] == v) {
                    seen_use++;
                    cr_assert_eq(p, f.c.info[v].end);
                }
        }
        cr_assert_eq(seen_def, 1);
        cr_assert_eq(seen_use, 1);
    }
    /* a is read in the loop: its last use moves to the loop end */
    assert_interval(&f, "a", pt(&f, "la"), end_pt(&f, "L"));
    fx_free(&f);
}

/* Operand footprints (docs/format.md, "Access patterns"): the component
 * classification, ranges with negative steps and loop terms, block access
 * kinds, out-of-bound reports per component, overflow, and the start-partition
 * mask. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sballoc/program.h"

/* ---- fixtures ---------------------------------------------------------- */

typedef struct fixture {
    bir_module *m;
    bir_inst *in;
    const bir_operand *op;
} fixture;

static void cat(char *buf, size_t size, const char *s)
{
    size_t n = strlen(buf), k = strlen(s);
    cr_assert_lt(n + k, size, "fixture text too long");
    memcpy(buf + n, s, k + 1);
}

/* One tensor "t" (dtype, shape, partition_dim, location type) read by the
 * instruction "op" through `operand`, nested in the loops `axes` (LoopAxis
 * objects as JSON, outermost first). */
static fixture make(const char *dtype, const char *shape, int pd, const char *type, const char *operand,
                    const char *const *axes, int nloops)
{
    char text[8192], part[512];
    snprintf(text, sizeof text,
             "{\"functions\": [{\"name\": \"f\", \"allocations\": [{\"name\": \"t\", \"kind\": "
             "\"Input\", \"dtype\": \"%s\", \"tensor_shape\": %s, \"partition_dim\": %d, "
             "\"memorylocations\": [{\"name\": \"t0\", \"type\": \"%s\"}]}], \"blocks\": [",
             dtype, shape, pd, type);
    for (int i = 0; i < nloops; i++) {
        snprintf(part, sizeof part,
                 "{\"name\": \"b%d\", \"instructions\": [{\"name\": \"L%d\", \"opcode\": \"Loop\", "
                 "\"LoopAxis\": %s, \"blocks\": [", i, i, axes[i]);
        cat(text, sizeof text, part);
    }
    cat(text, sizeof text, "{\"name\": \"b\", \"instructions\": [{\"name\": \"op\", \"opcode\": "
                           "\"TensorCopy\", \"ins\": [");
    cat(text, sizeof text, operand);
    cat(text, sizeof text, "]}]}");
    for (int i = 0; i < nloops; i++) cat(text, sizeof text, "]}]}");
    cat(text, sizeof text, "]}]}");
    sba_error err;
    fixture fx = {0};
    fx.m = bir_load_buffer(text, strlen(text), "test.json", NULL, &err);
    cr_assert_not_null(fx.m, "load failed: %s: %s\n%s", err.path, err.message, text);
    fx.in = bir_function_find_inst(fx.m->fns[0], "op");
    cr_assert_not_null(fx.in);
    fx.op = &fx.in->ins[0];
    return fx;
}

/* float32 [2, 128, 64] on SB: P = 128, F = 64, P×F = 8192, 2 blocks. */
static fixture sb3(const char *operand) { return make("float32", "[2, 128, 64]", 1, "SB", operand, NULL, 0); }

static bir_footprint ok(fixture fx)
{
    bir_footprint fp;
    sba_error err;
    sba_status s = bir_operand_footprint(fx.in, fx.op, &fp, &err);
    cr_assert_eq(s, SBA_OK, "unexpected error: %s", err.message);
    return fp;
}

static void fails(fixture fx, const char *message)
{
    bir_footprint fp;
    sba_error err;
    cr_assert_eq(bir_operand_footprint(fx.in, fx.op, &fp, &err), SBA_ERR_PROGRAM);
    cr_assert_str_eq(err.message, message);
}

/* ---- physical access patterns ------------------------------------------ */

Test(physical, const_block_full_tile)
{
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], \"offset\": 8192}");
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 0);
    cr_assert_eq(fp.part_hi, 128);
    cr_assert_eq(fp.byte_lo, 0);
    cr_assert_eq(fp.byte_hi, 256);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_CONST);
    cr_assert_eq(fp.block, 1);
    cr_assert_eq(fp.block_hi, 1);
    cr_assert_eq(fp.base_mask, 0x1);
    cr_assert_not(fp.pins_base);
    bir_module_free(fx.m);
}

Test(physical, partition_and_byte_sub_range)
{
    /* Partitions 32..63, free elements 8..23 of float32: bytes [32, 96). */
    fixture fx = make("float32", "[128, 64]", 0, "SB",
                      "{\"memsetref\": \"t\", \"ap\": [[64, 32], [1, 16]], \"offset\": 2056}", NULL, 0);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 32);
    cr_assert_eq(fp.part_hi, 64);
    cr_assert_eq(fp.byte_lo, 32);
    cr_assert_eq(fp.byte_hi, 96);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_CONST);
    cr_assert_eq(fp.block, 0);
    cr_assert_eq(fp.base_mask, 0x1);
    cr_assert_not(fp.pins_base);
    bir_module_free(fx.m);
}

Test(physical, bytes_scale_with_the_tensor_dtype)
{
    /* The operand's dtype is how data is read; counting is in the tensor's. */
    fixture fx = make("bfloat16", "[128, 64]", 0, "SB",
                      "{\"memsetref\": \"t\", \"dtype\": \"float32\", \"ap\": [[64, 128], [1, 10]], "
                      "\"offset\": 5}", NULL, 0);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.byte_lo, 10);
    cr_assert_eq(fp.byte_hi, 30);
    bir_module_free(fx.m);
}

Test(physical, all_blocks_by_a_pair)
{
    fixture fx = make("float32", "[4, 128, 64]", 1, "SB",
                      "{\"memsetref\": \"t\", \"ap\": [[64, 128], [8192, 3], [1, 64]], \"offset\": 8192}",
                      NULL, 0);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_ALL);
    cr_assert_eq(fp.block, 1);
    cr_assert_eq(fp.block_hi, 3);
    cr_assert_null(fp.block_loop);
    bir_module_free(fx.m);
}

Test(physical, negative_steps)
{
    /* Free elements 63 down to 0; partitions 127 down to 0 through a second
     * partition-moving pair after a num-1 partition pair. */
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 1], [-64, 128], [-1, 64]], \"offset\": 8191}");
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 0);
    cr_assert_eq(fp.part_hi, 128);
    cr_assert_eq(fp.byte_lo, 0);
    cr_assert_eq(fp.byte_hi, 256);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_CONST);
    cr_assert_eq(fp.block, 0);
    /* A negative block step from the last block. */
    fixture fx2 = make("float32", "[4, 128, 64]", 1, "SB",
                       "{\"memsetref\": \"t\", \"ap\": [[64, 128], [-8192, 4], [1, 64]], \"offset\": 24576}",
                       NULL, 0);
    fp = ok(fx2);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_ALL);
    cr_assert_eq(fp.block, 0);
    cr_assert_eq(fp.block_hi, 3);
    bir_module_free(fx.m);
    bir_module_free(fx2.m);
}

Test(physical, zero_step_and_num_one_move_nothing)
{
    /* A broadcast (step 0) and a num-1 pair of any step. In DRAM, where
     * partition 1 is a fine start. */
    fixture fx = make("float32", "[2, 128, 64]", 1, "DRAM",
                      "{\"memsetref\": \"t\", \"ap\": [[999, 1], [0, 16], [8192, 1], [1, 4]], \"offset\": 8264}",
                      NULL, 0);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 1);
    cr_assert_eq(fp.part_hi, 2);
    cr_assert_eq(fp.byte_lo, 32);
    cr_assert_eq(fp.byte_hi, 48);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_CONST);
    cr_assert_eq(fp.block, 1);
    bir_module_free(fx.m);
}

Test(physical, single_partition_tensor_blocks)
{
    /* P = 1: a step of F is a multiple of P×F, so it moves the block. */
    fixture fx = make("float32", "[6, 1, 64]", 1, "SB",
                      "{\"memsetref\": \"t\", \"ap\": [[64, 1], [64, 6], [1, 64]]}", NULL, 0);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 0);
    cr_assert_eq(fp.part_hi, 1);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_ALL);
    cr_assert_eq(fp.block_hi, 5);
    cr_assert_eq(fp.base_mask, 0xF);
    bir_module_free(fx.m);
}

/* ---- out of bound ------------------------------------------------------- */

Test(bounds, block_out_of_bound)
{
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], \"offset\": 16384}");
    fails(fx, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": block range "
              "[2, 2] exceeds [0, 2)");
    bir_module_free(fx.m);
}

Test(bounds, negative_offset_is_below_block_zero)
{
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 1], [1, 1]], \"offset\": -1}");
    fails(fx, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": block range "
              "[-1, -1] exceeds [0, 2)");
    bir_module_free(fx.m);
}

Test(bounds, partition_out_of_bound)
{
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], \"offset\": 64}");
    fails(fx, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": partition range "
              "[1, 128] exceeds [0, 128)");
    bir_module_free(fx.m);
}

Test(bounds, free_out_of_bound)
{
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 128], [1, 65]]}");
    fails(fx, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": free range "
              "[0, 64] exceeds [0, 64)");
    bir_module_free(fx.m);
    /* A negative free step below element 0. */
    fixture fx2 = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 128], [-2, 4]], \"offset\": 4}");
    fails(fx2, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": free range "
               "[-2, 4] exceeds [0, 64)");
    bir_module_free(fx2.m);
}

Test(bounds, free_step_that_is_no_multiple_of_f_stays_free)
{
    /* Step 65 is not a multiple of F = 64: it moves the free element, never
     * wrapping into the next partition. */
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 128], [65, 2]]}");
    fails(fx, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": free range "
              "[0, 65] exceeds [0, 64)");
    bir_module_free(fx.m);
}

Test(bounds, error_carries_the_operand_path)
{
    fixture fx = make("float32", "[128, 64]", 0, "SB", "{\"memsetref\": \"t\", \"ap\": [[64, 129], [1, 64]]}",
                      (const char *const[]){"{\"name\": \"i\", \"lb\": 0, \"ub\": 2}"}, 1);
    bir_footprint fp;
    sba_error err;
    cr_assert_eq(bir_operand_footprint(fx.in, fx.op, &fp, &err), SBA_ERR_PROGRAM);
    cr_assert_str_eq(err.path, "functions[0].blocks[0].instructions[0].blocks[0].instructions[0].ins[0]");
    bir_module_free(fx.m);
}

Test(bounds, partition_step_not_f)
{
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[32, 128], [1, 32]]}");
    fails(fx, "Access pattern partition step is not one partition: instruction \"op\" ins[0] on tensor "
              "\"t\": the first pair steps 32 elements with num 128; it must step F = 64 (partitions "
              "are contiguous) or have num 1");
    bir_module_free(fx.m);
    /* The same step is fine with num 1. */
    fixture fx2 = sb3("{\"memsetref\": \"t\", \"ap\": [[32, 1], [1, 32]]}");
    bir_footprint fp = ok(fx2);
    cr_assert_eq(fp.part_hi - fp.part_lo, 1);
    bir_module_free(fx2.m);
}

Test(bounds, pair_overflow_is_an_error)
{
    /* (2^40 - 1) × (2^24 - 1) does not fit in 64 bits. */
    fixture fx = sb3("{\"memsetref\": \"t\", \"ap\": [[64, 128], [1099511627775, 16777216]]}");
    fails(fx, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": the free range "
              "overflows 64 bits");
    bir_module_free(fx.m);
}

Test(bounds, term_overflow_is_an_error)
{
    fixture fx = make("float32", "[2, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                      "\"terms\": [[\"i\", 1099511627775]]}",
                      (const char *const[]){"{\"name\": \"i\", \"lb\": 1099511627000, \"ub\": 1099511627776}"}, 1);
    fails(fx, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": the free range "
              "overflows 64 bits");
    bir_module_free(fx.m);
}

Test(bounds, not_an_access_pattern)
{
    fixture fx = sb3("{\"kind\": \"imm_value\", \"value\": 1}");
    bir_footprint fp;
    sba_error err;
    cr_assert_eq(bir_operand_footprint(fx.in, fx.op, &fp, &err), SBA_ERR_USAGE);
    bir_module_free(fx.m);
}

/* ---- symbolic access patterns ------------------------------------------ */

static const char *const I4[] = {"{\"name\": \"i\", \"lb\": 0, \"ub\": 4}"};

Test(symbolic, axis_indexed_block)
{
    fixture fx = make("float32", "[4, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                      "\"terms\": [[\"i\", 8192]]}", I4, 1);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_AXIS);
    cr_assert_eq(fp.block, 0);
    cr_assert_eq(fp.block_hi, 3);
    cr_assert_eq(fp.block_coeff, 1);
    cr_assert_eq(fp.block_loop, bir_function_find_inst(fx.m->fns[0], "L0"));
    cr_assert_eq(fp.part_lo, 0);
    cr_assert_eq(fp.part_hi, 128);
    bir_module_free(fx.m);
}

Test(symbolic, axis_block_with_lower_bound_and_stride)
{
    /* i = 1, 3, 5, 7: blocks 1, 3, 5, 7; two blocks per iteration. */
    fixture fx = make("float32", "[8, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                      "\"terms\": [[\"i\", 8192]]}",
                      (const char *const[]){"{\"name\": \"i\", \"lb\": 1, \"ub\": 8, \"stride\": 2}"}, 1);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_AXIS);
    cr_assert_eq(fp.block, 1);
    cr_assert_eq(fp.block_hi, 7);
    cr_assert_eq(fp.block_coeff, 2);
    bir_module_free(fx.m);
}

Test(symbolic, axis_block_counting_down)
{
    fixture fx = make("float32", "[4, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                      "\"offset\": 24576, \"terms\": [[\"i\", -8192]]}", I4, 1);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_AXIS);
    cr_assert_eq(fp.block, 3);
    cr_assert_eq(fp.block_hi, 0);
    cr_assert_eq(fp.block_coeff, -1);
    bir_module_free(fx.m);
}

Test(symbolic, two_block_loops_touch_all_blocks)
{
    static const char *const axes[] = {"{\"name\": \"i\", \"lb\": 0, \"ub\": 2}",
                                       "{\"name\": \"j\", \"lb\": 0, \"ub\": 3}"};
    fixture fx = make("float32", "[6, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                      "\"terms\": [[\"i\", 24576], [\"j\", 8192]]}", axes, 2);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_ALL);
    cr_assert_eq(fp.block, 0);
    cr_assert_eq(fp.block_hi, 5);
    bir_module_free(fx.m);
}

Test(symbolic, a_block_pair_and_a_term_touch_all_blocks)
{
    fixture fx = make("float32", "[8, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [8192, 2], [1, 64]], "
                      "\"terms\": [[\"i\", 16384]]}", I4, 1);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_ALL);
    cr_assert_eq(fp.block, 0);
    cr_assert_eq(fp.block_hi, 7);
    bir_module_free(fx.m);
}

Test(symbolic, terms_on_one_loop_are_summed)
{
    /* +8192 i and -8192 i cancel: the block is constant however long the loop. */
    fixture fx = make("float32", "[2, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                      "\"terms\": [[\"i\", 8192], [\"i\", -8192]]}",
                      (const char *const[]){"{\"name\": \"i\", \"lb\": 0, \"ub\": 100}"}, 1);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_CONST);
    cr_assert_eq(fp.block, 0);
    bir_module_free(fx.m);
}

Test(symbolic, free_and_partition_terms)
{
    /* i moves 16 free elements and 32 partitions per iteration (two terms). */
    fixture fx = make("float32", "[128, 64]", 0, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 32], [1, 16]], "
                      "\"terms\": [[\"i\", 16], [\"i\", 2048]]}", I4, 1);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 0);
    cr_assert_eq(fp.part_hi, 128);
    cr_assert_eq(fp.byte_lo, 0);
    cr_assert_eq(fp.byte_hi, 256);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_CONST);
    cr_assert_eq(fp.base_mask, 0x1);
    cr_assert_not(fp.pins_base);
    bir_module_free(fx.m);
}

Test(symbolic, term_out_of_bound)
{
    fixture fx = make("float32", "[128, 64]", 0, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 32], [1, 64]], "
                      "\"terms\": [[\"i\", 2048]]}",
                      (const char *const[]){"{\"name\": \"i\", \"lb\": 0, \"ub\": 5}"}, 1);
    fails(fx, "Access pattern out of bound: instruction \"op\" ins[0] on tensor \"t\": partition range "
              "[0, 159] exceeds [0, 128)");
    bir_module_free(fx.m);
}

Test(symbolic, empty_loop_term_adds_nothing)
{
    /* The loop never runs: the term would be far out of bound, but only the
     * offset counts. */
    fixture fx = make("float32", "[2, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                      "\"offset\": 8192, \"terms\": [[\"i\", 1000000000]]}",
                      (const char *const[]){"{\"name\": \"i\", \"lb\": 7, \"ub\": 7}"}, 1);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_CONST);
    cr_assert_eq(fp.block, 1);
    bir_module_free(fx.m);
}

Test(symbolic, single_iteration_term_is_a_constant)
{
    fixture fx = make("float32", "[4, 128, 64]", 1, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                      "\"terms\": [[\"i\", 8192]]}",
                      (const char *const[]){"{\"name\": \"i\", \"lb\": 3, \"ub\": 4}"}, 1);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.blocks, BIR_BLOCKS_CONST);
    cr_assert_eq(fp.block, 3);
    bir_module_free(fx.m);
}

/* ---- start partitions --------------------------------------------------- */

Test(start_partition, mask_by_height)
{
    cr_assert_eq(bir_start_partition_mask(1), 0xF);
    cr_assert_eq(bir_start_partition_mask(32), 0xF);
    cr_assert_eq(bir_start_partition_mask(33), 0x5);
    cr_assert_eq(bir_start_partition_mask(64), 0x5);
    cr_assert_eq(bir_start_partition_mask(65), 0x1);
    cr_assert_eq(bir_start_partition_mask(128), 0x1);
    cr_assert_eq(bir_start_partition_mask(0), 0);
    cr_assert_eq(bir_start_partition_mask(129), 0);
}

Test(start_partition, half_tensor_upper_quadrant_keeps_both_bases)
{
    /* 64 partitions at base 0 or 64; the upper 32 start at 32 or 96. */
    fixture fx = make("float32", "[64, 16]", 0, "SB",
                      "{\"memsetref\": \"t\", \"ap\": [[16, 32], [1, 16]], \"offset\": 512}", NULL, 0);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 32);
    cr_assert_eq(fp.base_mask, 0x5);
    cr_assert_not(fp.pins_base);
    bir_module_free(fx.m);
}

Test(start_partition, quarter_tensor_keeps_all_bases)
{
    fixture fx = make("float32", "[20, 16]", 0, "PSUM", "{\"memsetref\": \"t\", \"ap\": [[16, 20], [1, 16]]}",
                      NULL, 0);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.base_mask, 0xF);
    cr_assert_not(fp.pins_base);
    bir_module_free(fx.m);
}

Test(start_partition, unaligned_start_has_no_base)
{
    fixture fx = make("float32", "[128, 64]", 0, "SB",
                      "{\"memsetref\": \"t\", \"ap\": [[64, 16], [1, 64]], \"offset\": 1024}", NULL, 0);
    fails(fx, "no base partition satisfies the start-partition rule: instruction \"op\" ins[0] on tensor "
              "\"t\": an access of 16 partitions starting at partition 16 of a 128-partition tensor (a "
              "tile of 16 partitions may start only at 0, 32, 64 or 96)");
    bir_module_free(fx.m);
}

Test(start_partition, tall_access_at_a_quarter_has_no_base)
{
    /* 48 partitions may start at 0 or 64 only; the loop also starts one at 32. */
    fixture fx = make("float32", "[128, 64]", 0, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 48], [1, 64]], "
                      "\"terms\": [[\"i\", 2048]]}",
                      (const char *const[]){"{\"name\": \"i\", \"lb\": 0, \"ub\": 2}"}, 1);
    fails(fx, "no base partition satisfies the start-partition rule: instruction \"op\" ins[0] on tensor "
              "\"t\": an access of 48 partitions starting at partition 32 of a 128-partition tensor (a "
              "tile of 48 partitions may start only at 0 or 64)");
    bir_module_free(fx.m);
}

Test(start_partition, loop_over_quadrants_is_allowed)
{
    static const char *const axes[] = {"{\"name\": \"i\", \"lb\": 0, \"ub\": 2}",
                                       "{\"name\": \"j\", \"lb\": 0, \"ub\": 2}"};
    /* Starts 0, 32, 64, 96 from two loops of 32 and 64 partitions. */
    fixture fx = make("float32", "[128, 64]", 0, "SB",
                      "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 32], [1, 64]], "
                      "\"terms\": [[\"i\", 2048], [\"j\", 4096]]}", axes, 2);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 0);
    cr_assert_eq(fp.part_hi, 128);
    cr_assert_eq(fp.base_mask, 0x1);
    bir_module_free(fx.m);
    /* The same loops stepping 16 and 64 partitions reach start 16. */
    fixture fx2 = make("float32", "[128, 64]", 0, "SB",
                       "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", \"ap\": [[64, 32], [1, 64]], "
                       "\"terms\": [[\"i\", 1024], [\"j\", 4096]]}", axes, 2);
    fails(fx2, "no base partition satisfies the start-partition rule: instruction \"op\" ins[0] on tensor "
               "\"t\": an access of 32 partitions starting at partition 16 of a 128-partition tensor (a "
               "tile of 32 partitions may start only at 0, 32, 64 or 96)");
    bir_module_free(fx2.m);
}

Test(start_partition, dram_has_no_start_rule)
{
    fixture fx = make("float32", "[1000, 64]", 0, "DRAM",
                      "{\"memsetref\": \"t\", \"ap\": [[64, 16], [1, 64]], \"offset\": 1088}", NULL, 0);
    bir_footprint fp = ok(fx);
    cr_assert_eq(fp.part_lo, 17);
    cr_assert_eq(fp.part_hi, 33);
    cr_assert_not(fp.pins_base);
    bir_module_free(fx.m);
}

Test(start_partition, quadrant_rule_never_narrows_a_valid_tensor)
{
    /* For every height P and every access [s, s+h) inside it that the rule
     * allows, every base the tensor itself may take stays allowed: with
     * 32-aligned starts the rule either accepts the access at all of them or
     * at none. So pins_base stays false for single-start accesses. */
    for (int p = 1; p <= 128; p++)
        for (int s = 0; s < p; s += 8)
            for (int h = 1; s + h <= p; h += 7) {
                char shape[32], opnd[160];
                snprintf(shape, sizeof shape, "[%d, 4]", p);
                snprintf(opnd, sizeof opnd, "{\"memsetref\": \"t\", \"ap\": [[4, %d], [1, 4]], \"offset\": %d}",
                         h, 4 * s);
                fixture fx = make("int8", shape, 0, "SB", opnd, NULL, 0);
                bir_footprint fp;
                sba_error err;
                sba_status st = bir_operand_footprint(fx.in, fx.op, &fp, &err);
                bool allowed = s % 32 == 0 && (bir_start_partition_mask(h) >> (s / 32) & 1u);
                cr_assert_eq(st == SBA_OK, allowed, "P %d start %d height %d: %s", p, s, h, err.message);
                if (st == SBA_OK) {
                    cr_assert_eq(fp.base_mask, bir_start_partition_mask(p), "P %d start %d height %d", p, s, h);
                    cr_assert_not(fp.pins_base);
                }
                bir_module_free(fx.m);
            }
}

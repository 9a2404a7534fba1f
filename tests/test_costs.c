/* find_costs and getLatency: golden spill costs. A node's cost is a store
 * after each def (none for a plain load, which reloads from its source) and a
 * reload before each use, each weighted by its loop nest's trip counts and
 * priced by sb_latency over the accessed bytes (partitions × bytes per
 * partition). Precoloured, output and unspillable nodes cost infinity. */
#include <math.h>

#include "sbuf_fixture.h"

/* The front half and find_costs on `text`. */
static void costs(fx *f, const char *text)
{
    front(f, text, SB_TO_BUILD);
    cr_assert_eq(sb_find_costs(&f->c), SBA_OK);
}

/* The [128, 16] float32 tensor moves 128 × 64 = 8,192 bytes. */
#define MOVE_DRAM (2000.0 + 8192.0 / 16.0)

Test(costs, latency_table)
{
    cr_assert_float_eq(sb_latency(BIR_MEM_DRAM, BIR_MEM_SB, 1600), 2100.0, 1e-9);
    cr_assert_float_eq(sb_latency(BIR_MEM_SB, BIR_MEM_DRAM, 1600), 2100.0, 1e-9);
    cr_assert_float_eq(sb_latency(BIR_MEM_SB, BIR_MEM_SB, 640), 74.0, 1e-9);
    cr_assert_float_eq(sb_latency(BIR_MEM_SB, BIR_MEM_PSUM, 640), 74.0, 1e-9);
    cr_assert_float_eq(sb_latency(BIR_MEM_DRAM, BIR_MEM_DRAM, 0), 2000.0, 1e-9);
    /* only DRAM, SB and PSUM move data */
    cr_assert(isinf(sb_latency(BIR_MEM_REG, BIR_MEM_SB, 64)));
    cr_assert(isinf(sb_latency(BIR_MEM_SB, BIR_MEM_UNALLOCATED, 64)));
}

Test(costs, plain_load_pays_only_its_reloads)
{
    fx f;
    costs(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LD("ld", "x", "a") ", " ST("st1", "a", "y") ", " ST("st2", "a", "y")));
    cr_assert_not_null(node(&f, "a")->load_src);
    cr_assert_float_eq(node(&f, "a")->cost, 2 * MOVE_DRAM, 1e-6);
    fx_free(&f);
}

Test(costs, computed_value_pays_a_store_and_each_reload)
{
    fx f;
    costs(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b"),
                  LD("ld", "x", "a") ", " CP("cp", "a", "b") ", " ST("st", "b", "y") ", " ST("st2", "a", "y")));
    cr_assert_null(node(&f, "b")->load_src);
    cr_assert_float_eq(node(&f, "b")->cost, 2 * MOVE_DRAM, 1e-6); /* store after cp, reload before st */
    fx_free(&f);
}

Test(costs, accesses_in_loops_weigh_by_trip_counts)
{
    fx f;
    costs(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LD("ld", "x", "a") ", " LOOP("L", "i", 4, LOOP("M", "j", 3, ST("st", "a", "y")))));
    cr_assert_float_eq(node(&f, "a")->cost, 12 * MOVE_DRAM, 1e-6);
    fx_free(&f);
}

Test(costs, fixed_and_output_nodes_cost_infinity)
{
    fx f;
    costs(&f, MOD(DIN("x", 128, 16) ", " FIXED("o", "ExternalOutput", 128, 16, 0, 0) ", "
                  FIXED("p", "Internal", 128, 16, 64, 0) ", " T("a"),
                  LD("ld", "x", "p") ", " CP("cp", "p", "a") ", " CP("out", "a", "o")));
    cr_assert(isinf(node(&f, "o")->cost));
    cr_assert(isinf(node(&f, "p")->cost));
    cr_assert(isfinite(node(&f, "a")->cost));
    fx_free(&f);
}

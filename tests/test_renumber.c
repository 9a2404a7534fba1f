/* renumber_locations against seed 000: dense node ids, the driver's order,
 * and the precoloured (pre-placed and output) nodes it stamps. */
#include "sbuf_fixture.h"

/* ====================================================================== */
/* renumber_locations and the driver's order                               */
/* ====================================================================== */

/* Nodes: SB placements with an access; DRAM and PSUM are not nodes; ids are
 * dense in set order and stamped into the location. */
Test(renumber, dense_ids_for_sb_placements)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("unused") ", " T("b") ", "
                  SET("ps", "Internal", "PSUM", 128, 16),
                  LD("la", "x", "a") ", " LD("lb", "x", "b") ", " ADD("s", "a", "b", "ps") ", " ST("st", "ps", "y")),
          SB_TO_PARTNERS);
    cr_assert_eq(f.c.n, 2);
    cr_assert_eq(f.rep.nodes, 2);
    cr_assert_eq(sb_node_of(&f.c, find_loc(&f, "a")), 0);
    cr_assert_eq(sb_node_of(&f.c, find_loc(&f, "b")), 1);
    cr_assert_eq(sb_node_of(&f.c, find_loc(&f, "unused")), SB_NO_NODE);
    cr_assert_eq(sb_node_of(&f.c, find_loc(&f, "x")), SB_NO_NODE);
    cr_assert_eq(sb_node_of(&f.c, find_loc(&f, "ps")), SB_NO_NODE);
    assert_log_has(&f, "renumber locations: 2 nodes (SbRenumberLocationsCount)\n");
    fx_free(&f);
}

/* The log of one analysis follows the seed's driver order. */
Test(renumber, driver_order_in_the_log)
{
    fx f;
    cr_assert_eq(analyze_log(&f, TWO_SEGMENTS, false), SBA_OK, "%s", f.err.message);
    const char *order[] = {"Allocating function f",
                           "renumber locations: 1 nodes",
                           "memloc split: a -> 2 segments",
                           "memloc split: 1 clones (TotalSplitSbNodesCount)",
                           " best-of-n loop, heuristic = 0",
                           "renumber locations: 2 nodes",
                           "find partners",
                           "find loads",
                           "build interference graph",
                           "SB pressure"};
    const char *at = f.log;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        const char *next = strstr(at, order[k]);
        cr_assert_not_null(next, "\"%s\" missing or out of order in\n%s", order[k], f.log);
        at = next + strlen(order[k]);
    }
    cr_assert_eq(f.rep.split_clones, 1);
    cr_assert_eq(f.rep.nodes, 2);
    bir_module_free(f.m);
}

/* ====================================================================== */
/* precoloured nodes                                                        */
/* ====================================================================== */

#define PREPLACED                                                                                      \
    MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " FIXED("p", "Internal", 128, 16, 256, 0) ", "    \
        T("a") ", " T("b"),                                                                            \
        LD("lp", "x", "p") ", " LD("la", "x", "a") ", " LD("lb", "x", "b") ", " ADD("s", "a", "b", "a")  \
        ", " ST("st", "a", "y") ", " ST("sp", "p", "y") ", " ST("sb", "b", "y"))

Test(precoloured, preplaced_node_is_a_fixed_rectangle)
{
    fx f;
    front(&f, PREPLACED, SB_TO_BUILD);
    const sb_node *p = node(&f, "p");
    cr_assert(p->precoloured);
    cr_assert(p->placed);
    cr_assert_eq(p->addr, 256);
    cr_assert_eq(p->base, 0);
    cr_assert_eq(p->height, 8);
    fx_free(&f);
}

Test(precoloured, preplaced_never_moves_and_others_avoid_it)
{
    fx f;
    cr_assert_eq(analyze_log(&f, PREPLACED, true), SBA_OK, "%s", f.err.message);
    const bir_location *p = find_loc(&f, "p"), *a = find_loc(&f, "a"), *b = find_loc(&f, "b");
    cr_assert_eq(p->addr, 256);
    cr_assert_eq(p->base, 0);
    for (int k = 0; k < 2; k++) {
        const bir_location *o = k ? b : a;
        cr_assert(o->addr + 64 <= 256 || o->addr >= 320, "%s at %lld overlaps the fixed p", o->name,
                  (long long)o->addr);
    }
    cr_assert(a->addr + 64 <= b->addr || b->addr + 64 <= a->addr);
    assert_verified(&f);
    bir_module_free(f.m);
}

Test(precoloured, sb_output_without_placement_is_an_error)
{
    fx f;
    cr_assert_eq(analyze_log(&f, MOD(DIN("x", 128, 16) ", " SET("o", "ExternalOutput", "SB", 128, 16),
                                     LD("ld", "x", "o")),
                             false),
                 SBA_ERR_MODEL);
    cr_assert_str_eq(f.err.message, "SB output \"o\" of set \"o\" must be pre-placed (addr and base): function "
                                    "outputs are not allocated");
    bir_module_free(f.m);
}

/* A pre-placed SB output is a fixed rectangle live to the end. */
Test(precoloured, preplaced_output_lives_to_the_end)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " FIXED("o", "ExternalOutput", 128, 16, 0, 0) ", " T("a"),
                  LD("ld", "x", "o") ", " LD("la", "x", "a") ", " INS("use", "TensorCopy", A("a"), A("a"))),
          SB_TO_BUILD);
    const sb_node *o = node(&f, "o");
    cr_assert(o->precoloured);
    cr_assert(o->output);
    assert_interval(&f, "o", pt(&f, "ld"), f.c.lin.npoints - 1);
    cr_assert(sb_interferes(&f.c, id(&f, "o"), id(&f, "a")));
    fx_free(&f);
}

Test(precoloured, addr_without_base_is_an_error)
{
    fx f;
    fx_init(&f, MOD(DIN("x", 128, 16) ", "
                    "{\"name\": \"p\", \"dtype\": \"float32\", \"tensor_shape\": [128, 16], \"memorylocations\": "
                    "[{\"name\": \"p\", \"type\": \"SB\", \"addr\": 64}]}",
                    LD("ld", "x", "p")));
    cr_assert_eq(run_passes(&f, SB_TO_PARTNERS), SBA_ERR_MODEL);
    cr_assert_str_eq(f.err.message, "SB location \"p\" of set \"p\" gives addr but not base: a pre-placed "
                                    "location needs both addr and base");
    fx_free(&f);
}

Test(precoloured, tall_tensor_not_at_partition_0_is_an_error)
{
    fx f;
    fx_init(&f, MOD(DIN("x", 96, 16) ", " FIXED("p", "Internal", 96, 16, 0, 32),
                    INS("ld", "DMALoad", AP("x", 96, 16), AP("p", 96, 16))));
    cr_assert_eq(run_passes(&f, SB_TO_PARTNERS), SBA_ERR_MODEL);
    cr_assert_str_eq(f.err.message, "p: tall tensors must be accessed starting at partition 0 (96 partitions "
                                    "at base 32)");
    fx_free(&f);
}

/* simplify against seed 000's Chaitin-Briggs rule with the 2-D significant
 * degree: a node is trivially colourable when Σ impact over its neighbours
 * still in the graph is below k = possible_placements; when none is, the node
 * of least cost/degree² leaves optimistically, so it is coloured last. */
#include "sbuf_fixture.h"

/* Five full-height 64-byte tensors live at once on a 256-byte SBUF: k = 7
 * offsets, each neighbour's impact 1 × (2 + 2 − 1) = 3, Σ = 12 ≥ 7, so no
 * node is trivially colourable. b–e are read 8 times in a loop, a once (the
 * cheap one has the lowest id, so neither id order finds it by chance). */
#define FIVE_LIVE                                                                                      \
    MOD256(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b") ", " T("c") ", " T("d") \
           ", " T("e"),                                                                                \
           LD("la", "x", "a") ", " LD("lb", "x", "b") ", " LD("lc", "x", "c") ", " LD("ld", "x", "d")  \
           ", " LD("le", "x", "e") ", "                                                                \
           LOOP("L", "i", 8, ST("se", "e", "y") ", " ST("sb", "b", "y") ", " ST("sc", "c", "y") ", "   \
                ST("sd", "d", "y")) ", " ST("sa", "a", "y"))

/* Two tensors that never meet: each trivially colourable. */
#define TWO_APART                                                                                      \
    MOD256(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b"),                          \
           LD("la", "x", "a") ", " ST("sa", "a", "y") ", " LD("lb", "x", "b") ", " ST("sb", "b", "y"))

static uint32_t order_of(fx *f, const char *text, uint32_t *order)
{
    front(f, text, SB_TO_BUILD);
    cr_assert_eq(sb_find_costs(&f->c), SBA_OK);
    uint32_t n = 0;
    cr_assert_eq(sb_simplify(&f->c, order, &n), SBA_OK);
    return n;
}

Test(simplify, every_colourable_node_once)
{
    fx f;
    uint32_t order[16], n = order_of(&f, FIVE_LIVE, order);
    cr_assert_eq(n, 5);
    bool seen[16] = {false};
    for (uint32_t k = 0; k < n; k++) {
        cr_assert_lt(order[k], f.c.n);
        cr_assert_not(seen[order[k]], "node %u twice", order[k]);
        cr_assert_not(f.c.info[order[k]].precoloured);
        seen[order[k]] = true;
    }
    fx_free(&f);
}

Test(simplify, trivially_colourable_test_is_the_impact_sum)
{
    fx f;
    front(&f, FIVE_LIVE, SB_TO_BUILD);
    uint32_t a = id(&f, "a");
    int64_t sum = 0;
    for (uint32_t k = 0; k < f.c.info[a].degree; k++) sum += sb_impact(&f.c, a, f.c.info[a].adj[k]);
    cr_assert_eq(sum, 12);
    cr_assert_eq(sb_possible_placements(&f.c, a), 7);
    fx_free(&f);
    front(&f, TWO_APART, SB_TO_BUILD);
    cr_assert_eq(node(&f, "a")->degree, 0);
    cr_assert_eq(node(&f, "b")->degree, 0);
    fx_free(&f);
}

Test(simplify, least_cost_per_degree_squared_is_coloured_last)
{
    fx f;
    uint32_t order[16], n = order_of(&f, FIVE_LIVE, order);
    cr_assert_eq(order[n - 1], id(&f, "a"), "the cheap node a leaves first, so it is coloured last");
    /* and select, placing in that order, spills it: four fill the 256 bytes */
    cr_assert_eq(sb_select_nodes(&f.c, order, n), 1);
    cr_assert(node(&f, "a")->spill);
    fx_free(&f);
}

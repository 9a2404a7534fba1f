/* select: the geometric placement of one node at a real (base, address),
 * clear of its placed neighbours, by the rule of its strategy (lowest:
 * lowest address, then lowest base; best-fit: the smallest gap that holds
 * it), and the spill mark when no spot is free. */
#include "sbuf_fixture.h"

/* Fixed f1 at [96, 160) and f2 at [224, 288), full height, live with a:
 * free gaps [0, 96) (96 bytes) and [160, 224) (64 bytes) below the rest. */
#define GAPS                                                                                           \
    MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " FIXED("f1", "Internal", 128, 16, 96, 0) ", "   \
        FIXED("f2", "Internal", 128, 16, 224, 0) ", " T("a"),                                          \
        LD("l1", "x", "f1") ", " LD("l2", "x", "f2") ", " LD("la", "x", "a") ", " ADD("s", "f1", "f2", "a") \
        ", " ST("st", "a", "y"))

/* A fixed quarter at base 0, bytes [0, 64), live with the quarter q. */
#define QUARTER                                                                                        \
    MOD(DIN("x", 32, 16) ", " DOUT("y", 32, 16) ", " FIXED("f", "Internal", 32, 16, 0, 0) ", "        \
        SB("q", 32, 16),                                                                               \
        INS("lf", "DMALoad", AP("x", 32, 16), AP("f", 32, 16)) ", "                                    \
        INS("lq", "DMALoad", AP("x", 32, 16), AP("q", 32, 16)) ", "                                    \
        INS("s", "TensorTensor", AP("f", 32, 16) ", " AP("q", 32, 16), AP("q", 32, 16)) ", "           \
        INS("st", "DMAStore", AP("q", 32, 16), AP("y", 32, 16)))

static sb_node *select_one(fx *f, const char *text, uint32_t rule, const char *loc)
{
    front(f, text, SB_TO_BUILD);
    f->c.rule = rule;
    cr_assert_not_null(f->c.info); /* fixed nodes are placed by build's setup */
    uint32_t i = id(f, loc);
    f->c.info[i].spill = !sb_select_node(&f->c, i);
    return &f->c.info[i];
}

Test(select, lowest_rule_takes_the_lowest_free_address)
{
    fx f;
    const sb_node *a = select_one(&f, GAPS, SB_RULE_LOWEST, "a");
    cr_assert(a->placed);
    cr_assert_eq(a->addr, 0);
    cr_assert_eq(a->base, 0);
    fx_free(&f);
}

Test(select, best_fit_takes_the_smallest_gap_that_holds_it)
{
    fx f;
    const sb_node *a = select_one(&f, GAPS, SB_RULE_BEST_FIT, "a");
    cr_assert(a->placed);
    cr_assert_eq(a->addr, 160);
    fx_free(&f);
}

Test(select, a_quarter_goes_to_the_lowest_free_band)
{
    fx f;
    const sb_node *q = select_one(&f, QUARTER, SB_RULE_LOWEST, "q");
    cr_assert(q->placed);
    cr_assert_eq(q->addr, 0, "address 0 is free in the next quarter");
    cr_assert_eq(q->base, 32);
    fx_free(&f);
}

Test(select, no_free_spot_marks_a_spill)
{
    /* On a 256-byte SBUF, fixed tensors at [0, 64) and [128, 192) leave gaps
     * of 64 bytes; a 128-byte tensor fits in neither. */
    fx f;
    const sb_node *b = select_one(
        &f,
        MOD256(DIN("x", 128, 16) ", " DOUT("y", 128, 32) ", " FIXED("f1", "Internal", 128, 16, 0, 0) ", "
               FIXED("f2", "Internal", 128, 16, 128, 0) ", " SB("b", 128, 32),
               LD("l1", "x", "f1") ", " LD("l2", "x", "f2") ", "
               INS("lb", "DMALoad", AP("y", 128, 32), AP("b", 128, 32)) ", " ADD("s", "f1", "f2", "f1") ", "
               INS("st", "DMAStore", AP("b", 128, 32), AP("y", 128, 32))),
        SB_RULE_LOWEST, "b");
    cr_assert_not(b->placed);
    cr_assert(b->spill);
    fx_free(&f);
}

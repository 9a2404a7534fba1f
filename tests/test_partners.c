/* find_partners against seed 000: which pairs coalesce, the partition-offset
 * comparison and the Briggs conservative gate. */
#include "sbuf_fixture.h"

/* ====================================================================== */
/* find_partners                                                            */
/* ====================================================================== */


Test(find_partners, copy_whose_source_dies_is_coalesced)
{
    fx f;
    front(&f, COPY_DIES, SB_TO_BUILD);
    const sb_node *a = node(&f, "a"), *b = node(&f, "b");
    cr_assert_eq(a->rep, id(&f, "a"));
    cr_assert_eq(b->rep, id(&f, "a"));
    cr_assert_eq(a->next_member, id(&f, "b"));
    cr_assert_eq(b->next_member, SB_NO_NODE);
    cr_assert_eq(f.rep.partner_groups, 1);
    cr_assert_eq(f.rep.partner_members, 2);
    /* the group is one node: its interval spans both members */
    assert_interval(&f, "a", pt(&f, "ld"), pt(&f, "st"));
    cr_assert_eq(f.c.edges, 0);
    fx_free(&f);
}

/* The allocation gives both members the same region. */
Test(find_partners, partners_share_one_region)
{
    fx f;
    cr_assert_eq(analyze_log(&f, COPY_DIES, true), SBA_OK, "%s", f.err.message);
    const bir_location *a = find_loc(&f, "a"), *b = find_loc(&f, "b");
    cr_assert_eq(a->addr, b->addr);
    cr_assert_eq(a->base, b->base);
    assert_verified(&f);
    bir_module_free(f.m);
}

/* The source is read again after the copy: both values are live together. */
Test(find_partners, copy_whose_source_lives_on_is_not_coalesced)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b"),
                  LD("ld", "x", "a") ", " CP("cp", "a", "b") ", " ST("st", "b", "y") ", " ST("st2", "a", "y")),
          SB_TO_BUILD);
    cr_assert_eq(node(&f, "a")->rep, id(&f, "a"));
    cr_assert_eq(node(&f, "b")->rep, id(&f, "b"));
    cr_assert_eq(f.rep.partner_groups, 0);
    cr_assert(sb_interferes(&f.c, id(&f, "a"), id(&f, "b")));
    fx_free(&f);
}

/* acc1 = acc0 + x, acc2 = acc1 + x: an accumulation chain, one group of three
 * (the transitive expansion); x, read with it, stays apart. */
Test(find_partners, accumulation_chain_is_coalesced)
{
    fx f;
    front(&f, MOD(DIN("d", 128, 16) ", " DOUT("y", 128, 16) ", " T("acc0") ", " T("acc1") ", " T("acc2") ", "
                  T("x"),
                  LD("lx", "d", "x") ", " LD("l0", "d", "acc0") ", " ADD("a1", "acc0", "x", "acc1") ", "
                  ADD("a2", "acc1", "x", "acc2") ", " ST("st", "acc2", "y")),
          SB_TO_BUILD);
    uint32_t r = id(&f, "acc0");
    cr_assert_eq(node(&f, "acc0")->rep, r);
    cr_assert_eq(node(&f, "acc1")->rep, r);
    cr_assert_eq(node(&f, "acc2")->rep, r);
    cr_assert_eq(node(&f, "x")->rep, id(&f, "x"));
    cr_assert_eq(f.rep.partner_groups, 1);
    cr_assert_eq(f.rep.partner_members, 3);
    assert_log_has(&f, "tensors = 3\n");
    assert_interval(&f, "acc0", pt(&f, "l0"), pt(&f, "st"));
    cr_assert(sb_interferes(&f.c, r, id(&f, "x")));
    fx_free(&f);
}

/* c = a + b with both a and b dying there: a pairs with c, b never joins
 * them (two operands read together hold two values at once). */
Test(find_partners, operands_read_together_are_never_partners)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b") ", " T("c"),
                  LD("la", "x", "a") ", " LD("lb", "x", "b") ", " ADD("add", "a", "b", "c") ", " ST("st", "c", "y")),
          SB_TO_BUILD);
    cr_assert_neq(node(&f, "a")->rep, node(&f, "b")->rep);
    cr_assert_eq(node(&f, "c")->rep, node(&f, "a")->rep);
    cr_assert_eq(node(&f, "b")->rep, id(&f, "b"));
    cr_assert(sb_interferes(&f.c, node(&f, "a")->rep, id(&f, "b")));
    fx_free(&f);
}

/* An instruction reading the same tensor twice (x + x into c) pairs at most
 * once, and an in-place update (a = a + x) makes no pair at all. */
Test(find_partners, in_place_update_makes_no_pair)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("v"),
                  LD("la", "x", "a") ", " LD("lv", "x", "v") ", " ADD("upd", "a", "v", "a") ", " ST("st", "a", "y")),
          SB_TO_BUILD);
    cr_assert_eq(f.rep.partner_groups, 0);
    fx_free(&f);
}

/* Members must have the same geometry: block 0 of a 2-block tensor copied,
 * through the same access pattern, into a 1-block tensor is not coalesced. */
Test(find_partners, different_geometry_is_not_coalesced)
{
    fx f;
    front(&f, MOD(BLK("x", "ExternalInput", "DRAM", 2, 128, 16) ", " DOUT("y", 128, 16) ", "
                  BLK("a", "Internal", "SB", 2, 128, 16) ", " T("b"),
                  INS("ld", "DMALoad", APALL("x", 2, 128, 16, 2048), APALL("a", 2, 128, 16, 2048)) ", "
                  CP("cp", "a", "b") ", " ST("st", "b", "y")),
          SB_TO_BUILD);
    cr_assert_eq(f.rep.partner_groups, 0);
    fx_free(&f);
}

/* The log of a passing gate, line by line, in the seed's order. */
Test(find_partners, gate_pass_log)
{
    fx f;
    cr_assert_eq(analyze_log(&f, COPY_DIES, false), SBA_OK, "%s", f.err.message);
    assert_log_has(&f, "find partners\n"
                       "found 1 accumulation groups\n"
                       "largest = a\n"
                       "tensors = 2\n"
                       "requires 64 bytes/partition\n"
                       "expanding partners\n");
    assert_log_lacks(&f, "too large");
    cr_assert_not(f.rep.partners_disabled);
    cr_assert_eq(f.rep.partner_groups, 1);
    bir_module_free(f.m);
}

/* The largest member names the group. */
Test(find_partners, largest_member_names_the_group)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b") ", " T("c"),
                  LD("ld", "x", "a") ", " CP("c1", "a", "b") ", " CP("c2", "b", "c") ", " ST("st", "c", "y")),
          SB_TO_PARTNERS);
    assert_log_has(&f, "find partners\nfound 1 accumulation groups\nlargest = a\ntensors = 3\n"
                       "requires 64 bytes/partition\nexpanding partners\n");
    fx_free(&f);
}

/* The gate counts live blocks: a group of 4-block tensors (2,048 bytes
 * unshrunk) of which loop L keeps one block live at a time needs 512 bytes,
 * within the 1,024-byte SB, so partners stay on. Counting all four blocks
 * switched coalescing off for the whole function. */
#define BIG_GROUP                                                                                      \
    MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 128) ", " BLK("y", "ExternalOutput", "DRAM", 4, 128, 128) \
        ", " BLK("a", "Internal", "SB", 4, 128, 128) ", " BLK("b", "Internal", "SB", 4, 128, 128),     \
        LOOP("L", "i", 4, INS("ld", "DMALoad", APX("x", 128, 128, "i", 16384), APX("a", 128, 128, "i", 16384)) \
                          ", " INS("cp", "TensorCopy", APX("a", 128, 128, "i", 16384),                \
                                   APX("b", 128, 128, "i", 16384)) ", "                               \
                          INS("st", "DMAStore", APX("b", 128, 128, "i", 16384),                       \
                              APX("y", 128, 128, "i", 16384))))

Test(find_partners, gate_counts_live_blocks)
{
    fx f;
    cr_assert_eq(analyze_log(&f, BIG_GROUP, false), SBA_OK, "%s", f.err.message);
    assert_log_has(&f, "find partners\n"
                       "found 1 accumulation groups\n"
                       "largest = a\n"
                       "tensors = 2\n"
                       "requires 512 bytes/partition\n"
                       "expanding partners\n");
    assert_log_lacks(&f, "too large");
    cr_assert_not(f.rep.partners_disabled);
    cr_assert_eq(f.rep.partner_groups, 1);
    bir_module_free(f.m);
}

Test(find_partners, gate_on_live_blocks_coalesces)
{
    fx f;
    front(&f, BIG_GROUP, SB_TO_BUILD);
    cr_assert(f.c.partners_enabled);
    cr_assert_eq(node(&f, "b")->rep, id(&f, "a"));
    cr_assert_eq(node(&f, "a")->live_n, 1);
    fx_free(&f);
}

/* The coalesced function allocates and verifies. */
Test(find_partners, gate_on_live_blocks_allocates)
{
    fx f;
    cr_assert_eq(analyze_log(&f, BIG_GROUP, true), SBA_OK, "%s", f.err.message);
    const bir_location *a = find_loc(&f, "a"), *b = find_loc(&f, "b");
    cr_assert_eq(a->addr, b->addr, "partners share one region");
    assert_verified(&f);
    bir_module_free(f.m);
}

/* The partner retry (seed 000's selectNodeWithPartnerRetry). On a 256-byte
 * SBUF, fixed f1 holds [0, 192) while a is live and fixed f2 holds [64, 256)
 * while b is: b = copy a (a dies) coalesces them, and the group, live over
 * both, finds no free 64 bytes. Alone, a fits at 192 and b at 0. So the group
 * is split back into its members before anything is spilled. */
#define SPLIT_GROUP                                                                                    \
    MOD256(DIN("x", 128, 16) ", " DIN("x48", 128, 48) ", " DOUT("y", 128, 16) ", "                    \
           DOUT("y48", 128, 48) ", " FIXED("f1", "Internal", 128, 48, 0, 0) ", "                       \
           FIXED("f2", "Internal", 128, 48, 64, 0) ", " T("a") ", " T("b"),                            \
           INS("l1", "DMALoad", AP("x48", 128, 48), AP("f1", 128, 48)) ", " LD("la", "x", "a") ", "   \
           INS("u1", "DMAStore", AP("f1", 128, 48), AP("y48", 128, 48)) ", " CP("cp", "a", "b") ", "  \
           INS("l2", "DMALoad", AP("x48", 128, 48), AP("f2", 128, 48)) ", "                           \
           INS("u2", "DMAStore", AP("f2", 128, 48), AP("y48", 128, 48)) ", " ST("st", "b", "y"))

Test(find_partners, a_group_that_does_not_fit_is_retried_as_its_members)
{
    fx f;
    front(&f, SPLIT_GROUP, SB_TO_PARTNERS);
    cr_assert_eq(node(&f, "b")->rep, id(&f, "a"), "a and b coalesce at first");
    fx_free(&f);
    cr_assert_eq(analyze_log(&f, SPLIT_GROUP, true), SBA_OK, "%s", f.err.message);
    assert_log_has(&f, "partner retry: a's group does not fit; its members are tried alone\n");
    cr_assert_eq(f.rep.spilled, 0, "nothing is spilled");
    cr_assert_eq(find_loc(&f, "a")->addr, 192);
    cr_assert_eq(find_loc(&f, "b")->addr, 0);
    assert_verified(&f);
    bir_module_free(f.m);
}

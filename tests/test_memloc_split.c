/* memloc_split against seed 000: the candidate gate and the cut into
 * disjoint segments. */
#include "sbuf_fixture.h"

/* ====================================================================== */
/* memloc_split                                                             */
/* ====================================================================== */


Test(memloc_split, clones_each_disjoint_segment)
{
    fx f;
    front(&f, TWO_SEGMENTS, SB_TO_LIVE);
    cr_assert_eq(f.rep.split_clones, 1, "TotalSplitSbNodesCount");
    const bir_set *a = bir_function_find_set(f.m->fns[0], "a");
    cr_assert_eq(a->nlocs, 2);
    cr_assert_str_eq(a->locs[1]->name, "a.split1");
    cr_assert_eq(a->locs[1]->type, BIR_MEM_SB);
    cr_assert_eq(a->locs[1]->tensor_id, 1);
    /* operands rewired: the first segment keeps a, the second uses the clone */
    cr_assert_eq(inst(&f, "w1")->outs[0].loc, a->locs[0]);
    cr_assert_eq(inst(&f, "r1")->ins[0].loc, a->locs[0]);
    cr_assert_eq(inst(&f, "w2")->outs[0].loc, a->locs[1]);
    cr_assert_eq(inst(&f, "r2")->ins[0].loc, a->locs[1]);
    /* def-use lists rebuilt: each placement has one def and one use */
    cr_assert_eq(a->locs[0]->storage.nwriters, 1);
    cr_assert_eq(a->locs[0]->storage.nreaders, 1);
    cr_assert_eq(a->locs[1]->storage.nwriters, 1);
    cr_assert_eq(a->locs[1]->storage.nreaders, 1);
    /* two shorter, disjoint nodes, no edge between them */
    cr_assert_eq(f.c.n, 2, "SbRenumberLocationsCount");
    assert_interval(&f, "a", pt(&f, "w1"), pt(&f, "r1"));
    assert_interval(&f, "a.split1", pt(&f, "w2"), pt(&f, "r2"));
    cr_assert_not(sb_interferes(&f.c, id(&f, "a"), id(&f, "a.split1")));
    assert_log_has(&f, "memloc split: a -> 2 segments\nmemloc split: 1 clones (TotalSplitSbNodesCount)\n");
    fx_free(&f);
}

Test(memloc_split, three_segments_make_two_clones)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LD("w1", "x", "a") ", " ST("r1", "a", "y") ", " LD("w2", "x", "a") ", " ST("r2", "a", "y") ", "
                  ST("r2b", "a", "y") ", " LD("w3", "x", "a") ", " ST("r3", "a", "y")),
          SB_TO_BUILD);
    cr_assert_eq(f.rep.split_clones, 2);
    const bir_set *a = bir_function_find_set(f.m->fns[0], "a");
    cr_assert_eq(a->nlocs, 3);
    cr_assert_str_eq(a->locs[1]->name, "a.split1");
    cr_assert_str_eq(a->locs[2]->name, "a.split2");
    cr_assert_eq(inst(&f, "r2b")->ins[0].loc, a->locs[1]);
    cr_assert_eq(inst(&f, "w3")->outs[0].loc, a->locs[2]);
    cr_assert_eq(inst(&f, "r3")->ins[0].loc, a->locs[2]);
    cr_assert_eq(f.c.n, 3);
    cr_assert_eq(f.c.edges, 0);
    fx_free(&f);
}

/* The gate: at most one def, or at most one use, is never split. */
Test(memloc_split, gate_one_def_is_not_split)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LD("w1", "x", "a") ", " ST("r1", "a", "y") ", " ST("r2", "a", "y")),
          SB_TO_LIVE);
    cr_assert_eq(f.rep.split_clones, 0);
    cr_assert_eq(bir_function_find_set(f.m->fns[0], "a")->nlocs, 1);
    assert_log_has(&f, "memloc split: 0 clones (TotalSplitSbNodesCount)\n");
    fx_free(&f);
}

Test(memloc_split, gate_one_use_is_not_split)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LD("w1", "x", "a") ", " LD("w2", "x", "a") ", " ST("r1", "a", "y")),
          SB_TO_LIVE);
    cr_assert_eq(f.rep.split_clones, 0);
    cr_assert_eq(bir_function_find_set(f.m->fns[0], "a")->nlocs, 1);
    fx_free(&f);
}

/* A write that reads the tensor (a = a + x), or covers only part of it, or
 * sits in a loop, continues the segment. */
Test(memloc_split, only_whole_overwrites_outside_loops_cut)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LD("w1", "x", "a") ", " ST("r1", "a", "y") ", " ADD("w2", "a", "a", "a") ", " ST("r2", "a", "y")
                  ", " INS("w3", "DMALoad", AP("x", 64, 16), AP("a", 64, 16)) ", " ST("r3", "a", "y") ", "
                  LOOP("L", "i", 2, LD("w4", "x", "a")) ", " ST("r4", "a", "y")),
          SB_TO_LIVE);
    cr_assert_eq(f.rep.split_clones, 0);
    assert_interval(&f, "a", pt(&f, "w1"), pt(&f, "r4"));
    fx_free(&f);
}

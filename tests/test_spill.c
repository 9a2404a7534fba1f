/* insert_spill_code: the shape of the spill code the fixpoint relies on. */
#include "sbuf_fixture.h"

/* ====================================================================== */
/* insert_spill_code (the shape the fixpoint relies on)                    */
/* ====================================================================== */

/* On a 256-byte SB, b and c are pre-placed (unspillable) and leave 32 bytes free while a is
 * live, so a (a plain load) is spilled; u reads it through two identical
 * operands and gets one reload, read twice; no store (a rematerialization). */
Test(spill, one_reload_per_instruction_and_pattern)
{
    fx f;
    cr_assert_eq(analyze_log(&f, MOD256(DIN("x16", 128, 16) ", " DIN("x48", 128, 48) ", " DIN("x8", 128, 8) ", "
                                     DOUT("y48", 128, 48) ", " DOUT("y8", 128, 8) ", " SB("a", 128, 16) ", "
                                     FIXED("b", "Internal", 128, 48, 0, 0) ", " FIXED("c", "Internal", 128, 8, 192, 0)
                                     ", " SB("d", 128, 8),
                                     INS("la", "DMALoad", AP("x16", 128, 16), AP("a", 128, 16)) ", "
                                     INS("lb", "DMALoad", AP("x48", 128, 48), AP("b", 128, 48)) ", "
                                     INS("lc", "DMALoad", AP("x8", 128, 8), AP("c", 128, 8)) ", "
                                     INS("sb", "DMAStore", AP("b", 128, 48), AP("y48", 128, 48)) ", "
                                     INS("sc", "DMAStore", AP("c", 128, 8), AP("y8", 128, 8)) ", "
                                     INS("u", "TensorTensor", AP("a", 128, 16) ", " AP("a", 128, 16), AP("d", 128, 8))
                                     ", " INS("sd", "DMAStore", AP("d", 128, 8), AP("y8", 128, 8))),
                             true),
                 SBA_OK, "%s", f.err.message);
    cr_assert_eq(f.rep.spilled, 1);
    cr_assert_eq(f.rep.remats, 1);
    cr_assert_eq(f.rep.stores, 0);
    cr_assert_eq(f.rep.reloads, 1);
    const bir_inst *u = inst(&f, "u");
    cr_assert_str_eq(u->ins[0].loc->name, "a.reload");
    cr_assert_eq(u->ins[1].loc, u->ins[0].loc);
    const bir_inst *ld = inst(&f, "u.reload.a");
    cr_assert_eq(ld->opcode, BIR_OP_DMA_LOAD);
    cr_assert_str_eq(ld->ins[0].loc->name, "x16", "reloaded from its DRAM source");
    for (uint32_t k = 0; k < f.m->fns[0]->ninsts; k++)
        cr_assert_str_neq(f.m->fns[0]->insts[k]->name, "la", "the plain load is re-issued, not kept");
    assert_verified(&f);
    bir_module_free(f.m);
}

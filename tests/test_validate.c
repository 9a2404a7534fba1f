/* Program validation: each check with its exact message and JSON path, and
 * the reaching-definition rule for reads of internal tensors (before the use,
 * or anywhere in a loop that encloses it). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "sballoc/program.h"

/* ---- building modules as JSON ------------------------------------------ */

#define SET(name, kind, shape, type)                                                              \
    "{\"name\": \"" name "\", \"kind\": \"" kind "\", \"dtype\": \"float32\", \"tensor_shape\": " \
    shape ", \"memorylocations\": [{\"name\": \"" name "0\", \"type\": \"" type "\"}]}"
/* A [128, 64] float32 tensor, whole. */
#define AP(set) "{\"memsetref\": \"" set "\", \"ap\": [[64, 128], [1, 64]]}"
#define OP(name, opcode, ins, outs)                                                                \
    "{\"name\": \"" name "\", \"opcode\": \"" opcode "\", \"ins\": [" ins "], \"outs\": [" outs "]}"
#define LOOP(name, axis, body)                                                                     \
    "{\"name\": \"" name "\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"" axis "\", \"lb\": 0, " \
    "\"ub\": 4}, \"blocks\": [{\"name\": \"" name "_body\", \"instructions\": [" body "]}]}"
#define FN(name, sets, insts)                                                                      \
    "{\"name\": \"" name "\", \"allocations\": [" sets "], \"blocks\": [{\"name\": \"entry\", "    \
    "\"instructions\": [" insts "]}]}"
#define MODULE(fns) "{\"functions\": [" fns "]}"

/* The usual cast: an input x and output y in DRAM, internal t and u in SB. */
#define SETS                                                                                      \
    SET("x", "ExternalInput", "[128, 64]", "DRAM") ", " SET("y", "ExternalOutput", "[128, 64]", "DRAM") \
    ", " SET("t", "Internal", "[128, 64]", "SB") ", " SET("u", "Internal", "[128, 64]", "SB")
#define LOAD(name, dst) OP(name, "DMALoad", AP("x"), AP(dst))
#define USE(name, src) OP(name, "TensorCopy", AP(src), AP("u"))
#define STORE(name, src) OP(name, "DMAStore", AP(src), AP("y"))

static bir_module *load_text(const char *text)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "test.json", NULL, &err);
    cr_assert_not_null(m, "load failed: %s: %s", err.path, err.message);
    return m;
}

static void valid(const char *text)
{
    bir_module *m = load_text(text);
    sba_error err;
    cr_assert_eq(bir_validate_module(m, &err), SBA_OK, "unexpected: %s: %s", err.path, err.message);
    bir_module_free(m);
}

static void invalid(const char *text, const char *path, const char *message)
{
    bir_module *m = load_text(text);
    sba_error err;
    cr_assert_eq(bir_validate_module(m, &err), SBA_ERR_PROGRAM, "expected: %s", message);
    cr_assert_str_eq(err.message, message);
    cr_assert_str_eq(err.path, path);
    bir_module_free(m);
}

/* ---- a valid program ---------------------------------------------------- */

Test(validate, straight_line_program_is_valid)
{
    valid(MODULE(FN("f", SETS, LOAD("load", "t") ", " OP("scale", "TensorScalar", AP("t"), AP("t")) ", "
                                   STORE("store", "t"))));
}

Test(validate, empty_module_and_function_are_valid)
{
    valid("{\"functions\": []}");
    valid("{\"functions\": [{\"name\": \"f\"}]}");
}

/* ---- partitions --------------------------------------------------------- */

#define SETP(name, shape, pd, type)                                                               \
    "{\"name\": \"" name "\", \"dtype\": \"int8\", \"tensor_shape\": " shape ", \"partition_dim\": " \
    #pd ", \"memorylocations\": [{\"name\": \"" name "0\", \"type\": \"" type "\"}]}"

Test(validate, sb_tensor_taller_than_the_target)
{
    invalid(MODULE(FN("f", SETS ", " SETP("big", "[2, 129, 4]", 1, "SB"), "")),
            "functions[0].allocations[4].tensor_shape[1]",
            "tensor \"big\" has 129 partitions; the target has 128");
}

Test(validate, psum_tensor_taller_than_the_target)
{
    invalid(MODULE(FN("f", SETP("acc", "[200, 4]", 0, "PSUM"), "")),
            "functions[0].allocations[0].tensor_shape[0]",
            "tensor \"acc\" has 200 partitions; the target has 128");
}

Test(validate, partitions_against_a_custom_target)
{
    invalid("{\"target\": {\"partitions\": 64}, \"functions\": [" FN("f", SETP("t", "[128, 4]", 0, "SB"), "")
            "]}",
            "functions[0].allocations[0].tensor_shape[0]", "tensor \"t\" has 128 partitions; the target has 64");
    valid("{\"target\": {\"partitions\": 64}, \"functions\": [" FN("f", SETP("t", "[64, 4]", 0, "SB"), "") "]}");
}

Test(validate, dram_tensor_may_have_any_partition_count)
{
    valid(MODULE(FN("f", SETP("d", "[100000, 4]", 0, "DRAM"), "")));
}

Test(validate, a_set_with_any_on_chip_location_is_checked)
{
    /* DRAM first, SB second: still a tensor that must fit the partitions. */
    invalid(MODULE(FN("f", "{\"name\": \"two\", \"dtype\": \"int8\", \"tensor_shape\": [256, 4], "
                           "\"memorylocations\": [{\"name\": \"d\", \"type\": \"DRAM\"}, "
                           "{\"name\": \"s\", \"type\": \"SB\"}]}", "")),
            "functions[0].allocations[0].tensor_shape[0]", "tensor \"two\" has 256 partitions; the target has 128");
}

/* ---- operands ----------------------------------------------------------- */

Test(validate, operand_out_of_bound)
{
    invalid(MODULE(FN("f", SETS, LOAD("load", "t") ", "
                                 OP("bad", "TensorCopy", "{\"memsetref\": \"t\", \"ap\": [[64, 128], [1, 64]], "
                                                         "\"offset\": 64}", AP("u")))),
            "functions[0].blocks[0].instructions[1].ins[0]",
            "Access pattern out of bound: instruction \"bad\" ins[0] on tensor \"t\": partition range "
            "[1, 128] exceeds [0, 128)");
}

Test(validate, write_operand_out_of_bound_in_a_loop)
{
    invalid(MODULE(FN("f", SETS, LOOP("L", "i", OP("w", "DMALoad", AP("x"),
                                                   "{\"kind\": \"symbolic_ap\", \"memsetref\": \"t\", "
                                                   "\"ap\": [[64, 128], [1, 16]], \"terms\": [[\"i\", 16]]}, "
                                                   "{\"kind\": \"symbolic_ap\", \"memsetref\": \"u\", "
                                                   "\"ap\": [[64, 128], [1, 16]], \"terms\": [[\"i\", 17]]}")))),
            "functions[0].blocks[0].instructions[0].blocks[0].instructions[0].outs[1]",
            "Access pattern out of bound: instruction \"w\" outs[1] on tensor \"u\": free range "
            "[0, 66] exceeds [0, 64)");
}

Test(validate, start_partition_rule_through_validation)
{
    invalid(MODULE(FN("f", SETS, OP("w", "DMALoad", AP("x"),
                                    "{\"memsetref\": \"t\", \"ap\": [[64, 8], [1, 64]], \"offset\": 512}"))),
            "functions[0].blocks[0].instructions[0].outs[0]",
            "no base partition satisfies the start-partition rule: instruction \"w\" outs[0] on tensor \"t\": "
            "an access of 8 partitions starting at partition 8 of a 128-partition tensor (a tile of 8 "
            "partitions may start only at 0, 32, 64 or 96)");
}

Test(validate, memref_of_another_set)
{
    /* The loader resolves memref inside memsetref's set; a model edited
     * through the API can break that. */
    bir_module *m = load_text(MODULE(FN("f", SETS, LOAD("load", "t") ", " USE("use", "t"))));
    bir_function *fn = m->fns[0];
    bir_inst *use = bir_function_find_inst(fn, "use");
    use->ins[0].loc = bir_function_find_set(fn, "u")->locs[0];
    sba_error err;
    cr_assert_eq(bir_validate_module(m, &err), SBA_ERR_PROGRAM);
    cr_assert_str_eq(err.message, "ins[0] of instruction \"use\": memref \"u0\" is not a memory location "
                                  "of set \"t\"");
    cr_assert_str_eq(err.path, "functions[0].blocks[0].instructions[1].ins[0]");
    bir_module_free(m);
}

Test(validate, non_memory_operands_are_skipped)
{
    valid(MODULE(FN("f", SETS, LOAD("load", "t") ", "
                               OP("s", "TensorScalar", AP("t") ", {\"kind\": \"imm_value\", \"value\": 2}, "
                                                       "{\"kind\": \"register_ap\", \"reg\": 3}", AP("u")))));
}

/* ---- Matmult ------------------------------------------------------------ */

#define MM_SETS SETS ", " SET("acc", "Internal", "[128, 64]", "PSUM")

Test(validate, matmult_dst_must_be_psum)
{
    invalid(MODULE(FN("f", MM_SETS, LOAD("load", "t") ", " OP("mm", "Matmult", AP("t") ", " AP("t"), AP("u")))),
            "functions[0].blocks[0].instructions[1].outs[0]",
            "Matmult dst tensor is not psum: instruction \"mm\" outs[0] writes tensor \"u\" in SB");
}

Test(validate, matmult_into_psum_is_valid)
{
    valid(MODULE(FN("f", MM_SETS, LOAD("load", "t") ", " OP("mm", "Matmult", AP("t") ", " AP("t"), AP("acc")) ", "
                                  OP("copy", "TensorCopy", AP("acc"), AP("u")))));
}

Test(validate, matmult_dst_named_by_memref)
{
    /* The set has a PSUM and an SB placement; the operand's memref decides. */
    invalid(MODULE(FN("f", SETS ", {\"name\": \"o\", \"dtype\": \"float32\", \"tensor_shape\": [128, 64], "
                            "\"memorylocations\": [{\"name\": \"o_psum\", \"type\": \"PSUM\"}, "
                            "{\"name\": \"o_sb\", \"type\": \"SB\"}]}",
                      LOAD("load", "t") ", "
                      OP("mm", "Matmult", AP("t"), "{\"memsetref\": \"o\", \"memref\": \"o_sb\", "
                                                   "\"ap\": [[64, 128], [1, 64]]}"))),
            "functions[0].blocks[0].instructions[1].outs[0]",
            "Matmult dst tensor is not psum: instruction \"mm\" outs[0] writes tensor \"o\" in SB");
}

/* ---- reads that no write reaches ---------------------------------------- */

Test(undefined, read_before_any_write)
{
    invalid(MODULE(FN("f", SETS, USE("use", "t") ", " LOAD("load", "t"))),
            "functions[0].blocks[0].instructions[0].ins[0]",
            "1 memlocs were undefined at use point: tensor \"t\" read by instruction \"use\" ins[0]");
}

Test(undefined, read_of_a_tensor_never_written)
{
    invalid(MODULE(FN("f", SETS, LOAD("load", "u") ", " OP("add", "TensorTensor", AP("u") ", " AP("t"), AP("u")))),
            "functions[0].blocks[0].instructions[1].ins[1]",
            "1 memlocs were undefined at use point: tensor \"t\" read by instruction \"add\" ins[1]");
}

Test(undefined, several_tensors_listed_in_program_order)
{
    invalid(MODULE(FN("f", SETS ", " SET("v", "Internal", "[128, 64]", "SB"),
                      OP("first", "TensorCopy", AP("v"), AP("y")) ", " OP("second", "TensorTensor",
                                                                          AP("x") ", " AP("t"), AP("u")))),
            "functions[0].blocks[0].instructions[0].ins[0]",
            "2 memlocs were undefined at use point: tensor \"v\" read by instruction \"first\" ins[0]; "
            "tensor \"t\" read by instruction \"second\" ins[1]");
}

Test(undefined, each_tensor_counted_once_and_the_list_capped)
{
    invalid(MODULE(FN("f", SET("a", "Internal", "[128, 64]", "SB") ", " SET("b", "Internal", "[128, 64]", "SB")
                      ", " SET("c", "Internal", "[128, 64]", "SB") ", " SET("d", "Internal", "[128, 64]", "SB")
                      ", " SET("e", "Internal", "[128, 64]", "SB") ", " SET("f", "Internal", "[128, 64]", "SB")
                      ", " SET("g", "Internal", "[128, 64]", "SB") ", " SET("h", "Internal", "[128, 64]", "SB")
                      ", " SET("i", "Internal", "[128, 64]", "SB") ", " SET("y", "ExternalOutput", "[128, 64]", "DRAM"),
                      OP("r1", "TensorCopy", AP("a") ", " AP("b") ", " AP("c") ", " AP("a"), AP("y")) ", "
                      OP("r2", "TensorCopy", AP("d") ", " AP("e") ", " AP("f") ", " AP("g") ", " AP("h") ", "
                                             AP("i"), AP("y")))),
            "functions[0].blocks[0].instructions[0].ins[0]",
            "9 memlocs were undefined at use point: tensor \"a\" read by instruction \"r1\" ins[0]; "
            "tensor \"b\" read by instruction \"r1\" ins[1]; tensor \"c\" read by instruction \"r1\" ins[2]; "
            "tensor \"d\" read by instruction \"r2\" ins[0]; tensor \"e\" read by instruction \"r2\" ins[1]; "
            "tensor \"f\" read by instruction \"r2\" ins[2]; tensor \"g\" read by instruction \"r2\" ins[3]; "
            "tensor \"h\" read by instruction \"r2\" ins[4]; and 1 more");
}

Test(undefined, read_and_write_in_one_instruction_outside_a_loop)
{
    /* The read happens before the write at the same point. */
    invalid(MODULE(FN("f", SETS, OP("acc", "TensorTensor", AP("x") ", " AP("t"), AP("t")))),
            "functions[0].blocks[0].instructions[0].ins[1]",
            "1 memlocs were undefined at use point: tensor \"t\" read by instruction \"acc\" ins[1]");
}

Test(undefined, read_and_write_in_one_instruction_inside_a_loop)
{
    /* Iteration k reads what iteration k-1 wrote: a loop-carried value. */
    valid(MODULE(FN("f", SETS, LOOP("L", "i", OP("acc", "TensorTensor", AP("x") ", " AP("t"), AP("t"))))));
}

Test(undefined, loop_carried_def_later_in_the_body)
{
    valid(MODULE(FN("f", SETS, LOOP("L", "i", USE("use", "t") ", " LOAD("load", "t")))));
}

Test(undefined, def_in_an_outer_loop_after_an_inner_loop_use)
{
    /* The use is in the inner loop; the def follows the inner loop inside the
     * outer one, which encloses the use. */
    valid(MODULE(FN("f", SETS, LOOP("Lo", "i", LOOP("Li", "j", USE("use", "t")) ", " LOAD("load", "t")))));
}

Test(undefined, def_after_the_loop_does_not_reach)
{
    invalid(MODULE(FN("f", SETS, LOOP("L", "i", USE("use", "t")) ", " LOAD("load", "t"))),
            "functions[0].blocks[0].instructions[0].blocks[0].instructions[0].ins[0]",
            "1 memlocs were undefined at use point: tensor \"t\" read by instruction \"use\" ins[0]");
}

Test(undefined, def_in_a_later_sibling_loop_does_not_reach)
{
    invalid(MODULE(FN("f", SETS, LOOP("L1", "i", USE("use", "t")) ", " LOOP("L2", "j", LOAD("load", "t")))),
            "functions[0].blocks[0].instructions[0].blocks[0].instructions[0].ins[0]",
            "1 memlocs were undefined at use point: tensor \"t\" read by instruction \"use\" ins[0]");
}

Test(undefined, def_in_an_earlier_loop_reaches)
{
    valid(MODULE(FN("f", SETS, LOOP("L1", "i", LOAD("load", "t")) ", " LOOP("L2", "j", USE("use", "t")))));
}

Test(undefined, def_in_an_inner_loop_reaches_a_later_use)
{
    valid(MODULE(FN("f", SETS, LOOP("Lo", "i", LOOP("Li", "j", LOAD("load", "t")) ", " USE("use", "t")))));
}

Test(undefined, inputs_consts_and_outputs_are_not_checked)
{
    valid(MODULE(FN("f", SET("in", "Input", "[128, 64]", "SB") ", " SET("k", "Const", "[128, 64]", "SB") ", "
                    SET("p", "ExternalInputParameter", "[128, 64]", "DRAM") ", "
                    SET("o", "Output", "[128, 64]", "DRAM") ", " SET("y", "ExternalOutput", "[128, 64]", "DRAM"),
                    OP("r", "TensorTensor", AP("in") ", " AP("k") ", " AP("p") ", " AP("o"), AP("y")))));
}

/* ---- module and paths --------------------------------------------------- */

Test(validate, module_reports_the_failing_function)
{
    invalid(MODULE(FN("ok", SETS, LOAD("load", "t")) ", " FN("bad", SETS, USE("use", "t"))),
            "functions[1].blocks[0].instructions[0].ins[0]",
            "1 memlocs were undefined at use point: tensor \"t\" read by instruction \"use\" ins[0]");
}

Test(validate, validate_function_uses_the_given_target)
{
    bir_module *m = load_text(MODULE(FN("f", SETP("t", "[100, 4]", 0, "SB"), "")));
    sba_target small = m->target;
    small.partitions = 32;
    sba_error err;
    cr_assert_eq(bir_validate_function(m->fns[0], &m->target, &err), SBA_OK);
    cr_assert_eq(bir_validate_function(m->fns[0], &small, &err), SBA_ERR_PROGRAM);
    cr_assert_str_eq(err.message, "tensor \"t\" has 100 partitions; the target has 32");
    bir_module_free(m);
}

Test(paths, instruction_and_operand_paths)
{
    bir_module *m = load_text(MODULE(FN("a", SETS, LOAD("load", "t")) ", "
                                     "{\"name\": \"b\", \"allocations\": [" SETS "], \"blocks\": ["
                                     "{\"name\": \"b0\", \"instructions\": [" LOAD("l0", "t") "]}, "
                                     "{\"name\": \"b1\", \"instructions\": [" LOAD("l1", "t") ", "
                                     LOOP("Lo", "i", USE("u0", "t") ", " LOOP("Li", "j", USE("u1", "t"))) "]}]}"));
    bir_function *fb = m->fns[1];
    char buf[256];
    const bir_inst *u1 = bir_function_find_inst(fb, "u1");
    cr_assert_str_eq(bir_inst_path(fb, u1, NULL, buf, sizeof buf),
                     "functions[1].blocks[1].instructions[1].blocks[0].instructions[1].blocks[0].instructions[0]");
    cr_assert_str_eq(bir_inst_path(fb, u1, &u1->outs[0], buf, sizeof buf),
                     "functions[1].blocks[1].instructions[1].blocks[0].instructions[1].blocks[0]"
                     ".instructions[0].outs[0]");
    const bir_inst *l1 = bir_function_find_inst(fb, "l1");
    cr_assert_str_eq(bir_inst_path(fb, l1, &l1->ins[0], buf, sizeof buf),
                     "functions[1].blocks[1].instructions[0].ins[0]");
    /* An instruction of another function has no path in this one. */
    const bir_inst *other = bir_function_find_inst(m->fns[0], "load");
    cr_assert_str_eq(bir_inst_path(fb, other, NULL, buf, sizeof buf), "");
    /* Truncation keeps a terminated prefix. */
    cr_assert_str_eq(bir_inst_path(fb, u1, NULL, buf, 13), "functions[1]");
    bir_module_free(m);
}

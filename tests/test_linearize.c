/* Linearization: program points of instructions, loop headers and loop ends;
 * loop nests outermost first; trip counts. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "sballoc/program.h"

static bir_module *load_text(const char *text)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "test.json", NULL, &err);
    cr_assert_not_null(m, "load failed: %s: %s", err.path, err.message);
    return m;
}

#define INST(n) "{\"name\": \"" n "\", \"opcode\": \"TensorCopy\"}"
#define LOOP(n, axis, lb, ub, st, body)                                                           \
    "{\"name\": \"" n "\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"" axis "\", \"lb\": " #lb \
    ", \"ub\": " #ub ", \"stride\": " #st "}, \"blocks\": [" body "]}"

/*  0 a
 *  1 Li header          i in [0, 4)
 *  2   b
 *  3   Lj header        j in [0, 3) step 2
 *  4     c
 *  5     d              (second block of Lj's body)
 *  6   Lj end
 *  7   e
 *  8 Li end
 *  9 f                  (the function's second block)
 * 10 Le header          k in [5, 5): empty axis, empty body
 * 11 Le end
 * 12 Lb header          a loop whose body is a block with no instructions
 * 13 Lb end
 * 14 g */
static const char *const NESTED =
    "{\"functions\": [{\"name\": \"f\", \"blocks\": ["
    "{\"name\": \"entry\", \"instructions\": [" INST("a") ", "
    LOOP("Li", "i", 0, 4, 1,
         "{\"name\": \"bi\", \"instructions\": [" INST("b") ", "
         LOOP("Lj", "j", 0, 3, 2,
              "{\"name\": \"bj0\", \"instructions\": [" INST("c") "]}, "
              "{\"name\": \"bj1\", \"instructions\": [" INST("d") "]}")
         ", " INST("e") "]}")
    "]}, "
    "{\"name\": \"second\", \"instructions\": [" INST("f") ", "
    LOOP("Le", "k", 5, 5, 1, "") ", "
    LOOP("Lb", "m", 0, 10, 3, "{\"name\": \"empty\", \"instructions\": []}") ", "
    INST("g") "]}"
    "]}]}";

typedef struct lin_fixture {
    bir_module *m;
    sba_arena ar;
    bir_linear lin;
} lin_fixture;

static void linearize(lin_fixture *fx, const char *text)
{
    fx->m = load_text(text);
    sba_arena_init(&fx->ar, NULL);
    sba_error err;
    cr_assert_eq(bir_linearize(fx->m->fns[0], &fx->ar, &fx->lin, &err), SBA_OK, "%s", err.message);
}

static void done(lin_fixture *fx)
{
    sba_arena_free(&fx->ar);
    bir_module_free(fx->m);
}

static const bir_inst *inst(const lin_fixture *fx, const char *name)
{
    const bir_inst *in = bir_function_find_inst(fx->m->fns[0], name);
    cr_assert_not_null(in, "no instruction %s", name);
    return in;
}

Test(linearize, point_numbering_of_nested_loops)
{
    lin_fixture fx;
    linearize(&fx, NESTED);
    static const struct {
        uint32_t kind;
        const char *inst;
    } expect[] = {
        {BIR_PT_INST, "a"},        {BIR_PT_LOOP_HEADER, "Li"}, {BIR_PT_INST, "b"},
        {BIR_PT_LOOP_HEADER, "Lj"}, {BIR_PT_INST, "c"},        {BIR_PT_INST, "d"},
        {BIR_PT_LOOP_END, "Lj"},   {BIR_PT_INST, "e"},        {BIR_PT_LOOP_END, "Li"},
        {BIR_PT_INST, "f"},        {BIR_PT_LOOP_HEADER, "Le"}, {BIR_PT_LOOP_END, "Le"},
        {BIR_PT_LOOP_HEADER, "Lb"}, {BIR_PT_LOOP_END, "Lb"},   {BIR_PT_INST, "g"},
    };
    size_t n = sizeof expect / sizeof expect[0];
    cr_assert_eq(fx.lin.npoints, n);
    for (size_t p = 0; p < n; p++) {
        cr_assert_eq(fx.lin.points[p].kind, expect[p].kind, "point %zu", p);
        cr_assert_str_eq(fx.lin.points[p].inst->name, expect[p].inst, "point %zu", p);
    }
    cr_assert_eq(fx.lin.fn, fx.m->fns[0]);
    done(&fx);
}

Test(linearize, point_of_and_end_of)
{
    lin_fixture fx;
    linearize(&fx, NESTED);
    static const struct {
        const char *name;
        uint32_t point, end;
    } expect[] = {
        {"a", 0, UINT32_MAX}, {"Li", 1, 8}, {"b", 2, UINT32_MAX}, {"Lj", 3, 6},
        {"c", 4, UINT32_MAX}, {"d", 5, UINT32_MAX}, {"e", 7, UINT32_MAX}, {"f", 9, UINT32_MAX},
        {"Le", 10, 11}, {"Lb", 12, 13}, {"g", 14, UINT32_MAX},
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        const bir_inst *in = inst(&fx, expect[i].name);
        cr_assert_eq(fx.lin.point_of[in->index], expect[i].point, "%s", expect[i].name);
        cr_assert_eq(fx.lin.end_of[in->index], expect[i].end, "%s", expect[i].name);
        cr_assert_eq(fx.lin.points[fx.lin.point_of[in->index]].inst, in, "%s", expect[i].name);
    }
    done(&fx);
}

Test(linearize, nest_outermost_first_and_depth)
{
    lin_fixture fx;
    linearize(&fx, NESTED);
    const bir_inst *li = inst(&fx, "Li"), *lj = inst(&fx, "Lj");
    static const struct {
        const char *name;
        uint32_t depth;
    } expect[] = {{"a", 0}, {"Li", 0}, {"b", 1}, {"Lj", 1}, {"c", 2}, {"d", 2}, {"e", 1},
                  {"f", 0}, {"Le", 0}, {"Lb", 0}, {"g", 0}};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        const bir_inst *in = inst(&fx, expect[i].name);
        cr_assert_eq(fx.lin.depth[in->index], expect[i].depth, "%s", expect[i].name);
        if (expect[i].depth == 0) cr_assert_null(fx.lin.nest[in->index], "%s", expect[i].name);
    }
    const bir_inst *c = inst(&fx, "c"), *d = inst(&fx, "d"), *b = inst(&fx, "b"), *ljx = inst(&fx, "Lj");
    cr_assert_eq(fx.lin.nest[c->index][0], li);
    cr_assert_eq(fx.lin.nest[c->index][1], lj);
    cr_assert_eq(fx.lin.nest[d->index][0], li);
    cr_assert_eq(fx.lin.nest[d->index][1], lj);
    cr_assert_eq(fx.lin.nest[b->index][0], li);
    cr_assert_eq(fx.lin.nest[ljx->index][0], li, "a loop's nest holds its enclosing loops, not itself");
    cr_assert_eq(fx.lin.max_depth, 2);
    done(&fx);
}

Test(linearize, empty_body_loops_have_adjacent_header_and_end)
{
    lin_fixture fx;
    linearize(&fx, NESTED);
    const bir_inst *le = inst(&fx, "Le"), *lb = inst(&fx, "Lb");
    cr_assert_eq(fx.lin.end_of[le->index], fx.lin.point_of[le->index] + 1);
    cr_assert_eq(fx.lin.end_of[lb->index], fx.lin.point_of[lb->index] + 1);
    cr_assert_eq(le->nblocks, 0);
    cr_assert_eq(lb->nblocks, 1);
    done(&fx);
}

Test(linearize, empty_function)
{
    lin_fixture fx;
    linearize(&fx, "{\"functions\": [{\"name\": \"f\"}]}");
    cr_assert_eq(fx.lin.npoints, 0);
    cr_assert_eq(fx.lin.max_depth, 0);
    done(&fx);
}

Test(linearize, every_loop_header_precedes_its_body_and_end_follows)
{
    lin_fixture fx;
    linearize(&fx, NESTED);
    for (uint32_t p = 0; p < fx.lin.npoints; p++) {
        const bir_inst *in = fx.lin.points[p].inst;
        for (uint32_t d = 0; d < fx.lin.depth[in->index]; d++) {
            const bir_inst *loop = fx.lin.nest[in->index][d];
            cr_assert_lt(fx.lin.point_of[loop->index], p);
            cr_assert_gt(fx.lin.end_of[loop->index], p);
        }
    }
    done(&fx);
}

Test(linearize, trip_counts)
{
    lin_fixture fx;
    linearize(&fx, NESTED);
    cr_assert_eq(bir_loop_trip_count(inst(&fx, "Li")), 4);
    cr_assert_eq(bir_loop_trip_count(inst(&fx, "Lj")), 2, "j = 0, 2");
    cr_assert_eq(bir_loop_trip_count(inst(&fx, "Le")), 0, "lb == ub runs nothing");
    cr_assert_eq(bir_loop_trip_count(inst(&fx, "Lb")), 4, "m = 0, 3, 6, 9");
    done(&fx);
    /* Negative bounds and a stride larger than the range. */
    bir_inst loop = {.opcode = BIR_OP_LOOP, .axis = {"x", -7, 2, 3}};
    cr_assert_eq(bir_loop_trip_count(&loop), 3, "x = -7, -4, -1");
    loop.axis = (bir_loop_axis){"x", 0, 5, 100};
    cr_assert_eq(bir_loop_trip_count(&loop), 1);
    loop.axis = (bir_loop_axis){"x", 5, 0, 1};
    cr_assert_eq(bir_loop_trip_count(&loop), 0, "ub below lb runs nothing");
}

Test(linearize, point_kind_names)
{
    cr_assert_str_eq(bir_point_kind_name(BIR_PT_INST), "inst");
    cr_assert_str_eq(bir_point_kind_name(BIR_PT_LOOP_HEADER), "loop");
    cr_assert_str_eq(bir_point_kind_name(BIR_PT_LOOP_END), "end");
    cr_assert_null(bir_point_kind_name(BIR_PT_COUNT));
}

Test(linearize, deep_nest)
{
    /* 64 nested loops (the loader's limit): 128 points plus the innermost instruction. */
    static char text[65536];
    strcpy(text, "{\"functions\": [{\"name\": \"f\", \"blocks\": [");
    for (int i = 0; i < 64; i++)
        sprintf(text + strlen(text), "{\"name\": \"b%d\", \"instructions\": [{\"name\": \"L%d\", \"opcode\": "
                "\"Loop\", \"LoopAxis\": {\"name\": \"i%d\", \"lb\": 0, \"ub\": 2}, \"blocks\": [", i, i, i);
    strcat(text, "{\"name\": \"inner\", \"instructions\": [" INST("x") "]}");
    for (int i = 0; i < 64; i++) strcat(text, "]}]}");
    strcat(text, "]}]}");
    lin_fixture fx;
    linearize(&fx, text);
    cr_assert_eq(fx.lin.npoints, 129);
    cr_assert_eq(fx.lin.max_depth, 64);
    const bir_inst *x = inst(&fx, "x");
    cr_assert_eq(fx.lin.point_of[x->index], 64);
    cr_assert_eq(fx.lin.depth[x->index], 64);
    cr_assert_eq(fx.lin.nest[x->index][0], inst(&fx, "L0"));
    cr_assert_eq(fx.lin.nest[x->index][63], inst(&fx, "L63"));
    cr_assert_eq(fx.lin.end_of[inst(&fx, "L0")->index], 128);
    done(&fx);
}

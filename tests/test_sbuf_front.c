/* The SBUF allocator's front half against seed 000, one test per rule:
 * live_range's loop extension, the loop-carried accumulator, the shrink factor,
 * the SB capacity guard, memloc_split, find_partners and its Briggs gate,
 * precoloured nodes, the height classes, the vertical impact table,
 * possible_placements, the triangular bit matrix, the adjacency lists, and the
 * pressure log.
 *
 * Each test builds a small module from JSON, runs the passes itself (the
 * driver's order: setup, then one iteration of the front half) and reads the
 * Info records; the log tests go through sba_analyze_module. The target is
 * tiny: 1,024 bytes per partition, 32-byte alignment (32 units). */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sballoc/verify.h"
#include "sbuf/sbuf.h"

/* ---- JSON builders ----------------------------------------------------- */

#define TARGET "\"target\": {\"sbuf_bytes_per_partition\": 1024, \"sbuf_alignment\": 32}"
#define MOD(sets, body)                                                                                 \
    "{" TARGET ", \"functions\": [{\"name\": \"f\", \"allocations\": [" sets "], \"blocks\": [{\"name\": " \
    "\"entry\", \"instructions\": [" body "]}]}]}"

/* The same module on a 256-byte SBUF (8 units). */
#define MOD256(sets, body)                                                                              \
    "{\"target\": {\"sbuf_bytes_per_partition\": 256, \"sbuf_alignment\": 32}, \"functions\": [{\"name\": " \
    "\"f\", \"allocations\": [" sets "], \"blocks\": [{\"name\": \"entry\", \"instructions\": [" body "]}]}]}"

/* A float32 set of shape [P, F] with one placement named like the set. */
#define SET(name, kind, type, P, F)                                                                    \
    "{\"name\": \"" name "\", \"kind\": \"" kind "\", \"dtype\": \"float32\", \"tensor_shape\": [" #P \
    ", " #F "], \"memorylocations\": [{\"name\": \"" name "\", \"type\": \"" type "\"}]}"
#define SB(name, P, F) SET(name, "Internal", "SB", P, F)
#define DIN(name, P, F) SET(name, "ExternalInput", "DRAM", P, F)
#define DOUT(name, P, F) SET(name, "ExternalOutput", "DRAM", P, F)
/* A pre-placed SB set. */
#define FIXED(name, kind, P, F, addr, base)                                                           \
    "{\"name\": \"" name "\", \"kind\": \"" kind "\", \"dtype\": \"float32\", \"tensor_shape\": [" #P \
    ", " #F "], \"memorylocations\": [{\"name\": \"" name "\", \"type\": \"SB\", \"addr\": " #addr   \
    ", \"base\": " #base "}]}"
/* A blocked float32 set [B, P, F] (partition_dim 1). */
#define BLK(name, kind, type, B, P, F)                                                                \
    "{\"name\": \"" name "\", \"kind\": \"" kind "\", \"dtype\": \"float32\", \"tensor_shape\": [" #B \
    ", " #P ", " #F "], \"partition_dim\": 1, \"memorylocations\": [{\"name\": \"" name            \
    "\", \"type\": \"" type "\"}]}"

/* The whole [P, F] tensor; block `blk` of a blocked one (PF = P × F); the
 * block selected by loop axis `axis` (coefficient PF: one block per iteration). */
#define AP(set, P, F) "{\"memsetref\": \"" set "\", \"ap\": [[" #F ", " #P "], [1, " #F "]]}"
#define APB(set, P, F, off) "{\"memsetref\": \"" set "\", \"offset\": " #off ", \"ap\": [[" #F ", " #P "], [1, " #F "]]}"
#define APX(set, P, F, axis, PF)                                                                      \
    "{\"kind\": \"symbolic_ap\", \"memsetref\": \"" set "\", \"ap\": [[" #F ", " #P "], [1, " #F    \
    "]], \"terms\": [[\"" axis "\", " #PF "]]}"
/* Every block of a [B, P, F] tensor at once. */
#define APALL(set, B, P, F, PF)                                                                       \
    "{\"memsetref\": \"" set "\", \"ap\": [[" #F ", " #P "], [" #PF ", " #B "], [1, " #F "]]}"

#define INS(name, op, ins, outs)                                                                      \
    "{\"name\": \"" name "\", \"opcode\": \"" op "\", \"ins\": [" ins "], \"outs\": [" outs "]}"
#define LOOP(name, axis, ub, body)                                                                    \
    "{\"name\": \"" name "\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"" axis "\", \"lb\": 0, " \
    "\"ub\": " #ub ", \"stride\": 1}, \"blocks\": [{\"name\": \"" name "_body\", \"instructions\": [" \
    body "]}]}"

/* The common [128, 16] float32 tensor: 64 bytes per partition, 2 units. */
#define T(name) SB(name, 128, 16)
#define A(name) AP(name, 128, 16)
#define LD(name, src, dst) INS(name, "DMALoad", A(src), A(dst))
#define ST(name, src, dst) INS(name, "DMAStore", A(src), A(dst))
#define CP(name, src, dst) INS(name, "TensorCopy", A(src), A(dst))
#define ADD(name, x, y, dst) INS(name, "TensorTensor", A(x) ", " A(y), A(dst))

/* ---- fixture: the passes run by hand ----------------------------------- */

typedef struct fx {
    bir_module *m;
    sb_ctx c;
    sba_alloc_options o;
    sba_function_report rep;
    sba_error err;
    char log[32768];
    size_t loglen;
} fx;

static void log_line(void *ud, const char *line)
{
    fx *f = ud;
    size_t n = strlen(line);
    cr_assert_lt(f->loglen + n + 2, sizeof f->log, "log overflow");
    memcpy(f->log + f->loglen, line, n);
    f->loglen += n;
    f->log[f->loglen++] = '\n';
    f->log[f->loglen] = '\0';
}

static bir_module *load(const char *text)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "test.json", NULL, &err);
    cr_assert_not_null(m, "load failed: %s: %s\n%s", err.path, err.message, text);
    return m;
}

static void fx_init(fx *f, const char *text)
{
    memset(f, 0, sizeof *f);
    f->m = load(text);
    f->o.log = log_line;
    f->o.log_ud = f;
    f->c = (sb_ctx){.fn = f->m->fns[0], .t = &f->m->target, .o = &f->o, .rep = &f->rep, .err = &f->err,
                    .partners_enabled = true};
    sba_arena_init(&f->c.ar, NULL);
}

static void fx_free(fx *f)
{
    sba_arena_free(&f->c.ar);
    bir_module_free(f->m);
}

#define RUN(call)                                 \
    do {                                          \
        sba_status st_ = (call);                  \
        if (st_ != SBA_OK) return st_;            \
    } while (0)

/* The driver's setup (renumber, memloc_split) and one front-half iteration up
 * to and including `upto` (a pass function), on function 0. */
enum { TO_PARTNERS, TO_ANCHORS, TO_LIVE, TO_BUILD };

static sba_status run_passes(fx *f, int upto)
{
    sb_ctx *c = &f->c;
    RUN(bir_validate_module(f->m, &f->err));
    RUN(bir_linearize(c->fn, &c->ar, &c->lin, c->err));
    RUN(sb_renumber_locations(c));
    RUN(sb_memloc_split(c));
    sba_arena_free(&c->ar);
    sba_arena_init(&c->ar, NULL);
    RUN(bir_linearize(c->fn, &c->ar, &c->lin, c->err));
    RUN(sb_renumber_locations(c));
    RUN(sb_find_partners(c));
    if (upto == TO_PARTNERS) return SBA_OK;
    RUN(sb_find_first_defs(c));
    RUN(sb_find_last_uses(c));
    RUN(sb_find_loads(c));
    if (upto == TO_ANCHORS) return SBA_OK;
    RUN(sb_live_range(c));
    RUN(sb_create_eintervals(c));
    if (upto == TO_LIVE) return SBA_OK;
    return sb_build(c);
}

static void front(fx *f, const char *text, int upto)
{
    fx_init(f, text);
    sba_status st = run_passes(f, upto);
    cr_assert_eq(st, SBA_OK, "front half failed: %s", f->err.message);
}

static bir_location *find_loc(const fx *f, const char *name)
{
    const bir_function *fn = f->m->fns[0];
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++)
            if (!strcmp(fn->sets[s]->locs[l]->name, name)) return fn->sets[s]->locs[l];
    cr_assert_fail("no location %s", name);
    return NULL;
}

static uint32_t id(const fx *f, const char *loc)
{
    uint32_t v = find_loc(f, loc)->node;
    cr_assert_neq(v, SB_NO_NODE, "%s is not a node", loc);
    cr_assert_lt(v, f->c.n);
    return v;
}

static sb_node *node(fx *f, const char *loc) { return &f->c.info[id(f, loc)]; }

static bir_inst *inst(const fx *f, const char *name)
{
    bir_inst *in = bir_function_find_inst(f->m->fns[0], name);
    cr_assert_not_null(in, "no instruction %s", name);
    return in;
}

static uint32_t pt(const fx *f, const char *name) { return f->c.lin.point_of[inst(f, name)->index]; }
static uint32_t end_pt(const fx *f, const char *loop) { return f->c.lin.end_of[inst(f, loop)->index]; }

static void assert_interval(fx *f, const char *loc, uint32_t start, uint32_t end)
{
    const sb_node *nd = node(f, loc);
    cr_assert_eq(nd->start, start, "%s starts at %u, expected %u", loc, nd->start, start);
    cr_assert_eq(nd->end, end, "%s ends at %u, expected %u", loc, nd->end, end);
}

/* The log of sba_analyze_module (or of sba_allocate_module). */
static sba_status analyze_dump(fx *f, const char *text, bool allocate, uint32_t dump)
{
    memset(f, 0, sizeof *f);
    f->m = load(text);
    f->o.log = log_line;
    f->o.log_ud = f;
    f->o.dump = dump;
    sba_alloc_report r;
    sba_status st = allocate ? sba_allocate_module(f->m, &f->o, &r, &f->err)
                             : sba_analyze_module(f->m, &f->o, &r, &f->err);
    if (r.nfns) f->rep = r.fns[0];
    sba_alloc_report_free(&r);
    return st;
}

static sba_status analyze_log(fx *f, const char *text, bool allocate) { return analyze_dump(f, text, allocate, 0); }

/* The independent verifier accepts the allocated module. */
static void assert_verified(const fx *f)
{
    sba_error err;
    cr_assert_eq(sba_verify_module(f->m, NULL, &err), SBA_OK, "verifier: %s", err.message);
}

/* The log contains these lines consecutively, in this order. */
static void assert_log_has(const fx *f, const char *lines)
{
    cr_assert_not_null(strstr(f->log, lines), "log lacks\n%s\n--- log:\n%s", lines, f->log);
}

static void assert_log_lacks(const fx *f, const char *text)
{
    cr_assert_null(strstr(f->log, text), "log has \"%s\"\n--- log:\n%s", text, f->log);
}

/* ====================================================================== */
/* live_range: the loop-aware endpoints                                    */
/* ====================================================================== */

/* def in L, use after L: the common nest is empty and the def is deeper, so
 * the start moves to L's header. */
Test(live_range, def_deeper_than_common_nest_starts_at_loop_header)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("pad"),
                  LD("pre", "x", "pad") ", " LOOP("L", "i", 4, LD("def", "x", "a")) ", " ST("use", "a", "y")
                  ", " ST("post", "pad", "y")),
          TO_LIVE);
    cr_assert_lt(pt(&f, "pre"), pt(&f, "L"));
    assert_interval(&f, "a", pt(&f, "L"), pt(&f, "use"));
    cr_assert_not(node(&f, "a")->loop_carried);
    fx_free(&f);
}

/* def before L, use in L: the use is deeper, so the end moves to L's end. */
Test(live_range, use_deeper_than_common_nest_ends_at_loop_end)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LD("def", "x", "a") ", " LOOP("L", "i", 4, ST("use", "a", "y") ", " ST("more", "x", "y"))),
          TO_LIVE);
    assert_interval(&f, "a", pt(&f, "def"), end_pt(&f, "L"));
    cr_assert_lt(pt(&f, "use"), end_pt(&f, "L") - 1);
    fx_free(&f);
}

/* def in L1, use in the sibling L2: both ends move. */
Test(live_range, def_and_use_deeper_both_extend)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LOOP("L1", "i", 4, LD("def", "x", "a") ", " ST("other", "x", "y")) ", "
                  LOOP("L2", "j", 4, ST("other2", "x", "y") ", " ST("use", "a", "y"))),
          TO_LIVE);
    assert_interval(&f, "a", pt(&f, "L1"), end_pt(&f, "L2"));
    cr_assert_lt(pt(&f, "L1"), pt(&f, "def"));
    cr_assert_gt(end_pt(&f, "L2"), pt(&f, "use"));
    fx_free(&f);
}

/* def and use in the same loop body: equal nests, no extension; and at
 * function level, the plain [def, use]. */
Test(live_range, equal_nests_do_not_extend)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b"),
                  LD("d0", "x", "b") ", " ST("u0", "b", "y") ", "
                  LOOP("L", "i", 4, ST("s0", "x", "y") ", " LD("def", "x", "a") ", " ST("use", "a", "y")
                       ", " ST("s1", "x", "y"))),
          TO_LIVE);
    assert_interval(&f, "a", pt(&f, "def"), pt(&f, "use"));
    assert_interval(&f, "b", pt(&f, "d0"), pt(&f, "u0"));
    cr_assert_not(node(&f, "a")->loop_carried);
    fx_free(&f);
}

/* def in L/M, use in L: the common prefix is [L]; the def is deeper, at M. */
Test(live_range, def_deeper_in_a_nest_moves_to_the_inner_header)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),
                  LOOP("L", "i", 2, ST("s0", "x", "y") ", " LOOP("M", "j", 3, LD("def", "x", "a")) ", "
                                    ST("use", "a", "y") ", " ST("s1", "x", "y"))),
          TO_LIVE);
    assert_interval(&f, "a", pt(&f, "M"), pt(&f, "use"));
    cr_assert_gt(pt(&f, "M"), pt(&f, "L"));
    fx_free(&f);
}

/* An input in SB is defined at entry: it starts at point 0, and a use inside
 * a loop ends at the outermost loop's end. */
Test(live_range, input_defined_at_entry)
{
    fx f;
    front(&f, MOD(SET("w", "Input", "SB", 128, 16) ", " DOUT("y", 128, 16) ", " DIN("x", 128, 16),
                  ST("s0", "x", "y") ", " LOOP("L", "i", 2, LOOP("M", "j", 2, ST("use", "w", "y"))) ", "
                  ST("s1", "x", "y")),
          TO_LIVE);
    cr_assert(node(&f, "w")->entry_def);
    assert_interval(&f, "w", 0, end_pt(&f, "L"));
    fx_free(&f);
}

/* The loop-carried accumulator: in L, acc is read (rd) before it is written
 * (wr); the value crosses the back edge, so acc is live over all of L even
 * though its own def and last use are both the inner wr. */
Test(live_range, loop_carried_accumulator_is_live_across_the_loop)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("acc") ", " T("t"),
                  LOOP("L", "i", 4, ST("s0", "x", "y") ", " CP("rd", "acc", "t") ", " ADD("wr", "t", "t", "acc")
                                    ", " ST("s1", "x", "y"))),
          TO_LIVE);
    const sb_node *acc = node(&f, "acc");
    cr_assert_eq(acc->first_def, inst(&f, "wr"));
    cr_assert_eq(acc->last_use, inst(&f, "wr"));
    cr_assert(acc->loop_carried);
    assert_interval(&f, "acc", pt(&f, "L"), end_pt(&f, "L"));
    /* t is written then read in each iteration: not carried. */
    cr_assert_not(node(&f, "t")->loop_carried);
    assert_interval(&f, "t", pt(&f, "rd"), pt(&f, "wr"));
    fx_free(&f);
}

/* The classic accumulator: initialised before L, updated in L, stored after:
 * live from the init to the store, carried in L. */
Test(live_range, accumulator_initialised_before_the_loop)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("acc") ", " T("v"),
                  INS("init", "Memset", "", A("acc")) ", "
                  LOOP("L", "i", 4, LD("ld", "x", "v") ", " ADD("upd", "acc", "v", "acc")) ", "
                  ST("out", "acc", "y")),
          TO_LIVE);
    cr_assert(node(&f, "acc")->loop_carried);
    assert_interval(&f, "acc", pt(&f, "init"), pt(&f, "out"));
    assert_interval(&f, "v", pt(&f, "ld"), pt(&f, "upd"));
    fx_free(&f);
}

/* ---- the partition footprint: shrink ---------------------------------- */

/* [4, 128, 16] written and read block i in loop i of 4 trips: liveN = 4/4. */
#define BLOCKED_BODY(B, trips, sets, extra)                                                            \
    MOD(BLK("x", "ExternalInput", "DRAM", B, 128, 16) ", " BLK("y", "ExternalOutput", "DRAM", B, 128, 16) \
        ", " BLK("t", "Internal", "SB", B, 128, 16) sets,                                              \
        LOOP("L", "i", trips, INS("ld", "DMALoad", APX("x", 128, 16, "i", 2048),                      \
                                   APX("t", 128, 16, "i", 2048)) ", "                                 \
                              INS("st", "DMAStore", APX("t", 128, 16, "i", 2048),                     \
                                  APX("y", 128, 16, "i", 2048))) extra)

Test(live_range, shrink_every_access_axis_indexed)
{
    fx f;
    front(&f, BLOCKED_BODY(4, 4, "", ""), TO_LIVE);
    const sb_node *t = node(&f, "t");
    cr_assert_eq(t->nblocks, 4);
    cr_assert_eq(t->live_n, 1);
    cr_assert_eq(t->bytes_per_block, 64);
    cr_assert_eq(t->bytes, 64);
    cr_assert_eq(f.c.neint, 1, "one eInterval per live block");
    fx_free(&f);
}

/* 8 blocks, 4 trips: liveN = NBlocks / trip count = 2. */
Test(live_range, shrink_divides_nblocks_by_the_trip_count)
{
    fx f;
    front(&f, BLOCKED_BODY(8, 4, "", ""), TO_LIVE);
    const sb_node *t = node(&f, "t");
    cr_assert_eq(t->live_n, 2);
    cr_assert_eq(t->bytes, 128);
    cr_assert_eq(f.c.neint, 2);
    fx_free(&f);
}

/* The seed asserts NBlocks % shrink == 0 ("number of blocks is not a multiple
 * of shrink factor"); our shrink factor is a trip count, which need not
 * divide, so the condition is checked before the assert and such a tensor
 * keeps every block: 6 blocks, 4 trips -> liveN 6. */
Test(live_range, shrink_assert_condition_keeps_all_blocks)
{
    fx f;
    front(&f, BLOCKED_BODY(6, 4, "", ""), TO_LIVE);
    const sb_node *t = node(&f, "t");
    cr_assert_eq(t->nblocks, 6);
    cr_assert_eq(t->live_n, 6);
    cr_assert_eq(t->bytes, 6 * 64);
    fx_free(&f);
}

/* A plain read (all blocks at once) disables the shrink path. */
Test(live_range, plain_read_disables_shrink)
{
    fx f;
    front(&f, BLOCKED_BODY(4, 4, ", " DOUT("r", 128, 16),
                           ", " INS("sum", "TensorReduce", APALL("t", 4, 128, 16, 2048), A("r"))),
          TO_LIVE);
    cr_assert_eq(node(&f, "t")->live_n, 4);
    cr_assert_eq(node(&f, "t")->bytes, 256);
    fx_free(&f);
}

/* A constant-block read (block 2 after the loop) disables it too. */
Test(live_range, constant_block_read_disables_shrink)
{
    fx f;
    front(&f, MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 16) ", " BLK("t", "Internal", "SB", 4, 128, 16)
                  ", " DOUT("y", 128, 16),
                  LOOP("L", "i", 4, INS("ld", "DMALoad", APX("x", 128, 16, "i", 2048), APX("t", 128, 16, "i", 2048)))
                  ", " INS("st", "DMAStore", APB("t", 128, 16, 4096), A("y"))),
          TO_LIVE);
    cr_assert_eq(node(&f, "t")->live_n, 4);
    fx_free(&f);
}

/* The same, allocated: block 2 survives the loop's later iterations (with
 * liveN 1 iteration 3 would overwrite it), as the verifier proves. */
Test(live_range, constant_block_read_after_the_loop_allocates_correctly)
{
    fx f;
    cr_assert_eq(analyze_log(&f, MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 16) ", "
                                     BLK("t", "Internal", "SB", 4, 128, 16) ", " DOUT("y", 128, 16),
                                     LOOP("L", "i", 4, INS("ld", "DMALoad", APX("x", 128, 16, "i", 2048),
                                                           APX("t", 128, 16, "i", 2048)))
                                     ", " INS("st", "DMAStore", APB("t", 128, 16, 4096), A("y"))),
                             true),
                 SBA_OK, "%s", f.err.message);
    cr_assert_eq(find_loc(&f, "t")->live_n, 4);
    assert_verified(&f);
    bir_module_free(f.m);
}

/* A tensor whose first access in the loop is a read is carried: no shrink. */
Test(live_range, carried_tensor_does_not_shrink)
{
    fx f;
    front(&f, MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 16) ", " BLK("t", "Input", "SB", 4, 128, 16)
                  ", " BLK("y", "ExternalOutput", "DRAM", 4, 128, 16),
                  LOOP("L", "i", 4, INS("st", "DMAStore", APX("t", 128, 16, "i", 2048), APX("y", 128, 16, "i", 2048))
                                    ", " INS("ld", "DMALoad", APX("x", 128, 16, "i", 2048),
                                             APX("t", 128, 16, "i", 2048)))),
          TO_LIVE);
    cr_assert_eq(node(&f, "t")->live_n, 4);
    fx_free(&f);
}

/* ---- the capacity guard ------------------------------------------------ */

Test(live_range, too_big_for_sb)
{
    fx f;
    fx_init(&f, MOD(DIN("x", 128, 512) ", " DOUT("y", 128, 512) ", " SB("big", 128, 512),
                    INS("ld", "DMALoad", AP("x", 128, 512), AP("big", 128, 512)) ", "
                    INS("st", "DMAStore", AP("big", 128, 512), AP("y", 128, 512))));
    cr_assert_eq(run_passes(&f, TO_LIVE), SBA_ERR_ALLOC);
    cr_assert_str_eq(f.err.message, "big is too big for SB, requires 2048 bytes with SB size 1024");
    fx_free(&f);
}

/* The footprint counted is liveN × bytesPerBlock: 4 blocks of 512 bytes fit
 * once shrunk to one. */
Test(live_range, shrunk_tensor_is_not_too_big)
{
    fx f;
    front(&f, MOD(BLK("x", "ExternalInput", "DRAM", 4, 128, 128) ", " BLK("y", "ExternalOutput", "DRAM", 4, 128, 128)
                  ", " BLK("t", "Internal", "SB", 4, 128, 128),
                  LOOP("L", "i", 4, INS("ld", "DMALoad", APX("x", 128, 128, "i", 16384), APX("t", 128, 128, "i", 16384))
                                    ", " INS("st", "DMAStore", APX("t", 128, 128, "i", 16384),
                                             APX("y", 128, 128, "i", 16384)))),
          TO_LIVE);
    cr_assert_eq(node(&f, "t")->bytes, 512);
    fx_free(&f);
}

/* The footprint is placed in whole alignment units, so a tensor of 1,000
 * bytes needs 1,024: with a 1,000-byte SB the message must name what the
 * allocator needs, not the smaller raw size (which would read "requires
 * 1000 bytes with SB size 1000"). */
Test(live_range, too_big_names_the_aligned_footprint)
{
    fx f;
    fx_init(&f, "{\"target\": {\"sbuf_bytes_per_partition\": 1000, \"sbuf_alignment\": 32}, \"functions\": [{"
                "\"name\": \"f\", \"allocations\": [" DIN("x", 128, 250) ", " DOUT("y", 128, 250) ", "
                SB("t", 128, 250) "], \"blocks\": [{\"name\": \"entry\", \"instructions\": ["
                INS("ld", "DMALoad", AP("x", 128, 250), AP("t", 128, 250)) ", "
                INS("st", "DMAStore", AP("t", 128, 250), AP("y", 128, 250)) "]}]}]}");
    cr_assert_eq(run_passes(&f, TO_LIVE), SBA_ERR_ALLOC);
    cr_assert_str_eq(f.err.message, "t is too big for SB, requires 1024 bytes with SB size 1000");
    fx_free(&f);
}

/* ====================================================================== */
/* memloc_split                                                             */
/* ====================================================================== */

/* a is loaded, stored, reloaded, stored: two disjoint segments. */
#define TWO_SEGMENTS                                                                                   \
    MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),                                         \
        LD("w1", "x", "a") ", " ST("r1", "a", "y") ", " LD("w2", "x", "a") ", " ST("r2", "a", "y"))

Test(memloc_split, clones_each_disjoint_segment)
{
    fx f;
    front(&f, TWO_SEGMENTS, TO_LIVE);
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
          TO_BUILD);
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
          TO_LIVE);
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
          TO_LIVE);
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
          TO_LIVE);
    cr_assert_eq(f.rep.split_clones, 0);
    assert_interval(&f, "a", pt(&f, "w1"), pt(&f, "r4"));
    fx_free(&f);
}

/* ====================================================================== */
/* find_partners                                                            */
/* ====================================================================== */

/* b = copy a, where a dies: one node, one region. */
#define COPY_DIES                                                                                      \
    MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b"),                             \
        LD("ld", "x", "a") ", " CP("cp", "a", "b") ", " ST("st", "b", "y"))

Test(find_partners, copy_whose_source_dies_is_coalesced)
{
    fx f;
    front(&f, COPY_DIES, TO_BUILD);
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
          TO_BUILD);
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
          TO_BUILD);
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
          TO_BUILD);
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
          TO_BUILD);
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
          TO_BUILD);
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
          TO_PARTNERS);
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
    front(&f, BIG_GROUP, TO_BUILD);
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
    front(&f, PREPLACED, TO_BUILD);
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
          TO_BUILD);
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
    cr_assert_eq(run_passes(&f, TO_PARTNERS), SBA_ERR_MODEL);
    cr_assert_str_eq(f.err.message, "SB location \"p\" of set \"p\" gives addr but not base: a pre-placed "
                                    "location needs both addr and base");
    fx_free(&f);
}

Test(precoloured, tall_tensor_not_at_partition_0_is_an_error)
{
    fx f;
    fx_init(&f, MOD(DIN("x", 96, 16) ", " FIXED("p", "Internal", 96, 16, 0, 32),
                    INS("ld", "DMALoad", AP("x", 96, 16), AP("p", 96, 16))));
    cr_assert_eq(run_passes(&f, TO_PARTNERS), SBA_ERR_MODEL);
    cr_assert_str_eq(f.err.message, "p: tall tensors must be accessed starting at partition 0 (96 partitions "
                                    "at base 32)");
    fx_free(&f);
}

/* ====================================================================== */
/* geometry: height classes, vertical impact, possible_placements          */
/* ====================================================================== */

Test(geometry, band_tables)
{
    static const uint32_t bands[SB_HEIGHTS] = {4, 1, 1, 1, 1, 2, 1, 1, 1};
    static const uint32_t width[SB_HEIGHTS] = {32, 32, 32, 32, 32, 64, 64, 64, 128};
    static const uint32_t starts[SB_HEIGHTS][4] = {{0, 32, 64, 96}, {0}, {32}, {64}, {96}, {0, 64}, {0}, {64}, {0}};
    for (uint32_t h = 0; h < SB_HEIGHTS; h++) {
        cr_assert_eq(sb_height_bands(h), bands[h], "bands of class %u", h);
        cr_assert_eq(sb_height_band_width(h), width[h], "width of class %u", h);
        for (uint32_t k = 0; k < bands[h]; k++)
            cr_assert_eq(sb_height_band_start(h, k), starts[h][k], "band %u of class %u", k, h);
    }
}

Test(geometry, height_class_of_each_class)
{
    /* unconstrained: 0 any quarter, 5 any half, 8 full */
    cr_assert_eq(sb_height_class(1, -1), 0);
    cr_assert_eq(sb_height_class(32, -1), 0);
    cr_assert_eq(sb_height_class(33, -1), 5);
    cr_assert_eq(sb_height_class(64, -1), 5);
    cr_assert_eq(sb_height_class(65, -1), 8);
    cr_assert_eq(sb_height_class(128, -1), 8);
    /* a fixed base picks the smallest class that holds the tensor */
    cr_assert_eq(sb_height_class(32, 0), 1);
    cr_assert_eq(sb_height_class(32, 32), 2);
    cr_assert_eq(sb_height_class(16, 64), 3);
    cr_assert_eq(sb_height_class(32, 96), 4);
    cr_assert_eq(sb_height_class(64, 0), 6);
    cr_assert_eq(sb_height_class(33, 64), 7);
    cr_assert_eq(sb_height_class(128, 0), 8);
    cr_assert_eq(sb_height_class(96, 0), 8);
    /* no class: a half at 32 or 96, a tall tensor not at 0, an unaligned base, bad heights */
    cr_assert_eq(sb_height_class(64, 32), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(48, 96), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(128, 64), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(32, 16), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(0, -1), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(129, -1), SB_HEIGHTS);
}

Test(geometry, height_for_mask_of_each_class)
{
    /* masks: bit i = base 32·i */
    cr_assert_eq(sb_height_for_mask(32, 0xF), 0);
    cr_assert_eq(sb_height_for_mask(32, 0x1), 1);
    cr_assert_eq(sb_height_for_mask(32, 0x2), 2);
    cr_assert_eq(sb_height_for_mask(32, 0x4), 3);
    cr_assert_eq(sb_height_for_mask(32, 0x8), 4);
    cr_assert_eq(sb_height_for_mask(64, 0x5), 5);
    cr_assert_eq(sb_height_for_mask(64, 0x1), 6);
    cr_assert_eq(sb_height_for_mask(64, 0x4), 7);
    cr_assert_eq(sb_height_for_mask(128, 0x1), 8);
    /* Only the classes of the tensor's own height are candidates (1-32: 0-4,
     * 33-64: 5-7, 65-128: 8): a quarter allowed at 0 and 64 is the quarter at
     * 0, not the half class 5, which would count it 64 partitions tall. */
    cr_assert_eq(sb_height_for_mask(32, 0x5), 1);
    cr_assert_eq(sb_height_for_mask(16, 0xC), 3);
    cr_assert_eq(sb_height_for_mask(48, 0x1), 6);
    cr_assert_eq(sb_height_for_mask(64, 0xF), 5);
    cr_assert_eq(sb_height_for_mask(64, 0x2), SB_HEIGHTS);
    cr_assert_eq(sb_height_for_mask(128, 0xE), SB_HEIGHTS);
    cr_assert_eq(sb_height_for_mask(32, 0x0), SB_HEIGHTS);
}

/* Nodes: unconstrained heights 32/64/128 give classes 0/5/8; pre-placed bases
 * give 1-4, 6, 7 and 8 (the seed stamps the class from the base). */
Test(geometry, node_height_classes)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " SB("q", 32, 16) ", " SB("h", 64, 16) ", " SB("full", 128, 16) ", "
                  FIXED("q0", "Internal", 32, 16, 0, 0) ", " FIXED("q1", "Internal", 32, 16, 0, 32) ", "
                  FIXED("q2", "Internal", 32, 16, 0, 64) ", " FIXED("q3", "Internal", 32, 16, 0, 96) ", "
                  FIXED("h0", "Internal", 64, 16, 64, 0) ", " FIXED("h1", "Internal", 64, 16, 64, 64) ", "
                  FIXED("f0", "Internal", 128, 16, 128, 0),
                  INS("a", "DMALoad", AP("x", 32, 16), AP("q", 32, 16)) ", "
                  INS("b", "DMALoad", AP("x", 64, 16), AP("h", 64, 16)) ", "
                  INS("c", "DMALoad", AP("x", 128, 16), AP("full", 128, 16)) ", "
                  INS("d", "DMALoad", AP("x", 32, 16), AP("q0", 32, 16)) ", "
                  INS("e", "DMALoad", AP("x", 32, 16), AP("q1", 32, 16)) ", "
                  INS("g", "DMALoad", AP("x", 32, 16), AP("q2", 32, 16)) ", "
                  INS("h", "DMALoad", AP("x", 32, 16), AP("q3", 32, 16)) ", "
                  INS("i", "DMALoad", AP("x", 64, 16), AP("h0", 64, 16)) ", "
                  INS("j", "DMALoad", AP("x", 64, 16), AP("h1", 64, 16)) ", "
                  INS("k", "DMALoad", AP("x", 128, 16), AP("f0", 128, 16))),
          TO_BUILD);
    static const struct {
        const char *name;
        uint32_t height, band;
    } want[] = {{"q", 0, 32},  {"h", 5, 64},  {"full", 8, 128}, {"q0", 1, 32}, {"q1", 2, 32}, {"q2", 3, 32},
                {"q3", 4, 32}, {"h0", 6, 64}, {"h1", 7, 64},    {"f0", 8, 128}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const sb_node *nd = node(&f, want[k].name);
        cr_assert_eq(nd->height, want[k].height, "%s: class %u", want[k].name, nd->height);
        cr_assert_eq(nd->band_width, want[k].band, "%s: band %u", want[k].name, nd->band_width);
    }
    cr_assert_eq(f.rep.precoloured, 7);
    cr_assert_eq(f.rep.nodes, 10);
    fx_free(&f);
}

/* vi[a][b]: the largest number of a class-b node's candidate bands that one
 * placement of a class-a node overlaps; 0 exactly when the bands are disjoint. */
static const uint32_t VI[SB_HEIGHTS][SB_HEIGHTS] = {
    /*        0  1  2  3  4  5  6  7  8 */
    /* 0 */ {1, 1, 1, 1, 1, 1, 1, 1, 1},
    /* 1 */ {1, 1, 0, 0, 0, 1, 1, 0, 1},
    /* 2 */ {1, 0, 1, 0, 0, 1, 1, 0, 1},
    /* 3 */ {1, 0, 0, 1, 0, 1, 0, 1, 1},
    /* 4 */ {1, 0, 0, 0, 1, 1, 0, 1, 1},
    /* 5 */ {2, 1, 1, 1, 1, 1, 1, 1, 1},
    /* 6 */ {2, 1, 1, 0, 0, 1, 1, 0, 1},
    /* 7 */ {2, 0, 0, 1, 1, 1, 0, 1, 1},
    /* 8 */ {4, 1, 1, 1, 1, 2, 1, 1, 1},
};

Test(geometry, vertical_impact_table)
{
    for (uint32_t a = 0; a < SB_HEIGHTS; a++)
        for (uint32_t b = 0; b < SB_HEIGHTS; b++)
            cr_assert_eq(sb_vertical_impact(a, b), VI[a][b], "vi[%u][%u] = %u", a, b, sb_vertical_impact(a, b));
}

/* The zeros are exactly the pairs of disjoint bands. */
Test(geometry, vertical_impact_zero_iff_disjoint_bands)
{
    for (uint32_t a = 0; a < SB_HEIGHTS; a++)
        for (uint32_t b = 0; b < SB_HEIGHTS; b++) {
            bool meet = false;
            for (uint32_t x = 0; x < sb_height_bands(a); x++)
                for (uint32_t y = 0; y < sb_height_bands(b); y++) {
                    uint32_t alo = sb_height_band_start(a, x), blo = sb_height_band_start(b, y);
                    meet |= alo < blo + sb_height_band_width(b) && blo < alo + sb_height_band_width(a);
                }
            cr_assert_eq(sb_vertical_impact(a, b) == 0, !meet, "vi[%u][%u]", a, b);
        }
}

/* sb_impact(i, j) = vi[H(j)][H(i)] × (units(i) + units(j) − 1), in 32-byte units:
 * a full-height j (class 8) denies a quarter node i (class 0) in all 4
 * bands; disjoint pre-placed quarters deny nothing. */
Test(geometry, impact_values)
{
    fx f;
    front(&f, MOD(DIN("x16", 128, 16) ", " DIN("x64", 128, 64) ", " DIN("x8", 128, 8) ", " DOUT("y", 128, 16)
                  ", " SB("q", 32, 16) ", " SB("full", 128, 64) ", " FIXED("q0", "Internal", 32, 16, 0, 0) ", "
                  FIXED("q1", "Internal", 32, 8, 0, 32),
                  INS("a", "DMALoad", AP("x16", 32, 16), AP("q", 32, 16)) ", "
                  INS("b", "DMALoad", AP("x64", 128, 64), AP("full", 128, 64)) ", "
                  INS("c", "DMALoad", AP("x16", 32, 16), AP("q0", 32, 16)) ", "
                  INS("d", "DMALoad", AP("x8", 32, 8), AP("q1", 32, 8)) ", "
                  INS("u", "TensorTensor", AP("q", 32, 16) ", " AP("full", 32, 64) ", " AP("q0", 32, 16) ", "
                      AP("q1", 32, 8), AP("y", 32, 16))),
          TO_BUILD);
    uint32_t q = id(&f, "q"), full = id(&f, "full"), q0 = id(&f, "q0"), q1 = id(&f, "q1");
    /* units: q 64 B = 2, full 256 B = 8, q0 2, q1 32 B = 1 */
    cr_assert_eq(sb_impact(&f.c, q, full), 4 * (2 + 8 - 1));
    cr_assert_eq(sb_impact(&f.c, full, q), 1 * (8 + 2 - 1));
    cr_assert_eq(sb_impact(&f.c, q, q0), 1 * (2 + 2 - 1));
    cr_assert_eq(sb_impact(&f.c, q0, q1), 0, "disjoint quarters");
    cr_assert_eq(sb_impact(&f.c, q1, q0), 0);
    cr_assert_eq(sb_impact(&f.c, full, q1), 1 * (8 + 1 - 1));
    fx_free(&f);
}

/* possible_placements: k = bands(H) × (capacity units − units + 1). */
Test(geometry, possible_placements_per_height)
{
    fx f;
    front(&f, MOD(DIN("x16", 128, 16) ", " DIN("x64", 128, 64) ", " DIN("x8", 128, 8) ", " DIN("x200", 64, 200)
                  ", " SB("q", 32, 16) ", " SB("h", 64, 16) ", " SB("full", 128, 64) ", "
                  FIXED("q2", "Internal", 32, 8, 0, 64) ", " FIXED("h1", "Internal", 64, 200, 0, 64),
                  INS("a", "DMALoad", AP("x16", 32, 16), AP("q", 32, 16)) ", "
                  INS("b", "DMALoad", AP("x16", 64, 16), AP("h", 64, 16)) ", "
                  INS("c", "DMALoad", AP("x64", 128, 64), AP("full", 128, 64)) ", "
                  INS("d", "DMALoad", AP("x8", 32, 8), AP("q2", 32, 8)) ", "
                  INS("e", "DMALoad", AP("x200", 64, 200), AP("h1", 64, 200))),
          TO_BUILD);
    /* 1024 / 32 = 32 units */
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "q")), 4 * (32 - 2 + 1));
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "h")), 2 * (32 - 2 + 1));
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "full")), 1 * (32 - 8 + 1));
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "q2")), 1 * (32 - 1 + 1));
    /* 800 bytes: 25 units */
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "h1")), 1 * (32 - 25 + 1));
    fx_free(&f);
}

/* ====================================================================== */
/* build: the bit matrix, adjacency lists, edges = time overlap            */
/* ====================================================================== */

Test(build, bit_index_formula)
{
    cr_assert_eq(sb_bit_index(0, 1), 0);
    cr_assert_eq(sb_bit_index(1, 2), 1 + 2);
    cr_assert_eq(sb_bit_index(3, 5), 3 + 12);
    cr_assert_eq(sb_bit_index(5, 3), 3 + 12, "unordered");
    cr_assert_eq(sb_bit_index(7, 100), 7 + 5000);
    cr_assert_eq(sb_bit_index(8191, 8192), 8191 + 8192ull * 8192 / 2);
}

/* lo + hi²/2 is one-to-one on pairs lo < hi < n and fits (n² + 15) / 16 bytes. */
Test(build, bit_index_is_injective_and_fits_the_matrix)
{
    enum { N = 300 };
    static uint8_t seen[(N * N + 15) / 16];
    for (uint32_t n = 2; n <= N; n++) {
        uint64_t bytes = ((uint64_t)n * n + 15) / 16;
        memset(seen, 0, sizeof seen);
        for (uint32_t hi = 1; hi < n; hi++)
            for (uint32_t lo = 0; lo < hi; lo++) {
                uint64_t b = sb_bit_index(lo, hi);
                cr_assert_lt(b, bytes * 8, "n %u pair (%u, %u)", n, lo, hi);
                cr_assert_not(seen[b >> 3] >> (b & 7) & 1, "n %u pair (%u, %u) collides", n, lo, hi);
                seen[b >> 3] |= (uint8_t)(1u << (b & 7));
            }
    }
}

/* A chain of overlapping lifetimes, a long-lived tensor and a disjoint pair:
 * adjacency is symmetric, degrees match, E counts each edge once, the matrix
 * agrees, and an edge is exactly a time overlap. */
#define GRAPH                                                                                          \
    MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b") ", " T("c") ", " T("d") ", " \
        T("e") ", " T("long"),                                                                         \
        LD("l0", "x", "long") ", " LD("la", "x", "a") ", " LD("lb", "x", "b") ", " ST("sa", "a", "y")    \
        ", " LD("lc", "x", "c") ", " ST("sb", "b", "y") ", " ST("sc", "c", "y") ", " LD("ld", "x", "d") \
        ", " ST("sd", "d", "y") ", " LD("le", "x", "e") ", " ST("se", "e", "y") ", "                    \
        ST("s0", "long", "y"))

static void check_graph(fx *f)
{
    const sb_ctx *c = &f->c;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const sb_node *ni = &c->info[i];
        if (ni->rep != i) continue;
        sum += ni->degree;
        for (uint32_t k = 0; k < ni->degree; k++) {
            uint32_t j = ni->adj[k];
            cr_assert_neq(j, i, "self edge at %u", i);
            uint32_t back = 0;
            for (uint32_t m = 0; m < c->info[j].degree; m++) back += c->info[j].adj[m] == i;
            cr_assert_eq(back, 1, "edge %u-%u not once in %u's list", i, j, j);
            uint32_t twice = 0;
            for (uint32_t m = 0; m < ni->degree; m++) twice += ni->adj[m] == j;
            cr_assert_eq(twice, 1, "edge %u-%u repeated", i, j);
        }
        for (uint32_t j = 0; j < c->n; j++) {
            if (j == i || c->info[j].rep != j) continue;
            const sb_node *nj = &c->info[j];
            bool overlap = ni->start <= nj->end && nj->start <= ni->end;
            bool listed = false;
            for (uint32_t k = 0; k < ni->degree; k++) listed |= ni->adj[k] == j;
            cr_assert_eq(listed, overlap, "%s [%u,%u] vs %s [%u,%u]", ni->loc->name, ni->start, ni->end,
                         nj->loc->name, nj->start, nj->end);
            cr_assert_eq(sb_interferes(c, i, j), overlap);
            if (c->has_matrix)
                cr_assert_eq(sba_bitset_test(&c->matrix, sb_bit_index(i, j)), overlap);
        }
    }
    cr_assert_eq(sum, 2 * c->edges, "Σ degree = 2E");
    cr_assert_eq(c->rep->edges, c->edges);
}

Test(build, adjacency_is_symmetric_and_matches_the_matrix)
{
    fx f;
    front(&f, GRAPH, TO_BUILD);
    check_graph(&f);
    cr_assert(f.c.has_matrix);
    cr_assert_eq(f.c.matrix.nbits, ((uint64_t)f.c.n * f.c.n + 15) / 16 * 8, "(n² + 15) / 16 bytes");
    /* long: with everyone; a-b, b-c; d, e alone but for long */
    cr_assert_eq(node(&f, "long")->degree, 5);
    cr_assert_eq(node(&f, "a")->degree, 2);
    cr_assert_eq(node(&f, "b")->degree, 3);
    cr_assert_eq(node(&f, "c")->degree, 2);
    cr_assert_eq(node(&f, "d")->degree, 1);
    cr_assert_eq(node(&f, "e")->degree, 1);
    cr_assert_eq(f.c.edges, 7);
    cr_assert_not(sb_interferes(&f.c, id(&f, "a"), id(&f, "c")));
    cr_assert_not(sb_interferes(&f.c, id(&f, "d"), id(&f, "e")));
    fx_free(&f);
}

/* Geometry is not in the edge: pre-placed tensors in disjoint quarters that
 * live together still interfere (with impact 0); tensors in the same band at
 * disjoint times do not. */
Test(build, interference_is_time_overlap_only)
{
    fx f;
    front(&f, MOD(DIN("x", 32, 16) ", " DOUT("y", 32, 16) ", " FIXED("p", "Internal", 32, 16, 0, 0) ", "
                  FIXED("q", "Internal", 32, 16, 0, 96) ", " SB("s", 32, 16) ", " SB("t", 32, 16),
                  INS("lp", "DMALoad", AP("x", 32, 16), AP("p", 32, 16)) ", "
                  INS("lq", "DMALoad", AP("x", 32, 16), AP("q", 32, 16)) ", "
                  INS("sp", "DMAStore", AP("p", 32, 16), AP("y", 32, 16)) ", "
                  INS("sq", "DMAStore", AP("q", 32, 16), AP("y", 32, 16)) ", "
                  INS("ls", "DMALoad", AP("x", 32, 16), AP("s", 32, 16)) ", "
                  INS("ss", "DMAStore", AP("s", 32, 16), AP("y", 32, 16)) ", "
                  INS("lt", "DMALoad", AP("x", 32, 16), AP("t", 32, 16)) ", "
                  INS("st", "DMAStore", AP("t", 32, 16), AP("y", 32, 16))),
          TO_BUILD);
    uint32_t p = id(&f, "p"), q = id(&f, "q"), s = id(&f, "s"), t = id(&f, "t");
    cr_assert(sb_interferes(&f.c, p, q));
    cr_assert_eq(sb_impact(&f.c, p, q), 0);
    cr_assert_not(sb_interferes(&f.c, s, t));
    cr_assert_not(sb_interferes(&f.c, p, s));
    cr_assert_eq(f.c.edges, 1);
    check_graph(&f);
    fx_free(&f);
}

/* Many random lifetimes: the sweep finds exactly the overlapping pairs. */
Test(build, sweep_matches_pairwise_overlap)
{
    char sets[16384] = "", body[32768] = "";
    size_t ls = 0, lb = 0;
    ls += (size_t)snprintf(sets + ls, sizeof sets - ls, DIN("x", 32, 8) ", " DOUT("y", 32, 8));
    uint32_t seed = 12345;
    enum { NT = 40 };
    int def[NT], use[NT];
    for (int k = 0; k < NT; k++) {
        seed = seed * 1103515245u + 12345u;
        def[k] = (int)(seed >> 16) % 60;
        seed = seed * 1103515245u + 12345u;
        use[k] = def[k] + 1 + (int)(seed >> 16) % 20;
        ls += (size_t)snprintf(sets + ls, sizeof sets - ls, ", " SB("t%d", 32, 8), k, k);
    }
    /* program point p: loads of tensors defined at p, then stores of those used at p */
    for (int p = 0; p < 100; p++) {
        for (int k = 0; k < NT; k++)
            if (def[k] == p) {
                char dst[16];
                snprintf(dst, sizeof dst, "t%d", k);
                lb += (size_t)snprintf(body + lb, sizeof body - lb,
                                       "%s{\"name\": \"d%d\", \"opcode\": \"DMALoad\", \"ins\": [" AP("x", 32, 8)
                                       "], \"outs\": [{\"memsetref\": \"%s\", \"ap\": [[8, 32], [1, 8]]}]}",
                                       lb ? ", " : "", k, dst);
            }
        for (int k = 0; k < NT; k++)
            if (use[k] == p) {
                char src[16];
                snprintf(src, sizeof src, "t%d", k);
                lb += (size_t)snprintf(body + lb, sizeof body - lb,
                                       ", {\"name\": \"u%d\", \"opcode\": \"DMAStore\", \"ins\": [{\"memsetref\": "
                                       "\"%s\", \"ap\": [[8, 32], [1, 8]]}], \"outs\": [" AP("y", 32, 8) "]}",
                                       k, src);
            }
    }
    cr_assert_lt(ls, sizeof sets - 1);
    cr_assert_lt(lb, sizeof body - 1);
    static char text[65536];
    snprintf(text, sizeof text,
             "{" TARGET ", \"functions\": [{\"name\": \"f\", \"allocations\": [%s], \"blocks\": [{\"name\": "
             "\"entry\", \"instructions\": [%s]}]}]}",
             sets, body);
    fx f;
    front(&f, text, TO_BUILD);
    cr_assert_eq(f.c.n, NT);
    check_graph(&f);
    fx_free(&f);
}

/* ====================================================================== */
/* pressure                                                                 */
/* ====================================================================== */

/* Three tensors live together at the store of a: a full 64 B, a quarter 32 B
 * (any band) and a pre-placed half at 64 of 96 B. */
Test(pressure, log_lines)
{
    fx f;
    cr_assert_eq(analyze_log(&f, MOD(DIN("x16", 128, 16) ", " DIN("x8", 32, 8) ", " DIN("x24", 64, 24) ", "
                                     DOUT("y16", 128, 16) ", " DOUT("y8", 32, 8) ", " DOUT("y24", 64, 24) ", "
                                     SB("a", 128, 16) ", " SB("q", 32, 8) ", " FIXED("h", "Internal", 64, 24, 512, 64),
                                     INS("lh", "DMALoad", AP("x24", 64, 24), AP("h", 64, 24)) ", "
                                     INS("la", "DMALoad", AP("x16", 128, 16), AP("a", 128, 16)) ", "
                                     INS("lq", "DMALoad", AP("x8", 32, 8), AP("q", 32, 8)) ", "
                                     INS("sa", "DMAStore", AP("a", 128, 16), AP("y16", 128, 16)) ", "
                                     INS("sq", "DMAStore", AP("q", 32, 8), AP("y8", 32, 8)) ", "
                                     INS("sh", "DMAStore", AP("h", 64, 24), AP("y24", 64, 24))),
                             false),
                 SBA_OK, "%s", f.err.message);
    /* total 64 + 32 + 96 = 192; per quarter: a in all four (64), h in [64,127] (96);
     * weighted: 64·4 + 32·1 + 96·2 = 480 -> 120 per quarter; max(120, 160) = 160 */
    assert_log_has(&f, "SB pressure 192 bytes\n"
                       "SB high-water mark = 160 bytes\n"
                       "64 bytes in partitions [0,31]\n"
                       "64 bytes in partitions [32,63]\n"
                       "160 bytes in partitions [64,95]\n"
                       "160 bytes in partitions [96,127]\n");
    assert_log_lacks(&f, "bad height");
    cr_assert_eq(f.rep.peak_pressure, 120); /* per quarter, not 192 summed across bands */
    cr_assert_eq(f.rep.lower_bound_total, 160);
    cr_assert_eq(f.rep.lower_bound[2], 160);
    bir_module_free(f.m);
}

/* The dump: one line per program point. */
Test(pressure, dump_per_point)
{
    fx f;
    cr_assert_eq(analyze_dump(&f, COPY_DIES, false, SBA_DUMP_PRESSURE), SBA_OK, "%s", f.err.message);
    assert_log_has(&f, "pressure 0: 64 bytes; fixed [0,31] 64 [32,63] 64 [64,95] 64 [96,127] 64\n"
                       "pressure 1: 64 bytes; fixed [0,31] 64 [32,63] 64 [64,95] 64 [96,127] 64\n"
                       "pressure 2: 64 bytes; fixed [0,31] 64 [32,63] 64 [64,95] 64 [96,127] 64\n");
    bir_module_free(f.m);
}

/* Two full-height tensors of 640 bytes live together: each quarter needs
 * 1,280 > 1,024 bytes: "bad height" (analysis still completes). */
Test(pressure, bad_height)
{
    fx f;
    cr_assert_eq(analyze_log(&f, MOD(DIN("x", 128, 160) ", " DOUT("y", 128, 160) ", " SB("a", 128, 160) ", "
                                     SB("b", 128, 160),
                                     INS("la", "DMALoad", AP("x", 128, 160), AP("a", 128, 160)) ", "
                                     INS("lb", "DMALoad", AP("x", 128, 160), AP("b", 128, 160)) ", "
                                     INS("sa", "DMAStore", AP("a", 128, 160), AP("y", 128, 160)) ", "
                                     INS("sb", "DMAStore", AP("b", 128, 160), AP("y", 128, 160))),
                             false),
                 SBA_OK, "%s", f.err.message);
    assert_log_has(&f, "SB pressure 1280 bytes\n"
                       "SB high-water mark = 1280 bytes\n"
                       "1280 bytes in partitions [0,31]\n"
                       "1280 bytes in partitions [32,63]\n"
                       "1280 bytes in partitions [64,95]\n"
                       "1280 bytes in partitions [96,127]\n"
                       "bad height\n");
    bir_module_free(f.m);
}

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
          TO_PARTNERS);
    cr_assert_eq(f.c.n, 2);
    cr_assert_eq(f.rep.nodes, 2);
    cr_assert_eq(find_loc(&f, "a")->node, 0);
    cr_assert_eq(find_loc(&f, "b")->node, 1);
    cr_assert_eq(find_loc(&f, "unused")->node, SB_NO_NODE);
    cr_assert_eq(find_loc(&f, "x")->node, SB_NO_NODE);
    cr_assert_eq(find_loc(&f, "ps")->node, SB_NO_NODE);
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

/* The SBUF front-half test fixture, shared by the per-pass tests
 * (test_renumber.c, test_memloc_split.c, test_partners.c, test_live_range.c,
 * test_geometry.c, test_build.c, test_costs.c, test_simplify.c,
 * test_select.c, test_spill.c).
 *
 * Each test builds a small module from JSON with the macros below, runs the
 * passes through the allocator's own entry points (sb_setup, then one
 * sb_front_half up to the stage it needs) and reads the Info records; the log
 * tests go through sba_analyze_module. The target is tiny: 1,024 bytes per
 * partition, 32-byte alignment (32 units). */
#ifndef SBALLOC_TESTS_SBUF_FIXTURE_H
#define SBALLOC_TESTS_SBUF_FIXTURE_H

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

static inline void log_line(void *ud, const char *line)
{
    fx *f = ud;
    size_t n = strlen(line);
    cr_assert_lt(f->loglen + n + 2, sizeof f->log, "log overflow");
    memcpy(f->log + f->loglen, line, n);
    f->loglen += n;
    f->log[f->loglen++] = '\n';
    f->log[f->loglen] = '\0';
}

static inline bir_module *load(const char *text)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "test.json", NULL, &err);
    cr_assert_not_null(m, "load failed: %s: %s\n%s", err.path, err.message, text);
    return m;
}

static inline void fx_init(fx *f, const char *text)
{
    memset(f, 0, sizeof *f);
    f->m = load(text);
    f->o.log = log_line;
    f->o.log_ud = f;
    sb_ctx_init(&f->c, f->m->fns[0], &f->m->target, &f->o, &f->rep, &f->err);
}

static inline void fx_free(fx *f)
{
    sb_ctx_free(&f->c);
    bir_module_free(f->m);
}

/* The driver's setup (renumber, memloc_split) and one front-half iteration up
 * to and including stage `upto`, on function 0. */
static inline sba_status run_passes(fx *f, sb_stage upto)
{
    sba_status st = bir_validate_module(f->m, &f->err);
    if (st == SBA_OK) st = sb_setup(&f->c);
    return st == SBA_OK ? sb_front_half(&f->c, upto) : st;
}

static inline void front(fx *f, const char *text, sb_stage upto)
{
    fx_init(f, text);
    sba_status st = run_passes(f, upto);
    cr_assert_eq(st, SBA_OK, "front half failed: %s", f->err.message);
}

static inline bir_location *find_loc(const fx *f, const char *name)
{
    const bir_function *fn = f->m->fns[0];
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++)
            if (!strcmp(fn->sets[s]->locs[l]->name, name)) return fn->sets[s]->locs[l];
    cr_assert_fail("no location %s", name);
    return NULL;
}

static inline uint32_t id(const fx *f, const char *loc)
{
    uint32_t v = sb_node_of(&f->c, find_loc(f, loc));
    cr_assert_neq(v, SB_NO_NODE, "%s is not a node", loc);
    cr_assert_lt(v, f->c.n);
    return v;
}

static inline sb_node *node(fx *f, const char *loc) { return &f->c.info[id(f, loc)]; }

static inline bir_inst *inst(const fx *f, const char *name)
{
    bir_inst *in = bir_function_find_inst(f->m->fns[0], name);
    cr_assert_not_null(in, "no instruction %s", name);
    return in;
}

static inline uint32_t pt(const fx *f, const char *name) { return f->c.lin.point_of[inst(f, name)->index]; }
static inline uint32_t end_pt(const fx *f, const char *loop) { return f->c.lin.end_of[inst(f, loop)->index]; }

static inline void assert_interval(fx *f, const char *loc, uint32_t start, uint32_t end)
{
    const sb_node *nd = node(f, loc);
    cr_assert_eq(nd->start, start, "%s starts at %u, expected %u", loc, nd->start, start);
    cr_assert_eq(nd->end, end, "%s ends at %u, expected %u", loc, nd->end, end);
}

/* The log of sba_analyze_module (or of sba_allocate_module). */
static inline sba_status analyze_dump(fx *f, const char *text, bool allocate, uint32_t dump)
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

static inline sba_status analyze_log(fx *f, const char *text, bool allocate) { return analyze_dump(f, text, allocate, 0); }

/* The independent verifier accepts the allocated module. */
static inline void assert_verified(const fx *f)
{
    sba_error err;
    cr_assert_eq(sba_verify_module(f->m, NULL, &err), SBA_OK, "verifier: %s", err.message);
}

/* The log contains these lines consecutively, in this order. */
static inline void assert_log_has(const fx *f, const char *lines)
{
    cr_assert_not_null(strstr(f->log, lines), "log lacks\n%s\n--- log:\n%s", lines, f->log);
}

static inline void assert_log_lacks(const fx *f, const char *text)
{
    cr_assert_null(strstr(f->log, text), "log has \"%s\"\n--- log:\n%s", text, f->log);
}

/* ---- modules more than one pass test uses ------------------------------ */

/* b = copy a, where a dies: one node, one region. */
#define COPY_DIES                                                                                      \
    MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b"),                             \
        LD("ld", "x", "a") ", " CP("cp", "a", "b") ", " ST("st", "b", "y"))

/* a is loaded, stored, reloaded, stored: two disjoint segments. */
#define TWO_SEGMENTS                                                                                   \
    MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a"),                                         \
        LD("w1", "x", "a") ", " ST("r1", "a", "y") ", " LD("w2", "x", "a") ", " ST("r2", "a", "y"))

#endif

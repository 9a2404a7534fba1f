/* The module driver: the order in which a module's memories are allocated.
 *
 *   validate the module
 *   for each function (on sba_alloc_options.jobs threads: jobs.c):
 *       PSUM banks        (src/psum)   the real pipeline's order: spill code
 *       SBUF              (src/sbuf)   touches no PSUM tile, so its placements
 *       DRAM scratch      (src/dram)   stay valid; DRAM last, so the spill homes
 *                                      SBUF made are placed with the internal tensors
 *
 * It owns the names of strategies and phases and the per-function report; each
 * allocator below it knows nothing of the others. The analyze entry runs only
 * the SBUF front half, for its dumps and figures.
 *
 * Requires: a loaded module. Produces: every placement, or the first error. */
#include <string.h>

#include "alloc/jobs.h"
#include "base/each.h"
#include "base/clock.h"
#include "base/error.h"
#include "dram/dram.h"
#include "psum/psum.h"
#include "sbuf/sbuf.h"

static const char *const strategy_names[SBA_STRATEGY_COUNT] = {"coloring", "best-fit", "greedy-size"};
static const char *const phase_names[SBA_PHASE_COUNT] = {
    "renumber", "memloc_split", "find_partners", "anchors", "live_range", "build",
    "find_costs", "simplify", "select", "search", "insert_spill_code", "commit", "psum", "dram",
};

const char *sba_strategy_name(uint32_t s) { return s < SBA_STRATEGY_COUNT ? strategy_names[s] : NULL; }

bool sba_strategy_parse(const char *name, uint32_t *out)
{
    for (uint32_t i = 0; i < SBA_STRATEGY_COUNT; i++)
        if (strcmp(strategy_names[i], name) == 0) return *out = i, true;
    return false;
}

const char *sba_phase_name(uint32_t p) { return p < SBA_PHASE_COUNT ? phase_names[p] : NULL; }

/* One function: PSUM, SBUF, DRAM, each timed into its phase. */
static sba_status allocate_function(bir_function *fn, const sba_target *t, const sba_alloc_options *o,
                                    sba_function_report *fr, sba_error *err)
{
    sba_alloc_log(o, "Allocating function %s", fn->name);
    double t0 = sba_now();
    sba_status st = sba_psum_allocate(fn, t, o, fr, err);
    fr->seconds[SBA_PHASE_PSUM] += sba_now() - t0;
    if (st != SBA_OK) return st;

    sb_ctx c;
    sb_ctx_init(&c, fn, t, o, fr, err);
    st = sb_allocate_function(&c);
    sb_ctx_free(&c);
    if (st != SBA_OK) return st;

    t0 = sba_now();
    st = sba_dram_allocate(fn, o, fr, err);
    fr->seconds[SBA_PHASE_DRAM] += sba_now() - t0;
    return st;
}

/* One function's SBUF front half, for analyze. */
static sba_status analyze_function(bir_function *fn, const sba_target *t, const sba_alloc_options *o,
                                   sba_function_report *fr, sba_error *err)
{
    sb_ctx c;
    sb_ctx_init(&c, fn, t, o, fr, err);
    sb_log(&c, "Allocating function %s", fn->name);
    sba_status st = sb_setup(&c);
    if (st == SBA_OK) st = sb_front_half(&c, SB_TO_BUILD);
    sb_ctx_free(&c);
    return st;
}

typedef struct run_args {
    bir_module *m;
    const sba_target *t;
    const sba_alloc_options *o;
    bool analyze_only;
} run_args;

/* Function f, start to end. It reaches its module only through fn->module,
 * so sba_run_functions (jobs.c) can run several at once. */
static sba_status run_function(void *ud, uint32_t f, sba_function_report *fr, sba_error *err)
{
    const run_args *ra = ud;
    bir_function *fn = ra->m->fns[f];
    memset(fr, 0, sizeof *fr);
    fr->name = fn->name;
    fr->capacity = ra->t->sbuf_bytes;
    sba_status st = ra->analyze_only ? analyze_function(fn, ra->t, ra->o, fr, err)
                                     : allocate_function(fn, ra->t, ra->o, fr, err);
    if (st == SBA_OK && bir_module_failed(fn->module)) st = sba_err(err, SBA_ERR_NOMEM, "out of memory");
    return st;
}

static sba_status validate_one(void *ud, uint32_t f, sba_error *err)
{
    const run_args *ra = ud;
    return bir_validate_function(ra->m->fns[f], &ra->m->target, err);
}

static sba_status run(bir_module *m, const sba_alloc_options *o, sba_alloc_report *r, sba_error *err,
                      bool analyze_only)
{
    sba_error_clear(err);
    sba_alloc_options defaults = {0};
    if (!o) o = &defaults;
    /* One target: an override becomes the module's own, so that the verifier,
     * the picture and the saved module see the geometry that was allocated. */
    if (o->target && bir_module_set_target(m, o->target, err) != SBA_OK) return err->code;
    const sba_target *t = &m->target;
    if (r) {
        memset(r, 0, sizeof *r);
        r->a = m->arena->a;
        r->fns = sba_malloc(r->a, (size_t)(m->nfns ? m->nfns : 1) * sizeof *r->fns);
        if (!r->fns) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
        memset(r->fns, 0, (size_t)(m->nfns ? m->nfns : 1) * sizeof *r->fns);
    }
    sba_function_report scratch;
    run_args ra = {m, t, o, analyze_only};
    /* Validation reads the module only: with several threads it runs on
     * them too, the first failing function in module order giving the error. */
    sba_error_clear(err);
    sba_status st = o->jobs > 1 && m->nfns > 1 && !o->log
                        ? sba_run_each(m->nfns, o->jobs, m->arena->a, validate_one, &ra, NULL, err)
                        : bir_validate_module(m, err);
    /* Several threads, unless a log must keep its lines in function order. */
    if (st == SBA_OK && o->jobs > 1 && m->nfns > 1 && !o->log)
        return sba_run_functions(m, o, run_function, &ra, r ? r->fns : NULL, r ? &r->nfns : NULL, err);
    for (uint32_t f = 0; f < m->nfns && st == SBA_OK; f++) {
        sba_function_report *fr = r ? &r->fns[r->nfns++] : &scratch;
        st = run_function(&ra, f, fr, err);
        if (o->progress) o->progress(o->progress_ud, f + 1, m->nfns);
    }
    return st;
}

sba_status sba_analyze_module(bir_module *m, const sba_alloc_options *o, sba_alloc_report *r, sba_error *err)
{
    return run(m, o, r, err, true);
}

sba_status sba_allocate_module(bir_module *m, const sba_alloc_options *o, sba_alloc_report *r, sba_error *err)
{
    return run(m, o, r, err, false);
}

void sba_alloc_report_free(sba_alloc_report *r)
{
    if (!r) return;
    sba_free(r->a, r->fns);
    r->fns = NULL;
    r->nfns = 0;
}

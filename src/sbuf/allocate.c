/* The SBUF allocator's driver (SB_Allocator::allocate of seed 000).
 *
 *   renumber_locations; memloc_split;                       setup, once
 *   do {                                                    the spill fixpoint
 *       renumber_locations; find_partners; find_first_defs; find_last_uses;
 *       find_loads; live_range; create_eintervals; build;   front half
 *       find_costs; simplify; select;                       back half
 *       if nothing spilled: commit, stop
 *       insert_spill_code
 *   } while (1)
 *
 * The loop has no random restarts: only the spill code changes between
 * iterations. Unlike the seed it has a guard: a node that spill code made
 * (already as short as it can be) and that still cannot be placed means the
 * tensors live at some point cannot fit, which is reported with the point,
 * the tensors and their bytes; and the iteration count is bounded.
 *
 * Each iteration's pass data lives in one arena, freed at once. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "dram/dram.h"
#include "psum/psum.h"
#include "sbuf/sbuf.h"

enum { DEFAULT_MAX_ITERATIONS = 32 };

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

/* ---- logging ----------------------------------------------------------- */

bool sb_logging(const sb_ctx *c) { return c->o->log != NULL; }
bool sb_dumping(const sb_ctx *c, uint32_t what) { return c->o->log && (c->o->dump & what); }


/* ---- timing ------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define PHASE(c, ph, call)                                              \
    do {                                                                \
        double t0_ = now();                                             \
        sba_status st_ = (call);                                        \
        (c)->rep->seconds[ph] += now() - t0_;                           \
        if (st_ != SBA_OK) return st_;                                  \
    } while (0)

/* ---- dumps and results ------------------------------------------------- */

static void dump_nodes(sb_ctx *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        const sb_node *nd = &c->info[i];
        sb_log(c, "node %u %s: %lld partitions x %lld bytes (liveN %lld x %lld), height %u, band %u, k %lld%s%s",
               i, nd->loc->name, (long long)nd->partitions, (long long)nd->bytes, (long long)nd->live_n,
               (long long)nd->bytes_per_block, nd->height, nd->band_width,
               (long long)sb_possible_placements(c, i), nd->precoloured ? ", precoloured" : "",
               nd->rep != i ? ", partner" : "");
    }
}

static void high_water(sb_ctx *c)
{
    for (uint32_t q = 0; q < SBA_BANDS; q++) c->rep->high_water[q] = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const sb_node *nd = &c->info[i];
        if (nd->rep != i || !nd->placed) continue;
        for (uint32_t q = 0; q < SBA_BANDS; q++)
            if ((int64_t)q * 32 < nd->base + nd->partitions && nd->base < (int32_t)(q + 1) * 32 &&
                nd->addr + nd->bytes > c->rep->high_water[q])
                c->rep->high_water[q] = nd->addr + nd->bytes;
    }
}

static sba_status commit(sb_ctx *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        sb_node *nd = &c->info[i];
        if (nd->precoloured) continue;
        const sb_node *r = &c->info[nd->rep];
        bir_location *loc = nd->loc;
        loc->addr = r->addr;
        loc->base = r->base;
        loc->live_n = r->live_n;
        loc->dims[0] = nd->partitions;
        loc->dims[1] = r->live_n * nd->bytes_per_block;
        loc->has_dims = true;
        bir_location_set_allocated(loc, true);
    }
    return SBA_OK;
}

/* The guard: a node that cannot be shortened did not fit. Names the program
 * point inside its range where the most bytes are live, and those tensors. */
static sba_status impossible(sb_ctx *c, uint32_t v)
{
    const sb_node *nv = &c->info[v];
    uint32_t best = nv->start;
    int64_t best_bytes = -1;
    for (uint32_t p = nv->start; p <= nv->end; p++) {
        int64_t sum = 0;
        for (uint32_t k = 0; k < nv->degree; k++) {
            const sb_node *nj = &c->info[nv->adj[k]];
            if (nj->start <= p && p <= nj->end) sum += nj->bytes;
        }
        if (sum > best_bytes) best_bytes = sum, best = p;
    }
    char list[512];
    size_t len = (size_t)snprintf(list, sizeof list, "%s (%lld bytes)", nv->loc->name, (long long)nv->bytes);
    uint32_t shown = 0, more = 0;
    for (uint32_t k = 0; k < nv->degree; k++) {
        const sb_node *nj = &c->info[nv->adj[k]];
        if (!(nj->start <= best && best <= nj->end)) continue;
        if (shown < 8 && len < sizeof list - 64) {
            len += (size_t)snprintf(list + len, sizeof list - len, ", %s (%lld bytes)", nj->loc->name,
                                    (long long)nj->bytes);
            shown++;
        } else {
            more++;
        }
    }
    if (more) snprintf(list + len, sizeof list - len, " and %u more", more);
    const bir_point *pt = &c->lin.points[best];
    return sba_err(c->err, SBA_ERR_ALLOC,
                   "cannot allocate function \"%s\" in SB: at point %u (%s%s) the tensors that must be live "
                   "need %lld bytes per partition with SB size %lld: %s",
                   c->fn->name, best, pt->kind == BIR_PT_LOOP_END ? "end of " : "", pt->inst->name,
                   (long long)(best_bytes + nv->bytes), (long long)c->t->sbuf_bytes, list);
}

/* A node that spill code made cannot be spilled again. When one does not fit,
 * the cheapest spillable neighbour whose partitions it could share is spilled
 * instead, so it gets room on the next iteration; only when no such neighbour
 * is left does the guard report the function impossible. */
static uint32_t quarters(int64_t lo, int64_t hi)
{
    uint32_t m = 0;
    for (int64_t q = 0; q < SBA_BANDS; q++)
        if (q * 32 < hi && lo < (q + 1) * 32) m |= 1u << q;
    return m;
}

static bool evict_for(sb_ctx *c, uint32_t v)
{
    sb_node *nv = &c->info[v];
    uint32_t reach = 0, best = SB_NO_NODE;
    for (uint32_t k = 0; k < sb_height_bands(nv->height); k++) {
        int64_t b = sb_height_band_start(nv->height, k);
        reach |= quarters(b, b + nv->partitions);
    }
    for (uint32_t k = 0; k < nv->degree; k++) {
        uint32_t j = nv->adj[k];
        const sb_node *nj = &c->info[j];
        if (nj->precoloured || nj->unspillable || nj->output || nj->spill || !nj->placed) continue;
        if (!(quarters(nj->base, nj->base + nj->partitions) & reach)) continue;
        if (best == SB_NO_NODE || nj->cost / (double)nj->bytes < c->info[best].cost / (double)c->info[best].bytes ||
            (nj->cost / (double)nj->bytes == c->info[best].cost / (double)c->info[best].bytes && j < best))
            best = j;
    }
    if (best == SB_NO_NODE) return false;
    c->info[best].spill = true;
    c->info[best].placed = false;
    nv->spill = false;
    sb_log(c, "evict %s to make room for %s", c->info[best].loc->name, nv->loc->name);
    return true;
}

/* ---- the driver -------------------------------------------------------- */

static sba_status front_half(sb_ctx *c)
{
    PHASE(c, SBA_PHASE_RENUMBER, bir_linearize(c->fn, &c->ar, &c->lin, c->err));
    PHASE(c, SBA_PHASE_RENUMBER, sb_renumber_locations(c));
    PHASE(c, SBA_PHASE_PARTNERS, sb_find_partners(c));
    PHASE(c, SBA_PHASE_ANCHORS, sb_find_first_defs(c));
    PHASE(c, SBA_PHASE_ANCHORS, sb_find_last_uses(c));
    PHASE(c, SBA_PHASE_ANCHORS, sb_find_loads(c));
    PHASE(c, SBA_PHASE_LIVE, sb_live_range(c));
    PHASE(c, SBA_PHASE_LIVE, sb_create_eintervals(c));
    PHASE(c, SBA_PHASE_BUILD, sb_build(c));
    if (sb_dumping(c, SBA_DUMP_NODES)) dump_nodes(c);
    return c->ar.failed ? sba_err(c->err, SBA_ERR_NOMEM, "out of memory") : SBA_OK;
}

static sba_status setup(sb_ctx *c)
{
    PHASE(c, SBA_PHASE_RENUMBER, bir_linearize(c->fn, &c->ar, &c->lin, c->err));
    PHASE(c, SBA_PHASE_RENUMBER, sb_renumber_locations(c));
    PHASE(c, SBA_PHASE_SPLIT, sb_memloc_split(c));
    return SBA_OK;
}

static void reset_arena(sb_ctx *c)
{
    const sba_allocator *a = c->ar.a;
    sba_arena_free(&c->ar);
    sba_arena_init(&c->ar, a);
    c->gaps = NULL;
    c->capgaps = 0;
}

static sba_status allocate_function(sb_ctx *c, bool analyze_only)
{
    sba_status st = setup(c);
    uint32_t max_iter = c->o->max_iterations ? c->o->max_iterations : DEFAULT_MAX_ITERATIONS;
    for (c->iteration = 0; st == SBA_OK; c->iteration++) {
        reset_arena(c);
        sb_log(c, " best-of-n loop, heuristic = %u", c->iteration);
        st = front_half(c);
        if (st != SBA_OK || analyze_only) break;
        c->rep->iterations = c->iteration + 1;
        uint32_t *order = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *order), norder = 0;
        if (!order) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        PHASE(c, SBA_PHASE_COSTS, sb_find_costs(c));
        double t0 = now();
        if (c->o->strategy == SBA_STRATEGY_BEST_FIT) {
            sb_order_best_fit(c, order, &norder);
        } else if (c->o->strategy == SBA_STRATEGY_GREEDY_SIZE) {
            sb_order_greedy_size(c, order, &norder);
        } else {
            c->rule = SB_RULE_LOWEST;
            st = sb_simplify(c, order, &norder);
            if (st != SBA_OK) return st;
        }
        c->rep->seconds[SBA_PHASE_SIMPLIFY] += now() - t0;
        t0 = now();
        uint32_t failed = sb_select_nodes(c, order, norder);
        c->rep->seconds[SBA_PHASE_SELECT] += now() - t0;
        if (c->ar.failed) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        if (failed && c->lower_bound <= c->t->sbuf_bytes && c->search_left > 0) {
            t0 = now();
            bool packed = sb_search_packing(c);
            c->rep->seconds[SBA_PHASE_SEARCH] += now() - t0;
            if (packed) failed = 0;
        }
        if (!failed) {
            high_water(c);
            PHASE(c, SBA_PHASE_COMMIT, commit(c));
            sb_log(c, "allocated %u nodes in %u iteration%s", c->n, c->iteration + 1, c->iteration ? "s" : "");
            break;
        }
        for (uint32_t i = 0; i < c->n; i++)
            if (c->info[i].rep == i && c->info[i].spill && c->info[i].unspillable && !evict_for(c, i))
                return impossible(c, i);
        if (c->iteration + 1 >= max_iter)
            return sba_err(c->err, SBA_ERR_ALLOC, "cannot allocate function \"%s\" in SB: still spilling after %u "
                           "iterations", c->fn->name, max_iter);
        PHASE(c, SBA_PHASE_SPILL, sb_insert_spill_code(c));
        st = bir_validate_function(c->fn, c->t, c->err);
    }
    return st;
}

static sba_status run(bir_module *m, const sba_alloc_options *o, sba_alloc_report *r, sba_error *err,
                      bool analyze_only)
{
    sba_error_clear(err);
    sba_alloc_options defaults = {0};
    if (!o) o = &defaults;
    const sba_target *t = o->target ? o->target : &m->target;
    if (r) {
        memset(r, 0, sizeof *r);
        r->a = m->arena->a;
        r->fns = sba_malloc(r->a, (size_t)(m->nfns ? m->nfns : 1) * sizeof *r->fns);
        if (!r->fns) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
        memset(r->fns, 0, (size_t)(m->nfns ? m->nfns : 1) * sizeof *r->fns);
    }
    sba_function_report scratch;
    sba_status st = bir_validate_module(m, err);
    for (uint32_t f = 0; f < m->nfns && st == SBA_OK; f++) {
        sba_function_report *fr = r ? &r->fns[r->nfns++] : &scratch;
        memset(fr, 0, sizeof *fr);
        fr->name = m->fns[f]->name;
        fr->capacity = t->sbuf_bytes;
        sb_ctx c = {.fn = m->fns[f], .t = t, .o = o, .rep = fr, .err = err, .partners_enabled = true,
                    .search_left = sb_search_budget(o)};
        sba_arena_init(&c.ar, m->arena->a);
        sb_log(&c, "Allocating function %s", m->fns[f]->name);
        /* The real pipeline's order: PSUM banks first, then SBUF (spill code
         * touches no PSUM tile, so its placements stay valid). */
        if (!analyze_only) {
            double t0 = now();
            st = sba_psum_allocate(c.fn, t, o, fr, err);
            fr->seconds[SBA_PHASE_PSUM] += now() - t0;
        }
        if (st == SBA_OK) st = allocate_function(&c, analyze_only);
        /* DRAM last: the spill homes SBUF made are placed with the internal tensors. */
        if (st == SBA_OK && !analyze_only) {
            double t0 = now();
            st = sba_dram_allocate(c.fn, o, fr, err);
            fr->seconds[SBA_PHASE_DRAM] += now() - t0;
        }
        sba_arena_free(&c.ar);
        if (st == SBA_OK && bir_module_failed(m)) st = sba_err(err, SBA_ERR_NOMEM, "out of memory");
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

/* The SBUF allocator of one function (SB_Allocator::allocate of seed 000).
 *
 *   renumber_locations; memloc_split;                       setup, once
 *   do {                                                    the spill fixpoint
 *       renumber_locations; find_partners; find_first_defs; find_last_uses;
 *       find_loads; live_range; build;                      front half
 *       find_costs; simplify; select;                       back half
 *       if nothing spilled: commit, stop
 *       create_eintervals; insert_spill_code                the spill path
 *   } while (1)
 *
 * The loop has no random restarts: only the spill code changes between
 * iterations. Unlike the seed it has a guard: a node that spill code made
 * (already as short as it can be) and that still cannot be placed, even by
 * select with those nodes first and then by an exact search of those nodes
 * alone, means the tensors live at some point cannot fit, which is reported
 * with the point, the tensors and their bytes. Every iteration that does
 * not finish spills a tensor that could still spill (or splits a group), so
 * the loop ends; its iteration bound (256) only guards against a fault.
 *
 * Each iteration's pass data lives in one arena, freed at once. The module
 * driver (src/alloc/pipeline.c) calls sb_allocate_function once per function;
 * tests and the analyze command run sb_setup and sb_front_half, the same
 * passes in the same order, and stop where they need.
 *
 * Requires: a validated function. Produces: every SB placement's addr, base
 * and allocated flag, or spill code and DRAM homes for what did not fit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "sbuf/sbuf.h"

/* Far above what converging functions need (a few dozen on the benchmark's
 * planted families, whose iterations spill a few tensors each): a guard
 * against a fault. */
enum { DEFAULT_MAX_ITERATIONS = 256 };

#define PHASE(c, ph, call)                                              \
    do {                                                                \
        double t0_ = sba_now();                                         \
        sba_status st_ = (call);                                        \
        (c)->rep->seconds[ph] += sba_now() - t0_;                       \
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
        uint32_t touched = sb_quarter_mask(nd->base, nd->partitions);
        for (uint32_t q = 0; q < SBA_BANDS; q++)
            if ((touched >> q & 1) && nd->addr + nd->bytes > c->rep->high_water[q])
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
    uint32_t best = nv->start, quarter = SBA_BANDS;
    int64_t need = 0;
    if (!sb_band_overflow(c, v, &best, &quarter, &need))
        return sba_err(c->err, SBA_ERR_ALLOC,
                       "cannot allocate function \"%s\" in SB: no place found for %s (%lld bytes), although the "
                       "tensors live with it fit every partition quarter (at most %lld bytes per partition with "
                       "SB size %lld); alloc --search-budget N searches longer",
                       c->fn->name, nv->loc->name, (long long)nv->bytes, (long long)need,
                       (long long)c->t->sbuf_bytes);
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
    char src[96], band[48] = "";
    if (quarter < SBA_BANDS) snprintf(band, sizeof band, " in partitions [%u,%u]", quarter * 32, quarter * 32 + 31);
    return sba_err(c->err, SBA_ERR_ALLOC,
                   "cannot allocate function \"%s\" in SB: at point %u (%s%s%s) the tensors that must be live "
                   "need %lld bytes per partition%s with SB size %lld: %s",
                   c->fn->name, best, pt->kind == BIR_PT_LOOP_END ? "end of " : "", pt->inst->name,
                   bir_inst_source(pt->inst, src, sizeof src), (long long)need, band, (long long)c->t->sbuf_bytes,
                   list);
}

/* A node that spill code made cannot be spilled again. When one does not fit,
 * the cheapest spillable neighbour whose partitions it could share is spilled
 * instead, so it gets room on the next iteration; only when no such neighbour
 * is left does the guard report the function impossible. */
static bool evict_for(sb_ctx *c, uint32_t v)
{
    sb_node *nv = &c->info[v];
    uint32_t reach = 0, best = SB_NO_NODE;
    for (uint32_t k = 0; k < sb_height_bands(nv->height); k++) {
        int64_t b = sb_height_band_start(nv->height, k);
        reach |= sb_quarter_mask(b, nv->partitions);
    }
    for (uint32_t k = 0; k < nv->degree; k++) {
        uint32_t j = nv->adj[k];
        const sb_node *nj = &c->info[j];
        if (nj->precoloured || nj->unspillable || nj->output || nj->spill || !nj->placed) continue;
        if (!(sb_quarter_mask(nj->base, nj->partitions) & reach)) continue;
        if (best == SB_NO_NODE || nj->cost / (double)nj->bytes < c->info[best].cost / (double)c->info[best].bytes ||
            (nj->cost / (double)nj->bytes == c->info[best].cost / (double)c->info[best].bytes && j < best))
            best = j;
    }
    if (best == SB_NO_NODE) {
        /* No placed one to evict; but a neighbour this iteration spills is
         * shortened by it, which may be the room v needs: v waits for the
         * next iteration rather than the function being declared impossible. */
        for (uint32_t k = 0; k < nv->degree; k++) {
            const sb_node *nj = &c->info[nv->adj[k]];
            if (nj->spill && !nj->unspillable && !nj->precoloured &&
                (sb_quarter_mask(nj->base, nj->partitions) & reach)) {
                nv->spill = false;
                sb_log(c, "%s waits for the spills around it", nv->loc->name);
                return true;
            }
        }
        return false;
    }
    c->info[best].spill = true;
    c->info[best].placed = false;
    nv->spill = false;
    sb_log(c, "evict %s to make room for %s", c->info[best].loc->name, nv->loc->name);
    return true;
}

/* Whether select left a node unplaced that spill code made (it cannot
 * spill again). */
static bool stuck(const sb_ctx *c, uint32_t failed)
{
    for (uint32_t i = 0; i < c->n && failed; i++)
        if (c->info[i].spill && c->info[i].unspillable) return true;
    return false;
}

/* ---- the driver -------------------------------------------------------- */

void sb_ctx_init(sb_ctx *c, bir_function *fn, const sba_target *t, const sba_alloc_options *o,
                 sba_function_report *rep, sba_error *err)
{
    memset(c, 0, sizeof *c);
    c->fn = fn;
    c->t = t;
    c->o = o;
    c->rep = rep;
    c->err = err;
    c->partners_enabled = true;
    c->rule = o->strategy == SBA_STRATEGY_BEST_FIT ? SB_RULE_BEST_FIT : SB_RULE_LOWEST;
    c->search_left = sb_search_budget(o);
    c->repair_left = c->search_left / 16;
    c->insert_left = c->search_left / 16;
    c->rescue_left = sb_rescue_budget();
    sba_arena_init(&c->ar, fn->module->arena->a);
    sba_arena_init(&c->keep, fn->module->arena->a);
}

void sb_ctx_free(sb_ctx *c)
{
    sb_forget_placed_parts(c);
    sba_arena_free(&c->ar);
    sba_arena_free(&c->keep);
}

/* A fresh arena for the next iteration: every pass's data of the last one goes. */
static void reset_arena(sb_ctx *c)
{
    const sba_allocator *a = c->ar.a;
    sba_arena_free(&c->ar);
    sba_arena_init(&c->ar, a);
    c->gaps = NULL;
    c->capgaps = 0;
    c->eint = NULL;
    c->eint_of = NULL;
    c->neint = 0;
}

sba_status sb_setup(sb_ctx *c)
{
    PHASE(c, SBA_PHASE_RENUMBER, bir_linearize(c->fn, &c->ar, &c->lin, c->err));
    PHASE(c, SBA_PHASE_RENUMBER, sb_renumber_locations(c));
    PHASE(c, SBA_PHASE_SPLIT, sb_memloc_split(c));
    return SBA_OK;
}

sba_status sb_front_half(sb_ctx *c, sb_stage upto)
{
    reset_arena(c);
    sb_log(c, " best-of-n loop, heuristic = %u", c->iteration);
    PHASE(c, SBA_PHASE_RENUMBER, bir_linearize(c->fn, &c->ar, &c->lin, c->err));
    PHASE(c, SBA_PHASE_RENUMBER, sb_renumber_locations(c));
    PHASE(c, SBA_PHASE_PARTNERS, sb_find_partners(c));
    if (upto == SB_TO_PARTNERS) return SBA_OK;
    PHASE(c, SBA_PHASE_ANCHORS, sb_find_first_defs(c));
    PHASE(c, SBA_PHASE_ANCHORS, sb_find_last_uses(c));
    PHASE(c, SBA_PHASE_ANCHORS, sb_find_loads(c));
    if (upto == SB_TO_ANCHORS) return SBA_OK;
    PHASE(c, SBA_PHASE_LIVE, sb_live_range(c));
    /* The interval list is the spill path's (below); the live dump shows it. */
    if (sb_dumping(c, SBA_DUMP_LIVE)) PHASE(c, SBA_PHASE_LIVE, sb_create_eintervals(c));
    if (upto == SB_TO_LIVE) return SBA_OK;
    PHASE(c, SBA_PHASE_BUILD, sb_build(c));
    if (sb_dumping(c, SBA_DUMP_NODES)) dump_nodes(c);
    return c->ar.failed ? sba_err(c->err, SBA_ERR_NOMEM, "out of memory") : SBA_OK;
}

/* The colouring order of the function's strategy. */
static sba_status order_nodes(sb_ctx *c, uint32_t *order, uint32_t *norder)
{
    if (c->o->strategy == SBA_STRATEGY_BEST_FIT || c->o->strategy == SBA_STRATEGY_GREEDY_SIZE) {
        sb_order_by_size(c, order, norder);
        return SBA_OK;
    }
    return sb_simplify(c, order, norder);
}

sba_status sb_allocate_function(sb_ctx *c)
{
    sba_status st = sb_setup(c);
    uint32_t max_iter = c->o->max_iterations ? c->o->max_iterations : DEFAULT_MAX_ITERATIONS;
    for (c->iteration = 0; st == SBA_OK; c->iteration++) {
        st = sb_front_half(c, SB_TO_BUILD);
        if (st != SBA_OK) break;
        c->rep->iterations = c->iteration + 1;
        uint32_t *order = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *order), norder = 0;
        if (!order) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        PHASE(c, SBA_PHASE_COSTS, sb_find_costs(c));
        PHASE(c, SBA_PHASE_SIMPLIFY, order_nodes(c, order, &norder));
        double t0 = sba_now();
        if (sb_reuse_placed_parts(c) == UINT32_MAX) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        uint32_t failed = sb_select_nodes(c, order, norder);
        c->rep->seconds[SBA_PHASE_SELECT] += sba_now() - t0;
        if (c->ar.failed) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        /* The search: first a repair of the few nodes select left, the
         * rest held; then the failing parts anew; then, where that ran out,
         * the nodes still unplaced one at a time. */
        for (int pass = 0; pass < 3 && failed && c->lower_bound <= c->t->sbuf_bytes; pass++) {
            if ((pass == 0 ? c->repair_left : pass == 1 ? c->search_left : c->insert_left) == 0) continue;
            t0 = sba_now();
            bool packed;
            sba_status sst = pass == 0 ? sb_search_repair(c, &packed)
                             : pass == 1 ? sb_search_packing(c, &packed) : sb_search_insert(c, &packed);
            c->rep->seconds[SBA_PHASE_SEARCH] += sba_now() - t0;
            if (sst != SBA_OK) return sst;
            if (packed) failed = 0;
        }
        if (stuck(c, failed)) failed = sb_reselect_unspillable_first(c);
        if (stuck(c, failed)) {
            PHASE(c, SBA_PHASE_SEARCH, sb_search_unspillable(c));
            failed = sb_select_around_placed(c);
        }
        if (c->ar.failed) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        if (failed) PHASE(c, SBA_PHASE_SPILL, sb_remember_placed_parts(c));
        if (!failed) {
            high_water(c);
            PHASE(c, SBA_PHASE_COMMIT, commit(c));
            sb_log(c, "allocated %u nodes in %u iteration%s", c->n, c->iteration + 1, c->iteration ? "s" : "");
            break;
        }
        /* Partner retry (selectNodeWithPartnerRetry): before anything is
         * spilled, a group that did not fit is tried again as its members. */
        if (c->iteration + 1 < max_iter && sb_split_failed_groups(c)) {
            if (c->keep.failed) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
            continue;
        }
        for (uint32_t i = 0; i < c->n; i++)
            if (c->info[i].rep == i && c->info[i].spill && c->info[i].unspillable && !evict_for(c, i))
                return impossible(c, i);
        if (c->iteration + 1 >= max_iter)
            return sba_err(c->err, SBA_ERR_ALLOC, "cannot allocate function \"%s\" in SB: still spilling after %u "
                           "iterations", c->fn->name, max_iter);
        if (!c->eint) PHASE(c, SBA_PHASE_SPILL, sb_create_eintervals(c));
        PHASE(c, SBA_PHASE_SPILL, sb_insert_spill_code(c));
        st = bir_validate_function(c->fn, c->t, c->err);
    }
    return st;
}

/* sballoc — the SBUF allocator.
 *
 * sba_analyze_module runs the front half of seed 000 (renumber_locations,
 * memloc_split, find_partners, find_first_defs, find_last_uses, find_loads,
 * live_range, create_eintervals, build) on every function and reports what it
 * found. sba_allocate_module runs the whole colourer with its spill fixpoint
 * and writes addr/base/dims/live_n into every SB location.
 *
 * Ownership: the report's arrays are allocated with the module's allocator and
 * freed by sba_alloc_report_free. */
#ifndef SBALLOC_ALLOC_H
#define SBALLOC_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "sballoc/export.h"
#include "sballoc/bir.h"

#ifdef __cplusplus
extern "C" {
#endif
SBA_API_BEGIN

typedef enum sba_strategy {
    SBA_STRATEGY_COLORING = 0, /* the seed's Chaitin-Briggs colourer (default) */
    SBA_STRATEGY_BEST_FIT,     /* decreasing size, best-fitting gap (XLA heap simulator) */
    SBA_STRATEGY_GREEDY_SIZE,  /* TFLite's arena planner order */
    SBA_STRATEGY_COUNT
} sba_strategy;

const char *sba_strategy_name(uint32_t s);
bool sba_strategy_parse(const char *name, uint32_t *out);

/* Dumps, written through the log callback. */
enum {
    SBA_DUMP_NODES = 1u << 0,
    SBA_DUMP_LIVE = 1u << 1,
    SBA_DUMP_IGRAPH = 1u << 2,
    SBA_DUMP_PRESSURE = 1u << 3,
    SBA_DUMP_SPILL = 1u << 4,
};

/* One diagnostic line, without a newline. */
typedef void (*sba_log_fn)(void *ud, const char *line);

typedef struct sba_alloc_options {
    const sba_target *target;  /* NULL: the module's target; else it becomes the module's (bir_module_set_target) */
    uint32_t strategy;         /* sba_strategy */
    sba_log_fn log;            /* NULL: no log; receives the seed's diagnostics */
    void *log_ud;
    uint32_t dump;             /* SBA_DUMP_* */
    uint64_t search_budget;    /* exact packer's work units per function; 0: 4e9 */
    uint32_t max_iterations;   /* spill fixpoint guard; 0: default (256) */
    int64_t dram_page;         /* DRAM scratch alignment and size unit in bytes; 0: 512 */
    uint32_t jobs;             /* threads allocating functions at once; 0 or 1: one. The
                                  result is the same whatever the count. Without effect
                                  when log is set (its lines stay in function order) */
    /* NULL, or called after each function (from the thread that ran it, one
     * call at a time): done of total functions finished. */
    void (*progress)(void *ud, uint32_t done, uint32_t total);
    void *progress_ud;
} sba_alloc_options;

/* The DRAM page when sba_alloc_options.dram_page is 0. */
#define SBA_DEFAULT_DRAM_PAGE 512

typedef enum sba_phase {
    SBA_PHASE_RENUMBER = 0,
    SBA_PHASE_SPLIT,
    SBA_PHASE_PARTNERS,
    SBA_PHASE_ANCHORS,   /* find_first_defs, find_last_uses, find_loads */
    SBA_PHASE_LIVE,      /* live_range, create_eintervals */
    SBA_PHASE_BUILD,
    SBA_PHASE_COSTS,
    SBA_PHASE_SIMPLIFY,
    SBA_PHASE_SELECT,
    SBA_PHASE_SEARCH,
    SBA_PHASE_SPILL,
    SBA_PHASE_COMMIT,
    SBA_PHASE_PSUM,      /* the PSUM allocator, before SBUF */
    SBA_PHASE_DRAM,      /* the DRAM allocator, after SBUF */
    SBA_PHASE_COUNT
} sba_phase;

const char *sba_phase_name(uint32_t p);

enum { SBA_BANDS = 4 };

typedef struct sba_function_report {
    const char *name;
    uint32_t nodes;             /* SbRenumberLocationsCount of the last iteration */
    uint32_t precoloured;
    uint32_t split_clones;      /* TotalSplitSbNodesCount */
    uint32_t partner_groups;
    uint32_t partner_members;
    bool partners_disabled;
    uint64_t edges;
    uint32_t points;
    uint32_t iterations;        /* fixpoint iterations */
    uint32_t spilled;           /* locations spilled, over all iterations */
    uint64_t spilled_bytes;     /* bytes per partition of those */
    uint32_t reloads, stores;   /* spill instructions inserted */
    uint32_t remats;            /* loads re-issued from their DRAM source */
    int64_t capacity;           /* SBUF bytes per partition */
    int64_t high_water[SBA_BANDS];  /* highest used byte per quarter band after select */
    int64_t lower_bound[SBA_BANDS]; /* peak live bytes pinned to each quarter band */
    int64_t lower_bound_total;      /* peak over points of the per-partition average demand */
    int64_t peak_pressure;          /* SB pressure: peak over points of the live bytes × quarters / 4,
                                     * the average demand per partition quarter (1-D: the live bytes) */
    uint64_t search_nodes;          /* exact packer search nodes */
    uint32_t search_outcome;        /* worst over the iterations: 0 not run, 1 packed, 2 infeasible, 3 budget exhausted */
    /* PSUM (src/psum): placed tiles, banks holding at least one, matmul accumulation groups */
    uint32_t psum_tiles, psum_banks_used, psum_accum_groups;
    /* DRAM (src/dram), per address space (bir_addr_space): the scratch region's
     * size and the peak of the live scratch bytes, its lower bound (both in
     * whole pages); placements given an address */
    int64_t dram_scratch_bytes[BIR_AS_COUNT];
    int64_t dram_lower_bound[BIR_AS_COUNT];
    uint32_t dram_placed;
    double seconds[SBA_PHASE_COUNT];
} sba_function_report;

typedef struct sba_alloc_report {
    sba_function_report *fns;
    uint32_t nfns;
    const sba_allocator *a;
} sba_alloc_report;

void sba_alloc_report_free(sba_alloc_report *r);

/* Front half only: fills the report (nodes, edges, pressure, lower bounds)
 * without placing anything. Fails on an input the allocator rejects. */
sba_status sba_analyze_module(bir_module *m, const sba_alloc_options *o, sba_alloc_report *r,
                              sba_error *err);

/* Places every accessed PSUM, SB and DRAM scratch location of every function,
 * in the order of the real pipeline: PSUM banks, then SBUF with its spill
 * fixpoint, then the DRAM scratch (internal tensors and spill homes). On
 * SBA_ERR_ALLOC the module is left with whatever spill code was inserted
 * before the failure. */
sba_status sba_allocate_module(bir_module *m, const sba_alloc_options *o, sba_alloc_report *r,
                               sba_error *err);

SBA_API_END
#ifdef __cplusplus
}
#endif
#endif

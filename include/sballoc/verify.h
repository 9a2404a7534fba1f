/* sballoc — the independent verifier of an allocated module.
 *
 * sba_verify_module proves, from the module alone, that its placements are
 * correct: every accessed SB location obeys the placement rules of the
 * target, and a simulation of the program (loops iteration by iteration)
 * finds, at every read, the bytes still holding the value the read expects.
 * It shares no data structure with the allocator; see docs/verify.md.
 *
 * Errors: SBA_ERR_MODEL for a placement rule (unplaced, start partition,
 * partitions, alignment, capacity, live_n, a PSUM block across a bank
 * boundary, a DRAM scratch range or address off the DRAM page, must-alias
 * DRAM locations apart), SBA_ERR_PROGRAM for a data-flow violation (a read
 * finding another tensor's value or a stale one),
 * SBA_ERR_LIMIT when the simulation would exceed its step budget,
 * SBA_ERR_NOMEM. The messages are listed in docs/errors.md, "Verifier". */
#ifndef SBALLOC_VERIFY_H
#define SBALLOC_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "sballoc/export.h"
#include "sballoc/alloc.h" /* SBA_DEFAULT_DRAM_PAGE */
#include "sballoc/bir.h"

#ifdef __cplusplus
extern "C" {
#endif
SBA_API_BEGIN

/* Default step budget: instruction executions plus one per extra block an
 * operand touches in one execution. */
#define SBA_VERIFY_MAX_STEPS 50000000ull

typedef struct sba_verify_options {
    uint64_t max_steps;  /* 0: SBA_VERIFY_MAX_STEPS */
    bool no_sampling;    /* fail with SBA_ERR_LIMIT rather than sample long loops */
    int64_t dram_page;   /* the page DRAM scratch addresses must be multiples of, as
                            sba_alloc_options.dram_page; 0: SBA_DEFAULT_DRAM_PAGE (512);
                            negative: SBA_ERR_USAGE */
    uint32_t jobs;       /* sba_verify_module_opts: functions verified at once (0 or 1:
                            one at a time); the report and the error are those of a
                            serial run for every count */
} sba_verify_options;

/* Counts, summed over the functions verified. */
typedef struct sba_verify_report {
    uint32_t functions;
    uint64_t tensors;        /* memory location sets of the verified functions */
    uint64_t locations;      /* SB locations whose placement was checked */
    uint64_t psum_locations; /* PSUM locations (bank and addr given) whose placement was checked */
    uint64_t dram_locations; /* DRAM scratch locations (addr given) whose placement was checked */
    uint64_t points;         /* program points executed (loop bodies once per iteration) */
    uint64_t iterations;     /* loop iterations simulated */
    uint64_t steps;          /* budget units used */
    uint64_t reads;          /* (operand, block) reads checked, exit checks included */
    uint64_t bytes;          /* partition-bytes those reads covered */
    uint64_t skipped_reads;  /* reads of values no write has defined yet: nothing to check */
    uint64_t writes;         /* (operand, block) writes that made a new value */
    uint64_t copies;         /* (operand, block) writes that moved a value (spill code) */
    uint64_t values;         /* distinct values created */
    uint64_t segments;       /* SB ownership segments at the end (fragmentation) */
    uint32_t sampled_loops;  /* loops run for their first two and last iterations only */
    bool exhaustive;         /* every loop iteration simulated: the result is a proof */
} sba_verify_report;

/* Verifies one function against the target of its module. opts and rep may
 * be NULL; rep is added to (zero it first). Returns SBA_OK or the first
 * failure, with its message in err. */
sba_status sba_verify_function(const bir_function *fn, const sba_verify_options *opts,
                               sba_verify_report *rep, sba_error *err);

/* Verifies every function with the default options. rep may be NULL; it is
 * zeroed first. */
sba_status sba_verify_module(const bir_module *m, sba_verify_report *rep, sba_error *err);

/* The same with options (NULL: the defaults). */
sba_status sba_verify_module_opts(const bir_module *m, const sba_verify_options *opts,
                                  sba_verify_report *rep, sba_error *err);

SBA_API_END
#ifdef __cplusplus
}
#endif
#endif

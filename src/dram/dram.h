/* The DRAM allocator: addresses in each function's DRAM scratch region.
 *
 * Runs after the SBUF allocator, per function, so that the spill homes it
 * made are placed too. See dram.c and docs/passes.md, "The DRAM allocator". */
#ifndef SBA_DRAM_H
#define SBA_DRAM_H

#include "sballoc/alloc.h"
#include "sballoc/bir.h"

/* True for a DRAM location the allocator places in the scratch: its set is
 * Internal, or it is a spill home (BIR_LOC_SPILL_HOME) of a set that is not
 * an input, an output or a constant. */
bool sba_dram_is_scratch(const bir_location *loc);

/* Gives every accessed scratch location of fn an address (loc->addr) in the
 * region of its set's address space; must-alias groups share one. Fills the
 * DRAM fields of rep (may be NULL). SBA_ERR_MODEL for a must-alias group
 * that spans address spaces or is pre-placed at two addresses. Scratch
 * memory is its own arena. */
sba_status sba_dram_allocate(bir_function *fn, const sba_alloc_options *o, sba_function_report *rep,
                         sba_error *err);

#endif

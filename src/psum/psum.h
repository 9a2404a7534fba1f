/* The PSUM allocator: banks and addresses for the partial-sum buffer.
 *
 * Runs before the SBUF allocator, per function, as the real pipeline does.
 * See psum.c for the rules and docs/passes.md, "The PSUM allocator". */
#ifndef SBA_PSUM_H
#define SBA_PSUM_H

#include "sballoc/alloc.h"
#include "sballoc/bir.h"

/* Places every accessed PSUM location of fn: loc->bank (has_bank) and
 * loc->addr inside it for block 0, the other blocks following (each inside
 * one bank), loc->base by the start-partition rule, live_n, dims and
 * allocated. Pre-placed locations (bank and addr given) stay where they are.
 * Fills the PSUM fields of rep (may be NULL). SBA_ERR_ALLOC when a block is
 * larger than a bank, the blocks cannot be laid out, or the tiles live at
 * some point cannot be placed, SBA_ERR_MODEL for a bad pre-placement.
 * Scratch memory is its own arena. */
sba_status sba_psum_allocate(bir_function *fn, const sba_target *t, const sba_alloc_options *o,
                         sba_function_report *rep, sba_error *err);

#endif

/* Functions in parallel (jobs.c), for the module driver (pipeline.c). */
#ifndef SBA_ALLOC_JOBS_H
#define SBA_ALLOC_JOBS_H

#include "sballoc/alloc.h"
#include "sballoc/bir.h"

/* The driver's work for function f of the module. */
typedef sba_status (*sba_function_job)(void *ud, uint32_t f, sba_function_report *fr, sba_error *err);

/* Runs run(ud, f, &frs[f], ...) for every function on o->jobs threads, each
 * against a private module view (its own arena and id range). Fails with the
 * error of the first failing function in module order; *nrun (when not NULL)
 * gets the functions up to and including it, as a serial run would. frs may
 * be NULL. */
sba_status sba_run_functions(bir_module *m, const sba_alloc_options *o, sba_function_job run, void *ud,
                             sba_function_report *frs, uint32_t *nrun, sba_error *err);

#endif

/* A loop over [0, n) on several threads (each.c). */
#ifndef SBA_BASE_EACH_H
#define SBA_BASE_EACH_H

#include <stdint.h>

#include "sballoc/alloc.h"

/* Runs job(ud, i, err) for every i in [0, n) on `jobs` threads, each with
 * an error of its own; an i after the first failing one (in order) is not
 * started. Returns the status of the first failing i with its error in
 * *err, as a serial loop that stops at the first failure would, and that i
 * in *failed_at (UINT32_MAX: none failed) unless failed_at is NULL. */
typedef sba_status (*sba_each_job)(void *ud, uint32_t i, sba_error *err);
sba_status sba_run_each(uint32_t n, uint32_t jobs, const sba_allocator *a, sba_each_job job, void *ud,
                        uint32_t *failed_at, sba_error *err);

#endif

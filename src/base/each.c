/* sba_run_each: a loop over [0, n) on several threads that reports as the
 * serial loop would. Threads take the next index in turn; an index after
 * the first failing one is never started, and the status and error of the
 * first failing index are returned. The allocator's validation and the
 * verifier use it. */
#include <pthread.h>

#include "base/arena.h"
#include "base/each.h"
#include "base/error.h"

typedef struct each_pool {
    uint32_t n, next, first_fail;
    sba_each_job job;
    void *ud;
    sba_error *errs;
    sba_status *sts;
    pthread_mutex_t lock;
} each_pool;

static void *each_worker(void *arg)
{
    each_pool *P = arg;
    for (;;) {
        pthread_mutex_lock(&P->lock);
        uint32_t i = P->next < P->n && P->next < P->first_fail ? P->next++ : UINT32_MAX;
        pthread_mutex_unlock(&P->lock);
        if (i == UINT32_MAX) return NULL;
        P->sts[i] = P->job(P->ud, i, &P->errs[i]);
        if (P->sts[i] != SBA_OK) {
            pthread_mutex_lock(&P->lock);
            if (i < P->first_fail) P->first_fail = i;
            pthread_mutex_unlock(&P->lock);
        }
    }
}

sba_status sba_run_each(uint32_t n, uint32_t jobs, const sba_allocator *a, sba_each_job job, void *ud,
                        uint32_t *failed_at, sba_error *err)
{
    each_pool P = {.n = n, .first_fail = UINT32_MAX, .job = job, .ud = ud};
    P.errs = sba_malloc(a, (size_t)(n ? n : 1) * sizeof *P.errs);
    P.sts = sba_malloc(a, (size_t)(n ? n : 1) * sizeof *P.sts);
    if (!P.errs || !P.sts) {
        sba_free(a, P.errs);
        sba_free(a, P.sts);
        return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&P.lock, NULL);
    pthread_t tid[64];
    if (jobs > n) jobs = n;
    if (jobs > sizeof tid / sizeof tid[0]) jobs = sizeof tid / sizeof tid[0];
    uint32_t started = 0;
    for (; started + 1 < jobs; started++)
        if (pthread_create(&tid[started], NULL, each_worker, &P) != 0) break;
    each_worker(&P);
    for (uint32_t i = 0; i < started; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&P.lock);
    sba_status st = SBA_OK;
    if (failed_at) *failed_at = P.first_fail;
    if (P.first_fail != UINT32_MAX) {
        st = P.sts[P.first_fail];
        *err = P.errs[P.first_fail];
    }
    sba_free(a, P.errs);
    sba_free(a, P.sts);
    return st;
}

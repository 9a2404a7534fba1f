/* Functions in parallel: the module driver's per-function work on several
 * threads (pipeline.c calls it when sba_alloc_options.jobs > 1).
 *
 * Functions share nothing the allocator writes except their module: its
 * arena (spill code adds placements and instructions) and its unique-id
 * counter. So each function runs against a private copy of the module
 * header, fn->module pointing at it, with an arena of its own and an id
 * range of its own (ids only order placements within a function, so the
 * result is the same as a serial run's, byte for byte). The function's name
 * tables, which allocate from the module arena, are pointed at the private
 * arena for the run. When every function is done, the private arenas join
 * the module's and everything points back at the module, serially.
 *
 * Threads take the next function from a shared counter; the first function
 * (in module order) that failed gives the error, as in a serial run.
 *
 * Requires: a module that bir_validate_module accepted; an allocator hook
 * that may be called from several threads. */
#include <pthread.h>
#include <string.h>

#include "alloc/jobs.h"
#include "base/error.h"
#include "base/strmap.h"

typedef struct slot {
    bir_module shell;  /* the function's view of its module */
    sba_arena ar;      /* what the function allocates while it runs */
    sba_error err;
    sba_status st;
} slot;

typedef struct pool {
    bir_module *m;
    const sba_alloc_options *o;
    sba_function_job run;
    void *ud;
    sba_function_report *frs;
    slot *slots;
    pthread_mutex_t lock;
    uint32_t next, done;
} pool;

/* Points every name table of fn at arena ar. */
static void retarget(bir_function *fn, sba_arena *ar)
{
    fn->set_by_name->ar = ar;
    fn->inst_by_name->ar = ar;
    for (uint32_t i = 0; i < fn->nsets; i++)
        if (fn->sets[i]->loc_by_name) fn->sets[i]->loc_by_name->ar = ar;
}

static void *worker(void *arg)
{
    pool *P = arg;
    for (;;) {
        pthread_mutex_lock(&P->lock);
        uint32_t f = P->next < P->m->nfns ? P->next++ : UINT32_MAX;
        pthread_mutex_unlock(&P->lock);
        if (f == UINT32_MAX) return NULL;
        slot *s = &P->slots[f];
        s->st = P->run(P->ud, f, &P->frs[f], &s->err);
        pthread_mutex_lock(&P->lock);
        P->done++;
        if (P->o->progress) P->o->progress(P->o->progress_ud, P->done, P->m->nfns);
        pthread_mutex_unlock(&P->lock);
    }
}

sba_status sba_run_functions(bir_module *m, const sba_alloc_options *o, sba_function_job run, void *ud,
                            sba_function_report *frs, uint32_t *nrun, sba_error *err)
{
    const sba_allocator *a = m->arena->a;
    uint32_t n = m->nfns;
    slot *slots = sba_malloc(a, (size_t)n * sizeof *slots);
    sba_function_report *own = frs ? NULL : sba_malloc(a, (size_t)n * sizeof *own);
    if (!slots || (!frs && !own)) {
        sba_free(a, slots);
        sba_free(a, own);
        return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    }
    if (!frs) frs = own;
    for (uint32_t f = 0; f < n; f++) {
        slot *s = &slots[f];
        memset(s, 0, sizeof *s);
        sba_arena_init(&s->ar, a);
        s->shell = *m;
        s->shell.arena = &s->ar;
        /* Ids above every id of the module, in a range per function. */
        s->shell.next_unique_id = m->next_unique_id + ((uint64_t)(f + 1) << 32);
        m->fns[f]->module = &s->shell;
        retarget(m->fns[f], &s->ar);
    }
    pool P = {.m = m, .o = o, .run = run, .ud = ud, .frs = frs, .slots = slots};
    pthread_mutex_init(&P.lock, NULL);
    uint32_t jobs = o->jobs < n ? o->jobs : n;
    pthread_t tid[64];
    if (jobs > sizeof tid / sizeof tid[0]) jobs = sizeof tid / sizeof tid[0];
    uint32_t started = 0;
    for (; started + 1 < jobs; started++)
        if (pthread_create(&tid[started], NULL, worker, &P) != 0) break;
    worker(&P); /* this thread works too; fewer threads only take longer */
    for (uint32_t i = 0; i < started; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&P.lock);

    sba_status st = SBA_OK;
    uint32_t ran = n;
    uint64_t next_id = m->next_unique_id;
    for (uint32_t f = 0; f < n; f++) {
        slot *s = &slots[f];
        m->fns[f]->module = m;
        retarget(m->fns[f], m->arena);
        sba_arena_adopt(m->arena, &s->ar);
        if (s->shell.next_unique_id > next_id) next_id = s->shell.next_unique_id;
        if (st == SBA_OK && s->st != SBA_OK) {
            st = s->st;
            *err = s->err;
            ran = f + 1;
        }
    }
    m->next_unique_id = next_id;
    if (nrun) *nrun = ran;
    sba_free(a, slots);
    sba_free(a, own);
    if (st == SBA_OK && bir_module_failed(m)) st = sba_err(err, SBA_ERR_NOMEM, "out of memory");
    return st;
}

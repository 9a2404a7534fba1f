/* Fuzzes the whole pipeline: load, validate, allocate, verify.
 *
 * Any input may be refused (bad input, or a function that cannot be
 * allocated), but then with a status and a non-empty message. An allocation
 * that succeeds must pass the independent verifier; a verifier that runs out
 * of its step budget proves nothing either way and is accepted. The search
 * budget and the fixpoint guard are small so that one input runs in
 * milliseconds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sballoc/alloc.h"
#include "sballoc/bir.h"
#include "sballoc/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const sba_error *err)
{
    fprintf(stderr, "fuzz_pipeline: %s: %s: %s: %s\n", what, sba_status_name(err->code), err->path,
            err->message);
    abort();
}

static void check_error(sba_status st, const sba_error *err, const char *stage)
{
    if (st == SBA_OK || err->code != st) fail(stage, err);
    if (err->message[0] == '\0') fail(stage, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sba_error err;
    bir_module *m = bir_load_buffer((const char *)data, size, "fuzz", NULL, &err);
    if (!m) {
        check_error(err.code, &err, "load: an error without a message");
        return 0;
    }
    sba_alloc_options o = {.search_budget = 20000, .max_iterations = 4};
    sba_alloc_report r;
    sba_status st = sba_allocate_module(m, &o, &r, &err);
    sba_alloc_report_free(&r);
    if (st != SBA_OK) {
        if (st == SBA_ERR_USAGE) fail("allocate: a usage error on a loaded module", &err);
        check_error(st, &err, "allocate: an error without a message");
        bir_module_free(m);
        return 0;
    }
    sba_verify_options vo = {.max_steps = 200000};
    st = sba_verify_module_opts(m, &vo, NULL, &err);
    if (st == SBA_ERR_MODEL || st == SBA_ERR_PROGRAM) fail("the verifier rejects an allocation", &err);
    if (st != SBA_OK) check_error(st, &err, "verify: an error without a message");
    bir_module_free(m);
    return 0;
}

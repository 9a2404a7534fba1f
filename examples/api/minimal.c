/* The smallest complete use of the sballoc library: load a module, allocate
 * its SBUF, prove the allocation with the independent verifier, and print
 * where every SB tensor went.
 *
 *   usage: api_minimal FILE.json
 *
 * Build it against the library (CMake target `api_minimal`, or against an
 * installed copy: cc -std=c11 minimal.c $(pkg-config --cflags --libs sballoc)). Exit status: 0
 * when the module allocates and verifies, 1 otherwise, 2 on bad usage. */
#include <inttypes.h>
#include <stdio.h>

#include "sballoc/alloc.h"  /* sba_allocate_module, the report */
#include "sballoc/bir.h"    /* the module: load, walk, free */
#include "sballoc/verify.h" /* sba_verify_module */

/* Every library call returns a status and, on failure, fills an sba_error
 * with a message and, where it applies, the JSON path or line:column. */
static int fail(const char *what, const sba_error *err)
{
    fprintf(stderr, "api_minimal: %s: %s%s%s\n", what, err->path[0] ? err->path : "", err->path[0] ? ": " : "",
            err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: api_minimal FILE.json\n");
        return 2;
    }
    sba_error err;

    /* 1. Load. NULL selects the C library's malloc; the module owns every
     *    object reachable from it until bir_module_free. The target (trn2
     *    unless the file's "arch" or "target" says otherwise) is m->target. */
    bir_module *m = bir_load_file(argv[1], NULL, &err);
    if (!m) return fail(argv[1], &err);

    /* 2. Allocate. Zeroed options mean: the module's target, the default
     *    colouring strategy, no log. The report is optional (NULL); when
     *    given, it must be released with sba_alloc_report_free. */
    sba_alloc_options opts = {0};
    sba_alloc_report report;
    sba_status st = sba_allocate_module(m, &opts, &report, &err);
    if (st != SBA_OK) {
        sba_alloc_report_free(&report);
        bir_module_free(m);
        return fail("allocation", &err);
    }

    /* 3. Verify. The verifier shares nothing with the allocator: it checks
     *    the placement rules and simulates the program to prove that every
     *    read finds the value it expects. */
    sba_verify_report vrep;
    st = sba_verify_module(m, &vrep, &err);
    if (st != SBA_OK) {
        sba_alloc_report_free(&report);
        bir_module_free(m);
        return fail("verification", &err);
    }
    printf("target %s: %" PRId64 " bytes per partition, %u partitions\n", m->target.name,
           m->target.sbuf_bytes, m->target.partitions);
    printf("verified: %" PRIu64 " reads checked\n", vrep.reads);

    /* 4. Print each SB placement. A set is a logical tensor; its locations
     *    are its placements (spill code may add reload temporaries and DRAM
     *    homes). dims = [partitions, bytes per partition] as placed. */
    for (uint32_t f = 0; f < m->nfns; f++) {
        const bir_function *fn = m->fns[f];
        const sba_function_report *fr = &report.fns[f];
        printf("function %s: %u iterations, %u spilled\n", fn->name, fr->iterations, fr->spilled);
        for (uint32_t s = 0; s < fn->nsets; s++) {
            const bir_set *set = fn->sets[s];
            for (uint32_t l = 0; l < set->nlocs; l++) {
                const bir_location *loc = set->locs[l];
                if (loc->type != BIR_MEM_SB || loc->addr == BIR_NO_ADDR) continue;
                int64_t bytes = loc->has_dims ? loc->dims[1] : bir_set_nblocks(set) * bir_set_bytes_per_block(set);
                int64_t parts = loc->has_dims ? loc->dims[0] : bir_set_partitions(set);
                printf("  %-12s %-14s base %3d  addr %7" PRId64 "  bytes %6" PRId64 "  partitions %3" PRId64 "\n",
                       set->name, loc->name, loc->base, loc->addr, bytes, parts);
            }
        }
    }

    /* 5. Release. The allocated module could be written back first with
     *    bir_save_file(m, "out.json", &err). */
    sba_alloc_report_free(&report);
    bir_module_free(m);
    return 0;
}

/* sballoc check FILE / sballoc fmt FILE [-o OUT].
 *
 * check loads the module, validates every function's program against the
 * target (bir_validate_module: partitions, operand footprints, Matmult into
 * PSUM, reads that no write reaches) and prints a summary; a load or
 * validation error is printed with its JSON path and exits 2. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sballoc/program.h"

static void summary(const bir_module *m)
{
    uint64_t sets = 0, locs = 0, edges = 0, insts = 0, per_type[8] = {0};
    for (uint32_t f = 0; f < m->nfns; f++) {
        const bir_function *fn = m->fns[f];
        sets += fn->nsets;
        insts += fn->ninsts;
        for (uint32_t s = 0; s < fn->nsets; s++)
            for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++) {
                const bir_location *loc = fn->sets[s]->locs[l];
                locs++;
                per_type[__builtin_ctz(loc->type)]++;
                edges += loc->nalias;
            }
    }
    printf("target: %s (%u partitions x %lld bytes SBUF, %u PSUM banks x %u bytes)\n",
           m->target.name, m->target.partitions, (long long)m->target.sbuf_bytes,
           m->target.psum_banks, m->target.psum_bank_bytes);
    printf("functions: %u\nsets: %llu\nlocations: %llu\n", m->nfns, (unsigned long long)sets,
           (unsigned long long)locs);
    for (int i = 0; i < 8; i++)
        if (per_type[i])
            printf("  %-11s %llu\n", bir_memory_type_name(1u << i), (unsigned long long)per_type[i]);
    printf("alias edges: %llu\ninstructions: %llu\n", (unsigned long long)(edges / 2),
           (unsigned long long)insts);
}

int cmd_check(int argc, char **argv)
{
    if (argc != 2) return cli_usage_error("check", "expected one FILE (usage: sballoc check FILE)");
    int rc = EXIT_OK;
    bir_module *m = cli_load(argv[1], &rc);
    if (!m) return rc;
    sba_error err;
    if (bir_validate_module(m, &err) != SBA_OK)
        rc = cli_report(strcmp(argv[1], "-") == 0 ? "<stdin>" : argv[1], &err);
    else
        summary(m);
    bir_module_free(m);
    return rc;
}

int cmd_fmt(int argc, char **argv)
{
    const char *in = NULL, *out = "-";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (++i == argc) return cli_usage_error("fmt", "-o needs a file name");
            out = argv[i];
        } else if (!in) {
            in = argv[i];
        } else {
            return cli_usage_error("fmt", "unexpected argument \"%s\"", argv[i]);
        }
    }
    if (!in) return cli_usage_error("fmt", "expected a FILE (usage: sballoc fmt FILE [-o OUT])");
    int rc = EXIT_OK;
    bir_module *m = cli_load(in, &rc);
    if (!m) return rc;
    sba_error err;
    if (bir_save_file(m, out, &err) != SBA_OK) rc = cli_report(out, &err);
    bir_module_free(m);
    return rc;
}

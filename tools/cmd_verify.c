/* sballoc verify FILE: prove a placed module correct by simulation.
 *
 * Loads and validates FILE (bad input: exit 2), then runs the independent
 * verifier (include/sballoc/verify.h). Prints one summary line and exits 0,
 * or prints the first failure and exits 1. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sballoc/program.h"
#include "sballoc/verify.h"

int cmd_verify(int argc, char **argv)
{
    if (argc != 2) return cli_usage_error("verify", "expected one FILE (usage: sballoc verify FILE)");
    const char *file = argv[1], *shown = strcmp(file, "-") == 0 ? "<stdin>" : file;
    int rc = EXIT_OK;
    bir_module *m = cli_load(file, &rc);
    if (!m) return rc;
    sba_error err;
    sba_verify_report rep;
    if (bir_validate_module(m, &err) != SBA_OK) {
        rc = cli_report(shown, &err);
    } else if (sba_verify_module(m, &rep, &err) != SBA_OK) {
        rc = cli_report(shown, &err);
        if (err.code == SBA_ERR_MODEL || err.code == SBA_ERR_PROGRAM) rc = EXIT_CHECK;
    } else {
        printf("verified: %u functions, %llu reads checked (%llu partition-bytes), %llu SB locations, "
               "%llu points simulated%s\n",
               rep.functions, (unsigned long long)rep.reads, (unsigned long long)rep.bytes,
               (unsigned long long)rep.locations, (unsigned long long)rep.points,
               rep.exhaustive ? "" : " (long loops sampled: not exhaustive)");
    }
    bir_module_free(m);
    return rc;
}

/* sballoc verify FILE [--target T] [--sb-align N] [--dram-page N]: prove a
 * placed module correct by simulation.
 *
 * Loads and validates FILE (bad input: exit 2), then runs the independent
 * verifier (include/sballoc/verify.h) against the target preset T (default:
 * the module's own geometry; a compiler dump names none), SB addresses
 * checked against the alignment N instead of the target's (another
 * allocator's placements need not follow sballoc's 32 bytes), with DRAM scratch
 * addresses checked against the page N (default 512: the allocator's
 * default). Prints one summary line and exits 0, or prints the first failure
 * and exits 1. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sballoc/program.h"
#include "sballoc/verify.h"

#define VERIFY_USAGE "usage: sballoc verify FILE [--target trn1|trn2|trn3] [--sb-align N] [--dram-page N]"

int cmd_verify(int argc, char **argv)
{
    const char *file = NULL;
    const sba_target *target = NULL;
    int64_t sb_align = 0;
    sba_verify_options vo = {.dram_page = 0};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            printf("%s\n", VERIFY_USAGE);
            return EXIT_OK;
        } else if (!strcmp(s, "--dram-page")) {
            if (i + 1 == argc) return cli_usage_error("verify", "%s needs a value", s);
            const char *v = argv[++i];
            if (!cli_parse_dram_page(v, &vo.dram_page))
                return cli_usage_error("verify", "--dram-page: expected a positive power of two, got \"%s\"", v);
        } else if (!strcmp(s, "--sb-align")) {
            if (i + 1 == argc) return cli_usage_error("verify", "%s needs a value", s);
            const char *v = argv[++i];
            if (!cli_parse_dram_page(v, &sb_align) || sb_align > (1 << 16))
                return cli_usage_error("verify", "--sb-align: expected a power of two up to 65536, got \"%s\"", v);
        } else if (!strcmp(s, "--target")) {
            if (i + 1 == argc) return cli_usage_error("verify", "%s needs a value", s);
            const char *v = argv[++i];
            if (!(target = sba_target_preset(v)))
                return cli_usage_error("verify", "unknown target \"%s\" (expected trn1, trn2 or trn3)", v);
        } else if (s[0] == '-' && s[1]) {
            return cli_usage_error("verify", "unknown option \"%s\" (%s)", s, VERIFY_USAGE);
        } else if (!file) {
            file = s;
        } else {
            return cli_usage_error("verify", "expected one FILE (%s)", VERIFY_USAGE);
        }
    }
    if (!file) return cli_usage_error("verify", "expected one FILE (%s)", VERIFY_USAGE);
    const char *shown = strcmp(file, "-") == 0 ? "<stdin>" : file;
    int rc = EXIT_OK;
    bir_module *m = cli_load(file, &rc);
    if (!m) return rc;
    if (target) m->target = *target;
    if (sb_align) m->target.sbuf_align = (uint32_t)sb_align;
    sba_error err;
    sba_verify_report rep;
    if (bir_validate_module(m, &err) != SBA_OK) {
        rc = cli_report(shown, &err);
    } else if (sba_verify_module_opts(m, &vo, &rep, &err) != SBA_OK) {
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

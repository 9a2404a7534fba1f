/* sballoc gen [--seed N] [--tensors N] [--loop-depth D] [--heights MIX]
 *             [--pressure X] [--target trn1|trn2|trn3] [--functions N] [-o OUT]
 * sballoc gen --planted [--seed N] [--tensors N] [--heights MIX] [--capacity B]
 *             [--span T] [--min-size B] [--holes PCT [--fill-holes]] [--elongation N] [--walls]
 *             [-o OUT] [--solution FILE]
 *
 * Writes a generated kernel (see include/sballoc/gen.h) as JSON; with
 * --planted, a packing instance with a known zero-slack packing
 * (src/gen/planted.c), and with --solution FILE that packing too, as the
 * same module allocated (`sballoc verify FILE` checks it). Every option
 * value is checked here for its syntax and by the generator for its range;
 * either failure is a usage error (exit 2). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sballoc/gen.h"

static const char USAGE[] = "usage: sballoc gen [--seed N] [--tensors N] [--loop-depth D] "
                            "[--heights MIX] [--pressure X] [--target trn1|trn2|trn3] [--functions N] [-o OUT]\n"
                            "       sballoc gen --planted [--seed N] [--tensors N] [--heights MIX] "
                            "[--capacity B] [--span T] [--min-size B] [--holes PCT [--fill-holes]] [--elongation N] [--walls] [-o OUT] "
                            "[--solution FILE]";

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (*s < '0' || *s > '9') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) return false;
    *out = v;
    return true;
}

static bool parse_real(const char *s, double *out)
{
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

int cmd_gen(int argc, char **argv)
{
    sba_gen_options o;
    sba_gen_defaults(&o);
    sba_planted_options po;
    sba_planted_defaults(&po);
    const char *out = "-", *solution = NULL, *only_plain = NULL, *only_planted = NULL;
    bool planted = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--planted")) planted = true;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            printf("%s\n", USAGE);
            return EXIT_OK;
        }
        if (!strcmp(opt, "--planted")) continue;
        bool *flag = !strcmp(opt, "--walls") ? &po.walls : !strcmp(opt, "--fill-holes") ? &po.fill_holes : NULL;
        if (flag) {
            *flag = true;
            only_planted = opt;
            continue;
        }
        if (i + 1 == argc) {
            if (opt[0] == '-') return cli_usage_error("gen", "%s needs a value (%s)", opt, USAGE);
            return cli_usage_error("gen", "unexpected argument \"%s\" (%s)", opt, USAGE);
        }
        const char *v = argv[++i];
        uint64_t n;
        if (!strcmp(opt, "--seed")) {
            if (!parse_u64(v, UINT64_MAX, &n))
                return cli_usage_error("gen", "--seed: \"%s\" is not an unsigned integer", v);
            o.seed = po.seed = n;
        } else if (!strcmp(opt, "--tensors")) {
            if (!parse_u64(v, UINT32_MAX, &n))
                return cli_usage_error("gen", "--tensors: \"%s\" is not a count", v);
            o.tensors = po.tensors = (uint32_t)n;
        } else if (!strcmp(opt, "--capacity") || !strcmp(opt, "--min-size")) {
            if (!parse_u64(v, (uint64_t)1 << 40, &n))
                return cli_usage_error("gen", "%s: \"%s\" is not a byte count", opt, v);
            if (opt[2] == 'c') po.capacity = (int64_t)n;
            else po.min_size = (int64_t)n;
            only_planted = opt;
        } else if (!strcmp(opt, "--span")) {
            if (!parse_u64(v, UINT32_MAX, &n) || n == 0)
                return cli_usage_error("gen", "--span: \"%s\" is not a count of time steps", v);
            po.span = (uint32_t)n;
            only_planted = opt;
        } else if (!strcmp(opt, "--elongation")) {
            if (!parse_u64(v, UINT32_MAX, &n))
                return cli_usage_error("gen", "--elongation: \"%s\" is not a count", v);
            po.elongation = (uint32_t)n;
            only_planted = opt;
        } else if (!strcmp(opt, "--holes")) {
            if (!parse_u64(v, UINT32_MAX, &n))
                return cli_usage_error("gen", "--holes: \"%s\" is not a percent", v);
            po.holes = (uint32_t)n;
            only_planted = opt;
        } else if (!strcmp(opt, "--solution")) {
            solution = v;
            only_planted = opt;
        } else if (!strcmp(opt, "--loop-depth")) {
            if (!parse_u64(v, UINT32_MAX, &n))
                return cli_usage_error("gen", "--loop-depth: \"%s\" is not a depth", v);
            o.loop_depth = (uint32_t)n;
            only_plain = opt;
        } else if (!strcmp(opt, "--functions")) {
            if (!parse_u64(v, UINT32_MAX, &n) || n == 0)
                return cli_usage_error("gen", "--functions: \"%s\" is not a positive count", v);
            o.functions = (uint32_t)n;
            only_plain = opt;
        } else if (!strcmp(opt, "--heights")) {
            o.heights = po.heights = v;
        } else if (!strcmp(opt, "--pressure")) {
            only_plain = opt;
            if (!parse_real(v, &o.pressure))
                return cli_usage_error("gen", "--pressure: \"%s\" is not a number", v);
        } else if (!strcmp(opt, "--target")) {
            only_plain = opt;
            if (!(o.target = sba_target_preset(v)))
                return cli_usage_error("gen", "--target: unknown target \"%s\" (trn1, trn2, trn3)", v);
        } else if (!strcmp(opt, "-o")) {
            out = v;
        } else {
            return cli_usage_error("gen", "unknown option \"%s\" (%s)", opt, USAGE);
        }
    }
    if (planted && only_plain) return cli_usage_error("gen", "%s does not apply to --planted", only_plain);
    if (!planted && only_planted) return cli_usage_error("gen", "%s applies only to --planted", only_planted);
    sba_error err;
    bir_module *m = planted ? sba_gen_planted(&po, false, NULL, &err) : sba_gen_module(&o, NULL, &err);
    if (!m) {
        if (err.code == SBA_ERR_USAGE) return cli_usage_error("gen", "%s", err.message);
        return cli_report("gen", &err);
    }
    int rc = EXIT_OK;
    if (bir_save_file(m, out, &err) != SBA_OK) rc = cli_report(out, &err);
    bir_module_free(m);
    if (rc == EXIT_OK && solution) {
        if (!(m = sba_gen_planted(&po, true, NULL, &err))) return cli_report("gen", &err);
        if (bir_save_file(m, solution, &err) != SBA_OK) rc = cli_report(solution, &err);
        bir_module_free(m);
    }
    return rc;
}

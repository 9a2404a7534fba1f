/* sballoc import-csv / export-csv / check-csv: MiniMalloc CSV interop.
 *
 *   import-csv FILE.csv --capacity N [-o OUT]   a problem as a BIR module (JSON)
 *   export-csv FILE [-o OUT]                    an allocated module as a CSV solution
 *   check-csv FILE.csv --capacity N             check a CSV solution on its own
 *
 * The encoding is in src/bir/csv.c and docs/format.md, "CSV interop". Input
 * errors print FILE:LINE:COL and exit 2; a packing that breaks a rule, or a
 * module that spilled, exits 1. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sballoc/csv.h"

typedef struct csv_args {
    const char *in, *out;
    int64_t capacity;     /* 0: not given */
} csv_args;

static bool parse_capacity(const char *s, int64_t *out)
{
    if (*s < '0' || *s > '9') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < 1 || v > (unsigned long long)SBA_CSV_MAX_CAPACITY) return false;
    *out = (int64_t)v;
    return true;
}

/* FILE, and -o OUT and --capacity N where `usage` mentions them. */
static int parse(const char *cmd, const char *usage, int argc, char **argv, csv_args *a)
{
    bool want_out = strstr(usage, "-o OUT") != NULL, want_cap = strstr(usage, "--capacity") != NULL;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            printf("usage: sballoc %s %s\n", cmd, usage);
            return -1;
        }
        if ((want_out && !strcmp(s, "-o")) || (want_cap && !strcmp(s, "--capacity"))) {
            if (i + 1 == argc) return cli_usage_error(cmd, "%s needs a value (usage: sballoc %s %s)", s, cmd, usage);
            const char *v = argv[++i];
            if (!strcmp(s, "-o")) a->out = v;
            else if (!parse_capacity(v, &a->capacity))
                return cli_usage_error(cmd, "--capacity: \"%s\" is not a byte count from 1 to %lld", v,
                                       (long long)SBA_CSV_MAX_CAPACITY);
        } else if (s[0] == '-' && s[1]) {
            return cli_usage_error(cmd, "unknown option \"%s\" (usage: sballoc %s %s)", s, cmd, usage);
        } else if (!a->in) {
            a->in = s;
        } else {
            return cli_usage_error(cmd, "unexpected argument \"%s\" (usage: sballoc %s %s)", s, cmd, usage);
        }
    }
    if (!a->in) return cli_usage_error(cmd, "expected a FILE (usage: sballoc %s %s)", cmd, usage);
    if (want_cap && !a->capacity)
        return cli_usage_error(cmd, "--capacity N is required (usage: sballoc %s %s)", cmd, usage);
    return EXIT_OK;
}

static const char *shown(const char *file) { return strcmp(file, "-") == 0 ? "<stdin>" : file; }

int cmd_import_csv(int argc, char **argv)
{
    csv_args a = {.out = "-"};
    int rc = parse("import-csv", "FILE.csv --capacity N [-o OUT]", argc, argv, &a);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    sba_error err;
    bir_module *m = sba_csv_import_file(a.in, a.capacity, NULL, &err);
    if (!m) return cli_report(shown(a.in), &err);
    if (bir_save_file(m, a.out, &err) != SBA_OK) rc = cli_report(a.out, &err);
    bir_module_free(m);
    return rc;
}

int cmd_export_csv(int argc, char **argv)
{
    csv_args a = {.out = "-"};
    int rc = parse("export-csv", "FILE [-o OUT]", argc, argv, &a);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    bir_module *m = cli_load(a.in, &rc);
    if (!m) return rc;
    sba_error err;
    if (sba_csv_export_file(m, a.out, &err) != SBA_OK)
        rc = cli_report(err.code == SBA_ERR_IO ? a.out : shown(a.in), &err);
    bir_module_free(m);
    return rc;
}

int cmd_check_csv(int argc, char **argv)
{
    csv_args a = {0};
    int rc = parse("check-csv", "FILE.csv --capacity N", argc, argv, &a);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    sba_error err;
    sba_csv_check_report r;
    if (sba_csv_check_file(a.in, a.capacity, &r, NULL, &err) != SBA_OK) return cli_report(shown(a.in), &err);
    printf("%s: a valid packing: %u buffers, %llu conflicting pairs, peak live %lld, peak used %lld of %lld\n",
           shown(a.in), r.buffers, (unsigned long long)r.conflicts, (long long)r.peak_live, (long long)r.peak_used,
           (long long)a.capacity);
    return EXIT_OK;
}

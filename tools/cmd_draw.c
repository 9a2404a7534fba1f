/* sballoc draw FILE [-o OUT.svg]: the picture of an allocated module.
 *
 * Loads FILE (a module written by `sballoc alloc`, or any module: unplaced
 * SB placements are counted, not drawn) and writes the SVG of
 * src/report/svg.c to OUT, standard output by default or with "-". */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sballoc/draw.h"

int cmd_draw(int argc, char **argv)
{
    const char *in = NULL, *out = "-";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 == argc) return cli_usage_error("draw", "-o needs a value");
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("draw", "unknown option \"%s\"", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else {
            return cli_usage_error("draw", "unexpected argument \"%s\"", argv[i]);
        }
    }
    if (!in) return cli_usage_error("draw", "expected a FILE");
    int rc = EXIT_OK;
    bir_module *m = cli_load(in, &rc);
    if (!m) return rc;
    bool to_stdout = !strcmp(out, "-");
    FILE *f = to_stdout ? stdout : fopen(out, "w");
    sba_error err;
    if (!f) {
        fprintf(stderr, "sballoc: %s: error: cannot open for writing\n", out);
        rc = EXIT_BAD;
    } else {
        if (sba_draw_svg(m, NULL, f, &err) != SBA_OK) rc = cli_report(out, &err);
        if ((to_stdout ? fflush(f) : fclose(f)) != 0 && rc == EXIT_OK) {
            fprintf(stderr, "sballoc: %s: error: cannot write\n", out);
            rc = EXIT_BAD;
        }
    }
    bir_module_free(m);
    return rc;
}

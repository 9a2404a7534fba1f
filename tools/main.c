/* sballoc: the command-line driver. Each subcommand lives in its own cmd_*.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"check", "FILE", "load and validate a BIR module, print a summary", cmd_check},
    {"fmt", "FILE [-o OUT]", "re-save a module in the canonical layout", cmd_fmt},
    {"show", "FILE", "print each function's program points and operand footprints", cmd_show},
    {"analyze", "FILE [--target T] [--log] [--dump=LIST]", "run the allocator's front half and report", cmd_analyze},
    {"alloc", "FILE [-o OUT] [--target T] [--strategy S] [--dram-page N] [--report[=json]] [--svg FILE] [--log] [--dump=LIST] [--no-verify]", "allocate PSUM, SBUF and DRAM scratch and write the result (alloc --help)", cmd_alloc},
    {"verify", "FILE [--target T] [--sb-align N] [--dram-page N]", "prove the placements correct by simulating the program", cmd_verify},
    {"gen", "[--seed N] [--tensors N] [-o OUT] ...", "generate a seeded realistic kernel (gen --help)", cmd_gen},
    {"draw", "FILE [-o OUT.svg]", "draw an allocated module's placements as SVG", cmd_draw},
    {"import-csv", "FILE.csv --capacity N [-o OUT]", "turn a MiniMalloc CSV problem into a module", cmd_import_csv},
    {"export-csv", "FILE [-o OUT]", "write an allocated module as a MiniMalloc CSV solution", cmd_export_csv},
    {"check-csv", "FILE.csv --capacity N", "check a CSV solution is a valid packing", cmd_check_csv},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: sballoc COMMAND [ARGS]\n\n"
               "SBUF allocator for tensor-accelerator BIR modules.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %s %s\n      %s\n", commands[i].name, commands[i].args, commands[i].help);
    fprintf(f, "\n  --help     show this text\n  --version  show the version\n\n"
               "FILE may be '-' for standard input, OUT '-' for standard output.\n"
               "Exit status: 0 ok, 1 a check failed, 2 bad usage or bad input.\n");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sballoc: %s%s", cmd ? cmd : "", cmd ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return EXIT_BAD;
}

int cli_report(const char *file, const sba_error *err)
{
    if (err->line > 0)
        fprintf(stderr, "sballoc: %s:%d:%d: error: %s\n", file, err->line, err->column, err->message);
    else if (err->path[0])
        fprintf(stderr, "sballoc: %s: error: %s: %s\n", file, err->path, err->message);
    else
        fprintf(stderr, "sballoc: %s: error: %s\n", file, err->message);
    return err->code == SBA_ERR_ALLOC ? EXIT_CHECK : EXIT_BAD;
}

bool cli_parse_dram_page(const char *s, int64_t *out)
{
    if (*s < '1' || *s > '9') return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v > (1ll << 40) || (v & (v - 1))) return false;
    *out = v;
    return true;
}

bir_module *cli_load(const char *file, int *exit_code)
{
    sba_error err;
    bir_module *m = bir_load_file(file, NULL, &err);
    if (!m) *exit_code = cli_report(strcmp(file, "-") == 0 ? "<stdin>" : file, &err);
    for (uint32_t i = 0; m && i < m->nwarnings; i++)
        fprintf(stderr, "sballoc: %s: warning: %s\n", strcmp(file, "-") == 0 ? "<stdin>" : file, m->warnings[i]);
    return m;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("sballoc %s\n", SBALLOC_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    return cli_usage_error(NULL, "unknown command \"%s\" (see sballoc --help)", argv[1]);
}

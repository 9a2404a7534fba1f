/* The command-line tool's shared helpers: error printing and exit codes.
 * Exit 0 ok, 1 a check failed (or the function cannot be allocated),
 * 2 bad usage or bad input. */
#ifndef SBALLOC_CLI_H
#define SBALLOC_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sballoc/bir.h"

enum { EXIT_OK = 0, EXIT_CHECK = 1, EXIT_BAD = 2 };

typedef struct cli_command {
    const char *name;
    const char *args;
    const char *help;
    int (*run)(int argc, char **argv);
} cli_command;

/* Prints "sballoc: FILE:LINE:COL: error: MSG" (or with the JSON path) and
 * returns the exit code the error deserves. */
int cli_report(const char *file, const sba_error *err);
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses the value of --dram-page: a positive power of two, in bytes, at most
 * 2^40. False when it is not one. */
bool cli_parse_dram_page(const char *s, int64_t *out);
/* Loads FILE ("-" = stdin); prints the error and returns NULL on failure. */
bir_module *cli_load(const char *file, int *exit_code);

int cmd_check(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_alloc(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_draw(int argc, char **argv);
int cmd_import_csv(int argc, char **argv);
int cmd_export_csv(int argc, char **argv);
int cmd_check_csv(int argc, char **argv);

#endif

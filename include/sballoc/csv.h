/* sballoc — interop with MiniMalloc's CSV problem format.
 *
 * A MiniMalloc problem lists buffers, one a line, under the header
 * `id,lower,upper,size`: buffer `id` needs `size` bytes during the half-open
 * lifespan [lower, upper). Two buffers conflict iff their lifespans intersect;
 * conflicting buffers need disjoint byte ranges [offset, offset + size) below
 * the capacity. Optional columns: `alignment` (the offset must be a multiple),
 * `offset` (in a problem: the buffer is fixed there; in a solution: where it
 * was placed), and `hint`, `gaps` (read and ignored). The legacy headers
 * `begin` or `start` name `lower`, and `end` an inclusive upper bound.
 *
 * sba_csv_import turns a problem into a BIR module whose allocation is the
 * same packing problem, sba_csv_export writes an allocated module back as a
 * solution, and sba_csv_check checks a solution on its own. docs/format.md,
 * "CSV interop", gives the encoding. */
#ifndef SBALLOC_CSV_H
#define SBALLOC_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "sballoc/export.h"
#include "sballoc/bir.h"

#ifdef __cplusplus
extern "C" {
#endif
SBA_API_BEGIN

/* The largest capacity: the target's limit on SB bytes per partition. */
#define SBA_CSV_MAX_CAPACITY (INT64_C(1) << 32)

/* Builds a module from CSV text: one function "csv", one full-height SB
 * tensor per buffer, named by its id, and a program whose liveness is exactly
 * the lifespans. `capacity` (1 to SBA_CSV_MAX_CAPACITY) becomes the target's SB bytes per
 * partition. Errors carry line and column: SBA_ERR_PARSE for text that is not
 * a table of integers, SBA_ERR_SCHEMA for a bad header or a value out of
 * range, SBA_ERR_USAGE for a bad capacity, SBA_ERR_NOMEM. Returns NULL on
 * failure; the caller frees the module with bir_module_free. */
bir_module *sba_csv_import(const char *text, size_t len, int64_t capacity, const sba_allocator *a,
                           sba_error *err);
/* The same from a path; "-" is standard input. */
bir_module *sba_csv_import_file(const char *path, int64_t capacity, const sba_allocator *a,
                                sba_error *err);

/* Writes the module's one function as a CSV solution: `id,lower,upper,size`,
 * then `alignment` when the import had that column, then `offset`, the SB
 * address of each buffer, in the order of the function's sets. The module
 * must follow the import's conventions (SBA_ERR_SCHEMA otherwise) and be
 * allocated without spilling (SBA_ERR_ALLOC names a spilled or unplaced
 * buffer). *out is allocated with the module's allocator and ends with a
 * newline; free it with bir_free_text. */
sba_status sba_csv_export(const bir_module *m, char **out, size_t *len, sba_error *err);
/* The same to a path; "-" is standard output. */
sba_status sba_csv_export_file(const bir_module *m, const char *path, sba_error *err);

typedef struct sba_csv_check_report {
    uint32_t buffers;
    uint64_t conflicts;   /* pairs of buffers whose lifespans intersect */
    int64_t peak_live;    /* most bytes live at one time: a lower bound on any packing */
    int64_t peak_used;    /* highest offset + size */
} sba_csv_check_report;

/* Checks a CSV solution against `capacity`, sharing nothing with the
 * allocator: every buffer has an offset, 0 <= offset, offset + size <=
 * capacity, offset is a multiple of its alignment, and no two conflicting
 * buffers overlap. A broken rule is SBA_ERR_ALLOC with the line and column of
 * the offending offset; the text's own errors are as for sba_csv_import.
 * rep may be NULL; it is filled as far as the check got. */
sba_status sba_csv_check(const char *text, size_t len, int64_t capacity, sba_csv_check_report *rep,
                         const sba_allocator *a, sba_error *err);
/* The same from a path; "-" is standard input. */
sba_status sba_csv_check_file(const char *path, int64_t capacity, sba_csv_check_report *rep,
                              const sba_allocator *a, sba_error *err);

SBA_API_END
#ifdef __cplusplus
}
#endif
#endif

/* sballoc — errors and the memory hook shared by every part of the library.
 *
 * The library never exits or aborts on bad input: each fallible call returns a
 * status and fills an optional sba_error. Only the command-line tool turns an
 * error into "file:line:col: error: ..." and an exit code. */
#ifndef SBALLOC_ERROR_H
#define SBALLOC_ERROR_H

#include <stddef.h>
#include <stdint.h>

#include "sballoc/export.h"

#ifdef __cplusplus
extern "C" {
#endif
SBA_API_BEGIN

typedef enum sba_status {
    SBA_OK = 0,
    SBA_ERR_IO,        /* a file could not be read or written */
    SBA_ERR_PARSE,     /* the text is not JSON: line and column are set */
    SBA_ERR_SCHEMA,    /* JSON of the wrong shape: path says where */
    SBA_ERR_MODEL,     /* a rule of the memory-location model is broken */
    SBA_ERR_PROGRAM,   /* the program (instructions, loops, operands) is invalid */
    SBA_ERR_ALLOC,     /* the function cannot be allocated */
    SBA_ERR_NOMEM,     /* the host ran out of memory */
    SBA_ERR_LIMIT,     /* an input exceeds a documented limit */
    SBA_ERR_USAGE,     /* the API or the CLI was called wrongly */
    SBA_STATUS_COUNT
} sba_status;

const char *sba_status_name(sba_status s);

/* Where an error was found: a parser position, a JSON path, or both empty. */
typedef struct sba_error {
    sba_status code;
    int line, column;     /* 1-based; 0 when unknown */
    char path[256];       /* JSON path such as functions[0].allocations[3].name */
    char message[768];
} sba_error;

/* The one memory hook of the library. Every byte the model, the loader's
 * document, the allocators, the verifier and the writers take comes from
 * here, so tests can make the Nth allocation fail. NULL means the C library's
 * malloc/realloc/free. Two things take memory of their own: jansson, which
 * re-parses a text the loader rejected (for its message and line:column),
 * allocates with malloc; and the threads of sba_alloc_options.jobs take their
 * stacks from the C library. */
typedef struct sba_allocator {
    void *(*alloc)(void *ud, size_t size);
    void *(*realloc)(void *ud, void *ptr, size_t size);
    void (*free)(void *ud, void *ptr);
    void *ud;
} sba_allocator;

const sba_allocator *sba_default_allocator(void);

SBA_API_END
#ifdef __cplusplus
}
#endif
#endif

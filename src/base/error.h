/* Filling an sba_error. Every setter accepts a NULL error and returns the code. */
#ifndef SBA_BASE_ERROR_H
#define SBA_BASE_ERROR_H

#include "sballoc/error.h"

#if defined(__GNUC__)
#define SBA_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SBA_PRINTF(a, b)
#endif

/* Sets code and message; keeps no position. */
sba_status sba_err(sba_error *err, sba_status code, const char *fmt, ...) SBA_PRINTF(3, 4);
/* Sets code, JSON path and message. */
sba_status sba_err_path(sba_error *err, sba_status code, const char *path, const char *fmt, ...)
    SBA_PRINTF(4, 5);
/* Sets code, line:column and message. */
sba_status sba_err_pos(sba_error *err, sba_status code, int line, int column, const char *fmt, ...)
    SBA_PRINTF(5, 6);
void sba_error_clear(sba_error *err);
/* Appends printf-style text at buf + *len (size bytes in all), truncating,
 * and advances *len; buf stays NUL-terminated. For messages built in parts. */
void sba_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...) SBA_PRINTF(4, 5);

#endif

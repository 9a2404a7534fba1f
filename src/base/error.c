/* Error reporting: see error.h. */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const status_names[SBA_STATUS_COUNT] = {
    "ok", "io", "parse", "schema", "model", "program", "alloc", "nomem", "limit", "usage",
};

const char *sba_status_name(sba_status s)
{
    return (unsigned)s < SBA_STATUS_COUNT ? status_names[s] : "unknown";
}

void sba_error_clear(sba_error *err)
{
    if (err) memset(err, 0, sizeof *err);
}

/* The format attribute lets clang check the callers' formats, not this one. */
static void fill(sba_error *err, sba_status code, const char *fmt, va_list ap) SBA_PRINTF(3, 0);
static void fill(sba_error *err, sba_status code, const char *fmt, va_list ap)
{
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
}

sba_status sba_err(sba_error *err, sba_status code, const char *fmt, ...)
{
    if (!err) return code;
    sba_error_clear(err);
    va_list ap;
    va_start(ap, fmt);
    fill(err, code, fmt, ap);
    va_end(ap);
    return code;
}

sba_status sba_err_path(sba_error *err, sba_status code, const char *path, const char *fmt, ...)
{
    if (!err) return code;
    sba_error_clear(err);
    /* A path too long for the field keeps its end, which names the spot. */
    size_t n = path ? strlen(path) : 0;
    if (n < sizeof err->path)
        snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    else
        snprintf(err->path, sizeof err->path, "...%s", path + n - (sizeof err->path - 4));
    va_list ap;
    va_start(ap, fmt);
    fill(err, code, fmt, ap);
    va_end(ap);
    return code;
}

sba_status sba_err_pos(sba_error *err, sba_status code, int line, int column, const char *fmt, ...)
{
    if (!err) return code;
    sba_error_clear(err);
    err->line = line;
    err->column = column;
    va_list ap;
    va_start(ap, fmt);
    fill(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void sba_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0) *len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

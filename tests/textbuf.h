/* A fixed-size text buffer the tests build their JSON modules in: put()
 * appends printf-style and fails the test when the text would not fit. */
#ifndef SBALLOC_TESTS_TEXTBUF_H
#define SBALLOC_TESTS_TEXTBUF_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

typedef struct buf {
    char s[65536];
    size_t n;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    cr_assert(w >= 0 && (size_t)w < sizeof b->s - b->n, "test text too long");
    b->n += (size_t)w;
}

#endif

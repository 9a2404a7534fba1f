/* JSON: a read-only document parsed in one pass, and a streaming writer.
 *
 * The document API mirrors the jansson accessors the loader was written
 * against (json_object_get -> sba_json_object_get, json_array_foreach ->
 * sba_json_array_foreach, ...), so a walk written for one reads the same on
 * the other. The grammar accepted is exactly jansson's with
 * JSON_REJECT_DUPLICATES: RFC 8259, UTF-8 checked, no "\u0000", duplicate keys
 * refused, integers in the signed 64-bit range, reals that do not overflow,
 * at most 2048 nested values. It reports only *where* it stopped; a caller
 * that needs jansson's message and line:column re-parses a rejected text with
 * jansson (bir_load_buffer does).
 *
 * The writer produces jansson's layout byte for byte: JSON_INDENT(2), or
 * JSON_COMPACT for single values, strings escaped as jansson escapes them,
 * reals as "%.17g" with jansson's touch-ups.
 *
 * Ownership: every value lives in its document and is freed by
 * sba_json_doc_free. Values are 16 bytes; an object member adds its key
 * pointer, and keys are interned once per document. */
#ifndef SBA_JSON_H
#define SBA_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"

typedef enum sba_json_type {
    SBA_JSON_OBJECT,
    SBA_JSON_ARRAY,
    SBA_JSON_STRING,
    SBA_JSON_INTEGER,
    SBA_JSON_REAL,
    SBA_JSON_TRUE,
    SBA_JSON_FALSE,
    SBA_JSON_NULL
} sba_json_type;

typedef int64_t sba_json_int_t;
typedef struct sba_json sba_json;

/* One value. Arrays and objects hold their n members contiguously in kids;
 * an object's n key pointers follow its kids. Strings are NUL-terminated and
 * n bytes long. */
struct sba_json {
    uint32_t type; /* sba_json_type */
    uint32_t n;
    union {
        int64_t i;
        double d;
        const char *s;
        sba_json *kids;
    } u;
};

typedef struct sba_json_doc sba_json_doc;

/* Parse flags. */
enum { SBA_JSON_DECODE_ANY = 1u << 0 /* a scalar at the top level too */ };
/* Dump flags, accepted for the jansson spelling: sba_json_dumpb is always compact. */
enum { SBA_JSON_COMPACT = 0, SBA_JSON_ENCODE_ANY = 0 };

/* Parses text[0..len). NULL on failure: *errpos gets the byte offset where
 * parsing stopped and *nomem whether memory ran out (both may be NULL). The
 * document is allocated with `a` (NULL: malloc). */
sba_json_doc *sba_json_parse(const char *text, size_t len, uint32_t flags, const sba_allocator *a,
                             size_t *errpos, bool *nomem);
sba_json *sba_json_doc_root(const sba_json_doc *d);
/* Bytes the document holds (nodes, keys, strings). */
size_t sba_json_doc_bytes(const sba_json_doc *d);
void sba_json_doc_free(sba_json_doc *d);

static inline sba_json_type sba_json_typeof(const sba_json *v) { return (sba_json_type)v->type; }
static inline bool sba_json_is_object(const sba_json *v) { return v && v->type == SBA_JSON_OBJECT; }
static inline bool sba_json_is_array(const sba_json *v) { return v && v->type == SBA_JSON_ARRAY; }
static inline bool sba_json_is_string(const sba_json *v) { return v && v->type == SBA_JSON_STRING; }
static inline bool sba_json_is_integer(const sba_json *v) { return v && v->type == SBA_JSON_INTEGER; }
static inline bool sba_json_is_real(const sba_json *v) { return v && v->type == SBA_JSON_REAL; }
static inline bool sba_json_is_true(const sba_json *v) { return v && v->type == SBA_JSON_TRUE; }
static inline bool sba_json_is_false(const sba_json *v) { return v && v->type == SBA_JSON_FALSE; }
static inline bool sba_json_is_boolean(const sba_json *v) { return sba_json_is_true(v) || sba_json_is_false(v); }
static inline bool sba_json_is_null(const sba_json *v) { return v && v->type == SBA_JSON_NULL; }

/* As jansson: 0 / NULL for a value of another type. */
static inline int64_t sba_json_integer_value(const sba_json *v) { return sba_json_is_integer(v) ? v->u.i : 0; }
static inline double sba_json_real_value(const sba_json *v) { return sba_json_is_real(v) ? v->u.d : 0.0; }
static inline const char *sba_json_string_value(const sba_json *v) { return sba_json_is_string(v) ? v->u.s : NULL; }
static inline size_t sba_json_string_length(const sba_json *v) { return sba_json_is_string(v) ? v->n : 0; }
static inline size_t sba_json_array_size(const sba_json *v) { return sba_json_is_array(v) ? v->n : 0; }
static inline sba_json *sba_json_array_get(const sba_json *v, size_t i)
{
    return sba_json_is_array(v) && i < v->n ? &v->u.kids[i] : NULL;
}
static inline size_t sba_json_object_size(const sba_json *v) { return sba_json_is_object(v) ? v->n : 0; }
/* The key of member `m` of object v. */
static inline const char *sba_json_object_key_of(const sba_json *v, const sba_json *m)
{
    return ((const char *const *)(const void *)(v->u.kids + v->n))[m - v->u.kids];
}
static inline sba_json *sba_json_object_first(const sba_json *v)
{
    return sba_json_object_size(v) ? v->u.kids : NULL;
}
static inline sba_json *sba_json_object_next(const sba_json *v, const sba_json *m)
{
    return m + 1 < v->u.kids + v->n ? v->u.kids + (m - v->u.kids) + 1 : NULL;
}
/* Member `key` of object v, or NULL (also when v is not an object). */
sba_json *sba_json_object_get(const sba_json *v, const char *key);
/* The document's own copy of object key `key` (keys are interned once per
 * document), or NULL when no object of the document has that key. */
const char *sba_json_doc_key(const sba_json_doc *d, const char *key);
/* Member dkey of object v, dkey from sba_json_doc_key of v's document (NULL
 * gives NULL): a pointer comparison per member, no string compared. */
sba_json *sba_json_object_get_key(const sba_json *v, const char *dkey);

#define sba_json_array_foreach(array, index, value)                                             \
    for ((index) = 0; (index) < sba_json_array_size(array) && ((value) = sba_json_array_get(array, index)); \
         (index)++)
#define sba_json_object_foreach(object, key, value)                                             \
    for ((value) = sba_json_object_first(object);                                               \
         (value) && ((key) = sba_json_object_key_of(object, value), 1);                         \
         (value) = sba_json_object_next(object, value))

/* Compact text of v as jansson's json_dumpb(v, buf, size, JSON_COMPACT |
 * JSON_ENCODE_ANY) writes it: returns the length, writing at most `size`
 * bytes (call with size 0 to measure). */
size_t sba_json_dumpb(const sba_json *v, char *buf, size_t size, uint32_t flags);

/* ---- the writer -------------------------------------------------------- */

/* Writes JSON into a growing buffer (from the allocator) or through a FILE.
 * Containers nest; the layout is jansson's JSON_INDENT(2). A failure (memory,
 * I/O, a string that is not UTF-8) is sticky and reported by sba_jw_finish. */
typedef struct sba_jw {
    const sba_allocator *a;
    FILE *f;            /* NULL: into buf */
    char *buf;
    size_t len, cap;
    uint32_t depth;
    bool first;         /* no member yet in the innermost open container */
    bool failed, bad_utf8;
    size_t flushed;     /* bytes written to f so far */
} sba_jw;

void sba_jw_init_buffer(sba_jw *w, const sba_allocator *a);
void sba_jw_init_file(sba_jw *w, FILE *f, const sba_allocator *a);
/* Opens '{' or '['. */
void sba_jw_open(sba_jw *w, char bracket);
/* Closes the innermost container with '}' or ']'. */
void sba_jw_close(sba_jw *w, char bracket);
/* Starts an object member (writes the key) or an array element. */
void sba_jw_key(sba_jw *w, const char *key);
void sba_jw_elem(sba_jw *w);
void sba_jw_string(sba_jw *w, const char *s);
void sba_jw_int(sba_jw *w, int64_t v);
void sba_jw_bool(sba_jw *w, bool v);
/* A parsed value, laid out at the current depth. */
void sba_jw_value(sba_jw *w, const sba_json *v);
/* Raw bytes. */
void sba_jw_raw(sba_jw *w, const char *s, size_t n);
/* Flushes; false when anything failed. For a buffer writer, *out / *len get
 * the text (NUL-terminated, from the allocator; free with sba_free). */
bool sba_jw_finish(sba_jw *w, char **out, size_t *len);

#endif

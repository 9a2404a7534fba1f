/* JSON: the one-pass parser and the streaming writer (see json.h).
 *
 * Parser: recursive descent over the text, depth-bounded as jansson is (2048
 * values deep). A container's members are parsed onto one shared stack and
 * copied into the document's arena when the container closes, so every array
 * and object is one contiguous block with no growth waste. Object keys are
 * interned in a per-parse hash table: a module has a few dozen distinct keys,
 * so duplicate detection compares pointers (a hash set takes over in objects
 * of more than 16 members). Strings without escapes are copied in one memcpy;
 * the slow path decodes escapes and checks UTF-8 as jansson's lexer does.
 *
 * Writer: one output buffer, flushed to the FILE when it fills. Complexity:
 * linear in the text in both directions. */
#include "base/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 2048, STR_BLOCK = 64 * 1024, SMALL_OBJECT = 16 };

typedef struct key_slot {
    const char *key; /* interned, NUL-terminated */
    uint32_t len;
    uint32_t hash;
} key_slot;

struct sba_json_doc {
    sba_arena arena;
    sba_json root;
    key_slot *keys;  /* the parse's interned keys, for sba_json_doc_key */
    uint32_t capkeys;
};

/* ---- parser state ------------------------------------------------------ */

typedef struct parser {
    const char *p, *end, *begin;
    sba_json_doc *d;
    const sba_allocator *a;
    /* string bytes, bump-allocated in blocks of the arena */
    char *sp, *send;
    /* members of the open containers */
    sba_json *stk;
    size_t nstk, capstk;
    const char **kstk;
    size_t nkstk, capkstk;
    /* interned keys */
    key_slot *keys;
    uint32_t capkeys, nkeys;
    /* the slow-path string buffer */
    char *tmp;
    size_t captmp;
    uint32_t depth;
    bool nomem;
} parser;

static bool grow(parser *P, void **v, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *nv = sba_realloc(P->a, *v, nc * sz);
    if (!nv) return P->nomem = true, false;
    *v = nv;
    *cap = nc;
    return true;
}

/* n+1 bytes of string storage (the text and its NUL). */
static char *str_alloc(parser *P, size_t n)
{
    if ((size_t)(P->send - P->sp) < n + 1) {
        if (n + 1 > STR_BLOCK / 4) {
            char *big = sba_arena_alloc(&P->d->arena, n + 1);
            if (!big) P->nomem = true;
            return big;
        }
        P->sp = sba_arena_alloc(&P->d->arena, STR_BLOCK);
        if (!P->sp) return P->nomem = true, NULL;
        P->send = P->sp + STR_BLOCK;
    }
    char *s = P->sp;
    P->sp += n + 1;
    return s;
}

static char *str_copy(parser *P, const char *s, size_t n)
{
    char *c = str_alloc(P, n);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static const char *intern(parser *P, const char *s, size_t n)
{
    if (n > UINT32_MAX) return P->nomem = true, NULL;
    if (P->nkeys * 2 >= P->capkeys) {
        uint32_t nc = P->capkeys ? P->capkeys * 2 : 64;
        key_slot *nk = sba_malloc(P->a, (size_t)nc * sizeof *nk);
        if (!nk) return P->nomem = true, NULL;
        memset(nk, 0, (size_t)nc * sizeof *nk);
        for (uint32_t i = 0; i < P->capkeys; i++) {
            if (!P->keys[i].key) continue;
            uint32_t j = P->keys[i].hash & (nc - 1);
            while (nk[j].key) j = (j + 1) & (nc - 1);
            nk[j] = P->keys[i];
        }
        sba_free(P->a, P->keys);
        P->keys = nk;
        P->capkeys = nc;
    }
    uint32_t h = hash_bytes(s, n), j = h & (P->capkeys - 1);
    while (P->keys[j].key) {
        if (P->keys[j].hash == h && P->keys[j].len == n && memcmp(P->keys[j].key, s, n) == 0)
            return P->keys[j].key;
        j = (j + 1) & (P->capkeys - 1);
    }
    const char *c = str_copy(P, s, n);
    if (!c) return NULL;
    P->keys[j] = (key_slot){c, (uint32_t)n, h};
    P->nkeys++;
    return c;
}

static void skip_ws(parser *P)
{
    static const char spaces[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
    const char *p = P->p, *e = P->end;
    for (;;) {
        while (p < e && (*p == '\n' || *p == '\r' || *p == '\t')) p++;
        /* Half of an indented module is runs of spaces: eight at a time. */
        while (e - p >= 8 && memcmp(p, spaces, 8) == 0) p += 8;
        while (p < e && *p == ' ') p++;
        if (p == e || (*p != '\n' && *p != '\r' && *p != '\t')) break;
    }
    P->p = p;
}

/* ---- strings ----------------------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool read_u4(parser *P, const char *p, int32_t *out)
{
    if (P->end - p < 4) return false;
    int32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0) return false;
        v = v * 16 + h;
    }
    *out = v;
    return true;
}

/* Length of the valid UTF-8 sequence at p (jansson's utf8_check_first and
 * utf8_check_full), 0 when invalid. */
static size_t utf8_len(const char *p, const char *e)
{
    unsigned char c = (unsigned char)*p;
    size_t n;
    int32_t cp;
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;
    if (c <= 0xDF) n = 2, cp = c & 0x1F;
    else if (c <= 0xEF) n = 3, cp = c & 0x0F;
    else if (c <= 0xF4) n = 4, cp = c & 0x07;
    else return 0;
    if ((size_t)(e - p) < n) return 0;
    for (size_t i = 1; i < n; i++) {
        unsigned char k = (unsigned char)p[i];
        if (k < 0x80 || k > 0xBF) return 0;
        cp = (cp << 6) | (k & 0x3F);
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0;
    return n;
}

static size_t utf8_put(char *o, int32_t cp)
{
    if (cp < 0x80) return o[0] = (char)cp, 1;
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The string at P->p (just past its opening quote): on success *s / *n hold
 * its decoded bytes, in the source when it has no escapes, else in P->tmp. */
static bool scan_string(parser *P, const char **s, size_t *n)
{
    const char *p = P->p, *e = P->end, *start = p;
    while (p < e) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        p++;
    }
    if (p < e && *p == '"') {
        *s = start;
        *n = (size_t)(p - start);
        P->p = p + 1;
        return true;
    }
    /* Slow path: escapes or non-ASCII bytes. Output never exceeds input. */
    size_t o = (size_t)(p - start);
    if (!grow(P, (void **)&P->tmp, &P->captmp, (size_t)(e - start) < 256 ? 256 : o + 256, 1)) return false;
    memcpy(P->tmp, start, o);
    while (p < e) {
        unsigned char c = (unsigned char)*p;
        if (o + 8 > P->captmp && !grow(P, (void **)&P->tmp, &P->captmp, o + 8, 1)) return false;
        if (c == '"') {
            *s = P->tmp;
            *n = o;
            P->p = p + 1;
            return true;
        }
        if (c < 0x20) break;
        if (c >= 0x80) {
            size_t k = utf8_len(p, e);
            if (!k) break;
            memcpy(P->tmp + o, p, k);
            o += k;
            p += k;
            continue;
        }
        if (c != '\\') {
            P->tmp[o++] = (char)c;
            p++;
            continue;
        }
        if (++p == e) break;
        char esc = *p++;
        switch (esc) {
        case '"': P->tmp[o++] = '"'; break;
        case '\\': P->tmp[o++] = '\\'; break;
        case '/': P->tmp[o++] = '/'; break;
        case 'b': P->tmp[o++] = '\b'; break;
        case 'f': P->tmp[o++] = '\f'; break;
        case 'n': P->tmp[o++] = '\n'; break;
        case 'r': P->tmp[o++] = '\r'; break;
        case 't': P->tmp[o++] = '\t'; break;
        case 'u': {
            int32_t cp;
            if (!read_u4(P, p, &cp)) goto bad;
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                int32_t lo;
                if (e - p < 6 || p[0] != '\\' || p[1] != 'u' || !read_u4(P, p + 2, &lo) || lo < 0xDC00 ||
                    lo > 0xDFFF)
                    goto bad;
                p += 6;
                cp = (((cp & 0x3FF) << 10) | (lo & 0x3FF)) + 0x10000;
            } else if ((cp >= 0xDC00 && cp <= 0xDFFF) || cp == 0) {
                goto bad; /* a lone low surrogate; \u0000 without JSON_ALLOW_NUL */
            }
            o += utf8_put(P->tmp + o, cp);
            break;
        }
        default: goto bad;
        }
    }
bad:
    P->p = p;
    return false;
}

/* ---- numbers and values ------------------------------------------------ */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* jansson reads one character past a number or a literal and puts it back;
 * a NUL byte put back is lost (its stream treats it as the end of its
 * buffer). So one NUL right after such a token is skipped, as there. */
static void skip_lost_nul(parser *P)
{
    if (P->p < P->end && *P->p == '\0') P->p++;
}

static bool scan_number(parser *P, sba_json *out)
{
    const char *p = P->p, *e = P->end, *start = p;
    bool neg = false;
    if (*p == '-') neg = true, p++;
    if (p == e || !is_digit(*p)) return false;
    if (*p == '0' && p + 1 < e && is_digit(p[1])) return false;
    uint64_t mag = 0;
    bool over = false;
    while (p < e && is_digit(*p)) {
        unsigned d = (unsigned)(*p - '0');
        if (mag > (UINT64_MAX - d) / 10) over = true;
        else mag = mag * 10 + d;
        p++;
    }
    bool real = false;
    if (p < e && *p == '.') {
        real = true;
        if (++p == e || !is_digit(*p)) return P->p = p, false;
        while (p < e && is_digit(*p)) p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        real = true;
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (p == e || !is_digit(*p)) return P->p = p, false;
        while (p < e && is_digit(*p)) p++;
    }
    if (!real) {
        /* strtoll's range: jansson refuses what does not fit. */
        if (over || mag > (uint64_t)INT64_MAX + neg) return false;
        out->type = SBA_JSON_INTEGER;
        out->u.i = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
        P->p = p;
        skip_lost_nul(P);
        return true;
    }
    char buf[128], *heap = NULL, *t = buf;
    size_t n = (size_t)(p - start);
    if (n >= sizeof buf && !(t = heap = sba_malloc(P->a, n + 1))) return P->nomem = true, false;
    memcpy(t, start, n);
    t[n] = '\0';
    errno = 0;
    double d = strtod(t, NULL);
    bool overflow = (d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE;
    sba_free(P->a, heap);
    if (overflow) return false;
    out->type = SBA_JSON_REAL;
    out->u.d = d;
    P->p = p;
    skip_lost_nul(P);
    return true;
}

static bool parse_value(parser *P, sba_json *out);

static bool push(parser *P, const sba_json *v)
{
    if (P->nstk == P->capstk && !grow(P, (void **)&P->stk, &P->capstk, P->nstk + 1, sizeof *P->stk))
        return false;
    P->stk[P->nstk++] = *v;
    return true;
}

/* Moves the members pushed since `base` into one block of the document. */
static bool close_container(parser *P, sba_json *out, uint32_t type, size_t base, bool keys)
{
    size_t n = P->nstk - base;
    if (n > UINT32_MAX) return P->nomem = true, false;
    out->type = type;
    out->n = (uint32_t)n;
    out->u.kids = NULL;
    if (n) {
        size_t bytes = n * sizeof(sba_json) + (keys ? n * sizeof(char *) : 0);
        out->u.kids = sba_arena_alloc(&P->d->arena, bytes);
        if (!out->u.kids) return P->nomem = true, false;
        memcpy(out->u.kids, P->stk + base, n * sizeof(sba_json));
        if (keys) memcpy(out->u.kids + n, P->kstk + P->nkstk - n, n * sizeof(char *));
    }
    P->nstk = base;
    if (keys) P->nkstk -= n;
    return true;
}

/* Whether key k is already among the members since kbase; objects of more
 * than SMALL_OBJECT members look it up in a set of their own. */
typedef struct keyset {
    const char **v;
    size_t cap, n;
} keyset;

static bool keyset_add(parser *P, keyset *ks, const char *k, bool *dup)
{
    if ((ks->n + 1) * 2 > ks->cap) {
        size_t nc = ks->cap ? ks->cap * 2 : 64;
        const char **nv = sba_malloc(P->a, nc * sizeof *nv);
        if (!nv) return P->nomem = true, false;
        memset(nv, 0, nc * sizeof *nv);
        for (size_t i = 0; i < ks->cap; i++) {
            if (!ks->v[i]) continue;
            size_t j = ((uintptr_t)ks->v[i] >> 4) & (nc - 1);
            while (nv[j]) j = (j + 1) & (nc - 1);
            nv[j] = ks->v[i];
        }
        sba_free(P->a, ks->v);
        ks->v = nv;
        ks->cap = nc;
    }
    size_t j = ((uintptr_t)k >> 4) & (ks->cap - 1);
    while (ks->v[j]) {
        if (ks->v[j] == k) return *dup = true, true;
        j = (j + 1) & (ks->cap - 1);
    }
    ks->v[j] = k;
    ks->n++;
    *dup = false;
    return true;
}

static bool parse_object(parser *P, sba_json *out)
{
    size_t base = P->nstk, kbase = P->nkstk;
    keyset ks = {0};
    bool ok = false;
    P->p++;
    skip_ws(P);
    if (P->p < P->end && *P->p == '}') {
        P->p++;
        return close_container(P, out, SBA_JSON_OBJECT, base, true);
    }
    for (;;) {
        skip_ws(P);
        if (P->p == P->end || *P->p != '"') goto done;
        P->p++;
        const char *s;
        size_t n;
        if (!scan_string(P, &s, &n)) goto done;
        const char *k = intern(P, s, n);
        if (!k) goto done;
        size_t nk = P->nkstk - kbase;
        bool dup = false;
        if (nk < SMALL_OBJECT) {
            for (size_t i = kbase; i < P->nkstk && !dup; i++) dup = P->kstk[i] == k;
        } else {
            if (!ks.v)
                for (size_t i = kbase; i < P->nkstk; i++)
                    if (!keyset_add(P, &ks, P->kstk[i], &dup)) goto done;
            if (!keyset_add(P, &ks, k, &dup)) goto done;
        }
        if (dup) goto done;
        if (P->nkstk == P->capkstk &&
            !grow(P, (void **)&P->kstk, &P->capkstk, P->nkstk + 1, sizeof *P->kstk))
            goto done;
        P->kstk[P->nkstk++] = k;
        skip_ws(P);
        if (P->p == P->end || *P->p != ':') goto done;
        P->p++;
        sba_json v;
        if (!parse_value(P, &v) || !push(P, &v)) goto done;
        skip_ws(P);
        if (P->p == P->end) goto done;
        if (*P->p == ',') {
            P->p++;
            continue;
        }
        if (*P->p != '}') goto done;
        P->p++;
        ok = close_container(P, out, SBA_JSON_OBJECT, base, true);
        break;
    }
done:
    sba_free(P->a, ks.v);
    return ok;
}

static bool parse_array(parser *P, sba_json *out)
{
    size_t base = P->nstk;
    P->p++;
    skip_ws(P);
    if (P->p < P->end && *P->p == ']') {
        P->p++;
        return close_container(P, out, SBA_JSON_ARRAY, base, false);
    }
    for (;;) {
        sba_json v;
        if (!parse_value(P, &v) || !push(P, &v)) return false;
        skip_ws(P);
        if (P->p == P->end) return false;
        if (*P->p == ',') {
            P->p++;
            continue;
        }
        if (*P->p != ']') return false;
        P->p++;
        return close_container(P, out, SBA_JSON_ARRAY, base, false);
    }
}

static bool literal(parser *P, const char *word, size_t n, uint32_t type, sba_json *out)
{
    if ((size_t)(P->end - P->p) < n || memcmp(P->p, word, n) != 0) return false;
    P->p += n;
    out->type = type;
    out->n = 0;
    out->u.i = 0;
    skip_lost_nul(P);
    return true;
}

static bool parse_value(parser *P, sba_json *out)
{
    skip_ws(P);
    if (P->p == P->end) return false;
    /* jansson counts every value, scalars included, against its depth. */
    if (++P->depth > MAX_DEPTH) return false;
    bool ok;
    out->n = 0;
    switch (*P->p) {
    case '{': ok = parse_object(P, out); break;
    case '[': ok = parse_array(P, out); break;
    case '"': {
        P->p++;
        const char *s;
        size_t n;
        ok = scan_string(P, &s, &n) && n <= UINT32_MAX;
        if (ok) {
            out->type = SBA_JSON_STRING;
            out->n = (uint32_t)n;
            ok = (out->u.s = str_copy(P, s, n)) != NULL;
        }
        break;
    }
    case 't': ok = literal(P, "true", 4, SBA_JSON_TRUE, out); break;
    case 'f': ok = literal(P, "false", 5, SBA_JSON_FALSE, out); break;
    case 'n': ok = literal(P, "null", 4, SBA_JSON_NULL, out); break;
    default: ok = scan_number(P, out); break;
    }
    P->depth--;
    return ok;
}

sba_json_doc *sba_json_parse(const char *text, size_t len, uint32_t flags, const sba_allocator *a,
                             size_t *errpos, bool *nomem)
{
    sba_json_doc *d = sba_malloc(a, sizeof *d);
    if (!d) {
        if (nomem) *nomem = true;
        if (errpos) *errpos = 0;
        return NULL;
    }
    sba_arena_init(&d->arena, a);
    parser P = {.p = text, .end = text + len, .begin = text, .d = d, .a = a};
    skip_ws(&P);
    bool ok = P.p < P.end && ((flags & SBA_JSON_DECODE_ANY) || *P.p == '{' || *P.p == '[');
    ok = ok && parse_value(&P, &d->root);
    if (ok) {
        skip_ws(&P);
        ok = P.p == P.end;
    }
    bool oom = P.nomem || d->arena.failed;
    sba_free(a, P.stk);
    sba_free(a, P.kstk);
    d->keys = P.keys; /* kept for sba_json_doc_key, freed with the document */
    d->capkeys = P.capkeys;
    sba_free(a, P.tmp);
    if (nomem) *nomem = oom;
    if (errpos) *errpos = (size_t)(P.p - text);
    if (!ok || oom) {
        sba_json_doc_free(d);
        return NULL;
    }
    return d;
}

sba_json *sba_json_doc_root(const sba_json_doc *d) { return (sba_json *)(uintptr_t)&d->root; }

size_t sba_json_doc_bytes(const sba_json_doc *d) { return d->arena.bytes; }

void sba_json_doc_free(sba_json_doc *d)
{
    if (!d) return;
    const sba_allocator *a = d->arena.a;
    sba_arena_free(&d->arena);
    sba_free(a, d->keys);
    sba_free(a, d);
}

const char *sba_json_doc_key(const sba_json_doc *d, const char *key)
{
    if (!d->capkeys) return NULL;
    size_t n = strlen(key);
    uint32_t h = hash_bytes(key, n);
    for (uint32_t j = h & (d->capkeys - 1); d->keys[j].key; j = (j + 1) & (d->capkeys - 1))
        if (d->keys[j].hash == h && d->keys[j].len == n && memcmp(d->keys[j].key, key, n) == 0)
            return d->keys[j].key;
    return NULL;
}

sba_json *sba_json_object_get_key(const sba_json *v, const char *dkey)
{
    if (!dkey || !sba_json_is_object(v) || v->n == 0) return NULL; /* an empty object has no block */
    const char *const *keys = (const char *const *)(const void *)(v->u.kids + v->n);
    for (uint32_t i = 0; i < v->n; i++)
        if (keys[i] == dkey) return &v->u.kids[i];
    return NULL;
}

sba_json *sba_json_object_get(const sba_json *v, const char *key)
{
    if (!sba_json_is_object(v) || v->n == 0) return NULL; /* an empty object has no block */
    const char *const *keys = (const char *const *)(const void *)(v->u.kids + v->n);
    for (uint32_t i = 0; i < v->n; i++)
        if (keys[i][0] == key[0] && strcmp(keys[i], key) == 0) return &v->u.kids[i];
    return NULL;
}

/* ---- text of values ---------------------------------------------------- */

/* The sink of sba_json_dumpb and of the writer: bytes into a bounded buffer
 * (counting what does not fit) or into the writer. */
typedef struct sink {
    sba_jw *w;
    char *buf;
    size_t size, len;
} sink;

static void sink_put(sink *k, const char *s, size_t n)
{
    if (k->w) {
        sba_jw_raw(k->w, s, n);
        return;
    }
    if (k->len < k->size) memcpy(k->buf + k->len, s, k->len + n <= k->size ? n : k->size - k->len);
    k->len += n;
}

/* jansson's dump_string: '"', '\\' and control characters escaped, the rest
 * (UTF-8 included) as is. */
static void put_string(sink *k, const char *s, size_t n)
{
    sink_put(k, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20) continue;
        sink_put(k, s + run, i - run);
        run = i + 1;
        char esc[8];
        const char *t = esc;
        size_t tn = 2;
        switch (c) {
        case '"': t = "\\\""; break;
        case '\\': t = "\\\\"; break;
        case '\b': t = "\\b"; break;
        case '\f': t = "\\f"; break;
        case '\n': t = "\\n"; break;
        case '\r': t = "\\r"; break;
        case '\t': t = "\\t"; break;
        default: tn = (size_t)snprintf(esc, sizeof esc, "\\u%04X", (unsigned)c); break;
        }
        sink_put(k, t, tn);
    }
    sink_put(k, s + run, n - run);
    sink_put(k, "\"", 1);
}

static void put_int(sink *k, int64_t v)
{
    char b[24], *p = b + sizeof b;
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do *--p = (char)('0' + m % 10);
    while (m /= 10);
    if (v < 0) *--p = '-';
    sink_put(k, p, (size_t)(b + sizeof b - p));
}

/* jansson's jsonp_dtostr at precision 17: "%.17g", ".0" added when the text
 * would read back as an integer, the exponent's '+' and leading zeros cut. */
static void put_real(sink *k, double d)
{
    char b[64];
    int len = snprintf(b, sizeof b - 3, "%.17g", d);
    if (len < 0) len = 0;
    if (!strchr(b, '.') && !strchr(b, 'e')) {
        memcpy(b + len, ".0", 3);
        len += 2;
    }
    char *start = strchr(b, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-') start++;
        while (*end == '0') end++;
        if (end != start) {
            memmove(start, end, (size_t)len - (size_t)(end - b) + 1);
            len -= (int)(end - start);
        }
    }
    sink_put(k, b, (size_t)len);
}

static void put_newline(sink *k, uint32_t depth)
{
    static const char spaces[] = "                                ";
    sink_put(k, "\n", 1);
    for (size_t n = (size_t)depth * 2; n > 0;) {
        size_t c = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        sink_put(k, spaces, c);
        n -= c;
    }
}

/* v as jansson lays it out: compact (indent false), or JSON_INDENT(2) with v
 * at `depth`. */
static void put_value(sink *k, const sba_json *v, bool indent, uint32_t depth)
{
    switch (sba_json_typeof(v)) {
    case SBA_JSON_OBJECT:
    case SBA_JSON_ARRAY: {
        bool obj = v->type == SBA_JSON_OBJECT;
        sink_put(k, obj ? "{" : "[", 1);
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) sink_put(k, ",", 1);
            if (indent) put_newline(k, depth + 1);
            if (obj) {
                const char *key = sba_json_object_key_of(v, &v->u.kids[i]);
                put_string(k, key, strlen(key));
                sink_put(k, indent ? ": " : ":", indent ? 2 : 1);
            }
            put_value(k, &v->u.kids[i], indent, depth + 1);
        }
        if (indent && v->n) put_newline(k, depth);
        sink_put(k, obj ? "}" : "]", 1);
        break;
    }
    case SBA_JSON_STRING: put_string(k, v->u.s, v->n); break;
    case SBA_JSON_INTEGER: put_int(k, v->u.i); break;
    case SBA_JSON_REAL: put_real(k, v->u.d); break;
    case SBA_JSON_TRUE: sink_put(k, "true", 4); break;
    case SBA_JSON_FALSE: sink_put(k, "false", 5); break;
    case SBA_JSON_NULL: sink_put(k, "null", 4); break;
    }
}

size_t sba_json_dumpb(const sba_json *v, char *buf, size_t size, uint32_t flags)
{
    (void)flags;
    sink k = {.buf = buf, .size = size};
    put_value(&k, v, false, 0);
    return k.len;
}

/* ---- the writer -------------------------------------------------------- */

enum { JW_FLUSH = 1 << 20 };

void sba_jw_init_buffer(sba_jw *w, const sba_allocator *a)
{
    memset(w, 0, sizeof *w);
    w->a = a;
    w->first = true;
}

void sba_jw_init_file(sba_jw *w, FILE *f, const sba_allocator *a)
{
    sba_jw_init_buffer(w, a);
    w->f = f;
}

static void jw_flush(sba_jw *w)
{
    if (!w->f || !w->len) return;
    if (fwrite(w->buf, 1, w->len, w->f) != w->len) w->failed = true;
    w->flushed += w->len;
    w->len = 0;
}

/* Room for n more bytes at w->buf + w->len (flushing or growing the
 * buffer), or NULL once anything failed. The members of a module are a few
 * bytes each: the writer fills this room directly rather than through a
 * memcpy a piece. */
static char *jw_room_slow(sba_jw *w, size_t n)
{
    jw_flush(w);
    if (w->cap - w->len < n) {
        size_t nc = w->cap ? w->cap : JW_FLUSH;
        while (nc - w->len < n) nc *= 2;
        char *nb = sba_realloc(w->a, w->buf, nc);
        if (!nb) {
            w->failed = true;
            return NULL;
        }
        w->buf = nb;
        w->cap = nc;
    }
    return w->buf + w->len;
}

static inline char *jw_room(sba_jw *w, size_t n)
{
    if (w->failed) return NULL;
    if (w->cap - w->len >= n) return w->buf + w->len;
    return jw_room_slow(w, n);
}

void sba_jw_raw(sba_jw *w, const char *s, size_t n)
{
    char *o = jw_room(w, n);
    if (!o) return;
    memcpy(o, s, n);
    w->len += n;
}

/* The separator before a member: a comma after an earlier member, then a
 * new line indented to the depth. */
static void jw_sep(sba_jw *w)
{
    size_t ind = (size_t)w->depth * 2, n = ind + 1 + !w->first;
    char *o = jw_room(w, n);
    if (!o) return;
    if (!w->first) *o++ = ',';
    *o++ = '\n';
    memset(o, ' ', ind);
    w->len += n;
    w->first = false;
}

void sba_jw_open(sba_jw *w, char bracket)
{
    sba_jw_raw(w, &bracket, 1);
    w->depth++;
    w->first = true;
}

void sba_jw_close(sba_jw *w, char bracket)
{
    w->depth--;
    size_t ind = w->first ? 0 : (size_t)w->depth * 2 + 1;
    char *o = jw_room(w, ind + 1);
    if (!o) return;
    if (ind) {
        *o++ = '\n';
        memset(o, ' ', ind - 1);
        o += ind - 1;
    }
    *o = bracket;
    w->len += ind + 1;
    w->first = false;
}

/* Whether s is valid UTF-8, as jansson's json_string requires. */
static bool valid_utf8(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = utf8_len(s + i, s + n);
        if (!k) return false;
        i += k;
    }
    return true;
}

/* s quoted, when it is ASCII with nothing to escape (every name a module
 * has, in practice); false, writing nothing, otherwise. `tail` (tn bytes)
 * follows the closing quote. */
static bool jw_plain_str(sba_jw *w, const char *s, const char *tail, size_t tn)
{
    size_t n = 0;
    for (unsigned char c; (c = (unsigned char)s[n]) != 0; n++)
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return false;
    char *o = jw_room(w, n + 2 + tn);
    if (!o) return true;
    *o++ = '"';
    memcpy(o, s, n);
    o[n] = '"';
    memcpy(o + n + 1, tail, tn);
    w->len += n + 2 + tn;
    return true;
}

static void jw_str(sba_jw *w, const char *s)
{
    if (jw_plain_str(w, s, "", 0)) return;
    sink k = {.w = w};
    size_t n = strlen(s);
    if (!valid_utf8(s, n)) {
        w->failed = w->bad_utf8 = true;
        return;
    }
    put_string(&k, s, n);
}

void sba_jw_key(sba_jw *w, const char *key)
{
    jw_sep(w);
    if (jw_plain_str(w, key, ": ", 2)) return;
    jw_str(w, key);
    sba_jw_raw(w, ": ", 2);
}

void sba_jw_elem(sba_jw *w) { jw_sep(w); }

void sba_jw_string(sba_jw *w, const char *s) { jw_str(w, s); }

void sba_jw_int(sba_jw *w, int64_t v)
{
    char b[24], *p = b + sizeof b;
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do *--p = (char)('0' + m % 10);
    while (m /= 10);
    if (v < 0) *--p = '-';
    size_t n = (size_t)(b + sizeof b - p);
    char *o = jw_room(w, n);
    if (!o) return;
    memcpy(o, p, n);
    w->len += n;
}

void sba_jw_bool(sba_jw *w, bool v) { sba_jw_raw(w, v ? "true" : "false", v ? 4 : 5); }

void sba_jw_value(sba_jw *w, const sba_json *v)
{
    sink k = {.w = w};
    put_value(&k, v, true, w->depth);
}

bool sba_jw_finish(sba_jw *w, char **out, size_t *len)
{
    bool ok = !w->failed;
    if (w->f) {
        jw_flush(w);
        ok = !w->failed;
        sba_free(w->a, w->buf);
        w->buf = NULL;
        return ok;
    }
    if (ok && w->len == w->cap) {
        char *nb = sba_realloc(w->a, w->buf, w->cap + 1);
        if (!nb) ok = false;
        else w->buf = nb, w->cap++;
    }
    if (!ok || !w->buf) {
        sba_free(w->a, w->buf);
        w->buf = NULL;
        return false;
    }
    w->buf[w->len] = '\0';
    if (out) *out = w->buf;
    if (len) *len = w->len;
    w->buf = NULL;
    return true;
}

/* Arena allocator: see arena.h. */
#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sba_arena_chunk {
    sba_arena_chunk *next;
    size_t size;
    /* data follows, 16-byte aligned */
};

enum { CHUNK_HEADER = 16, CHUNK_MIN = 64 * 1024 };

static void *std_alloc(void *ud, size_t n) { (void)ud; return malloc(n); }
static void *std_realloc(void *ud, void *p, size_t n) { (void)ud; return realloc(p, n); }
static void std_free(void *ud, void *p) { (void)ud; free(p); }

static const sba_allocator std_allocator = {std_alloc, std_realloc, std_free, NULL};

const sba_allocator *sba_default_allocator(void) { return &std_allocator; }

void *sba_malloc(const sba_allocator *a, size_t size)
{
    if (!a) a = &std_allocator;
    return a->alloc(a->ud, size ? size : 1);
}

void *sba_realloc(const sba_allocator *a, void *p, size_t size)
{
    if (!a) a = &std_allocator;
    return a->realloc(a->ud, p, size ? size : 1);
}

void sba_free(const sba_allocator *a, void *p)
{
    if (!a) a = &std_allocator;
    if (p) a->free(a->ud, p);
}

void sba_arena_init(sba_arena *ar, const sba_allocator *a)
{
    memset(ar, 0, sizeof *ar);
    ar->a = a ? a : &std_allocator;
}

void sba_arena_free(sba_arena *ar)
{
    sba_arena_chunk *c = ar->head;
    while (c) {
        sba_arena_chunk *next = c->next;
        ar->a->free(ar->a->ud, c);
        c = next;
    }
    ar->head = NULL;
    ar->cur = ar->end = NULL;
    ar->bytes = 0;
}

void *sba_arena_alloc(sba_arena *ar, size_t size)
{
    /* Refuse before rounding: rounding SIZE_MAX up would wrap to a tiny block. */
    if (size > SIZE_MAX / 2 - CHUNK_HEADER) {
        ar->failed = true;
        return NULL;
    }
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    if ((size_t)(ar->end - ar->cur) < size) {
        /* Chunks grow with the arena so that the chunk count stays logarithmic. */
        size_t want = ar->bytes / 2;
        if (want < CHUNK_MIN) want = CHUNK_MIN;
        if (want > 64u << 20) want = 64u << 20;
        if (want < size) want = size;
        sba_arena_chunk *c = ar->a->alloc(ar->a->ud, CHUNK_HEADER + want);
        if (!c) {
            ar->failed = true;
            return NULL;
        }
        c->next = ar->head;
        c->size = want;
        ar->head = c;
        ar->bytes += CHUNK_HEADER + want;
        ar->cur = (char *)c + CHUNK_HEADER;
        ar->end = ar->cur + want;
    }
    void *p = ar->cur;
    ar->cur += size;
    return p;
}

void *sba_arena_zalloc(sba_arena *ar, size_t size)
{
    void *p = sba_arena_alloc(ar, size);
    if (p) memset(p, 0, size);
    return p;
}

void *sba_arena_array(sba_arena *ar, size_t n, size_t sz)
{
    if (sz && n > SIZE_MAX / sz) {
        ar->failed = true;
        return NULL;
    }
    return sba_arena_zalloc(ar, n * sz);
}

char *sba_arena_strndup(sba_arena *ar, const char *s, size_t n)
{
    /* Strings need no alignment: they take bytes from the top of the current
     * chunk (aligned blocks come from its bottom), so a name of 9 bytes does
     * not take 16. */
    char *p;
    if ((size_t)(ar->end - ar->cur) > n) p = ar->end -= n + 1;
    else p = sba_arena_alloc(ar, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *sba_arena_strdup(sba_arena *ar, const char *s)
{
    return sba_arena_strndup(ar, s, strlen(s));
}

void sba_arena_adopt(sba_arena *dst, sba_arena *src)
{
    /* src's chunks go behind dst's current one, which stays the one dst
     * allocates from. */
    sba_arena_chunk *last = src->head;
    while (last && last->next) last = last->next;
    if (last) {
        if (dst->head) {
            last->next = dst->head->next;
            dst->head->next = src->head;
        } else {
            dst->head = src->head;
        }
    }
    dst->bytes += src->bytes;
    dst->failed |= src->failed;
    src->head = NULL;
    src->cur = src->end = NULL;
    src->bytes = 0;
}

bool sba_arena_grow(sba_arena *ar, void **data, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap) return true;
    uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 4;
    while (ncap < need) ncap *= 2;
    if (ncap > UINT32_MAX) ncap = UINT32_MAX;
    void *p = sba_arena_array(ar, (size_t)ncap, sz);
    if (!p) return false;
    if (*cap) memcpy(p, *data, (size_t)*cap * sz);
    *data = p;
    *cap = (uint32_t)ncap;
    return true;
}

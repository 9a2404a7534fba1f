/* Arena: a bump allocator over chunks from the library's one memory hook.
 * Nothing is freed alone: sba_arena_free releases everything at once. An
 * allocation that fails sets a sticky flag, checked once by the caller. */
#ifndef SBA_ARENA_H
#define SBA_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "sballoc/error.h"

typedef struct sba_arena_chunk sba_arena_chunk;

typedef struct sba_arena {
    const sba_allocator *a;
    sba_arena_chunk *head;
    char *cur, *end;
    size_t bytes;     /* bytes taken from the hook */
    bool failed;
} sba_arena;

void sba_arena_init(sba_arena *ar, const sba_allocator *a);
void sba_arena_free(sba_arena *ar);
/* 16-byte aligned, uninitialised; NULL (and failed set) when out of memory. */
void *sba_arena_alloc(sba_arena *ar, size_t size);
void *sba_arena_zalloc(sba_arena *ar, size_t size);
/* Array of n elements of size sz, zeroed; NULL on overflow or out of memory. */
void *sba_arena_array(sba_arena *ar, size_t n, size_t sz);
char *sba_arena_strdup(sba_arena *ar, const char *s);
char *sba_arena_strndup(sba_arena *ar, const char *s, size_t n);
/* Moves every block of src into dst (same allocator): they live until dst is
 * freed. src is left empty. */
void sba_arena_adopt(sba_arena *dst, sba_arena *src);
/* Grows an arena-held array to hold at least `need` elements (doubling);
 * returns false when out of memory. The old storage is abandoned in the arena. */
bool sba_arena_grow(sba_arena *ar, void **data, uint32_t *cap, uint32_t need, size_t sz);

/* The hook's own calls, for the few buffers that are not in an arena. */
void *sba_malloc(const sba_allocator *a, size_t size);
void *sba_realloc(const sba_allocator *a, void *p, size_t size);
void sba_free(const sba_allocator *a, void *p);

#endif

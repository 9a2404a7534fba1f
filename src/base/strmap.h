/* The hash map: string keys to pointers, open addressing with linear probing,
 * held in an arena. Keys are not copied: they must outlive the map (they are
 * the names already stored in the module). */
#ifndef SBA_STRMAP_H
#define SBA_STRMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"

/* No cached hash: 16 bytes a slot rather than 24, and a probe that meets
 * another key pays one strcmp, which mostly stops at the first byte. */
typedef struct sba_strmap_slot {
    const char *key;
    void *value;
} sba_strmap_slot;

typedef struct sba_strmap {
    sba_arena *ar;
    sba_strmap_slot *slots;
    uint32_t cap;   /* power of two, or 0 */
    uint32_t n;
} sba_strmap;

/* NULL when out of memory. */
sba_strmap *sba_strmap_new(sba_arena *ar);
void *sba_strmap_get(const sba_strmap *m, const char *key);
/* Inserts key -> value. Returns 1 when inserted, 0 when the key was present
 * (the map is unchanged and *existing gets its value), -1 out of memory. */
int sba_strmap_put(sba_strmap *m, const char *key, void *value, void **existing);
/* Room for n keys without rehashing (a table that doubles leaves its
 * smaller copies in the arena); false when out of memory. */
bool sba_strmap_reserve(sba_strmap *m, uint32_t n);
uint64_t sba_hash_str(const char *s);

/* The name index: names to positions in an array the caller keeps (the
 * names are those of its elements, found through `name`), open addressing
 * over 4-byte slots. For a table of every tensor of a function, where the
 * string map's 16-byte slots would be a tenth of the model. Positions are
 * only ever added. */
typedef const char *(*sba_nameidx_name)(const void *array, uint32_t i);

typedef struct sba_nameidx {
    sba_arena *ar;
    uint32_t *slots; /* position + 1; 0 is empty */
    uint32_t cap;    /* power of two, or 0 */
    uint32_t n;
} sba_nameidx;

void sba_nameidx_init(sba_nameidx *m, sba_arena *ar);
/* The position whose name is key, or UINT32_MAX. */
uint32_t sba_nameidx_get(const sba_nameidx *m, const char *key, sba_nameidx_name name, const void *array);
/* Adds position i (its name not yet present); false when out of memory. */
bool sba_nameidx_add(sba_nameidx *m, uint32_t i, sba_nameidx_name name, const void *array);
/* Room for n names without rehashing; false when out of memory. */
bool sba_nameidx_reserve(sba_nameidx *m, uint32_t n, sba_nameidx_name name, const void *array);

#endif

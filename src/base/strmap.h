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

#endif

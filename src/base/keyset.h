/* A set of 64-bit hash keys of fixed size, for the searches' nogood caches:
 * open addressing on the key's high bits; full at half its slots, then it
 * only reads (a search that forgets a failure only searches again). Slots
 * are zeroed by the caller; a key is stored with its low bit set, so 0 marks
 * an empty slot. `cap` is a power of two. */
#ifndef SBA_BASE_KEYSET_H
#define SBA_BASE_KEYSET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sba_keyset {
    uint64_t *slot;
    uint32_t cap, n;
} sba_keyset;

static inline bool sba_keyset_has(const sba_keyset *s, uint64_t key)
{
    key |= 1;
    for (uint32_t i = (uint32_t)(key >> 40) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == key) return true;
        if (!s->slot[i]) return false;
    }
}

static inline void sba_keyset_add(sba_keyset *s, uint64_t key)
{
    key |= 1;
    if (s->n >= s->cap / 2) return;
    uint32_t i = (uint32_t)(key >> 40) & (s->cap - 1);
    while (s->slot[i] && s->slot[i] != key) i = (i + 1) & (s->cap - 1);
    if (!s->slot[i]) s->slot[i] = key, s->n++;
}

#endif

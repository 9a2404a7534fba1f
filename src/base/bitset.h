/* Fixed-size bit sets held in an arena. */
#ifndef SBA_BITSET_H
#define SBA_BITSET_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"

typedef struct sba_bitset {
    uint64_t *w;
    uint64_t nbits;
} sba_bitset;

/* All bits clear; false when out of memory. */
bool sba_bitset_init(sba_bitset *b, sba_arena *ar, uint64_t nbits);
static inline bool sba_bitset_test(const sba_bitset *b, uint64_t i)
{
    return (b->w[i >> 6] >> (i & 63)) & 1u;
}
static inline void sba_bitset_set(sba_bitset *b, uint64_t i) { b->w[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void sba_bitset_clear(sba_bitset *b, uint64_t i) { b->w[i >> 6] &= ~((uint64_t)1 << (i & 63)); }
/* Sets bit i and returns whether it was already set. */
static inline bool sba_bitset_test_and_set(sba_bitset *b, uint64_t i)
{
    bool was = sba_bitset_test(b, i);
    sba_bitset_set(b, i);
    return was;
}
uint64_t sba_bitset_count(const sba_bitset *b);
void sba_bitset_reset(sba_bitset *b);

#endif

/* Bit sets: see bitset.h. */
#include "base/bitset.h"

#include <string.h>

bool sba_bitset_init(sba_bitset *b, sba_arena *ar, uint64_t nbits)
{
    b->nbits = nbits;
    /* The word count below would wrap for the largest sizes. */
    if (nbits > UINT64_MAX - 128) {
        b->w = NULL;
        ar->failed = true;
        return false;
    }
    b->w = sba_arena_array(ar, (size_t)((nbits + 63) / 64 + 1), sizeof *b->w);
    return b->w != NULL;
}

uint64_t sba_bitset_count(const sba_bitset *b)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < (b->nbits + 63) / 64; i++) n += (uint64_t)__builtin_popcountll(b->w[i]);
    return n;
}

void sba_bitset_reset(sba_bitset *b)
{
    memset(b->w, 0, (size_t)((b->nbits + 63) / 64) * sizeof *b->w);
}

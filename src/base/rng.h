/* A seeded stream, splitmix64: the same seed gives the same numbers on every
 * machine, so the generators give the same module for the same arguments and
 * the packer's randomized restarts the same placement. */
#ifndef SBA_BASE_RNG_H
#define SBA_BASE_RNG_H

#include <stdint.h>

typedef struct sba_rng {
    uint64_t s;
} sba_rng;

/* splitmix64's finalizer: a 64-bit mix, also the searches' hash of a key. */
static inline uint64_t sba_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t sba_rng_next(sba_rng *r) { return sba_mix64(r->s += 0x9E3779B97F4A7C15ull); }

/* Luby's sequence 1 1 2 1 1 2 4 1 1 2 ... (i from 1): the searches'
 * restart limits, which cut heavy-tailed search times short. */
static inline uint64_t sba_luby(uint64_t i)
{
    for (;;) {
        uint64_t k = 1;
        while (((uint64_t)1 << k) - 1 < i) k++;
        if (i == ((uint64_t)1 << k) - 1) return (uint64_t)1 << (k - 1);
        i -= ((uint64_t)1 << (k - 1)) - 1;
    }
}

#endif

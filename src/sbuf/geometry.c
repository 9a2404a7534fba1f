/* Geometry of the 2-D colourer: height classes, the vertical impact table,
 * sb_impact() and sb_possible_placements().
 *
 * Height classes (seed 000; band-base count {3,3,3,3,3,2,2,2,1} is the last
 * band index, the divisor {32,32,32,32,32,64,64,64,128} the band width):
 *   0    any quarter  (bases 0/32/64/96)   5    any half (bases 0/64)
 *   1-4  the quarter at 0/32/64/96         6-7  the half at 0/64
 *   8    full (base 0)
 * vi[a][b] is the largest number of the candidate bands of a class-b node that
 * one placement of a class-a node overlaps; it is derived from the bands here,
 * not tabulated by hand (docs/passes.md prints it).
 *
 * sb_impact(i, j) = vi[H(j)][H(i)] × (units(i) + units(j) − 1): in one band, a
 * placed j blocks at most units(i)+units(j)−1 aligned offsets of i, so the sum
 * over neighbours bounds the placements they deny. sb_possible_placements(i) =
 * bands(H(i)) × (capacity units − units(i) + 1) is i's colour count k. */
#include "sbuf/sbuf.h"

uint32_t sb_height_bands(uint32_t h)
{
    if (h == 0) return 4;
    if (h == 5) return 2;
    return 1;
}

uint32_t sb_height_band_width(uint32_t h) { return h <= 4 ? 32 : h <= 7 ? 64 : 128; }

uint32_t sb_height_band_start(uint32_t h, uint32_t k)
{
    switch (h) {
    case 0: return 32 * k;
    case 1: case 2: case 3: case 4: return 32 * (h - 1);
    case 5: return 64 * k;
    case 6: return 0;
    case 7: return 64;
    default: return 0;
    }
}

/* Bases a class allows, as a mask with bit i for partition 32·i. */
static uint32_t class_mask(uint32_t h)
{
    uint32_t m = 0;
    for (uint32_t k = 0; k < sb_height_bands(h); k++) m |= 1u << (sb_height_band_start(h, k) / 32);
    return m;
}

uint32_t sb_height_class(int64_t p, int32_t base)
{
    if (p < 1 || p > 128) return SB_HEIGHTS;
    if (base < 0) return p <= 32 ? 0 : p <= 64 ? 5 : 8;
    if (base % 32) return SB_HEIGHTS;
    if (p <= 32) return base <= 96 ? 1 + (uint32_t)base / 32 : SB_HEIGHTS;
    if (p <= 64 && (base == 0 || base == 64)) return base == 0 ? 6 : 7;
    if (base == 0) return 8;
    return SB_HEIGHTS;
}

uint32_t sb_height_for_mask(int64_t p, uint32_t mask)
{
    uint32_t best = SB_HEIGHTS, best_bands = 0;
    for (uint32_t h = 0; h < SB_HEIGHTS; h++) {
        /* A tensor narrower than its band would fit a smaller class too; only
         * the classes the start-partition rule gives this height are valid:
         * 1-32 partitions 0-4, 33-64 5-7, 65-128 8. */
        if ((int64_t)sb_height_band_width(h) < p) continue;
        if (sb_height_band_width(h) != (p <= 32 ? 32u : p <= 64 ? 64u : 128u)) continue;
        if ((class_mask(h) & ~mask) != 0) continue;
        if (sb_height_bands(h) > best_bands) {
            best = h;
            best_bands = sb_height_bands(h);
        }
    }
    return best;
}

uint32_t sb_vertical_impact(uint32_t hj, uint32_t hi)
{
    uint32_t best = 0;
    for (uint32_t a = 0; a < sb_height_bands(hj); a++) {
        uint32_t lo = sb_height_band_start(hj, a), hi_ = lo + sb_height_band_width(hj);
        uint32_t n = 0;
        for (uint32_t b = 0; b < sb_height_bands(hi); b++) {
            uint32_t blo = sb_height_band_start(hi, b), bhi = blo + sb_height_band_width(hi);
            n += blo < hi_ && lo < bhi;
        }
        if (n > best) best = n;
    }
    return best;
}

int64_t sb_units(const sb_ctx *c, int64_t bytes)
{
    int64_t a = c->t->sbuf_align;
    return (bytes + a - 1) / a;
}

int64_t sb_impact(const sb_ctx *c, uint32_t i, uint32_t j)
{
    const sb_node *ni = &c->info[i], *nj = &c->info[j];
    return (int64_t)sb_vertical_impact(nj->height, ni->height) *
           (sb_units(c, ni->bytes) + sb_units(c, nj->bytes) - 1);
}

int64_t sb_possible_placements(const sb_ctx *c, uint32_t i)
{
    const sb_node *ni = &c->info[i];
    int64_t cap = c->t->sbuf_bytes / c->t->sbuf_align;
    int64_t rows = cap + 1 - sb_units(c, ni->bytes);
    if (rows < 0) rows = 0;
    return (int64_t)sb_height_bands(ni->height) * rows;
}

uint32_t sb_quarter_mask(int64_t base, int64_t partitions)
{
    uint32_t m = 0;
    for (int64_t q = 0; q < SBA_BANDS; q++)
        if (q * 32 < base + partitions && base < (q + 1) * 32) m |= 1u << q;
    return m;
}

/* psum_allocate: banks and addresses in the partial-sum buffer (PSUM).
 *
 * PSUM is `psum_banks` banks of `psum_bank_bytes` bytes in each of the
 * target's partitions (8 × 2 KiB on trn1–trn3), addressed at
 * `psum_alignment` (4 bytes). A partition's PSUM is one linear range of
 * psum_banks × psum_bank_bytes bytes, bank j being bytes [j × bank bytes,
 * (j + 1) × bank bytes). Every accessed PSUM location is a tile group:
 *
 * - Addressing (docs/format.md, "PSUM placements"): `bank` and `addr` say
 *   where block 0 starts, byte bank × bank bytes + addr of the linear range,
 *   with addr inside the bank; block k follows at + k × bytesPerBlock, as in
 *   SB (live_n = NBlocks). Each block is one tile (what one Matmult writes)
 *   and never crosses a bank boundary; the blocks together may run over
 *   consecutive banks. So a block larger than a bank is an error naming it,
 *   and so is a tensor whose blocks, laid end to end, cannot all avoid a
 *   boundary (three blocks of 1,536 bytes in 2,048-byte banks) or exceed
 *   PSUM.
 * - Space: P partitions at a base the start-partition rule allows (P > 64:
 *   0; 33–64: 0 or 64; ≤ 32: 0, 32, 64 or 96), narrowed by every access's own
 *   rule (bir_footprint.base_mask), × NBlocks × bytesPerBlock bytes rounded up
 *   to the alignment, from its first byte on.
 * - Time: the live range of the SBUF allocator (bir/live.c): first def to
 *   last use, extended across loops; an output lives to the end.
 * - Accumulation groups: a tile written by a Matmult that sits deeper in the
 *   loop nest than its last use (written repeatedly across a loop, read
 *   after) is a matmul accumulation group. It keeps its banks for its whole
 *   live range (every tile does: nothing moves), and has each bank it
 *   touches to itself while it is live: no other tile live at the same time
 *   shares one, so at most one accumulation group is in flight per bank (the
 *   hardware has one accumulation slot per bank) and no other write lands in
 *   a bank that is accumulating.
 * - Pack hints: tiles with the same pack_id_hint (≥ 0) go to the bank of the
 *   first of them placed (the bank of its block 0), when they fit there;
 *   else to any bank.
 * - Pre-placed tiles (bank and addr given; base defaults to the lowest
 *   allowed) are fixed obstacles, checked against the target block by block.
 *
 * Algorithm: first fit in program order. Fixed tiles first; then the others
 * by start point (then larger first, then set order). For each, banks are
 * tried in order (its hint's bank first) for a place wholly inside one bank,
 * and in each bank every allowed base: the byte ranges of placed tiles that
 * overlap it in time and partitions are swept in address order and the
 * lowest aligned gap wins (lowest address, then lowest base). Only when no
 * bank has room, a tile of several blocks is placed across banks: the same
 * sweep over the whole linear range (its hint's bank first), skipping
 * addresses where a boundary would cut a block and ranges that touch a bank
 * an accumulation group holds. A tile with no room is an error that names
 * the program point in its range where the most PSUM bytes are live, and
 * those tiles.
 *
 * Requires: def-use lists and an indexed function. Produces: bank, addr,
 * base, live_n, dims, allocated of every accessed PSUM location; the PSUM
 * fields of the report. Complexity: O(T² × banks × 4) for T tiles, plus
 * O(banks² × bank bytes / alignment) per tile placed across banks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "bir/live.h"
#include "psum/psum.h"
#include "sballoc/program.h"

typedef struct ptile {
    bir_location *loc;
    int64_t parts, bpb, nblk;    /* P; bytesPerBlock; NBlocks */
    int64_t raw, bytes;          /* NBlocks × bytesPerBlock; aligned footprint */
    uint32_t mask;               /* allowed bases, bit i = partition 32·i */
    uint32_t start, end;         /* live interval, inclusive points */
    uint32_t order;              /* position in set order */
    bool accum, fixed, placed;
    int64_t bank, addr;          /* block 0: its bank and its address in the bank */
    int32_t base;
} ptile;

typedef struct pctx {
    bir_function *fn;
    const sba_target *t;
    const sba_alloc_options *o;
    sba_error *err;
    sba_arena ar;
    bir_linear lin;
    int64_t bank_bytes, total;   /* one bank, every bank: bytes per partition */
    ptile *tiles;
    uint32_t n;
    int64_t (*gaps)[2];          /* scratch: blocked byte ranges, linear addresses */
    bool *busy;                  /* scratch: banks an accumulation group keeps from the tile being placed */
} pctx;

#define plog(c, ...) sba_alloc_log((c)->o, __VA_ARGS__)

static int64_t align_up(int64_t x, int64_t a) { return a > 1 ? (x + a - 1) / a * a : x; }

/* x + y, saturated: an addr given in the input may be any int64 ≥ 0. */
static int64_t sat_add(int64_t x, int64_t y)
{
    int64_t r;
    return __builtin_add_overflow(x, y, &r) ? INT64_MAX : r;
}

/* A placed tile's first byte in the linear PSUM range of a partition. */
static int64_t linear(const pctx *c, const ptile *tl) { return tl->bank * c->bank_bytes + tl->addr; }

/* The last bank a placed tile touches. */
static int64_t last_bank(const pctx *c, const ptile *tl) { return (linear(c, tl) + tl->bytes - 1) / c->bank_bytes; }

/* The start-partition rule for P, narrowed by every access of loc. */
static sba_status base_mask(pctx *c, const bir_location *loc, int64_t p, uint32_t *mask)
{
    sba_status st = bir_location_base_mask(loc, p, mask, c->err);
    if (st != SBA_OK) return st;
    /* bases whose band runs past the target's partitions are out too */
    for (uint32_t i = 0; i < 4; i++)
        if (32 * (int64_t)i + p > (int64_t)c->t->partitions) *mask &= ~(1u << i);
    return SBA_OK;
}

/* Written by a Matmult nested deeper than its last use: an accumulation group. */
static bool is_accumulation(const pctx *c, const bir_location *loc, const bir_inst *last_use)
{
    const bir_linear *lin = &c->lin;
    for (uint32_t k = 0; k < loc->storage.nwriters; k++) {
        const bir_inst *w = loc->storage.writers[k].inst;
        if (w->opcode != BIR_OP_MATMULT || !last_use) continue;
        uint32_t dw = lin->depth[w->index], du = lin->depth[last_use->index], common = 0;
        while (common < dw && common < du && lin->nest[w->index][common] == lin->nest[last_use->index][common])
            common++;
        if (dw > common) return true;
    }
    return false;
}

/* The blocks of a pre-placed tile of several blocks, from linear address
 * `at`: each inside one bank, the last one inside PSUM. */
static sba_status fixed_blocks(pctx *c, const ptile *tl, int64_t at)
{
    const int64_t B = c->bank_bytes;
    const char *name = tl->loc->name;
    if (sat_add(tl->loc->addr, tl->bpb) > B)
        return sba_err(c->err, SBA_ERR_MODEL, "pre-placed PSUM location \"%s\": block 0 at bytes [%lld, %lld) of "
                       "bank %lld crosses the end of the bank at %lld", name, (long long)tl->loc->addr,
                       (long long)sat_add(tl->loc->addr, tl->bpb), (long long)tl->loc->bank, (long long)B);
    int64_t end = at + tl->raw < c->total ? at + tl->raw : c->total;
    for (int64_t m = at / B + 1; m * B < end; m++) {
        int64_t d = m * B - at, k = d / tl->bpb, s = at + k * tl->bpb;
        if (d % tl->bpb)
            return sba_err(c->err, SBA_ERR_MODEL, "pre-placed PSUM location \"%s\": block %lld at bytes [%lld, %lld) "
                           "of bank %lld crosses the end of the bank at %lld", name, (long long)k,
                           (long long)(s % B), (long long)(s % B + tl->bpb), (long long)(s / B), (long long)B);
    }
    if (at + tl->raw > c->total) {
        int64_t d = c->total - at, k = d / tl->bpb, s = at + k * tl->bpb;
        if (d % tl->bpb)
            return sba_err(c->err, SBA_ERR_MODEL, "pre-placed PSUM location \"%s\": block %lld at bytes [%lld, %lld) "
                           "of bank %lld crosses the end of the bank at %lld", name, (long long)k,
                           (long long)(s % B), (long long)(s % B + tl->bpb), (long long)(s / B), (long long)B);
        return sba_err(c->err, SBA_ERR_MODEL, "pre-placed PSUM location \"%s\": block %lld falls in bank %lld, "
                       "outside [0, %u)", name, (long long)k, (long long)(s / B), c->t->psum_banks);
    }
    return SBA_OK;
}

static sba_status fixed_tile(pctx *c, ptile *tl)
{
    const bir_location *loc = tl->loc;
    int64_t bank = bir_location_bank(loc);
    if (bank >= (int64_t)c->t->psum_banks)
        return sba_err(c->err, SBA_ERR_MODEL, "pre-placed PSUM location \"%s\": bank %lld is outside [0, %u)",
                       loc->name, (long long)bank, c->t->psum_banks);
    if (loc->addr % c->t->psum_align != 0)
        return sba_err(c->err, SBA_ERR_MODEL, "pre-placed PSUM location \"%s\" at byte %lld is not a multiple "
                       "of the PSUM alignment %u", loc->name, (long long)loc->addr, c->t->psum_align);
    if (tl->nblk == 1 && sat_add(loc->addr, tl->raw) > c->bank_bytes)
        return sba_err(c->err, SBA_ERR_MODEL, "pre-placed PSUM location \"%s\" ends at byte %lld, beyond its "
                       "bank of %u bytes", loc->name, (long long)sat_add(loc->addr, tl->raw), c->t->psum_bank_bytes);
    if (tl->nblk > 1) {
        sba_status st = fixed_blocks(c, tl, bank * c->bank_bytes + loc->addr);
        if (st != SBA_OK) return st;
    }
    int32_t base = loc->base;
    if (base == BIR_NO_BASE)
        for (int32_t i = 3; i >= 0; i--)
            if (tl->mask >> i & 1u) base = 32 * i;
    if (base < 0 || base % 32 || base / 32 >= 4 || !(tl->mask >> (base / 32) & 1u))
        return sba_err(c->err, SBA_ERR_MODEL, "pre-placed PSUM location \"%s\": base partition %d is not "
                       "allowed for %lld partitions and the accesses of the tensor", loc->name, base,
                       (long long)tl->parts);
    tl->fixed = tl->placed = true;
    tl->bank = bank;
    tl->addr = loc->addr;
    tl->base = base;
    return SBA_OK;
}

static int64_t sweep(const pctx *c, const ptile *tl, int64_t lo, int64_t hi, bool whole, const int64_t (*iv)[2],
                     uint32_t ni, const bool *busy);

/* A tile's own size limits: a block inside one bank, the blocks laid end to
 * end somewhere in PSUM with no block cut by a bank boundary. */
static sba_status tile_size(pctx *c, const ptile *tl)
{
    const bir_set *set = tl->loc->set;
    const char *sn = set->name, *ln = tl->loc->name;
    if (tl->nblk == 1 && tl->bytes > c->bank_bytes)
        return sba_err(c->err, SBA_ERR_ALLOC, "PSUM tensor \"%s\" (location \"%s\") needs %lld bytes per "
                       "partition; a tile never crosses a bank boundary and a PSUM bank holds %u",
                       sn, ln, (long long)tl->bytes, c->t->psum_bank_bytes);
    if (tl->nblk == 1 || tl->bytes <= c->bank_bytes) return SBA_OK;
    if (tl->bpb > c->bank_bytes)
        return sba_err(c->err, SBA_ERR_ALLOC, "PSUM tensor \"%s\" (location \"%s\") needs %lld bytes per "
                       "partition in each of its %lld blocks; each block is a tile, a tile never crosses a bank "
                       "boundary and a PSUM bank holds %u", sn, ln, (long long)tl->bpb, (long long)tl->nblk,
                       c->t->psum_bank_bytes);
    if (tl->bytes > c->total)
        return sba_err(c->err, SBA_ERR_ALLOC, "PSUM tensor \"%s\" (location \"%s\") needs %lld bytes per "
                       "partition in its %lld blocks, more than the %u banks of %u bytes hold", sn, ln,
                       (long long)tl->bytes, (long long)tl->nblk, c->t->psum_banks, c->t->psum_bank_bytes);
    if (tl->loc->addr == BIR_NO_ADDR && sweep(c, tl, 0, c->total, false, NULL, 0, NULL) < 0)
        return sba_err(c->err, SBA_ERR_ALLOC, "PSUM tensor \"%s\" (location \"%s\"): its %lld blocks of %lld "
                       "bytes per partition lie one after another, and from no address do they all stay clear "
                       "of the boundaries of the %u-byte banks; a tile never crosses a bank boundary", sn, ln,
                       (long long)tl->nblk, (long long)tl->bpb, c->t->psum_bank_bytes);
    return SBA_OK;
}

static sba_status collect(pctx *c)
{
    bir_function *fn = c->fn;
    uint32_t n = 0;
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++) n += fn->sets[s]->locs[l]->type == BIR_MEM_PSUM;
    c->tiles = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *c->tiles);
    c->gaps = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *c->gaps);
    c->busy = sba_arena_array(&c->ar, (size_t)c->t->psum_banks + 1, sizeof *c->busy);
    bir_live_scratch ls;
    if (!c->tiles || !c->gaps || !c->busy || !bir_live_scratch_init(&ls, &c->lin, &c->ar))
        return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t s = 0; s < fn->nsets; s++) {
        bir_set *set = fn->sets[s];
        for (uint32_t l = 0; l < set->nlocs; l++) {
            bir_location *loc = set->locs[l];
            if (loc->type != BIR_MEM_PSUM || loc->storage.nreaders + loc->storage.nwriters == 0) continue;
            ptile *tl = &c->tiles[c->n];
            *tl = (ptile){.loc = loc, .order = c->n, .base = BIR_NO_BASE};
            tl->parts = bir_set_partitions(set);
            tl->nblk = bir_set_nblocks(set);
            tl->bpb = bir_set_bytes_per_block(set);
            tl->raw = tl->nblk * tl->bpb;
            tl->bytes = tl->raw > INT64_MAX / 2 ? tl->raw : align_up(tl->raw, c->t->psum_align);
            sba_status st = tile_size(c, tl);
            if (st != SBA_OK) return st;
            if ((st = base_mask(c, loc, tl->parts, &tl->mask)) != SBA_OK) return st;
            if (!tl->mask)
                return sba_err(c->err, SBA_ERR_MODEL, "%s: no base partition satisfies the start-partition rule "
                               "for every access of this %lld-partition PSUM tensor", loc->name,
                               (long long)tl->parts);
            bool entry = bir_tensor_kind_is_input(set->kind) || set->kind == BIR_TK_CONST;
            bir_live_interval iv;
            bir_live_locations(&ls, &loc, 1, entry, &iv);
            tl->start = iv.start;
            tl->end = bir_tensor_kind_is_output(set->kind) && c->lin.npoints ? c->lin.npoints - 1 : iv.end;
            tl->accum = is_accumulation(c, loc, iv.last_use);
            bool has_addr = loc->addr != BIR_NO_ADDR;
            if (loc->has_bank != has_addr)
                return sba_err(c->err, SBA_ERR_MODEL, "PSUM location \"%s\" of set \"%s\" gives %s but not %s: a "
                               "pre-placed PSUM location needs both bank and addr", loc->name, set->name,
                               has_addr ? "addr" : "bank", has_addr ? "bank" : "addr");
            if (has_addr && (st = fixed_tile(c, tl)) != SBA_OK) return st;
            c->n++;
        }
    }
    return SBA_OK;
}

static bool overlap_time(const ptile *a, const ptile *b) { return a->start <= b->end && b->start <= a->end; }

static int cmp_gap(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* The linear byte ranges that placed tiles overlapping tl in time and in
 * partitions (tl at `base`) hold, sorted and merged into c->gaps; their count. */
static uint32_t obstacles(pctx *c, const ptile *tl, int32_t base)
{
    uint32_t ng = 0;
    for (uint32_t j = 0; j < c->n; j++) {
        const ptile *o = &c->tiles[j];
        if (!o->placed || o == tl || !overlap_time(o, tl)) continue;
        if (o->base >= base + tl->parts || base >= o->base + o->parts) continue;
        c->gaps[ng][0] = linear(c, o);
        c->gaps[ng][1] = linear(c, o) + o->bytes;
        ng++;
    }
    qsort(c->gaps, ng, sizeof *c->gaps, cmp_gap);
    uint32_t w = 0;
    for (uint32_t g = 0; g < ng; g++) {
        if (w && c->gaps[g][0] <= c->gaps[w - 1][1]) {
            if (c->gaps[g][1] > c->gaps[w - 1][1]) c->gaps[w - 1][1] = c->gaps[g][1];
        } else {
            c->gaps[w][0] = c->gaps[g][0];
            c->gaps[w++][1] = c->gaps[g][1];
        }
    }
    return w;
}

/* The lowest aligned linear address in [lo, hi) from which tl fits: inside
 * PSUM, with no block cut by a bank boundary (whole: no boundary inside the
 * tile at all), clear of the sorted disjoint ranges iv[0..ni), and touching
 * no bank marked in busy (may be NULL); -1 if none. */
static int64_t sweep(const pctx *c, const ptile *tl, int64_t lo, int64_t hi, bool whole, const int64_t (*iv)[2],
                     uint32_t ni, const bool *busy)
{
    const int64_t B = c->bank_bytes, align = c->t->psum_align;
    const int64_t span = whole ? tl->bytes : tl->bpb, len = whole ? tl->bytes : tl->raw;
    uint32_t p = 0;
    for (int64_t at = align_up(lo, align); at < hi;) {
        if (at + tl->bytes > c->total) return -1;
        /* a boundary inside a block: shift the tile until the boundary falls
         * between two blocks (whole: past the boundary) */
        int64_t shift = 0;
        for (int64_t m = at / B + 1; m * B < at + len && !shift; m++) shift = (m * B - at) % span;
        if (shift) {
            at = align_up(at + shift, align);
            continue;
        }
        while (p < ni && iv[p][1] <= at) p++;
        if (p < ni && iv[p][0] < at + tl->bytes) {
            at = align_up(iv[p][1], align);
            continue;
        }
        int64_t j = at / B, last = (at + tl->bytes - 1) / B;
        while (busy && j <= last && !busy[j]) j++;
        if (busy && j <= last) {
            at = align_up((j + 1) * B, align);
            continue;
        }
        return at;
    }
    return -1;
}

/* An accumulation group in flight has its banks to itself: bank j is busy
 * for tl when a tile live at the same time touches it and either is a group. */
static void mark_busy(pctx *c, const ptile *tl)
{
    memset(c->busy, 0, c->t->psum_banks * sizeof *c->busy);
    for (uint32_t j = 0; j < c->n; j++) {
        const ptile *o = &c->tiles[j];
        if (!o->placed || o == tl || !(o->accum || tl->accum) || !overlap_time(o, tl)) continue;
        for (int64_t b = o->bank; b <= last_bank(c, o) && b < (int64_t)c->t->psum_banks; b++) c->busy[b] = true;
    }
}

/* Places tl at the lowest address in [lo, hi) over its allowed bases (then
 * the lowest base). */
static bool try_range(pctx *c, ptile *tl, int64_t lo, int64_t hi, bool whole)
{
    int64_t best = -1;
    int32_t best_base = 0;
    for (int32_t i = 0; i < 4; i++) {
        if (!(tl->mask >> i & 1u)) continue;
        uint32_t ni = obstacles(c, tl, 32 * i);
        int64_t a = sweep(c, tl, lo, hi, whole, (const int64_t(*)[2])c->gaps, ni, c->busy);
        if (a >= 0 && (best < 0 || a < best)) best = a, best_base = 32 * i;
    }
    if (best < 0) return false;
    tl->placed = true;
    tl->bank = best / c->bank_bytes;
    tl->addr = best % c->bank_bytes;
    tl->base = best_base;
    return true;
}

/* The bank of a placed tile with the same pack hint, or -1. */
static int64_t hint_bank(const pctx *c, const ptile *tl)
{
    if (tl->loc->pack_id_hint < 0) return -1;
    for (uint32_t j = 0; j < c->n; j++) {
        const ptile *o = &c->tiles[j];
        if (o->placed && o != tl && o->loc->pack_id_hint == tl->loc->pack_id_hint) return o->bank;
    }
    return -1;
}

/* Over-subscription: the point of tl's range where the most PSUM bytes are
 * live, and the tiles live there. */
static sba_status oversubscribed(pctx *c, const ptile *tl)
{
    uint32_t best = tl->start;
    int64_t best_bytes = -1;
    for (uint32_t p = tl->start; p <= tl->end; p++) {
        int64_t sum = 0;
        for (uint32_t j = 0; j < c->n; j++)
            if (c->tiles[j].start <= p && p <= c->tiles[j].end) sum += c->tiles[j].bytes;
        if (sum > best_bytes) best_bytes = sum, best = p;
    }
    char list[768];
    size_t len = 0;
    uint32_t shown = 0, more = 0, groups = 0;
    list[0] = '\0';
    for (uint32_t j = 0; j < c->n; j++) {
        const ptile *o = &c->tiles[j];
        if (!(o->start <= best && best <= o->end)) continue;
        groups += o->accum;
        if (shown < 10 && len < sizeof list - 96) {
            int w = snprintf(list + len, sizeof list - len, "%s%s (%lld bytes%s)", shown ? ", " : "", o->loc->name,
                             (long long)o->bytes, o->accum ? ", accumulation group" : "");
            if (w > 0) len += (size_t)w;
            shown++;
        } else {
            more++;
        }
    }
    if (more && len < sizeof list) snprintf(list + len, sizeof list - len, " and %u more", more);
    const bir_point *pt = &c->lin.points[best];
    char src[96];
    return sba_err(c->err, SBA_ERR_ALLOC,
                   "cannot allocate function \"%s\" in PSUM: %s does not fit: at point %u (%s%s%s) the tiles that "
                   "must be live need %lld bytes per partition and %u accumulation groups, with %u banks of %u "
                   "bytes: %s",
                   c->fn->name, tl->loc->name, best, pt->kind == BIR_PT_LOOP_END ? "end of " : "",
                   pt->inst->name, bir_inst_source(pt->inst, src, sizeof src), (long long)best_bytes, groups,
                   c->t->psum_banks, c->t->psum_bank_bytes, list);
}

static int cmp_tile(const void *x, const void *y)
{
    const ptile *a = *(const ptile *const *)x, *b = *(const ptile *const *)y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static sba_status place(pctx *c)
{
    ptile **order = sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *order);
    if (!order) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    uint32_t no = 0;
    const int64_t B = c->bank_bytes;
    for (uint32_t i = 0; i < c->n; i++)
        if (!c->tiles[i].fixed) order[no++] = &c->tiles[i];
    qsort(order, no, sizeof *order, cmp_tile);
    for (uint32_t k = 0; k < no; k++) {
        ptile *tl = order[k];
        mark_busy(c, tl);
        int64_t hb = hint_bank(c, tl);
        /* wholly inside one bank, the hint's first */
        bool ok = hb >= 0 && try_range(c, tl, hb * B, (hb + 1) * B, true);
        for (int64_t b = 0; !ok && b < (int64_t)c->t->psum_banks; b++)
            ok = b != hb && try_range(c, tl, b * B, (b + 1) * B, true);
        /* else its blocks across banks, block 0 in the hint's bank first */
        if (!ok && tl->nblk > 1)
            ok = (hb >= 0 && try_range(c, tl, hb * B, (hb + 1) * B, false)) || try_range(c, tl, 0, c->total, false);
        if (!ok) return oversubscribed(c, tl);
        if (hb >= 0 && tl->bank != hb)
            plog(c, "psum %s: pack hint %d does not fit bank %lld", tl->loc->name, tl->loc->pack_id_hint,
                 (long long)hb);
    }
    return SBA_OK;
}

static void commit(pctx *c, sba_function_report *rep)
{
    uint32_t banks = 0, groups = 0;
    bool *used = sba_arena_array(&c->ar, (size_t)c->t->psum_banks + 1, sizeof *used);
    for (uint32_t i = 0; i < c->n; i++) {
        ptile *tl = &c->tiles[i];
        bir_location *loc = tl->loc;
        int64_t last = last_bank(c, tl);
        for (int64_t b = tl->bank; used && b <= last && b < (int64_t)c->t->psum_banks; b++)
            if (!used[b]) used[b] = true, banks++;
        groups += tl->accum;
        char across[64] = "";
        if (last > tl->bank) snprintf(across, sizeof across, ", blocks across banks %lld-%lld", (long long)tl->bank,
                                      (long long)last);
        plog(c, "psum %s: bank %lld, addr %lld, base %d, %lld bytes, live [%u, %u]%s%s%s", loc->name,
             (long long)tl->bank, (long long)tl->addr, tl->base, (long long)tl->bytes, tl->start, tl->end, across,
             tl->accum ? ", accumulation group" : "", tl->fixed ? ", pre-placed" : "");
        if (tl->fixed && loc->base != BIR_NO_BASE) continue;
        if (!tl->fixed) { /* a pre-placed bank keeps the sign it was given */
            loc->bank = tl->bank;
            loc->has_bank = true;
            loc->addr = tl->addr;
        }
        loc->base = tl->base;
        if (tl->fixed) continue;
        loc->live_n = tl->nblk;
        loc->dims[0] = tl->parts;
        loc->dims[1] = tl->raw;
        loc->has_dims = true;
        bir_location_set_allocated(loc, true);
    }
    if (c->n) plog(c, "PSUM: %u tiles in %u banks, %u accumulation groups", c->n, banks, groups);
    if (rep) {
        rep->psum_tiles = c->n;
        rep->psum_banks_used = banks;
        rep->psum_accum_groups = groups;
    }
}

sba_status sba_psum_allocate(bir_function *fn, const sba_target *t, const sba_alloc_options *o,
                         sba_function_report *rep, sba_error *err)
{
    pctx c = {.fn = fn, .t = t, .o = o, .err = err, .bank_bytes = t->psum_bank_bytes,
              .total = (int64_t)t->psum_banks * t->psum_bank_bytes};
    sba_arena_init(&c.ar, fn->module->arena->a);
    sba_status st = bir_linearize(fn, &c.ar, &c.lin, err);
    if (st == SBA_OK) st = collect(&c);
    if (st == SBA_OK) st = place(&c);
    if (st == SBA_OK) commit(&c, rep);
    if (st == SBA_OK && c.ar.failed) st = sba_err(err, SBA_ERR_NOMEM, "out of memory");
    sba_arena_free(&c.ar);
    return st;
}

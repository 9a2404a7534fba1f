/* build: the interference graph and the SB pressure profile.
 *
 * Two nodes interfere iff their live intervals overlap in time; geometry is
 * not in the edge but in sb_impact(). The graph has the seed's two
 * representations: the triangular bit matrix (bit lo + hi²/2, (n²+15)/16 bytes)
 * for O(1) membership, kept only up to SB_MATRIX_MAX nodes (8,192: 4 MiB),
 * since at 100k nodes it would take 625 MB; and adjacency lists in one
 * compressed array, memory O(n + E). Edges come from a sweep over intervals
 * in live_range's first_defs order (by start point), with the live nodes in a
 * min-heap by end: O(n log n + E), run twice (count degrees, then fill).
 *
 * Pressure: per program point and quarter band, the bytes of nodes whose band
 * is fixed there, and the quarter-weighted sum of all live bytes. Their peaks
 * give the lower bounds the report prints; a fixed band over capacity logs
 * "bad height".
 *
 * Requires: live_range (its first_defs map). Produces: adj, degree, the matrix, edges, lower
 * bounds. Complexity: as above, plus O(points) for the profile. */
#include <string.h>

#include "base/error.h"
#include "sbuf/sbuf.h"

enum { SB_MATRIX_MAX = 8192 };

uint64_t sb_bit_index(uint32_t a, uint32_t b)
{
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    return lo + ((hi * hi) >> 1);
}

bool sb_interferes(const sb_ctx *c, uint32_t a, uint32_t b)
{
    if (a == b) return false;
    if (c->has_matrix) return sba_bitset_test(&c->matrix, sb_bit_index(a, b));
    const sb_node *x = &c->info[a], *y = &c->info[b];
    return x->start <= y->end && y->start <= x->end;
}

/* Min-heap of node ids by interval end. */
typedef struct heap {
    uint32_t *v;
    uint32_t n;
} heap;

static void heap_push(const sb_node *info, heap *h, uint32_t x)
{
    uint32_t i = h->n++;
    while (i && info[h->v[(i - 1) / 2]].end > info[x].end) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static void heap_pop(const sb_node *info, heap *h)
{
    uint32_t x = h->v[--h->n], i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < h->n && info[h->v[l]].end < info[x].end) m = l;
        if (l + 1 < h->n && info[h->v[l + 1]].end < info[m == i ? x : h->v[m]].end) m = l + 1;
        if (m == i) break;
        h->v[i] = h->v[m];
        i = m;
    }
    if (h->n) h->v[i] = x;
}

/* One sweep; fill == false counts degrees, fill == true appends neighbours. */
static void sweep(sb_ctx *c, const uint32_t *order, uint32_t norder, heap *h, bool fill)
{
    h->n = 0;
    for (uint32_t k = 0; k < norder; k++) {
        uint32_t v = order[k];
        sb_node *nv = &c->info[v];
        while (h->n && c->info[h->v[0]].end < nv->start) heap_pop(c->info, h);
        for (uint32_t j = 0; j < h->n; j++) {
            uint32_t w = h->v[j];
            if (!fill) {
                c->info[v].degree++;
                c->info[w].degree++;
                if (c->has_matrix) sba_bitset_set(&c->matrix, sb_bit_index(v, w));
            } else {
                c->info[v].adj[c->info[v].degree++] = w;
                c->info[w].adj[c->info[w].degree++] = v;
            }
        }
        heap_push(c->info, h, v);
    }
}

static uint32_t band_quarters(const sb_node *nd, uint32_t out[SBA_BANDS])
{
    uint32_t n = 0;
    if (nd->precoloured) {
        uint32_t touched = sb_quarter_mask(nd->base, nd->partitions);
        for (uint32_t q = 0; q < SBA_BANDS; q++)
            if (touched >> q & 1) out[n++] = q;
        return n;
    }
    if (sb_height_bands(nd->height) > 1) return 0; /* the band is not yet chosen */
    uint32_t s = sb_height_band_start(nd->height, 0), w = nd->band_width;
    for (uint32_t q = s / 32; q < (s + w) / 32; q++) out[n++] = q;
    return n;
}

static sba_status pressure(sb_ctx *c)
{
    uint32_t np = c->lin.npoints + 2;
    int64_t *total = sba_arena_array(&c->ar, np, sizeof *total);
    int64_t *weighted = sba_arena_array(&c->ar, np, sizeof *weighted);
    int64_t *fixed = sba_arena_array(&c->ar, (size_t)np * SBA_BANDS, sizeof *fixed);
    if (!total || !weighted || !fixed) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t r = 0; r < c->n; r++) {
        const sb_node *nd = &c->info[r];
        if (nd->rep != r) continue;
        total[nd->start] += nd->bytes;
        total[nd->end + 1] -= nd->bytes;
        int64_t w = nd->bytes * (nd->precoloured ? (nd->partitions + 31) / 32 : nd->band_width / 32);
        weighted[nd->start] += w;
        weighted[nd->end + 1] -= w;
        uint32_t qs[SBA_BANDS], nq = band_quarters(nd, qs);
        for (uint32_t k = 0; k < nq; k++) {
            fixed[(size_t)nd->start * SBA_BANDS + qs[k]] += nd->bytes;
            fixed[(size_t)(nd->end + 1) * SBA_BANDS + qs[k]] -= nd->bytes;
        }
    }
    int64_t run = 0, wrun = 0, frun[SBA_BANDS] = {0}, peak = 0, wpeak = 0;
    memset(c->band_lb, 0, sizeof c->band_lb);
    bool bad = false;
    for (uint32_t p = 0; p < c->lin.npoints; p++) {
        run += total[p];
        wrun += weighted[p];
        if (run > peak) peak = run;
        if (wrun > wpeak) wpeak = wrun;
        for (uint32_t q = 0; q < SBA_BANDS; q++) {
            frun[q] += fixed[(size_t)p * SBA_BANDS + q];
            if (frun[q] > c->band_lb[q]) c->band_lb[q] = frun[q];
            if (frun[q] > c->t->sbuf_bytes) bad = true;
        }
        if (sb_dumping(c, SBA_DUMP_PRESSURE))
            sb_log(c, "pressure %u: %lld bytes; fixed [0,31] %lld [32,63] %lld [64,95] %lld [96,127] %lld", p,
                   (long long)run, (long long)frun[0], (long long)frun[1], (long long)frun[2],
                   (long long)frun[3]);
    }
    c->lower_bound = (wpeak + SBA_BANDS - 1) / SBA_BANDS;
    for (uint32_t q = 0; q < SBA_BANDS; q++)
        if (c->band_lb[q] > c->lower_bound) c->lower_bound = c->band_lb[q];
    sb_log(c, "SB pressure %lld bytes", (long long)peak);
    sb_log(c, "SB high-water mark = %lld bytes", (long long)c->lower_bound);
    for (uint32_t q = 0; q < SBA_BANDS; q++)
        sb_log(c, "%lld bytes in partitions [%u,%u]", (long long)c->band_lb[q], q * 32, q * 32 + 31);
    if (bad) sb_log(c, "bad height");
    if (c->rep) {
        /* per band: the peak of the bytes × quarters live, over the four
         * quarters; the plain sum would add tensors in different bands */
        c->rep->peak_pressure = (wpeak + SBA_BANDS - 1) / SBA_BANDS;
        c->rep->lower_bound_total = c->lower_bound;
        memcpy(c->rep->lower_bound, c->band_lb, sizeof c->band_lb);
    }
    return SBA_OK;
}

/* Two pre-placed rectangles that are live at once must not overlap: nothing
 * moves them, so the input contradicts itself. Raw bytes, not the aligned
 * footprint: the user placed exactly those. */
static sba_status check_preplaced(sb_ctx *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        const sb_node *a = &c->info[i];
        if (a->rep != i || !a->precoloured) continue;
        for (uint32_t k = 0; k < a->degree; k++) {
            const sb_node *b = &c->info[a->adj[k]];
            if (a->adj[k] < i || !b->precoloured) continue;
            int64_t ra = a->live_n * a->bytes_per_block, rb = b->live_n * b->bytes_per_block;
            if (a->base < b->base + b->partitions && b->base < a->base + a->partitions && a->addr < b->addr + rb &&
                b->addr < a->addr + ra)
                return sba_err(c->err, SBA_ERR_MODEL, "pre-placed %s and %s overlap while both are live: "
                               "partitions [%d, %lld) bytes [%lld, %lld) and partitions [%d, %lld) bytes "
                               "[%lld, %lld)", a->loc->name, b->loc->name, a->base,
                               (long long)(a->base + a->partitions), (long long)a->addr, (long long)(a->addr + ra),
                               b->base, (long long)(b->base + b->partitions), (long long)b->addr,
                               (long long)(b->addr + rb));
        }
    }
    return SBA_OK;
}

sba_status sb_build(sb_ctx *c)
{
    sb_log(c, "build interference graph");
    /* live_range's first_defs map is the representatives by start point
     * (stable by id): the sweep's order. */
    const uint32_t *order = c->first_defs, nrep = c->first_defs_of[c->lin.npoints];
    heap h = {sba_arena_array(&c->ar, (size_t)c->n + 1, sizeof *h.v), 0};
    if (!h.v) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    c->has_matrix = c->n <= SB_MATRIX_MAX;
    if (c->has_matrix && !sba_bitset_init(&c->matrix, &c->ar, ((uint64_t)c->n * c->n + 15) / 16 * 8))
        return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < c->n; i++) c->info[i].degree = 0;
    sweep(c, order, nrep, &h, false);
    uint64_t edges = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        edges += c->info[i].degree;
        c->info[i].adj = c->info[i].degree ? sba_arena_array(&c->ar, c->info[i].degree, sizeof(uint32_t)) : NULL;
        if (c->info[i].degree && !c->info[i].adj) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        c->info[i].degree = 0;
    }
    sweep(c, order, nrep, &h, true);
    c->edges = edges / 2;
    if (c->rep) {
        c->rep->edges = c->edges;
        c->rep->points = c->lin.npoints;
    }
    sb_log(c, "%u nodes, %llu edges", nrep, (unsigned long long)c->edges);
    sba_status st = check_preplaced(c);
    if (st != SBA_OK) return st;
    if (sb_dumping(c, SBA_DUMP_IGRAPH))
        for (uint32_t i = 0; i < c->n; i++)
            for (uint32_t k = 0; k < c->info[i].degree; k++) {
                uint32_t j = c->info[i].adj[k];
                if (j > i)
                    sb_log(c, "edge %s -- %s impact %lld/%lld", c->info[i].loc->name, c->info[j].loc->name,
                           (long long)sb_impact(c, i, j), (long long)sb_impact(c, j, i));
            }
    return pressure(c);
}

/* space: the verifier's ownership map and key map (see space.h).
 *
 * Algorithm: a write of partitions [p0, p1) x bytes [x0, x1) visits each page
 * the bytes cross; in a page it makes segment boundaries at x0 and x1 (a
 * binary search and at most two insertions), rewrites the partition runs of
 * the segments between them, and merges the segments around the range whose
 * runs became equal. A scan binary-searches the first segment and walks on.
 *
 * Requires: rectangles inside the space (the caller clips). Produces: nothing
 * outside the space and the pool. Complexity: a write costs O(pages crossed ×
 * (log S + S_moved + touched segments × runs)), S the segments of a page;
 * pages keep S small even when the whole SBUF is fragmented. */
#include "verify/space.h"

#include <string.h>

/* ---- run arrays -------------------------------------------------------- */

static uint32_t class_for(uint32_t n)
{
    uint32_t c = 0;
    while (c + 1 < VSPACE_CLASSES && (2u << c) < n) c++;
    return c;
}

static vrun *runs_alloc(vpool *pool, uint32_t cls)
{
    vrun *r = pool->free[cls];
    if (r) {
        memcpy(&pool->free[cls], (const void *)r, sizeof pool->free[cls]);
        return r;
    }
    return sba_arena_alloc(pool->ar, sizeof(vrun) * ((size_t)2 << cls));
}

static void runs_free(vpool *pool, vrun *r, uint32_t cls)
{
    if (!r) return;
    memcpy((void *)r, &pool->free[cls], sizeof pool->free[cls]);
    pool->free[cls] = r;
}

static bool tmp_reserve(vpool *pool, uint32_t need)
{
    if (need <= pool->captmp) return true;
    uint32_t cap = pool->captmp ? pool->captmp : 16;
    while (cap < need) cap *= 2;
    vrun *t = sba_arena_alloc(pool->ar, sizeof(vrun) * (size_t)cap);
    if (!t) return false;
    pool->tmp = t;
    pool->captmp = cap;
    return true;
}

/* Stores n runs into seg, reusing its array when the class fits. */
static bool seg_store(vpool *pool, vseg *seg, const vrun *r, uint32_t n)
{
    if (!seg->r || (2u << seg->cls) < n) {
        uint32_t cls = class_for(n);
        vrun *nr = runs_alloc(pool, cls);
        if (!nr) return false;
        runs_free(pool, seg->r, seg->cls);
        seg->r = nr;
        seg->cls = cls;
    }
    memmove(seg->r, r, sizeof(vrun) * n);
    seg->n = n;
    return true;
}

static bool runs_equal(const vseg *a, const vseg *b)
{
    return a->n == b->n && memcmp(a->r, b->r, sizeof(vrun) * a->n) == 0;
}

static void push_run(vrun *out, uint32_t *m, vrun r)
{
    if (r.p0 >= r.p1) return;
    if (*m && out[*m - 1].p1 == r.p0 && out[*m - 1].val == r.val && out[*m - 1].by == r.by) {
        out[*m - 1].p1 = r.p1;
        return;
    }
    out[(*m)++] = r;
}

/* Replaces partitions [p0, p1) of seg's runs by (val, by), merging neighbours. */
static bool seg_set(vpool *pool, vseg *seg, uint32_t p0, uint32_t p1, uint32_t val, uint32_t by)
{
    if (!tmp_reserve(pool, seg->n + 2)) return false;
    vrun *out = pool->tmp, nw = {p0, p1, val, by};
    uint32_t m = 0;
    bool done = false;
    for (uint32_t i = 0; i < seg->n; i++) {
        vrun r = seg->r[i];
        if (r.p1 <= p0) {
            push_run(out, &m, r);
        } else if (r.p0 >= p1) {
            if (!done) push_run(out, &m, nw), done = true;
            push_run(out, &m, r);
        } else {
            push_run(out, &m, (vrun){r.p0, r.p0 < p0 ? p0 : r.p0, r.val, r.by});
            if (!done) push_run(out, &m, nw), done = true;
            push_run(out, &m, (vrun){r.p1 > p1 ? p1 : r.p1, r.p1, r.val, r.by});
        }
    }
    if (!done) push_run(out, &m, nw);
    return seg_store(pool, seg, out, m);
}

/* ---- pages ------------------------------------------------------------- */

static int64_t page_lo(const vspace *s, uint32_t p) { return s->lo + (int64_t)p * s->page_bytes; }

static int64_t page_hi(const vspace *s, uint32_t p)
{
    int64_t hi = page_lo(s, p) + s->page_bytes;
    return hi < s->hi ? hi : s->hi;
}

/* Gives an untouched page its one initial segment. */
static bool page_materialize(const vspace *s, vpool *pool, vpage *pg, uint32_t p)
{
    if (pg->n) return true;
    if (!sba_arena_grow(pool->ar, (void **)&pg->s, &pg->cap, 4, sizeof *pg->s)) return false;
    vseg seg = {page_lo(s, p), NULL, 0, 0};
    vrun r = {0, s->nparts, s->init_val, VSPACE_NO_WRITER};
    if (!seg_store(pool, &seg, &r, 1)) return false;
    pg->s[0] = seg;
    pg->n = 1;
    return true;
}

/* Index of the last segment starting at or before x (the one holding x). */
static uint32_t page_find(const vpage *pg, int64_t x)
{
    uint32_t lo = 0, hi = pg->n; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pg->s[mid].lo <= x) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Makes a segment boundary at x (inside the page) and returns the index of
 * the segment starting there. UINT32_MAX when out of memory. */
static uint32_t page_split(vpool *pool, vpage *pg, int64_t x)
{
    uint32_t i = page_find(pg, x);
    if (pg->s[i].lo == x) return i;
    if (!sba_arena_grow(pool->ar, (void **)&pg->s, &pg->cap, pg->n + 1, sizeof *pg->s)) return UINT32_MAX;
    vseg seg = {x, NULL, 0, 0};
    if (!seg_store(pool, &seg, pg->s[i].r, pg->s[i].n)) return UINT32_MAX;
    memmove(&pg->s[i + 2], &pg->s[i + 1], sizeof *pg->s * (pg->n - i - 1));
    pg->s[i + 1] = seg;
    pg->n++;
    return i + 1;
}

/* Merges equal neighbours among segments [a, b] (inclusive indices). */
static void page_coalesce(vpool *pool, vpage *pg, uint32_t a, uint32_t b)
{
    if (b >= pg->n) b = pg->n - 1;
    uint32_t w = a;
    for (uint32_t t = a + 1; t <= b; t++) {
        if (runs_equal(&pg->s[w], &pg->s[t])) runs_free(pool, pg->s[t].r, pg->s[t].cls);
        else pg->s[++w] = pg->s[t];
    }
    uint32_t removed = b - w;
    if (!removed) return;
    memmove(&pg->s[w + 1], &pg->s[b + 1], sizeof *pg->s * (pg->n - b - 1));
    pg->n -= removed;
}

static bool page_write(const vspace *s, vpool *pool, uint32_t p, uint32_t p0, uint32_t p1, int64_t x0,
                       int64_t x1, uint32_t val, uint32_t by)
{
    vpage *pg = &s->pages[p];
    if (!page_materialize(s, pool, pg, p)) return false;
    uint32_t i = page_split(pool, pg, x0);
    if (i == UINT32_MAX) return false;
    uint32_t j = pg->n;
    if (x1 < page_hi(s, p)) {
        j = page_split(pool, pg, x1);
        if (j == UINT32_MAX) return false;
    }
    for (uint32_t t = i; t < j; t++)
        if (!seg_set(pool, &pg->s[t], p0, p1, val, by)) return false;
    page_coalesce(pool, pg, i ? i - 1 : 0, j);
    return true;
}

/* ---- entry points ------------------------------------------------------ */

void sba_vpool_init(vpool *pool, sba_arena *ar)
{
    memset(pool, 0, sizeof *pool);
    pool->ar = ar;
}

bool sba_vspace_init(vspace *s, vpool *pool, int64_t lo, int64_t hi, uint32_t nparts, uint32_t init_val,
                 int64_t page_bytes)
{
    memset(s, 0, sizeof *s);
    s->lo = lo;
    s->hi = hi > lo ? hi : lo + 1;
    s->nparts = nparts;
    s->init_val = init_val;
    int64_t span = s->hi - s->lo;
    s->page_bytes = page_bytes > 0 && page_bytes < span ? page_bytes : span;
    s->npages = (uint32_t)((span + s->page_bytes - 1) / s->page_bytes);
    s->pages = sba_arena_array(pool->ar, s->npages, sizeof *s->pages);
    if (!s->pages) s->npages = 0; /* out of memory: an empty space stays safe to walk */
    return s->pages != NULL;
}

bool sba_vspace_write(vspace *s, vpool *pool, uint32_t p0, uint32_t p1, int64_t x0, int64_t x1, uint32_t val,
                  uint32_t by)
{
    if (p0 >= p1 || x0 >= x1) return true;
    uint32_t first = (uint32_t)((x0 - s->lo) / s->page_bytes);
    uint32_t last = (uint32_t)((x1 - 1 - s->lo) / s->page_bytes);
    for (uint32_t p = first; p <= last; p++) {
        int64_t a = page_lo(s, p), b = page_hi(s, p);
        if (!page_write(s, pool, p, p0, p1, x0 > a ? x0 : a, x1 < b ? x1 : b, val, by)) return false;
    }
    return true;
}

int sba_vspace_scan(const vspace *s, uint32_t p0, uint32_t p1, int64_t x0, int64_t x1, vspace_visit visit,
                void *ud)
{
    if (p0 >= p1 || x0 >= x1) return 0;
    uint32_t first = (uint32_t)((x0 - s->lo) / s->page_bytes);
    uint32_t last = (uint32_t)((x1 - 1 - s->lo) / s->page_bytes);
    for (uint32_t p = first; p <= last; p++) {
        const vpage *pg = &s->pages[p];
        int64_t a = page_lo(s, p), b = page_hi(s, p);
        int64_t lo = x0 > a ? x0 : a, hi = x1 < b ? x1 : b;
        if (!pg->n) {
            vpiece pc = {lo, hi, p0, p1, s->init_val, VSPACE_NO_WRITER};
            int rc = visit(ud, &pc);
            if (rc) return rc;
            continue;
        }
        for (uint32_t i = page_find(pg, lo); i < pg->n && pg->s[i].lo < hi; i++) {
            const vseg *seg = &pg->s[i];
            int64_t end = i + 1 < pg->n ? pg->s[i + 1].lo : b;
            vpiece pc = {seg->lo > lo ? seg->lo : lo, end < hi ? end : hi, 0, 0, 0, 0};
            for (uint32_t k = 0; k < seg->n; k++) {
                const vrun *r = &seg->r[k];
                if (r->p1 <= p0 || r->p0 >= p1) continue;
                pc.p0 = r->p0 > p0 ? r->p0 : p0;
                pc.p1 = r->p1 < p1 ? r->p1 : p1;
                pc.val = r->val;
                pc.by = r->by;
                int rc = visit(ud, &pc);
                if (rc) return rc;
            }
        }
    }
    return 0;
}

uint64_t sba_vspace_segments(const vspace *s)
{
    uint64_t n = 0;
    for (uint32_t p = 0; p < s->npages; p++) n += s->pages[p].n ? s->pages[p].n : 1;
    return n;
}

/* ---- key map ----------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static uint64_t key_hash(vkey k) { return mix(k.a ^ mix((uint64_t)k.b)); }

static bool key_eq(vkey x, vkey y) { return x.a == y.a && x.b == y.b; }

void sba_vmap_init(vmap *m, sba_arena *ar)
{
    memset(m, 0, sizeof *m);
    m->ar = ar;
}

bool sba_vmap_get(const vmap *m, vkey k, uint32_t *v)
{
    if (!m->cap) return false;
    for (uint64_t i = key_hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const vmap_slot *s = &m->slots[i];
        if (!s->used) return false;
        if (key_eq(s->k, k)) {
            *v = s->v;
            return true;
        }
    }
}

static bool vmap_grow(vmap *m)
{
    if (m->cap >= (1u << 31)) return false;
    uint32_t cap = m->cap ? m->cap * 2 : 64;
    vmap_slot *slots = sba_arena_array(m->ar, cap, sizeof *slots);
    if (!slots) return false;
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].used) continue;
        uint64_t j = key_hash(m->slots[i].k) & (cap - 1);
        while (slots[j].used) j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    m->slots = slots;
    m->cap = cap;
    return true;
}

bool sba_vmap_put(vmap *m, vkey k, uint32_t v)
{
    if ((m->n + 1) * 4 > m->cap * 3 && !vmap_grow(m)) return false;
    for (uint64_t i = key_hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        vmap_slot *s = &m->slots[i];
        if (!s->used) {
            *s = (vmap_slot){k, v, true};
            m->n++;
            return true;
        }
        if (key_eq(s->k, k)) {
            s->v = v;
            return true;
        }
    }
}

/* skyline: the exact packer's bottom-left tiling search.
 *
 * The problem is search.c's: nodes live over a range of time sections, each
 * takes `size` bytes at one address in every quarter of one of its options;
 * fixed rectangles are obstacles. The search keeps, per place (section,
 * quarter), a floor: every byte below it is taken or given up, so the floors
 * are a skyline. Every decision is about one cell at the lowest floor h:
 *   - at the left end of a run of places at h (the place before it is
 *     higher, or nothing unplaced reaches it), whatever covers the byte h
 *     starts there and sits exactly at h (below is decided; h is the lowest);
 *   - at the right end of a run, when the place after it is higher, whatever
 *     covers it ends there.
 * Of a few such cells from the left, the one with the fewest candidates is
 * taken (fail first); the branches are its candidates — unplaced nodes of
 * that start (or end) with an option through the quarter whose footprint is
 * all at h and clear of fixed rectangles up to h + size — and last, leaving
 * the byte empty, which raises the run to the next useful height. This is
 * the classic perfect-packing search: where a section has no slack (its live
 * bytes fill every quarter, as in planted instances) nothing is ever left
 * empty there, and a wrong choice shows as a cell nothing can fill.
 *
 * Pruning, after every move. Per section, the slack — free bytes × quarters
 * above the floors less the unplaced nodes' demand there — falls only when
 * room is given up, and must stay >= 0. Per section and band set T (a
 * quarter, a half, all four), the nodes that take every quarter of T in all
 * their options sit above the highest floor of T, so their bytes must fit
 * there; the nodes that take either half share what the halves have left.
 * Where a section has no slack: every run end the move made or changed must
 * still have a candidate, and the room above each place of the node's first
 * and last section must be a sum of the sizes of unplaced nodes through it
 * (a subset sum over the room in alignment units).
 *
 * Parts and nogoods. Where no unplaced node crosses from one section to the
 * next the two sides pack apart, and a side that fails fails the whole
 * without retrying the other. A part's state — its floors and its unplaced
 * nodes — is hashed (Zobrist keys kept per quarter and section in Fenwick
 * trees of xors, so any part's key costs O(log K)); a state that failed is
 * kept in a hash set, across restarts, and never searched again. Where the
 * problem is the same under the quarter permutations that keep bands whole,
 * the key is the least over a state's images, so a state is known failed
 * however its quarters were filled.
 *
 * Order and restarts. Candidates are tried flush first (their other end
 * meets the run's end, so no new step is made), then level (their top meets
 * the floor beside the cell), then by area; of identical nodes only the
 * first unplaced is tried. A search that has backtracked too often restarts
 * with the order perturbed by a seeded stream, under limits that grow as
 * Luby's sequence: heavy-tailed search times are cut short, and the answer
 * is the same on every machine. Every step counts as work against the
 * caller's budget.
 *
 * Holes. Where a section has slack, a packing leaves room free, and the
 * empty branch gives it up: first the whole run at h from the cell on (a
 * few decisions per gap), then ever shorter parts of it, from the run's
 * end back to the cell itself. A hole of a function with slack often ends
 * where the run goes on and a node starts at h after it; given up whole,
 * the run takes room that sections after the hole do not have. The search
 * may still miss a packing that gives up less room in height than the
 * empty branch does (up to the next useful level); search.c keeps the
 * complete searches for that and for proofs. This search only ever packs.
 * Given a packing (p->guide_at), it follows it: at each cell only the node
 * the packing has there is tried, which the tests use to check that the
 * rules above keep every packing that leaves no byte free.
 *
 * Requires: nothing (a problem built by search.c). Produces: an address and
 * option per node. Complexity: O(log places) per floor change; exponential
 * in the worst case, bounded by the budget. */
#include <stdlib.h>
#include <string.h>

#include "base/keyset.h"
#include "base/rng.h"
#include "sbuf/sbuf.h"

#define NONE INT64_MAX
#define NO_NODE UINT32_MAX

enum { TR_FLOOR, TR_SLACK, TR_PLACE };
enum { LUBY_UNIT = 64, MAX_PROBES = 64, MAX_RUNS = 8, MAX_SUM_BITS = 8192, DEAD_SLOTS = 1 << 21 };

typedef struct sk_trail {
    uint32_t kind, idx;
    int64_t old;
} sk_trail;

typedef struct sk_cand {
    uint32_t node, opt;
    int64_t score;
} sk_cand;


typedef struct sky {
    const sb_pack_problem *p;
    sba_arena *ar;
    uint32_t K, Q, N, leaves;
    int64_t cap;
    int64_t *floor;        /* [k * Q + q] */
    int64_t *tree;         /* min over open places; leaves from `leaves` */
    uint32_t *ucount;      /* per section: unplaced nodes covering it */
    int64_t *slack;        /* per section */
    uint32_t *soff, *slist; /* nodes by first section (CSR) */
    uint32_t *eoff, *elist; /* nodes by last section (CSR) */
    uint32_t *coff, *clist; /* nodes by section covered (CSR) */
    uint32_t *foff;        /* fixed intervals per place (CSR), by lo */
    int64_t *flo, *fhi;
    uint8_t *must;         /* per node: the quarters every option takes */
    int64_t *dmust;        /* [k * 16 + m]: unplaced bytes of nodes with must == m */
    int64_t *dhalf;        /* per section: unplaced bytes of nodes taking either half */
    bool *halves;          /* per node: its options are the two halves */
    bool *placed;
    int64_t *off;
    uint32_t *opt;
    uint32_t nleft;
    uint32_t *runend, *runstart; /* per quarter, during one decision */
    sk_trail *trail;
    uint32_t ntrail, captrail;
    sk_cand *cands;
    uint32_t ncands, capcands;
    uint64_t work, budget, visited, fails, fail_limit;
    uint32_t lg;           /* ⌈log2(K)⌉ + 1: the steps of one Fenwick tree update or prefix */
    uint32_t *cross;       /* per section k: unplaced nodes covering k and k + 1 */
    bool split;            /* a placement emptied a crossing: the part may split */
    sba_rng rng;
    bool noise;
    uint64_t *bits;        /* the subset sums of column_fills */
    uint64_t *fkey[4], *nkey, *zkey; /* part keys: per quarter, per section floors; nodes; per node */
    bool sym;              /* the problem is the same under the band symmetries */
    sba_keyset dead;       /* the keys of states that cannot pack, kept across restarts */
    uint32_t *twin;        /* per node: the previous node of the same span, size and options */
} sky;

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* ---- places, floors and the min tree ------------------------------------ */

static int64_t leaf_value(const sky *S, uint32_t x)
{
    if (x >= S->N) return NONE;
    uint32_t k = x / S->Q;
    return S->ucount[k] && S->floor[x] < S->cap ? S->floor[x] : NONE;
}

static void refresh(sky *S, uint32_t x)
{
    uint32_t t = S->leaves + x;
    S->tree[t] = leaf_value(S, x);
    for (t /= 2; t >= 1; t /= 2) {
        int64_t a = S->tree[2 * t], b = S->tree[2 * t + 1];
        int64_t v = a < b ? a : b;
        if (S->tree[t] == v) break;
        S->tree[t] = v;
    }
    S->work += 2;
}

static bool push_trail(sky *S, uint32_t kind, uint32_t idx, int64_t old)
{
    if (!sba_arena_grow(S->ar, (void **)&S->trail, &S->captrail, S->ntrail + 1, sizeof *S->trail)) return false;
    S->trail[S->ntrail++] = (sk_trail){kind, idx, old};
    return true;
}

/* A part's key: its floors and its unplaced nodes, hashed (Zobrist), kept
 * per section in Fenwick trees of xors (floors by section, nodes by their
 * first section: no node of a part reaches outside it), so the key of any
 * range of sections costs O(log K). */
static void fen_xor(uint64_t *f, uint32_t K, uint32_t k, uint64_t v)
{
    for (uint32_t i = k + 1; i <= K; i += i & -i) f[i] ^= v;
}

static uint64_t fen_prefix(const uint64_t *f, uint32_t k) /* sections [0, k) */
{
    uint64_t v = 0;
    for (uint32_t i = k; i > 0; i -= i & -i) v ^= f[i];
    return v;
}

/* The quarter permutations that keep bands whole: either half's quarters
 * swapped, the halves swapped. */
static const uint8_t BAND_PERMS[8][4] = {{0, 1, 2, 3}, {1, 0, 2, 3}, {0, 1, 3, 2}, {1, 0, 3, 2},
                                         {2, 3, 0, 1}, {3, 2, 0, 1}, {2, 3, 1, 0}, {3, 2, 1, 0}};

/* Where the problem is the same under those permutations (no fixed
 * rectangle, every node's options closed under them), a state and its
 * permuted images pack alike: the key is the least of theirs. */
static uint64_t part_key(sky *S, uint32_t a, uint32_t b)
{
    uint64_t kq[4] = {0}, best = UINT64_MAX;
    S->work += 2 * (uint64_t)(S->Q + 1) * S->lg + (S->sym ? 8u : 1u) * (S->Q + 1) * 4;
    for (uint32_t q = 0; q < S->Q; q++) kq[q] = fen_prefix(S->fkey[q], b + 1) ^ fen_prefix(S->fkey[q], a);
    uint64_t nodes = fen_prefix(S->nkey, b + 1) ^ fen_prefix(S->nkey, a);
    for (uint32_t g = 0; g < (S->sym ? 8u : 1u); g++) {
        sba_rng r = {nodes ^ ((uint64_t)a << 32 | b)};
        uint64_t v = sba_rng_next(&r);
        for (uint32_t q = 0; q < S->Q; q++) {
            r.s = v ^ kq[BAND_PERMS[g][q]];
            v = sba_rng_next(&r);
        }
        if (v < best) best = v;
    }
    return best;
}

/* A floor's part of the key of its quarter's tree. */
static uint64_t floor_key(uint32_t k, int64_t v)
{
    sba_rng r = {((uint64_t)k << 40) ^ (uint64_t)v};
    return sba_rng_next(&r);
}

static bool set_floor(sky *S, uint32_t x, int64_t v)
{
    if (!push_trail(S, TR_FLOOR, x, S->floor[x])) return false;
    uint32_t k = x / S->Q;
    fen_xor(S->fkey[x % S->Q], S->K, k, floor_key(k, S->floor[x]) ^ floor_key(k, v));
    S->floor[x] = v;
    refresh(S, x);
    S->work += 4 + S->lg;
    return true;
}

/* Above any fixed interval of place x that v falls in; the capacity at most. */
static int64_t normalize(const sky *S, uint32_t x, int64_t v)
{
    for (uint32_t y = S->foff[x]; y < S->foff[x + 1] && v >= S->flo[y]; y++)
        if (v < S->fhi[y]) v = align_up(S->fhi[y], S->p->align);
    return v < S->cap ? v : S->cap;
}

/* The top of the free gap starting at v in place x. */
static int64_t gap_top(const sky *S, uint32_t x, int64_t v)
{
    for (uint32_t y = S->foff[x]; y < S->foff[x + 1]; y++)
        if (S->flo[y] >= v) return S->flo[y] < S->cap ? S->flo[y] : S->cap;
    return S->cap;
}

/* Free bytes of place x in [lo, hi): what giving them up costs the slack. */
static int64_t free_in(const sky *S, uint32_t x, int64_t lo, int64_t hi)
{
    int64_t n = hi - lo;
    for (uint32_t y = S->foff[x]; y < S->foff[x + 1]; y++) {
        int64_t a = S->flo[y] > lo ? S->flo[y] : lo, b = S->fhi[y] < hi ? S->fhi[y] : hi;
        if (b > a) n -= b - a;
    }
    return n;
}

/* ---- the band bounds ----------------------------------------------------- */

/* Whether the nodes bound to quarter sets still fit section k's floors. */
static bool bands_fit(sky *S, uint32_t k)
{
    if (S->Q == 1) return true;
    static const uint8_t sets[] = {1, 2, 4, 8, 3, 12, 15};
    const int64_t *f = &S->floor[(size_t)k * S->Q], *dm = &S->dmust[(size_t)k * 16];
    int64_t left[16] = {0};
    S->work += 16;
    for (uint32_t x = 0; x < sizeof sets; x++) {
        uint32_t T = sets[x];
        int64_t d = 0, top = 0;
        for (uint32_t m = 1; m < 16; m++)
            if ((m & T) == T) d += dm[m];
        for (uint32_t q = 0; q < 4; q++)
            if ((T >> q & 1) && f[q] > top) top = f[q];
        if (d > S->cap - top) return false;
        left[T] = S->cap - top - d;
    }
    return S->dhalf[k] <= left[3] + left[12];
}

/* ---- placing and undoing ------------------------------------------------- */

static void count_demand(sky *S, uint32_t i, int sign)
{
    const sb_pack_node *nd = &S->p->nodes[i];
    S->work += 2 * (uint64_t)(nd->s1 - nd->s0 + 1);
    for (uint32_t k = nd->s0; k <= nd->s1; k++) {
        S->ucount[k] -= (uint32_t)sign;
        if (k < nd->s1 && (S->cross[k] -= (uint32_t)sign) == 0) S->split = true;
        if (S->Q > 1) {
            if (S->halves[i]) S->dhalf[k] -= sign * nd->size;
            else S->dmust[(size_t)k * 16 + S->must[i]] -= sign * nd->size;
        }
        /* a section emptied or refilled opens or closes its places */
        if (S->ucount[k] == (sign > 0 ? 0u : 1u))
            for (uint32_t q = 0; q < S->Q; q++) refresh(S, k * S->Q + q);
    }
}

static bool place(sky *S, uint32_t i, uint32_t o, int64_t h)
{
    const sb_pack_node *nd = &S->p->nodes[i];
    if (!push_trail(S, TR_PLACE, i, 0)) return false;
    S->placed[i] = true;
    fen_xor(S->nkey, S->K, S->p->nodes[i].s0, S->zkey[i]);
    S->work += S->lg;
    S->nleft--;
    S->off[i] = h;
    S->opt[i] = o;
    count_demand(S, i, 1);
    for (uint32_t k = nd->s0; k <= nd->s1; k++)
        for (uint32_t q = 0; q < S->Q; q++)
            if (nd->qmask[o] >> q & 1) {
                uint32_t x = k * S->Q + q;
                if (!set_floor(S, x, normalize(S, x, h + nd->size))) return false;
            }
    return true;
}

static void undo_to(sky *S, uint32_t mark)
{
    while (S->ntrail > mark) {
        sk_trail *t = &S->trail[--S->ntrail];
        if (t->kind == TR_FLOOR) {
            uint32_t k = t->idx / S->Q;
            fen_xor(S->fkey[t->idx % S->Q], S->K, k, floor_key(k, S->floor[t->idx]) ^ floor_key(k, t->old));
            S->floor[t->idx] = t->old;
            refresh(S, t->idx);
            S->work += 4 + S->lg;
        } else if (t->kind == TR_SLACK) {
            S->slack[t->idx] = t->old;
        } else {
            S->placed[t->idx] = false;
            fen_xor(S->nkey, S->K, S->p->nodes[t->idx].s0, S->zkey[t->idx]);
            S->nleft++;
            count_demand(S, t->idx, -1);
            S->work += S->lg;
        }
    }
}

/* ---- edges --------------------------------------------------------------- */

/* Whether an unplaced node can still cover byte `f` of place (k, q) where a
 * node covering it must start at k (start) and/or end at k (end): one with
 * an option through q whose footprint's floors are all at most f. */
static bool edge_has_cover(sky *S, uint32_t k, uint32_t q, int64_t f, bool start, bool end)
{
    const uint32_t *list = start ? S->slist + S->soff[k] : S->elist + S->eoff[k];
    uint32_t len = start ? S->soff[k + 1] - S->soff[k] : S->eoff[k + 1] - S->eoff[k];
    S->work += len;
    for (uint32_t y = 0; y < len; y++) {
        uint32_t i = list[y];
        const sb_pack_node *nd = &S->p->nodes[i];
        if (S->placed[i] || (start && end && nd->s1 != k) || f + nd->size > S->cap) continue;
        for (uint32_t o = 0; o < nd->nopt; o++) {
            if (!(nd->qmask[o] >> q & 1)) continue;
            bool ok = true;
            for (uint32_t kk = nd->s0; kk <= nd->s1 && ok; kk++)
                for (uint32_t qq = 0; qq < S->Q && ok; qq++)
                    ok = !(nd->qmask[o] >> qq & 1) || S->floor[(size_t)kk * S->Q + qq] <= f;
            S->work += nd->s1 - nd->s0 + 1;
            if (ok) return true;
        }
    }
    return false;
}

/* Whether place (k, q) is not a dead end: where its section has no slack to
 * give up a byte, the byte just above its floor must be covered, and where
 * a neighbour's floor is higher (or nothing unplaced reaches the neighbour),
 * what covers it starts or ends at k. */
static bool edge_ok(sky *S, uint32_t k, uint32_t q)
{
    uint32_t x = k * S->Q + q;
    int64_t f = S->floor[x];
    if (f >= S->cap || !S->ucount[k] || S->slack[k] >= S->p->align) return true;
    bool start = k == 0 || !S->ucount[k - 1] || S->floor[x - S->Q] > f;
    bool end = k + 1 == S->K || !S->ucount[k + 1] || S->floor[x + S->Q] > f;
    if (!start && !end) return true;
    return edge_has_cover(S, k, q, f, start, end);
}

/* Whether the room of place (k, q) can still be filled exactly, where its
 * section has no slack (every byte must be covered): some of the unplaced
 * nodes through it (each counted once, whichever quarters it would take)
 * must add up to the room. A subset sum over the room in alignment units,
 * skipped where that is large or fixed rectangles are about. */
/* Whether some option of the node takes quarter q. */
static bool through(const sb_pack_node *nd, uint32_t q)
{
    for (uint32_t o = 0; o < nd->nopt; o++)
        if (nd->qmask[o] >> q & 1) return true;
    return false;
}

static bool column_fills(sky *S, uint32_t k, uint32_t q)
{
    uint32_t x = k * S->Q + q;
    if (S->p->nfixed || !S->ucount[k] || S->slack[k] >= S->p->align) return true;
    int64_t r = (S->cap - S->floor[x]) / S->p->align;
    if (r <= 0 || r > MAX_SUM_BITS) return true;
    /* the total first: all of them fill it exactly, or none can */
    int64_t total = 0;
    for (uint32_t y = S->coff[k]; y < S->coff[k + 1]; y++) {
        uint32_t i = S->clist[y];
        if (S->placed[i]) continue;
        if (through(&S->p->nodes[i], q)) total += S->p->nodes[i].size / S->p->align;
    }
    S->work += S->coff[k + 1] - S->coff[k];
    if (total <= r) return total == r;
    uint32_t words = (uint32_t)(r / 64 + 1);
    uint64_t *b = S->bits;
    memset(b, 0, words * sizeof *b);
    b[0] = 1;
    for (uint32_t y = S->coff[k]; y < S->coff[k + 1]; y++) {
        uint32_t i = S->clist[y];
        if (S->placed[i]) continue;
        int64_t sz = S->p->nodes[i].size / S->p->align;
        if (!through(&S->p->nodes[i], q) || sz > r) continue;
        /* b |= b << sz, from the top word down */
        uint32_t ws = (uint32_t)(sz / 64), bs = (uint32_t)(sz % 64);
        for (uint32_t w = words; w-- > ws;) {
            uint64_t v = b[w - ws] << bs;
            if (bs && w > ws) v |= b[w - ws - 1] >> (64 - bs);
            b[w] |= v;
        }
        S->work += words;
        if (b[r / 64] >> (r % 64) & 1) return true;
    }
    return false;
}

/* The edges a node placed in option o over s0..s1 may have made or closed. */
static bool edges_ok(sky *S, uint32_t i, uint32_t o)
{
    const sb_pack_node *nd = &S->p->nodes[i];
    for (uint32_t q = 0; q < S->Q; q++) {
        if (!(nd->qmask[o] >> q & 1)) continue;
        if (!edge_ok(S, nd->s0, q) || !edge_ok(S, nd->s1, q)) return false;
        if (nd->s0 > 0 && !edge_ok(S, nd->s0 - 1, q)) return false;
        if (nd->s1 + 1 < S->K && !edge_ok(S, nd->s1 + 1, q)) return false;
    }
    for (uint32_t q = 0; q < S->Q; q++)
        if (!column_fills(S, nd->s0, q) || !column_fills(S, nd->s1, q)) return false;
    return true;
}

/* ---- one decision -------------------------------------------------------- */

/* The last section from k on where quarter q's floor stays h. */
static uint32_t run_end(sky *S, uint32_t k, uint32_t q, int64_t h)
{
    if (S->runend[q] != UINT32_MAX) return S->runend[q];
    uint32_t e = k;
    while (e < S->K && S->floor[(size_t)e * S->Q + q] == h) e++;
    S->work += e - k + 1;
    return S->runend[q] = e - 1; /* k - 1 (wraps below k) when q is not at h in k */
}

/* The first section of the run at h that ends at section e in quarter q. */
static uint32_t run_start(sky *S, uint32_t e, uint32_t q, int64_t h)
{
    if (S->runstart[q] != UINT32_MAX) return S->runstart[q];
    int64_t k = e;
    while (k >= 0 && S->floor[(size_t)k * S->Q + q] == h) k--;
    S->work += e - (uint32_t)(k + 1) + 1;
    return S->runstart[q] = (uint32_t)(k + 1); /* e + 1 when q is not at h in e */
}

/* Whether node i in option o can sit at h with its floors all h (from
 * section k on when `right` is false, up to section k when true), no fixed
 * rectangle below h + size. *flush: its other end meets a run's end. */
static bool fits_at(sky *S, uint32_t i, uint32_t o, uint32_t k, int64_t h, bool right, bool *flush)
{
    const sb_pack_node *nd = &S->p->nodes[i];
    if (h + nd->size > S->cap) return false;
    *flush = false;
    for (uint32_t q = 0; q < S->Q; q++) {
        if (!(nd->qmask[o] >> q & 1)) continue;
        if (right) {
            uint32_t st = run_start(S, k, q, h);
            if (st == k + 1 || st > nd->s0) return false;
            if (st == nd->s0) *flush = true;
        } else {
            uint32_t e = run_end(S, k, q, h);
            if (e == k - 1 || e < nd->s1) return false;
            if (e == nd->s1) *flush = true;
        }
    }
    if (S->p->nfixed)
        for (uint32_t q = 0; q < S->Q; q++) {
            if (!(nd->qmask[o] >> q & 1)) continue;
            for (uint32_t kk = nd->s0; kk <= nd->s1; kk++)
                if (gap_top(S, kk * S->Q + q, h) < h + nd->size) return false;
            S->work += nd->s1 - nd->s0 + 1;
        }
    return true;
}

static int cmp_cand(const void *a, const void *b)
{
    const sk_cand *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->node != y->node) return x->node < y->node ? -1 : 1;
    return x->opt < y->opt ? -1 : x->opt > y->opt;
}

/* The lowest floor among open places of sections [a, b], in the tree below
 * t which spans leaves [lo, hi). */
static int64_t range_min(const sky *S, uint32_t t, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b)
{
    if (b < lo || hi <= a) return NONE;
    if (a <= lo && hi - 1 <= b) return S->tree[t];
    uint32_t mid = lo + (hi - lo) / 2;
    int64_t l = range_min(S, 2 * t, lo, mid, a, b), r = range_min(S, 2 * t + 1, mid, hi, a, b);
    return l < r ? l : r;
}

/* The leftmost leaf in [a, b] of value v below t (spanning [lo, hi)), or UINT32_MAX. */
static uint32_t range_first(const sky *S, uint32_t t, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b, int64_t v)
{
    if (b < lo || hi <= a || S->tree[t] > v) return UINT32_MAX;
    if (hi - lo == 1) return lo;
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t l = range_first(S, 2 * t, lo, mid, a, b, v);
    return l != UINT32_MAX ? l : range_first(S, 2 * t + 1, mid, hi, a, b, v);
}

/* Collects above the stack the candidates for byte h of place (k, q): the
 * nodes that start at k there (right: that end at k), best first: flush with
 * the run, then with their top level with the floor beside the cell, then
 * by area (perturbed after a restart). */
static bool collect(sky *S, uint32_t k, uint32_t q, int64_t h, bool right)
{
    for (uint32_t y = 0; y < S->Q; y++) S->runend[y] = S->runstart[y] = UINT32_MAX;
    uint32_t c0 = S->ncands, x = k * S->Q + q;
    int64_t beside = right ? (k + 1 < S->K ? S->floor[x + S->Q] : -1) : (k > 0 ? S->floor[x - S->Q] : -1);
    const uint32_t *list = right ? S->elist + S->eoff[k] : S->slist + S->soff[k];
    uint32_t len = right ? S->eoff[k + 1] - S->eoff[k] : S->soff[k + 1] - S->soff[k];
    for (uint32_t y = 0; y < len; y++) {
        uint32_t i = list[y];
        if (S->placed[i] || (S->twin[i] != NO_NODE && !S->placed[S->twin[i]])) continue;
        const sb_pack_node *nd = &S->p->nodes[i];
        S->work++;
        for (uint32_t o = 0; o < nd->nopt; o++) {
            bool flush;
            if (!(nd->qmask[o] >> q & 1) || !fits_at(S, i, o, k, h, right, &flush)) continue;
            int64_t area = nd->size * (int64_t)(nd->s1 - nd->s0 + 1) * __builtin_popcount(nd->qmask[o]);
            bool level = h + nd->size == beside;
            if (S->noise) {
                /* after a restart: area perturbed, and now and then a
                 * flush or level node loses its precedence */
                uint64_t z = sba_rng_next(&S->rng);
                area = area / 64 * (int64_t)(32 + z % 65);
                if ((z >> 20) % 4 == 0) flush = false;
                if ((z >> 24) % 4 == 0) level = false;
            }
            int64_t score = (flush ? (int64_t)1 << 60 : 0) + (level ? (int64_t)1 << 59 : 0) + area;
            if (!sba_arena_grow(S->ar, (void **)&S->cands, &S->capcands, S->ncands + 1, sizeof *S->cands))
                return false;
            S->cands[S->ncands++] = (sk_cand){i, o, score};
        }
    }
    uint32_t nc = S->ncands - c0;
    if (nc > 1) qsort(S->cands + c0, nc, sizeof *S->cands, cmp_cand);
    S->work += 4 * (uint64_t)nc * (32 - (uint32_t)__builtin_clz(nc | 1)); /* the sort: n log n comparisons */
    return true;
}

/* The empty branch: byte h of place (k, q) stays free, and with it the run
 * of quarter q at h from k to section e (the run's last or one before it;
 * the caller reads the run's end once for all its parts), up to the lowest
 * level a neighbour offers: a floor above h beside the run, in quarter q
 * before or after it or in another quarter of section k (quarters that a
 * node of fewer partitions leaves free end level with the ones it takes),
 * or h plus the smallest unplaced node that could still cover the place; to
 * the capacity when none can. The caller tries the whole run first, then
 * ever shorter parts of it (Holes, above). 0 when the slack does not allow
 * it. */
static int give_up(sky *S, uint32_t k, uint32_t q, int64_t h, uint32_t e)
{
    uint32_t x = k * S->Q + q;
    int64_t v = S->cap, small = NONE;
    if (k > 0 && S->floor[x - S->Q] > h && S->floor[x - S->Q] < v) v = S->floor[x - S->Q];
    if (e + 1 < S->K && S->floor[(size_t)(e + 1) * S->Q + q] > h && S->floor[(size_t)(e + 1) * S->Q + q] < v)
        v = S->floor[(size_t)(e + 1) * S->Q + q];
    for (uint32_t y = 0; y < S->Q; y++) {
        int64_t f = S->floor[(size_t)k * S->Q + y];
        if (f > h && f < v) v = f;
    }
    for (uint32_t y = S->coff[k]; y < S->coff[k + 1]; y++) {
        uint32_t i = S->clist[y];
        if (S->placed[i]) continue;
        const sb_pack_node *nd = &S->p->nodes[i];
        for (uint32_t o = 0; o < nd->nopt; o++)
            if ((nd->qmask[o] >> q & 1) && nd->size < small) small = nd->size;
    }
    S->work += S->coff[k + 1] - S->coff[k] + (e - k + 1);
    if (small == NONE) v = S->cap;
    else if (h + small < v) v = h + small;
    for (uint32_t kk = k; kk <= e; kk++) {
        uint32_t xx = kk * S->Q + q;
        int64_t to = normalize(S, xx, v), cost = free_in(S, xx, h, to);
        if (S->slack[kk] < cost) return 0;
        if (!push_trail(S, TR_SLACK, kk, S->slack[kk])) return -1;
        S->slack[kk] -= cost;
        if (!set_floor(S, xx, to)) return -1;
        if (!bands_fit(S, kk)) return 0;
    }
    if (!edge_ok(S, k, q) || !edge_ok(S, e, q)) return 0;
    if (k > 0 && !edge_ok(S, k - 1, q)) return 0;
    return e + 1 < S->K && !edge_ok(S, e + 1, q) ? 0 : 1;
}

/* Following a packing (p->guide_at): at cell (k, q) at h, where the
 * search's candidates are from c0, keeps only the node the packing has
 * there, starting at h (and at k, or right: ending at k), taking an
 * identical node's place in it where that one comes first. 1 when it has
 * one (narrowed to it: none if the search did not offer it), 0 when it
 * leaves byte h free (no candidate), -1 when what it has there starts
 * below h or does not start (end) at k, which the search assumed. */
static int follow_cell(sky *S, uint32_t k, uint32_t q, int64_t h, bool right, uint32_t c0)
{
    int64_t *at = S->p->guide_at;
    uint32_t *opt = S->p->guide_opt, i = NO_NODE;
    for (uint32_t y = S->coff[k]; y < S->coff[k + 1] && i == NO_NODE; y++) {
        uint32_t j = S->clist[y];
        const sb_pack_node *nd = &S->p->nodes[j];
        if (!S->placed[j] && opt[j] < nd->nopt && (nd->qmask[opt[j]] >> q & 1) && at[j] <= h && h < at[j] + nd->size)
            i = j;
    }
    if (i == NO_NODE) {
        S->ncands = c0;
        return 0;
    }
    const sb_pack_node *nd = &S->p->nodes[i];
    if (at[i] < h || (right ? nd->s1 : nd->s0) != k) return -1;
    uint32_t j = i; /* the first unplaced of its identical nodes takes its place */
    while (S->twin[j] != NO_NODE && !S->placed[S->twin[j]]) j = S->twin[j];
    int64_t a = at[i];
    uint32_t o = opt[i];
    at[i] = at[j], opt[i] = opt[j], at[j] = a, opt[j] = o;
    uint32_t keep = c0;
    for (uint32_t c = c0; c < S->ncands; c++)
        if (S->cands[c].node == j && S->cands[c].opt == o) S->cands[keep++] = S->cands[c];
    S->ncands = keep;
    return 1;
}

/* Results of the search below: PACKED, NONE, and these two. */
enum { SK_RESTART = 2, SK_BUDGET = 3 };

static int solve(sky *S, uint32_t a, uint32_t b);

/* Packs sections [a, b] part by part: where no unplaced node crosses from
 * one section to the next, each side packs or fails on its own, so a side
 * that fails fails the whole without retrying the sides before it. */
static int solve_parts(sky *S, uint32_t a, uint32_t b)
{
    uint32_t mark = S->ntrail;
    S->work += b - a + 1;
    /* a part already known to fail fails the whole before any is packed */
    for (uint32_t x = a; x <= b;) {
        while (x <= b && !S->ucount[x]) x++;
        if (x > b) break;
        uint32_t y = x;
        while (y < b && S->cross[y]) y++;
        if (sba_keyset_has(&S->dead, part_key(S, x, y))) return SB_PACK_NONE;
        x = y + 1;
    }
    for (uint32_t x = a; x <= b;) {
        while (x <= b && !S->ucount[x]) x++;
        if (x > b) break;
        uint32_t y = x;
        while (y < b && S->cross[y]) y++;
        int r = solve(S, x, y);
        if (r != SB_PACK_PACKED) {
            undo_to(S, mark);
            return r;
        }
        x = y + 1;
    }
    return SB_PACK_PACKED;
}

/* Packs every unplaced node of sections [a, b] (none crosses a or b). */
static int solve(sky *S, uint32_t a, uint32_t b)
{
    S->visited++;
    if (++S->work > S->budget) return SK_BUDGET;
    if (S->fails > S->fail_limit) return SK_RESTART;
    /* a part in a state seen failing fails */
    uint64_t key = part_key(S, a, b);
    if (sba_keyset_has(&S->dead, key)) return SB_PACK_NONE;
    int64_t h = range_min(S, 1, 0, S->leaves, a * S->Q, b * S->Q + S->Q - 1);
    S->work += 128; /* the two tree walks, and the key: more than one unit each */
    if (h == NONE) {
        /* packed, unless a node is left with no open place */
        for (uint32_t k = a; k <= b; k++)
            if (S->ucount[k]) return SB_PACK_NONE;
        return SB_PACK_PACKED;
    }
    /* Fail first: of the cells at h where what covers them must start (the
     * left end of a run at h) or end (its right end, when the floor beside
     * is higher or nothing unplaced is there), a few from the left, the one
     * with the fewest candidates. */
    uint32_t c0 = S->ncands, mark = S->ntrail, k = 0, q = 0, best = UINT32_MAX, runs = 0;
    bool right = false;
    uint32_t lo = a * S->Q, hi = b * S->Q + S->Q - 1;
    for (uint32_t probes = 0; probes < MAX_PROBES && runs < MAX_RUNS && best > 1 && lo <= hi; probes++) {
        uint32_t x = range_first(S, 1, 0, S->leaves, lo, hi, h);
        if (x == UINT32_MAX) break;
        lo = x + 1;
        uint32_t kx = x / S->Q, qx = x % S->Q;
        if (kx > a && S->ucount[kx - 1] && S->floor[x - S->Q] == h) continue; /* inside a run */
        runs++;
        for (uint32_t side = 0; side < 2 && best > 1; side++) {
            for (uint32_t y = 0; y < S->Q; y++) S->runend[y] = S->runstart[y] = UINT32_MAX;
            uint32_t kc = side ? run_end(S, kx, qx, h) : kx;
            if (side && !(kc + 1 == S->K || !S->ucount[kc + 1] || S->floor[(size_t)(kc + 1) * S->Q + qx] > h))
                continue;
            uint32_t c1 = S->ncands;
            if (!collect(S, kc, qx, h, side)) return SB_PACK_NOMEM;
            uint32_t n = S->ncands - c1;
            if (n < best) {
                if (n) memmove(S->cands + c0, S->cands + c1, n * sizeof *S->cands);
                S->ncands = c0 + n;
                best = n, k = kc, q = qx, right = side;
            } else {
                S->ncands = c1;
            }
        }
    }
    int held = S->p->guide_at ? follow_cell(S, k, q, h, right, c0) : 0;
    if (held < 0) {
        S->ncands = c0;
        return SB_PACK_NONE;
    }
    uint32_t c1 = S->ncands;
    for (uint32_t c = c0; c < c1; c++) {
        sk_cand cd = S->cands[c];
        const sb_pack_node *nd = &S->p->nodes[cd.node];
        S->split = false;
        if (!place(S, cd.node, cd.opt, h)) return SB_PACK_NOMEM;
        bool ok = true;
        for (uint32_t kk = nd->s0; kk <= nd->s1 && ok; kk++) ok = bands_fit(S, kk);
        if (ok && edges_ok(S, cd.node, cd.opt)) {
            int r = S->split ? solve_parts(S, a, b) : solve(S, a, b);
            if (r != SB_PACK_NONE) {
                S->ncands = c0;
                return r;
            }
        }
        undo_to(S, mark);
    }
    S->ncands = c0;
    if (held) {
        undo_to(S, mark);
        return SB_PACK_NONE;
    }
    /* byte h left free: over the whole run, then over ever shorter parts
     * of it from k (a cell at a run's right end gives up only its place;
     * where section k has no slack, no part can be given up) */
    for (uint32_t y = 0; y < S->Q; y++) S->runend[y] = UINT32_MAX;
    const uint32_t e = run_end(S, k, q, h), last = right || S->slack[k] <= 0 ? e : k;
    for (uint32_t upto = e;; upto--) {
        int r = give_up(S, k, q, h, upto);
        if (r < 0) return SB_PACK_NOMEM;
        if (r > 0) {
            r = solve(S, a, b);
            if (r != SB_PACK_NONE) return r;
        }
        undo_to(S, mark);
        if (upto == last) break;
    }
    S->fails++;
    sba_keyset_add(&S->dead, key);
    return SB_PACK_NONE;
}

static bool setup(sky *S)
{
    const sb_pack_problem *p = S->p;
    sba_arena *ar = S->ar;
    uint32_t n = p->n, K = p->K, Q = p->Q;
    S->K = K, S->Q = Q, S->N = K * Q;
    for (S->lg = 1; (1u << (S->lg - 1)) < K; S->lg++) {}
    S->cap = p->cap / p->align * p->align;
    for (S->leaves = 1; S->leaves < S->N; S->leaves *= 2) {}
    S->floor = sba_arena_array(ar, (size_t)S->N + 1, sizeof *S->floor);
    S->tree = sba_arena_array(ar, (size_t)2 * S->leaves, sizeof *S->tree);
    S->ucount = sba_arena_array(ar, (size_t)K + 1, sizeof *S->ucount);
    S->cross = sba_arena_array(ar, (size_t)K + 1, sizeof *S->cross);
    S->slack = sba_arena_array(ar, (size_t)K + 1, sizeof *S->slack);
    S->soff = sba_arena_array(ar, (size_t)K + 2, sizeof *S->soff);
    S->coff = sba_arena_array(ar, (size_t)K + 2, sizeof *S->coff);
    S->foff = sba_arena_array(ar, (size_t)S->N + 2, sizeof *S->foff);
    S->slist = sba_arena_array(ar, (size_t)n + 1, sizeof *S->slist);
    S->eoff = sba_arena_array(ar, (size_t)K + 2, sizeof *S->eoff);
    S->elist = sba_arena_array(ar, (size_t)n + 1, sizeof *S->elist);
    S->must = sba_arena_array(ar, (size_t)n + 1, sizeof *S->must);
    S->halves = sba_arena_array(ar, (size_t)n + 1, sizeof *S->halves);
    S->dmust = sba_arena_array(ar, (size_t)K * 16 + 1, sizeof *S->dmust);
    S->dhalf = sba_arena_array(ar, (size_t)K + 1, sizeof *S->dhalf);
    S->placed = sba_arena_array(ar, (size_t)n + 1, sizeof *S->placed);
    S->runend = sba_arena_array(ar, Q, sizeof *S->runend);
    S->runstart = sba_arena_array(ar, Q, sizeof *S->runstart);
    S->bits = sba_arena_array(ar, MAX_SUM_BITS / 64 + 2, sizeof *S->bits);
    S->zkey = sba_arena_array(ar, (size_t)n + 1, sizeof *S->zkey);
    for (uint32_t q = 0; q < Q; q++)
        if (!(S->fkey[q] = sba_arena_array(ar, (size_t)K + 1, sizeof *S->fkey[q]))) return false;
    S->nkey = sba_arena_array(ar, (size_t)K + 1, sizeof *S->nkey);
    for (S->dead.cap = 4096; S->dead.cap < DEAD_SLOTS && S->dead.cap < 1024 * n;) S->dead.cap *= 2;
    S->dead.slot = sba_arena_array(ar, S->dead.cap, sizeof *S->dead.slot);
    S->twin = sba_arena_array(ar, (size_t)n + 1, sizeof *S->twin);
    if (!S->floor || !S->tree || !S->ucount || !S->cross || !S->slack || !S->soff || !S->eoff || !S->elist || !S->coff || !S->foff || !S->slist ||
        !S->must || !S->halves || !S->dmust || !S->dhalf || !S->placed || !S->runend || !S->runstart || !S->bits || !S->zkey || !S->nkey || !S->dead.slot || !S->twin)
        return false;
    uint64_t ncover = 0;
    for (uint32_t i = 0; i < n; i++) {
        const sb_pack_node *nd = &p->nodes[i];
        S->soff[nd->s0 + 1]++;
        S->eoff[nd->s1 + 1]++;
        ncover += nd->s1 - nd->s0 + 1;
        uint8_t m = 15;
        for (uint32_t o = 0; o < nd->nopt; o++) m &= nd->qmask[o];
        S->must[i] = m;
        S->halves[i] = nd->nopt == 2 && nd->qmask[0] == 3 && nd->qmask[1] == 12;
        for (uint32_t k = nd->s0; k <= nd->s1; k++) {
            S->coff[k + 1]++;
            S->ucount[k]++;
            if (k < nd->s1) S->cross[k]++;
            if (Q > 1) {
                if (S->halves[i]) S->dhalf[k] += nd->size;
                else S->dmust[(size_t)k * 16 + m] += nd->size;
            }
        }
    }
    S->clist = sba_arena_array(ar, (size_t)ncover + 1, sizeof *S->clist);
    if (!S->clist) return false;
    for (uint32_t k = 0; k < K; k++)
        S->soff[k + 1] += S->soff[k], S->eoff[k + 1] += S->eoff[k], S->coff[k + 1] += S->coff[k];
    uint32_t *sfill = sba_arena_array(ar, (size_t)K + 1, sizeof *sfill);
    uint32_t *efill = sba_arena_array(ar, (size_t)K + 1, sizeof *efill);
    uint32_t *cfill = sba_arena_array(ar, (size_t)K + 1, sizeof *cfill);
    if (!sfill || !efill || !cfill) return false;
    memcpy(sfill, S->soff, K * sizeof *sfill);
    memcpy(efill, S->eoff, K * sizeof *efill);
    memcpy(cfill, S->coff, K * sizeof *cfill);
    for (uint32_t i = 0; i < n; i++) {
        const sb_pack_node *nd = &p->nodes[i];
        S->slist[sfill[nd->s0]++] = i;
        S->elist[efill[nd->s1]++] = i;
        for (uint32_t k = nd->s0; k <= nd->s1; k++) S->clist[cfill[k]++] = i;
    }
    /* fixed intervals per place, sorted by lo (few: insertion order then sort) */
    uint64_t nf = 0;
    for (uint32_t f = 0; f < p->nfixed; f++)
        for (uint32_t k = p->fixed[f].s0; k <= p->fixed[f].s1; k++)
            for (uint32_t q = 0; q < Q; q++)
                if (p->fixed[f].qmask >> q & 1) S->foff[k * Q + q + 1]++, nf++;
    for (uint32_t x = 0; x < S->N; x++) S->foff[x + 1] += S->foff[x];
    S->flo = sba_arena_array(ar, (size_t)nf + 1, sizeof *S->flo);
    S->fhi = sba_arena_array(ar, (size_t)nf + 1, sizeof *S->fhi);
    uint32_t *ffill = sba_arena_array(ar, (size_t)S->N + 1, sizeof *ffill);
    if (!S->flo || !S->fhi || !ffill) return false;
    memcpy(ffill, S->foff, S->N * sizeof *ffill);
    for (uint32_t f = 0; f < p->nfixed; f++)
        for (uint32_t k = p->fixed[f].s0; k <= p->fixed[f].s1; k++)
            for (uint32_t q = 0; q < Q; q++) {
                if (!(p->fixed[f].qmask >> q & 1)) continue;
                uint32_t x = k * Q + q, y = ffill[x]++;
                /* insertion: keep the place's intervals sorted by lo */
                for (; y > S->foff[x] && S->flo[y - 1] > p->fixed[f].lo; y--)
                    S->flo[y] = S->flo[y - 1], S->fhi[y] = S->fhi[y - 1];
                S->flo[y] = p->fixed[f].lo, S->fhi[y] = p->fixed[f].hi;
            }
    /* slack: free bytes × quarters less demand */
    for (uint32_t k = 0; k < K; k++) {
        int64_t room = 0;
        for (uint32_t q = 0; q < Q; q++) room += free_in(S, k * Q + q, 0, S->cap);
        S->slack[k] = room;
    }
    for (uint32_t i = 0; i < n; i++) {
        const sb_pack_node *nd = &p->nodes[i];
        if (!nd->nopt) return true; /* cannot go anywhere: setup done, search fails */
        int64_t w = 4;
        for (uint32_t o = 0; o < nd->nopt; o++)
            if (__builtin_popcount(nd->qmask[o]) < w) w = __builtin_popcount(nd->qmask[o]);
        for (uint32_t k = nd->s0; k <= nd->s1; k++) S->slack[k] -= nd->size * (Q > 1 ? w : 1);
    }
    for (uint32_t x = 0; x < S->N; x++) S->floor[x] = normalize(S, x, 0), fen_xor(S->fkey[x % Q], K, x / Q, floor_key(x / Q, S->floor[x]));
    /* twins: nodes of one start are together in slist; the same end, size
     * and options make two interchangeable */
    for (uint32_t k = 0; k < K; k++)
        for (uint32_t y = S->soff[k]; y < S->soff[k + 1]; y++) {
            uint32_t i = S->slist[y];
            S->twin[i] = NO_NODE;
            for (uint32_t z = y; z-- > S->soff[k] && S->twin[i] == NO_NODE;) {
                const sb_pack_node *u = &p->nodes[i], *v = &p->nodes[S->slist[z]];
                if (u->s1 == v->s1 && u->size == v->size && u->nopt == v->nopt &&
                    !memcmp(u->qmask, v->qmask, sizeof u->qmask))
                    S->twin[i] = S->slist[z];
            }
        }
    for (uint32_t t = 0; t < 2 * S->leaves; t++) S->tree[t] = NONE;
    for (uint32_t x = 0; x < S->N; x++) S->tree[S->leaves + x] = leaf_value(S, x);
    for (uint32_t t = S->leaves - 1; t >= 1; t--)
        S->tree[t] = S->tree[2 * t] < S->tree[2 * t + 1] ? S->tree[2 * t] : S->tree[2 * t + 1];
    S->sym = Q == 4 && !p->nfixed;
    for (uint32_t i = 0; i < n && S->sym; i++) {
        const sb_pack_node *nd = &p->nodes[i];
        for (uint32_t g = 1; g < 8 && S->sym; g++)
            for (uint32_t o = 0; o < nd->nopt && S->sym; o++) {
                uint8_t m = 0;
                for (uint32_t q = 0; q < 4; q++)
                    if (nd->qmask[o] >> q & 1) m |= (uint8_t)(1u << BAND_PERMS[g][q]);
                bool found = false;
                for (uint32_t o2 = 0; o2 < nd->nopt; o2++) found |= nd->qmask[o2] == m;
                S->sym = found;
            }
    }
    sba_rng zr = {0x2b7e151628aed2a6ull};
    for (uint32_t i = 0; i < n; i++) S->zkey[i] = sba_rng_next(&zr), fen_xor(S->nkey, K, p->nodes[i].s0, S->zkey[i]);
    S->nleft = n;
    S->off = p->off, S->opt = p->opt;
    return true;
}

int sb_skyline_pack(const sb_pack_problem *p, sba_arena *ar, uint64_t budget, uint64_t *work, uint64_t *visited)
{
    sky S = {.p = p, .ar = ar, .budget = budget, .rng = {p->seed}};
    *work = *visited = 0;
    if (!p->n) return SB_PACK_PACKED;
    if (!setup(&S)) return SB_PACK_NOMEM;
    int result = SB_PACK_NONE;
    bool feasible = true;
    for (uint32_t i = 0; i < p->n; i++) feasible &= p->nodes[i].nopt > 0;
    for (uint32_t k = 0; k < S.K; k++) feasible &= S.slack[k] >= 0 && bands_fit(&S, k);
    /* the part's slack, for the caller's schedule; with slack the search is
     * a heuristic (it gives up whole runs) and takes a quarter of the budget */
    int64_t slack = 0;
    for (uint32_t k = 0; k < S.K; k++) slack += S.slack[k] > 0 ? S.slack[k] : 0;
    if (p->slack) *p->slack = slack;
    if (slack > 0) S.budget = budget / 4;
    for (uint64_t r = 1; feasible; r++) {
        S.fails = 0;
        S.fail_limit = sba_luby(r) * LUBY_UNIT * (uint64_t)(p->n < 1024 ? 1 : p->n / 1024);
        int x = solve_parts(&S, 0, S.K - 1);
        if (x != SK_RESTART) {
            result = x == SK_BUDGET ? SB_PACK_BUDGET : x;
            break;
        }
        /* restart, perturbed */
        undo_to(&S, 0);
        S.ncands = 0;
        S.noise = true;
    }
    *work = S.work;
    *visited = S.visited;
    if (ar->failed) return SB_PACK_NOMEM;
    return result;
}

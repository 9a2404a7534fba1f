/* refill: the exact packer's search for 1-D tilings, by PQ-trees.
 *
 * Where a 1-D part has no slack (every section's nodes fill the capacity to
 * the byte) and no fixed rectangles, a packing is a sequence of orders: at
 * every time boundary the nodes that end leave runs of free bytes (the ones
 * that end side by side merge), and the nodes that start fill those runs
 * exactly, in any order. So a packing exists iff the ending nodes can be
 * split into groups and the starting ones into as many groups of the same
 * sums, such that each ending group is consecutive in the order before the
 * boundary; its starters then take its room, in any order. That is the
 * consecutive-ones problem of planarity testing by vertex addition (Lempel,
 * Even and Cederbaum), and a PQ-tree (Booth and Lueker, 1976) holds every
 * order consistent with the groups so far: leaves are the live nodes, a
 * P-node's children go in any order, a Q-node's in the order kept or its
 * reverse. Each group is made consecutive by the tree's reduction (the
 * templates, written here as one pass over the tree: a partial node below
 * the lowest node holding the whole group must become a Q-node with its
 * group leaves at one end; at that node the group's leaves must form one run)
 * and then replaced by a P-node of its starters. The tree decides the order
 * within a run only when a later group needs it, so the walls an allocator
 * reusing freed memory leaves (no cut in time or bytes splits them, which
 * defeats the guillotine decomposition) pack without search in most cases.
 *
 * The search is over the groups, finest first at each boundary (every
 * group one ending node or block, Blocks below, then up to two, ...: runs
 * merge only where no finer split fits): the first ending node left takes
 * others, then a set of starters of the same sum (starters of the same
 * size and end are the same choice; a lone ender's one starter of its size
 * is a relay, Ties below); a reduction that fails is a dead end at once.
 * Depth first, in time order, with restarts that redraw the order of
 * equal sizes near where the furthest run stopped, within the caller's
 * budget; it only ever packs. Look-ahead: ending nodes that
 * the sums put in one run in every packing (no set holding one but not the
 * other sums to a sum of starters) must stay consecutive in the tree
 * restricted to them and the nodes that outlive the run, checked at every
 * boundary once they have all started.
 *
 * Blocks. Where every leaf below a node of the tree ends at the boundary,
 * those ending nodes lie side by side in every order the tree holds: in
 * any packing they are in one run of freed bytes, and a group may take
 * the whole run (its starters in any order within it, every order a finer
 * split of the run allows and more). So they enter a group together, as
 * one choice (a group of single nodes holds at most MAX_GROUP), unless
 * each of them has a starter of its size left: as relays their pairing
 * stays open (Ties), which a group naming its starters loses. A floating
 * node is in no block.
 *
 * Ties. A relay, a group of one ending node and one starter of its size,
 * hands the slot on: which of several starters of that size takes which
 * slot shows only when one of them ends in a group of more, often much
 * later (planted walls of 2,000 tensors, seed 2: 506 of 512 B, 239 such
 * choices, and every run stopped between boundaries 288 and 427 of 500).
 * So a lone ender's relay names no starter (an anonymous relay: one
 * starter of the size is reserved); when the boundary is complete
 * (finish), a size's starters that end together take the slots as they
 * come, and ones that end apart float as a family: a set of members and
 * as many places, any member at any place. The places are the bound
 * enders' leaves, which stay in the tree as slots, and for an ender that
 * floated, a virtual token that takes its place in its own family; a
 * floating starter that relays alone passes its place in the family on.
 * A floating node is bound only where it ends in a group of more (each
 * place a branch, a virtual one chosen again in its family, bind_path),
 * where the group's reduction tests the choice at once. The slot's leaf
 * keeps the last section of the node that made it, no later than its
 * occupant's, so the look-ahead drops it soon enough. A forced group
 * with a floating member is checked with that member at each leaf it may
 * take (its family's slots, and through a virtual place the ones that
 * token may take; two members never at one): it can stay consecutive
 * if one choice can, so a binding that took the place a member needs
 * shows at the next boundary, not only where that member ends. Each
 * family's members take its places as they stand when the packing is
 * read back.
 *
 * The tree the search is at keeps its parents (set for the nodes a group
 * makes, undone on backtrack), so a group's leaves are counted from the
 * leaves up, the rest of the tree unread: a reduction costs the leaves'
 * depths and the degrees on the path it copies. A forced group is looked
 * at below its lowest node: first in the tree itself (consecutive there,
 * it is in any restriction), reading only the nodes holding some of it and
 * their places, as count_up links them; restricted only where it is not,
 * and there only the nodes holding some of it are rebuilt; and not again
 * while that node stands (trees are never changed, so the same node means
 * the same subtree).
 *
 * The packing is read back from the last tree: its frontier in the kept
 * order is the last boundary's order, and going back over the groups, each
 * group's tree as reduced (kept, as trees are never changed but copied along
 * the path to what changes) with the group's run marked gives the order
 * before it: every node outside the run is ordered as in the order after,
 * the run's nodes in the orientation of the Q-node around them. Addresses
 * are prefix sums of sizes; a node gets the same one in every order it
 * appears in, which is checked.
 *
 * Requires: nothing (a problem built by search.c). Produces: an address and
 * option per node. Complexity: per group, its leaves' depths and the
 * degrees of the nodes it copies (O(live nodes) at most) when nothing is
 * undone; exponential in the worst case, bounded by the budget. */
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "sbuf/sbuf.h"

#define NO_NODE UINT32_MAX

enum { PQ_LEAF, PQ_P, PQ_Q, PQ_BLOCK };
enum { EMPTY, PARTIAL, FULL };
/* Ending nodes in one group at most; sets of starters tried per group;
 * nodes of a problem at most (the search recurses a few frames per group,
 * so this bounds its stack to a few megabytes). */
enum { MAX_GROUP = 8, MAX_STARTER_SETS = 8, MAX_NODES = 4096 };

typedef struct pq_node {
    uint8_t kind;
    uint8_t ordered;        /* a block: its run kept in order (in a Q-node) */
    uint32_t n, first;      /* children: kid[first .. first + n) */
    uint32_t leaf;          /* a leaf: the problem's node */
    uint32_t leaves;        /* leaves below */
    uint32_t last;          /* the last section a leaf below is live in */
    uint32_t stamp, full;   /* the current group's leaves below, when stamp is the epoch */
    uint32_t up;            /* the parent, in the tree the search is at */
    uint32_t at;            /* and its place among the parent's children */
    uint32_t head, next;    /* count_up: the first child holding some of the group; the next such sibling */
    uint32_t linked;        /* count_up: the epoch it was linked to its parent's such children */
    uint64_t born;          /* its number among the nodes made (ids are used again, this never) */
    int64_t key;            /* reading back: the least position of a leaf below */
} pq_node;

/* One group replaced: the tree before, reduced, with the group's run as the
 * block; the starters that took it. */
typedef struct rf_op {
    uint32_t root_b;
    uint32_t h0, h1;        /* starters: hs[h0 .. h1) */
} rf_op;

/* Reading back: a child and the least place of a leaf below it. */
typedef struct rf_key {
    int64_t key;
    uint32_t node;
} rf_key;

typedef struct rf {
    const sb_pack_problem *p;
    sba_arena *ar;
    pq_node *nd;
    uint32_t nnd, capnd;
    uint32_t *kid;
    uint32_t nkid, capkid;
    uint32_t *seq;          /* scratch: children being assembled */
    uint32_t nseq, capseq;
    rf_op *op;
    uint32_t nop, capop;
    uint32_t *hs;
    uint32_t nhs, caphs;
    uint32_t *in_group;     /* per problem node: the epoch it is in the group being reduced */
    uint32_t *blk;          /* per ending node: its block's node (NO_NODE: none; see find_blocks) */
    uint32_t *bids;         /* scratch: a boundary's bound ending nodes */
    uint8_t *relayable;     /* scratch, by bids: a starter of its size is left */
    uint32_t epoch, gsize;
    uint32_t *leaf_of;      /* per problem node: its leaf, once it has started */
    uint32_t counted;       /* nodes below this id are the tree's, counted from the leaves up */
    uint32_t *trail;        /* (node, its parent and place before) triples, undone on backtrack */
    uint32_t ntrail, captrail;
    uint64_t made;          /* nodes made */
    uint32_t **ends, **starts; /* per boundary k: nodes with s1 == k - 1 and s0 == k */
    uint32_t *nends, *nstarts;
    uint32_t *pos;          /* reading back: each node's place in the order after */
    struct rf_order *order; /* scratch of the sorts */
    uint32_t caporder;
    rf_key *keys;           /* reading back: P-nodes' children by key, a stack */
    uint32_t nkeys, capkeys;
    /* groups the sums force (see forced_groups): members fm[fg_of[g] ..
     * fg_of[g + 1]), ending at boundary fg_end[g]; checked, by order of
     * their last member's start, from chk_at[k] when boundary k is done */
    uint32_t *fm, *fg_of, *fg_end, *chk_at, *chk;
    uint32_t nfg;
    uint32_t *ok_top;       /* per group the sums force: the lowest node holding it, last found able */
    uint64_t *ok_born;      /* to keep it consecutive, and when that node was made */
    uint64_t work, budget, visited;
    uint64_t tried;         /* the groups visited that chose something (not an anonymous relay's) */
    uint64_t *tie;          /* per boundary: the seed of this run's ties there (0: none) */
    uint32_t depth;         /* the last boundary this run entered */
    uint64_t to_depth;      /* the groups it had tried when it entered it */
    uint64_t run_start, run_limit; /* groups that chose (tried), at this run's start and at most in it */
    bool out;               /* budget spent */
    bool restart;           /* this run's limit reached */
    /* ties: equal-size relays whose pairing is left open (families) */
    uint32_t *fam_of;       /* per node: its family while it floats, else NO_FAM */
    uint32_t *heir;         /* per node that ended floating: the token that took its place */
    uint32_t *via;          /* per token: the place it took (a slot's label or a virtual token), or NO_NODE */
    uint32_t *vfam;         /* per virtual token (id - n): the family it is a member of */
    struct rf_fam *fam;
    uint32_t nfam, nv;
    struct rf_set *ft;      /* the trail of family writes */
    uint32_t nft, capft;
    uint32_t *anon;         /* enders relayed without naming the starter, a stack */
    uint32_t nanon, capanon, anon_base;
    uint32_t *stk;          /* finish's scratch, a stack */
    uint32_t nstk, capstk;
} rf;

/* A family (Ties): as many members as places, any member at any place.
 * Tokens are nodes (< n) or virtual tokens (n + their index); a place is a
 * slot, the label of a leaf (< n), or a virtual token, which takes a place
 * in its own family. A tie of more than MAXF starters takes the slots as
 * they come. */
enum { MAXF = 16 };
#define NO_FAM UINT32_MAX
typedef struct rf_fam {
    uint32_t nm, np;
    uint32_t m[MAXF], p[MAXF];
} rf_fam;

/* A write to the families, undone on backtrack. */
typedef struct rf_set {
    uint32_t *at, old;
} rf_set;

/* Writes v at `at`, its old value on the trail. */
static bool tset(rf *R, uint32_t *at, uint32_t v)
{
    if (!sba_arena_grow(R->ar, (void **)&R->ft, &R->capft, R->nft + 1, sizeof *R->ft)) return false;
    R->ft[R->nft++] = (rf_set){at, *at};
    *at = v;
    return true;
}

/* Undoes the writes since the trail was at `mark`. */
static void tundo(rf *R, uint32_t mark)
{
    while (R->nft > mark) {
        R->nft--;
        *R->ft[R->nft].at = R->ft[R->nft].old;
    }
}

static bool charge(rf *R, uint64_t units)
{
    R->work += units;
    if (R->work > R->budget) R->out = true;
    return !R->out && !R->restart;
}

static bool push(rf *R, uint32_t x)
{
    if (!sba_arena_grow(R->ar, (void **)&R->seq, &R->capseq, R->nseq + 1, sizeof *R->seq)) return false;
    R->seq[R->nseq++] = x;
    return true;
}

/* A node of `kind` over seq[a..nseq), which it takes off seq; one child is
 * the child itself. NO_NODE when out of memory. */
static uint32_t make(rf *R, uint8_t kind, uint32_t a)
{
    uint32_t n = R->nseq - a;
    if (n == 1 && kind != PQ_BLOCK) return R->seq[--R->nseq];
    if (!sba_arena_grow(R->ar, (void **)&R->nd, &R->capnd, R->nnd + 1, sizeof *R->nd) ||
        !sba_arena_grow(R->ar, (void **)&R->kid, &R->capkid, R->nkid + n, sizeof *R->kid))
        return NO_NODE;
    pq_node *x = &R->nd[R->nnd];
    *x = (pq_node){.kind = kind, .n = n, .first = R->nkid, .up = NO_NODE, .born = ++R->made};
    for (uint32_t i = 0; i < n; i++) {
        const pq_node *y = &R->nd[R->seq[a + i]];
        x->leaves += y->leaves;
        if (y->last > x->last) x->last = y->last;
    }
    memcpy(R->kid + R->nkid, R->seq + a, n * sizeof *R->kid);
    R->nkid += n;
    R->nseq = a;
    R->work += 1 + n;
    return R->nnd++;
}

static uint32_t make_leaf(rf *R, uint32_t i)
{
    if (!sba_arena_grow(R->ar, (void **)&R->nd, &R->capnd, R->nnd + 1, sizeof *R->nd)) return NO_NODE;
    R->nd[R->nnd] = (pq_node){
        .kind = PQ_LEAF, .leaf = i, .leaves = 1, .last = R->p->nodes[i].s1, .up = NO_NODE, .born = ++R->made};
    R->leaf_of[i] = R->nnd;
    return R->nnd++;
}

/* ---- reduction --------------------------------------------------------- */

/* The group's leaves below x (memoized for this epoch). In the tree the
 * search is at, once count_up has counted them, a node not marked has none. */
static uint32_t full_below(rf *R, uint32_t x)
{
    pq_node *v = &R->nd[x];
    R->work++; /* every call a step; a count worked out (once per node and group) one more */
    if (v->stamp == R->epoch) return v->full;
    if (x < R->counted) return 0;
    R->work++;
    uint32_t f = 0;
    if (v->kind == PQ_LEAF) f = R->in_group[v->leaf] == R->epoch;
    else
        for (uint32_t c = 0; c < v->n; c++) f += full_below(R, R->kid[R->nd[x].first + c]);
    v = &R->nd[x];
    v->stamp = R->epoch, v->full = f;
    return f;
}

static int state(rf *R, uint32_t x)
{
    uint32_t f = full_below(R, x);
    return f == 0 ? EMPTY : f == R->nd[x].leaves ? FULL : PARTIAL;
}

static uint32_t kid(const rf *R, uint32_t x, uint32_t c) { return R->kid[R->nd[x].first + c]; }

/* Pushes the children of a P-node x in state s, as one node (a P-node of
 * several); none when it has none. */
static bool push_group(rf *R, uint32_t x, int s)
{
    uint32_t a = R->nseq;
    for (uint32_t c = 0; c < R->nd[x].n; c++)
        if (state(R, kid(R, x, c)) == s && !push(R, kid(R, x, c))) return false;
    if (R->nseq == a) return true;
    uint32_t g = make(R, PQ_P, a);
    return g != NO_NODE && push(R, g);
}

/* Pushes the children of partial node x below the group's top node, in
 * order, its empty ones first and its full ones last (a P-node's grouped);
 * 0 when the group cannot be consecutive there, -1 out of memory. */
static int singly_partial(rf *R, uint32_t x)
{
    const pq_node v = R->nd[x];
    if (v.kind == PQ_P) {
        uint32_t partial = NO_NODE;
        for (uint32_t c = 0; c < v.n; c++)
            if (state(R, kid(R, x, c)) == PARTIAL) {
                if (partial != NO_NODE) return 0;
                partial = kid(R, x, c);
            }
        if (!push_group(R, x, EMPTY)) return -1;
        if (partial != NO_NODE) {
            int r = singly_partial(R, partial);
            if (r <= 0) return r;
        }
        return push_group(R, x, FULL) ? 1 : -1;
    }
    /* a Q-node: empty ones, at most one partial, then full ones to the end,
     * in the kept order or its reverse */
    for (int rev = 0; rev < 2; rev++) {
        uint32_t i = 0, partial = NO_NODE;
        while (i < v.n && state(R, kid(R, x, rev ? v.n - 1 - i : i)) == EMPTY) i++;
        uint32_t j = i;
        if (j < v.n && state(R, kid(R, x, rev ? v.n - 1 - j : j)) == PARTIAL) partial = j++;
        while (j < v.n && state(R, kid(R, x, rev ? v.n - 1 - j : j)) == FULL) j++;
        if (j < v.n) continue;
        for (uint32_t c = 0; c < v.n; c++) {
            uint32_t y = kid(R, x, rev ? v.n - 1 - c : c);
            if (c == partial) {
                int r = singly_partial(R, y);
                if (r <= 0) return r;
            } else if (!push(R, y)) return -1;
        }
        return 1;
    }
    return 0;
}

/* Reverses seq[a..nseq). */
static void reverse(rf *R, uint32_t a)
{
    for (uint32_t i = a, j = R->nseq; i + 1 < j; i++, j--) {
        uint32_t t = R->seq[i];
        R->seq[i] = R->seq[j - 1], R->seq[j - 1] = t;
    }
}

/* Rebuilds x, the lowest node holding the whole group, so that the group's
 * leaves are one run, as two nodes: *with_block has the run as a block (the
 * tree as reduced), *with_new has `fresh` in its place. 0 when the group
 * cannot be consecutive, -1 out of memory. */
static int rebuild_top(rf *R, uint32_t x, uint32_t fresh, uint32_t *with_block, uint32_t *with_new)
{
    const pq_node v = R->nd[x];
    const uint32_t base = R->nseq;
    if (state(R, x) == FULL) {
        if (!push(R, x) || (*with_block = make(R, PQ_BLOCK, base)) == NO_NODE) return -1;
        *with_new = fresh;
        return 1;
    }
    /* seq[base .. core): a P-node's empty children, which stay its own;
     * seq[core ..): the rebuilt sequence, [empty side] run [empty side] */
    bool ordered = true;
    uint32_t core = base;
    if (v.kind == PQ_P) {
        uint32_t part[2], np = 0;
        for (uint32_t c = 0; c < v.n; c++) {
            uint32_t y = kid(R, x, c);
            int s = state(R, y);
            if (s == PARTIAL) {
                if (np == 2) return 0;
                part[np++] = y;
            } else if (s == EMPTY && !push(R, y)) return -1;
        }
        core = R->nseq;
        if (np == 0) {
            ordered = false;
            for (uint32_t c = 0; c < v.n; c++)
                if (state(R, kid(R, x, c)) == FULL && !push(R, kid(R, x, c))) return -1;
        } else {
            int r = singly_partial(R, part[0]);
            if (r <= 0) return r;
            if (!push_group(R, x, FULL)) return -1;
            if (np == 2) {
                uint32_t b = R->nseq;
                if ((r = singly_partial(R, part[1])) <= 0) return r;
                reverse(R, b);
            }
        }
    } else {
        /* a Q-node: [empty] [partial] full* [partial] [empty], the partial
         * ones with their full sides inwards */
        uint32_t i = 0, j = v.n;
        while (i < v.n && state(R, kid(R, x, i)) == EMPTY) i++;
        while (j > i && state(R, kid(R, x, j - 1)) == EMPTY) j--;
        for (uint32_t c = i + 1; c + 1 < j; c++)
            if (state(R, kid(R, x, c)) != FULL) return 0;
        for (uint32_t c = 0; c < v.n; c++) {
            uint32_t y = kid(R, x, c);
            if (c < i || c >= j || state(R, y) != PARTIAL) {
                if (!push(R, y)) return -1;
                continue;
            }
            uint32_t b = R->nseq;
            int r = singly_partial(R, y);
            if (r <= 0) return r;
            if (c + 1 == j && c != i) reverse(R, b);
        }
    }
    /* the run of full entries becomes the block */
    const uint32_t end = R->nseq;
    uint32_t f0 = core, f1;
    while (f0 < end && state(R, R->seq[f0]) != FULL) f0++;
    for (f1 = f0; f1 < end && state(R, R->seq[f1]) == FULL; f1++) {}
    for (uint32_t c = f0; c < f1; c++)
        if (!push(R, R->seq[c])) return -1;
    uint32_t block = make(R, PQ_BLOCK, end);
    if (block == NO_NODE) return -1;
    R->nd[block].ordered = ordered;
    uint32_t out[2] = {block, fresh};
    for (int w = 0; w < 2; w++) {
        uint32_t a = R->nseq;
        for (uint32_t c = core; c < f0; c++)
            if (!push(R, R->seq[c])) return -1;
        if (!push(R, out[w])) return -1;
        for (uint32_t c = f1; c < end; c++)
            if (!push(R, R->seq[c])) return -1;
        uint32_t y = make(R, PQ_Q, a);
        if (y == NO_NODE) return -1;
        if (core > base) {
            /* beside a P-node's empty children, which stay its own */
            a = R->nseq;
            for (uint32_t c = base; c < core; c++)
                if (!push(R, R->seq[c])) return -1;
            if (!push(R, y) || (y = make(R, PQ_P, a)) == NO_NODE) return -1;
        }
        out[w] = y;
    }
    R->nseq = base;
    *with_block = out[0], *with_new = out[1];
    return 1;
}

/* The group the reductions make consecutive next: n problem nodes, marked
 * in_group at a new epoch (every memoized count of the last is stale). */
static void begin_group(rf *R, const uint32_t *ids, uint32_t n)
{
    R->epoch++;
    R->gsize = n;
    for (uint32_t x = 0; x < n; x++) R->in_group[R->nd[R->leaf_of[ids[x]]].leaf] = R->epoch;
}

/* Counts the group's leaves below every node of the tree the search is at
 * by walking up from each (every other node of it has none), in the
 * leaves' depths rather than the tree's size, and links every node holding
 * some to its parent's list of such children (can_gather reads them); the
 * lowest node holding the whole group, or NO_NODE when the walks do not
 * meet. */
static uint32_t count_up(rf *R, const uint32_t *ids, uint32_t n)
{
    R->counted = R->nnd;
    uint32_t top = NO_NODE;
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t y = R->leaf_of[ids[x]]; y != NO_NODE; y = R->nd[y].up) {
            pq_node *v = &R->nd[y];
            R->work++;
            if (v->stamp != R->epoch) v->stamp = R->epoch, v->full = 0, v->head = NO_NODE;
            if (++v->full == n && top == NO_NODE) top = y;
            if (v->linked == R->epoch || v->up == NO_NODE) continue;
            v->linked = R->epoch;
            pq_node *u = &R->nd[v->up];
            if (u->stamp != R->epoch) u->stamp = R->epoch, u->full = 0, u->head = NO_NODE;
            v->next = u->head, u->head = y;
        }
    return top;
}

/* The children of x that hold some of the group (count_up's links): how
 * many, the least and greatest of their places, and the partial ones in
 * part[0 .. *np); UINT32_MAX when more than `most` are partial. */
static uint32_t held_below(rf *R, uint32_t x, uint32_t *lo, uint32_t *hi, uint32_t *part, uint32_t *np, uint32_t most)
{
    uint32_t held = 0;
    *lo = UINT32_MAX, *hi = 0, *np = 0;
    for (uint32_t y = R->nd[x].head; y != NO_NODE; y = R->nd[y].next) {
        const pq_node *w = &R->nd[y];
        R->work++;
        held++;
        if (w->at < *lo) *lo = w->at;
        if (w->at > *hi) *hi = w->at;
        if (w->full == w->leaves) continue;
        if (*np == most) return UINT32_MAX;
        part[(*np)++] = y;
    }
    return held;
}

/* Whether partial node x of the tree the search is at (count_up done) can
 * have the group's leaves below it at one end, as singly_partial would
 * make them: only its children holding some are read. */
static bool can_end(rf *R, uint32_t x)
{
    uint32_t lo, hi, part[1] = {NO_NODE}, np, held = held_below(R, x, &lo, &hi, part, &np, 1);
    if (held == UINT32_MAX) return false;
    if (R->nd[x].kind == PQ_Q) {
        /* one run, at an end, the partial one (if any) at its inner end */
        if (hi - lo + 1 != held) return false;
        const bool inner_lo = np == 0 || R->nd[part[0]].at == lo, inner_hi = np == 0 || R->nd[part[0]].at == hi;
        if (!((hi == R->nd[x].n - 1 && inner_lo) || (lo == 0 && inner_hi))) return false;
    }
    return np == 0 || can_end(R, part[0]);
}

/* Whether the group can be one run below x, the lowest node of the tree
 * the search is at holding all of it (count_up done), as rebuild_top would
 * make it: only the nodes holding some of it are read. */
static bool can_gather(rf *R, uint32_t x)
{
    if (R->nd[x].full == R->nd[x].leaves) return true;
    uint32_t lo, hi, part[2] = {NO_NODE, NO_NODE}, np, held = held_below(R, x, &lo, &hi, part, &np, 2);
    if (held == UINT32_MAX) return false;
    if (R->nd[x].kind == PQ_Q) {
        /* one run, its partial ones (if any) at its ends */
        if (hi - lo + 1 != held) return false;
        for (uint32_t i = 0; i < np; i++)
            if (R->nd[part[i]].at != lo && R->nd[part[i]].at != hi) return false;
    }
    for (uint32_t i = 0; i < np; i++)
        if (!can_end(R, part[i])) return false;
    return true;
}

/* Sets the parents below the tree's new root: the nodes made since `mark`
 * are its children's parents; the parents they had are kept on the trail. */
static bool adopt(rf *R, uint32_t root, uint32_t mark)
{
    if (!sba_arena_grow(R->ar, (void **)&R->trail, &R->captrail, R->ntrail + 3, sizeof *R->trail)) return false;
    R->trail[R->ntrail++] = root, R->trail[R->ntrail++] = R->nd[root].up, R->trail[R->ntrail++] = R->nd[root].at;
    R->nd[root].up = NO_NODE;
    uint32_t a = R->nseq; /* seq as a stack of the new nodes to visit */
    if (root >= mark && R->nd[root].kind != PQ_LEAF && !push(R, root)) return false;
    while (R->nseq > a) {
        const uint32_t x = R->seq[--R->nseq], n = R->nd[x].n;
        if (!sba_arena_grow(R->ar, (void **)&R->trail, &R->captrail, R->ntrail + 3 * (size_t)n, sizeof *R->trail))
            return false;
        R->work += n;
        for (uint32_t c = 0; c < n; c++) {
            const uint32_t y = kid(R, x, c);
            R->trail[R->ntrail++] = y, R->trail[R->ntrail++] = R->nd[y].up, R->trail[R->ntrail++] = R->nd[y].at;
            R->nd[y].up = x, R->nd[y].at = c;
            if (y >= mark && R->nd[y].kind != PQ_LEAF && !push(R, y)) return false;
        }
    }
    return true;
}

/* Undoes the parents (and places) set since the trail was at `mark`. */
static void unadopt(rf *R, uint32_t mark)
{
    while (R->ntrail > mark) {
        R->ntrail -= 3;
        pq_node *v = &R->nd[R->trail[R->ntrail]];
        v->up = R->trail[R->ntrail + 1], v->at = R->trail[R->ntrail + 2];
    }
}

/* Makes the group (in_group at this epoch, gsize leaves) consecutive in the
 * tree `root` and replaces it by `fresh`: *root_b is the tree reduced, with
 * the run as a block; *root_h the tree after. 0 when it cannot be, -1 out
 * of memory. */
static int replace_group(rf *R, uint32_t root, uint32_t fresh, uint32_t *root_b, uint32_t *root_h)
{
    if (full_below(R, root) != R->gsize) return 0;
    /* down to the lowest node holding the whole group */
    uint32_t base = R->nseq, x = root;
    for (;;) {
        const pq_node v = R->nd[x];
        if (v.kind == PQ_LEAF) break;
        uint32_t c = 0;
        while (c < v.n && full_below(R, kid(R, x, c)) != R->gsize) c++;
        if (c == v.n) break;
        if (!push(R, x) || !push(R, c)) return -1;
        x = kid(R, x, c);
    }
    uint32_t path_end = R->nseq;
    uint32_t nb, nh;
    int r = rebuild_top(R, x, fresh, &nb, &nh);
    if (r <= 0) {
        R->nseq = base;
        return r;
    }
    /* copy the path, twice */
    for (uint32_t e = path_end; e > base; e -= 2) {
        uint32_t parent = R->seq[e - 2], at = R->seq[e - 1];
        uint32_t ver[2] = {nb, nh};
        for (int w = 0; w < 2; w++) {
            uint32_t a = R->nseq;
            for (uint32_t c = 0; c < R->nd[parent].n; c++)
                if (!push(R, c == at ? ver[w] : kid(R, parent, c))) return -1;
            uint32_t y = make(R, R->nd[parent].kind, a);
            if (y == NO_NODE) return -1;
            ver[w] = y;
        }
        nb = ver[0], nh = ver[1];
    }
    R->nseq = base;
    *root_b = nb, *root_h = nh;
    return 1;
}

/* ---- looking ahead: groups the sums force ------------------------------ */

/* Where at boundary k no set of ending nodes that holds x but not y sums
 * to a sum of starters, x and y are in one run in every packing: such a
 * group's nodes, once all have started, may have between them only nodes
 * that end by k (they are gone when the group's run forms). So the tree,
 * its longer-lived leaves and the group's alone, must let the group be
 * consecutive: checked when the group's last node has started, which
 * meets a wrong order of a run as soon as it is made rather than when the
 * run ends. Boundaries of at most FORCED_ENDS ending nodes. */
enum { FORCED_ENDS = 12, FORCED_UNITS = 1 << 20 };

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
}

static bool forced_groups(rf *R)
{
    const sb_pack_problem *p = R->p;
    const int64_t unit = p->align > 0 ? p->align : 1;
    uint32_t nfg = 0, nfm = 0;
    R->fm = sba_arena_array(R->ar, (size_t)p->n + 1, sizeof *R->fm);
    R->fg_of = sba_arena_array(R->ar, (size_t)p->n / 2 + 2, sizeof *R->fg_of);
    R->fg_end = sba_arena_array(R->ar, (size_t)p->n / 2 + 2, sizeof *R->fg_end);
    R->chk_at = sba_arena_array(R->ar, (size_t)p->K + 2, sizeof *R->chk_at);
    R->chk = sba_arena_array(R->ar, (size_t)p->n / 2 + 2, sizeof *R->chk);
    int64_t *sum = sba_arena_array(R->ar, (size_t)1 << FORCED_ENDS, sizeof *sum);
    uint8_t *sep = sba_arena_array(R->ar, FORCED_ENDS * FORCED_ENDS, 1);
    if (!R->fm || !R->fg_of || !R->fg_end || !R->chk_at || !R->chk || !sum || !sep) return false;
    uint64_t *ss = NULL;
    uint32_t capss = 0;
    /* on at most half the budget: fewer groups only check less */
    for (uint32_t k = 1; k < p->K && R->work <= R->budget / 2; k++) {
        const uint32_t ne = R->nends[k], ns = R->nstarts[k];
        if (ne < 2 || ne > FORCED_ENDS || !ns) continue;
        int64_t total = 0;
        for (uint32_t x = 0; x < ne; x++) total += p->nodes[R->ends[k][x]].size / unit;
        if (total > FORCED_UNITS) continue;
        /* the starters' subset sums, in units up to the total */
        uint32_t words = (uint32_t)(total / 64 + 1);
        if (!sba_arena_grow(R->ar, (void **)&ss, &capss, words, sizeof *ss)) return false;
        memset(ss, 0, words * sizeof *ss);
        ss[0] = 1;
        for (uint32_t y = 0; y < ns; y++) {
            int64_t w = p->nodes[R->starts[k][y]].size / unit;
            uint32_t ws = (uint32_t)(w / 64), bs = (uint32_t)(w % 64);
            for (uint32_t d = words; d-- > ws;) {
                uint64_t v = ss[d - ws] << bs;
                if (bs && d > ws) v |= ss[d - ws - 1] >> (64 - bs);
                ss[d] |= v;
            }
        }
        R->work += (uint64_t)ns * words + ((uint64_t)1 << ne) * ne;
        memset(sep, 0, FORCED_ENDS * FORCED_ENDS);
        sum[0] = 0;
        for (uint32_t m = 1; m + 1 < (1u << ne); m++) {
            uint32_t low = (uint32_t)__builtin_ctz(m);
            sum[m] = sum[m & (m - 1)] + p->nodes[R->ends[k][low]].size / unit;
            if (!(ss[sum[m] / 64] >> (sum[m] % 64) & 1)) continue;
            R->work += (uint64_t)ne * ne;
            for (uint32_t x = 0; x < ne; x++)
                if (m >> x & 1)
                    for (uint32_t y = 0; y < ne; y++)
                        if (!(m >> y & 1)) sep[x * FORCED_ENDS + y] = sep[y * FORCED_ENDS + x] = 1;
        }
        uint32_t up[FORCED_ENDS];
        for (uint32_t x = 0; x < ne; x++) up[x] = x;
        for (uint32_t x = 0; x < ne; x++)
            for (uint32_t y = x + 1; y < ne; y++)
                if (!sep[x * FORCED_ENDS + y]) up[uf_find(up, x)] = uf_find(up, y);
        for (uint32_t r = 0; r < ne; r++) {
            if (uf_find(up, r) != r) continue;
            uint32_t m0 = nfm;
            for (uint32_t x = 0; x < ne; x++)
                if (uf_find(up, x) == r) R->fm[nfm++] = R->ends[k][x];
            if (nfm - m0 < 2) {
                nfm = m0;
                continue;
            }
            R->fg_of[nfg] = m0, R->fg_end[nfg++] = k;
        }
    }
    R->fg_of[nfg] = nfm;
    R->nfg = nfg;
    R->ok_top = sba_arena_array(R->ar, (size_t)nfg + 1, sizeof *R->ok_top);
    R->ok_born = sba_arena_array(R->ar, (size_t)nfg + 1, sizeof *R->ok_born);
    if (!R->ok_top || !R->ok_born) return false;
    for (uint32_t g = 0; g < nfg; g++) R->ok_top[g] = NO_NODE, R->ok_born[g] = 0;
    /* by the boundary their last member starts at */
    for (uint32_t g = 0; g < nfg; g++) {
        uint32_t born = 0;
        for (uint32_t x = R->fg_of[g]; x < R->fg_of[g + 1]; x++)
            if (p->nodes[R->fm[x]].s0 > born) born = p->nodes[R->fm[x]].s0;
        R->chk_at[born + 1]++;
    }
    for (uint32_t k = 0; k <= p->K; k++) R->chk_at[k + 1] += R->chk_at[k];
    for (uint32_t g = 0; g < nfg; g++) {
        uint32_t born = 0;
        for (uint32_t x = R->fg_of[g]; x < R->fg_of[g + 1]; x++)
            if (p->nodes[R->fm[x]].s0 > born) born = p->nodes[R->fm[x]].s0;
        R->chk[R->chk_at[born]++] = g;
    }
    for (uint32_t k = p->K + 1; k-- > 1;) R->chk_at[k] = R->chk_at[k - 1];
    R->chk_at[0] = 0;
    return true;
}

/* The tree without the leaves that end by boundary `end`, the group's
 * (in_group at this epoch) kept; NO_NODE when none is left (or out of
 * memory: R->ar->failed). */
static uint32_t restrict_tree(rf *R, uint32_t x, uint32_t end)
{
    const pq_node v = R->nd[x];
    R->work++;
    /* below x, counted from the leaves up: none of the group's leaves (x
     * stays whole while a leaf below outlives `end`, the reduction taking
     * it as one), or only the group's */
    const uint32_t f = v.stamp == R->epoch ? v.full : 0;
    if (f == 0) return v.last + 1 > end ? x : NO_NODE;
    if (f == v.leaves) return x;
    uint32_t a = R->nseq;
    for (uint32_t c = 0; c < v.n; c++) {
        uint32_t y = restrict_tree(R, kid(R, x, c), end);
        if (y != NO_NODE && !push(R, y)) return NO_NODE;
    }
    if (R->nseq == a) return NO_NODE;
    return make(R, v.kind, a);
}

/* 1 when the forced group g, members[0 .. n) at their leaves, can be
 * consecutive in the tree restricted to the nodes that outlive it; 0 when
 * it cannot, -1 out of memory. `keep`: the lowest node found able is kept,
 * and one unchanged since is taken as able. */
static int can_stay(rf *R, uint32_t g, const uint32_t *members, uint32_t n, uint32_t root, bool keep)
{
    const uint32_t mark_nd = R->nnd, mark_kid = R->nkid, mark_seq = R->nseq;
    begin_group(R, members, n);
    /* the lowest node holding the group is all that can keep it apart;
     * where the group can be consecutive in the tree itself (read where
     * it has leaves), it can without the nodes that end first, and only
     * otherwise is that node's subtree restricted to the others */
    uint32_t top = count_up(R, members, n), rb, rh;
    /* that node unchanged since it last could (nodes are never changed,
     * but made anew), it still can */
    if (keep && top != NO_NODE && R->ok_top[g] == top && R->ok_born[g] == R->nd[top].born) return 1;
    if (top == NO_NODE || !can_gather(R, top)) {
        uint32_t small = restrict_tree(R, top != NO_NODE ? top : root, R->fg_end[g]);
        if (R->ar->failed) return -1;
        int r = small == NO_NODE ? 0 : replace_group(R, small, small, &rb, &rh);
        R->nnd = mark_nd, R->nkid = mark_kid, R->nseq = mark_seq;
        if (r <= 0) return r;
    }
    if (keep && top != NO_NODE) R->ok_top[g] = top, R->ok_born[g] = R->nd[top].born;
    return 1;
}

/* The leaves floating token `tok` may take (Ties): its family's slots,
 * and through a virtual place, the ones that token may take; appended to
 * out[*n ..], false past `most`. */
static bool may_take(rf *R, uint32_t tok, uint32_t *out, uint32_t *n, uint32_t most)
{
    const uint32_t nn = R->p->n;
    const rf_fam *G = &R->fam[tok < nn ? R->fam_of[tok] : R->vfam[tok - nn]];
    for (uint32_t x = 0; x < G->np; x++) {
        R->work++;
        if (G->p[x] >= nn) {
            if (!may_take(R, G->p[x], out, n, most)) return false;
        } else {
            if (*n == most) return false;
            out[(*n)++] = R->leaf_of[G->p[x]];
        }
    }
    return true;
}

/* Ways a forced group's floating members are tried at most. */
enum { FLOAT_WAYS = 16 };

/* can_stay for a forced group with floating members: 1 when some choice of
 * a leaf each may take (may_take; two never the same) can stay, else 0;
 * 1 unchecked when there are more than FLOAT_WAYS choices. */
static int can_stay_floating(rf *R, uint32_t g, const uint32_t *members, uint32_t n, uint32_t root)
{
    uint32_t fl[FORCED_ENDS], nfl = 0, cand[FLOAT_WAYS], from[FORCED_ENDS + 1], at[FORCED_ENDS], nc = 0;
    uint32_t was[FORCED_ENDS], ways = 1;
    for (uint32_t x = 0; x < n; x++) {
        if (R->fam_of[members[x]] == NO_FAM) continue;
        from[nfl] = nc;
        if (!may_take(R, members[x], cand, &nc, FLOAT_WAYS) || nc == from[nfl]) return 1;
        ways *= nc - from[nfl];
        if (ways > FLOAT_WAYS) return 1;
        at[nfl] = from[nfl], was[nfl] = R->leaf_of[members[x]], fl[nfl++] = x;
    }
    from[nfl] = nc;
    int r = 0;
    for (uint32_t w = 0; w < ways && r == 0; w++) {
        bool apart = true;
        for (uint32_t i = 0; i < nfl; i++) {
            R->leaf_of[members[fl[i]]] = cand[at[i]];
            for (uint32_t j = 0; j < i; j++) apart &= cand[at[j]] != cand[at[i]];
        }
        if (apart) r = can_stay(R, g, members, n, root, false);
        /* the next choice, as an odometer */
        for (uint32_t i = 0; i < nfl && ++at[i] == from[i + 1]; i++) at[i] = from[i];
    }
    for (uint32_t i = 0; i < nfl; i++) R->leaf_of[members[fl[i]]] = was[i];
    return r;
}

/* 1 when every group the sums force whose last node started at boundary
 * k can still be consecutive; 0 when one cannot, -1 out of memory. A
 * floating member may be at any leaf it may take. */
static int look_ahead(rf *R, uint32_t k, uint32_t root)
{
    R->work += R->chk_at[k + 1];
    for (uint32_t c = 0; c < R->chk_at[k + 1]; c++) {
        const uint32_t g = R->chk[c];
        if (R->fg_end[g] <= k) continue;
        const uint32_t *members = R->fm + R->fg_of[g], n = R->fg_of[g + 1] - R->fg_of[g];
        bool floating = false;
        for (uint32_t x = 0; x < n; x++) floating |= R->fam_of[members[x]] != NO_FAM;
        int r = floating ? can_stay_floating(R, g, members, n, root) : can_stay(R, g, members, n, root, true);
        if (r <= 0) return r;
    }
    return 1;
}

/* ---- the search over groups --------------------------------------------- */

typedef struct rf_search {
    uint32_t *ends_used, *starts_used; /* per problem node */
    uint32_t *as;                      /* the groups' ending nodes, a stack */
    uint32_t *maxa;                    /* per boundary: ending nodes a group may hold */
    uint32_t nas;
    uint32_t final_root;
} rf_search;

static int boundary(rf *R, rf_search *F, uint32_t k, uint32_t root);
static int next_group(rf *R, rf_search *F, uint32_t k, uint32_t root);
static int finish(rf *R, rf_search *F, uint32_t k, uint32_t root);

static int bind_enders(rf *R, rf_search *F, uint32_t k, uint32_t root, uint32_t a0, uint32_t h0, uint32_t idx);

/* Replaces the group as[a0 .. nas) by the starters hs[h0 .. nhs), then goes
 * on with the next group: its floating enders bound to slots first. */
static int apply_group(rf *R, rf_search *F, uint32_t k, uint32_t root, uint32_t a0, uint32_t h0)
{
    R->visited++;
    if (++R->tried - R->run_start > R->run_limit) R->restart = true;
    if (!charge(R, 1)) return 0;
    return bind_enders(R, F, k, root, a0, h0, a0);
}

/* Replaces the group ids[0 .. n) in the tree `root` by a P-node of the
 * starters hs[h0 .. nhs), the reduced tree kept for reading back: 1 with
 * *root_h the tree after, 0 where the group cannot be one run, -1 out of
 * memory. */
static int replace_run(rf *R, const uint32_t *ids, uint32_t n, uint32_t h0, uint32_t root, uint32_t mark_nd,
                       uint32_t *root_h)
{
    begin_group(R, ids, n);
    count_up(R, ids, n);
    uint32_t a = R->nseq;
    for (uint32_t x = h0; x < R->nhs; x++) {
        uint32_t leaf = make_leaf(R, R->hs[x]);
        if (leaf == NO_NODE || !push(R, leaf)) return -1;
    }
    uint32_t fresh = make(R, PQ_P, a), root_b;
    if (fresh == NO_NODE) return -1;
    int r = replace_group(R, root, fresh, &root_b, root_h);
    if (r != 1) return r;
    if (!adopt(R, *root_h, mark_nd)) return -1;
    if (!sba_arena_grow(R->ar, (void **)&R->op, &R->capop, R->nop + 1, sizeof *R->op)) return -1;
    R->op[R->nop++] = (rf_op){root_b, h0, R->nhs};
    return 1;
}

/* apply_group with every ender bound (a leaf of its own or a slot's). */
static int apply_bound(rf *R, rf_search *F, uint32_t k, uint32_t root, uint32_t a0, uint32_t h0)
{
    const uint32_t mark_nd = R->nnd, mark_kid = R->nkid, mark_seq = R->nseq, mark_trail = R->ntrail;
    uint32_t root_h;
    int r = replace_run(R, F->as + a0, F->nas - a0, h0, root, mark_nd, &root_h);
    if (r == 1) {
        r = next_group(R, F, k, root_h);
        if (r != 1) R->nop--;
    }
    if (r == 0) unadopt(R, mark_trail), R->nnd = mark_nd, R->nkid = mark_kid, R->nseq = mark_seq;
    return r;
}

/* Where v is in a[0 .. n), or UINT32_MAX. */
static uint32_t fam_index(const uint32_t *a, uint32_t n, uint32_t v)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i] == v) return i;
    return UINT32_MAX;
}

/* Removes a[i] of *n (the last moves in), on the trail. */
static bool fam_remove(rf *R, uint32_t *a, uint32_t *n, uint32_t i)
{
    return tset(R, &a[i], a[*n - 1]) && tset(R, n, *n - 1);
}

/* Places token `tok` (node `node`, or a virtual token on its way up) at
 * each place of its family in turn: a slot binds the node; a virtual
 * token's place is then chosen in its own family. */
static int bind_path(rf *R, rf_search *F, uint32_t k, uint32_t root, uint32_t a0, uint32_t h0, uint32_t idx,
                     uint32_t node, uint32_t tok)
{
    const uint32_t n = R->p->n;
    const uint32_t f = tok < n ? R->fam_of[tok] : R->vfam[tok - n];
    rf_fam *G = &R->fam[f];
    for (uint32_t x = 0; x < G->np; x++) {
        if (!charge(R, 1)) return 0;
        const uint32_t place = G->p[x], mark = R->nft, mi = fam_index(G->m, G->nm, tok);
        if (mi == UINT32_MAX) return -1;
        if (!fam_remove(R, G->m, &G->nm, mi) || !fam_remove(R, G->p, &G->np, x) || !tset(R, &R->via[tok], place))
            return -1;
        int r;
        if (place < n) {
            if (!tset(R, &R->leaf_of[node], R->leaf_of[place]) || !tset(R, &R->fam_of[node], NO_FAM)) return -1;
            r = bind_enders(R, F, k, root, a0, h0, idx + 1);
        } else {
            r = bind_path(R, F, k, root, a0, h0, idx, node, place);
        }
        if (r != 0) return r;
        tundo(R, mark);
    }
    return 0;
}

/* Binds the floating enders of as[idx .. nas) in turn, then applies the group. */
static int bind_enders(rf *R, rf_search *F, uint32_t k, uint32_t root, uint32_t a0, uint32_t h0, uint32_t idx)
{
    while (idx < F->nas && R->fam_of[F->as[idx]] == NO_FAM) idx++;
    if (idx == F->nas) return apply_bound(R, F, k, root, a0, h0);
    return bind_path(R, F, k, root, a0, h0, idx, F->as[idx], F->as[idx]);
}

/* Whether boundary k has an unused starter of size s that no relay of
 * the boundary has reserved. `one` (taking that starter): it is unused. */
static bool spare_of_size(rf *R, rf_search *F, uint32_t k, int64_t s, bool one)
{
    int64_t c = 0;
    for (uint32_t a = R->anon_base; a < R->nanon; a++) c += R->p->nodes[R->anon[a]].size == s;
    R->work += 1 + R->nanon - R->anon_base;
    if (c == 0 && one) return true;
    for (uint32_t j = 0; j < R->nstarts[k] && c >= 0; j++)
        c -= !F->starts_used[R->starts[k][j]] && R->p->nodes[R->starts[k][j]].size == s;
    R->work += R->nstarts[k];
    return c < 0;
}

/* Chooses the starters of the group as[a0 .. nas), of sum `need`, from
 * starts[k][j ..]: identical starters (same size and end) are taken as a
 * prefix, so each choice is made once. *tries counts the sets tried. */
static int pick_starters(rf *R, rf_search *F, uint32_t k, uint32_t root, uint32_t a0, uint32_t h0, uint32_t j,
                         int64_t need, uint32_t *tries)
{
    if (need == 0) {
        if (++*tries > MAX_STARTER_SETS) return 0;
        return apply_group(R, F, k, root, a0, h0);
    }
    const sb_pack_node *nodes = R->p->nodes;
    const uint32_t *st = R->starts[k], ns = R->nstarts[k], j0 = j;
    while (j < ns && (F->starts_used[st[j]] || nodes[st[j]].size > need)) j++;
    if (!charge(R, 1 + (j - j0)) || j == ns) return 0;
    uint32_t i = st[j];
    /* a lone ender's one starter of its size is the anonymous relay's
     * (pick_enders); a starter reserved for those is not taken */
    const bool relay = F->nas - a0 == 1 && R->nhs == h0 && nodes[i].size == need;
    int r = 0;
    if (!relay && spare_of_size(R, F, k, nodes[i].size, true)) {
        if (!sba_arena_grow(R->ar, (void **)&R->hs, &R->caphs, R->nhs + 1, sizeof *R->hs)) return -1;
        R->hs[R->nhs++] = i;
        F->starts_used[i] = 1;
        r = pick_starters(R, F, k, root, a0, h0, j + 1, need - nodes[i].size, tries);
        F->starts_used[i] = 0;
        R->nhs--;
    }
    if (r != 0) return r;
    /* leave it, and the ones like it */
    uint32_t j2 = j + 1;
    while (j2 < ns && nodes[st[j2]].size == nodes[i].size && nodes[st[j2]].s1 == nodes[i].s1) j2++;
    return pick_starters(R, F, k, root, a0, h0, j2, need, tries);
}

/* Puts ending node i and the rest of its block on the group stack, used;
 * the bytes they add. */
static int64_t take_block(rf *R, rf_search *F, uint32_t k, uint32_t i)
{
    int64_t sum = R->p->nodes[i].size;
    F->ends_used[i] = 1;
    F->as[F->nas++] = i;
    if (R->blk[i] == NO_NODE) return sum;
    R->work += R->nends[k];
    for (uint32_t j = 0; j < R->nends[k]; j++) {
        const uint32_t e = R->ends[k][j];
        if (F->ends_used[e] || R->blk[e] != R->blk[i]) continue;
        F->ends_used[e] = 1;
        F->as[F->nas++] = e;
        sum += R->p->nodes[e].size;
    }
    return sum;
}

/* Takes the group stack back to n0, its nodes unused again. */
static void drop_block(rf_search *F, uint32_t n0)
{
    while (F->nas > n0) F->ends_used[F->as[--F->nas]] = 0;
}

/* Adds `more` ending nodes from ends[k][j ..] to the group as[a0 .. nas),
 * then picks its starters. */
static int pick_enders(rf *R, rf_search *F, uint32_t k, uint32_t root, uint32_t a0, uint32_t j, uint32_t more,
                       int64_t sum)
{
    if (more == 0) {
        uint32_t tries = 0;
        if (F->nas - a0 == 1 && spare_of_size(R, F, k, sum, false)) {
            /* a relay: the ender's slot goes to one starter of its size,
             * which one left open until the boundary is complete (finish) */
            R->visited++; /* chooses nothing: not counted against the run's limit */
            if (!charge(R, 1)) return 0;
            if (!sba_arena_grow(R->ar, (void **)&R->anon, &R->capanon, R->nanon + 1, sizeof *R->anon)) return -1;
            R->anon[R->nanon++] = F->as[a0];
            int r = next_group(R, F, k, root);
            R->nanon--;
            if (r != 0) return r;
        }
        return pick_starters(R, F, k, root, a0, R->nhs, 0, sum, &tries);
    }
    const uint32_t *en = R->ends[k], ne = R->nends[k];
    for (; j < ne; j++) {
        uint32_t i = en[j];
        if (F->ends_used[i]) continue;
        if (!charge(R, 1)) return 0;
        const uint32_t n0 = F->nas;
        const int64_t add = take_block(R, F, k, i);
        int r = pick_enders(R, F, k, root, a0, j + 1, more - 1, sum + add);
        drop_block(F, n0);
        if (r != 0) return r;
    }
    return 0;
}

/* The relays pairs[i .. n) made in the tree (a lone ender's leaf replaced
 * by its starter's), then the look-ahead and the next boundary. */
static int relay_tree(rf *R, rf_search *F, uint32_t k, uint32_t root, uint32_t pb, uint32_t n, uint32_t i)
{
    if (i == n) {
        int r = look_ahead(R, k, root);
        return r == 1 ? boundary(R, F, k + 1, root) : r;
    }
    const uint32_t mark_nd = R->nnd, mark_kid = R->nkid, mark_seq = R->nseq, mark_trail = R->ntrail, h0 = R->nhs;
    const uint32_t e = R->stk[pb + 2 * i];
    if (!sba_arena_grow(R->ar, (void **)&R->hs, &R->caphs, R->nhs + 1, sizeof *R->hs)) return -1;
    R->hs[R->nhs++] = R->stk[pb + 2 * i + 1];
    uint32_t root_h;
    int r = replace_run(R, &e, 1, h0, root, mark_nd, &root_h);
    if (r == 1) {
        r = relay_tree(R, F, k, root_h, pb, n, i + 1);
        if (r != 1) R->nop--;
    }
    if (r == 0) unadopt(R, mark_trail), R->nnd = mark_nd, R->nkid = mark_kid, R->nseq = mark_seq, R->nhs = h0;
    return r;
}

/* Boundary k complete but for its anonymous relays: each size's enders
 * take the unused starters of that size. One starter, or several that
 * end together, take the slots as they come; several that end apart are
 * a family (their pairing left open): where every ender floats in one
 * family they replace them there, else they form a new one whose places
 * are the bound enders' slots and, for a floating ender, a virtual token
 * that takes its place in its family. */
static int finish(rf *R, rf_search *F, uint32_t k, uint32_t root)
{
    const uint32_t n = R->p->n, a0 = R->anon_base, a1 = R->nanon, mark = R->nft;
    const sb_pack_node *nodes = R->p->nodes;
    const uint32_t m = a1 - a0, sb = R->nstk;
    if (!sba_arena_grow(R->ar, (void **)&R->stk, &R->capstk, sb + 5 * m + 4, sizeof *R->stk)) return -1;
    R->nstk = sb + 5 * m + 4;
    uint32_t *pairs = R->stk + sb, *E = pairs + 2 * m + 2, *S = E + m + 1, *done = S + m + 1, np = 0;
    memset(done, 0, m * sizeof *done);
    int r = 0;
    for (uint32_t a = a0; a < a1; a++) {
        if (done[a - a0]) continue;
        const int64_t sz = nodes[R->anon[a]].size;
        uint32_t ne = 0, ns = 0;
        for (uint32_t b = a; b < a1; b++)
            if (!done[b - a0] && nodes[R->anon[b]].size == sz) E[ne++] = R->anon[b], done[b - a0] = 1;
        for (uint32_t j = 0; j < R->nstarts[k]; j++) {
            uint32_t z = R->starts[k][j];
            if (!F->starts_used[z] && nodes[z].size == sz && ns < ne) S[ns++] = z;
        }
        R->work += R->nstarts[k] + (a1 - a);
        if (ns != ne) goto fail; /* never, by the sums */
        for (uint32_t x = 0; x < ns; x++)
            if (!tset(R, &F->starts_used[S[x]], 1)) goto nomem;
        bool apart = false, one = true;
        for (uint32_t x = 1; x < ns; x++) apart |= nodes[S[x]].s1 != nodes[S[0]].s1;
        for (uint32_t x = 0; x < ne; x++) one &= R->fam_of[E[x]] != NO_FAM && R->fam_of[E[x]] == R->fam_of[E[0]];
        if (!apart || one || ne > MAXF) {
            /* a bound ender's slot goes to its starter in the tree; a
             * floating one's place in its family to its starter */
            for (uint32_t x = 0; x < ne; x++) {
                const uint32_t e = E[x], z = S[x], f = R->fam_of[e];
                if (f == NO_FAM) {
                    pairs[2 * np] = e, pairs[2 * np + 1] = z, np++;
                    continue;
                }
                rf_fam *G = &R->fam[f];
                uint32_t mi = fam_index(G->m, G->nm, e);
                if (mi == UINT32_MAX || !tset(R, &G->m[mi], z) || !tset(R, &R->fam_of[z], f) ||
                    !tset(R, &R->heir[e], z) || !tset(R, &R->fam_of[e], NO_FAM))
                    goto nomem;
            }
        } else {
            const uint32_t g = R->nfam;
            if (!tset(R, &R->nfam, g + 1)) goto nomem;
            rf_fam *G = &R->fam[g];
            if (!tset(R, &G->nm, 0) || !tset(R, &G->np, 0)) goto nomem;
            for (uint32_t x = 0; x < ne; x++) {
                const uint32_t e = E[x], f = R->fam_of[e];
                uint32_t place;
                if (f == NO_FAM) {
                    place = R->nd[R->leaf_of[e]].leaf;
                } else {
                    place = n + R->nv;
                    rf_fam *P = &R->fam[f];
                    uint32_t mi = fam_index(P->m, P->nm, e);
                    if (mi == UINT32_MAX || !tset(R, &R->nv, R->nv + 1) || !tset(R, &R->vfam[place - n], f) ||
                        !tset(R, &P->m[mi], place) || !tset(R, &R->heir[e], place) || !tset(R, &R->fam_of[e], NO_FAM))
                        goto nomem;
                }
                if (!tset(R, &G->p[G->np], place) || !tset(R, &G->np, G->np + 1) || !tset(R, &G->m[G->nm], S[x]) ||
                    !tset(R, &G->nm, G->nm + 1) || !tset(R, &R->fam_of[S[x]], g))
                    goto nomem;
            }
        }
    }
    r = relay_tree(R, F, k, root, sb, np, 0);
    if (r == 0) tundo(R, mark), R->nstk = sb;
    return r;
fail:
    tundo(R, mark);
    R->nstk = sb;
    return 0;
nomem:
    return -1;
}

/* The next group of boundary k: its first ending node left, with up to
 * maxa[k] - 1 others. */
static int next_group(rf *R, rf_search *F, uint32_t k, uint32_t root)
{
    const uint32_t *en = R->ends[k], ne = R->nends[k];
    uint32_t first = NO_NODE, left = 0;
    for (uint32_t j = 0; j < ne; j++)
        if (!F->ends_used[en[j]]) left++, first = first == NO_NODE ? j : first;
    if (first == NO_NODE) return finish(R, F, k, root);
    const uint32_t a0 = F->nas;
    const int64_t size = take_block(R, F, k, en[first]);
    int r = 0;
    for (uint32_t more = 0; more < left && more < F->maxa[k] && r == 0 && !R->out && !R->restart; more++)
        r = pick_enders(R, F, k, root, a0, first + 1, more, size);
    drop_block(F, a0);
    return r;
}

/* The blocks of boundary k (Blocks, above): each bound ending node's
 * highest ancestor in the tree whose leaves all end here, unless every
 * ending node below it has a starter of its size left. */
static void find_blocks(rf *R, rf_search *F, uint32_t k)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < R->nends[k]; j++) {
        const uint32_t e = R->ends[k][j];
        R->blk[e] = NO_NODE;
        if (R->fam_of[e] == NO_FAM) R->bids[n++] = e;
    }
    R->work += R->nends[k];
    if (n < 2) return;
    begin_group(R, R->bids, n);
    count_up(R, R->bids, n);
    for (uint32_t x = 0; x < n; x++) {
        uint32_t y = R->leaf_of[R->bids[x]], top = NO_NODE, u;
        while ((u = R->nd[y].up) != NO_NODE && R->nd[u].stamp == R->epoch && R->nd[u].full == R->nd[u].leaves)
            top = y = u, R->work++;
        R->blk[R->bids[x]] = top;
        R->relayable[x] = top != NO_NODE && spare_of_size(R, F, k, R->p->nodes[R->bids[x]].size, false);
    }
    for (uint32_t x = 0; x < n; x++) {
        const uint32_t b = R->blk[R->bids[x]];
        if (b == NO_NODE || !R->relayable[x]) continue;
        bool relays = true;
        for (uint32_t y = 0; y < n && relays; y++, R->work++) relays = R->blk[R->bids[y]] != b || R->relayable[y];
        for (uint32_t y = x; y < n && relays; y++, R->work++)
            if (R->blk[R->bids[y]] == b) R->blk[R->bids[y]] = NO_NODE;
    }
}

/* Boundary k and the ones after: the finest groups first (every group
 * one ending node or block, then up to two, ...): runs merge only where
 * no finer split of the boundary fits the tree. */
static int boundary(rf *R, rf_search *F, uint32_t k, uint32_t root)
{
    while (k < R->p->K && !R->nends[k]) k++;
    if (k > R->depth) R->depth = k, R->to_depth = R->tried - R->run_start;
    if (k >= R->p->K) {
        F->final_root = root;
        return 1;
    }
    int r = 0;
    const uint32_t base = R->anon_base;
    R->anon_base = R->nanon;
    find_blocks(R, F, k);
    for (uint32_t m = 1; m <= MAX_GROUP && r == 0 && !R->out && !R->restart; m++) {
        F->maxa[k] = m;
        r = next_group(R, F, k, root);
        if (m >= R->nends[k]) break;
    }
    if (r != 1) R->anon_base = base;
    return r;
}

/* ---- reading the packing back ----------------------------------------- */

static int cmp_key(const void *a, const void *b)
{
    const rf_key *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The least position below x of a leaf after the group (the block: its
 * starters'). */
static int64_t key_of(rf *R, uint32_t x, int64_t block_key)
{
    pq_node *v = &R->nd[x];
    if (v->kind == PQ_BLOCK) return v->key = block_key;
    if (v->kind == PQ_LEAF) return v->key = R->pos[v->leaf];
    int64_t k = INT64_MAX;
    for (uint32_t c = 0; c < v->n; c++) {
        int64_t y = key_of(R, R->kid[R->nd[x].first + c], block_key);
        if (y < k) k = y;
    }
    return R->nd[x].key = k;
}

/* Appends x's leaves to out[*n ..] in the order the keys give (inside the
 * block, as kept: its nodes are gone after the group). */
static bool emit(rf *R, uint32_t x, bool keyed, bool reversed, uint32_t *out, uint32_t *n)
{
    const pq_node v = R->nd[x];
    if (v.kind == PQ_LEAF) {
        out[(*n)++] = v.leaf;
        return true;
    }
    if (!keyed || v.kind == PQ_BLOCK) {
        for (uint32_t c = 0; c < v.n; c++)
            if (!emit(R, kid(R, x, reversed ? v.n - 1 - c : c), false, false, out, n)) return false;
        return true;
    }
    if (v.kind == PQ_Q) {
        bool fwd = R->nd[kid(R, x, 0)].key <= R->nd[kid(R, x, v.n - 1)].key;
        for (uint32_t c = 0; c < v.n; c++) {
            uint32_t y = kid(R, x, fwd ? c : v.n - 1 - c);
            bool rev = R->nd[y].kind == PQ_BLOCK && R->nd[y].ordered && !fwd;
            if (!emit(R, y, true, rev, out, n)) return false;
        }
        return true;
    }
    /* a P-node: its children by key, on a stack of scratch the nested
     * ones share */
    const uint32_t base = R->nkeys;
    if (!sba_arena_grow(R->ar, (void **)&R->keys, &R->capkeys, base + v.n, sizeof *R->keys)) return false;
    for (uint32_t c = 0; c < v.n; c++) R->keys[base + c] = (rf_key){R->nd[kid(R, x, c)].key, kid(R, x, c)};
    R->nkeys = base + v.n;
    qsort(R->keys + base, v.n, sizeof *R->keys, cmp_key);
    R->work += 4ull * v.n;
    bool ok = true;
    for (uint32_t c = 0; c < v.n && ok; c++) ok = emit(R, R->keys[base + c].node, true, false, out, n);
    R->nkeys = base;
    return ok;
}

/* Addresses of the order's nodes, prefix sums; false where a node already
 * had another (the orders disagree: never, if the trees are right). */
static bool addresses(rf *R, const uint32_t *order, uint32_t n)
{
    int64_t at = 0;
    for (uint32_t x = 0; x < n; x++) {
        uint32_t i = order[x];
        if (R->p->off[i] >= 0 && R->p->off[i] != at) return false;
        R->p->off[i] = at;
        R->pos[i] = x;
        at += R->p->nodes[i].size;
    }
    return at == R->p->cap;
}

/* 1 when every node has its address, 0 when the orders disagree, -1 out
 * of memory. */
static int read_back(rf *R, uint32_t final_root)
{
    uint32_t *order = sba_arena_array(R->ar, (size_t)R->p->n + 1, sizeof *order), n = 0;
    if (!order || !R->pos) return -1;
    for (uint32_t i = 0; i < R->p->n; i++) R->p->off[i] = -1;
    if (!emit(R, final_root, false, false, order, &n)) return -1;
    if (!addresses(R, order, n)) return 0;
    for (uint32_t o = R->nop; o-- > 0;) {
        const rf_op *op = &R->op[o];
        int64_t bk = INT64_MAX;
        for (uint32_t x = op->h0; x < op->h1; x++)
            if (R->pos[R->hs[x]] < bk) bk = R->pos[R->hs[x]];
        key_of(R, op->root_b, bk);
        n = 0;
        if (!emit(R, op->root_b, true, false, order, &n)) return -1;
        if (!addresses(R, order, n)) return 0;
    }
    /* the floating: each family's members take its places as they stand,
     * and every node its slot's address */
    const uint32_t nn = R->p->n;
    for (uint32_t g = 0; g < R->nfam; g++)
        for (uint32_t x = 0; x < R->fam[g].nm; x++) R->via[R->fam[g].m[x]] = R->fam[g].p[x];
    for (uint32_t i = 0; i < nn; i++) {
        if (R->p->off[i] >= 0) continue;
        uint32_t t = i, steps = 0;
        while (t != NO_NODE && steps++ <= 2 * nn) {
            if (t < nn && R->p->off[t] >= 0 && t != i) break;
            t = R->via[t] != NO_NODE ? R->via[t] : t < nn ? R->heir[t] : NO_NODE;
        }
        if (t == NO_NODE || t >= nn || R->p->off[t] < 0) return 0;
        R->p->off[i] = R->p->off[t];
    }
    return 1;
}

/* ---- entry -------------------------------------------------------------- */

typedef struct rf_order {
    int64_t size;
    uint64_t tie;
    uint32_t s1, i;
} rf_order;

/* Largest first, then the run's ties, then the earliest end. */
static int cmp_size_end(const void *a, const void *b)
{
    const rf_order *x = a, *y = b;
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    if (x->tie != y->tie) return x->tie < y->tie ? -1 : 1;
    if (x->s1 != y->s1) return x->s1 < y->s1 ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorts a boundary's nodes, largest first. Equal sizes are where a run
 * goes wrong (which of two slots of a size a starter takes shows only when
 * something beside it ends), so after the first run their order is drawn
 * from the boundary's seed (next_ties): per node among ending ones, per
 * size and end among starting ones, which keeps identical starters
 * together. */
static bool sort_by_size_end(rf *R, uint32_t *ids, uint32_t n, bool ending, uint64_t seed)
{
    if (n < 2) return true;
    /* one scratch array for every sort of every run */
    if (!sba_arena_grow(R->ar, (void **)&R->order, &R->caporder, n, sizeof *R->order)) return false;
    rf_order *o = R->order;
    for (uint32_t x = 0; x < n; x++) {
        const sb_pack_node *nd = &R->p->nodes[ids[x]];
        uint64_t what = ending ? ids[x] : (uint64_t)nd->size * 0x100000001ull + nd->s1;
        o[x] = (rf_order){nd->size, seed ? sba_mix64(seed ^ sba_mix64(what)) : 0, nd->s1, ids[x]};
    }
    qsort(o, n, sizeof *o, cmp_size_end);
    for (uint32_t x = 0; x < n; x++) ids[x] = o[x].i;
    R->work += 4ull * n;
    return true;
}

/* The problem's boundaries: ends[k] (nodes with s1 == k - 1) and starts[k]
 * (s0 == k), each largest first, then by end; false where some section is
 * not full to the capacity. */
static bool boundaries(rf *R)
{
    const sb_pack_problem *p = R->p;
    const uint32_t K = p->K;
    int64_t *load = sba_arena_array(R->ar, (size_t)K + 1, sizeof *load);
    R->ends = sba_arena_array(R->ar, (size_t)K + 1, sizeof *R->ends);
    R->starts = sba_arena_array(R->ar, (size_t)K + 1, sizeof *R->starts);
    R->nends = sba_arena_array(R->ar, (size_t)K + 1, sizeof *R->nends);
    R->nstarts = sba_arena_array(R->ar, (size_t)K + 1, sizeof *R->nstarts);
    if (!load || !R->ends || !R->starts || !R->nends || !R->nstarts) return false;
    for (uint32_t i = 0; i < p->n; i++) {
        const sb_pack_node *nd = &p->nodes[i];
        if (nd->s0 > nd->s1 || nd->s1 >= K || nd->size <= 0) return false;
        load[nd->s0] += nd->size, load[nd->s1 + 1] -= nd->size;
        R->nstarts[nd->s0]++, R->nends[nd->s1 + 1]++;
    }
    int64_t cur = 0;
    for (uint32_t k = 0; k < K; k++)
        if ((cur += load[k]) != p->cap) return false;
    for (uint32_t k = 0; k <= K; k++) {
        if (R->nstarts[k] && !(R->starts[k] = sba_arena_array(R->ar, R->nstarts[k], sizeof **R->starts))) return false;
        if (R->nends[k] && !(R->ends[k] = sba_arena_array(R->ar, R->nends[k], sizeof **R->ends))) return false;
        R->nstarts[k] = R->nends[k] = 0;
    }
    for (uint32_t i = 0; i < p->n; i++) {
        R->starts[p->nodes[i].s0][R->nstarts[p->nodes[i].s0]++] = i;
        R->ends[p->nodes[i].s1 + 1][R->nends[p->nodes[i].s1 + 1]++] = i;
    }
    R->work += 4ull * p->n + K;
    return true;
}

/* The ties of the next run. A run's ties are drawn boundary by boundary.
 * The first DRAWN_RUNS draw them all anew, which is what a short budget
 * (a padding's try) can use; after them those of the run that got
 * furthest (the latest boundary entered, the last such run on a tie) are
 * kept, as a SAT solver's restarts keep the phases of its variables: the
 * next run takes them, drawn anew over a window of boundaries up to the
 * one that run stopped at, of a width drawn at every scale, and its limit
 * grows by the groups that run tried to get there; one run in eight still
 * draws them all anew. */
enum { DRAWN_RUNS = 128 };

static void next_ties(rf *R, uint64_t *best, uint32_t *best_depth, uint64_t *best_to, uint64_t seed, uint64_t run)
{
    const uint32_t K = R->p->K;
    if (R->depth >= *best_depth) {
        memcpy(best, R->tie, ((size_t)K + 1) * sizeof *best);
        *best_depth = R->depth, *best_to = R->to_depth;
    }
    sba_rng rng = {seed};
    uint32_t lo = 0, hi = K;
    if (run > DRAWN_RUNS && sba_rng_next(&rng) % 8) {
        memcpy(R->tie, best, ((size_t)K + 1) * sizeof *best);
        /* 1 to 2^b boundaries, b uniform in 0 .. log2 K */
        uint32_t bits = 0;
        while (bits < 31 && (1u << bits) < K) bits++;
        const uint64_t draw = sba_rng_next(&rng);
        const uint32_t span = 1u << (uint32_t)(sba_rng_next(&rng) % (bits + 1));
        const uint32_t w = (uint32_t)(draw % span) + 1;
        hi = *best_depth;
        lo = hi > w ? hi - w : 0;
    }
    for (uint32_t k = lo; k <= hi && k <= K; k++) R->tie[k] = sba_rng_next(&rng) | 1;
    R->work += K + 1;
}

int sb_refill_pack(const sb_pack_problem *p, sba_arena *ar, uint64_t budget, uint64_t *work, uint64_t *visited)
{
    *work = *visited = 0;
    if (p->reach) *p->reach = (sb_reach){0, 0};
    if (p->Q != 1 || p->nfixed || p->n < 2 || p->n > MAX_NODES || p->K < 1) return SB_PACK_NONE;
    rf R = {.p = p, .ar = ar, .budget = budget, .epoch = 1};
    rf_search F = {0};
    int result = SB_PACK_NONE;
    if (!boundaries(&R)) goto done;
    if (!forced_groups(&R)) goto nomem;
    R.in_group = sba_arena_array(ar, p->n, sizeof *R.in_group);
    R.blk = sba_arena_array(ar, p->n, sizeof *R.blk);
    R.bids = sba_arena_array(ar, p->n, sizeof *R.bids);
    R.relayable = sba_arena_array(ar, p->n, sizeof *R.relayable);
    R.leaf_of = sba_arena_array(ar, p->n, sizeof *R.leaf_of);
    R.pos = sba_arena_array(ar, p->n, sizeof *R.pos);
    F.ends_used = sba_arena_array(ar, p->n, sizeof *F.ends_used);
    F.starts_used = sba_arena_array(ar, p->n, sizeof *F.starts_used);
    F.as = sba_arena_array(ar, p->n, sizeof *F.as);
    F.maxa = sba_arena_array(ar, (size_t)p->K + 1, sizeof *F.maxa);
    R.tie = sba_arena_array(ar, (size_t)p->K + 1, sizeof *R.tie);
    R.fam_of = sba_arena_array(ar, p->n, sizeof *R.fam_of);
    R.heir = sba_arena_array(ar, p->n, sizeof *R.heir);
    R.via = sba_arena_array(ar, 2 * (size_t)p->n, sizeof *R.via);
    R.vfam = sba_arena_array(ar, p->n, sizeof *R.vfam);
    R.fam = sba_arena_array(ar, (size_t)p->n / 2 + 1, sizeof *R.fam);
    if (!R.fam_of || !R.heir || !R.via || !R.vfam || !R.fam) goto nomem;
    uint64_t *best_tie = sba_arena_array(ar, (size_t)p->K + 1, sizeof *best_tie);
    uint32_t best_depth = 0;
    uint64_t best_to = 0;
    if (!R.tie || !best_tie || !R.in_group || !R.leaf_of || !R.pos || !F.ends_used || !F.starts_used || !F.as ||
        !F.maxa || !R.blk || !R.bids || !R.relayable)
        goto nomem;
    /* runs with restarts: a run that tried more groups than its limit (an
     * eighth of the nodes times Luby's sequence, plus what the furthest run
     * tried to get as far; a run without a dead end tries about one group
     * per node, so the first runs only probe, and a long one comes every
     * few) starts again with other ties (next_ties) */
    for (uint64_t run = 1; result == SB_PACK_NONE && !R.out; run++) {
        if (run > 1) next_ties(&R, best_tie, &best_depth, &best_to, sba_mix64(p->seed + run), run);
        R.depth = 0, R.to_depth = 0;
        R.run_start = R.tried, R.run_limit = (run > DRAWN_RUNS ? best_to : 0) + ((uint64_t)p->n / 8 + 1) * sba_luby(run);
        R.restart = false;
        R.nnd = R.nkid = R.nseq = R.nop = R.nhs = R.ntrail = R.counted = 0;
        R.nfam = R.nv = R.nft = R.nanon = R.anon_base = R.nstk = 0;
        for (uint32_t i = 0; i < p->n; i++) R.fam_of[i] = NO_FAM, R.heir[i] = NO_NODE;
        for (uint32_t i = 0; i < 2 * p->n; i++) R.via[i] = NO_NODE;
        for (uint32_t k = 0; k <= p->K; k++)
            if (!sort_by_size_end(&R, R.starts[k], R.nstarts[k], false, R.tie[k]) ||
                !sort_by_size_end(&R, R.ends[k], R.nends[k], true, R.tie[k]))
                goto nomem;
        /* the first boundary: every starter in any order */
        for (uint32_t x = 0; x < R.nstarts[0]; x++) {
            uint32_t leaf = make_leaf(&R, R.starts[0][x]);
            if (leaf == NO_NODE || !push(&R, leaf)) goto nomem;
        }
        uint32_t root = make(&R, PQ_P, 0);
        if (root == NO_NODE || !adopt(&R, root, 0)) goto nomem;
        for (uint32_t x = 0; x < R.nstarts[0]; x++) F.starts_used[R.starts[0][x]] = 1;
        int r = look_ahead(&R, 0, root);
        if (r == 1) r = boundary(&R, &F, 1, root);
        if (r < 0 || ar->failed) goto nomem;
        if (run == 1 && p->reach) p->reach->first_run = R.work;
        if (r == 1) {
            int b = read_back(&R, F.final_root);
            if (b < 0) goto nomem;
            if (b == 0) break; /* the orders disagree: a defect, never a packing */
            for (uint32_t i = 0; i < p->n; i++) p->opt[i] = 0;
            result = SB_PACK_PACKED;
        }
    }
    if (result == SB_PACK_NONE && R.out) result = SB_PACK_BUDGET;
    if (p->reach) p->reach->boundary = R.depth > best_depth ? R.depth : best_depth; /* the last run, or one before */
    goto done;
nomem:
    result = SB_PACK_NOMEM;
done:
    *work = R.work, *visited = R.visited;
    return result;
}

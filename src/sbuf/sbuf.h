/* The SBUF allocator's shared state: one context per function, one Info record
 * per node, and the prototypes of every pass, grouped by file in pipeline order
 * so that this header reads as the allocator's table of contents.
 *
 * A node is an SB placement (MemoryLocation of type SB) of a set that is not a
 * function output, or a fixed rectangle (pre-placed or output) that constrains
 * the others. Partners share one node: after find_partners every pass works on
 * representatives (node.rep == id) only. */
#ifndef SBA_SBUF_H
#define SBA_SBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/bitset.h"
#include "bir/live.h"
#include "sballoc/alloc.h"
#include "sballoc/bir.h"
#include "sballoc/program.h"

enum { SB_HEIGHTS = 9 };
#define SB_NO_NODE UINT32_MAX

/* How select chooses among free spots. */
enum { SB_RULE_LOWEST = 0, SB_RULE_BEST_FIT = 1 };

/* eInterval: one live partition-block of a node over [start, end]. */
typedef struct sb_einterval {
    uint32_t start, end;
    int64_t block;
} sb_einterval;

/* Info: one record per node. */
typedef struct sb_node {
    bir_location *loc;        /* the SB placement */
    uint32_t rep;             /* partner representative (self when alone) */
    uint32_t next_member;     /* next member of the partner group, SB_NO_NODE ends */
    /* geometry */
    int64_t partitions;       /* P */
    int64_t nblocks;          /* logical blocks */
    int64_t bytes_per_block;
    int64_t live_n;           /* physical blocks (nblocks / shrink) */
    int32_t shrink_dim;       /* the B axis the shrink collapses; -1: none */
    int64_t bytes;            /* footprint: live_n × bytesPerBlock, aligned up */
    uint32_t band_width;      /* 32, 64 or 128 */
    uint32_t height;          /* class 0..8 */
    uint32_t base_mask;       /* allowed base partitions, bit i = partition 32·i */
    uint32_t own_mask;        /* base_mask before partners narrowed it */
    /* fixed rectangles */
    bool precoloured;
    bool output;
    /* anchors and liveness */
    const bir_inst *first_def, *last_use;
    bool entry_def;           /* defined at function entry (an input) */
    uint32_t start, end;      /* live interval in program points, inclusive */
    bool loop_carried;
    /* spill facts */
    bool unspillable;         /* a reload temporary or a spilled value's def copy */
    bir_operand *load_src;    /* find_loads: the DRAM operand a plain load reads */
    double cost;
    /* graph */
    uint32_t *adj;
    uint32_t degree;
    /* placement */
    int32_t base;
    int64_t addr;
    bool placed;
    bool spill;
} sb_node;

/* A packing given by node id: where each node sits (sb_search_follow). */
typedef struct sb_guide {
    const int64_t *addr;
    const int32_t *base;
} sb_guide;

typedef struct sb_ctx {
    bir_function *fn;
    const sba_target *t;
    const sba_alloc_options *o;
    sba_function_report *rep;
    sba_arena ar;             /* this iteration's pass data */
    sba_arena keep;           /* what outlives an iteration: the split groups */
    const bir_location **split; /* placements whose partner group failed: never coalesced again */
    uint32_t nsplit, capsplit;
    bir_linear lin;
    sb_node *info;
    uint32_t n;
    uint32_t *node_of;        /* bir_location.index -> node id, SB_NO_NODE */
    uint32_t nnode_of;
    bool partners_enabled;
    uint32_t iteration;
    /* build */
    sba_bitset matrix;        /* triangular bit matrix, when n is small */
    bool has_matrix;
    uint64_t edges;
    /* live_range's two maps (the seed's DenseMaps, keyed by program point):
     * the representatives whose interval starts (first_defs) or ends
     * (last_uses) at point p are ids [x_of[p], x_of[p + 1]) of x. */
    uint32_t *first_defs, *first_defs_of;
    uint32_t *last_uses, *last_uses_of;
    /* create_eintervals: one per representative and live block; node r's are
     * eint[eint_of[r] .. eint_of[r + 1]) (none for members). */
    struct sb_einterval *eint;
    uint64_t *eint_of;
    uint64_t neint;
    int64_t (*gaps)[2];       /* select's scratch: neighbour byte ranges */
    uint32_t capgaps;
    uint32_t rule;            /* select's choice among free spots: SB_RULE_* */
    uint64_t search_left;     /* the exact packer's work budget left for this function */
    uint64_t repair_left;     /* and its repairs' (a sixteenth more, apart) */
    uint64_t insert_left;     /* and its insertions' (another sixteenth) */
    uint64_t rescue_left;     /* the searches of the nodes spill code made, alone (search.c) */
    const sb_guide *guide;    /* a packing the searches follow (sb_search_follow), or NULL */
    struct sb_hint *hint;     /* reuse.c: per location index, where the last iteration put it */
    uint32_t nhint;
    int64_t lower_bound;      /* max over points of the per-quarter average demand */
    int64_t band_lb[SBA_BANDS];
    sba_error *err;
} sb_ctx;

/* ---- logging ----------------------------------------------------------- */
#define sb_log(c, ...) sba_alloc_log((c)->o, __VA_ARGS__)
static inline bool sb_logging(const sb_ctx *c) { return c->o->log != NULL; }
static inline bool sb_dumping(const sb_ctx *c, uint32_t what) { return c->o->log && (c->o->dump & what); }

/* ---- allocate.c: the allocator of one function ------------------------- */
/* Where sb_front_half stops: after the named pass, or after build (all). */
typedef enum sb_stage { SB_TO_PARTNERS, SB_TO_ANCHORS, SB_TO_LIVE, SB_TO_BUILD } sb_stage;

/* A context for fn under target t and options o; its arena uses the module's
 * allocator. sb_ctx_free releases everything the passes made. */
void sb_ctx_init(sb_ctx *c, bir_function *fn, const sba_target *t, const sba_alloc_options *o,
                 sba_function_report *rep, sba_error *err);
void sb_ctx_free(sb_ctx *c);
/* Once per function: linearize, renumber_locations, memloc_split. */
sba_status sb_setup(sb_ctx *c);
/* One iteration's front half on a fresh arena, in the driver's order, up to
 * and including `upto`. */
sba_status sb_front_half(sb_ctx *c, sb_stage upto);
/* sb_setup, then the spill fixpoint until every node is placed. */
sba_status sb_allocate_function(sb_ctx *c);

/* ---- geometry.c: height classes, impact, possible_placements ----------- */
/* Partition range [lo, hi) of band `k` (0-based) of height class h; count of bands. */
uint32_t sb_height_bands(uint32_t h);
uint32_t sb_height_band_start(uint32_t h, uint32_t k);
uint32_t sb_height_band_width(uint32_t h);
/* The class of a tensor of p partitions: 0 (any quarter), 5 (any half), 8 (full);
 * with a fixed base, the smallest class whose band at that base holds it.
 * Returns SB_HEIGHTS when no class holds it. */
uint32_t sb_height_class(int64_t p, int32_t base);
/* The class allowing exactly the bases in mask for p partitions; SB_HEIGHTS if none. */
uint32_t sb_height_for_mask(int64_t p, uint32_t mask);
uint32_t sb_vertical_impact(uint32_t hj, uint32_t hi);
/* The partition quarters (bit q: partitions [32q, 32q+32)) that a band of
 * `partitions` partitions from `base` touches: the one overlap test of bands. */
uint32_t sb_quarter_mask(int64_t base, int64_t partitions);
int64_t sb_units(const sb_ctx *c, int64_t bytes);
int64_t sb_impact(const sb_ctx *c, uint32_t i, uint32_t j);
int64_t sb_possible_placements(const sb_ctx *c, uint32_t i);

/* ---- renumber.c -------------------------------------------------------- */
/* The node of a placement, SB_NO_NODE when it is none (not SB, or made after
 * the last renumbering). */
static inline uint32_t sb_node_of(const sb_ctx *c, const bir_location *loc)
{
    return loc->index < c->nnode_of ? c->node_of[loc->index] : SB_NO_NODE;
}
sba_status sb_renumber_locations(sb_ctx *c);

/* ---- memloc_split.c ---------------------------------------------------- */
sba_status sb_memloc_split(sb_ctx *c);

/* ---- partners.c -------------------------------------------------------- */
sba_status sb_find_partners(sb_ctx *c);
/* The partner retry: every group whose node select could not place is split
 * back into its members for the next iteration (their placements go to
 * c->split). True when a group was split, so the driver retries before it
 * spills anything. */
bool sb_split_failed_groups(sb_ctx *c);

/* ---- anchors.c: the def/use anchors and plain loads -------------------- */
sba_status sb_find_first_defs(sb_ctx *c);
sba_status sb_find_last_uses(sb_ctx *c);
sba_status sb_find_loads(sb_ctx *c);

/* ---- live_range.c ------------------------------------------------------ */
/* Intervals, footprints, loop-carry, and the first_defs / last_uses maps. */
sba_status sb_live_range(sb_ctx *c);
/* Bytes per partition group r's values take at once: its shrunk blocks
 * (liveN) × bytesPerBlock, as live_range will count them. ls: a scratch
 * made once by bir_live_scratch_init for all the groups (one per group
 * would cost the program's length each); NULL: all the blocks. */
int64_t sb_group_live_bytes(sb_ctx *c, bir_live_scratch *ls, uint32_t r);
/* Folds the maps into the eInterval list (the spill path, and the live dump). */
sba_status sb_create_eintervals(sb_ctx *c);

/* ---- build.c ----------------------------------------------------------- */
sba_status sb_build(sb_ctx *c);
/* The triangular bit index of the pair (lo, hi), lo < hi: lo + hi²/2. */
uint64_t sb_bit_index(uint32_t a, uint32_t b);
bool sb_interferes(const sb_ctx *c, uint32_t a, uint32_t b);

/* ---- costs.c ----------------------------------------------------------- */
/* getLatency: cycles to move `bytes` bytes per partition from src to dst memory. */
double sb_latency(uint32_t src_type, uint32_t dst_type, int64_t bytes);
sba_status sb_find_costs(sb_ctx *c);

/* ---- simplify.c -------------------------------------------------------- */
/* Fills order[] with the colouring order (the stack popped last-in first). */
sba_status sb_simplify(sb_ctx *c, uint32_t *order, uint32_t *norder);

/* ---- select.c ---------------------------------------------------------- */
/* Places order[] in turn; returns the number of nodes that could not be placed. */
uint32_t sb_select_nodes(sb_ctx *c, const uint32_t *order, uint32_t norder);
/* Places node i at the best free spot given the placed nodes; false if none. */
bool sb_select_node(sb_ctx *c, uint32_t i);
/* The order of the best-fit and greedy-size strategies, which share select's
 * placement code and differ only in c->rule: decreasing size. */
void sb_order_by_size(sb_ctx *c, uint32_t *order, uint32_t *norder);
/* The guard's last resort: select again, unspillable nodes first, best fit;
 * returns the nodes left unplaced. */
uint32_t sb_reselect_unspillable_first(sb_ctx *c);
/* The same order and rule, the placed nodes kept where they are. */
uint32_t sb_select_around_placed(sb_ctx *c);
/* Whether the tensors live with v overflow one partition quarter at some
 * point of its range (quarter SBA_BANDS: their average over the quarters);
 * the worst point, quarter and bytes. */
bool sb_band_overflow(const sb_ctx *c, uint32_t v, uint32_t *point, uint32_t *quarter, int64_t *need);

/* ---- skyline.c: the exact packer's tiling search ----------------------- */
/* A packing problem as the searches see it: time cut into K sections, Q
 * quarter bands (1 when every rectangle includes quarter 0), nodes that take
 * `size` bytes in every quarter of one option, fixed rectangles. */
typedef struct sb_pack_node {
    uint32_t s0, s1;          /* sections covered, inclusive */
    int64_t size;             /* aligned bytes */
    uint32_t nopt;
    uint8_t qmask[4];         /* quarters of each option */
} sb_pack_node;
typedef struct sb_pack_fixed {
    uint32_t s0, s1;
    uint8_t qmask;
    int64_t lo, hi;
} sb_pack_fixed;
typedef struct sb_pack_problem {
    uint32_t K, Q, n, nfixed;
    const sb_pack_node *nodes;
    const sb_pack_fixed *fixed;
    int64_t cap, align;
    uint64_t seed;            /* the restarts' stream */
    int64_t *off;             /* out: each node's address */
    int64_t *slack;           /* out, unless NULL: free bytes × quarters × sections left over */
    bool *slack_cut;          /* out, unless NULL: set where strips cut a 1-D part with a little slack */
    struct sb_reach *reach;   /* out, unless NULL: how far refill got (refill.c) */
    uint32_t *opt;            /* out: each node's option */
    uint32_t scale;           /* strips: their bounds × this (0: 1; see strips.c, Bounds) */
    uint64_t order_seed;      /* strips: 0, or the restart whose seed picks the items its sets leave first */
    bool light;               /* strips: every item left before taken, the lightest sets first (strips.c, Light) */
    bool section_fills;       /* strips: a 2-D strip's set checked section by section (strips.c, Fills) */
    bool drawn;               /* strips: a 1-D part with slack padded by readings drawn at random alone (strips.c, Drawn) */
    int64_t *guide_at;        /* unless NULL, a packing the skyline follows: each node's address */
    uint32_t *guide_opt;      /* and option (identical nodes may trade places in it) */
    /* unless NULL (1-D): the free bytes of each of the raw_K sections time
     * is cut into at every end point, before sb_kept_sections kept K of
     * them, and its rank (raw_rank[r]: the kept sections before raw section
     * r): where the padding reads holes (strips.c) */
    const int64_t *raw_room;
    const uint32_t *raw_rank;
    uint32_t raw_K;
} sb_pack_problem;
enum { SB_PACK_PACKED = 1, SB_PACK_NONE = 0, SB_PACK_BUDGET = 3, SB_PACK_NOMEM = -1 };
/* How far a refill search got: the furthest boundary a run entered, and
 * the work its first run took. */
typedef struct sb_reach {
    uint32_t boundary;
    uint64_t first_run;
} sb_reach;
/* Searches for a packing, bottom-left, with restarts, within `budget` work
 * units (scratch in ar). PACKED, NONE (this search found none: no proof),
 * BUDGET or NOMEM; *work and *visited: what it spent. */
int sb_skyline_pack(const sb_pack_problem *p, sba_arena *ar, uint64_t budget, uint64_t *work, uint64_t *visited);

/* ---- strips.c: the exact packer's guillotine decomposition ------------- */
/* Where the problem has no slack, cuts it in time, across bands and in
 * address, and packs the pieces with sb_skyline_pack (scratch from the hook
 * a). Same results as sb_skyline_pack; NONE at once where it does not apply. */
int sb_strips_pack(const sb_pack_problem *p, const sba_allocator *a, uint64_t budget, uint64_t *work,
                   uint64_t *visited);

/* ---- refill.c: the exact packer's search for 1-D tilings ---------------- */
/* Where a 1-D problem (Q 1, no fixed rectangles) fills the capacity to the
 * byte in every section, searches the orders of its nodes at each boundary
 * with PQ-trees, within `budget` work units (scratch in ar). PACKED, NONE
 * (found none, or the problem is not such a tiling: no proof), BUDGET or
 * NOMEM; *work and *visited: what it spent; *p->reach, how far it got. */
int sb_refill_pack(const sb_pack_problem *p, sba_arena *ar, uint64_t budget, uint64_t *work, uint64_t *visited);

/* ---- relay.c: the exact packer's reading of memory handed on ---------- */
/* Where exactly one node of a size and set of options ends at a boundary and
 * exactly one of the same starts, reads them as one node (and so on down the
 * chain) in *out, which shares p's fixed rectangles and has its own off and
 * opt (scratch in ar); of[i]: p's node i's node in *out. Boundaries k with
 * apart[k] set merge nothing (apart NULL: none). Returns the nodes merged
 * away (0: none, *out unset) or UINT32_MAX when memory ran out. */
uint32_t sb_relay_merge(const sb_pack_problem *p, sba_arena *ar, sb_pack_problem *out, uint32_t *of,
                        const uint8_t *apart);
/* Refill (refill.c) on p's relays merged, keeping apart the merges that
 * wall it in (relay.c, Walls), within `budget` (scratch in ar): the results
 * of sb_refill_pack, a packing of p itself; NONE where no relay merges. */
int sb_relay_refill(const sb_pack_problem *p, sba_arena *ar, uint64_t budget, uint64_t *work, uint64_t *visited);
/* A packing of the merged problem as one of p: each node at its chain's
 * address and option. */
void sb_relay_spread(const sb_pack_problem *merged, const uint32_t *of, const sb_pack_problem *p);

/* ---- search.c: the exact packer ---------------------------------------- */
/* The time sections that matter, of K sections cut at the end points of n
 * live ranges [s0[x], s1[x]]: those where some range starts and some range
 * ends. rank[k] (k = 0..K) counts the kept sections before k, so a range
 * keeps [rank[s0], rank[s1 + 1] - 1], never empty; two ranges meet iff
 * their kept ranges do. events: K bytes of scratch. Returns the kept count. */
uint32_t sb_kept_sections(uint32_t K, const uint32_t *s0, const uint32_t *s1, uint32_t n, uint8_t *events,
                          uint32_t *rank);
/* The work budget of one function's searches. */
uint64_t sb_search_budget(const sba_alloc_options *o);
/* Searches, exactly, for a placement of every part where select left a node
 * unplaced; *packed when every such part packed. SBA_ERR_NOMEM when memory
 * ran out (never reported as a spent budget). */
sba_status sb_search_packing(sb_ctx *c, bool *packed);
/* Searches again, every other placement held, the few nodes left unplaced
 * and the placed ones they meet; *packed when every node is then placed. */
sba_status sb_search_repair(sb_ctx *c, bool *packed);
/* Where the search ran out: the unplaced nodes one at a time, each by a
 * repair of its own windows; *packed when every node is then placed. */
sba_status sb_search_insert(sb_ctx *c, bool *packed);
/* The searches sb_search_follow can follow a packing through. */
typedef enum sb_follow { SB_FOLLOW_ADDRESS, SB_FOLLOW_FLOOR, SB_FOLLOW_SKYLINE } sb_follow;
/* Follows a packing through one search: at every level only the candidate
 * it places next is kept (by lowest floor and in the skyline: what it puts
 * at the chosen place, or leaving the place empty). Where no node could
 * sit lower (in any of its bands), a search whose pruning is sound reaches
 * the end of every part (the skyline, which gives up whole runs, only
 * where no byte is left free). *followed and *parts count the parts it
 * reached the end of and all of them; the reached ones are placed. */
sba_status sb_search_follow(sb_ctx *c, const sb_guide *g, sb_follow search, uint32_t *followed, uint32_t *parts);
/* The guard's exact resort: every node spill code made, alone, searched
 * where select left one; every other node is left unplaced. */
sba_status sb_search_unspillable(sb_ctx *c);
/* The representatives in order of start into ids (*m of them), cut where
 * the live set empties: part p is ids[from[p] .. from[p + 1]). Returns the
 * number of parts (from needs one slot more), UINT32_MAX when out of memory. */
uint32_t sb_parts(sb_ctx *c, uint32_t *ids, uint32_t *m, uint32_t *from);

/* ---- reuse.c: placements carried from one fixpoint iteration to the next */
/* Records the placement of every part whose nodes are all placed. */
sba_status sb_remember_placed_parts(sb_ctx *c);
/* Places the nodes of every part that is the same as one remembered (the
 * same placements, live ranges relative to the part and geometry) where
 * they were. Returns the nodes placed so; UINT32_MAX when out of memory. */
uint32_t sb_reuse_placed_parts(sb_ctx *c);
/* Frees what sb_remember_placed_parts kept. */
void sb_forget_placed_parts(sb_ctx *c);
/* Its allowance per function, apart from the search budget. */
uint64_t sb_rescue_budget(void);

/* ---- spill.c ----------------------------------------------------------- */
sba_status sb_insert_spill_code(sb_ctx *c);

#endif

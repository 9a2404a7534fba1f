/* verify: an independent proof that an allocated module is correct.
 *
 * Reads only the module (the JSON model), never the allocator's state.
 *
 * 1. Static checks, in program order of first access: every accessed SB
 *    location (and every placed SB location of an input) is placed, has
 *    1 <= live_n <= NBlocks, a base allowed by the start-partition rule for
 *    its P partitions, base + P within the target, addr aligned, and
 *    addr + live_n × bytesPerBlock within the SBUF; every operand's own
 *    start-partition constraint (bir_footprint.base_mask) holds at that base.
 *    PSUM tiles: bank, alignment, every block inside one bank (the blocks
 *    may run over consecutive banks) and inside PSUM. DRAM scratch: a valid
 *    range, addr a multiple of the DRAM page (an option: the allocator's
 *    page is not in the module), must-alias peers at one address.
 * 2. Simulation: the body runs point by point, every loop iteration by
 *    iteration (axis values set, so AXIS blocks resolve), while one ownership
 *    map per address space (space.h) records which value holds every byte of
 *    every partition. SB is one shared space, placed PSUM tiles another; a
 *    DRAM scratch location with addr lives in the 1-D space of its address
 *    space (row-major: block, partition, byte), and must-alias peers there
 *    are one storage, read against their class's latest defs. Other DRAM
 *    and PSUM location blocks are private storage. A write makes a new value
 *    of (set, block) — except that an instruction whose memory operands all
 *    belong to one set (spill store, reload) copies the bytes it reads,
 *    values unchanged, and a plain move onto exactly its source's bytes
 *    (coalesced partners) makes a value equal to its source. Every other read must find, in each byte, the value
 *    the tensor's latest def left there (tracked per rectangle, so partial
 *    defs compose). Outputs must still hold their final values at the end.
 * 3. When simulating every iteration would exceed the step budget, loops of
 *    more than three iterations run their first two and last iterations only
 *    and the report says the result is not exhaustive (docs/verify.md says
 *    why that is a sample, not a proof).
 *
 * sba_verify_module_opts runs functions on sba_verify_options.jobs threads,
 * each with its own arena and report; the reports are summed in module order
 * up to the first failing function, so the result is a serial run's.
 *
 * Requires: a loaded function whose operands have valid footprints (run
 * bir_validate_function first for input errors with JSON paths). Produces: a
 * report; the module is not modified. Complexity: O(steps × operand blocks ×
 * (pages crossed × segments touched × runs)); memory O(distinct rectangles +
 * values), from one arena freed before returning. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/each.h"
#include "base/error.h"
#include "base/vec.h"
#include "sballoc/program.h"
#include "sballoc/verify.h"
#include "verify/space.h"

enum { TAG_LATEST = 1, TAG_ENTRY, TAG_PRIVATE, TAG_CLASS };
enum { OP_STATIC = 0, OP_SHIFT, OP_DYNAMIC };
enum { INST_DEF = 0, INST_COPY, INST_MOVE };
enum { GAP_BLOCK = 0, GAP_PART, GAP_FREE, GAP_MAX_SPAN = 1 << 20 };
enum { SB_PAGE_BYTES = 4096, SB_MAX_PAGES = 1 << 20, SAMPLED_ITERATIONS = 3, DIRECT_BLOCKS = 64 };
#define NO_LOC UINT32_MAX

typedef struct vset_info {
    const bir_set *set;
    int64_t parts, nblocks, bpb, pf; /* P, NBlocks, bytesPerBlock, P × F elements */
    bool entry;                      /* input or Const: defined at function entry */
    bool output;
    uint32_t cls;                    /* the must-alias class of its DRAM scratch location, or NO_LOC */
} vset_info;

typedef struct vloc_info {
    const bir_location *loc;
    uint32_t set, set_pos, loc_pos;
    bool sb, checked;
    bool psum;                       /* a PSUM location with bank and addr: in the shared PSUM space */
    bool dram;                       /* a DRAM scratch location with addr: in its address space's DRAM space */
    uint32_t cls;                    /* dram: its must-alias class (NO_LOC when it has no peer) */
    int64_t base, addr, n;           /* SB/PSUM placement (PSUM: bank × bank bytes + addr); n = live_n */
} vloc_info;

typedef struct vvalue {
    uint32_t set, by, root;          /* by: the defining instruction; root: equal-value class */
    int64_t block;
} vvalue;

/* One rectangle of a (set, block) and the value its latest def left there,
 * relative to the tensor: partitions from its partition 0, bytes from the
 * block's start. */
typedef struct lentry {
    uint32_t val;
    int64_t p0, p1, x0, x1;
} lentry;

typedef struct vlatest {
    lentry *e;                       /* oldest first; a def drops the entries it covers */
    uint32_t n, cap;
    uint32_t set, last_loc;          /* last_loc: the location last written */
    int64_t block;
} vlatest;

typedef struct vop {
    const bir_inst *in;
    const bir_operand *op;
    uint32_t loc, set;
    uint32_t mode;                   /* OP_*: how one execution's footprint is found */
    bir_footprint whole;             /* over every iteration */
    bir_footprint first;             /* the first iteration (terms folded into the offset) */
    int64_t off_first;
    int64_t b0, bstep, bcount;       /* first's blocks */
    bool memo_ok;                    /* OP_DYNAMIC: the footprint of the last offset seen */
    int64_t memo_off, memo_b0, memo_bstep, memo_bcount;
    bir_footprint memo;
    /* A write whose pairs leave gaps in a component (every other element,
     * say): which offsets from the footprint's low end it touches, one byte
     * per offset; NULL when it touches the whole range. */
    uint8_t *has[3];                 /* block (from b0, per progression step), partition, free element */
} vop;

typedef struct vinst {
    uint32_t op0, nins, nouts;       /* ops[op0, op0 + nins) read, the next nouts write */
    uint32_t kind;                   /* INST_* */
} vinst;

/* One execution's footprint of one operand, relative to the tensor. */
typedef struct xgeo {
    int64_t p0, p1, x0, x1;
    int64_t b0, bstep, bcount;
} xgeo;

/* Where a (location, block) lives: physical = relative + (dp, dx). A linear
 * store (row > 0, DRAM) lays the partitions out one after another in
 * partition 0 of its space: relative (p, x) is byte dx + p × row + x. */
typedef struct vstore {
    vspace *sp;
    int64_t dp, dx;
    int64_t row;
} vstore;

/* A rectangle in tensor-relative coordinates. */
typedef struct rrect {
    int64_t p0, p1, x0, x1;
} rrect;

typedef SBA_VEC(rrect) rrect_vec;

typedef struct made {
    uint32_t set, val;
    int64_t block;
} made;

typedef struct frame {
    const bir_inst *loop;
    bir_block *const *blocks;
    uint32_t nblocks, b, i;
    int64_t pos, count, trip;
} frame;

typedef struct verifier {
    const bir_function *fn;
    const sba_target *t;
    sba_error *err;
    sba_verify_report *rep;
    sba_arena *ar;
    vpool pool;
    vspace sb;
    vspace psum;                     /* banks × bank bytes per partition */
    vspace dram[BIR_AS_COUNT];       /* one partition of the scratch bytes, per address space */
    int64_t dram_end[BIR_AS_COUNT];  /* the highest end of a checked DRAM location */
    vmap map;
    /* (set or location, block) -> index + 1, per set or location of at most
     * DIRECT_BLOCKS blocks (the map holds the rest, so that a table is never
     * much larger than the keys it holds): the latest defs, the
     * entry values (by set) and private storage (by location). Made on first
     * use; a read is checked in O(1) without hashing. */
    uint32_t **lat_of, **entry_of, **priv_of;
    uint32_t *loc_of;                /* bir_location.index -> its index in locs, + 1 */
    uint32_t nloc_of;
    vset_info *sets;
    vloc_info *locs;
    uint32_t nsets, nlocs;
    SBA_VEC(vvalue) values;
    SBA_VEC(vlatest) lat;
    SBA_VEC(vspace *) priv;
    SBA_VEC(vpiece) pieces;
    SBA_VEC(made) made;
    rrect_vec rest;                  /* scratch of the read check */
    vop *ops;
    vinst *insts;
    xgeo *geo;                       /* one per operand of the current instruction */
    int64_t *iter;                   /* Loop inst->index -> current iteration index */
    uint64_t steps, max_steps;
    int64_t dram_page;               /* DRAM scratch addresses are multiples of it */
    bool sampled;
} verifier;

/* A read's check in progress. */
typedef struct rcheck {
    verifier *v;
    const vlatest *lat;
    vstore st;
    bool failed;
    vpiece f;                        /* the offending piece, extended over equal neighbours */
    uint32_t expect;                 /* the value those bytes should hold */
    bool phys;                       /* lat is a must-alias class's: physical coordinates */
    int64_t row;                     /* linear store: the tensor partition being checked */
} rcheck;

/* ---- small helpers ----------------------------------------------------- */

static sba_status nomem(verifier *v) { return sba_err(v->err, SBA_ERR_NOMEM, "verify: out of memory"); }

static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static const char *type_word(uint32_t type)
{
    const char *n = bir_memory_type_name(type);
    return n ? n : "memory";
}

static const char *space_word(uint32_t as)
{
    const char *n = bir_addr_space_name(as);
    return n ? n : "unknown";
}

static int64_t fn_index(const bir_function *fn)
{
    for (uint32_t i = 0; fn->module && i < fn->module->nfns; i++)
        if (fn->module->fns[i] == fn) return i;
    return 0;
}

static void loc_path(const verifier *v, const vloc_info *l, char *buf, size_t size)
{
    snprintf(buf, size, "functions[%lld].allocations[%u].memorylocations[%u]", (long long)fn_index(v->fn),
             l->set_pos, l->loc_pos);
}

/* " (in iteration 3 of loop "L")" for the loops around `in`, outermost first. */
static void loop_context(const verifier *v, const bir_inst *in, char *buf, size_t size)
{
    const bir_inst *nest[64];
    uint32_t d = 0;
    for (const bir_block *b = in ? in->parent : NULL; b && b->loop; b = b->loop->parent)
        if (d < 64) nest[d++] = b->loop;
    buf[0] = '\0';
    size_t len = 0;
    for (uint32_t k = d; k-- > 0 && len + 1 < size;) {
        int n = snprintf(buf + len, size - len, "%s iteration %lld of loop \"%s\"",
                         k + 1 == d ? " (in" : ",", (long long)v->iter[nest[k]->index], nest[k]->name);
        if (n > 0) len = len + (size_t)n < size ? len + (size_t)n : size - 1;
    }
    if (d && len + 2 < size) memcpy(buf + len, ")", 2);
}

/* ---- values and latest defs --------------------------------------------- */

static uint32_t new_value(verifier *v, uint32_t set, int64_t block, uint32_t by, uint32_t root)
{
    if (v->values.n >= UINT32_MAX - 1) return 0;
    uint32_t id = v->values.n;
    vvalue x = {set, by, root ? root : id, block};
    if (!SBA_VEC_PUSH(v->ar, &v->values, x)) return 0;
    v->rep->values++;
    return id;
}

/* The position of loc in v->locs: false when it is not a location of the
 * function's sets. The model's dense index finds it; the pointer proves it. */
static bool find_loc(const verifier *v, const bir_location *loc, uint32_t *li)
{
    if (!loc) return false;
    if (loc->index < v->nloc_of && v->loc_of[loc->index] && v->locs[v->loc_of[loc->index] - 1].loc == loc) {
        *li = v->loc_of[loc->index] - 1;
        return true;
    }
    if (!loc->set || loc->set->fn != v->fn) return false;
    for (uint32_t i = 0; i < v->nlocs; i++) /* a model built without bir_location_add */
        if (v->locs[i].loc == loc) return *li = i, true;
    return false;
}

/* The direct slot of (entity, block) in table tab (index + 1, 0 when none
 * yet), for an entity of nblocks blocks; NULL when the map holds it (too
 * many blocks, a block out of range) and when out of memory (*fail). */
static uint32_t *direct(verifier *v, uint32_t **tab, uint32_t ent, int64_t nblocks, int64_t block, bool *fail)
{
    if (nblocks > DIRECT_BLOCKS || block < 0 || block >= nblocks) return NULL;
    if (!tab[ent] && !(tab[ent] = sba_arena_array(v->ar, (size_t)nblocks, sizeof **tab))) {
        *fail = true;
        return NULL;
    }
    return &tab[ent][block];
}

/* The value (set, block) holds at function entry; made on first use. */
static uint32_t entry_value(verifier *v, uint32_t set, int64_t block)
{
    uint32_t id;
    bool fail = false;
    uint32_t *slot = direct(v, v->entry_of, set, v->sets[set].nblocks, block, &fail);
    if (fail) return 0;
    if (slot && *slot) return *slot;
    vkey k = vkey_make(TAG_ENTRY, set, block);
    if (!slot && sba_vmap_get(&v->map, k, &id)) return id;
    id = new_value(v, set, block, VSPACE_NO_WRITER, 0);
    if (!id || (slot ? (*slot = id, false) : !sba_vmap_put(&v->map, k, id))) return 0;
    return id;
}

static bool lat_push(verifier *v, vlatest *l, lentry e)
{
    if (!sba_arena_grow(v->ar, (void **)&l->e, &l->cap, l->n + 1, sizeof *l->e)) return false;
    l->e[l->n++] = e;
    return true;
}

/* The latest defs of (set, block); NULL when nothing defines it yet. With
 * `create`, an entry-defined set gets its entry value over the whole block,
 * and any other set an empty list. *fail is set when out of memory. */
static vlatest *latest(verifier *v, uint32_t set, int64_t block, bool create, bool *fail)
{
    uint32_t idx;
    bool dfail = false;
    uint32_t *slot = direct(v, v->lat_of, set, v->sets[set].nblocks, block, &dfail);
    if (dfail) return *fail = true, NULL;
    if (slot && *slot) return &v->lat.v[*slot - 1];
    vkey k = vkey_make(TAG_LATEST, set, block);
    if (!slot && sba_vmap_get(&v->map, k, &idx)) return &v->lat.v[idx];
    const vset_info *s = &v->sets[set];
    if (!create && !s->entry) return NULL;
    vlatest l = {NULL, 0, 0, set, NO_LOC, block};
    if (s->entry) {
        uint32_t e = entry_value(v, set, block);
        if (!e || !lat_push(v, &l, (lentry){e, 0, s->parts, 0, s->bpb})) {
            *fail = true;
            return NULL;
        }
    }
    idx = v->lat.n;
    if (!SBA_VEC_PUSH(v->ar, &v->lat, l) || (slot ? (*slot = idx + 1, false) : !sba_vmap_put(&v->map, k, idx))) {
        *fail = true;
        return NULL;
    }
    return &v->lat.v[idx];
}

/* The latest defs of a must-alias class, in the physical coordinates of its
 * DRAM space (partition 0, scratch bytes): every member's write is a write
 * of the one storage. NULL without `create` when nothing wrote it yet. */
static vlatest *class_latest(verifier *v, uint32_t cls, bool create, bool *fail)
{
    uint32_t idx;
    vkey k = vkey_make(TAG_CLASS, cls, 0);
    if (sba_vmap_get(&v->map, k, &idx)) return &v->lat.v[idx];
    if (!create) return NULL;
    vlatest l = {NULL, 0, 0, v->locs[cls].set, NO_LOC, -1};
    idx = v->lat.n;
    if (!SBA_VEC_PUSH(v->ar, &v->lat, l) || !sba_vmap_put(&v->map, k, idx)) {
        *fail = true;
        return NULL;
    }
    return &v->lat.v[idx];
}

/* Records a def of rectangle e: entries it covers are gone. */
static bool lat_def(verifier *v, vlatest *l, lentry e)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        const lentry *o = &l->e[i];
        bool covered = o->p0 >= e.p0 && o->p1 <= e.p1 && o->x0 >= e.x0 && o->x1 <= e.x1;
        if (!covered) l->e[w++] = *o;
    }
    l->n = w;
    return lat_push(v, l, e);
}

/* ---- storage ------------------------------------------------------------ */

/* The storage of (location, block); NULL sp when out of memory. */
static vstore storage(verifier *v, uint32_t loc, int64_t block)
{
    const vloc_info *l = &v->locs[loc];
    const vset_info *s = &v->sets[l->set];
    if (l->sb || l->psum) {
        int64_t slot = block % l->n;
        return (vstore){l->sb ? &v->sb : &v->psum, l->base, l->addr + slot * s->bpb, 0};
    }
    if (l->dram) /* row-major (block, partition, free) */
        return (vstore){&v->dram[s->set->addr_space], 0, l->addr + block * s->parts * s->bpb, s->bpb};
    uint32_t idx;
    bool fail = false;
    uint32_t *slot = direct(v, v->priv_of, loc, s->nblocks, block, &fail);
    if (fail) return (vstore){NULL, 0, 0, 0};
    if (slot && *slot) return (vstore){v->priv.v[*slot - 1], 0, 0, 0};
    vkey k = vkey_make(TAG_PRIVATE, loc, block);
    if (!slot && sba_vmap_get(&v->map, k, &idx)) return (vstore){v->priv.v[idx], 0, 0, 0};
    uint32_t init = 0;
    if (s->entry && !(init = entry_value(v, l->set, block))) return (vstore){NULL, 0, 0, 0};
    vspace *sp = sba_arena_alloc(v->ar, sizeof *sp);
    if (!sp || !sba_vspace_init(sp, &v->pool, 0, s->bpb, (uint32_t)s->parts, init, 0)) return (vstore){NULL, 0, 0, 0};
    idx = v->priv.n;
    if (!SBA_VEC_PUSH(v->ar, &v->priv, sp) || (slot ? (*slot = idx + 1, false) : !sba_vmap_put(&v->map, k, idx)))
        return (vstore){NULL, 0, 0, 0};
    return (vstore){sp, 0, 0, 0};
}

/* Partition p of a linear store as a store of its own: relative (p, x) is
 * physical (0, dx + p × row + x). */
static vstore store_row(const vstore *st, int64_t p)
{
    return (vstore){st->sp, -p, st->dx + p * st->row, 0};
}

static bool store_write(verifier *v, const vstore *st, int64_t p0, int64_t p1, int64_t x0, int64_t x1,
                        uint32_t val, uint32_t by)
{
    if (st->row && x0 == 0 && x1 == st->row) /* whole rows: one contiguous range */
        return sba_vspace_write(st->sp, &v->pool, 0, 1, st->dx + p0 * st->row, st->dx + p1 * st->row, val, by);
    for (int64_t p = p0; st->row && p < p1; p++) {
        vstore r = store_row(st, p);
        if (!store_write(v, &r, p, p + 1, x0, x1, val, by)) return false;
    }
    if (st->row) return true;
    return sba_vspace_write(st->sp, &v->pool, (uint32_t)(p0 + st->dp), (uint32_t)(p1 + st->dp), x0 + st->dx,
                        x1 + st->dx, val, by);
}

/* ---- static checks ------------------------------------------------------ */

static void mask_text(uint32_t mask, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < 4; i++) {
        if (!(mask >> i & 1u)) continue;
        int n = snprintf(buf + len, size - len, "%s%u", len ? ", " : "", 32 * i);
        if (n > 0) len = len + (size_t)n < size ? len + (size_t)n : size - 1;
    }
    if (!len) snprintf(buf, size, "none");
}

/* The placement rules of one SB location; `by` names an instruction that
 * accesses it (NULL for an input's entry placement). */
static sba_status check_location(verifier *v, uint32_t li, const bir_inst *by)
{
    vloc_info *l = &v->locs[li];
    if (l->checked) return SBA_OK;
    const bir_location *loc = l->loc;
    const vset_info *s = &v->sets[l->set];
    char path[256], allowed[64];
    loc_path(v, l, path, sizeof path);
    const char *ln = loc->name, *sn = s->set->name;
    if (loc->addr == BIR_NO_ADDR || loc->base == BIR_NO_BASE) {
        char use[320] = "", src[96];
        if (by) snprintf(use, sizeof use, " (accessed by instruction \"%s\"%s)", by->name,
                         bir_inst_source(by, src, sizeof src));
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: SB location \"%s\" of tensor \"%s\" is not placed: addr and base "
                            "are required%s",
                            ln, sn, use);
    }
    int64_t n = loc->live_n ? loc->live_n : s->nblocks;
    if (n < 1 || n > s->nblocks)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: SB location \"%s\" of tensor \"%s\": live_n %lld is outside [1, %lld] "
                            "(the tensor's blocks)",
                            ln, sn, (long long)n, (long long)s->nblocks);
    if (s->parts > (int64_t)v->t->partitions)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: SB location \"%s\" of tensor \"%s\": %lld partitions exceed the "
                            "target's %u",
                            ln, sn, (long long)s->parts, v->t->partitions);
    uint32_t mask = bir_start_partition_mask(s->parts);
    int64_t b = loc->base;
    if (b % 32 != 0 || b / 32 >= 4 || !(mask >> (b / 32) & 1u)) {
        mask_text(mask, allowed, sizeof allowed);
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: SB location \"%s\" of tensor \"%s\": base partition %lld breaks the "
                            "start-partition rule for %lld partitions (allowed: %s)",
                            ln, sn, (long long)b, (long long)s->parts, allowed);
    }
    if (b + s->parts > (int64_t)v->t->partitions)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: SB location \"%s\" of tensor \"%s\": partitions [%lld, %lld) exceed "
                            "the target's %u partitions",
                            ln, sn, (long long)b, (long long)(b + s->parts), v->t->partitions);
    if (v->t->sbuf_align > 1 && loc->addr % v->t->sbuf_align != 0)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: SB location \"%s\" of tensor \"%s\": addr %lld is not a multiple of "
                            "the SB alignment %u",
                            ln, sn, (long long)loc->addr, v->t->sbuf_align);
    int64_t bytes, end;
    if (__builtin_mul_overflow(n, s->bpb, &bytes) || __builtin_add_overflow(loc->addr, bytes, &end))
        end = INT64_MAX;
    if (end > v->t->sbuf_bytes)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: SB location \"%s\" of tensor \"%s\": bytes [%lld, %lld) (live_n %lld "
                            "x %lld bytes per block) exceed the %lld SB bytes per partition",
                            ln, sn, (long long)loc->addr, (long long)end, (long long)n, (long long)s->bpb,
                            (long long)v->t->sbuf_bytes);
    l->base = b;
    l->addr = loc->addr;
    l->n = n;
    l->checked = true;
    v->rep->locations++;
    return SBA_OK;
}

/* The placement rules of one PSUM location with bank and addr: the bank
 * exists, addr is aligned, every block lies inside one bank and inside PSUM,
 * and its base obeys the start-partition rule. Block k (k < live_n) starts
 * at bank × bank bytes + addr + k × bytesPerBlock of the partition's PSUM:
 * the blocks may run over consecutive banks, but no boundary may cut one. */
static sba_status check_psum_location(verifier *v, uint32_t li)
{
    vloc_info *l = &v->locs[li];
    if (l->checked) return SBA_OK;
    const bir_location *loc = l->loc;
    const vset_info *s = &v->sets[l->set];
    const sba_target *t = v->t;
    char path[256], allowed[64], which[48] = "";
    loc_path(v, l, path, sizeof path);
    const char *ln = loc->name, *sn = s->set->name;
    const int64_t B = t->psum_bank_bytes;
    int64_t n = loc->live_n ? loc->live_n : s->nblocks, b = loc->base == BIR_NO_BASE ? 0 : loc->base, bytes, end;
    const int64_t bank = bir_location_bank(loc);
    if (bank >= (int64_t)t->psum_banks)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: PSUM location \"%s\" of tensor \"%s\": bank %lld is outside [0, %u)", ln, sn,
                            (long long)bank, t->psum_banks);
    if (n < 1 || n > s->nblocks)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: PSUM location \"%s\" of tensor \"%s\": live_n %lld is outside [1, %lld] "
                            "(the tensor's blocks)",
                            ln, sn, (long long)n, (long long)s->nblocks);
    if (t->psum_align > 1 && loc->addr % t->psum_align != 0)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: PSUM location \"%s\" of tensor \"%s\": addr %lld is not a multiple of the "
                            "PSUM alignment %u",
                            ln, sn, (long long)loc->addr, t->psum_align);
    if (s->nblocks > 1) snprintf(which, sizeof which, " (block 0)");
    if (__builtin_mul_overflow(n, s->bpb, &bytes)) bytes = INT64_MAX;
    if (__builtin_add_overflow(loc->addr, s->bpb, &end)) end = INT64_MAX;
    if (loc->addr < 0 || end > B)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: PSUM location \"%s\" of tensor \"%s\": bytes [%lld, %lld) of bank %lld%s cross "
                            "the bank boundary at %lld",
                            ln, sn, (long long)loc->addr, (long long)end, (long long)bank, which, (long long)B);
    /* blocks 1 .. n-1: every bank boundary before the end of the last block,
     * the end of PSUM included, must fall between two blocks, and no block
     * may start past the end of PSUM */
    int64_t at = bank * B + loc->addr, stop;
    if (__builtin_add_overflow(at, bytes, &stop)) stop = INT64_MAX;
    for (int64_t m = bank + 1; m <= (int64_t)t->psum_banks && m * B < stop; m++) {
        int64_t d = m * B - at, k = d / s->bpb, x = at + k * s->bpb;
        if (d % s->bpb != 0)
            return sba_err_path(v->err, SBA_ERR_MODEL, path,
                                "verify: PSUM location \"%s\" of tensor \"%s\": bytes [%lld, %lld) of bank %lld "
                                "(block %lld) cross the bank boundary at %lld",
                                ln, sn, (long long)(x % B), (long long)(x % B + s->bpb), (long long)(x / B),
                                (long long)k, (long long)B);
        if (m == (int64_t)t->psum_banks)
            return sba_err_path(v->err, SBA_ERR_MODEL, path,
                                "verify: PSUM location \"%s\" of tensor \"%s\": bank %lld (block %lld) is outside "
                                "[0, %u)",
                                ln, sn, (long long)m, (long long)k, t->psum_banks);
    }
    uint32_t mask = bir_start_partition_mask(s->parts);
    if (b < 0 || b % 32 != 0 || b / 32 >= 4 || !(mask >> (b / 32) & 1u) || b + s->parts > (int64_t)t->partitions) {
        mask_text(mask, allowed, sizeof allowed);
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: PSUM location \"%s\" of tensor \"%s\": base partition %lld breaks the "
                            "start-partition rule for %lld partitions (allowed: %s)",
                            ln, sn, (long long)b, (long long)s->parts, allowed);
    }
    l->base = b;
    l->addr = at;
    l->n = n;
    l->checked = true;
    v->rep->psum_locations++;
    return SBA_OK;
}

/* " (Local scratch address 4096)" or " (not in the DRAM scratch)" */
static void dram_where(const vloc_info *l, char *buf, size_t size)
{
    if (l->dram) snprintf(buf, size, "%s scratch address %lld", space_word(l->loc->set->addr_space),
                          (long long)l->loc->addr);
    else snprintf(buf, size, "not in the DRAM scratch");
}

/* The placement rules of one DRAM scratch location: its bytes [addr, addr +
 * NBlocks × P × bytesPerBlock) are a valid range, addr is a multiple of the
 * DRAM page (sba_verify_options.dram_page: the allocator's option, not in
 * the module), and every must-alias peer in the function is a scratch
 * location at the same address of the same address space (one storage). */
static sba_status check_dram_location(verifier *v, uint32_t li)
{
    vloc_info *l = &v->locs[li];
    if (l->checked) return SBA_OK;
    const bir_location *loc = l->loc;
    const vset_info *s = &v->sets[l->set];
    uint32_t as = s->set->addr_space;
    char path[256];
    loc_path(v, l, path, sizeof path);
    int64_t bytes, end;
    if (__builtin_mul_overflow(s->nblocks, s->parts, &bytes) || __builtin_mul_overflow(bytes, s->bpb, &bytes) ||
        __builtin_add_overflow(loc->addr, bytes, &end))
        end = INT64_MAX;
    if (loc->addr < 0 || end == INT64_MAX || as >= BIR_AS_COUNT)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: DRAM location \"%s\" of tensor \"%s\": addr %lld (%lld blocks x %lld "
                            "partitions x %lld bytes) is not a valid range of the %s scratch",
                            loc->name, s->set->name, (long long)loc->addr, (long long)s->nblocks,
                            (long long)s->parts, (long long)s->bpb, space_word(as));
    if (loc->addr % v->dram_page != 0)
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: DRAM location \"%s\" of tensor \"%s\": addr %lld is not a multiple of the "
                            "DRAM page %lld",
                            loc->name, s->set->name, (long long)loc->addr, (long long)v->dram_page);
    for (uint32_t k = 0; k < loc->nalias; k++) {
        const bir_location *peer = bir_alias_peer(loc->alias[k]);
        uint32_t pi;
        if (!bir_alias_has(loc->alias[k], BIR_ALIAS_MUST) || !peer || peer->type != BIR_MEM_DRAM ||
            !find_loc(v, peer, &pi))
            continue;
        const vloc_info *q = &v->locs[pi];
        if (q->dram && peer->addr == loc->addr && peer->set->addr_space == as) continue;
        char here[96], there[96];
        dram_where(l, here, sizeof here);
        dram_where(q, there, sizeof there);
        return sba_err_path(v->err, SBA_ERR_MODEL, path,
                            "verify: must-alias DRAM locations \"%s\" of tensor \"%s\" (%s) and \"%s\" of "
                            "tensor \"%s\" (%s) are not one storage: they must share one address",
                            loc->name, s->set->name, here, peer->name, peer->set->name, there);
    }
    if (end > v->dram_end[as]) v->dram_end[as] = end;
    l->addr = loc->addr;
    l->n = s->nblocks;
    l->checked = true;
    v->rep->dram_locations++;
    return SBA_OK;
}

/* The operand's own start-partition constraint at its location's base. */
static sba_status check_operand_base(verifier *v, const vop *o)
{
    const vloc_info *l = &v->locs[o->loc];
    if (o->whole.base_mask >> (l->base / 32) & 1u) return SBA_OK;
    char path[256], allowed[64], src[96];
    bir_inst_path(v->fn, o->in, o->op, path, sizeof path);
    mask_text(o->whole.base_mask, allowed, sizeof allowed);
    return sba_err_path(v->err, SBA_ERR_MODEL, path,
                        "verify: SB location \"%s\" of tensor \"%s\" at base partition %lld: instruction "
                        "\"%s\"%s accesses its partitions [%lld, %lld), which the start-partition rule "
                        "allows only at bases %s",
                        l->loc->name, v->sets[l->set].set->name, (long long)l->base, o->in->name,
                        bir_inst_source(o->in, src, sizeof src),
                        (long long)o->whole.part_lo, (long long)o->whole.part_hi, allowed);
}

/* ---- operand geometry --------------------------------------------------- */

/* The blocks one execution touches, as a progression b0 + bstep × i. A
 * footprint without loop terms has CONST blocks or blocks moved by its pairs:
 * one block-moving pair gives an exact progression, several are covered by
 * their range. */
static void block_progression(const vset_info *s, const bir_operand *op, const bir_footprint *fp,
                              int64_t *b0, int64_t *bstep, int64_t *bcount)
{
    *b0 = fp->block;
    *bstep = 0;
    *bcount = 1;
    if (fp->blocks == BIR_BLOCKS_CONST || fp->block_hi == fp->block) return;
    uint32_t moving = 0;
    int64_t k = 0, num = 0;
    for (uint32_t j = 1; j < op->ndims; j++) {
        int64_t step = op->ap[j][0];
        if (op->ap[j][1] > 1 && step != 0 && step % s->pf == 0) {
            moving++;
            k = step / s->pf;
            num = op->ap[j][1];
        }
    }
    if (k < 0) k = -k;
    if (moving == 1 && k > 0 && fp->block + k * (num - 1) == fp->block_hi) {
        *bstep = k;
        *bcount = num;
    } else {
        *bstep = 1;
        *bcount = fp->block_hi - fp->block + 1;
    }
}

/* The operand with its loop terms folded into `offset`. */
static bir_operand folded(const bir_operand *op, int64_t offset)
{
    bir_operand t = *op;
    t.kind = BIR_OPND_PHYSICAL_AP;
    t.offset = offset;
    t.terms = NULL;
    t.nterms = 0;
    return t;
}

/* offset + Σ coeff × axis value, at the first values (first) or the current ones. */
static bool operand_offset(const verifier *v, const bir_operand *op, bool first, int64_t *out)
{
    int64_t off = op->offset;
    for (uint32_t t = 0; t < op->nterms; t++) {
        const bir_inst *loop = op->terms[t].loop;
        int64_t it = first ? 0 : v->iter[loop->index], val, c;
        if (__builtin_mul_overflow(it, loop->axis.stride, &val) ||
            __builtin_add_overflow(val, loop->axis.lb, &val) ||
            __builtin_mul_overflow(op->terms[t].coeff, val, &c) || __builtin_add_overflow(off, c, &off))
            return false;
    }
    *out = off;
    return true;
}

static sba_status overflow_error(verifier *v, const vop *o)
{
    char path[256], src[96];
    bir_inst_path(v->fn, o->in, o->op, path, sizeof path);
    return sba_err_path(v->err, SBA_ERR_PROGRAM, path,
                        "verify: the offset of instruction \"%s\"%s on tensor \"%s\" overflows 64 bits",
                        o->in->name, bir_inst_source(o->in, src, sizeof src), o->op->set->name);
}

static sba_status eval(verifier *v, vop *o, xgeo *g)
{
    const bir_footprint *fp = &o->first;
    int64_t b0 = o->b0, bstep = o->bstep, bcount = o->bcount, off;
    uint32_t mode = o->mode;
    if (mode != OP_STATIC) {
        if (!operand_offset(v, o->op, false, &off)) return overflow_error(v, o);
        int64_t pf = v->sets[o->set].pf, d = off - o->off_first;
        if (mode == OP_SHIFT && d % pf == 0) {
            b0 += d / pf;
        } else if (o->memo_ok && o->memo_off == off) {
            fp = &o->memo;
            b0 = o->memo_b0, bstep = o->memo_bstep, bcount = o->memo_bcount;
        } else {
            bir_operand t = folded(o->op, off);
            sba_status s = bir_operand_footprint(o->in, &t, &o->memo, v->err);
            if (s != SBA_OK) return s;
            block_progression(&v->sets[o->set], o->op, &o->memo, &o->memo_b0, &o->memo_bstep,
                              &o->memo_bcount);
            o->memo_ok = true;
            o->memo_off = off;
            fp = &o->memo;
            b0 = o->memo_b0, bstep = o->memo_bstep, bcount = o->memo_bcount;
        }
    }
    *g = (xgeo){fp->part_lo, fp->part_hi, fp->byte_lo, fp->byte_hi, b0, bstep, bcount};
    return SBA_OK;
}

static bool geo_has_block(const xgeo *g, int64_t k)
{
    if (g->bstep == 0) return k == g->b0;
    int64_t d = k - g->b0;
    return d >= 0 && d % g->bstep == 0 && d / g->bstep < g->bcount;
}

static bool geo_contains(const xgeo *outer, const xgeo *inner)
{
    return outer->p0 <= inner->p0 && outer->p1 >= inner->p1 && outer->x0 <= inner->x0 &&
           outer->x1 >= inner->x1;
}

/* ---- reads -------------------------------------------------------------- */

static bool rrect_meet(rrect a, const lentry *e, rrect *out)
{
    *out = (rrect){imax(a.p0, e->p0), e->p1 < a.p1 ? e->p1 : a.p1, imax(a.x0, e->x0), e->x1 < a.x1 ? e->x1 : a.x1};
    return out->p0 < out->p1 && out->x0 < out->x1;
}

/* Finds, in a uniform piece, the first bytes whose newest covering def is not
 * the value the piece holds. Each def, newest first, claims what is left of
 * the piece; what no def claims is undefined and unchecked. Returns true with
 * the bytes (physical) and the value they should hold. */
static bool piece_fails(rcheck *c, const vpiece *pc, vpiece *bad, uint32_t *expect)
{
    const vvalue *vals = c->v->values.v;
    const vlatest *l = c->lat;
    uint32_t root = pc->val ? vals[pc->val].root : 0;
    int64_t dp = c->phys ? 0 : c->st.dp, dx = c->phys ? 0 : c->st.dx;
    rrect q = {pc->p0 - dp, pc->p1 - dp, pc->x0 - dx, pc->x1 - dx}, m = {0, 0, 0, 0};
    rrect_vec *rest = &c->v->rest;
    if (l->n == 1) {
        if (!rrect_meet(q, &l->e[0], &m) || (root && vals[l->e[0].val].root == root)) return false;
        *expect = l->e[0].val;
    } else {
        rest->n = 0;
        if (!SBA_VEC_PUSH(c->v->ar, rest, q)) return false;
        bool found = false;
        for (uint32_t i = l->n; i-- > 0 && rest->n && !found;) {
            const lentry *e = &l->e[i];
            bool same = root && vals[e->val].root == root;
            for (uint32_t k = rest->n; k-- > 0 && !found;) {
                rrect r = rest->v[k];
                if (!rrect_meet(r, e, &m)) continue;
                if (!same) {
                    found = true;
                    *expect = e->val;
                    break;
                }
                /* Claimed: keep the parts of r outside e. */
                rest->v[k] = rest->v[--rest->n];
                rrect parts[4] = {{r.p0, m.p0, r.x0, r.x1}, {m.p1, r.p1, r.x0, r.x1},
                                  {m.p0, m.p1, r.x0, m.x0}, {m.p0, m.p1, m.x1, r.x1}};
                for (int t = 0; t < 4; t++)
                    if (parts[t].p0 < parts[t].p1 && parts[t].x0 < parts[t].x1 &&
                        !SBA_VEC_PUSH(c->v->ar, rest, parts[t]))
                        return false;
            }
        }
        if (!found) return false;
    }
    *bad = (vpiece){m.x0 + dx, m.x1 + dx, (uint32_t)(m.p0 + dp), (uint32_t)(m.p1 + dp), pc->val, pc->by};
    return true;
}

static int check_piece(void *ud, const vpiece *pc)
{
    rcheck *c = ud;
    vpiece bad;
    uint32_t expect = 0;
    if (!c->failed) {
        if (piece_fails(c, pc, &bad, &expect)) {
            c->failed = true;
            c->f = bad;
            c->expect = expect;
        }
        return 0;
    }
    /* Extend the reported rectangle over the same failure in the next bytes. */
    if (pc->x0 > c->f.x1) return 1;
    if (pc->x0 == c->f.x1 && piece_fails(c, pc, &bad, &expect) && bad.x0 == c->f.x1 && bad.p0 == c->f.p0 &&
        bad.p1 == c->f.p1 && bad.val == c->f.val && bad.by == c->f.by && expect == c->expect)
        c->f.x1 = bad.x1;
    return 0;
}

/* Checks (loc, block) over the relative rectangle g. Returns 0 when it holds
 * the latest values (or nothing defines them), 1 with c filled on a failure,
 * -1 when out of memory. */
static int read_block(verifier *v, uint32_t loc, int64_t block, const xgeo *g, rcheck *c, bool *skipped)
{
    bool fail = false;
    *skipped = false;
    memset(c, 0, sizeof *c);
    c->v = v;
    uint32_t cls = v->locs[loc].cls;
    c->phys = cls != NO_LOC;
    c->lat = c->phys ? class_latest(v, cls, false, &fail) : latest(v, v->locs[loc].set, block, false, &fail);
    if (fail) return -1;
    if (!c->lat || !c->lat->n) {
        *skipped = true;
        return 0;
    }
    vstore st = storage(v, loc, block);
    if (!st.sp) return -1;
    if (!st.row) {
        c->st = st;
        sba_vspace_scan(st.sp, (uint32_t)(g->p0 + st.dp), (uint32_t)(g->p1 + st.dp), g->x0 + st.dx, g->x1 + st.dx,
                    check_piece, c);
    }
    for (int64_t p = g->p0; st.row && p < g->p1 && !c->failed; p++) {
        c->st = store_row(&st, p);
        c->row = p;
        sba_vspace_scan(st.sp, 0, 1, g->x0 + c->st.dx, g->x1 + c->st.dx, check_piece, c);
    }
    return c->failed ? 1 : 0;
}

/* The error for a failed read. `subject` is who reads ("instruction "x"" or
 * "the end of function "f""), `verb` its verb phrase. */
static sba_status read_error(verifier *v, const rcheck *c, const char *subject, const char *verb,
                             const bir_inst *in, const bir_operand *op, uint32_t loc, int64_t block)
{
    const vloc_info *l = &v->locs[loc];
    const vset_info *s = &v->sets[l->set];
    const vvalue *vals = v->values.v;
    char path[256] = "", ctx[512], where[384], blk[48] = "", writer[320];
    if (in) bir_inst_path(v->fn, in, op, path, sizeof path);
    loop_context(v, in, ctx, sizeof ctx);
    if (s->nblocks > 1) snprintf(blk, sizeof blk, ", block %lld", (long long)block);
    if (l->dram)
        snprintf(where, sizeof where, "%s \"%s\" (DRAM location \"%s\"%s) at partition %lld, %s scratch bytes "
                 "[%lld, %lld)", verb, s->set->name, l->loc->name, blk, (long long)c->row,
                 space_word(s->set->addr_space), (long long)c->f.x0, (long long)c->f.x1);
    else
        snprintf(where, sizeof where, "%s \"%s\" (%s location \"%s\"%s) at partitions [%u, %u) bytes [%lld, %lld)",
                 verb, s->set->name, type_word(l->loc->type), l->loc->name, blk, c->f.p0, c->f.p1,
                 (long long)c->f.x0, (long long)c->f.x1);
    char src[96];
    if (c->f.by == VSPACE_NO_WRITER) snprintf(writer, sizeof writer, "placed there at function entry");
    else snprintf(writer, sizeof writer, "written there by instruction \"%s\"%s", v->fn->insts[c->f.by]->name,
                  bir_inst_source(v->fn->insts[c->f.by], src, sizeof src));
    const vvalue *exp = &vals[c->expect];
    char expected[320];
    if (exp->by == VSPACE_NO_WRITER) snprintf(expected, sizeof expected, "its value at function entry");
    else snprintf(expected, sizeof expected, "the value defined by instruction \"%s\"%s", v->fn->insts[exp->by]->name,
                  bir_inst_source(v->fn->insts[exp->by], src, sizeof src));

    if (!c->f.val)
        return sba_err_path(v->err, SBA_ERR_PROGRAM, path,
                            "verify: %s %s: broken reload/spill data flow: the bytes were never written, "
                            "but should hold %s%s",
                            subject, where, expected, ctx);
    const vvalue *got = &vals[c->f.val];
    bool peer = c->phys && v->sets[got->set].cls == l->cls; /* the same storage */
    if (!peer && (got->set != l->set || got->block != block)) {
        const vset_info *gs = &v->sets[got->set];
        char gblk[48] = "";
        if (gs->nblocks > 1) snprintf(gblk, sizeof gblk, " (block %lld)", (long long)got->block);
        return sba_err_path(v->err, SBA_ERR_PROGRAM, path, "verify: %s %s, but tensor \"%s\"%s %s overwrote it%s",
                            subject, where, gs->set->name, gblk, writer, ctx);
    }
    return sba_err_path(v->err, SBA_ERR_PROGRAM, path,
                        "verify: %s %s: broken reload/spill data flow: the bytes hold an older value of "
                        "the tensor (%s), not %s%s",
                        subject, where, writer, expected, ctx);
}

static sba_status check_read(verifier *v, const vop *o, const xgeo *g, int64_t block)
{
    rcheck c;
    bool skipped;
    int rc = read_block(v, o->loc, block, g, &c, &skipped);
    if (rc < 0) return nomem(v);
    if (skipped) {
        v->rep->skipped_reads++;
        return SBA_OK;
    }
    v->rep->reads++;
    v->rep->bytes += (uint64_t)(g->p1 - g->p0) * (uint64_t)(g->x1 - g->x0);
    if (rc == 0) return SBA_OK;
    char subject[320], src[96];
    snprintf(subject, sizeof subject, "instruction \"%s\"%s", o->in->name, bir_inst_source(o->in, src, sizeof src));
    return read_error(v, &c, subject, "reads tensor", o->in, o->op, o->loc, block);
}

/* ---- writes -------------------------------------------------------------- */

static int collect_piece(void *ud, const vpiece *pc)
{
    verifier *v = ud;
    return SBA_VEC_PUSH(v->ar, &v->pieces, *pc) ? 0 : 1;
}

/* A new value of (set, block) for this execution, shared by all its outs. */
static uint32_t def_value(verifier *v, const bir_inst *in, uint32_t set, int64_t block, uint32_t root)
{
    for (uint32_t i = 0; i < v->made.n; i++)
        if (v->made.v[i].set == set && v->made.v[i].block == block) return v->made.v[i].val;
    uint32_t val = new_value(v, set, block, in->index, root);
    if (!val || !SBA_VEC_PUSH(v->ar, &v->made, ((made){set, val, block}))) return 0;
    return val;
}

/* A write of value val through a must-alias location to the relative
 * rectangle [p0, p1) x [x0, x1) of its store: the latest def of its class's
 * bytes. Nothing to do for other locations. */
static sba_status class_def(verifier *v, uint32_t loc, const vstore *st, int64_t p0, int64_t p1, int64_t x0,
                            int64_t x1, uint32_t val)
{
    uint32_t cls = v->locs[loc].cls;
    if (cls == NO_LOC) return SBA_OK;
    bool fail = false;
    vlatest *l = class_latest(v, cls, true, &fail);
    if (fail) return nomem(v);
    if (x0 == 0 && x1 == st->row)
        return lat_def(v, l, (lentry){val, 0, 1, st->dx + p0 * st->row, st->dx + p1 * st->row}) ? SBA_OK : nomem(v);
    for (int64_t p = p0; p < p1; p++)
        if (!lat_def(v, l, (lentry){val, 0, 1, st->dx + p * st->row + x0, st->dx + p * st->row + x1}))
            return nomem(v);
    return SBA_OK;
}

/* The next run [*a, *b) of offsets from `from` that `has` marks, within
 * [0, n); false when none is left. A NULL `has` marks all of [0, n). */
static bool next_run(const uint8_t *has, int64_t n, int64_t from, int64_t *a, int64_t *b)
{
    if (!has) {
        *a = from, *b = n;
        return from < n;
    }
    while (from < n && !has[from]) from++;
    if (from >= n) return false;
    *a = from;
    while (from < n && has[from]) from++;
    *b = from;
    return true;
}

/* Whether the write o touches block `block` of its progression g. */
static bool writes_block(const vop *o, const xgeo *g, int64_t block)
{
    return !o->has[GAP_BLOCK] || (g->bstep == 1 && o->has[GAP_BLOCK][block - g->b0]);
}

static sba_status def_block(verifier *v, const vop *o, const xgeo *g, int64_t block, uint32_t root)
{
    if (!writes_block(o, g, block)) return SBA_OK;
    uint32_t val = def_value(v, o->in, o->set, block, root);
    if (!val) {
        if (v->values.n >= UINT32_MAX - 1)
            return sba_err(v->err, SBA_ERR_LIMIT, "verify: more than %u values in function \"%s\"",
                           UINT32_MAX - 2, v->fn->name);
        return nomem(v);
    }
    vstore st = storage(v, o->loc, block);
    bool fail = false;
    if (!st.sp) return nomem(v);
    vlatest *l = latest(v, o->set, block, true, &fail);
    if (fail) return nomem(v);
    /* The box, or each of its gap-free pieces (vop.has). */
    int64_t es = bir_dtype_size(o->op->set->dtype), pa, pb = 0, fa, fb;
    while (next_run(o->has[GAP_PART], g->p1 - g->p0, pb, &pa, &pb))
        for (fb = 0; next_run(o->has[GAP_FREE], (g->x1 - g->x0) / es, fb, &fa, &fb);) {
            int64_t p0 = g->p0 + pa, p1 = g->p0 + pb, x0 = g->x0 + fa * es, x1 = g->x0 + fb * es;
            if (!store_write(v, &st, p0, p1, x0, x1, val, o->in->index) ||
                !lat_def(v, l, (lentry){val, p0, p1, x0, x1}))
                return nomem(v);
            sba_status s = class_def(v, o->loc, &st, p0, p1, x0, x1, val);
            if (s != SBA_OK) return s;
        }
    l->last_loc = o->loc;
    v->rep->writes++;
    return SBA_OK;
}

/* Moves the bytes of (src, block) under dst's rectangle into (dst, block):
 * each gap-free piece of dst's write (vop.has) in turn. */
static sba_status copy_rect(verifier *v, const vop *dst, const xgeo *g, vstore ss, vstore ds);

static sba_status copy_block(verifier *v, const vop *src, const vop *dst, const xgeo *g, int64_t block)
{
    if (!writes_block(dst, g, block)) return SBA_OK;
    vstore ss = storage(v, src->loc, block), ds = storage(v, dst->loc, block);
    if (!ss.sp || !ds.sp) return nomem(v);
    v->rep->copies++;
    bool fail = false;
    vlatest *l = latest(v, dst->set, block, false, &fail);
    if (fail) return nomem(v);
    if (l) l->last_loc = dst->loc;
    if (ss.sp == ds.sp && ss.dp == ds.dp && ss.dx == ds.dx && ss.row == ds.row) return SBA_OK; /* the same bytes */
    int64_t es = bir_dtype_size(dst->op->set->dtype), pa, pb = 0, fa, fb;
    while (next_run(dst->has[GAP_PART], g->p1 - g->p0, pb, &pa, &pb))
        for (fb = 0; next_run(dst->has[GAP_FREE], (g->x1 - g->x0) / es, fb, &fa, &fb);) {
            xgeo r = *g;
            r.p0 = g->p0 + pa, r.p1 = g->p0 + pb, r.x0 = g->x0 + fa * es, r.x1 = g->x0 + fb * es;
            sba_status s = copy_rect(v, dst, &r, ss, ds);
            if (s != SBA_OK) return s;
        }
    return SBA_OK;
}

static sba_status copy_rect(verifier *v, const vop *dst, const xgeo *g, vstore ss, vstore ds)
{
    /* Rows of a linear source one at a time, so that every piece is a
     * rectangle of the tensor. */
    for (int64_t p = ss.row ? g->p0 : 0; p < (ss.row ? g->p1 : 1); p++) {
        vstore sv = ss.row ? store_row(&ss, p) : ss;
        int64_t p0 = ss.row ? p : g->p0, p1 = ss.row ? p + 1 : g->p1;
        v->pieces.n = 0;
        if (sba_vspace_scan(sv.sp, (uint32_t)(p0 + sv.dp), (uint32_t)(p1 + sv.dp), g->x0 + sv.dx, g->x1 + sv.dx,
                        collect_piece, v))
            return nomem(v);
        for (uint32_t i = 0; i < v->pieces.n; i++) {
            const vpiece pc = v->pieces.v[i];
            int64_t q0 = pc.p0 - sv.dp, q1 = pc.p1 - sv.dp, y0 = pc.x0 - sv.dx, y1 = pc.x1 - sv.dx;
            sba_status s;
            if (!store_write(v, &ds, q0, q1, y0, y1, pc.val, dst->in->index)) return nomem(v);
            if ((s = class_def(v, dst->loc, &ds, q0, q1, y0, y1, pc.val)) != SBA_OK) return s;
        }
    }
    return SBA_OK;
}

static int uniform_piece(void *ud, const vpiece *pc)
{
    uint32_t *u = ud;
    if (*u == UINT32_MAX) *u = pc->val;
    else if (*u != pc->val) *u = 0;
    return 0;
}

/* A move whose destination is exactly its source's bytes (coalesced
 * partners): the new value equals the source's when the source is one value. */
static uint32_t move_root(verifier *v, const vop *in, const xgeo *gi, const vop *out, const xgeo *go)
{
    const vloc_info *li = &v->locs[in->loc], *lo = &v->locs[out->loc];
    if (!li->sb || !lo->sb || gi->bcount != 1 || go->bcount != 1 || in->op->dtype != out->op->dtype)
        return 0;
    if (gi->p0 != go->p0 || gi->p1 != go->p1 || gi->x0 != go->x0 || gi->x1 != go->x1) return 0;
    vstore si = storage(v, in->loc, gi->b0), so = storage(v, out->loc, go->b0);
    if (si.dp != so.dp || si.dx != so.dx) return 0;
    uint32_t u = UINT32_MAX;
    sba_vspace_scan(si.sp, (uint32_t)(gi->p0 + si.dp), (uint32_t)(gi->p1 + si.dp), gi->x0 + si.dx, gi->x1 + si.dx,
                uniform_piece, &u);
    return u == UINT32_MAX || u == 0 ? 0 : v->values.v[u].root;
}

/* ---- library instructions ------------------------------------------------ */

/* The physical rectangle of one block of an operand in a shared space (SB or
 * placed PSUM); false for private and DRAM storage, which cannot overlap. */
static bool shared_rect(verifier *v, const vop *o, const xgeo *g, int64_t block, vspace **sp, rrect *r)
{
    const vloc_info *l = &v->locs[o->loc];
    if (!l->sb && !l->psum) return false;
    vstore st = storage(v, o->loc, block);
    *sp = st.sp;
    *r = (rrect){g->p0 + st.dp, g->p1 + st.dp, g->x0 + st.dx, g->x1 + st.dx};
    return true;
}

/* A GpSimd library instruction re-reads its inputs while it writes
 * (bir_opcode_rereads_inputs): no byte an out operand writes in this
 * execution may be one an in operand of another tensor reads. The program's
 * own in-place use of one tensor is not the placement's doing. Blocks repeat
 * their slot every live_n blocks, so live_n of them cover every slot. */
static sba_status check_library(verifier *v, const bir_inst *in)
{
    const vinst *vi = &v->insts[in->index];
    for (uint32_t k = vi->nins; k < vi->nins + vi->nouts; k++) {
        const vop *o = &v->ops[vi->op0 + k];
        const xgeo *go = &v->geo[k];
        int64_t no = go->bcount < v->locs[o->loc].n ? go->bcount : v->locs[o->loc].n;
        for (uint32_t j = 0; j < vi->nins; j++) {
            const vop *i = &v->ops[vi->op0 + j];
            const xgeo *gi = &v->geo[j];
            if (i->set == o->set) continue;
            int64_t ni = gi->bcount < v->locs[i->loc].n ? gi->bcount : v->locs[i->loc].n;
            for (int64_t a = 0; a < no; a++)
                for (int64_t b = 0; b < ni; b++) {
                    vspace *so, *si;
                    rrect ro, ri;
                    int64_t bo = go->b0 + a * go->bstep, bi = gi->b0 + b * gi->bstep;
                    if (!shared_rect(v, o, go, bo, &so, &ro) || !shared_rect(v, i, gi, bi, &si, &ri) || so != si)
                        continue;
                    rrect m = {imax(ro.p0, ri.p0), ro.p1 < ri.p1 ? ro.p1 : ri.p1, imax(ro.x0, ri.x0),
                               ro.x1 < ri.x1 ? ro.x1 : ri.x1};
                    if (m.p0 >= m.p1 || m.x0 >= m.x1) continue;
                    const vloc_info *lo = &v->locs[o->loc], *li = &v->locs[i->loc];
                    char path[256], ctx[512], src[96];
                    bir_inst_path(v->fn, in, o->op, path, sizeof path);
                    loop_context(v, in, ctx, sizeof ctx);
                    return sba_err_path(v->err, SBA_ERR_PROGRAM, path,
                                        "verify: library instruction \"%s\" (%s)%s writes tensor \"%s\" (%s location "
                                        "\"%s\") over its own input tensor \"%s\" (%s location \"%s\") at partitions "
                                        "[%lld, %lld) bytes [%lld, %lld): it re-reads its inputs while it writes, "
                                        "so its output must not overlap them%s",
                                        in->name, in->opcode_name, bir_inst_source(in, src, sizeof src),
                                        o->op->set->name, type_word(lo->loc->type), lo->loc->name,
                                        i->op->set->name, type_word(li->loc->type), li->loc->name,
                                        (long long)m.p0, (long long)m.p1, (long long)m.x0, (long long)m.x1, ctx);
                }
        }
    }
    return SBA_OK;
}

/* ---- one execution ------------------------------------------------------ */

static sba_status exec_inst(verifier *v, const bir_inst *in)
{
    const vinst *vi = &v->insts[in->index];
    uint32_t nops = vi->nins + vi->nouts;
    uint64_t steps = 1;
    for (uint32_t k = 0; k < nops; k++) {
        sba_status s = eval(v, &v->ops[vi->op0 + k], &v->geo[k]);
        if (s != SBA_OK) return s;
        steps = sat_add(steps, (uint64_t)v->geo[k].bcount - 1);
    }
    v->steps = sat_add(v->steps, steps);
    if (v->steps > v->max_steps)
        return sba_err(v->err, SBA_ERR_LIMIT,
                       "verify: function \"%s\" needs more than %llu simulation steps (instruction "
                       "executions and operand blocks)",
                       v->fn->name, (unsigned long long)v->max_steps);
    if (bir_opcode_rereads_inputs(in->opcode)) {
        sba_status s = check_library(v, in);
        if (s != SBA_OK) return s;
    }
    if (vi->kind != INST_COPY)
        for (uint32_t k = 0; k < vi->nins; k++) {
            const xgeo *g = &v->geo[k];
            for (int64_t b = 0; b < g->bcount; b++) {
                sba_status s = check_read(v, &v->ops[vi->op0 + k], g, g->b0 + b * g->bstep);
                if (s != SBA_OK) return s;
            }
        }
    uint32_t root = 0;
    if (vi->kind == INST_MOVE)
        root = move_root(v, &v->ops[vi->op0], &v->geo[0], &v->ops[vi->op0 + 1], &v->geo[1]);
    v->made.n = 0;
    for (uint32_t k = vi->nins; k < nops; k++) {
        const vop *o = &v->ops[vi->op0 + k];
        const xgeo *g = &v->geo[k];
        for (int64_t b = 0; b < g->bcount; b++) {
            int64_t block = g->b0 + b * g->bstep;
            const vop *src = NULL;
            for (uint32_t j = 0; vi->kind == INST_COPY && j < vi->nins && !src; j++)
                if (geo_has_block(&v->geo[j], block) && geo_contains(&v->geo[j], g)) src = &v->ops[vi->op0 + j];
            sba_status s = src ? copy_block(v, src, o, g, block) : def_block(v, o, g, block, root);
            if (s != SBA_OK) return s;
        }
    }
    return SBA_OK;
}

/* ---- the walk ------------------------------------------------------------ */

static int64_t iteration(const verifier *v, const frame *f)
{
    if (v->sampled && f->trip > SAMPLED_ITERATIONS && f->pos == SAMPLED_ITERATIONS - 1) return f->trip - 1;
    return f->pos;
}

static sba_status simulate(verifier *v)
{
    const bir_function *fn = v->fn;
    uint32_t nloops = 0;
    for (uint32_t i = 0; i < fn->ninsts; i++) nloops += fn->insts[i]->opcode == BIR_OP_LOOP;
    frame *fr = sba_arena_array(v->ar, (size_t)nloops + 1, sizeof *fr);
    if (!fr) return nomem(v);
    uint32_t nf = 0;
    fr[nf++] = (frame){NULL, fn->blocks, fn->nblocks, 0, 0, 0, 1, 1};
    while (nf) {
        frame *f = &fr[nf - 1];
        if (f->b == f->nblocks) {
            if (f->loop) {
                v->rep->points++; /* the loop end, once per iteration */
                v->rep->iterations++;
                /* Every iteration costs a step, so a long loop with nothing
                 * to simulate in it still ends within the budget. */
                v->steps = sat_add(v->steps, 1);
                if (v->steps > v->max_steps)
                    return sba_err(v->err, SBA_ERR_LIMIT,
                                   "verify: function \"%s\" needs more than %llu simulation steps (loop "
                                   "iterations, instruction executions and operand blocks)",
                                   v->fn->name, (unsigned long long)v->max_steps);
                if (++f->pos < f->count) {
                    f->b = f->i = 0;
                    v->iter[f->loop->index] = iteration(v, f);
                    continue;
                }
            }
            nf--;
            continue;
        }
        const bir_block *blk = f->blocks[f->b];
        if (f->i == blk->ninsts) {
            f->b++;
            f->i = 0;
            continue;
        }
        const bir_inst *in = blk->insts[f->i++];
        v->rep->points++;
        if (in->opcode == BIR_OP_LOOP) {
            int64_t trip = bir_loop_trip_count(in);
            int64_t count = v->sampled && trip > SAMPLED_ITERATIONS ? SAMPLED_ITERATIONS : trip;
            if (count == 0) continue;
            fr[nf++] = (frame){in, in->blocks, in->nblocks, 0, 0, 0, count, trip};
            v->iter[in->index] = 0;
            continue;
        }
        sba_status s = exec_inst(v, in);
        if (s != SBA_OK) return s;
    }
    return SBA_OK;
}

/* ---- setup ---------------------------------------------------------------- */


static sba_status index_sets(verifier *v)
{
    const bir_function *fn = v->fn;
    uint32_t nlocs = 0;
    for (uint32_t i = 0; i < fn->nsets; i++) nlocs += fn->sets[i]->nlocs;
    v->nsets = fn->nsets;
    v->nlocs = nlocs;
    v->sets = sba_arena_array(v->ar, (size_t)fn->nsets + 1, sizeof *v->sets);
    v->locs = sba_arena_array(v->ar, (size_t)nlocs + 1, sizeof *v->locs);
    v->lat_of = sba_arena_array(v->ar, (size_t)fn->nsets + 1, sizeof *v->lat_of);
    v->entry_of = sba_arena_array(v->ar, (size_t)fn->nsets + 1, sizeof *v->entry_of);
    v->priv_of = sba_arena_array(v->ar, (size_t)nlocs + 1, sizeof *v->priv_of);
    v->nloc_of = fn->nloc_index;
    v->loc_of = sba_arena_array(v->ar, (size_t)v->nloc_of + 1, sizeof *v->loc_of);
    if (!v->sets || !v->locs || !v->lat_of || !v->entry_of || !v->priv_of || !v->loc_of) return nomem(v);
    uint32_t li = 0;
    for (uint32_t i = 0; i < fn->nsets; i++) {
        const bir_set *s = fn->sets[i];
        vset_info *si = &v->sets[i];
        si->set = s;
        si->parts = bir_set_partitions(s);
        si->nblocks = bir_set_nblocks(s);
        si->bpb = bir_set_bytes_per_block(s);
        int64_t f = si->bpb / (int64_t)bir_dtype_size(s->dtype);
        si->entry = bir_tensor_kind_is_input(s->kind) || s->kind == BIR_TK_CONST;
        si->output = bir_tensor_kind_is_output(s->kind);
        si->cls = NO_LOC;
        if (si->parts < 1 || si->parts > UINT32_MAX || si->nblocks < 1 || si->bpb < 1 ||
            __builtin_mul_overflow(si->parts, f, &si->pf) || si->pf < 1)
            return sba_err(v->err, SBA_ERR_LIMIT,
                           "verify: tensor \"%s\" has a shape the verifier cannot simulate (%lld partitions "
                           "x %lld blocks x %lld bytes)",
                           s->name, (long long)si->parts, (long long)si->nblocks, (long long)si->bpb);
        for (uint32_t k = 0; k < s->nlocs; k++, li++) {
            vloc_info *l = &v->locs[li];
            l->loc = s->locs[k];
            l->set = i;
            l->set_pos = i;
            l->loc_pos = k;
            l->sb = l->loc->type == BIR_MEM_SB;
            l->psum = l->loc->type == BIR_MEM_PSUM && l->loc->has_bank && l->loc->addr != BIR_NO_ADDR;
            l->dram = l->loc->type == BIR_MEM_DRAM && l->loc->addr != BIR_NO_ADDR && !si->entry && !si->output;
            l->cls = NO_LOC;
            /* A location's index comes from the model: a duplicate or one out
             * of range is not trusted, and the location is then found by
             * pointer (find_loc). */
            if (l->loc->index < v->nloc_of && !v->loc_of[l->loc->index]) v->loc_of[l->loc->index] = li + 1;
        }
    }
    return SBA_OK;
}

static uint32_t class_root(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* The must-alias classes of the DRAM scratch locations: MustAlias edges
 * between them, transitively. A class of one location is none. */
static sba_status dram_classes(verifier *v)
{
    uint32_t *parent = sba_arena_array(v->ar, (size_t)v->nlocs + 1, sizeof *parent), *size;
    size = sba_arena_array(v->ar, (size_t)v->nlocs + 1, sizeof *size);
    if (!parent || !size) return nomem(v);
    for (uint32_t i = 0; i < v->nlocs; i++) parent[i] = i, size[i] = 0;
    for (uint32_t i = 0; i < v->nlocs; i++) {
        const bir_location *loc = v->locs[i].loc;
        for (uint32_t k = 0; v->locs[i].dram && k < loc->nalias; k++) {
            const bir_location *peer = bir_alias_peer(loc->alias[k]);
            uint32_t pi;
            if (!bir_alias_has(loc->alias[k], BIR_ALIAS_MUST) || !peer ||
                !find_loc(v, peer, &pi) || !v->locs[pi].dram)
                continue;
            uint32_t a = class_root(parent, i), b = class_root(parent, pi);
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
    }
    for (uint32_t i = 0; i < v->nlocs; i++)
        if (v->locs[i].dram) size[class_root(parent, i)]++;
    for (uint32_t i = 0; i < v->nlocs; i++) {
        vloc_info *l = &v->locs[i];
        uint32_t r = class_root(parent, i);
        if (!l->dram || size[r] < 2) continue;
        l->cls = r;
        if (v->sets[l->set].cls == NO_LOC) v->sets[l->set].cls = r;
    }
    return SBA_OK;
}

static bool is_memory(const bir_operand *op)
{
    return (op->kind == BIR_OPND_PHYSICAL_AP || op->kind == BIR_OPND_SYMBOLIC_AP) && op->set;
}

static bool moves_data(uint32_t opcode)
{
    return opcode == BIR_OP_TENSOR_COPY || opcode == BIR_OP_DMA_COPY || opcode == BIR_OP_DMA_LOAD ||
           opcode == BIR_OP_DMA_STORE;
}

/* For a write: the offsets one execution touches in each component, where
 * its pairs leave gaps in the footprint's range (o->has). Each pair moves one
 * component (a multiple of P × F the block, of F the partition, else the
 * free element); sorted by step, a pair whose step exceeds the length covered
 * so far leaves a gap, and then the offsets are enumerated. Without this a
 * strided write would count as a def of the bytes between its elements,
 * and a clobber of the older value there would go unseen. */
static sba_status write_gaps(verifier *v, vop *o)
{
    const vset_info *si = &v->sets[o->set];
    const bir_operand *op = o->op;
    int64_t unit[3] = {si->pf, si->pf / si->parts, 1};
    for (int c = 0; c < 3; c++) {
        int64_t k[8], n[8];
        uint32_t m = 0;
        for (uint32_t j = 0; j < op->ndims && j < 8; j++) {
            int64_t st = op->ap[j][0], num = op->ap[j][1], kk;
            if (num < 2 || st == 0) continue;
            int comp = j == 0 ? GAP_PART : st % unit[0] == 0 ? GAP_BLOCK : st % unit[1] == 0 ? GAP_PART : GAP_FREE;
            if (comp != c) continue;
            kk = j == 0 ? 1 : st / unit[c];
            k[m] = kk < 0 ? -kk : kk;
            n[m++] = num;
        }
        /* insertion sort by step, then the gap-free test */
        for (uint32_t a = 1; a < m; a++)
            for (uint32_t b = a; b > 0 && k[b - 1] > k[b]; b--) {
                int64_t t = k[b]; k[b] = k[b - 1]; k[b - 1] = t;
                t = n[b]; n[b] = n[b - 1]; n[b - 1] = t;
            }
        if (c == GAP_BLOCK && o->bstep != 1) continue; /* one block pair: the progression is exact */
        int64_t covered = 1, len;
        bool gap = false;
        for (uint32_t a = 0; a < m; a++) {
            gap |= k[a] > covered;
            if (__builtin_mul_overflow(k[a], n[a] - 1, &len) || __builtin_add_overflow(covered, len, &covered))
                covered = INT64_MAX;
        }
        if (!gap) continue;
        if (covered > GAP_MAX_SPAN)
            return sba_err(v->err, SBA_ERR_LIMIT,
                           "verify: instruction \"%s\" writes tensor \"%s\" with gaps over more than %d "
                           "elements, more than the verifier simulates",
                           o->in->name, op->set->name, GAP_MAX_SPAN);
        uint8_t *has = sba_arena_zalloc(v->ar, (size_t)covered);
        if (!has) return nomem(v);
        has[0] = 1;
        int64_t reach = 1;
        for (uint32_t a = 0; a < m; a++) {
            for (int64_t x = reach - 1; x >= 0; x--)
                if (has[x])
                    for (int64_t i = 1; i < n[a]; i++) has[x + i * k[a]] = 1;
            reach += k[a] * (n[a] - 1);
        }
        o->has[c] = has;
    }
    return SBA_OK;
}

/* Footprints and modes of one operand; the static checks of its location. */
static sba_status prepare_operand(verifier *v, const bir_inst *in, const bir_operand *op, vop *o)
{
    uint32_t si, li;
    if (!find_loc(v, op->loc, &li) || v->sets[si = v->locs[li].set].set != op->set)
        return sba_err(v->err, SBA_ERR_PROGRAM,
                       "verify: instruction \"%s\" names a location that is not in its tensor \"%s\"",
                       in->name, op->set->name);
    *o = (vop){.in = in, .op = op, .loc = li, .set = si};
    sba_status s = bir_operand_footprint(in, op, &o->whole, v->err);
    if (s != SBA_OK) return s;
    if (v->locs[li].sb) {
        if ((s = check_location(v, li, in)) != SBA_OK || (s = check_operand_base(v, o)) != SBA_OK) return s;
    } else if (v->locs[li].psum) {
        if ((s = check_psum_location(v, li)) != SBA_OK || (s = check_operand_base(v, o)) != SBA_OK) return s;
    } else if (v->locs[li].dram) {
        if ((s = check_dram_location(v, li)) != SBA_OK) return s;
    }
    o->first = o->whole;
    bool runs = true;
    for (uint32_t t = 0; t < op->nterms; t++) runs &= bir_loop_trip_count(op->terms[t].loop) > 0;
    if (op->nterms && runs) {
        if (!operand_offset(v, op, true, &o->off_first)) return overflow_error(v, o);
        bir_operand t = folded(op, o->off_first);
        if ((s = bir_operand_footprint(in, &t, &o->first, v->err)) != SBA_OK) return s;
        bool same = o->first.part_lo == o->whole.part_lo && o->first.part_hi == o->whole.part_hi &&
                    o->first.byte_lo == o->whole.byte_lo && o->first.byte_hi == o->whole.byte_hi;
        o->mode = same ? OP_SHIFT : OP_DYNAMIC;
    }
    block_progression(&v->sets[si], op, &o->first, &o->b0, &o->bstep, &o->bcount);
    return SBA_OK;
}

/* Steps of one execution of `in` (1 + the operands' extra blocks) and the
 * executions of it, exhaustive and sampled. */
static void inst_cost(const verifier *v, const bir_inst *in, uint64_t *ex, uint64_t *sa)
{
    const vinst *vi = &v->insts[in->index];
    uint64_t one = 1;
    for (uint32_t k = 0; k < vi->nins + vi->nouts; k++)
        one = sat_add(one, (uint64_t)v->ops[vi->op0 + k].bcount - 1);
    uint64_t me = 1, ms = 1;
    for (const bir_block *b = in->parent; b && b->loop; b = b->loop->parent) {
        uint64_t trip = (uint64_t)bir_loop_trip_count(b->loop);
        me = sat_mul(me, trip);
        ms = sat_mul(ms, trip < SAMPLED_ITERATIONS ? trip : SAMPLED_ITERATIONS);
    }
    *ex = sat_mul(me, one);
    *sa = sat_mul(ms, one);
}

static sba_status prepare(verifier *v, const sba_verify_options *opts)
{
    const bir_function *fn = v->fn;
    uint32_t nops = 0, maxops = 1;
    for (uint32_t i = 0; i < fn->ninsts; i++) {
        const bir_inst *in = fn->insts[i];
        uint32_t n = 0;
        for (uint32_t k = 0; k < in->nins; k++) n += is_memory(&in->ins[k]);
        for (uint32_t k = 0; k < in->nouts; k++) n += is_memory(&in->outs[k]);
        nops += n;
        if (n > maxops) maxops = n;
    }
    v->ops = sba_arena_array(v->ar, (size_t)nops + 1, sizeof *v->ops);
    v->insts = sba_arena_array(v->ar, (size_t)fn->ninsts + 1, sizeof *v->insts);
    v->geo = sba_arena_array(v->ar, maxops, sizeof *v->geo);
    v->iter = sba_arena_array(v->ar, (size_t)fn->ninsts + 1, sizeof *v->iter);
    if (!v->ops || !v->insts || !v->geo || !v->iter) return nomem(v);

    uint32_t at = 0;
    uint64_t cost_ex = 0, cost_sa = 0;
    for (uint32_t i = 0; i < fn->ninsts; i++) {
        const bir_inst *in = fn->insts[i];
        if (in->index != i)
            return sba_err(v->err, SBA_ERR_USAGE, "verify: function \"%s\" is not indexed (instruction \"%s\")",
                           fn->name, in->name);
        vinst *vi = &v->insts[i];
        vi->op0 = at;
        for (uint32_t k = 0; k < in->nins; k++) {
            if (!is_memory(&in->ins[k])) continue;
            sba_status s = prepare_operand(v, in, &in->ins[k], &v->ops[at++]);
            if (s != SBA_OK) return s;
            vi->nins++;
        }
        for (uint32_t k = 0; k < in->nouts; k++) {
            if (!is_memory(&in->outs[k])) continue;
            sba_status s = prepare_operand(v, in, &in->outs[k], &v->ops[at]);
            if (s == SBA_OK) s = write_gaps(v, &v->ops[at]);
            if (s != SBA_OK) return s;
            at++;
            vi->nouts++;
        }
        /* A copy moves a value between placements of one tensor (spill code);
         * an instruction that reads and writes the same placement updates it
         * in place, and its reads are checked like any other. */
        bool one_set = vi->nins && vi->nouts;
        for (uint32_t k = 1; k < vi->nins + vi->nouts; k++) one_set &= v->ops[vi->op0 + k].set == v->ops[vi->op0].set;
        for (uint32_t a = 0; a < vi->nins && one_set; a++)
            for (uint32_t b = 0; b < vi->nouts && one_set; b++)
                one_set = v->ops[vi->op0 + a].loc != v->ops[vi->op0 + vi->nins + b].loc;
        vi->kind = one_set ? INST_COPY
                   : moves_data(in->opcode) && vi->nins == 1 && vi->nouts == 1 ? INST_MOVE
                                                                               : INST_DEF;
        uint64_t ex, sa;
        inst_cost(v, in, &ex, &sa);
        if (in->opcode == BIR_OP_LOOP) {
            /* its end, once per iteration */
            uint64_t trip = (uint64_t)bir_loop_trip_count(in);
            ex = sat_mul(ex, trip);
            sa = sat_mul(sa, trip < SAMPLED_ITERATIONS ? trip : SAMPLED_ITERATIONS);
        }
        cost_ex = sat_add(cost_ex, ex);
        cost_sa = sat_add(cost_sa, sa);
    }

    v->max_steps = opts && opts->max_steps ? opts->max_steps : SBA_VERIFY_MAX_STEPS;
    if (cost_ex > v->max_steps) {
        if ((opts && opts->no_sampling) || cost_sa > v->max_steps)
            return sba_err(v->err, SBA_ERR_LIMIT,
                           "verify: function \"%s\" needs %llu simulation steps%s, more than the limit of %llu",
                           fn->name, (unsigned long long)(opts && opts->no_sampling ? cost_ex : cost_sa),
                           opts && opts->no_sampling ? "" : " even with long loops sampled",
                           (unsigned long long)v->max_steps);
        v->sampled = true;
        for (uint32_t i = 0; i < fn->ninsts; i++)
            if (fn->insts[i]->opcode == BIR_OP_LOOP && bir_loop_trip_count(fn->insts[i]) > SAMPLED_ITERATIONS)
                v->rep->sampled_loops++;
    }
    return SBA_OK;
}

/* Inputs and Const tensors placed in SB hold their entry values there. */
static sba_status seed_entries(verifier *v)
{
    for (uint32_t li = 0; li < v->nlocs; li++) {
        vloc_info *l = &v->locs[li];
        const vset_info *s = &v->sets[l->set];
        if (!(l->sb || l->psum) || !s->entry || l->loc->addr == BIR_NO_ADDR) continue;
        if (l->sb && l->loc->base == BIR_NO_BASE) continue;
        sba_status st = l->sb ? check_location(v, li, NULL) : check_psum_location(v, li);
        if (st != SBA_OK) return st;
        int64_t nb = l->n < s->nblocks ? l->n : s->nblocks;
        for (int64_t k = 0; k < nb; k++) {
            uint32_t e = entry_value(v, l->set, k);
            vstore sto = storage(v, li, k);
            if (!e || !store_write(v, &sto, 0, s->parts, 0, s->bpb, e, VSPACE_NO_WRITER)) return nomem(v);
        }
    }
    return SBA_OK;
}

/* At the end, every output's final value must still be where it was last
 * put (or in another of its locations). */
static sba_status check_exit(verifier *v)
{
    for (uint32_t i = 0; i < v->lat.n; i++) {
        const vlatest *l = &v->lat.v[i];
        if (!v->sets[l->set].output || l->last_loc == NO_LOC) continue;
        for (uint32_t k = 0; k < l->n; k++) {
            const lentry *e = &l->e[k];
            xgeo g = {e->p0, e->p1, e->x0, e->x1, l->block, 0, 1};
            rcheck c;
            bool skipped;
            int rc = read_block(v, l->last_loc, l->block, &g, &c, &skipped);
            if (rc < 0) return nomem(v);
            v->rep->reads++;
            v->rep->bytes += (uint64_t)(e->p1 - e->p0) * (uint64_t)(e->x1 - e->x0);
            if (rc == 0) continue;
            bool held = false;
            const bir_set *set = v->sets[l->set].set;
            for (uint32_t j = 0; j < set->nlocs && !held; j++) {
                uint32_t li;
                if (!find_loc(v, set->locs[j], &li) ||
                    li == l->last_loc ||
                    ((v->locs[li].sb || v->locs[li].psum || v->locs[li].dram) && !v->locs[li].checked))
                    continue;
                rcheck c2;
                int rc2 = read_block(v, li, l->block, &g, &c2, &skipped);
                if (rc2 < 0) return nomem(v);
                held = rc2 == 0;
            }
            if (held) continue;
            char subject[320];
            snprintf(subject, sizeof subject, "the end of function \"%s\"", v->fn->name);
            return read_error(v, &c, subject, "needs output tensor", NULL, NULL, l->last_loc, l->block);
        }
    }
    return SBA_OK;
}

/* ---- entry points ------------------------------------------------------- */

sba_status sba_verify_function(const bir_function *fn, const sba_verify_options *opts,
                               sba_verify_report *rep, sba_error *err)
{
    sba_error_clear(err);
    sba_verify_report scratch;
    if (!rep) {
        memset(&scratch, 0, sizeof scratch);
        rep = &scratch;
    }
    if (rep->functions == 0) rep->exhaustive = true;
    if (!fn || !fn->module)
        return sba_err(err, SBA_ERR_USAGE, "verify: a function of a loaded module is required");
    if (opts && opts->dram_page < 0)
        return sba_err(err, SBA_ERR_USAGE, "verify: dram_page must be positive, or 0 for %d; got %lld",
                       SBA_DEFAULT_DRAM_PAGE, (long long)opts->dram_page);
    sba_arena ar;
    sba_arena_init(&ar, fn->module->arena ? fn->module->arena->a : NULL);
    verifier v = {.fn = fn, .t = &fn->module->target, .err = err, .rep = rep, .ar = &ar,
                  .dram_page = opts && opts->dram_page ? opts->dram_page : SBA_DEFAULT_DRAM_PAGE};
    sba_vpool_init(&v.pool, &ar);
    sba_vmap_init(&v.map, &ar);
    int64_t page = imax(SB_PAGE_BYTES, (v.t->sbuf_bytes + SB_MAX_PAGES - 1) / SB_MAX_PAGES);
    sba_status s = SBA_OK;
    /* Value 0 is "never written" (VSPACE_NONE): its record is a placeholder. */
    int64_t psum_bytes = imax((int64_t)v.t->psum_banks * v.t->psum_bank_bytes, 1);
    if (!sba_vspace_init(&v.sb, &v.pool, 0, imax(v.t->sbuf_bytes, 1), v.t->partitions, VSPACE_NONE, page) ||
        !sba_vspace_init(&v.psum, &v.pool, 0, psum_bytes, v.t->partitions, VSPACE_NONE, SB_PAGE_BYTES) ||
        !SBA_VEC_PUSH(&ar, &v.values, ((vvalue){0, VSPACE_NO_WRITER, 0, -1})))
        s = nomem(&v);
    if (s == SBA_OK) s = index_sets(&v);
    if (s == SBA_OK) s = dram_classes(&v);
    if (s == SBA_OK) s = prepare(&v, opts);
    for (uint32_t as = 0; s == SBA_OK && as < BIR_AS_COUNT; as++) {
        int64_t end = v.dram_end[as];
        if (!sba_vspace_init(&v.dram[as], &v.pool, 0, imax(end, 1), 1, VSPACE_NONE,
                         imax(SB_PAGE_BYTES, end / SB_MAX_PAGES + 1)))
            s = nomem(&v);
    }
    if (s == SBA_OK) s = seed_entries(&v);
    if (s == SBA_OK) s = simulate(&v);
    if (s == SBA_OK) s = check_exit(&v);
    if (s == SBA_OK && ar.failed) s = nomem(&v);
    rep->functions++;
    rep->tensors += fn->nsets;
    rep->steps += v.steps;
    rep->segments += sba_vspace_segments(&v.sb);
    if (v.sampled) rep->exhaustive = false;
    sba_arena_free(&ar);
    return s;
}

/* Functions on several threads: each verifies into a report of its own,
 * and a function after the first failing one (in module order) is not
 * started, since a serial run would not reach it. */
typedef struct verify_jobs {
    const bir_module *m;
    const sba_verify_options *o;
    sba_verify_report *reps;
} verify_jobs;

static sba_status verify_one(void *ud, uint32_t f, sba_error *err)
{
    const verify_jobs *J = ud;
    return sba_verify_function(J->m->fns[f], J->o, &J->reps[f], err);
}

static sba_status verify_parallel(const bir_module *m, const sba_verify_options *opts, uint32_t jobs,
                                  sba_verify_report *rep, sba_error *err)
{
    const sba_allocator *a = m->arena ? m->arena->a : NULL;
    uint32_t n = m->nfns, failed_at;
    verify_jobs J = {.m = m, .o = opts, .reps = sba_malloc(a, (size_t)n * sizeof *J.reps)};
    if (!J.reps) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    memset(J.reps, 0, (size_t)n * sizeof *J.reps);
    sba_status st = sba_run_each(n, jobs, a, verify_one, &J, &failed_at, err);
    /* What a serial run would have reported: the functions up to the first
     * failing one, summed in order. */
    for (uint32_t f = 0; f < n && f <= failed_at; f++) {
        const sba_verify_report *r = &J.reps[f];
        rep->functions += r->functions;
        rep->tensors += r->tensors;
        rep->locations += r->locations;
        rep->psum_locations += r->psum_locations;
        rep->dram_locations += r->dram_locations;
        rep->points += r->points;
        rep->iterations += r->iterations;
        rep->steps += r->steps;
        rep->reads += r->reads;
        rep->bytes += r->bytes;
        rep->skipped_reads += r->skipped_reads;
        rep->writes += r->writes;
        rep->copies += r->copies;
        rep->values += r->values;
        rep->segments += r->segments;
        rep->sampled_loops += r->sampled_loops;
        rep->exhaustive = rep->exhaustive && r->exhaustive;
    }
    sba_free(a, J.reps);
    return st;
}

sba_status sba_verify_module_opts(const bir_module *m, const sba_verify_options *opts,
                                  sba_verify_report *rep, sba_error *err)
{
    sba_verify_report scratch;
    if (!rep) rep = &scratch;
    memset(rep, 0, sizeof *rep);
    rep->exhaustive = true;
    sba_error_clear(err);
    if (opts && opts->jobs > 1 && m->nfns > 1) return verify_parallel(m, opts, opts->jobs, rep, err);
    for (uint32_t i = 0; i < m->nfns; i++) {
        sba_status s = sba_verify_function(m->fns[i], opts, rep, err);
        if (s != SBA_OK) return s;
    }
    return SBA_OK;
}

sba_status sba_verify_module(const bir_module *m, sba_verify_report *rep, sba_error *err)
{
    return sba_verify_module_opts(m, NULL, rep, err);
}

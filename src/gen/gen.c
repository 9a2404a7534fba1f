/* gen: a seeded generator of realistic kernels, built through the model API.
 *
 * What. One function "kernel" made of stages. A stage is a loop nest
 * (loop_depth deep: outer tiling loops, then an inner accumulation loop)
 * around a tile body from one of four templates that real kernels are made
 * of:
 *   matmul   — double-buffered [2, K, M] / [2, K, N] bf16 operand tiles
 *              loaded per K step, two Matmults per step accumulating into a
 *              PSUM tile, evicted to SB by an Activation, stored to DRAM;
 *   accum    — an SB accumulator zeroed by Memset and updated in place by
 *              TensorTensor across the K loop, reduced, scaled, stored;
 *   softmax  — per row tile: reduce-max, subtract, exp, reduce-sum, divide;
 *   copy     — a TensorCopy chain of 0..4 links between a load and a store.
 * Tiles have real sizes: 32, 64 or 128 partitions (the heights mix) and 128
 * to 8192 bf16/fp32 elements per partition. DRAM tensors are block-tiled,
 * (B..., P, F) with one B dimension per loop axis that indexes them, and are
 * addressed through symbolic_ap terms; every access stays inside its tensor
 * by construction (docs/format.md, "Access patterns").
 *
 * Pressure. Long-lived SB tensors — a pool of resident weights and carried
 * results, a few of them pre-placed at fixed rectangles near the top of SB —
 * are loaded (DMALoad or Memset) and retired (DMAStore to a new
 * ExternalOutput) in a block that precedes each stage's nest, and are read
 * inside later stages' loops. A stage body is emitted first and its own peak
 * L measured on exactly what was emitted: each SB tensor of the body is live
 * from its first write to its last read, and across a whole loop when it is
 * read before it is written in that loop. The pool is then trimmed and
 * refilled to (stage target − L), the stage target being the full target
 * (pressure × capacity) on about a third of the stages and 40–99 % of it on
 * the others. So the live SB bytes per partition never exceed the target
 * (unless one stage alone does) and come within one small tile of it.
 *
 * Count. The function gets exactly o->tensors sets: every pool tensor
 * reserves the set of its future output; stages run while a whole stage
 * fits, then all pool tensors are retired and copy-chain fillers use up the
 * rest.
 *
 * Determinism. A splitmix64 stream seeded from the options makes every
 * choice; nothing depends on time, addresses or global state. Pressure is
 * computed in integers from one product of the options.
 *
 * Requires: nothing. Produces: a module with def-use lists built and
 * fn->insts in program order. Complexity: O(tensors) time and memory; the
 * per-stage work is bounded (at most MAX_REC program points, and the pool is
 * bounded by target / MIN_TILE_BYTES and in practice holds a few dozen). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "gen/heights.h"
#include "base/rng.h"
#include "sballoc/gen.h"
#include "sballoc/program.h"

enum {
    MAX_DEPTH = 8,           /* loop_depth limit */
    MAX_LOCAL = 16,          /* SB sets one stage body creates */
    MAX_REC = 64,            /* program points of one stage body */
    MAX_POOL = 8192,         /* long-lived tensors at once */
    PRE_SLOTS = 2,           /* fixed rectangles for pre-placed tensors */
    PRE_SLOT_BYTES = 8192,   /* bytes per partition of each slot */
    MAX_STAGE_SETS = 8,      /* sets of the largest template */
    MIN_FREE = 128,          /* smallest tile: 128 elements per partition */
    MAX_FREE = 8192,         /* largest tile: 8192 elements per partition */
    MAX_TILE_BYTES = 32768,  /* largest pool tile in bytes per partition */
    MIN_TILE_BYTES = 256,    /* smallest pool tile: 128 bf16 */
    MAX_WEIGHT = 1000000
};

#define MAX_TENSORS 100000000u
#define MAX_PRESSURE 8.0

/* ---- the random stream: splitmix64 ------------------------------------- */



/* Uniform in [0, n) for n >= 1 (multiply-shift; the bias is below 2^-32). */
static uint32_t rng_below(sba_rng *r, uint32_t n)
{
    return (uint32_t)(((sba_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* ---- state ------------------------------------------------------------- */

typedef struct pool_entry {
    bir_set *set;
    int64_t bytes;   /* bytes per partition */
    int32_t slot;    /* pre-placement slot, or -1 */
} pool_entry;

typedef struct rec_loop {
    bir_inst *loop;
    uint32_t header, end; /* program points within the stage body */
} rec_loop;

/* One stage: its blocks, its loop nest, and the program points of its body
 * (a header and an end per loop, one point per other instruction) for
 * measuring its own peak. */
typedef struct stage {
    char pfx[16];
    bir_block *pre, *body, *tile;
    int64_t hp;                      /* partitions of its tiles */
    bir_inst *outer[MAX_DEPTH];
    uint32_t nouter;
    bir_inst *inner;                 /* the accumulation loop; NULL at depth 0 */
    int64_t ktrip;                   /* its trip count; 1 at depth 0 */
    uint32_t depth;                  /* loops in the nest */
    bir_inst *rec[MAX_REC];
    uint32_t recpt[MAX_REC];
    uint32_t nrec, npoints;
    rec_loop loops[MAX_DEPTH];
    uint32_t nloops;
    bir_set *local[MAX_LOCAL];
    uint32_t nlocal;
    bir_inst *pool_read;             /* TensorTensor whose ins[1] reads a pool tensor */
    uint32_t npool_added;
} stage;

typedef struct gen {
    const sba_gen_options *o;
    bir_module *m;
    bir_function *fn;
    sba_arena *ar;
    sba_error *err;
    sba_rng r;
    uint32_t weight[3], wsum;        /* heights mix: 32, 64, 128 partitions */
    int64_t cap, target;             /* SB bytes per partition; pressure × cap */
    int64_t slot_addr[PRE_SLOTS];
    bool slot_used[PRE_SLOTS];
    pool_entry *pool;
    uint32_t npool;
    int64_t pool_bytes;
    uint32_t nstages;
    char name[96];
} gen;

static const char *const IMM_SCALE = "{\"kind\": \"imm_value\", \"value\": 0.5}";

/* ---- options ----------------------------------------------------------- */

/* Height class of a mix name: 0 quarter, 1 half, 2 full; -1 unknown. */
static int height_class(const char *s, size_t n)
{
    static const char *const names[3][3] = {
        {"q", "quarter", "32"}, {"h", "half", "64"}, {"f", "full", "128"}};
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            if (strlen(names[c][k]) == n && memcmp(names[c][k], s, n) == 0) return c;
    return -1;
}

sba_status sba_gen_parse_heights(const char *s, uint32_t w[3], sba_error *err)
{
    w[0] = w[1] = w[2] = 0;
    const char *p = s;
    for (;;) {
        size_t n = strcspn(p, ":,");
        int c = height_class(p, n);
        if (c < 0)
            return sba_err(err, SBA_ERR_USAGE, "heights \"%s\": unknown height \"%.*s\" (expected "
                           "q, h, f, quarter, half, full, 32, 64 or 128)", s, (int)n, p);
        p += n;
        uint64_t wt = 1;
        if (*p == ':') {
            p++;
            if (*p < '0' || *p > '9')
                return sba_err(err, SBA_ERR_USAGE, "heights \"%s\": expected a weight after ':'", s);
            for (wt = 0; *p >= '0' && *p <= '9'; p++) {
                wt = wt * 10 + (uint64_t)(*p - '0');
                if (wt > MAX_WEIGHT)
                    return sba_err(err, SBA_ERR_USAGE, "heights \"%s\": a weight exceeds %d", s,
                                   MAX_WEIGHT);
            }
        }
        w[c] += (uint32_t)wt;
        if (w[c] > MAX_WEIGHT)
            return sba_err(err, SBA_ERR_USAGE, "heights \"%s\": a weight exceeds %d", s, MAX_WEIGHT);
        if (*p == '\0') break;
        if (*p != ',')
            return sba_err(err, SBA_ERR_USAGE, "heights \"%s\": expected ',' or the end after \"%.*s\"",
                           s, (int)(p - s), s);
        p++;
    }
    if (w[0] + w[1] + w[2] == 0)
        return sba_err(err, SBA_ERR_USAGE, "heights \"%s\": every weight is zero", s);
    return SBA_OK;
}

static sba_status check_options(const sba_gen_options *o, uint32_t w[3], sba_error *err)
{
    if (o->tensors < 1 || o->tensors > MAX_TENSORS)
        return sba_err(err, SBA_ERR_USAGE, "tensors must be in 1..%u, got %u", MAX_TENSORS, o->tensors);
    if (o->functions > 4096)
        return sba_err(err, SBA_ERR_USAGE, "functions must be in 1..4096, got %u", o->functions);
    if ((uint64_t)o->tensors * (o->functions ? o->functions : 1) > MAX_TENSORS)
        return sba_err(err, SBA_ERR_USAGE, "tensors times functions must be at most %u", MAX_TENSORS);
    if (o->loop_depth > MAX_DEPTH)
        return sba_err(err, SBA_ERR_USAGE, "loop depth must be in 0..%d, got %u", MAX_DEPTH,
                       o->loop_depth);
    if (!(o->pressure > 0 && o->pressure <= MAX_PRESSURE))
        return sba_err(err, SBA_ERR_USAGE, "pressure must be in (0, %g], got %g", MAX_PRESSURE,
                       o->pressure);
    const sba_target *t = o->target;
    if (t && (t->partitions != 128 || t->sbuf_bytes < 4 * PRE_SLOT_BYTES || t->sbuf_align == 0 ||
              t->psum_banks == 0 || t->psum_bank_bytes < 2048))
        return sba_err(err, SBA_ERR_USAGE, "target \"%s\": the generator needs 128 partitions, at "
                       "least %d SB bytes per partition and PSUM banks of 2048 bytes",
                       t->name ? t->name : "?", 4 * PRE_SLOT_BYTES);
    return sba_gen_parse_heights(o->heights ? o->heights : "q:1,h:1,f:2", w, err);
}

/* ---- construction helpers --------------------------------------------- */

static uint32_t avail(const gen *g)
{
    /* Sets still free: each pool tensor holds one back for its output. */
    return g->o->tensors - g->fn->nsets - g->npool;
}

static int64_t pick_height(gen *g)
{
    uint32_t x = rng_below(&g->r, g->wsum);
    if (x < g->weight[0]) return 32;
    if (x < g->weight[0] + g->weight[1]) return 64;
    return 128;
}

/* The largest real free size whose estimated stage peak (est bytes per free
 * element) fits budget, sometimes one or two sizes smaller. */
static int64_t pick_free(gen *g, int64_t budget, int64_t est)
{
    int64_t f = MAX_FREE;
    while (f > MIN_FREE && f * est > budget) f /= 2;
    for (uint32_t k = rng_below(&g->r, 3); k > 0 && f > MIN_FREE; k--) f /= 2;
    return f;
}

/* A new set "<pfx>_<role>_set" with one location "<pfx>_<role>" of `type`,
 * shape (B..., P, F) with partition_dim at P. */
static bir_set *new_set(gen *g, const char *pfx, const char *role, uint32_t kind, uint32_t type,
                        uint32_t dtype, const int64_t *shape, uint32_t rank)
{
    snprintf(g->name, sizeof g->name, "%s_%s_set", pfx, role);
    bir_set *s = bir_set_add(g->fn, g->name, g->err);
    if (!s) return NULL;
    s->kind = kind;
    s->dtype = dtype;
    s->tensor_class = type == BIR_MEM_SB     ? BIR_TC_NEURON_SB_TENSOR
                      : type == BIR_MEM_PSUM ? BIR_TC_NEURON_PSUM_TENSOR
                                             : BIR_TC_TENSOR;
    s->rank = rank;
    s->partition_dim = (int32_t)rank - 2;
    s->shape = sba_arena_array(g->ar, rank, sizeof *s->shape);
    if (!s->shape) return sba_err(g->err, SBA_ERR_NOMEM, "out of memory"), NULL;
    memcpy(s->shape, shape, rank * sizeof *shape);
    snprintf(g->name, sizeof g->name, "%s_%s", pfx, role);
    if (!bir_location_add(s, g->name, type, g->err)) return NULL;
    if (bir_set_build_tensor_id_map(s, g->err) != SBA_OK) return NULL;
    return s;
}

static int64_t set_bytes(const bir_set *s) { return bir_set_nblocks(s) * bir_set_bytes_per_block(s); }

/* An internal SB tile of the stage body: [nblocks,] P, F. */
static bir_set *sb_set(gen *g, stage *st, const char *role, uint32_t dtype, int64_t nblocks,
                       int64_t p, int64_t f)
{
    int64_t shape[3] = {nblocks, p, f};
    bir_set *s = nblocks > 1 ? new_set(g, st->pfx, role, BIR_TK_INTERNAL, BIR_MEM_SB, dtype, shape, 3)
                             : new_set(g, st->pfx, role, BIR_TK_INTERNAL, BIR_MEM_SB, dtype, shape + 1, 2);
    if (s) {
        if (st->nlocal == MAX_LOCAL) return sba_err(g->err, SBA_ERR_LIMIT, "stage too large"), NULL;
        st->local[st->nlocal++] = s;
    }
    return s;
}

static bir_set *psum_set(gen *g, stage *st, const char *role, int64_t p, int64_t f)
{
    int64_t shape[2] = {p, f};
    return new_set(g, st->pfx, role, BIR_TK_INTERNAL, BIR_MEM_PSUM, BIR_DT_FLOAT32, shape, 2);
}

/* A block-tiled DRAM tensor: one B dimension per outer loop, then one of
 * ktrip × kmul blocks when it is indexed by the inner loop too. */
static bir_set *dram_set(gen *g, stage *st, const char *role, uint32_t kind, uint32_t dtype,
                         int64_t p, int64_t f, bool with_k, int64_t kmul)
{
    int64_t shape[MAX_DEPTH + 3];
    uint32_t r = 0;
    for (uint32_t i = 0; i < st->nouter; i++) shape[r++] = bir_loop_trip_count(st->outer[i]);
    if (with_k) shape[r++] = st->ktrip * kmul;
    shape[r++] = p;
    shape[r++] = f;
    return new_set(g, st->pfx, role, kind, BIR_MEM_DRAM, dtype, shape, r);
}

/* Adds an instruction "<pfx>_<role>" with room for nins reads and nouts
 * writes. In a stage body (rec) it takes the next program point. */
static bir_inst *new_inst(gen *g, stage *st, bool rec, bir_block *b, const char *role,
                          uint32_t opcode, uint32_t engine, uint32_t nins, uint32_t nouts)
{
    snprintf(g->name, sizeof g->name, "%s_%s", st->pfx, role);
    bir_inst *in = bir_inst_add(g->fn, b, g->name, opcode, g->err);
    if (!in) return NULL;
    in->engine = engine;
    if (nins && !(in->ins = sba_arena_array(g->ar, nins, sizeof *in->ins))) goto nomem;
    if (nouts && !(in->outs = sba_arena_array(g->ar, nouts, sizeof *in->outs))) goto nomem;
    in->nins = nins;
    in->nouts = nouts;
    if (rec) {
        if (st->npoints >= MAX_REC) return sba_err(g->err, SBA_ERR_LIMIT, "stage too large"), NULL;
        st->rec[st->nrec] = in;
        st->recpt[st->nrec++] = st->npoints++;
    }
    return in;
nomem:
    sba_err(g->err, SBA_ERR_NOMEM, "out of memory");
    return NULL;
}

/* Opens a loop over [0, trip) in block b of the stage body; returns its body. */
static bir_block *open_loop(gen *g, stage *st, bir_block *b, const char *role, int64_t trip,
                            bir_inst **out)
{
    bir_inst *in = new_inst(g, st, true, b, role, BIR_OP_LOOP, BIR_ENG_UNASSIGNED, 0, 0);
    if (!in) return NULL;
    in->axis = (bir_loop_axis){in->name, 0, trip, 1};
    st->loops[st->nloops++] = (rec_loop){in, st->recpt[st->nrec - 1], 0};
    snprintf(g->name, sizeof g->name, "%s_body", in->name);
    *out = in;
    return bir_block_add(g->fn, in, g->name, g->err);
}

static void close_loop(stage *st, const bir_inst *loop)
{
    for (uint32_t i = 0; i < st->nloops; i++)
        if (st->loops[i].loop == loop) st->loops[i].end = st->npoints++;
}

/* Rows [p0, p0+np) and free elements [f0, f0+nf) of block blk0 + Σ
 * bcoeff[t] × axis(loops[t]) of set: offset, the partition pair [F, np], the
 * free pair [1, nf], and a term of bcoeff × P × F elements per loop. */
static bool access(gen *g, bir_operand *op, bir_set *set, int64_t blk0, uint32_t nterms,
                   bir_inst *const *loops, const int64_t *bcoeff, int64_t p0, int64_t np, int64_t f0,
                   int64_t nf)
{
    int64_t p = bir_set_partitions(set), f = set->shape[set->rank - 1];
    op->kind = nterms ? BIR_OPND_SYMBOLIC_AP : BIR_OPND_PHYSICAL_AP;
    op->set = set;
    op->loc = set->locs[0];
    op->dtype = set->dtype;
    op->offset = (blk0 * p + p0) * f + f0;
    op->ap = sba_arena_array(g->ar, 2, sizeof *op->ap);
    if (!op->ap) return sba_err(g->err, SBA_ERR_NOMEM, "out of memory"), false;
    op->ndims = 2;
    op->ap[0][0] = f;
    op->ap[0][1] = np;
    op->ap[1][0] = 1;
    op->ap[1][1] = nf;
    if (nterms) {
        op->terms = sba_arena_array(g->ar, nterms, sizeof *op->terms);
        if (!op->terms) return sba_err(g->err, SBA_ERR_NOMEM, "out of memory"), false;
        for (uint32_t t = 0; t < nterms; t++) op->terms[t] = (bir_term){loops[t], bcoeff[t] * p * f};
        op->nterms = nterms;
    }
    return true;
}

/* The whole of block blk of an on-chip tile. */
static bool tile(gen *g, bir_operand *op, bir_set *set, int64_t blk)
{
    return access(g, op, set, blk, 0, NULL, NULL, 0, bir_set_partitions(set), 0,
                  set->shape[set->rank - 1]);
}

/* The tile of a block-tiled DRAM tensor for the current iteration: block
 * (outer indices..., kmul × k + j), outer axes first. */
static bool dram_tile(gen *g, stage *st, bir_operand *op, bir_set *set, bool with_k, int64_t kmul,
                      int64_t j)
{
    bir_inst *loops[MAX_DEPTH + 1];
    int64_t co[MAX_DEPTH + 1];
    uint32_t n = 0;
    int64_t stride = with_k ? st->ktrip * kmul : 1;
    for (uint32_t i = st->nouter; i-- > 0;) {
        loops[n] = st->outer[i];
        co[n++] = stride;
        stride *= bir_loop_trip_count(st->outer[i]);
    }
    /* Outer axes first, as a reader expects. */
    for (uint32_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) {
        bir_inst *tl = loops[a];
        loops[a] = loops[b];
        loops[b] = tl;
        int64_t tc = co[a];
        co[a] = co[b];
        co[b] = tc;
    }
    if (with_k && st->inner) {
        loops[n] = st->inner;
        co[n++] = kmul;
    }
    return access(g, op, set, with_k ? j : 0, n, loops, co, 0, bir_set_partitions(set), 0,
                  set->shape[set->rank - 1]);
}

/* ---- stage bodies -------------------------------------------------------- */

static bir_block *open_inner(gen *g, stage *st)
{
    if (st->depth == 0) return st->tile;
    return open_loop(g, st, st->tile, "k", st->ktrip, &st->inner);
}

static void close_inner(stage *st)
{
    if (st->inner) close_loop(st, st->inner);
}

/* t = t (op) pool tensor, in place: the pool tensor is bound after the pool
 * has been adjusted (bind_pool_read). */
static bool pool_op(gen *g, stage *st, bir_block *b, bir_set *t)
{
    bir_inst *in = new_inst(g, st, true, b, "bias", BIR_OP_TENSOR_TENSOR, BIR_ENG_DVE, 2, 1);
    if (!in || !tile(g, &in->ins[0], t, 0) || !tile(g, &in->outs[0], t, 0)) return false;
    st->pool_read = in;
    return true;
}

/* Activation / TensorCopy / DMA etc. of whole tiles: one read, one write. */
static bir_inst *unary(gen *g, stage *st, bir_block *b, const char *role, uint32_t opcode,
                       uint32_t engine, bir_set *src, bir_set *dst)
{
    bir_inst *in = new_inst(g, st, true, b, role, opcode, engine, 1, 1);
    if (!in || !tile(g, &in->ins[0], src, 0) || !tile(g, &in->outs[0], dst, 0)) return NULL;
    return in;
}

/* dst = f(a, b) elementwise or with a per-partition scalar b. */
static bir_inst *binary(gen *g, stage *st, bir_block *blk, const char *role, uint32_t opcode,
                        bir_set *a, bir_set *b, bir_set *dst)
{
    bir_inst *in = new_inst(g, st, true, blk, role, opcode, BIR_ENG_DVE, 2, 1);
    if (!in || !tile(g, &in->ins[0], a, 0) || !tile(g, &in->ins[1], b, 0) ||
        !tile(g, &in->outs[0], dst, 0))
        return NULL;
    return in;
}

static bir_inst *load(gen *g, stage *st, bir_block *b, const char *role, bir_set *src, bool with_k,
                      int64_t kmul, int64_t j, bir_set *dst, int64_t blk)
{
    bir_inst *in = new_inst(g, st, true, b, role, BIR_OP_DMA_LOAD, BIR_ENG_DMA, 1, 1);
    if (!in || !dram_tile(g, st, &in->ins[0], src, with_k, kmul, j) || !tile(g, &in->outs[0], dst, blk))
        return NULL;
    return in;
}

static bir_inst *store(gen *g, stage *st, bir_block *b, const char *role, bir_set *src,
                       bir_set *dst, bool with_k)
{
    bir_inst *in = new_inst(g, st, true, b, role, BIR_OP_DMA_STORE, BIR_ENG_DMA, 1, 1);
    if (!in || !tile(g, &in->ins[0], src, 0) || !dram_tile(g, st, &in->outs[0], dst, with_k, 1, 0))
        return NULL;
    return in;
}

static uint32_t pick_dtype(gen *g) { return rng_below(&g->r, 2) ? BIR_DT_BFLOAT16 : BIR_DT_FLOAT32; }

/* C[M, N] += A^T[K, M]^T B[K, N] over the K loop, two K tiles per step. */
static bool tmpl_matmul(gen *g, stage *st, int64_t budget)
{
    (void)budget; /* operand tiles are bounded by the PE array, not the budget */
    int64_t hp = st->hp, n = MIN_FREE << rng_below(&g->r, 3); /* ≤ 512 fp32: one PSUM bank */
    bir_set *A = dram_set(g, st, "A", BIR_TK_EXTERNAL_INPUT, BIR_DT_BFLOAT16, hp, hp, true, 2);
    bir_set *B = A ? dram_set(g, st, "B", BIR_TK_EXTERNAL_INPUT, BIR_DT_BFLOAT16, hp, n, true, 2) : NULL;
    bir_set *aT = B ? sb_set(g, st, "aT", BIR_DT_BFLOAT16, 2, hp, hp) : NULL;
    bir_set *b = aT ? sb_set(g, st, "b", BIR_DT_BFLOAT16, 2, hp, n) : NULL;
    bir_set *ps = b ? psum_set(g, st, "ps", hp, n) : NULL;
    bir_set *c = ps ? sb_set(g, st, "c", pick_dtype(g), 1, hp, n) : NULL;
    bir_set *C = c ? dram_set(g, st, "C", BIR_TK_EXTERNAL_OUTPUT, c->dtype, hp, n, false, 1) : NULL;
    if (!C) return false;
    bir_block *kb = open_inner(g, st);
    if (!kb) return false;
    static const char *const lda[2] = {"ldA0", "ldA1"}, *const ldb[2] = {"ldB0", "ldB1"},
                             *const mm[2] = {"mm0", "mm1"};
    for (int j = 0; j < 2; j++)
        if (!load(g, st, kb, lda[j], A, true, 2, j, aT, j) || !load(g, st, kb, ldb[j], B, true, 2, j, b, j))
            return false;
    for (int j = 0; j < 2; j++) {
        bir_inst *in = new_inst(g, st, true, kb, mm[j], BIR_OP_MATMULT, BIR_ENG_PE, 2, 1);
        if (!in || !tile(g, &in->ins[0], aT, j) || !tile(g, &in->ins[1], b, j) ||
            !tile(g, &in->outs[0], ps, 0))
            return false;
    }
    close_inner(st);
    return unary(g, st, st->tile, "evict", BIR_OP_ACTIVATION, BIR_ENG_ACT, ps, c) &&
           pool_op(g, st, st->tile, c) && store(g, st, st->tile, "stC", c, C, false);
}

/* acc = 0; for k: acc += exp(x_k); y = acc / rowsum(acc). */
static bool tmpl_accum(gen *g, stage *st, int64_t budget)
{
    int64_t hp = st->hp, f = pick_free(g, budget, 10);
    bir_set *X = dram_set(g, st, "X", BIR_TK_EXTERNAL_INPUT, BIR_DT_BFLOAT16, hp, f, true, 1);
    bir_set *acc = X ? sb_set(g, st, "acc", BIR_DT_FLOAT32, 1, hp, f) : NULL;
    bir_set *x = acc ? sb_set(g, st, "x", BIR_DT_BFLOAT16, 1, hp, f) : NULL;
    bir_set *e = x ? sb_set(g, st, "e", BIR_DT_FLOAT32, 1, hp, f) : NULL;
    bir_set *s = e ? sb_set(g, st, "s", BIR_DT_FLOAT32, 1, hp, 1) : NULL;
    bir_set *y = s ? sb_set(g, st, "y", BIR_DT_BFLOAT16, 1, hp, f) : NULL;
    bir_set *Y = y ? dram_set(g, st, "Y", BIR_TK_EXTERNAL_OUTPUT, BIR_DT_BFLOAT16, hp, f, false, 1) : NULL;
    if (!Y) return false;
    bir_inst *z = new_inst(g, st, true, st->tile, "zero", BIR_OP_MEMSET, BIR_ENG_POOL, 0, 1);
    if (!z || !tile(g, &z->outs[0], acc, 0)) return false;
    bir_block *kb = open_inner(g, st);
    if (!kb || !load(g, st, kb, "ldX", X, true, 1, 0, x, 0) ||
        !unary(g, st, kb, "exp", BIR_OP_ACTIVATION, BIR_ENG_ACT, x, e) ||
        !binary(g, st, kb, "acc", BIR_OP_TENSOR_TENSOR, acc, e, acc))
        return false;
    close_inner(st);
    return unary(g, st, st->tile, "sum", BIR_OP_TENSOR_REDUCE, BIR_ENG_DVE, acc, s) &&
           binary(g, st, st->tile, "norm", BIR_OP_TENSOR_SCALAR, acc, s, y) &&
           pool_op(g, st, st->tile, y) && store(g, st, st->tile, "stY", y, Y, false);
}

/* Per row tile k: y = exp(x - max(x)) / sum(...). */
static bool tmpl_softmax(gen *g, stage *st, int64_t budget)
{
    int64_t hp = st->hp, f = pick_free(g, budget, 12);
    bir_set *X = dram_set(g, st, "X", BIR_TK_EXTERNAL_INPUT, BIR_DT_BFLOAT16, hp, f, true, 1);
    bir_set *x = X ? sb_set(g, st, "x", BIR_DT_BFLOAT16, 1, hp, f) : NULL;
    bir_set *mx = x ? sb_set(g, st, "max", BIR_DT_FLOAT32, 1, hp, 1) : NULL;
    bir_set *xs = mx ? sb_set(g, st, "xs", BIR_DT_FLOAT32, 1, hp, f) : NULL;
    bir_set *ex = xs ? sb_set(g, st, "ex", BIR_DT_FLOAT32, 1, hp, f) : NULL;
    bir_set *l = ex ? sb_set(g, st, "sum", BIR_DT_FLOAT32, 1, hp, 1) : NULL;
    bir_set *y = l ? sb_set(g, st, "y", BIR_DT_BFLOAT16, 1, hp, f) : NULL;
    bir_set *Y = y ? dram_set(g, st, "Y", BIR_TK_EXTERNAL_OUTPUT, BIR_DT_BFLOAT16, hp, f, true, 1) : NULL;
    if (!Y) return false;
    bir_block *kb = open_inner(g, st);
    if (!kb) return false;
    if (!load(g, st, kb, "ldX", X, true, 1, 0, x, 0) ||
        !unary(g, st, kb, "rmax", BIR_OP_TENSOR_REDUCE, BIR_ENG_DVE, x, mx) ||
        !binary(g, st, kb, "sub", BIR_OP_TENSOR_SCALAR, x, mx, xs) ||
        !unary(g, st, kb, "exp", BIR_OP_ACTIVATION, BIR_ENG_ACT, xs, ex) ||
        !unary(g, st, kb, "rsum", BIR_OP_TENSOR_REDUCE, BIR_ENG_DVE, ex, l) ||
        !binary(g, st, kb, "div", BIR_OP_TENSOR_SCALAR, ex, l, y) || !pool_op(g, st, kb, y))
        return false;
    bir_inst *sy = new_inst(g, st, true, kb, "stY", BIR_OP_DMA_STORE, BIR_ENG_DMA, 1, 1);
    if (!sy || !tile(g, &sy->ins[0], y, 0) || !dram_tile(g, st, &sy->outs[0], Y, true, 1, 0)) return false;
    close_inner(st);
    return true;
}

/* Per tile k: load, `links` TensorCopies, store. */
static bool tmpl_copy(gen *g, stage *st, int64_t budget, uint32_t links)
{
    static const uint32_t copy_engines[3] = {BIR_ENG_ACT, BIR_ENG_DVE, BIR_ENG_POOL};
    int64_t hp = st->hp, f = pick_free(g, budget, 8);
    bir_set *X = dram_set(g, st, "X", BIR_TK_EXTERNAL_INPUT, pick_dtype(g), hp, f, true, 1);
    bir_set *cur = X ? sb_set(g, st, "t0", X->dtype, 1, hp, f) : NULL;
    if (!cur) return false;
    bir_block *kb = open_inner(g, st);
    if (!kb || !load(g, st, kb, "ldX", X, true, 1, 0, cur, 0)) return false;
    char role[16];
    for (uint32_t i = 1; i <= links; i++) {
        snprintf(role, sizeof role, "t%u", i);
        bir_set *next = sb_set(g, st, role, pick_dtype(g), 1, hp, f);
        snprintf(role, sizeof role, "cp%u", i);
        if (!next || !unary(g, st, kb, role, BIR_OP_TENSOR_COPY, copy_engines[rng_below(&g->r, 3)], cur, next))
            return false;
        cur = next;
    }
    bir_set *Y = dram_set(g, st, "Y", BIR_TK_EXTERNAL_OUTPUT, cur->dtype, hp, f, true, 1);
    if (!Y || !pool_op(g, st, kb, cur)) return false;
    bir_inst *sy = new_inst(g, st, true, kb, "stY", BIR_OP_DMA_STORE, BIR_ENG_DMA, 1, 1);
    if (!sy || !tile(g, &sy->ins[0], cur, 0) || !dram_tile(g, st, &sy->outs[0], Y, true, 1, 0)) return false;
    close_inner(st);
    return true;
}

/* The last zero, one or two sets: t = 0; then t *= 0.5, or u = copy(t). No loops. */
static bool tmpl_tail(gen *g, stage *st, uint32_t sets)
{
    if (sets == 0) return true;
    bir_set *t = sb_set(g, st, "t", BIR_DT_BFLOAT16, 1, st->hp, 2 * MIN_FREE);
    bir_inst *z = t ? new_inst(g, st, true, st->tile, "zero", BIR_OP_MEMSET, BIR_ENG_POOL, 0, 1) : NULL;
    if (!z || !tile(g, &z->outs[0], t, 0)) return false;
    if (sets == 2) {
        bir_set *u = sb_set(g, st, "u", BIR_DT_BFLOAT16, 1, st->hp, 2 * MIN_FREE);
        return u && unary(g, st, st->tile, "cp", BIR_OP_TENSOR_COPY, BIR_ENG_ACT, t, u);
    }
    bir_inst *in = new_inst(g, st, true, st->tile, "scale", BIR_OP_TENSOR_SCALAR, BIR_ENG_ACT, 2, 1);
    if (!in || !tile(g, &in->ins[0], t, 0) || !tile(g, &in->outs[0], t, 0)) return false;
    in->ins[1] = (bir_operand){.kind = BIR_OPND_OTHER, .kind_name = "imm_value", .raw = IMM_SCALE};
    return true;
}

/* ---- the stage's own peak ---------------------------------------------- */

static int local_index(const stage *st, const bir_set *s)
{
    for (uint32_t i = 0; i < st->nlocal; i++)
        if (st->local[i] == s) return (int)i;
    return -1;
}

/* Peak of live bytes per partition of the body's own SB tensors: each is live
 * from its first write to its last access, widened to [header, end] of every
 * loop in which its first access is a read. */
static int64_t stage_peak(const stage *st)
{
    uint32_t lo[MAX_LOCAL], hi[MAX_LOCAL];
    bool seen[MAX_LOCAL];
    for (uint32_t i = 0; i < st->nlocal; i++) {
        lo[i] = UINT32_MAX;
        hi[i] = 0;
    }
    for (uint32_t r = 0; r < st->nrec; r++) {
        const bir_inst *in = st->rec[r];
        for (int w = 0; w < 2; w++)
            for (uint32_t k = 0; k < (w ? in->nouts : in->nins); k++) {
                int i = local_index(st, (w ? in->outs : in->ins)[k].set);
                if (i < 0) continue;
                if (lo[i] == UINT32_MAX) lo[i] = st->recpt[r];
                if (st->recpt[r] > hi[i]) hi[i] = st->recpt[r];
            }
    }
    for (uint32_t l = 0; l < st->nloops; l++) {
        const rec_loop *L = &st->loops[l];
        memset(seen, 0, sizeof seen);
        for (uint32_t r = 0; r < st->nrec; r++) {
            if (st->recpt[r] <= L->header || st->recpt[r] >= L->end) continue;
            const bir_inst *in = st->rec[r];
            for (int w = 0; w < 2; w++)
                for (uint32_t k = 0; k < (w ? in->nouts : in->nins); k++) {
                    int i = local_index(st, (w ? in->outs : in->ins)[k].set);
                    if (i < 0 || seen[i]) continue;
                    seen[i] = true;
                    if (w == 0) {
                        if (L->header < lo[i]) lo[i] = L->header;
                        if (L->end > hi[i]) hi[i] = L->end;
                    }
                }
        }
    }
    int64_t delta[MAX_REC + MAX_DEPTH + 1] = {0};
    for (uint32_t i = 0; i < st->nlocal; i++) {
        if (lo[i] == UINT32_MAX) continue;
        delta[lo[i]] += set_bytes(st->local[i]);
        delta[hi[i] + 1] -= set_bytes(st->local[i]);
    }
    int64_t live = 0, peak = 0;
    for (uint32_t p = 0; p < st->npoints; p++) {
        live += delta[p];
        if (live > peak) peak = live;
    }
    return peak;
}

/* ---- the pool of long-lived tensors ------------------------------------ */

/* DMAStore pool[i] to a new ExternalOutput; its reserved set is used here. */
static bool pool_retire(gen *g, stage *st, uint32_t i)
{
    pool_entry e = g->pool[i];
    const char *ln = e.set->locs[0]->name;
    /* Named after the tensor, so it is unique whatever stage retires it. */
    bir_set *out = new_set(g, ln, "out", BIR_TK_EXTERNAL_OUTPUT, BIR_MEM_DRAM, e.set->dtype,
                           e.set->shape, e.set->rank);
    if (!out) return false;
    snprintf(g->name, sizeof g->name, "%s_store", ln);
    bir_inst *in = bir_inst_add(g->fn, st->pre, g->name, BIR_OP_DMA_STORE, g->err);
    if (!in || !(in->ins = sba_arena_array(g->ar, 1, sizeof *in->ins)) ||
        !(in->outs = sba_arena_array(g->ar, 1, sizeof *in->outs)))
        return in ? (sba_err(g->err, SBA_ERR_NOMEM, "out of memory"), false) : false;
    in->engine = BIR_ENG_DMA;
    in->nins = in->nouts = 1;
    if (!tile(g, &in->ins[0], e.set, 0) || !tile(g, &in->outs[0], out, 0)) return false;
    if (e.slot >= 0) g->slot_used[e.slot] = false;
    g->pool_bytes -= e.bytes;
    g->pool[i] = g->pool[--g->npool];
    return true;
}

/* Loads or zeroes a new long-lived tensor of at most `gap` bytes per
 * partition; sometimes pre-placed in a free slot. False with no error when
 * nothing fits. */
static bool pool_add(gen *g, stage *st, int64_t gap, bool *added)
{
    *added = false;
    int64_t hp = pick_height(g);
    uint32_t dt = pick_dtype(g);
    int64_t lim = gap < MAX_TILE_BYTES ? gap : MAX_TILE_BYTES;
    if (lim < MIN_FREE * (int64_t)bir_dtype_size(dt)) dt = BIR_DT_BFLOAT16;
    int64_t ds = bir_dtype_size(dt);
    if (lim < MIN_FREE * ds) return true;
    int64_t f = MAX_FREE;
    while (f * ds > lim) f /= 2;
    for (uint32_t k = rng_below(&g->r, 3); k > 0 && f > MIN_FREE; k--) f /= 2;
    bool pre = f * ds <= PRE_SLOT_BYTES && rng_below(&g->r, 6) == 0;
    int32_t slot = -1;
    for (int32_t s = 0; pre && s < PRE_SLOTS && slot < 0; s++)
        if (!g->slot_used[s]) slot = s;
    bool from_dram = rng_below(&g->r, 4) != 0;
    uint32_t need = from_dram ? 3 : 2;
    if (avail(g) < need || g->npool == MAX_POOL) return true;

    char role[16];
    snprintf(role, sizeof role, "p%u", st->npool_added++);
    int64_t shape[2] = {hp, f};
    bir_set *p = new_set(g, st->pfx, role, BIR_TK_INTERNAL, BIR_MEM_SB, dt, shape, 2);
    if (!p) return false;
    if (slot >= 0) {
        static const int32_t bases[3][4] = {{0, 32, 64, 96}, {0, 64, 0, 64}, {0, 0, 0, 0}};
        p->locs[0]->addr = g->slot_addr[slot];
        p->locs[0]->base = bases[hp == 32 ? 0 : hp == 64 ? 1 : 2][rng_below(&g->r, 4)];
        g->slot_used[slot] = true;
    }
    snprintf(role, sizeof role, "p%u_%s", st->npool_added - 1, from_dram ? "load" : "init");
    bir_inst *in;
    if (from_dram) {
        char src[24];
        snprintf(src, sizeof src, "p%u_src", st->npool_added - 1);
        bir_set *d = new_set(g, st->pfx, src, BIR_TK_EXTERNAL_INPUT, BIR_MEM_DRAM, dt, shape, 2);
        if (!d || !(in = new_inst(g, st, false, st->pre, role, BIR_OP_DMA_LOAD, BIR_ENG_DMA, 1, 1)) ||
            !tile(g, &in->ins[0], d, 0))
            return false;
    } else if (!(in = new_inst(g, st, false, st->pre, role, BIR_OP_MEMSET, BIR_ENG_POOL, 0, 1))) {
        return false;
    }
    if (!tile(g, &in->outs[0], p, 0)) return false;
    g->pool[g->npool++] = (pool_entry){p, f * ds, slot};
    g->pool_bytes += f * ds;
    *added = true;
    return true;
}

/* The stage's share of the target: the full target on the first stage and
 * on a third of the others, a valley of 40–60 % on one in twelve, 80–99 %
 * otherwise. */
static int64_t stage_target(gen *g)
{
    uint32_t u = rng_below(&g->r, 12);
    if (u < 4 || g->nstages == 1) return g->target;
    if (u == 4) return g->target / 100 * (40 + rng_below(&g->r, 21));
    return g->target / 100 * (80 + rng_below(&g->r, 20));
}

/* Retires some pool tensors (churn, and whatever exceeds the stage's room),
 * then refills the pool up to the room: target − local peak. */
static bool adjust_pool(gen *g, stage *st, int64_t local_peak)
{
    int64_t room = stage_target(g) - local_peak;
    if (room < 0) room = 0;
    for (uint32_t i = 0; i < g->npool;) {
        if (rng_below(&g->r, 8) == 0) {
            if (!pool_retire(g, st, i)) return false;
        } else {
            i++;
        }
    }
    while (g->pool_bytes > room && g->npool)
        if (!pool_retire(g, st, rng_below(&g->r, g->npool))) return false;
    while (room - g->pool_bytes >= MIN_TILE_BYTES) {
        bool added;
        if (!pool_add(g, st, room - g->pool_bytes, &added)) return false;
        if (!added) break;
    }
    return true;
}

/* Binds the stage's in-place TensorTensor to a pool tensor of the same
 * height, or turns it into a TensorScalar by an immediate when none is. */
static bool bind_pool_read(gen *g, stage *st)
{
    bir_inst *in = st->pool_read;
    if (!in) return true;
    uint32_t pick = UINT32_MAX, seen = 0;
    for (uint32_t i = 0; i < g->npool; i++)
        if (bir_set_partitions(g->pool[i].set) == st->hp && rng_below(&g->r, ++seen) == 0) pick = i;
    if (pick == UINT32_MAX) {
        in->opcode = BIR_OP_TENSOR_SCALAR;
        in->opcode_name = bir_opcode_name(BIR_OP_TENSOR_SCALAR);
        in->ins[1] = (bir_operand){.kind = BIR_OPND_OTHER, .kind_name = "imm_value", .raw = IMM_SCALE};
        return true;
    }
    bir_set *p = g->pool[pick].set;
    int64_t nf = in->ins[0].ap[1][1], pf = p->shape[p->rank - 1];
    if (pf < nf) nf = pf;
    in->ins[0].ap[1][1] = nf;
    in->outs[0].ap[1][1] = nf;
    return access(g, &in->ins[1], p, 0, 0, NULL, NULL, 0, st->hp, 0, nf);
}

/* ---- stages ------------------------------------------------------------ */

enum { T_MATMUL, T_ACCUM, T_SOFTMAX, T_COPY, T_TAIL };

/* One stage: the pre block, the nest and its body, then the pool adjusted
 * around the body's own peak. `final` retires the whole pool first. */
static bool run_stage(gen *g, uint32_t tmpl, uint32_t links, bool final)
{
    stage *st = &(stage){0};
    uint32_t id = g->nstages++;
    snprintf(st->pfx, sizeof st->pfx, "s%u", id);
    snprintf(g->name, sizeof g->name, "s%u_pre", id);
    if (!(st->pre = bir_block_add(g->fn, NULL, g->name, g->err))) return false;
    if (!(st->body = bir_block_add(g->fn, NULL, st->pfx, g->err))) return false;
    st->hp = pick_height(g);
    st->depth = tmpl == T_TAIL ? 0 : g->o->loop_depth;
    bir_block *b = st->body;
    char role[16];
    for (uint32_t i = 0; i + 1 < st->depth; i++) {
        snprintf(role, sizeof role, "o%u", i);
        if (!(b = open_loop(g, st, b, role, 2 + rng_below(&g->r, 3), &st->outer[i]))) return false;
        st->nouter++;
    }
    st->tile = b;
    st->ktrip = st->depth ? 2 + rng_below(&g->r, 7) : 1;
    int64_t budget = g->target / 100 * (8 + rng_below(&g->r, 28));
    if (final)
        while (g->npool)
            if (!pool_retire(g, st, g->npool - 1)) return false;
    bool ok;
    switch (tmpl) {
    case T_MATMUL: ok = tmpl_matmul(g, st, budget); break;
    case T_ACCUM: ok = tmpl_accum(g, st, budget); break;
    case T_SOFTMAX: ok = tmpl_softmax(g, st, budget); break;
    case T_COPY: ok = tmpl_copy(g, st, budget, links); break;
    default: ok = tmpl_tail(g, st, links); break;
    }
    if (!ok) return false;
    for (uint32_t i = st->nouter; i-- > 0;) close_loop(st, st->outer[i]);
    if (!final && !adjust_pool(g, st, stage_peak(st))) return false;
    return bind_pool_read(g, st);
}

/* Rewrites fn->insts in program order (pre blocks were filled after the
 * bodies they precede) and renumbers inst->index. */
static uint32_t renumber(bir_function *fn, bir_block *const *blocks, uint32_t nblocks, uint32_t next)
{
    for (uint32_t b = 0; b < nblocks; b++)
        for (uint32_t i = 0; i < blocks[b]->ninsts; i++) {
            bir_inst *in = blocks[b]->insts[i];
            in->index = next;
            fn->insts[next++] = in;
            if (in->opcode == BIR_OP_LOOP) next = renumber(fn, in->blocks, in->nblocks, next);
        }
    return next;
}

static bool build(gen *g, const char *fn_name)
{
    if (!(g->fn = bir_function_add(g->m, fn_name, g->err))) return false;
    g->pool = sba_arena_array(g->ar, MAX_POOL, sizeof *g->pool);
    if (!g->pool) return sba_err(g->err, SBA_ERR_NOMEM, "out of memory"), false;
    int64_t top = g->cap / g->m->target.sbuf_align * g->m->target.sbuf_align;
    for (int s = 0; s < PRE_SLOTS; s++) g->slot_addr[s] = top - (int64_t)(s + 1) * PRE_SLOT_BYTES;

    while (avail(g) >= MAX_STAGE_SETS) {
        uint32_t tmpl = rng_below(&g->r, 4), links = rng_below(&g->r, 5);
        if (!run_stage(g, tmpl, links, false)) return false;
    }
    /* The rest: the first final stage retires the whole pool, then copy
     * chains of 3 to 7 sets and a tail of 1 or 2 use up what is left. */
    for (bool first = true; avail(g) > 0 || g->npool; first = false) {
        uint32_t left = avail(g);
        uint32_t tmpl = left >= 3 ? T_COPY : T_TAIL;
        uint32_t links = left >= 3 ? (left - 3 < 4 ? left - 3 : 4) : left;
        if (!run_stage(g, tmpl, links, first)) return false;
    }
    if (g->fn->nsets != g->o->tensors)
        return sba_err(g->err, SBA_ERR_LIMIT, "generated %u sets instead of %u", g->fn->nsets,
                       g->o->tensors), false;
    renumber(g->fn, g->fn->blocks, g->fn->nblocks, 0);
    return bir_function_build_def_use(g->fn, g->err) == SBA_OK;
}

/* ---- entry points ------------------------------------------------------ */

void sba_gen_defaults(sba_gen_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->tensors = 100;
    o->loop_depth = 2;
    o->heights = "q:1,h:1,f:2";
    o->pressure = 0.7;
    o->target = NULL;
}

bir_module *sba_gen_module(const sba_gen_options *o, const sba_allocator *a, sba_error *err)
{
    gen g = {.o = o, .err = err};
    if (check_options(o, g.weight, err) != SBA_OK) return NULL;
    g.wsum = g.weight[0] + g.weight[1] + g.weight[2];
    g.m = bir_module_new(a);
    if (!g.m) return sba_err(err, SBA_ERR_NOMEM, "out of memory"), NULL;
    g.ar = g.m->arena;
    const sba_target *t = o->target ? o->target : sba_target_preset("trn2");
    if (bir_module_set_target(g.m, t, err) != SBA_OK) {
        bir_module_free(g.m);
        return NULL;
    }
    g.cap = t->sbuf_bytes;
    g.target = (int64_t)floor(o->pressure * (double)t->sbuf_bytes);
    /* Function i is the one-function module of seed + i, renamed. */
    uint32_t nfns = o->functions ? o->functions : 1;
    bool ok = true;
    for (uint32_t i = 0; i < nfns && ok; i++) {
        gen gi = g;
        memset(gi.slot_used, 0, sizeof gi.slot_used);
        gi.r.s = (o->seed + i) ^ 0x5BA110C5EEDull;
        char fn_name[32];
        snprintf(fn_name, sizeof fn_name, nfns > 1 ? "kernel_%u" : "kernel", i);
        ok = build(&gi, fn_name);
    }
    if (!ok || bir_module_failed(g.m)) {
        if (bir_module_failed(g.m)) sba_err(err, SBA_ERR_NOMEM, "out of memory");
        bir_module_free(g.m);
        return NULL;
    }
    return g.m;
}

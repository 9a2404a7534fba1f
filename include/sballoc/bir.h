/* sballoc — the BIR memory-location model (seed 003) and the program that uses it.
 *
 * A module holds functions; a function holds memory-location sets (logical
 * tensors, "allocations" on the wire) and blocks of instructions. A set owns one
 * or more memory locations, each one physical placement of the tensor. Sets and
 * locations share a storage base with the reader and writer lists.
 *
 * Ownership: everything reachable from a bir_module lives in the module's arena
 * and is freed by bir_module_free(). Pointers stay valid until then. */
#ifndef SBALLOC_BIR_H
#define SBALLOC_BIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sballoc/export.h"
#include "sballoc/error.h"

#ifdef __cplusplus
extern "C" {
#endif
SBA_API_BEGIN

/* ---- enumerations ------------------------------------------------------ */

/* MemoryType: power-of-two flags as in the seed; a location has exactly one. */
typedef enum bir_memory_type {
    BIR_MEM_UNALLOCATED = 1,
    BIR_MEM_INPUT = 2,
    BIR_MEM_OUTPUT = 4,
    BIR_MEM_DRAM = 8,
    BIR_MEM_SB = 16,
    BIR_MEM_PSUM = 32,
    BIR_MEM_RNGSTATE = 64,
    BIR_MEM_REG = 128
} bir_memory_type;

/* Name of a memory type, or NULL for a value that is not one ("Unknown memory type"). */
const char *bir_memory_type_name(uint32_t type);
/* Parses a name; returns false for an unknown one. */
bool bir_memory_type_parse(const char *name, uint32_t *out);
/* Only DRAM, SB and PSUM hold placements. */
bool bir_memory_type_placeable(uint32_t type);

/* MemoryAddressSpace: a DRAM-only attribute of the set. */
typedef enum bir_addr_space {
    BIR_AS_LOCAL = 0,
    BIR_AS_SHARED = 1,
    BIR_AS_DEBUG = 2,
    BIR_AS_COUNT
} bir_addr_space;

const char *bir_addr_space_name(uint32_t as);
bool bir_addr_space_parse(const char *name, uint32_t *out);

/* TensorClass: the 13 classes of the public model; NeuronWeightTensor = 3 as
 * the seed anchors it, the rest in the public model's order. */
typedef enum bir_tensor_class {
    BIR_TC_TENSOR = 0,
    BIR_TC_LOOP_TENSOR,
    BIR_TC_NEURON_TENSOR,
    BIR_TC_NEURON_WEIGHT_TENSOR, /* = 3 */
    BIR_TC_IDENTITY_WEIGHT_TENSOR,
    BIR_TC_NEURON_BLOCK_TENSOR,
    BIR_TC_DRAM_2D_BLOCK_TENSOR,
    BIR_TC_NEURON_3D_BLOCK_TENSOR,
    BIR_TC_DRAM_3D_BLOCK_TENSOR,
    BIR_TC_NEURON_LOCAL_TENSOR,
    BIR_TC_NEURON_SB_TENSOR,
    BIR_TC_NEURON_PSUM_TENSOR,
    BIR_TC_SINGLE_VALUE_TENSOR,
    BIR_TC_COUNT
} bir_tensor_class;

const char *bir_tensor_class_name(uint32_t tc);
bool bir_tensor_class_parse(const char *name, uint32_t *out);

/* TensorKind: the I/O role. 0..2 are inputs, 3..5 outputs (seed order). */
typedef enum bir_tensor_kind {
    BIR_TK_EXTERNAL_INPUT = 0,
    BIR_TK_EXTERNAL_INPUT_PARAMETER,
    BIR_TK_INPUT,
    BIR_TK_EXTERNAL_OUTPUT,
    BIR_TK_EXTERNAL_OUTPUT_PARAMETER,
    BIR_TK_OUTPUT,
    BIR_TK_CONST,
    BIR_TK_INTERNAL,
    BIR_TK_POINTER,
    BIR_TK_INTERNAL_INTERFACE,
    BIR_TK_COUNT
} bir_tensor_kind;

const char *bir_tensor_kind_name(uint32_t k);
bool bir_tensor_kind_parse(const char *name, uint32_t *out);
/* The seed's group predicates: k<=1, k<=2, (k-3)<=1, (k-3)<=2 (unsigned). */
bool bir_tensor_kind_is_external_input(uint32_t k);
bool bir_tensor_kind_is_input(uint32_t k);
bool bir_tensor_kind_is_external_output(uint32_t k);
bool bir_tensor_kind_is_output(uint32_t k);

/* Element types, with their sizes in bytes. */
typedef enum bir_dtype {
    BIR_DT_FLOAT32 = 0,
    BIR_DT_BFLOAT16,
    BIR_DT_FLOAT16,
    BIR_DT_FLOAT8_E4M3,
    BIR_DT_FLOAT8_E5M2,
    BIR_DT_INT8,
    BIR_DT_UINT8,
    BIR_DT_INT16,
    BIR_DT_UINT16,
    BIR_DT_INT32,
    BIR_DT_UINT32,
    BIR_DT_INT64,
    BIR_DT_UINT64,
    BIR_DT_FLOAT64,
    /* The compiler's own spellings (its BIR dumps): float8e4 and float8e5 are
     * float8_e4m3 and float8_e5m2 under another name, kept so that a dump is
     * written back as it was read; bool is one byte. */
    BIR_DT_FLOAT8E4,
    BIR_DT_FLOAT8E5,
    BIR_DT_BOOL,
    BIR_DT_COUNT
} bir_dtype;

const char *bir_dtype_name(uint32_t dt);
bool bir_dtype_parse(const char *name, uint32_t *out);
uint32_t bir_dtype_size(uint32_t dt);
/* The *_near_miss functions: the known name that `name` spells but for letter
 * case ("DmaLoad" -> "DMALoad"), NULL when none or when name is known. */
const char *bir_dtype_near_miss(const char *name);

/* Engines of the public model, then the compiler's own spellings of them
 * (its BIR dumps say "DVE" where the public model says "dve"), and ALL, an
 * instruction that orders every engine (a barrier). Each spelling is its own
 * value so that a module is written back as it was read; bir_engine_unit
 * gives the engine a spelling stands for. */
typedef enum bir_engine {
    BIR_ENG_UNASSIGNED = 0,
    BIR_ENG_ACT,
    BIR_ENG_DMA,
    BIR_ENG_DVE,
    BIR_ENG_PE,
    BIR_ENG_POOL,
    BIR_ENG_SP,
    BIR_ENG_CC_UNASSIGNED,   /* "Unassigned" */
    BIR_ENG_CC_ACTIVATION,   /* "Activation" */
    BIR_ENG_CC_PE,           /* "PE" */
    BIR_ENG_CC_DVE,          /* "DVE" */
    BIR_ENG_CC_POOL,         /* "Pool" */
    BIR_ENG_CC_SP,           /* "SP" */
    BIR_ENG_ALL,             /* "ALL" */
    BIR_ENG_COUNT
} bir_engine;

const char *bir_engine_name(uint32_t e);
bool bir_engine_parse(const char *name, uint32_t *out);
/* The engine a spelling stands for: BIR_ENG_UNASSIGNED .. BIR_ENG_SP, or
 * BIR_ENG_ALL; BIR_ENG_COUNT for a value that is not an engine. */
uint32_t bir_engine_unit(uint32_t e);
const char *bir_engine_near_miss(const char *name);

/* Opcodes. Matmult = 8 and Loop = 105 as in seed 000; the rest are ours
 * (docs/format.md lists them). BIR_OP_OTHER keeps an opcode this table does not
 * know: it is treated as a generic instruction that reads ins and writes outs. */
typedef enum bir_opcode {
    BIR_OP_OTHER = 0,
    BIR_OP_DMA_LOAD = 1,
    BIR_OP_DMA_STORE = 2,
    BIR_OP_DMA_COPY = 3,
    BIR_OP_TENSOR_COPY = 4,
    BIR_OP_TENSOR_TENSOR = 5,
    BIR_OP_TENSOR_SCALAR = 6,
    BIR_OP_ACTIVATION = 7,
    BIR_OP_MATMULT = 8,
    BIR_OP_TRANSPOSE = 9,
    BIR_OP_MEMSET = 10,
    BIR_OP_TENSOR_REDUCE = 11,
    BIR_OP_ITERATOR = 12,
    /* GpSimd library instructions (ours too): see bir_opcode_rereads_inputs */
    BIR_OP_GATHER = 20,
    BIR_OP_NONZERO_WITH_COUNT = 21,
    BIR_OP_NONZERO = 22,
    BIR_OP_LOCAL_GATHER = 23,
    BIR_OP_MAX8 = 24,
    BIR_OP_TOPK = 25,
    BIR_OP_MATCH_REPLACE8 = 26,
    BIR_OP_RANGE_SELECT = 27,
    BIR_OP_MAX_INDEX8 = 28,
    BIR_OP_LOOP = 105
} bir_opcode;

const char *bir_opcode_name(uint32_t op);        /* NULL when not in the table */
bool bir_opcode_parse(const char *name, uint32_t *out);
/* The GpSimd library instructions (Gather, NonzeroWithCount, Nonzero,
 * LocalGather, Max8, TopK, MatchReplace8, RangeSelect, MaxIndex8): the device
 * runs them in pieces that re-read their inputs while writing, so an output
 * placed over one of the instruction's own inputs corrupts the result. The
 * allocator never coalesces or overlaps them; the verifier refuses it. */
bool bir_opcode_rereads_inputs(uint32_t op);

/* Which spelling a module was read in. The compiler's own (its BIR dumps) is
 * recognised by a spelling only it uses: an engine or dtype name of its own,
 * an operand naming only its location (memref), a repeated instruction name,
 * or a top-level "queues". Such a module is written back in its spelling:
 * only the keys it had, plus the placements allocation fills. */
typedef enum bir_spelling {
    BIR_SPELLING_SBALLOC = 0,
    BIR_SPELLING_COMPILER,
    BIR_SPELLING_COUNT
} bir_spelling;

const char *bir_spelling_name(uint32_t s);

/* Keys an object was read without (bir_*.omitted): a module in the
 * compiler's spelling is written back without them when they still hold
 * their defaults. Objects made through the API omit nothing. */
enum {
    BIR_OMIT_VERSION = 1u << 0,       /* module */
    BIR_OMIT_ALLOCATIONS = 1u << 1,   /* function */
    BIR_OMIT_BLOCKS = 1u << 2,        /* function */
    BIR_OMIT_KIND = 1u << 3,          /* set: kind; operand: kind */
    BIR_OMIT_TENSOR_CLASS = 1u << 4,  /* set */
    BIR_OMIT_PARTITION_DIM = 1u << 5, /* set */
    BIR_OMIT_ADDR_SPACE = 1u << 6,    /* set */
    BIR_OMIT_TENSOR_ID = 1u << 7,     /* location */
    BIR_OMIT_ALLOCATED = 1u << 8,     /* location */
    BIR_OMIT_INSTRUCTIONS = 1u << 9,  /* block */
    BIR_OMIT_ENGINE = 1u << 10,       /* instruction */
    BIR_OMIT_INS = 1u << 11,          /* instruction */
    BIR_OMIT_OUTS = 1u << 12,         /* instruction */
    BIR_OMIT_MEMSETREF = 1u << 13,    /* operand */
    BIR_OMIT_MEMREF = 1u << 14,       /* operand */
    BIR_OMIT_DTYPE = 1u << 15,        /* operand */
    BIR_OMIT_OFFSET = 1u << 16        /* operand */
};
const char *bir_opcode_near_miss(const char *name);

/* ---- objects ----------------------------------------------------------- */

typedef struct bir_module bir_module;
typedef struct bir_function bir_function;
typedef struct bir_set bir_set;           /* MemoryLocationSet */
typedef struct bir_location bir_location; /* MemoryLocation */
typedef struct bir_block bir_block;
typedef struct bir_inst bir_inst;
typedef struct bir_operand bir_operand;

/* One access of a storage: the instruction and the operand's index in its
 * ins (reads) or outs (writes). */
typedef struct bir_access {
    bir_inst *inst;
    uint32_t operand;
} bir_access;

/* The storage base shared by sets and locations (StorageBase). */
typedef struct bir_storage {
    bir_access *readers;
    uint32_t nreaders, capreaders;
    bir_access *writers;
    uint32_t nwriters, capwriters;
    bool user_allocated;
} bir_storage;

/* AliasPtr: the peer location's pointer in the high bits and a 3-bit kind mask
 * in the low three bits of one 64-bit word. */
typedef uint64_t bir_alias_ptr;

enum { BIR_ALIAS_MAY = 1, BIR_ALIAS_MUST = 3, BIR_ALIAS_KIND_BITS = 3 };

/* alloc_flags: placements the spill code made, whose ranges are already minimal. */
enum { BIR_LOC_RELOAD_TEMP = 1u << 0, BIR_LOC_SPILLED_DEF = 1u << 1, BIR_LOC_SPILL_HOME = 1u << 2 };

/* Unknown / absent values of optional placement fields. */
#define BIR_NO_ADDR (-1)
#define BIR_NO_BASE (-1)
#define BIR_NO_ID (-1)

/* One opaque key of the input that the model does not interpret, kept so that
 * nothing the user gave is lost: its key and its compact JSON text. */
typedef struct bir_extra {
    const char *key;
    const char *json;
} bir_extra;

typedef struct bir_extras {
    bir_extra *v;
    uint32_t n;
} bir_extras;

/* Fields are ordered widest first: a module holds one of these per placement,
 * so every 8 bytes are 1 MB at 100,000 tensors. The flags that need fewer
 * bits are bytes, so that the whole is 192 bytes, a multiple of the arena's
 * 16-byte alignment (200 bytes took 208). */
struct bir_location {
    bir_storage storage;
    const char *name;
    bir_set *set;            /* the owning set */
    int64_t addr;            /* byte address (per partition); BIR_NO_ADDR when unplaced */
    int64_t bank;            /* PSUM bank, signed as in the seed */
    int64_t tensor_id;       /* >= 0; index of this placement in its set */
    int64_t var_id, table_entry_id, memloc_set_id; /* BIR_NO_ID when absent */
    uint64_t unique_id;      /* from the module-wide counter */
    int64_t dims[2];         /* [partitions, bytes per partition]; has_dims */
    int64_t live_n;          /* physical blocks; 0 when not recorded */
    bir_alias_ptr *alias;    /* sorted by the peer's unique_id */
    bir_extras extras;
    int32_t base;            /* base partition; BIR_NO_BASE when unplaced */
    int32_t pack_id_hint;    /* PSUM only; -1 by default */
    uint32_t nalias, capalias;
    uint32_t index;          /* dense in its function, in creation order: 0 .. fn->nloc_index - 1 */
    uint32_t omitted;        /* BIR_OMIT_* */
    uint8_t type;            /* bir_memory_type (a single bit of the low eight) */
    uint8_t alloc_flags;     /* allocator-owned: BIR_LOC_* below; not saved */
    bool has_bank;
    bool allocated;
    bool pinned;
    bool has_dims;
};
/* Ordered so that the small fields share words: 160 bytes, no padding. */
struct bir_set {
    bir_storage storage;
    const char *name;
    bir_function *fn;
    int64_t *shape;
    uint64_t unique_id;
    bir_location **locs;     /* in insertion order */
    bir_location **by_tensor_id; /* tensorId2MemLoc; NULL holes */
    struct sba_strmap *loc_by_name; /* the name -> placement table */
    const char *src_name;    /* debug.tensor_name: the kernel's name for it; NULL when absent */
    bir_extras extras;
    uint32_t dtype;          /* bir_dtype */
    int32_t partition_dim;   /* index into shape */
    uint32_t tensor_class;   /* bir_tensor_class */
    uint32_t kind;           /* bir_tensor_kind */
    uint32_t addr_space;     /* bir_addr_space */
    uint32_t nlocs, caplocs;
    uint32_t n_by_tensor_id;
    uint32_t omitted;        /* BIR_OMIT_* */
    uint16_t rank;           /* dimensions of shape: at most 16 load (docs/format.md) */
    bool allocated;          /* mirrored from its locations */
};
/* An access pattern operand (physical_ap / symbolic_ap) or a carried-through
 * non-memory operand. */
typedef enum bir_operand_kind {
    BIR_OPND_PHYSICAL_AP = 0,
    BIR_OPND_SYMBOLIC_AP,
    BIR_OPND_OTHER,          /* register_ap, imm_value, ...: kept as raw JSON */
    BIR_OPND_COUNT
} bir_operand_kind;

/* A term of a symbolic offset: coeff × the loop's axis value. */
typedef struct bir_term {
    bir_inst *loop;
    int64_t coeff;
} bir_term;

struct bir_operand {
    uint32_t kind;           /* bir_operand_kind */
    uint32_t dtype;
    const char *kind_name;   /* the wire tag, for BIR_OPND_OTHER */
    bir_set *set;            /* memsetref */
    bir_location *loc;       /* memref */
    int64_t offset;          /* in elements */
    int64_t (*ap)[2];        /* [step, num] pairs, partition pair first */
    bir_term *terms;         /* symbolic_ap only */
    const char *raw;         /* BIR_OPND_OTHER: the whole operand as JSON */
    bir_extras extras;
    uint16_t ndims;          /* at most 8 (docs/format.md) */
    uint16_t nterms;         /* at most 4096 load (X015); 16 bits each: 88 bytes, not 96 */
    uint32_t omitted;        /* BIR_OMIT_* */
};

typedef struct bir_loop_axis {
    const char *name;
    int64_t lb, ub, stride;
} bir_loop_axis;

struct bir_inst {
    const char *name;
    const char *opcode_name; /* the wire name (kept for BIR_OP_OTHER) */
    bir_operand *ins;
    bir_operand *outs;
    bir_block *parent;       /* the block holding this instruction */
    int64_t src_line;        /* debug.lineno: the kernel source line; -1 when absent */
    int64_t time;            /* "time" (has_time): the step it runs at in the time of the
                                problem it comes from (import-csv: t of def@t and use@t),
                                never decreasing in program order */
    bool has_time;
    const char *src_op;      /* debug.op_name, e.g. "nl.exp"; NULL when absent */
    bir_extras extras;
    uint32_t opcode;         /* bir_opcode */
    uint32_t engine;         /* bir_engine */
    uint32_t nins;
    uint32_t nouts;
    uint32_t index;          /* position in the function's instruction list */
    uint32_t omitted;        /* BIR_OMIT_* */
    /* Loop only */
    uint32_t nblocks, capblocks;
    bir_block **blocks;
    bir_loop_axis axis;
};

struct bir_block {
    const char *name;
    bir_inst *loop;          /* enclosing loop, NULL at function level */
    bir_inst **insts;
    uint32_t ninsts, capinsts;
    uint32_t omitted;        /* BIR_OMIT_* */
    bir_extras extras;
};

struct bir_function {
    const char *name;
    bir_module *module;
    bir_set **sets;
    uint32_t nsets, capsets;
    struct sba_nameidx *set_by_name; /* set names to positions in sets */
    bir_block **blocks;
    uint32_t nblocks, capblocks;
    bir_inst **insts;        /* every instruction, loops included, in program order */
    uint32_t ninsts, capinsts;
    uint32_t nloc_index;     /* placements ever added: the next bir_location.index */
    struct sba_strmap *inst_by_name; /* the first instruction of each name */
    uint32_t omitted;        /* BIR_OMIT_* */
    bir_extras extras;
};

/* Geometry of a target chip. */
typedef struct sba_target {
    const char *name;
    uint32_t partitions;            /* 128 */
    int64_t sbuf_bytes;             /* usable bytes per partition */
    uint32_t sbuf_align;            /* byte alignment of SB addresses */
    uint32_t psum_banks;
    uint32_t psum_bank_bytes;
    uint32_t psum_align;
} sba_target;

/* The presets trn1 (also inf2), trn2, trn3; NULL for an unknown name. Also
 * accepts the arch names gen2, gen3, gen4. */
const sba_target *sba_target_preset(const char *name);

struct bir_module {
    struct sba_arena *arena;
    const char *arch;        /* as given; NULL when absent */
    int64_t version;
    bool has_target;         /* a "target" object was given */
    sba_target target;       /* from "target", else the preset of arch, else trn2 */
    bir_function **fns;
    uint32_t nfns, capfns;
    uint64_t next_unique_id; /* the module-wide id counter */
    uint32_t spelling;       /* bir_spelling: how save writes it back */
    uint32_t omitted;        /* BIR_OMIT_* */
    const char **warnings;   /* the loader's warnings, "JSON.PATH: message", in input order */
    uint32_t nwarnings, capwarnings;
    bir_extras extras;
};

/* ---- construction and queries ------------------------------------------ */

/* A new empty module using `a` (NULL: the default allocator). NULL when out of
 * memory. Free with bir_module_free. */
bir_module *bir_module_new(const sba_allocator *a);
void bir_module_free(bir_module *m);
/* True when an allocation of the module's arena has failed (sticky). */
bool bir_module_failed(const bir_module *m);
/* Makes t the module's one target, so that everything after (allocator,
 * verifier, picture, report, the saved module) uses it: a preset's geometry
 * is recorded as its "arch" alone, any other as a "target" object (named
 * t->name, else "custom"); the module's own target (same name and geometry)
 * changes nothing. t is copied. SBA_ERR_NOMEM when the name cannot be
 * copied. */
sba_status bir_module_set_target(bir_module *m, const sba_target *t, sba_error *err);

/* Each add_* returns NULL and fills err when the name is taken or memory runs
 * out. Strings are copied into the module. */
bir_function *bir_function_add(bir_module *m, const char *name, sba_error *err);
bir_set *bir_set_add(bir_function *fn, const char *name, sba_error *err);
bir_location *bir_location_add(bir_set *set, const char *name, uint32_t type,
                               sba_error *err);

bir_set *bir_function_find_set(const bir_function *fn, const char *name);
bir_inst *bir_function_find_inst(const bir_function *fn, const char *name);
bir_location *bir_set_find_location(const bir_set *set, const char *name);
/* The placement of `set` with this tensor id, or NULL. */
bir_location *bir_set_location_by_tensor_id(const bir_set *set, int64_t tensor_id);
/* Rebuilds the tensorId2MemLoc table; fails with "Unassigned tensorId" for a
 * negative id, and on a duplicate id. */
sba_status bir_set_build_tensor_id_map(bir_set *set, sba_error *err);

/* The unique id, reached through the location's set (the id cascade). */
uint64_t bir_location_unique_id(const bir_location *loc);
/* setAllocated: sets the flag on the location and mirrors it onto its set. */
void bir_location_set_allocated(bir_location *loc, bool allocated);
/* The PSUM bank a placement means: the magnitude of its signed bank, as the
 * seed's rendering takes it (|bank|); the sign stays as given in the model. */
int64_t bir_location_bank(const bir_location *loc);
/* Whether a memory type can hold a placement: only DRAM, SB and PSUM. */
bool bir_is_placeable(uint32_t type);
/* The placement rendered by its memory type (the seed's toString): SB by byte
 * address and base partition, PSUM by |bank| and address, DRAM by address
 * space and address; other types by name alone. Writes into buf (size bytes,
 * truncated) and returns it. */
const char *bir_location_describe(const bir_location *loc, char *buf, size_t size);
/* Sets pack_id_hint; refused with "... PackIdHint only applies to PSUM." on a
 * location that is not PSUM (unless the hint is -1). */
sba_status bir_location_set_pack_id_hint(bir_location *loc, int32_t hint, sba_error *err);

/* Geometry of a set: (B..., P, F...) around partition_dim. */
int64_t bir_set_partitions(const bir_set *set);
int64_t bir_set_nblocks(const bir_set *set);
int64_t bir_set_bytes_per_block(const bir_set *set);
int64_t bir_set_elements(const bir_set *set);

/* ---- aliases ----------------------------------------------------------- */

/* Packs (peer, kind). Fails with "Pointer is not sufficiently aligned" or
 * "Integer too large for field". */
sba_status bir_alias_make(bir_location *peer, uint32_t kind, bir_alias_ptr *out,
                          sba_error *err);
bir_location *bir_alias_peer(bir_alias_ptr ap);
uint32_t bir_alias_kind(bir_alias_ptr ap);
/* Subset test: every bit of kind is set. */
bool bir_alias_has(bir_alias_ptr ap, uint32_t kind);
/* getAliasKind: writes the kinds among {1, 3} that ap has; returns the count. */
uint32_t bir_alias_kinds(bir_alias_ptr ap, uint32_t out[2]);

/* addAlias: refuses a non-DRAM endpoint with "<src> -> <dst>. Aliasing only
 * permitted for DRAM locations."; inserts src->dst and dst->src sorted, ORing
 * the kind into an existing edge. */
sba_status bir_location_add_alias(bir_location *src, bir_location *dst, uint32_t kind,
                                  sba_error *err);
/* getMustAlias: the first peer with kind 3, or NULL. */
bir_location *bir_location_must_alias(const bir_location *loc);

/* ---- program ----------------------------------------------------------- */

bir_block *bir_block_add(bir_function *fn, bir_inst *loop, const char *name, sba_error *err);
bir_inst *bir_inst_add(bir_function *fn, bir_block *block, const char *name,
                       uint32_t opcode, sba_error *err);

/* A new instruction of fn that no block holds yet (its name is taken). Place
 * it with bir_block_set_insts, then call bir_function_reindex. */
bir_inst *bir_inst_new(bir_function *fn, const char *name, uint32_t opcode, sba_error *err);
/* Replaces the instruction list of a block (copied into the module's arena);
 * each instruction's parent becomes the block. */
sba_status bir_block_set_insts(bir_function *fn, bir_block *b, bir_inst *const *insts, uint32_t n,
                               sba_error *err);
/* Makes *op the physical access of the whole of a 2-D set [P, F]
 * (partition_dim 0) through its first placement: pairs [[F, P], [1, F]].
 * The pairs go in the module's arena; false when out of memory. */
bool bir_operand_set_whole(bir_operand *op, bir_set *set);
/* Rebuilds fn->insts in program order and renumbers inst->index. */
sba_status bir_function_reindex(bir_function *fn, sba_error *err);
/* A name not yet used by an instruction of fn: `base`, else base.1, base.2, ...
 * Copied into the module's arena; NULL when out of memory. */
const char *bir_function_fresh_inst_name(bir_function *fn, const char *base);
/* A location name not yet used in set: `base`, else base.1, base.2, ... */
const char *bir_set_fresh_location_name(bir_set *set, const char *base);

/* The kernel source of an instruction, from its debug.lineno and
 * debug.op_name, for messages: " (line 14, nl.exp)", " (line 14)",
 * " (nl.exp)", or "" when it has neither. Written into buf (size bytes,
 * truncated to fit); returns buf. */
const char *bir_inst_source(const bir_inst *in, char *buf, size_t size);

/* Records every operand's access in the reader and writer lists of its set and
 * location: outs are writes, ins are reads. Clears earlier lists first. */
sba_status bir_function_build_def_use(bir_function *fn, sba_error *err);

/* ---- JSON -------------------------------------------------------------- */

/* Loads a module from JSON text. Returns NULL and fills err on any failure
 * (line:column for a syntax error, the JSON path for a value in the wrong
 * place); the partial module is freed. `file` is not read: err carries no
 * file name, and the caller, who knows what it passed, names the input in
 * its own message (the CLI prints "FILE:LINE:COL: error: ..."). */
bir_module *bir_load_buffer(const char *text, size_t len, const char *file,
                            const sba_allocator *a, sba_error *err);
/* Loads from a path; "-" is standard input. A regular file is mapped while
 * it is parsed (not copied), so it must not be truncated meanwhile; other
 * inputs are read into memory from `a`. */
bir_module *bir_load_file(const char *path, const sba_allocator *a, sba_error *err);

/* Serializes the module in the canonical layout. *out is malloc'd by the
 * allocator `a` of the module; free it with bir_free_text. */
sba_status bir_save_buffer(const bir_module *m, char **out, size_t *len, sba_error *err);
/* Writes to a path; "-" is standard output. */
sba_status bir_save_file(const bir_module *m, const char *path, sba_error *err);
void bir_free_text(const bir_module *m, char *text);
/* Writes text (from the module's allocator) to a path, "-" being standard
 * output, and frees it whatever happens. */
sba_status bir_write_text(const bir_module *m, char *text, size_t len, const char *path, sba_error *err);

SBA_API_END
#ifdef __cplusplus
}
#endif
#endif

/* Name <-> value tables of the model's enumerations, dtype sizes, opcodes and
 * target presets. Every enum travels as its name on the wire. */
#include <string.h>
#include <strings.h>

#include "sballoc/bir.h"

static bool find_name(const char *const *names, uint32_t count, const char *name, uint32_t *out)
{
    for (uint32_t i = 0; i < count; i++) {
        if (names[i] && names[i][0] == name[0] && strcmp(names[i], name) == 0) {
            *out = i;
            return true;
        }
    }
    return false;
}

/* The known name that `name` spells but for letter case, for a "did you
 * mean" message; NULL when none (or when name is itself known). It reads the
 * same table as the parse function, so a name that table learns is known
 * here too. */
static const char *near_miss(const char *const *names, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++)
        if (names[i] && strcmp(names[i], name) == 0) return NULL;
    for (uint32_t i = 0; i < count; i++)
        if (names[i] && strcasecmp(names[i], name) == 0) return names[i];
    return NULL;
}

/* MemoryType2string: the forward switch over the power-of-two values. */
const char *bir_memory_type_name(uint32_t type)
{
    switch (type) {
    case BIR_MEM_UNALLOCATED: return "Unallocated";
    case BIR_MEM_INPUT: return "Input";
    case BIR_MEM_OUTPUT: return "Output";
    case BIR_MEM_DRAM: return "DRAM";
    case BIR_MEM_SB: return "SB";
    case BIR_MEM_PSUM: return "PSUM";
    case BIR_MEM_RNGSTATE: return "RNGSTATE";
    case BIR_MEM_REG: return "REG";
    default: return NULL;
    }
}

bool bir_memory_type_parse(const char *name, uint32_t *out)
{
    for (uint32_t v = 1; v <= BIR_MEM_REG; v <<= 1) {
        const char *n = bir_memory_type_name(v);
        if (n[0] == name[0] && strcmp(n, name) == 0) {
            *out = v;
            return true;
        }
    }
    return false;
}

bool bir_memory_type_placeable(uint32_t type)
{
    return type == BIR_MEM_DRAM || type == BIR_MEM_SB || type == BIR_MEM_PSUM;
}

static const char *const addr_space_names[BIR_AS_COUNT] = {"Local", "Shared", "Debug"};

const char *bir_addr_space_name(uint32_t as)
{
    return as < BIR_AS_COUNT ? addr_space_names[as] : NULL;
}

bool bir_addr_space_parse(const char *name, uint32_t *out)
{
    return find_name(addr_space_names, BIR_AS_COUNT, name, out);
}

static const char *const tensor_class_names[BIR_TC_COUNT] = {
    "Tensor", "LoopTensor", "NeuronTensor", "NeuronWeightTensor", "IdentityWeightTensor",
    "NeuronBlockTensor", "DRAM2DBlockTensor", "Neuron3DBlockTensor", "DRAM3DBlockTensor",
    "NeuronLocalTensor", "NeuronSBTensor", "NeuronPSUMTensor", "SingleValueTensor",
};

const char *bir_tensor_class_name(uint32_t tc)
{
    return tc < BIR_TC_COUNT ? tensor_class_names[tc] : NULL;
}

bool bir_tensor_class_parse(const char *name, uint32_t *out)
{
    return find_name(tensor_class_names, BIR_TC_COUNT, name, out);
}

static const char *const tensor_kind_names[BIR_TK_COUNT] = {
    "ExternalInput", "ExternalInputParameter", "Input", "ExternalOutput",
    "ExternalOutputParameter", "Output", "Const", "Internal", "Pointer", "InternalInterface",
};

const char *bir_tensor_kind_name(uint32_t k)
{
    return k < BIR_TK_COUNT ? tensor_kind_names[k] : NULL;
}

bool bir_tensor_kind_parse(const char *name, uint32_t *out)
{
    return find_name(tensor_kind_names, BIR_TK_COUNT, name, out);
}

bool bir_tensor_kind_is_external_input(uint32_t k) { return k <= 1; }
bool bir_tensor_kind_is_input(uint32_t k) { return k <= 2; }
bool bir_tensor_kind_is_external_output(uint32_t k) { return k - 3u <= 1; }
bool bir_tensor_kind_is_output(uint32_t k) { return k - 3u <= 2; }

static const char *const dtype_names[BIR_DT_COUNT] = {
    "float32", "bfloat16", "float16", "float8_e4m3", "float8_e5m2", "int8", "uint8",
    "int16", "uint16", "int32", "uint32", "int64", "uint64", "float64",
    /* the compiler's own spellings */
    "float8e4", "float8e5", "bool",
};
static const uint8_t dtype_sizes[BIR_DT_COUNT] = {4, 2, 2, 1, 1, 1, 1, 2, 2, 4, 4, 8, 8, 8, 1, 1, 1};

const char *bir_dtype_name(uint32_t dt) { return dt < BIR_DT_COUNT ? dtype_names[dt] : NULL; }
bool bir_dtype_parse(const char *name, uint32_t *out) { return find_name(dtype_names, BIR_DT_COUNT, name, out); }
uint32_t bir_dtype_size(uint32_t dt) { return dt < BIR_DT_COUNT ? dtype_sizes[dt] : 0; }
const char *bir_dtype_near_miss(const char *name) { return near_miss(dtype_names, BIR_DT_COUNT, name); }

static const char *const engine_names[BIR_ENG_COUNT] = {
    "unassigned", "act", "dma", "dve", "pe", "pool", "sp",
    /* the compiler's own spellings, then the all-engine barrier */
    "Unassigned", "Activation", "PE", "DVE", "Pool", "SP", "ALL",
};
static const uint8_t engine_units[BIR_ENG_COUNT] = {
    BIR_ENG_UNASSIGNED, BIR_ENG_ACT, BIR_ENG_DMA, BIR_ENG_DVE, BIR_ENG_PE, BIR_ENG_POOL, BIR_ENG_SP,
    BIR_ENG_UNASSIGNED, BIR_ENG_ACT, BIR_ENG_PE, BIR_ENG_DVE, BIR_ENG_POOL, BIR_ENG_SP, BIR_ENG_ALL,
};

const char *bir_engine_name(uint32_t e) { return e < BIR_ENG_COUNT ? engine_names[e] : NULL; }
bool bir_engine_parse(const char *name, uint32_t *out) { return find_name(engine_names, BIR_ENG_COUNT, name, out); }
uint32_t bir_engine_unit(uint32_t e) { return e < BIR_ENG_COUNT ? engine_units[e] : BIR_ENG_COUNT; }
const char *bir_engine_near_miss(const char *name) { return near_miss(engine_names, BIR_ENG_COUNT, name); }

static const char *const spelling_names[BIR_SPELLING_COUNT] = {"sballoc", "compiler"};

const char *bir_spelling_name(uint32_t s) { return s < BIR_SPELLING_COUNT ? spelling_names[s] : NULL; }

static const struct {
    uint32_t op;
    const char *name;
} opcodes[] = {
    {BIR_OP_DMA_LOAD, "DMALoad"},
    {BIR_OP_DMA_STORE, "DMAStore"},
    {BIR_OP_DMA_COPY, "DMACopy"},
    {BIR_OP_TENSOR_COPY, "TensorCopy"},
    {BIR_OP_TENSOR_TENSOR, "TensorTensor"},
    {BIR_OP_TENSOR_SCALAR, "TensorScalar"},
    {BIR_OP_ACTIVATION, "Activation"},
    {BIR_OP_MATMULT, "Matmult"},
    {BIR_OP_TRANSPOSE, "Transpose"},
    {BIR_OP_MEMSET, "Memset"},
    {BIR_OP_TENSOR_REDUCE, "TensorReduce"},
    {BIR_OP_ITERATOR, "Iota"},
    {BIR_OP_GATHER, "Gather"},
    {BIR_OP_NONZERO_WITH_COUNT, "NonzeroWithCount"},
    {BIR_OP_NONZERO, "Nonzero"},
    {BIR_OP_LOCAL_GATHER, "LocalGather"},
    {BIR_OP_MAX8, "Max8"},
    {BIR_OP_TOPK, "TopK"},
    {BIR_OP_MATCH_REPLACE8, "MatchReplace8"},
    {BIR_OP_RANGE_SELECT, "RangeSelect"},
    {BIR_OP_MAX_INDEX8, "MaxIndex8"},
    {BIR_OP_LOOP, "Loop"},
};

const char *bir_opcode_near_miss(const char *name)
{
    const char *names[sizeof opcodes / sizeof opcodes[0]];
    for (size_t i = 0; i < sizeof opcodes / sizeof opcodes[0]; i++) names[i] = opcodes[i].name;
    return near_miss(names, sizeof opcodes / sizeof opcodes[0], name);
}

const char *bir_opcode_name(uint32_t op)
{
    for (size_t i = 0; i < sizeof opcodes / sizeof opcodes[0]; i++)
        if (opcodes[i].op == op) return opcodes[i].name;
    return NULL;
}

bool bir_opcode_parse(const char *name, uint32_t *out)
{
    for (size_t i = 0; i < sizeof opcodes / sizeof opcodes[0]; i++) {
        if (opcodes[i].name[0] == name[0] && strcmp(opcodes[i].name, name) == 0) {
            *out = opcodes[i].op;
            return true;
        }
    }
    return false;
}

bool bir_opcode_rereads_inputs(uint32_t op) { return op >= BIR_OP_GATHER && op <= BIR_OP_MAX_INDEX8; }

/* Usable SBUF bytes per partition from the public tile_size facts; PSUM is
 * 8 banks x 2 KiB per partition with 4-byte alignment on every generation. */
static const sba_target presets[] = {
    {"trn1", 128, 180224, 32, 8, 2048, 4},
    {"trn2", 128, 212984, 32, 8, 2048, 4},
    {"trn3", 128, 245752, 32, 8, 2048, 4},
};

const sba_target *sba_target_preset(const char *name)
{
    if (!name) return NULL;
    if (!strcmp(name, "trn1") || !strcmp(name, "inf2") || !strcmp(name, "gen2")) return &presets[0];
    if (!strcmp(name, "trn2") || !strcmp(name, "gen3")) return &presets[1];
    if (!strcmp(name, "trn3") || !strcmp(name, "gen4")) return &presets[2];
    return NULL;
}

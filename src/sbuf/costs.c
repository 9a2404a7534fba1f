/* find_costs: each node's spill cost, and the DMA latency model (getLatency).
 *
 * Spilling a node costs a store after each def (none for a plain load, which
 * reloads from its DRAM source) and a reload before each use, each weighted by
 * how often it runs — the product of the trip counts of its loop nest — and
 * by the latency of moving the accessed bytes between the two memories.
 * Placements made by spill code are never spilled again (infinite cost).
 *
 * getLatency(src, dst, bytes) = fixed[src][dst] + partitions-parallel bytes /
 * bandwidth[src][dst], in cycles, over DRAM/SB/PSUM. The seed gives the shape
 * (only these three memories move data); the numbers are ours, set to rank
 * spill candidates, not measured (docs/passes.md):
 *   DRAM->SB, SB->DRAM: 2000 + bytes/16   (a DMA round trip to HBM)
 *   SB->SB, SB<->PSUM:    64 + bytes/64   (on-chip engines)
 *   DRAM->DRAM:         2000 + bytes/16
 *   PSUM->PSUM:           64 + bytes/64
 *
 * Requires: live_range. Produces: node.cost. Complexity: O(accesses × depth). */
#include <math.h>

#include "base/error.h"
#include "sbuf/sbuf.h"

static int mem_index(uint32_t type)
{
    switch (type) {
    case BIR_MEM_DRAM: return 0;
    case BIR_MEM_SB: return 1;
    case BIR_MEM_PSUM: return 2;
    default: return -1;
    }
}

double sb_latency(uint32_t src_type, uint32_t dst_type, int64_t bytes)
{
    static const double fixed[3][3] = {{2000, 2000, 2000}, {2000, 64, 64}, {2000, 64, 64}};
    static const double bw[3][3] = {{16, 16, 16}, {16, 64, 64}, {16, 64, 64}};
    int s = mem_index(src_type), d = mem_index(dst_type);
    if (s < 0 || d < 0) return INFINITY; /* only DRAM, SB and PSUM move data */
    return fixed[s][d] + (double)bytes / bw[s][d];
}

static double weight(const sb_ctx *c, const bir_inst *in)
{
    double w = 1;
    for (uint32_t k = 0; k < c->lin.depth[in->index]; k++) {
        int64_t t = bir_loop_trip_count(c->lin.nest[in->index][k]);
        w *= (double)(t > 0 ? t : 1);
    }
    return w;
}

static int64_t access_bytes(const bir_inst *in, const bir_operand *op)
{
    bir_footprint fp;
    if (bir_operand_footprint(in, op, &fp, NULL) != SBA_OK) return 0;
    return (fp.part_hi - fp.part_lo) * (fp.byte_hi - fp.byte_lo);
}

sba_status sb_find_costs(sb_ctx *c)
{
    for (uint32_t r = 0; r < c->n; r++) {
        sb_node *nd = &c->info[r];
        if (nd->rep != r) continue;
        if (nd->precoloured || nd->unspillable || nd->output) {
            nd->cost = INFINITY;
            continue;
        }
        double cost = 0;
        for (uint32_t m = r; m != SB_NO_NODE; m = c->info[m].next_member) {
            const bir_storage *s = &c->info[m].loc->storage;
            if (!c->info[m].load_src)
                for (uint32_t k = 0; k < s->nwriters; k++) {
                    const bir_inst *in = s->writers[k].inst;
                    cost += weight(c, in) * sb_latency(BIR_MEM_SB, BIR_MEM_DRAM,
                                                       access_bytes(in, &in->outs[s->writers[k].operand]));
                }
            for (uint32_t k = 0; k < s->nreaders; k++) {
                const bir_inst *in = s->readers[k].inst;
                cost += weight(c, in) * sb_latency(BIR_MEM_DRAM, BIR_MEM_SB,
                                                   access_bytes(in, &in->ins[s->readers[k].operand]));
            }
        }
        nd->cost = cost;
    }
    return SBA_OK;
}

/* The live-range rule shared by the SBUF, PSUM and DRAM allocators (live.h).
 *
 * Requires: a linearization of the function and its def-use lists.
 * Complexity: O(accesses × loop depth) per value. */
#include <stdarg.h>
#include <stdio.h>

#include "bir/live.h"

static uint32_t point(const bir_linear *lin, const bir_inst *in) { return lin->point_of[in->index]; }
static uint32_t header_point(const bir_linear *lin, const bir_inst *loop) { return lin->point_of[loop->index]; }
static uint32_t end_point(const bir_linear *lin, const bir_inst *loop) { return lin->end_of[loop->index]; }

bool bir_live_scratch_init(bir_live_scratch *s, const bir_linear *lin, sba_arena *ar)
{
    s->lin = lin;
    s->stamp = 0;
    s->rec = sba_arena_array(ar, (size_t)lin->fn->ninsts + 1, sizeof *s->rec);
    return s->rec != NULL;
}

void bir_live_begin(bir_live_scratch *s) { s->stamp++; }

bool bir_live_write_kills(const bir_inst *in, const bir_operand *op)
{
    bir_footprint fp;
    if (!op->set || bir_operand_footprint(in, op, &fp, NULL) != SBA_OK) return false;
    const bir_set *set = op->set;
    return fp.part_lo == 0 && fp.part_hi == bir_set_partitions(set) && fp.byte_lo == 0 &&
           fp.byte_hi == bir_set_bytes_per_block(set) && fp.blocks != BIR_BLOCKS_AXIS && fp.block == 0 &&
           fp.block_hi == bir_set_nblocks(set) - 1;
}

void bir_live_note(bir_live_scratch *s, const bir_inst *in, bool write, bool kills)
{
    const bir_linear *lin = s->lin;
    uint32_t p = point(lin, in), d = lin->depth[in->index];
    bool fresh = write && kills; /* the access does not depend on the value before it */
    for (uint32_t k = 0; k < d; k++) {
        bir_live_rec *r = &s->rec[lin->nest[in->index][k]->index];
        if (r->stamp != s->stamp) {
            *r = (bir_live_rec){s->stamp, p, !fresh, write};
            continue;
        }
        if (p < r->first || (p == r->first && !fresh)) {
            r->first = p;
            r->first_read = !fresh;
        }
        r->has_write |= write;
    }
}

void bir_live_anchor(const bir_linear *lin, const bir_inst *d, const bir_inst *u, bool entry_def,
                     uint32_t *start, uint32_t *end)
{
    uint32_t du = lin->depth[u->index];
    if (entry_def || !d) {
        *start = 0;
        *end = du ? end_point(lin, lin->nest[u->index][0]) : point(lin, u);
        return;
    }
    uint32_t dd = lin->depth[d->index], common = 0;
    while (common < dd && common < du && lin->nest[d->index][common] == lin->nest[u->index][common]) common++;
    *start = dd > common ? header_point(lin, lin->nest[d->index][common]) : point(lin, d);
    *end = du > common ? end_point(lin, lin->nest[u->index][common]) : point(lin, u);
    if (*end < *start) *end = *start;
}

bool bir_live_extend(const bir_live_scratch *s, const bir_inst *in, uint32_t *start, uint32_t *end)
{
    const bir_linear *lin = s->lin;
    bool carried = false;
    uint32_t d = lin->depth[in->index];
    for (uint32_t k = 0; k < d; k++) {
        const bir_inst *loop = lin->nest[in->index][k];
        const bir_live_rec *r = &s->rec[loop->index];
        if (r->stamp == s->stamp && r->first_read && r->has_write) {
            carried = true;
            if (header_point(lin, loop) < *start) *start = header_point(lin, loop);
            if (end_point(lin, loop) > *end) *end = end_point(lin, loop);
        }
    }
    return carried;
}

bool bir_live_first_read_in(const bir_live_scratch *s, const bir_inst *loop)
{
    const bir_live_rec *r = &s->rec[loop->index];
    return r->stamp == s->stamp && r->first_read;
}

bool bir_live_locations(bir_live_scratch *s, bir_location *const *locs, uint32_t n, bool entry_def,
                        bir_live_interval *out)
{
    const bir_linear *lin = s->lin;
    const bir_inst *first = NULL, *last = NULL, *last_def = NULL;
    bir_live_begin(s);
    for (uint32_t i = 0; i < n; i++) {
        const bir_storage *st = &locs[i]->storage;
        for (uint32_t k = 0; k < st->nwriters; k++) {
            const bir_inst *w = st->writers[k].inst;
            if (!first || point(lin, w) < point(lin, first)) first = w;
            if (!last_def || point(lin, w) > point(lin, last_def)) last_def = w;
            bir_live_note(s, w, true, bir_live_write_kills(w, &w->outs[st->writers[k].operand]));
        }
        for (uint32_t k = 0; k < st->nreaders; k++) {
            const bir_inst *r = st->readers[k].inst;
            if (!last || point(lin, r) > point(lin, last)) last = r;
            bir_live_note(s, r, false, false);
        }
    }
    if (!last || (last_def && point(lin, last_def) > point(lin, last))) last = last_def;
    if (!last) return false;
    *out = (bir_live_interval){0, 0, false, first, last};
    bir_live_anchor(lin, first, last, entry_def, &out->start, &out->end);
    for (uint32_t i = 0; i < n; i++) {
        const bir_storage *st = &locs[i]->storage;
        for (uint32_t k = 0; k < st->nreaders; k++)
            out->carried |= bir_live_extend(s, st->readers[k].inst, &out->start, &out->end);
        for (uint32_t k = 0; k < st->nwriters; k++)
            out->carried |= bir_live_extend(s, st->writers[k].inst, &out->start, &out->end);
    }
    return true;
}

void sba_alloc_log(const sba_alloc_options *o, const char *fmt, ...)
{
    if (!o->log) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->log(o->log_ud, line);
}

sba_status bir_location_base_mask(const bir_location *loc, int64_t p, uint32_t *mask, sba_error *err)
{
    *mask = bir_start_partition_mask(p);
    for (int w = 0; w < 2; w++) {
        const bir_access *acc = w ? loc->storage.writers : loc->storage.readers;
        uint32_t n = w ? loc->storage.nwriters : loc->storage.nreaders;
        for (uint32_t k = 0; k < n; k++) {
            const bir_operand *op = w ? &acc[k].inst->outs[acc[k].operand] : &acc[k].inst->ins[acc[k].operand];
            bir_footprint fp;
            sba_status st = bir_operand_footprint(acc[k].inst, op, &fp, err);
            if (st != SBA_OK) return st;
            *mask &= fp.base_mask;
        }
    }
    return SBA_OK;
}

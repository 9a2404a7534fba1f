/* dram_allocate: the per-function DRAM scratch regions.
 *
 * What is placed: DRAM locations of Internal tensors, and the spill homes
 * ("<loc>.home", BIR_LOC_SPILL_HOME) the SBUF allocator made for tensors that
 * are not inputs, outputs or constants — the scratch. External inputs and
 * outputs (kinds 0..5) and Const tensors live in buffers the runtime
 * provides and are not placed; neither are Pointer and InternalInterface
 * tensors, nor locations no instruction accesses.
 *
 * Regions: one per address space (Local, Shared, Debug) of the set, each a
 * 1-D range of bytes from 0, in pages of `sba_alloc_options.dram_page` bytes
 * (default 512): every address is a multiple of the page and every size is
 * rounded up to whole pages.
 *
 * Must-alias: DRAM locations joined by MustAlias (kind 3) edges, transitively,
 * form a group that gets one address; the group's size is its largest
 * member's and its live range the union of theirs. A group with a member
 * outside the scratch (an input, say: an in-place update) lives in that
 * member's buffer and is not placed. A pre-placed member (addr given) fixes
 * the group's address, which must be a multiple of the page.
 *
 * Time: the live range of the SBUF allocator (bir/live.c): first access to
 * last access, extended across loops.
 *
 * Packing, first fit by size: pre-placed groups first; then the others in
 * order of decreasing size (then earlier start, then set order), each at the
 * lowest page address where it overlaps no placed group live at the same
 * time. The region's size is the highest end; its lower bound is the peak,
 * over program points, of the bytes of the groups live there.
 *
 * Requires: def-use lists and an indexed function (after the SBUF fixpoint).
 * Produces: addr and allocated of every placed location; the DRAM fields of
 * the report. Complexity: O(G² + points) per address space for G groups. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "bir/live.h"
#include "dram/dram.h"
#include "sballoc/program.h"

typedef struct ditem {
    bir_location **members;      /* the must-alias group, set order */
    uint32_t nmembers;
    int64_t size;                /* the largest member's bytes, in whole pages */
    uint32_t as;                 /* bir_addr_space */
    uint32_t start, end;         /* live interval, inclusive points */
    uint32_t order;
    bool fixed;
    int64_t addr;
} ditem;

typedef struct dctx {
    bir_function *fn;
    const sba_alloc_options *o;
    sba_error *err;
    sba_arena ar;
    bir_linear lin;
    int64_t page;
    bir_location **locs;         /* every DRAM location of fn */
    uint32_t nlocs;
    uint32_t *parent;            /* union-find over locs */
    uint32_t *slot;              /* bir_location.index -> its index in locs */
    ditem *items;
    uint32_t nitems;
    int64_t (*gaps)[2];
} dctx;

#define dlog(c, ...) sba_alloc_log((c)->o, __VA_ARGS__)

static int64_t round_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

bool sba_dram_is_scratch(const bir_location *loc)
{
    uint32_t k = loc->set->kind;
    if (loc->type != BIR_MEM_DRAM) return false;
    if (k == BIR_TK_INTERNAL) return true;
    return (loc->alloc_flags & BIR_LOC_SPILL_HOME) && !bir_tensor_kind_is_input(k) &&
           !bir_tensor_kind_is_output(k) && k != BIR_TK_CONST;
}

static uint32_t find(dctx *c, uint32_t i)
{
    while (c->parent[i] != i) i = c->parent[i] = c->parent[c->parent[i]];
    return i;
}

/* The DRAM locations of fn, their must-alias groups. */
static sba_status index_locations(dctx *c)
{
    bir_function *fn = c->fn;
    uint32_t n = 0;
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++) n += fn->sets[s]->locs[l]->type == BIR_MEM_DRAM;
    c->locs = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *c->locs);
    c->parent = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *c->parent);
    c->items = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *c->items);
    c->gaps = sba_arena_array(&c->ar, (size_t)n + 1, sizeof *c->gaps);
    c->slot = sba_arena_array(&c->ar, (size_t)fn->nloc_index + 1, sizeof *c->slot);
    if (!c->locs || !c->parent || !c->items || !c->gaps || !c->slot)
        return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++) {
            bir_location *loc = fn->sets[s]->locs[l];
            if (loc->type != BIR_MEM_DRAM) continue;
            c->slot[loc->index] = c->nlocs;
            c->parent[c->nlocs] = c->nlocs;
            c->locs[c->nlocs++] = loc;
        }
    for (uint32_t i = 0; i < c->nlocs; i++) {
        const bir_location *loc = c->locs[i];
        for (uint32_t k = 0; k < loc->nalias; k++) {
            const bir_location *peer = bir_alias_peer(loc->alias[k]);
            if (!bir_alias_has(loc->alias[k], BIR_ALIAS_MUST) || !peer || peer->set->fn != fn ||
                peer->type != BIR_MEM_DRAM)
                continue;
            uint32_t a = find(c, i), b = find(c, c->slot[peer->index]);
            if (a != b) c->parent[a < b ? b : a] = a < b ? a : b;
        }
    }
    return SBA_OK;
}

/* One item per must-alias group of scratch locations that is accessed. */
static sba_status make_items(dctx *c)
{
    bir_live_scratch ls;
    bir_location **members = sba_arena_array(&c->ar, (size_t)c->nlocs + 1, sizeof *members);
    /* The members of each group, by a counting sort on their root, in
     * location order: one pass, not one scan of every location per group. */
    uint32_t *first = sba_arena_array(&c->ar, (size_t)c->nlocs + 2, sizeof *first);
    uint32_t *byroot = sba_arena_array(&c->ar, (size_t)c->nlocs + 1, sizeof *byroot);
    if (!members || !first || !byroot || !bir_live_scratch_init(&ls, &c->lin, &c->ar))
        return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < c->nlocs; i++) first[find(c, i) + 1]++;
    for (uint32_t r = 0; r < c->nlocs; r++) first[r + 1] += first[r];
    for (uint32_t i = 0; i < c->nlocs; i++) byroot[first[find(c, i)]++] = i;
    for (uint32_t r = c->nlocs; r > 0; r--) first[r] = first[r - 1];
    first[0] = 0;
    for (uint32_t r = 0; r < c->nlocs; r++) {
        if (find(c, r) != r) continue;
        uint32_t nm = 0;
        const bir_location *outside = NULL, *fixed = NULL;
        bool accessed = false;
        for (uint32_t x = first[r]; x < first[r + 1]; x++) {
            uint32_t i = byroot[x];
            bir_location *loc = c->locs[i];
            members[nm++] = loc;
            accessed |= loc->storage.nreaders + loc->storage.nwriters > 0;
            if (!sba_dram_is_scratch(loc) && !outside) outside = loc;
            if (sba_dram_is_scratch(loc) && loc->addr != BIR_NO_ADDR) {
                if (fixed && fixed->addr != loc->addr)
                    return sba_err(c->err, SBA_ERR_MODEL, "must-alias DRAM locations \"%s\" and \"%s\" are "
                                   "pre-placed at different addresses (%lld and %lld)", fixed->name, loc->name,
                                   (long long)fixed->addr, (long long)loc->addr);
                fixed = loc;
            }
            if (loc->set->addr_space != members[0]->set->addr_space)
                return sba_err(c->err, SBA_ERR_MODEL, "must-alias DRAM locations \"%s\" (%s) and \"%s\" (%s) are "
                               "in different address spaces", members[0]->name,
                               bir_addr_space_name(members[0]->set->addr_space), loc->name,
                               bir_addr_space_name(loc->set->addr_space));
        }
        if (!accessed) continue;
        if (outside) {
            for (uint32_t i = 0; i < nm; i++)
                if (members[i] != outside && sba_dram_is_scratch(members[i]))
                    dlog(c, "dram %s: must-aliases %s, which is not scratch: not placed", members[i]->name,
                         outside->name);
            continue;
        }
        if (fixed && fixed->addr % c->page != 0)
            return sba_err(c->err, SBA_ERR_MODEL, "pre-placed DRAM location \"%s\" at byte %lld is not a multiple "
                           "of the DRAM page %lld", fixed->name, (long long)fixed->addr, (long long)c->page);
        ditem *it = &c->items[c->nitems];
        *it = (ditem){.nmembers = nm, .as = members[0]->set->addr_space, .order = c->nitems};
        it->members = sba_arena_array(&c->ar, nm, sizeof *it->members);
        if (!it->members) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
        memcpy(it->members, members, nm * sizeof *members);
        for (uint32_t i = 0; i < nm; i++) {
            const bir_set *s = members[i]->set;
            int64_t bytes = bir_set_elements(s) * (int64_t)bir_dtype_size(s->dtype);
            if (round_up(bytes, c->page) > it->size) it->size = round_up(bytes, c->page);
        }
        bir_live_interval iv;
        if (!bir_live_locations(&ls, it->members, nm, false, &iv)) continue;
        it->start = iv.start;
        it->end = iv.end;
        if (fixed) {
            it->fixed = true;
            it->addr = fixed->addr;
        }
        c->nitems++;
    }
    return SBA_OK;
}

static int cmp_gap(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

static int cmp_item(const void *x, const void *y)
{
    const ditem *a = *(const ditem *const *)x, *b = *(const ditem *const *)y;
    if (a->size != b->size) return a->size > b->size ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* First fit: the lowest page address where `it` meets no placed item live
 * at the same time. */
static int64_t first_fit(dctx *c, ditem *const *placed, uint32_t np, const ditem *it)
{
    uint32_t ng = 0;
    for (uint32_t j = 0; j < np; j++) {
        const ditem *o = placed[j];
        if (o->start > it->end || it->start > o->end) continue;
        c->gaps[ng][0] = o->addr;
        c->gaps[ng][1] = o->addr + o->size;
        ng++;
    }
    qsort(c->gaps, ng, sizeof *c->gaps, cmp_gap);
    int64_t at = 0;
    for (uint32_t g = 0; g < ng; g++) {
        if (c->gaps[g][0] >= at + it->size) break;
        if (c->gaps[g][1] > at) at = round_up(c->gaps[g][1], c->page);
    }
    return at;
}

static sba_status place_space(dctx *c, uint32_t as, sba_function_report *rep)
{
    ditem **order = sba_arena_array(&c->ar, (size_t)c->nitems + 1, sizeof *order);
    ditem **placed = sba_arena_array(&c->ar, (size_t)c->nitems + 1, sizeof *placed);
    int64_t *delta = sba_arena_array(&c->ar, (size_t)c->lin.npoints + 2, sizeof *delta);
    if (!order || !placed || !delta) return sba_err(c->err, SBA_ERR_NOMEM, "out of memory");
    uint32_t no = 0, np = 0;
    for (uint32_t i = 0; i < c->nitems; i++) {
        ditem *it = &c->items[i];
        if (it->as != as) continue;
        delta[it->start] += it->size;
        delta[it->end + 1] -= it->size;
        if (it->fixed) placed[np++] = it;
        else order[no++] = it;
    }
    if (!no && !np) return SBA_OK;
    qsort(order, no, sizeof *order, cmp_item);
    for (uint32_t k = 0; k < no; k++) {
        order[k]->addr = first_fit(c, placed, np, order[k]);
        placed[np++] = order[k];
    }
    int64_t top = 0, live = 0, peak = 0;
    for (uint32_t p = 0; p <= c->lin.npoints; p++) {
        live += delta[p];
        if (live > peak) peak = live;
    }
    for (uint32_t j = 0; j < np; j++)
        if (placed[j]->addr + placed[j]->size > top) top = placed[j]->addr + placed[j]->size;
    for (uint32_t j = 0; j < np; j++) {
        const ditem *it = placed[j];
        char also[256] = "";
        size_t len = 0;
        for (uint32_t i = 1; i < it->nmembers && len + 2 < sizeof also; i++) {
            int w = snprintf(also + len, sizeof also - len, "%s%s", i == 1 ? ", must-alias with " : ", ",
                             it->members[i]->name);
            if (w > 0) len = len + (size_t)w < sizeof also ? len + (size_t)w : sizeof also - 1;
        }
        dlog(c, "dram %s: addr %lld, %lld bytes, live [%u, %u] (%s)%s%s", it->members[0]->name,
             (long long)it->addr, (long long)it->size, it->start, it->end, bir_addr_space_name(as),
             it->fixed ? ", pre-placed" : "", also);
    }
    dlog(c, "DRAM scratch %s: %lld bytes, lower bound %lld, %u groups", bir_addr_space_name(as), (long long)top,
         (long long)peak, np);
    if (rep) {
        rep->dram_scratch_bytes[as] = top;
        rep->dram_lower_bound[as] = peak;
    }
    return SBA_OK;
}

static void commit(dctx *c, sba_function_report *rep)
{
    uint32_t placed = 0;
    for (uint32_t i = 0; i < c->nitems; i++) {
        const ditem *it = &c->items[i];
        for (uint32_t k = 0; k < it->nmembers; k++) {
            bir_location *loc = it->members[k];
            loc->addr = it->addr;
            bir_location_set_allocated(loc, true);
            placed++;
        }
    }
    if (rep) rep->dram_placed = placed;
}

sba_status sba_dram_allocate(bir_function *fn, const sba_alloc_options *o, sba_function_report *rep,
                         sba_error *err)
{
    dctx c = {.fn = fn, .o = o, .err = err, .page = o->dram_page > 0 ? o->dram_page : SBA_DEFAULT_DRAM_PAGE};
    sba_arena_init(&c.ar, fn->module->arena->a);
    sba_status st = bir_linearize(fn, &c.ar, &c.lin, err);
    if (st == SBA_OK) st = index_locations(&c);
    if (st == SBA_OK) st = make_items(&c);
    for (uint32_t as = 0; st == SBA_OK && as < BIR_AS_COUNT; as++) st = place_space(&c, as, rep);
    if (st == SBA_OK) commit(&c, rep);
    if (st == SBA_OK && c.ar.failed) st = sba_err(err, SBA_ERR_NOMEM, "out of memory");
    sba_arena_free(&c.ar);
    return st;
}

/* svg: a picture of a module's SBUF placements, as hand-written SVG.
 *
 * Per function, one section 1600 px wide:
 *   - a header: the function, its counts, the allocator's figures when a
 *     report is given, and a legend;
 *   - four panels, one per partition quarter (0–31, 32–63, 64–95, 96–127),
 *     program points along x (point p spans [p, p+1)), byte address along y
 *     with 0 at the bottom. The y scale is the target's capacity when the
 *     placements reach half of it, else the highest used byte plus 10 % (the
 *     header then says the capacity line is above the scale);
 *   - every accessed SB placement is one <g class="tensor"> holding a <title>
 *     tooltip and one rectangle per quarter its partitions [base, base+P)
 *     touch, x over its live range and y over [addr, addr+size). Its colour
 *     is a hash of its set's name, so a reload temporary shares the hue of
 *     the tensor it reloads. Reload temporaries are hatched; spilled
 *     placements have a dashed red outline. The label (the placement's name)
 *     is drawn where it fits;
 *   - loop extents, shaded across the panels and as bars on the time axis
 *     (one row per nesting depth); spill stores (red, pointing down) and
 *     reloads (blue, pointing up) as markers on the time axis;
 *   - the pressure chart: bytes live per band at every point (one step line
 *     per quarter), the capacity and the lower bound (the report's
 *     lower_bound_total, else the peak over points of Σ P × size / partitions).
 *
 * Live range of a placement (the allocator's rule, per placement, without
 * partner groups): from its first write to its last access (the last read,
 * or a later write), points of the linearization. An input or constant is
 * written at entry (point 0). With c the loop nest the first write and the
 * last access share, a first write nested deeper moves to the header of the
 * loop at depth c, a last access nested deeper to that loop's end. A loop
 * that carries the value around its back edge (the allocator's rule,
 * bir/live.h: a read may see what an earlier iteration wrote) makes the
 * range cover the whole loop.
 * An output stays live to the last point. Size per partition: dims[1], else
 * live_n × bytesPerBlock, else NBlocks × bytesPerBlock.
 *
 * Spill code is recognised from the flags the allocator sets and, in a
 * module loaded from JSON, from its names: a DMAStore "<def>.spill.<loc>"
 * reading a placement marks it spilled (its home is the store's
 * destination); an SB placement "<loc>.reload…" written by a DMALoad
 * "<use>.reload.<loc>" is a reload temporary.
 *
 * Bounded output: with more than MAX_SHAPES placements in a function, only
 * the MAX_SHAPES largest of those at least 3 × 3 px are drawn as shapes; the
 * rest are summed into a per-pixel occupancy grid per panel (each placement
 * spread evenly over the pixels it touches), quantized to four shades and
 * written as merged runs. Loops and markers beyond MAX_LOOPS / MAX_MARKS are
 * drawn per pixel column, and the pressure lines per pixel column (the
 * column's maximum) once there are more points than pixels. The file is
 * then O(pixels), not O(tensors).
 *
 * Requires: def-use lists (as after load or allocation). Produces: text on
 * the caller's FILE; the module is not modified. Deterministic: integers and
 * fixed-precision numbers only, no time, no addresses.
 * Complexity: O(points + Σ accesses × loop depth + placements log placements
 * + pixels) time, O(points + placements + pixels) memory in one arena per
 * function. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "bir/live.h"
#include "sballoc/draw.h"
#include "sballoc/program.h"

enum {
    WIDTH = 1600,
    ML = 84, /* left margin: y tick labels */
    MR = 16,
    PW = WIDTH - ML - MR, /* plot width in px */
    HEADER = 72,
    PANEL_H = 170,
    PANEL_GAP = 18,
    AXIS_H = 80,
    LANE_ROWS = 8,
    LANE_ROW = 5,
    CHART_TITLE = 24,
    CHART_H = 160,
    CHART_FOOT = 32,
    SECTION_H = HEADER + 4 * (PANEL_H + PANEL_GAP) + AXIS_H + CHART_TITLE + CHART_H + CHART_FOOT,
    BANDS = 4,
    QUARTER = 32,
    MAX_SHAPES = 4000,
    MAX_LOOPS = 1000,
    MAX_MARKS = 2000,
    MIN_SHAPE_PX = 3,
    SHADES = 4,
};

enum { PL_PLAIN = 0, PL_RELOAD, PL_SPILLED };

static const char *const band_colour[BANDS] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"};

typedef struct placement {
    bir_location *loc; /* not modified: non-const for bir_live_locations */
    const bir_location *home; /* where a spilled placement is stored, or NULL */
    int64_t addr, size, base, parts;
    uint32_t start, end;      /* live points, inclusive */
    uint32_t kind;            /* PL_* */
    bool placed, shape;       /* has addr and base; drawn as its own shape */
} placement;

typedef struct fn_draw {
    FILE *out;
    sba_arena *ar;
    sba_error *err;
    const bir_function *fn;
    const sba_target *t;
    const sba_function_report *fr; /* NULL without a report */
    bir_linear lin;
    placement *pl;
    uint32_t npl, nshapes, nagg, nunplaced, nloops;
    bir_live_scratch ls; /* the allocator's loop-carry rule (bir/live.h) */
    int64_t *band; /* BANDS × (npoints + 1): bytes live per band per point */
    int64_t peak[BANDS], lower_bound, used;
    double xs;              /* px per program point */
    int64_t ytop, ystep;    /* panel scale */
    bool ycap;              /* the capacity is within the panel scale */
    int64_t ctop, cstep;    /* chart scale */
    bool ccap;
    int oy;                 /* top of the section */
} fn_draw;

/* ---- text helpers ---------------------------------------------------------- */

static void put_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

/* An integer with thousands separators: 212,984. */
static const char *fmt_int(char *buf, size_t n, int64_t v)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%lld", (long long)(v < 0 ? -v : v));
    size_t k = 0;
    if (v < 0 && k + 1 < n) buf[k++] = '-';
    for (int i = 0; i < len && k + 1 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0 && k + 1 < n) buf[k++] = ',';
        if (k + 1 < n) buf[k++] = tmp[i];
    }
    buf[k] = 0;
    return buf;
}

/* A tick label: "0", "96 B", "64 KiB". */
static const char *fmt_bytes(char *buf, size_t n, int64_t v)
{
    if (v == 0)
        snprintf(buf, n, "0");
    else if (v % 1024 == 0)
        snprintf(buf, n, "%lld KiB", (long long)(v / 1024));
    else
        snprintf(buf, n, "%lld B", (long long)v);
    return buf;
}

/* FNV-1a then a 32-bit finalizer, so that names differing in one character
 * land on unrelated hues; the same on every platform. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

static void colours(const char *name, char *fill, char *stroke, size_t n)
{
    uint32_t h = name_hash(name);
    unsigned hue = h % 360, sat = 45 + (h >> 9) % 30, light = 58 + (h >> 17) % 14;
    snprintf(fill, n, "hsl(%u,%u%%,%u%%)", hue, sat, light);
    snprintf(stroke, n, "hsl(%u,%u%%,%u%%)", hue, sat, light - 28);
}

/* ---- scales ------------------------------------------------------------------ */

/* The byte scale of a plot holding values up to `used`: the capacity when
 * they reach half of it, else used + 10 % rounded up to a tick. Ticks are a
 * power of two, at most about six of them. */
static void byte_scale(int64_t used, int64_t cap, int64_t *top, int64_t *step, bool *cap_shown)
{
    if (used < 0) used = 0;
    *cap_shown = used * 2 >= cap;
    *top = *cap_shown ? (used > cap ? used : cap) : used + used / 10;
    if (*top < 256) *top = 256;
    int64_t s = 32;
    while (s * 6 < *top) s *= 2;
    *step = s;
    if (!*cap_shown) *top = (*top + s - 1) / s * s;
}

/* A 1-2-5 tick step giving at most about 15 ticks over n points. */
static uint32_t point_step(uint32_t n)
{
    uint64_t s = 1;
    for (;;) {
        if (n / s <= 15) return (uint32_t)s;
        if (n / (2 * s) <= 15) return (uint32_t)(2 * s);
        if (n / (5 * s) <= 15) return (uint32_t)(5 * s);
        s *= 10;
    }
}

static double px_x(const fn_draw *d, double p) { return ML + p * d->xs; }
static int panel_top(const fn_draw *d, int q) { return d->oy + HEADER + q * (PANEL_H + PANEL_GAP) + PANEL_GAP; }
static int panel_bottom(const fn_draw *d, int q) { return panel_top(d, q) + PANEL_H; }
static int axis_y(const fn_draw *d) { return d->oy + HEADER + 4 * (PANEL_H + PANEL_GAP); }
static int chart_top(const fn_draw *d) { return axis_y(d) + AXIS_H + CHART_TITLE; }
static int chart_bottom(const fn_draw *d) { return chart_top(d) + CHART_H; }
static double chart_y(const fn_draw *d, int64_t v) { return chart_bottom(d) - (double)v * CHART_H / (double)d->ctop; }

/* The pixel column of point p, clamped to the plot. */
static int col_of(const fn_draw *d, double p)
{
    double c = floor(p * d->xs);
    return c < 0 ? 0 : c >= PW ? PW - 1 : (int)c;
}

/* ---- spill code ------------------------------------------------------------- */

static bool is_reload_temp(const bir_location *L)
{
    if (L->alloc_flags & BIR_LOC_RELOAD_TEMP) return true;
    if (!strstr(L->name, ".reload")) return false;
    for (uint32_t k = 0; k < L->storage.nwriters; k++) {
        const bir_inst *in = L->storage.writers[k].inst;
        if (in->opcode == BIR_OP_DMA_LOAD && strstr(in->name, ".reload.")) return true;
    }
    return false;
}

static const bir_location *operand_loc(const bir_operand *op)
{
    if (op->loc) return op->loc;
    return op->set && op->set->nlocs ? op->set->locs[0] : NULL;
}

static bool is_spill_store(const bir_inst *in)
{
    if (in->opcode != BIR_OP_DMA_STORE || !in->nins) return false;
    const bir_location *src = operand_loc(&in->ins[0]);
    return strstr(in->name, ".spill.") || (src && (src->alloc_flags & BIR_LOC_SPILLED_DEF));
}

static bool is_reload(const bir_inst *in)
{
    if (in->opcode != BIR_OP_DMA_LOAD || !in->nouts) return false;
    const bir_location *dst = operand_loc(&in->outs[0]);
    return dst && dst->type == BIR_MEM_SB && is_reload_temp(dst);
}

/* PL_SPILLED (and its home) when a spill store reads L. */
static uint32_t spill_kind(const bir_location *L, const bir_location **home)
{
    *home = NULL;
    if (is_reload_temp(L)) return PL_RELOAD;
    for (uint32_t k = 0; k < L->storage.nreaders; k++) {
        const bir_inst *in = L->storage.readers[k].inst;
        if (is_spill_store(in)) {
            *home = in->nouts ? operand_loc(&in->outs[0]) : NULL;
            return PL_SPILLED;
        }
    }
    return (L->alloc_flags & BIR_LOC_SPILLED_DEF) ? PL_SPILLED : PL_PLAIN;
}

/* ---- live ranges ------------------------------------------------------------ */

static uint32_t point_of(const fn_draw *d, const bir_inst *in) { return d->lin.point_of[in->index]; }

static void live_range_of(fn_draw *d, placement *pl)
{
    const bir_storage *s = &pl->loc->storage;
    const bir_inst *def = NULL, *last = NULL, *first = NULL;
    for (uint32_t k = 0; k < s->nwriters; k++) {
        const bir_inst *in = s->writers[k].inst;
        if (!def || point_of(d, in) < point_of(d, def)) def = in;
        if (!last || point_of(d, in) > point_of(d, last)) last = in;
    }
    for (uint32_t k = 0; k < s->nreaders; k++) {
        const bir_inst *in = s->readers[k].inst;
        if (!first || point_of(d, in) < point_of(d, first)) first = in;
        if (!last || point_of(d, in) >= point_of(d, last)) last = in;
    }
    uint32_t kind = pl->loc->set->kind;
    bool entry = bir_tensor_kind_is_input(kind) || kind == BIR_TK_CONST;
    uint32_t du = d->lin.depth[last->index];
    if (entry) {
        pl->start = 0;
        pl->end = du ? d->lin.end_of[d->lin.nest[last->index][0]->index] : point_of(d, last);
    } else {
        if (!def) def = first; /* read before any write: drawn from that read */
        uint32_t dd = d->lin.depth[def->index], c = 0;
        while (c < dd && c < du && d->lin.nest[def->index][c] == d->lin.nest[last->index][c]) c++;
        pl->start = dd > c ? point_of(d, d->lin.nest[def->index][c]) : point_of(d, def);
        pl->end = du > c ? d->lin.end_of[d->lin.nest[last->index][c]->index] : point_of(d, last);
        if (pl->end < pl->start) pl->end = pl->start;
    }
    /* Carried around a loop: the allocator's own rule, so that the picture
     * shows the range it allocated. */
    bir_live_interval iv;
    if (bir_live_locations(&d->ls, &pl->loc, 1, entry, &iv)) {
        if (iv.start < pl->start) pl->start = iv.start;
        if (iv.end > pl->end) pl->end = iv.end;
    }
    if (bir_tensor_kind_is_output(kind) && d->lin.npoints) pl->end = d->lin.npoints - 1;
}

/* ---- collection ------------------------------------------------------------- */

static int64_t placement_size(const bir_location *L)
{
    const bir_set *set = L->set;
    if (L->has_dims && L->dims[1] > 0) return L->dims[1];
    int64_t n = L->live_n > 0 ? L->live_n : bir_set_nblocks(set);
    return n * bir_set_bytes_per_block(set);
}

/* Fills d->pl with every accessed SB placement, in set and placement order,
 * their live ranges, the band pressure and the lower bound. */
static sba_status collect(fn_draw *d)
{
    const bir_function *fn = d->fn;
    uint32_t n = 0;
    for (uint32_t i = 0; i < fn->nsets; i++)
        for (uint32_t j = 0; j < fn->sets[i]->nlocs; j++) {
            const bir_location *L = fn->sets[i]->locs[j];
            n += L->type == BIR_MEM_SB && (L->storage.nreaders || L->storage.nwriters);
        }
    uint32_t np = d->lin.npoints;
    d->pl = sba_arena_array(d->ar, (size_t)n + 1, sizeof *d->pl);
    bool ls_ok = bir_live_scratch_init(&d->ls, &d->lin, d->ar);
    d->band = sba_arena_array(d->ar, (size_t)BANDS * (np + 1), sizeof *d->band);
    int64_t *demand = sba_arena_array(d->ar, (size_t)np + 1, sizeof *demand);
    if (!d->pl || !ls_ok || !d->band || !demand) return sba_err(d->err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < fn->nsets; i++)
        for (uint32_t j = 0; j < fn->sets[i]->nlocs; j++) {
            bir_location *L = fn->sets[i]->locs[j];
            if (L->type != BIR_MEM_SB || !(L->storage.nreaders || L->storage.nwriters)) continue;
            placement *p = &d->pl[d->npl++];
            p->loc = L;
            p->kind = spill_kind(L, &p->home);
            p->addr = L->addr;
            p->base = L->base;
            p->parts = bir_set_partitions(L->set);
            p->size = placement_size(L);
            p->placed = L->addr >= 0 && L->base >= 0;
            live_range_of(d, p);
            d->nunplaced += !p->placed;
            if (!p->placed) continue;
            if (p->addr + p->size > d->used) d->used = p->addr + p->size;
            for (int q = 0; q < BANDS; q++) {
                if (p->base >= (q + 1) * QUARTER || p->base + p->parts <= q * QUARTER) continue;
                d->band[(size_t)q * (np + 1) + p->start] += p->size;
                d->band[(size_t)q * (np + 1) + p->end + 1] -= p->size;
            }
            demand[p->start] += p->parts * p->size;
            demand[p->end + 1] -= p->parts * p->size;
        }
    int64_t parts = d->t->partitions ? d->t->partitions : 128, lb = 0, run = 0;
    for (uint32_t p = 0; p < np; p++) {
        run += demand[p];
        if ((run + parts - 1) / parts > lb) lb = (run + parts - 1) / parts;
    }
    for (int q = 0; q < BANDS; q++) {
        int64_t *b = &d->band[(size_t)q * (np + 1)], v = 0;
        for (uint32_t p = 0; p < np; p++) {
            v += b[p];
            b[p] = v;
            if (v > d->peak[q]) d->peak[q] = v;
        }
    }
    d->lower_bound = d->fr ? d->fr->lower_bound_total : lb;
    for (uint32_t i = 0; i < fn->ninsts; i++) d->nloops += fn->insts[i]->opcode == BIR_OP_LOOP;
    return SBA_OK;
}

/* Pixel size of a placement in a panel. */
static double shape_w(const fn_draw *d, const placement *p) { return (p->end + 1 - p->start) * d->xs; }
static double shape_h(const fn_draw *d, const placement *p) { return (double)p->size * PANEL_H / (double)d->ytop; }

static int by_area(const void *a, const void *b, const fn_draw *d)
{
    const placement *x = *(placement *const *)a, *y = *(placement *const *)b;
    double ax = shape_w(d, x) * shape_h(d, x), ay = shape_w(d, y) * shape_h(d, y);
    if (ax != ay) return ax > ay ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Decides which placements are shapes: all of them up to MAX_SHAPES, else
 * the MAX_SHAPES largest of those at least MIN_SHAPE_PX in both directions,
 * ranked by a merge sort (qsort has no context argument for the scale). */
static sba_status choose_shapes(fn_draw *d)
{
    uint32_t placed = d->npl - d->nunplaced;
    if (placed <= MAX_SHAPES) {
        for (uint32_t i = 0; i < d->npl; i++) d->pl[i].shape = d->pl[i].placed;
        d->nshapes = placed;
        return SBA_OK;
    }
    uint32_t nc = 0;
    for (uint32_t i = 0; i < d->npl; i++) {
        placement *p = &d->pl[i];
        p->shape = p->placed && shape_w(d, p) >= MIN_SHAPE_PX && shape_h(d, p) >= MIN_SHAPE_PX;
        nc += p->shape;
    }
    if (nc > MAX_SHAPES) {
        placement **v = sba_arena_array(d->ar, nc, sizeof *v);
        if (!v) return sba_err(d->err, SBA_ERR_NOMEM, "out of memory");
        uint32_t k = 0;
        for (uint32_t i = 0; i < d->npl; i++)
            if (d->pl[i].shape) v[k++] = &d->pl[i];
        placement **tmp = sba_arena_array(d->ar, nc, sizeof *tmp);
        if (!tmp) return sba_err(d->err, SBA_ERR_NOMEM, "out of memory");
        for (uint32_t w = 1; w < nc; w *= 2) {
            for (uint32_t lo = 0; lo < nc; lo += 2 * w) {
                uint32_t mid = lo + w < nc ? lo + w : nc, hi = lo + 2 * w < nc ? lo + 2 * w : nc;
                uint32_t a = lo, b = mid, o = lo;
                while (a < mid && b < hi) tmp[o++] = by_area(&v[a], &v[b], d) <= 0 ? v[a++] : v[b++];
                while (a < mid) tmp[o++] = v[a++];
                while (b < hi) tmp[o++] = v[b++];
            }
            placement **sw = v;
            v = tmp;
            tmp = sw;
        }
        for (uint32_t i = MAX_SHAPES; i < nc; i++) v[i]->shape = false;
        nc = MAX_SHAPES;
    }
    d->nshapes = nc;
    return SBA_OK;
}

/* ---- drawing: frame, header, legend ----------------------------------------- */

static void draw_header(fn_draw *d)
{
    FILE *f = d->out;
    char a[32], b[32], c[32], e[32], g[32];
    int y = d->oy;
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"h1\">function ", ML, y + 20);
    put_esc(f, d->fn->name);
    fprintf(f, "</text>\n");
    fprintf(f, "<text x=\"%d\" y=\"%d\">%u SB placements over %u program points, %u loops; target %s: "
               "%u partitions \xc3\x97 %s B per partition",
            ML, y + 38, d->npl, d->lin.npoints, d->nloops, d->t->name ? d->t->name : "custom",
            d->t->partitions, fmt_int(a, sizeof a, d->t->sbuf_bytes));
    if (d->nagg) fprintf(f, "; %u shown one by one, %u as occupancy shading", d->nshapes, d->nagg);
    if (d->nunplaced) fprintf(f, "; %u unplaced (not drawn)", d->nunplaced);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\">", ML, y + 54);
    if (d->fr) {
        const sba_function_report *r = d->fr;
        /* One buffer per number: the arguments are all formatted before printing. */
        fprintf(f, "allocation: %u iteration%s, %u spilled (%s B/partition), %u stores, %u reloads, %u remats; ",
                r->iterations, r->iterations == 1 ? "" : "s", r->spilled,
                fmt_int(a, sizeof a, (int64_t)r->spilled_bytes), r->stores, r->reloads, r->remats);
        fprintf(f, "high-water per band %s %s %s %s B; lower bound %s B (allocator)",
                fmt_int(a, sizeof a, r->high_water[0]), fmt_int(b, sizeof b, r->high_water[1]),
                fmt_int(c, sizeof c, r->high_water[2]), fmt_int(e, sizeof e, r->high_water[3]),
                fmt_int(g, sizeof g, r->lower_bound_total));
    } else {
        fprintf(f, "highest used byte %s; lower bound %s B (computed from the drawn live ranges)",
                fmt_int(a, sizeof a, d->used), fmt_int(b, sizeof b, d->lower_bound));
    }
    if (!d->ycap) fprintf(f, "; the capacity is above this scale");
    fprintf(f, "</text>\n");
    /* Legend. */
    int lx = ML, ly = y + 62;
    fprintf(f, "<g class=\"legend\">\n");
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"9\" fill=\"hsl(210,55%%,65%%)\" "
               "stroke=\"hsl(210,55%%,37%%)\"/><text x=\"%d\" y=\"%d\">tensor (colour: its set)</text>\n",
            lx, ly, lx + 18, ly + 9);
    lx += 170;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"9\" fill=\"hsl(210,55%%,65%%)\" "
               "stroke=\"hsl(210,55%%,37%%)\"/><rect x=\"%d\" y=\"%d\" width=\"14\" height=\"9\" "
               "fill=\"url(#hatch)\"/><text x=\"%d\" y=\"%d\">reload temporary</text>\n",
            lx, ly, lx, ly, lx + 18, ly + 9);
    lx += 130;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"9\" fill=\"hsl(210,55%%,65%%)\" class=\"spilled\"/>"
               "<text x=\"%d\" y=\"%d\">spilled to DRAM</text>\n",
            lx, ly, lx + 18, ly + 9);
    lx += 125;
    fprintf(f, "<path d=\"M%d %dh8l-4 6z\" class=\"store\"/><text x=\"%d\" y=\"%d\">spill store</text>\n", lx,
            ly + 2, lx + 12, ly + 9);
    lx += 90;
    fprintf(f, "<path d=\"M%d %dh8l-4 -6z\" class=\"reload\"/><text x=\"%d\" y=\"%d\">reload</text>\n", lx,
            ly + 9, lx + 12, ly + 9);
    lx += 70;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"9\" fill=\"#000\" fill-opacity=\"0.12\"/>"
               "<text x=\"%d\" y=\"%d\">loop</text>\n",
            lx, ly, lx + 18, ly + 9);
    lx += 60;
    fprintf(f, "<path d=\"M%d %dh16\" class=\"cap\"/><text x=\"%d\" y=\"%d\">capacity</text>\n", lx, ly + 5,
            lx + 20, ly + 9);
    lx += 80;
    fprintf(f, "<path d=\"M%d %dh16\" class=\"lb\"/><text x=\"%d\" y=\"%d\">lower bound</text>\n", lx, ly + 5,
            lx + 20, ly + 9);
    lx += 100;
    if (d->nagg)
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"9\" class=\"occ\"/>"
                   "<text x=\"%d\" y=\"%d\">occupancy of small tensors (darker: fuller)</text>\n",
                lx, ly, lx + 18, ly + 9);
    fprintf(f, "</g>\n");
}

static void draw_point_ticks(fn_draw *d, int y, bool labels)
{
    FILE *f = d->out;
    uint32_t np = d->lin.npoints, step = point_step(np);
    for (uint32_t p = 0; p < np; p += step) {
        double x = px_x(d, p + 0.5);
        fprintf(f, "<path d=\"M%.1f %dv4\" class=\"axis\"/>", x, y);
        if (labels) fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"mid\">%u</text>", x, y + 20, p);
        fprintf(f, "\n");
    }
}

static void draw_panels(fn_draw *d)
{
    FILE *f = d->out;
    char a[32];
    for (int q = 0; q < BANDS; q++) {
        int top = panel_top(d, q), bot = panel_bottom(d, q);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"panel\"/>\n", ML, top, PW, PANEL_H);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"b\">partitions %d\xe2\x80\x93%d</text>", ML + 2, top - 4,
                q * QUARTER, q * QUARTER + QUARTER - 1);
        if ((uint32_t)(q * QUARTER) >= d->t->partitions) fprintf(f, "<text x=\"%d\" y=\"%d\"> (not on this target)</text>", ML + 120, top - 4);
        fprintf(f, "\n");
        for (int64_t v = 0; v <= d->ytop; v += d->ystep) {
            double y = bot - (double)v * PANEL_H / (double)d->ytop;
            fprintf(f, "<path d=\"M%d %.1fh%d\" class=\"grid\"/><text x=\"%d\" y=\"%.1f\" class=\"end\">%s</text>\n",
                    ML, y, PW, ML - 4, y + 3.5, fmt_bytes(a, sizeof a, v));
        }
    }
    int mid = (panel_top(d, 0) + panel_bottom(d, BANDS - 1)) / 2;
    fprintf(f, "<text transform=\"translate(14 %d) rotate(-90)\" class=\"mid\">byte address per partition "
               "(0 at the bottom)</text>\n",
            mid);
}

/* The capacity line of each panel, over the tensors. */
static void draw_capacity(fn_draw *d)
{
    FILE *f = d->out;
    char a[32];
    if (!d->ycap) {
        for (int q = 0; q < BANDS; q++)
            fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"end capt\">capacity %s B: above this scale</text>\n",
                    ML + PW - 4, panel_top(d, q) - 4, fmt_int(a, sizeof a, d->t->sbuf_bytes));
        return;
    }
    for (int q = 0; q < BANDS; q++) {
        double y = panel_bottom(d, q) - (double)d->t->sbuf_bytes * PANEL_H / (double)d->ytop;
        fprintf(f, "<path d=\"M%d %.1fh%d\" class=\"cap\"/>", ML, y, PW);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"end capt\">capacity %s B</text>\n", ML + PW - 4, y - 3,
                fmt_int(a, sizeof a, d->t->sbuf_bytes));
    }
}

/* ---- drawing: loops and markers --------------------------------------------- */

static uint32_t loop_row(const fn_draw *d, const bir_inst *loop)
{
    uint32_t r = d->lin.depth[loop->index];
    return r < LANE_ROWS ? r : LANE_ROWS - 1;
}

static sba_status draw_loops(fn_draw *d)
{
    FILE *f = d->out;
    const bir_function *fn = d->fn;
    int top = panel_top(d, 0), bot = panel_bottom(d, BANDS - 1), lane = axis_y(d) + 28;
    fprintf(f, "<g class=\"loops\">\n");
    if (d->nloops <= MAX_LOOPS) {
        for (uint32_t i = 0; i < fn->ninsts; i++) {
            const bir_inst *in = fn->insts[i];
            if (in->opcode != BIR_OP_LOOP) continue;
            uint32_t h = point_of(d, in), e = d->lin.end_of[in->index];
            double x0 = px_x(d, h), w = (e + 1 - h) * d->xs;
            if (w < 1) w = 1;
            fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"shade\"/>", x0, top, w,
                    bot - top);
            fprintf(f, "<rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%d\" class=\"bar\"><title>loop ", x0,
                    lane + loop_row(d, in) * LANE_ROW, w, LANE_ROW - 1);
            put_esc(f, in->name);
            fprintf(f, ": ");
            put_esc(f, in->axis.name ? in->axis.name : "");
            fprintf(f, " in [%lld, %lld) step %lld, %lld iterations; points [%u, %u]</title></rect>\n",
                    (long long)in->axis.lb, (long long)in->axis.ub, (long long)in->axis.stride,
                    (long long)bir_loop_trip_count(in), h, e);
        }
    } else {
        /* Per pixel column: the nesting depth (shade) and, per lane row, coverage. */
        int32_t *depth = sba_arena_array(d->ar, (size_t)(LANE_ROWS + 1) * (PW + 1), sizeof *depth);
        if (!depth) return sba_err(d->err, SBA_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < fn->ninsts; i++) {
            const bir_inst *in = fn->insts[i];
            if (in->opcode != BIR_OP_LOOP) continue;
            int c0 = col_of(d, point_of(d, in)), c1 = col_of(d, d->lin.end_of[in->index] + 0.999) + 1;
            int32_t *row = &depth[(size_t)(loop_row(d, in) + 1) * (PW + 1)];
            depth[c0]++, depth[c1]--;
            row[c0]++, row[c1]--;
        }
        for (uint32_t r = 0; r <= LANE_ROWS; r++) {
            int32_t *row = &depth[(size_t)r * (PW + 1)], v = 0;
            for (int c = 0; c < PW; c++) v += row[c], row[c] = v;
            for (int c = 0; c < PW;) {
                int c0 = c;
                while (c < PW && row[c] == row[c0]) c++;
                if (!row[c0]) continue;
                if (r == 0)
                    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"shade\" "
                               "fill-opacity=\"%.3f\"/>\n",
                            ML + c0, top, c - c0, bot - top, row[c0] > 8 ? 0.28 : 0.035 * row[c0]);
                else
                    fprintf(f, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%d\" class=\"bar\"/>\n", ML + c0,
                            lane + (r - 1) * LANE_ROW, c - c0, LANE_ROW - 1);
            }
        }
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"end\">loops</text>\n</g>\n", ML - 4, lane + 8);
    return SBA_OK;
}

static sba_status draw_markers(fn_draw *d)
{
    FILE *f = d->out;
    const bir_function *fn = d->fn;
    int y = axis_y(d);
    uint32_t n = 0;
    for (uint32_t i = 0; i < fn->ninsts; i++) n += is_spill_store(fn->insts[i]) || is_reload(fn->insts[i]);
    if (!n) return SBA_OK;
    fprintf(f, "<g class=\"marks\">\n");
    if (n <= MAX_MARKS) {
        for (uint32_t i = 0; i < fn->ninsts; i++) {
            const bir_inst *in = fn->insts[i];
            bool st = is_spill_store(in);
            if (!st && !is_reload(in)) continue;
            double x = px_x(d, point_of(d, in) + 0.5);
            if (st)
                fprintf(f, "<path d=\"M%.1f %dh8l-4 7z\" class=\"store\"><title>spill store ", x - 4, y + 1);
            else
                fprintf(f, "<path d=\"M%.1f %dh8l-4 -7z\" class=\"reload\"><title>reload ", x - 4, y + 9);
            put_esc(f, in->name);
            fprintf(f, " at point %u</title></path>\n", point_of(d, in));
        }
    } else {
        uint8_t *col = sba_arena_array(d->ar, PW, 1);
        if (!col) return sba_err(d->err, SBA_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < fn->ninsts; i++) {
            const bir_inst *in = fn->insts[i];
            if (is_spill_store(in)) col[col_of(d, point_of(d, in) + 0.5)] |= 1;
            else if (is_reload(in)) col[col_of(d, point_of(d, in) + 0.5)] |= 2;
        }
        for (int c = 0; c < PW; c++) {
            if (col[c] & 1) fprintf(f, "<path d=\"M%d %dh6l-3 6z\" class=\"store\"/>\n", ML + c - 3, y + 1);
            if (col[c] & 2) fprintf(f, "<path d=\"M%d %dh6l-3 -6z\" class=\"reload\"/>\n", ML + c - 3, y + 9);
        }
    }
    fprintf(f, "</g>\n");
    return SBA_OK;
}

/* ---- drawing: tensors --------------------------------------------------------- */

static void draw_title(fn_draw *d, const placement *p)
{
    FILE *f = d->out;
    const bir_location *L = p->loc;
    const bir_set *s = L->set;
    char a[32], b[32], c[32];
    fprintf(f, "<title>");
    put_esc(f, L->name);
    fprintf(f, " (set ");
    put_esc(f, s->name);
    fprintf(f, ")\nshape [");
    for (uint32_t i = 0; i < s->rank; i++) fprintf(f, "%s%lld", i ? ", " : "", (long long)s->shape[i]);
    fprintf(f, "] %s, live_n %lld\npartitions [%lld, %lld)\nbytes [%s, %s) (%s B per partition)\n"
               "live points [%u, %u]\n",
            bir_dtype_name(s->dtype) ? bir_dtype_name(s->dtype) : "?", (long long)L->live_n, (long long)p->base,
            (long long)(p->base + p->parts), fmt_int(a, sizeof a, p->addr), fmt_int(b, sizeof b, p->addr + p->size),
            fmt_int(c, sizeof c, p->size), p->start, p->end);
    if (p->kind == PL_RELOAD) {
        fprintf(f, "reload temporary");
    } else if (p->kind == PL_SPILLED) {
        fprintf(f, "spilled: stored to DRAM");
        if (p->home) {
            fprintf(f, " ");
            put_esc(f, p->home->name);
        }
    } else {
        fprintf(f, "not spilled");
    }
    fprintf(f, "</title>");
}

static void draw_tensor(fn_draw *d, const placement *p)
{
    FILE *f = d->out;
    char fill[32], stroke[32];
    colours(p->loc->set->name, fill, stroke, sizeof fill);
    double x = px_x(d, p->start), w = shape_w(d, p), h = shape_h(d, p);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    fprintf(f, "<g class=\"tensor\" fill=\"%s\" stroke=\"%s\">", fill, stroke);
    draw_title(d, p);
    size_t len = strlen(p->loc->name);
    bool label = w >= 6.0 * (double)len + 6 && h >= 13;
    for (int q = 0; q < BANDS; q++) {
        if (p->base >= (q + 1) * QUARTER || p->base + p->parts <= q * QUARTER) continue;
        double y = panel_bottom(d, q) - (double)(p->addr + p->size) * PANEL_H / (double)d->ytop;
        const char *cls = p->kind == PL_SPILLED ? " class=\"spilled\"" : "";
        fprintf(f, "\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"%s/>", x, y, w, h, cls);
        if (p->kind == PL_RELOAD)
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#hatch)\"/>", x, y, w,
                    h);
        if (label) {
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + 11);
            put_esc(f, p->loc->name);
            fprintf(f, "</text>");
        }
    }
    fprintf(f, "</g>\n");
}

/* Writes the cells of one shade as merged rectangles: vertical runs per
 * column, extended to the right while the next column has the same run. */
static sba_status emit_shade(fn_draw *d, const uint8_t *lev, int q, uint8_t shade)
{
    typedef struct open_run {
        int r1, c0, last;
    } open_run;
    open_run *open = sba_arena_array(d->ar, PANEL_H, sizeof *open);
    int *act = sba_arena_array(d->ar, PANEL_H, sizeof *act);
    if (!open || !act) return sba_err(d->err, SBA_ERR_NOMEM, "out of memory");
    int nact = 0, bot = panel_bottom(d, q);
    for (int r = 0; r < PANEL_H; r++) open[r].last = -2;
    for (int c = 0; c <= PW; c++) {
        for (int r = 0; c < PW && r < PANEL_H;) {
            if (lev[(size_t)c * PANEL_H + r] != shade) {
                r++;
                continue;
            }
            int r0 = r;
            while (r < PANEL_H && lev[(size_t)c * PANEL_H + r] == shade) r++;
            open_run *o = &open[r0];
            if (o->last == c - 1 && o->r1 == r) {
                o->last = c;
                continue;
            }
            if (o->last >= 0)
                fprintf(d->out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", ML + o->c0, bot - o->r1,
                        o->last - o->c0 + 1, o->r1 - r0);
            else
                act[nact++] = r0;
            *o = (open_run){r, c, c};
        }
        /* Close the runs this column did not continue. */
        int k = 0;
        for (int i = 0; i < nact; i++) {
            open_run *o = &open[act[i]];
            if (o->last == c) {
                act[k++] = act[i];
                continue;
            }
            fprintf(d->out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", ML + o->c0, bot - o->r1,
                    o->last - o->c0 + 1, o->r1 - act[i]);
            o->last = -2;
        }
        nact = k;
    }
    return SBA_OK;
}

/* The placements that are not shapes, as per-pixel occupancy of each panel. */
static sba_status draw_occupancy(fn_draw *d)
{
    if (!d->nagg) return SBA_OK;
    FILE *f = d->out;
    size_t cells = (size_t)(PW + 1) * (PANEL_H + 1);
    double *acc = sba_arena_array(d->ar, cells, sizeof *acc);
    uint8_t *lev = sba_arena_array(d->ar, (size_t)PW * PANEL_H, 1);
    if (!acc || !lev) return sba_err(d->err, SBA_ERR_NOMEM, "out of memory");
    fprintf(f, "<g class=\"occ\"><title>%u placements too small to draw one by one: the shade of a pixel is the "
               "fraction of it they cover</title>\n",
            d->nagg);
    double ys = (double)PANEL_H / (double)d->ytop;
    for (int q = 0; q < BANDS; q++) {
        memset(acc, 0, cells * sizeof *acc);
        for (uint32_t i = 0; i < d->npl; i++) {
            const placement *p = &d->pl[i];
            if (!p->placed || p->shape) continue;
            if (p->base >= (q + 1) * QUARTER || p->base + p->parts <= q * QUARTER) continue;
            /* Spread the placement's pixel area evenly over the cells it touches. */
            double x0 = p->start * d->xs, x1 = (p->end + 1) * d->xs;
            double y0 = (double)p->addr * ys, y1 = (double)(p->addr + p->size) * ys;
            int c0 = (int)floor(x0), c1 = (int)ceil(x1), r0 = (int)floor(y0), r1 = (int)ceil(y1);
            if (c0 < 0) c0 = 0;
            if (c1 > PW) c1 = PW;
            if (r1 > PANEL_H) r1 = PANEL_H;
            if (c1 <= c0) c1 = c0 + 1 <= PW ? c0 + 1 : PW, c0 = c1 - 1;
            if (r1 <= r0) r1 = r0 + 1 <= PANEL_H ? r0 + 1 : PANEL_H, r0 = r1 - 1;
            double wgt = (x1 - x0) * (y1 - y0) / ((double)(c1 - c0) * (r1 - r0));
            acc[(size_t)c0 * (PANEL_H + 1) + r0] += wgt;
            acc[(size_t)c1 * (PANEL_H + 1) + r0] -= wgt;
            acc[(size_t)c0 * (PANEL_H + 1) + r1] -= wgt;
            acc[(size_t)c1 * (PANEL_H + 1) + r1] += wgt;
        }
        /* 2-D prefix sums give each cell's covered fraction. */
        for (int c = 0; c <= PW; c++)
            for (int r = 1; r <= PANEL_H; r++) acc[(size_t)c * (PANEL_H + 1) + r] += acc[(size_t)c * (PANEL_H + 1) + r - 1];
        for (int c = 1; c <= PW; c++)
            for (int r = 0; r <= PANEL_H; r++)
                acc[(size_t)c * (PANEL_H + 1) + r] += acc[(size_t)(c - 1) * (PANEL_H + 1) + r];
        for (int c = 0; c < PW; c++)
            for (int r = 0; r < PANEL_H; r++) {
                double v = acc[(size_t)c * (PANEL_H + 1) + r];
                lev[(size_t)c * PANEL_H + r] = v < 0.02 ? 0 : v >= 0.75 ? SHADES : (uint8_t)(1 + v * SHADES);
            }
        for (uint8_t s = 1; s <= SHADES; s++) {
            fprintf(f, "<g fill-opacity=\"%.2f\">\n", 0.25 * s);
            sba_status st = emit_shade(d, lev, q, s);
            if (st != SBA_OK) return st;
            fprintf(f, "</g>\n");
        }
    }
    fprintf(f, "</g>\n");
    return SBA_OK;
}

/* ---- drawing: pressure chart -------------------------------------------------- */

static sba_status draw_pressure(fn_draw *d)
{
    FILE *f = d->out;
    char a[32];
    uint32_t np = d->lin.npoints;
    int top = chart_top(d), bot = chart_bottom(d);
    fprintf(f, "<g class=\"pressure\">\n<text x=\"%d\" y=\"%d\" class=\"b\">bytes live per partition band "
               "(every SB placement live at the point, counted in each quarter it touches)</text>\n",
            ML + 2, top - 6);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"panel\"/>\n", ML, top, PW, CHART_H);
    for (int64_t v = 0; v <= d->ctop; v += d->cstep)
        fprintf(f, "<path d=\"M%d %.1fh%d\" class=\"grid\"/><text x=\"%d\" y=\"%.1f\" class=\"end\">%s</text>\n", ML,
                chart_y(d, v), PW, ML - 4, chart_y(d, v) + 3.5, fmt_bytes(a, sizeof a, v));
    bool per_col = np > PW;
    int64_t *colmax = per_col ? sba_arena_array(d->ar, PW, sizeof *colmax) : NULL;
    if (per_col && !colmax) return sba_err(d->err, SBA_ERR_NOMEM, "out of memory");
    static const double widths[BANDS] = {5.0, 3.5, 2.0, 1.0};
    for (int q = 0; q < BANDS; q++) {
        const int64_t *b = &d->band[(size_t)q * (np + 1)];
        uint32_t n = np;
        const int64_t *v = b;
        if (per_col) {
            for (int c = 0; c < PW; c++) colmax[c] = 0;
            for (uint32_t p = 0; p < np; p++) {
                int c = col_of(d, p + 0.5);
                if (b[p] > colmax[c]) colmax[c] = b[p];
            }
            n = PW;
            v = colmax;
        }
        double unit = per_col ? 1.0 : d->xs;
        fprintf(f, "<path class=\"band\" stroke=\"%s\" stroke-width=\"%.1f\" d=\"M%d %.1f", band_colour[q], widths[q],
                ML, chart_y(d, n ? v[0] : 0));
        for (uint32_t i = 1; i < n; i++)
            if (v[i] != v[i - 1]) fprintf(f, "H%.1fV%.1f", ML + i * unit, chart_y(d, v[i]));
        fprintf(f, "H%d\"><title>partitions %d\xe2\x80\x93%d: peak %s B</title></path>\n", ML + PW, q * QUARTER,
                q * QUARTER + QUARTER - 1, fmt_int(a, sizeof a, d->peak[q]));
    }
    if (d->ccap)
        fprintf(f, "<path d=\"M%d %.1fh%d\" class=\"cap\"/><text x=\"%d\" y=\"%.1f\" class=\"end capt\">capacity %s "
                   "B</text>\n",
                ML, chart_y(d, d->t->sbuf_bytes), PW, ML + PW - 4, chart_y(d, d->t->sbuf_bytes) - 3,
                fmt_int(a, sizeof a, d->t->sbuf_bytes));
    fprintf(f, "<path d=\"M%d %.1fh%d\" class=\"lb\"/><text x=\"%d\" y=\"%.1f\" class=\"end\">lower bound %s B%s</text>\n",
            ML, chart_y(d, d->lower_bound), PW, ML + PW - 4, chart_y(d, d->lower_bound) - 3,
            fmt_int(a, sizeof a, d->lower_bound), d->fr ? "" : " (computed)");
    int lx = ML + PW - 4 * 100 - 160;
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"end\">partitions</text>\n", lx - 6, top - 6);
    for (int q = 0; q < BANDS; q++, lx += 100)
        fprintf(f, "<path d=\"M%d %dh16\" stroke=\"%s\" stroke-width=\"%.1f\" class=\"band\"/><text x=\"%d\" "
                   "y=\"%d\">%d\xe2\x80\x93%d</text>\n",
                lx, top - 10, band_colour[q], widths[q] < 2 ? 2 : widths[q], lx + 20, top - 6, q * QUARTER,
                q * QUARTER + QUARTER - 1);
    draw_point_ticks(d, bot, true);
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"end\">point</text>\n</g>\n", ML - 10, bot + 20);
    return SBA_OK;
}

/* ---- one function, then the module ------------------------------------------ */

static sba_status draw_function(fn_draw *d)
{
    sba_status st = bir_linearize(d->fn, d->ar, &d->lin, d->err);
    if (st == SBA_OK) st = collect(d);
    if (st != SBA_OK) return st;
    d->xs = (double)PW / (double)(d->lin.npoints ? d->lin.npoints : 1);
    byte_scale(d->used, d->t->sbuf_bytes, &d->ytop, &d->ystep, &d->ycap);
    int64_t cmax = d->lower_bound;
    for (int q = 0; q < BANDS; q++)
        if (d->peak[q] > cmax) cmax = d->peak[q];
    byte_scale(cmax, d->t->sbuf_bytes, &d->ctop, &d->cstep, &d->ccap);
    if ((st = choose_shapes(d)) != SBA_OK) return st;
    d->nagg = d->npl - d->nunplaced - d->nshapes;
    FILE *f = d->out;
    fprintf(f, "<g class=\"function\" data-name=\"");
    put_esc(f, d->fn->name);
    fprintf(f, "\" data-placements=\"%u\" data-shapes=\"%u\" data-aggregated=\"%u\" data-unplaced=\"%u\">\n", d->npl,
            d->nshapes, d->nagg, d->nunplaced);
    draw_header(d);
    draw_panels(d);
    if ((st = draw_loops(d)) != SBA_OK) return st;
    if ((st = draw_occupancy(d)) != SBA_OK) return st;
    for (uint32_t i = 0; i < d->npl; i++)
        if (d->pl[i].shape) draw_tensor(d, &d->pl[i]);
    draw_capacity(d);
    fprintf(f, "<path d=\"M%d %dh%d\" class=\"axis\"/>\n", ML, axis_y(d), PW);
    draw_point_ticks(d, axis_y(d), true);
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"end\">point</text>\n", ML - 10, axis_y(d) + 20);
    if ((st = draw_markers(d)) != SBA_OK) return st;
    if ((st = draw_pressure(d)) != SBA_OK) return st;
    fprintf(f, "</g>\n");
    return SBA_OK;
}

static const sba_function_report *report_of(const sba_alloc_report *r, uint32_t i, const char *name)
{
    if (!r) return NULL;
    if (i < r->nfns && r->fns[i].name && !strcmp(r->fns[i].name, name)) return &r->fns[i];
    for (uint32_t k = 0; k < r->nfns; k++)
        if (r->fns[k].name && !strcmp(r->fns[k].name, name)) return &r->fns[k];
    return NULL;
}

static void write_prologue(FILE *f, uint32_t nfns)
{
    int h = (int)(nfns ? nfns : 1) * SECTION_H;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"11\">\n",
            WIDTH, h, WIDTH, h);
    fprintf(f, "<defs>\n<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
               "patternTransform=\"rotate(45)\"><path d=\"M0 0v6\" stroke=\"#000\" stroke-opacity=\"0.45\" "
               "stroke-width=\"2\"/></pattern>\n"
               "<style>\n"
               "text{fill:#222;stroke:none}\n"
               ".h1{font-size:15px;font-weight:bold}\n"
               ".b{font-weight:bold}\n"
               ".mid{text-anchor:middle}\n"
               ".end{text-anchor:end}\n"
               ".panel{fill:#fbfbfb;stroke:#888}\n"
               ".grid{stroke:#e2e2e2;fill:none}\n"
               ".axis{stroke:#444;fill:none}\n"
               ".shade{fill:#000;fill-opacity:0.035}\n"
               ".bar{fill:#777}\n"
               ".tensor rect{fill-opacity:0.88;stroke-width:0.8}\n"
               ".tensor text{font-size:10px}\n"
               ".spilled{stroke:#c00;stroke-width:1.6;stroke-dasharray:4 2}\n"
               ".tensor rect.spilled{stroke-width:1.6}\n"
               ".occ{fill:#3d5a80}\n"
               ".store{fill:#c00}\n"
               ".reload{fill:#1565c0}\n"
               ".cap{stroke:#c00;stroke-width:1.5;fill:none}\n"
               ".capt{fill:#c00}\n"
               ".lb{stroke:#000;stroke-width:1.2;stroke-dasharray:6 3;fill:none}\n"
               ".band{fill:none;stroke-linejoin:round}\n"
               "</style>\n</defs>\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
}

sba_status sba_draw_svg(const bir_module *m, const sba_alloc_report *r, FILE *out, sba_error *err)
{
    if (!m || !out) return sba_err(err, SBA_ERR_USAGE, "sba_draw_svg needs a module and an output");
    write_prologue(out, m->nfns);
    sba_status st = SBA_OK;
    for (uint32_t i = 0; i < m->nfns && st == SBA_OK; i++) {
        sba_arena ar;
        sba_arena_init(&ar, m->arena->a);
        fn_draw d = {.out = out, .ar = &ar, .err = err, .fn = m->fns[i], .t = &m->target,
                     .fr = report_of(r, i, m->fns[i]->name), .oy = (int)i * SECTION_H};
        st = draw_function(&d);
        sba_arena_free(&ar);
    }
    if (st != SBA_OK) return st;
    fprintf(out, "</svg>\n");
    /* Flushed here so that a full disk is reported by this call, not by fclose. */
    if (fflush(out) != 0 || ferror(out)) return sba_err(err, SBA_ERR_IO, "cannot write the picture");
    return SBA_OK;
}

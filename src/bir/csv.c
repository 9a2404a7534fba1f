/* csv: MiniMalloc CSV problems in, solutions out, and an independent checker.
 *
 * Reading. One table reader serves all three entry points: a header naming
 * the columns (id, lower | begin | start, upper | end, size, and optionally
 * alignment, offset, hint, gaps; `end` is an inclusive upper bound), then one
 * buffer a line. Fields are split at commas and trimmed of blanks; blank
 * lines, a trailing '\r' and a leading byte-order mark are skipped. Every
 * error names its line and column.
 *
 * The encoding (sba_csv_import). Each buffer becomes one set: shape
 * [128, size] uint8, one SB location, both named by the id; a buffer with an
 * offset is pre-placed (addr = offset, base 0). Its lifespan [lower, upper)
 * becomes a def and a last use. With T the sorted distinct times among every
 * lower and every upper - 1 (the buffer's last live step), the one block
 * holds, for each t in T in order:
 *     def@t  Memset   writes every buffer whose lower is t
 *     use@t  Release  reads every buffer whose last live step (upper - 1) is t
 * (either is left out when it would touch nothing), each with time t, so
 * that the widths MiniMalloc's orders read (upper - lower) survive where
 * program points count only the events. The allocator's live
 * range is [point(def@lower), point(use@(upper-1))], inclusive. Since every
 * def@t precedes use@t and both precede every instruction of a later time,
 * point(def@x) <= point(use@y) iff x <= y. Two ranges overlap iff
 *     def@a.lower <= use@(b.upper-1) and def@b.lower <= use@(a.upper-1)
 * iff a.lower <= b.upper - 1 and b.lower <= a.upper - 1
 * iff a.lower < b.upper and b.lower < a.upper: exactly when the lifespans
 * intersect. Buffers that touch ([a, b) then [b, c)) do not conflict, and at
 * def@t the live buffers are exactly those live at step t, so the peak
 * pressure is the problem's peak live bytes. No instruction both reads and
 * writes, so no partners form; every tensor has one def and one use, so
 * memloc_split finds nothing to split.
 *
 * Alignment. The target's sbuf_alignment is the largest power of two that
 * divides every size and given offset, at most 4096; an alignment column
 * raises it to its largest value (BIR has one alignment per target), which
 * every given offset must then honour. A row's own alignment is kept on its
 * set as the extra key "csv_alignment", for export.
 *
 * Export reads the times back from those instruction names; the checker
 * sweeps the buffers by lower time, holding the ones still live, and tests
 * each new buffer's byte range against them.
 *
 * Requires: nothing (export: a module allocated without spilling).
 * Produces: a module with def-use lists built; CSV text; a check report.
 * Complexity: O(n log n) to import and export; O(n log n + n × L) to check,
 * L the most buffers live at once. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/strmap.h"
#include "sballoc/csv.h"
#include "sballoc/program.h"

enum { MAX_FILE_BYTES = 1 << 30, MAX_GCD_ALIGN = 4096, MAX_ALIGN = 1 << 16, PARTITIONS = 128 };

static const char FUNCTION_NAME[] = "csv";
static const char ALIGN_KEY[] = "csv_alignment";
static const char DEF_PREFIX[] = "def@";
static const char USE_PREFIX[] = "use@";
static const char USE_OPCODE[] = "Release";

/* ---- the table --------------------------------------------------------- */

typedef enum csv_col {
    COL_ID = 0,
    COL_LOWER,
    COL_UPPER,
    COL_SIZE,
    COL_ALIGNMENT,
    COL_OFFSET,
    COL_COUNT,
    COL_IGNORED = COL_COUNT
} csv_col;

static const char *const col_names[COL_COUNT] = {"id", "lower", "upper", "size", "alignment", "offset"};

typedef struct csv_row {
    const char *id;
    int64_t lower, upper, size;
    int64_t alignment;       /* 0: not given */
    int64_t offset;          /* -1: not given */
    int line;
    int col[COL_COUNT];      /* column of each field, for messages */
} csv_row;

typedef struct csv_table {
    csv_row *rows;
    uint32_t n, cap;
    int line;                        /* of the header */
    const char *heading[COL_COUNT];  /* each column's name as the header spells it */
    bool has[COL_COUNT];
    bool inclusive_end;              /* the header says `end` */
} csv_table;

/* One field of the line being read. */
typedef struct csv_field {
    const char *s;
    size_t n;
    int col;
} csv_field;

typedef struct csv_reader {
    sba_arena *ar;
    sba_error *err;
    const char *text, *end, *pos;
    int line;
    csv_field *fields;
    uint32_t nfields, capfields;
    int eol_col;                     /* column just past the line's last byte */
} csv_reader;

static bool blank(char c) { return c == ' ' || c == '\t'; }

/* Reads the next line into r->fields; false at the end of the text. */
static bool next_line(csv_reader *r)
{
    while (r->pos < r->end) {
        const char *s = r->pos, *e = memchr(s, '\n', (size_t)(r->end - s));
        if (!e) e = r->end;
        r->pos = e < r->end ? e + 1 : e;
        r->line++;
        if (e > s && e[-1] == '\r') e--;
        const char *line_start = s;
        if (r->line == 1 && e - s >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3;
        const char *p = s;
        while (p < e && blank(*p)) p++;
        if (p == e) continue; /* a blank line */
        r->nfields = 0;
        r->eol_col = (int)(e - line_start) + 1;
        for (const char *f = s;;) {
            const char *c = memchr(f, ',', (size_t)(e - f));
            const char *fe = c ? c : e, *fs = f;
            while (fs < fe && blank(*fs)) fs++;
            while (fe > fs && blank(fe[-1])) fe--;
            if (fs == fe) fs = fe = f; /* an empty field is shown where it starts */
            if (!sba_arena_grow(r->ar, (void **)&r->fields, &r->capfields, r->nfields + 1, sizeof *r->fields))
                return false;
            r->fields[r->nfields++] = (csv_field){fs, (size_t)(fe - fs), (int)(fs - line_start) + 1};
            if (!c) break;
            f = c + 1;
        }
        return true;
    }
    return false;
}

static bool field_is(const csv_field *f, const char *name)
{
    return f->n == strlen(name) && !memcmp(f->s, name, f->n);
}

static sba_status read_header(csv_reader *r, csv_table *t, int where[COL_COUNT], uint32_t *ncols)
{
    if (!next_line(r)) {
        if (r->ar->failed) return sba_err(r->err, SBA_ERR_NOMEM, "out of memory");
        return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line ? r->line : 1, 1,
                           "empty input: expected the header id,lower,upper,size");
    }
    t->line = r->line;
    for (int c = 0; c < COL_COUNT; c++) where[c] = -1;
    for (uint32_t i = 0; i < r->nfields; i++) {
        const csv_field *f = &r->fields[i];
        csv_col c = COL_IGNORED;
        bool end = false;
        if (field_is(f, "id")) c = COL_ID;
        else if (field_is(f, "lower") || field_is(f, "begin") || field_is(f, "start")) c = COL_LOWER;
        else if (field_is(f, "upper")) c = COL_UPPER;
        else if (field_is(f, "end")) c = COL_UPPER, end = true;
        else if (field_is(f, "size")) c = COL_SIZE;
        else if (field_is(f, "alignment")) c = COL_ALIGNMENT;
        else if (field_is(f, "offset")) c = COL_OFFSET;
        else if (!field_is(f, "hint") && !field_is(f, "gaps"))
            return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, f->col,
                               "unknown column \"%.*s\" (expected id, lower, upper, size, alignment, offset, "
                               "hint or gaps; begin or start for lower, end for an inclusive upper)",
                               (int)f->n, f->s);
        if (c == COL_IGNORED) continue;
        if (where[c] >= 0)
            return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, f->col,
                               "column \"%.*s\" repeats column \"%s\" (both give %s)", (int)f->n, f->s,
                               t->heading[c], col_names[c]);
        where[c] = (int)i;
        t->has[c] = true;
        t->heading[c] = sba_arena_strndup(r->ar, f->s, f->n);
        if (!t->heading[c]) return sba_err(r->err, SBA_ERR_NOMEM, "out of memory");
        if (end) t->inclusive_end = true;
    }
    for (int c = 0; c <= COL_SIZE; c++)
        if (where[c] < 0)
            return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, r->eol_col, "missing column \"%s\" in the header",
                               col_names[c]);
    *ncols = r->nfields;
    return SBA_OK;
}

static bool parse_int(const csv_field *f, int64_t *out)
{
    if (f->n == 0 || f->n > 32) return false;
    char buf[40];
    memcpy(buf, f->s, f->n);
    buf[f->n] = '\0';
    const char *p = buf + (buf[0] == '+' || buf[0] == '-');
    if (*p < '0' || *p > '9') return false;
    errno = 0;
    char *end;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

static sba_status int_field(csv_reader *r, const csv_table *t, const csv_field *f, csv_col c, int64_t *out)
{
    if (parse_int(f, out)) return SBA_OK;
    if (f->n == 0)
        return sba_err_pos(r->err, SBA_ERR_PARSE, r->line, f->col, "empty %s field: expected an integer",
                           t->heading[c]);
    return sba_err_pos(r->err, SBA_ERR_PARSE, r->line, f->col, "expected an integer for %s, found \"%.*s\"",
                       t->heading[c], (int)(f->n > 40 ? 40 : f->n), f->s);
}

/* One data line: its fields in range, lifespan non-empty, size positive. */
static sba_status read_row(csv_reader *r, csv_table *t, const int where[COL_COUNT], uint32_t ncols,
                           sba_strmap *ids, csv_row *row)
{
    if (r->nfields != ncols) {
        int col = r->nfields > ncols ? r->fields[ncols].col : r->eol_col;
        return sba_err_pos(r->err, SBA_ERR_PARSE, r->line, col, "expected %u fields as in the header, found %u",
                           ncols, r->nfields);
    }
    memset(row, 0, sizeof *row);
    row->line = r->line;
    row->alignment = 0;
    row->offset = -1;
    for (int c = 0; c < COL_COUNT; c++) row->col[c] = where[c] >= 0 ? r->fields[where[c]].col : 0;
    const csv_field *fid = &r->fields[where[COL_ID]];
    if (fid->n == 0) return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, fid->col, "empty id");
    if (!(row->id = sba_arena_strndup(r->ar, fid->s, fid->n))) return sba_err(r->err, SBA_ERR_NOMEM, "out of memory");
    void *first = NULL;
    int put = sba_strmap_put(ids, row->id, (void *)(intptr_t)r->line, &first);
    if (put < 0) return sba_err(r->err, SBA_ERR_NOMEM, "out of memory");
    if (put == 0)
        return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, fid->col, "duplicate id \"%s\" (first on line %d)",
                           row->id, (int)(intptr_t)first);
    int64_t v[COL_COUNT] = {0};
    for (int c = COL_LOWER; c <= COL_SIZE; c++) {
        sba_status st = int_field(r, t, &r->fields[where[c]], (csv_col)c, &v[c]);
        if (st != SBA_OK) return st;
    }
    for (int c = COL_ALIGNMENT; c <= COL_OFFSET; c++) {
        if (where[c] < 0 || r->fields[where[c]].n == 0) continue; /* absent or empty: not given */
        sba_status st = int_field(r, t, &r->fields[where[c]], (csv_col)c, &v[c]);
        if (st != SBA_OK) return st;
        if (c == COL_ALIGNMENT) row->alignment = v[c];
        else row->offset = v[c];
        if (v[c] < (c == COL_ALIGNMENT ? 1 : 0))
            return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, row->col[c], "%s %lld must be %s", t->heading[c],
                               (long long)v[c], c == COL_ALIGNMENT ? "positive" : "at least 0");
    }
    row->lower = v[COL_LOWER];
    if (t->inclusive_end) {
        if (v[COL_UPPER] < v[COL_LOWER] || v[COL_UPPER] == INT64_MAX)
            return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, row->col[COL_UPPER],
                               "%s %lld is before %s %lld: the lifespan is empty", t->heading[COL_UPPER],
                               (long long)v[COL_UPPER], t->heading[COL_LOWER], (long long)v[COL_LOWER]);
        row->upper = v[COL_UPPER] + 1;
    } else {
        if (v[COL_UPPER] <= v[COL_LOWER])
            return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, row->col[COL_UPPER],
                               "%s %lld is not after %s %lld: the lifespan [%s, %s) is empty",
                               t->heading[COL_UPPER], (long long)v[COL_UPPER], t->heading[COL_LOWER],
                               (long long)v[COL_LOWER], t->heading[COL_LOWER], t->heading[COL_UPPER]);
        row->upper = v[COL_UPPER];
    }
    row->size = v[COL_SIZE];
    if (row->size <= 0)
        return sba_err_pos(r->err, SBA_ERR_SCHEMA, r->line, row->col[COL_SIZE], "size %lld must be positive",
                           (long long)row->size);
    return SBA_OK;
}

/* Reads the whole table into the arena. */
static sba_status read_table(sba_arena *ar, const char *text, size_t len, csv_table *t, sba_error *err)
{
    memset(t, 0, sizeof *t);
    csv_reader r = {.ar = ar, .err = err, .text = text, .end = text + len, .pos = text};
    int where[COL_COUNT];
    uint32_t ncols = 0;
    sba_status st = read_header(&r, t, where, &ncols);
    if (st != SBA_OK) return st;
    sba_strmap *ids = sba_strmap_new(ar);
    if (!ids) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    while (next_line(&r)) {
        if (!sba_arena_grow(ar, (void **)&t->rows, &t->cap, t->n + 1, sizeof *t->rows))
            return sba_err(err, SBA_ERR_NOMEM, "out of memory");
        st = read_row(&r, t, where, ncols, ids, &t->rows[t->n]);
        if (st != SBA_OK) return st;
        t->n++;
    }
    if (ar->failed) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    return SBA_OK;
}

static sba_status check_capacity(int64_t capacity, sba_error *err)
{
    if (capacity < 1 || capacity > SBA_CSV_MAX_CAPACITY)
        return sba_err(err, SBA_ERR_USAGE, "capacity %lld is out of range (1 to %lld bytes)", (long long)capacity,
                       (long long)SBA_CSV_MAX_CAPACITY);
    return SBA_OK;
}

/* Reads a whole file ("-": standard input) with the hook's own calls. */
static sba_status read_file(const char *path, const sba_allocator *a, char **out, size_t *len, sba_error *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return sba_err(err, SBA_ERR_IO, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = sba_malloc(a, cap);
    sba_status st = buf ? SBA_OK : sba_err(err, SBA_ERR_NOMEM, "out of memory reading the input");
    while (st == SBA_OK) {
        if (n == cap) {
            char *nb = cap >= MAX_FILE_BYTES ? NULL : sba_realloc(a, buf, cap * 2);
            if (!nb) {
                st = cap >= MAX_FILE_BYTES
                         ? sba_err(err, SBA_ERR_LIMIT, "the input is larger than the %d MiB limit", MAX_FILE_BYTES >> 20)
                         : sba_err(err, SBA_ERR_NOMEM, "out of memory reading the input");
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (st == SBA_OK && ferror(f)) st = sba_err(err, SBA_ERR_IO, "read error");
    if (f != stdin) fclose(f);
    if (st != SBA_OK) {
        sba_free(a, buf);
        return st;
    }
    *out = buf;
    *len = n;
    return SBA_OK;
}

/* ---- import ------------------------------------------------------------ */

/* One end of a lifespan: the def at lower or the use at upper - 1. */
typedef struct csv_event {
    int64_t time;
    uint32_t use;  /* 0 def, 1 use: a def at t precedes the use at t */
    uint32_t row;
} csv_event;

static int event_cmp(const void *pa, const void *pb)
{
    const csv_event *a = pa, *b = pb;
    if (a->time != b->time) return a->time < b->time ? -1 : 1;
    if (a->use != b->use) return a->use < b->use ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Values against the capacity, and the target's alignment. */
static sba_status import_limits(const csv_table *t, int64_t capacity, int64_t *align, sba_error *err)
{
    int64_t g = 0, col_align = 1;
    for (uint32_t i = 0; i < t->n; i++) {
        const csv_row *row = &t->rows[i];
        if (row->size > capacity)
            return sba_err_pos(err, SBA_ERR_SCHEMA, row->line, row->col[COL_SIZE],
                               "size %lld of buffer \"%s\" exceeds the capacity %lld", (long long)row->size, row->id,
                               (long long)capacity);
        if (row->offset >= 0 && (row->offset > capacity || row->offset + row->size > capacity))
            return sba_err_pos(err, SBA_ERR_SCHEMA, row->line, row->col[COL_OFFSET],
                               "fixed buffer \"%s\" at offset %lld ends at %lld, beyond the capacity %lld", row->id,
                               (long long)row->offset, (long long)row->offset + row->size, (long long)capacity);
        if (row->alignment > 0 && (row->alignment > MAX_ALIGN || (row->alignment & (row->alignment - 1))))
            return sba_err_pos(err, SBA_ERR_SCHEMA, row->line, row->col[COL_ALIGNMENT],
                               "alignment %lld of buffer \"%s\" is not a power of two up to %d",
                               (long long)row->alignment, row->id, MAX_ALIGN);
        g = gcd64(g, row->size);
        if (row->offset > 0) g = gcd64(g, row->offset);
        if (row->alignment > col_align) col_align = row->alignment;
    }
    int64_t a = g ? g & -g : 1;
    if (a > MAX_GCD_ALIGN) a = MAX_GCD_ALIGN;
    if (col_align > a) a = col_align;
    for (uint32_t i = 0; i < t->n; i++) {
        const csv_row *row = &t->rows[i];
        if (row->offset >= 0 && row->offset % a)
            return sba_err_pos(err, SBA_ERR_SCHEMA, row->line, row->col[COL_OFFSET],
                               "offset %lld of buffer \"%s\" is not a multiple of %lld, the largest alignment "
                               "of the alignment column (the target has one SB alignment)",
                               (long long)row->offset, row->id, (long long)a);
    }
    *align = a;
    return SBA_OK;
}

static bir_set *add_buffer(bir_function *fn, const csv_row *row, sba_error *err)
{
    sba_arena *ar = fn->module->arena;
    bir_set *set = bir_set_add(fn, row->id, err);
    if (!set) return NULL;
    set->dtype = BIR_DT_UINT8;
    set->rank = 2;
    set->shape = sba_arena_array(ar, 2, sizeof *set->shape);
    if (!set->shape) return sba_err(err, SBA_ERR_NOMEM, "out of memory"), NULL;
    set->shape[0] = PARTITIONS;
    set->shape[1] = row->size;
    if (row->alignment > 0) {
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)row->alignment);
        set->extras.v = sba_arena_array(ar, 1, sizeof *set->extras.v);
        if (!set->extras.v || !(set->extras.v[0].json = sba_arena_strdup(ar, num)))
            return sba_err(err, SBA_ERR_NOMEM, "out of memory"), NULL;
        set->extras.v[0].key = ALIGN_KEY;
        set->extras.n = 1;
    }
    bir_location *loc = bir_location_add(set, row->id, BIR_MEM_SB, err);
    if (!loc) return NULL;
    if (row->offset >= 0) {
        loc->addr = row->offset;
        loc->base = 0;
    }
    return set;
}

/* One def@t or use@t instruction touching the buffers ev[0..n). */
static sba_status add_event_inst(bir_function *fn, bir_block *b, bir_set **sets, const csv_event *ev, uint32_t n,
                                 sba_error *err)
{
    sba_arena *ar = fn->module->arena;
    bool use = ev[0].use;
    char name[48];
    snprintf(name, sizeof name, "%s%lld", use ? USE_PREFIX : DEF_PREFIX, (long long)ev[0].time);
    bir_inst *in = bir_inst_add(fn, b, name, use ? BIR_OP_OTHER : BIR_OP_MEMSET, err);
    if (!in) return err->code;
    in->time = ev[0].time, in->has_time = true;
    bir_operand *ops = sba_arena_array(ar, n, sizeof *ops);
    if (!ops) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t k = 0; k < n; k++)
        if (!bir_operand_set_whole(&ops[k], sets[ev[k].row])) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    if (use) {
        in->opcode_name = USE_OPCODE;
        in->ins = ops;
        in->nins = n;
    } else {
        in->engine = BIR_ENG_POOL;
        in->outs = ops;
        in->nouts = n;
    }
    return SBA_OK;
}

static sba_status build_module(bir_module *m, const csv_table *t, int64_t capacity, int64_t align,
                               sba_arena *scratch, sba_error *err)
{
    m->has_target = true;
    m->target.name = "csv";
    m->target.partitions = PARTITIONS;
    m->target.sbuf_bytes = capacity;
    m->target.sbuf_align = (uint32_t)align;
    bir_function *fn = bir_function_add(m, FUNCTION_NAME, err);
    if (!fn) return err->code;
    bir_set **sets = sba_arena_array(scratch, (size_t)t->n + 1, sizeof *sets);
    csv_event *ev = sba_arena_array(scratch, 2 * (size_t)t->n + 1, sizeof *ev);
    if (!sets || !ev) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < t->n; i++) {
        if (!(sets[i] = add_buffer(fn, &t->rows[i], err))) return err->code;
        ev[2 * i] = (csv_event){t->rows[i].lower, 0, i};
        ev[2 * i + 1] = (csv_event){t->rows[i].upper - 1, 1, i};
    }
    qsort(ev, 2 * (size_t)t->n, sizeof *ev, event_cmp);
    bir_block *b = bir_block_add(fn, NULL, "entry", err);
    if (!b) return err->code;
    for (uint32_t i = 0, j; i < 2 * t->n; i = j) {
        for (j = i + 1; j < 2 * t->n && ev[j].time == ev[i].time && ev[j].use == ev[i].use;) j++;
        sba_status st = add_event_inst(fn, b, sets, &ev[i], j - i, err);
        if (st != SBA_OK) return st;
    }
    sba_status st = bir_function_build_def_use(fn, err);
    if (st == SBA_OK && bir_module_failed(m)) st = sba_err(err, SBA_ERR_NOMEM, "out of memory");
    return st == SBA_OK ? bir_validate_module(m, err) : st;
}

bir_module *sba_csv_import(const char *text, size_t len, int64_t capacity, const sba_allocator *a, sba_error *err)
{
    sba_error local;
    if (!err) err = &local;
    sba_error_clear(err);
    if (check_capacity(capacity, err) != SBA_OK) return NULL;
    sba_arena scratch;
    sba_arena_init(&scratch, a);
    csv_table t;
    int64_t align = 1;
    bir_module *m = NULL;
    sba_status st = read_table(&scratch, text, len, &t, err);
    if (st == SBA_OK) st = import_limits(&t, capacity, &align, err);
    if (st == SBA_OK && !(m = bir_module_new(a))) st = sba_err(err, SBA_ERR_NOMEM, "out of memory");
    if (st == SBA_OK) st = build_module(m, &t, capacity, align, &scratch, err);
    sba_arena_free(&scratch);
    if (st != SBA_OK) {
        bir_module_free(m);
        return NULL;
    }
    return m;
}

bir_module *sba_csv_import_file(const char *path, int64_t capacity, const sba_allocator *a, sba_error *err)
{
    char *text;
    size_t len;
    if (read_file(path, a, &text, &len, err) != SBA_OK) return NULL;
    bir_module *m = sba_csv_import(text, len, capacity, a, err);
    sba_free(a, text);
    return m;
}

/* ---- export ------------------------------------------------------------ */

/* Growable text in the module's allocator; a failure is sticky. */
typedef struct text_buf {
    const sba_allocator *a;
    char *p;
    size_t n, cap;
    bool failed;
} text_buf;

static void put(text_buf *b, const char *fmt, ...) SBA_PRINTF(2, 3);

static void put(text_buf *b, const char *fmt, ...)
{
    if (b->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->failed = true;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->n + (size_t)k) cap *= 2;
        char *np = sba_realloc(b->a, b->p, cap);
        if (!np) {
            b->failed = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

/* The time in an instruction name "<prefix><integer>". */
static bool name_time(const char *name, const char *prefix, int64_t *t)
{
    size_t k = strlen(prefix);
    if (strncmp(name, prefix, k) != 0) return false;
    csv_field f = {name + k, strlen(name + k), 0};
    return parse_int(&f, t);
}

static const char *set_alignment(const bir_set *set)
{
    for (uint32_t i = 0; i < set->extras.n; i++)
        if (!strcmp(set->extras.v[i].key, ALIGN_KEY)) return set->extras.v[i].json;
    return NULL;
}

/* The lifespan [lower, upper) of a buffer, from its def@ and use@ accesses. */
static sba_status buffer_span(const bir_location *loc, int64_t *lower, int64_t *upper, sba_error *err)
{
    const bir_storage *s = &loc->storage;
    if (!s->nwriters || !s->nreaders)
        return sba_err(err, SBA_ERR_SCHEMA, "buffer \"%s\" is not both written and read: not an imported CSV "
                       "buffer", loc->set->name);
    for (int w = 0; w < 2; w++) {
        const bir_access *acc = w ? s->writers : s->readers;
        uint32_t n = w ? s->nwriters : s->nreaders;
        for (uint32_t k = 0; k < n; k++) {
            int64_t t;
            if (!name_time(acc[k].inst->name, w ? DEF_PREFIX : USE_PREFIX, &t))
                return sba_err(err, SBA_ERR_SCHEMA, "buffer \"%s\" is %s by instruction \"%s\", not by a %s<time> "
                               "instruction: not an imported CSV buffer", loc->set->name,
                               w ? "written" : "read", acc[k].inst->name, w ? DEF_PREFIX : USE_PREFIX);
            if (w && (k == 0 || t < *lower)) *lower = t;
            if (!w && (k == 0 || t + 1 > *upper)) {
                if (t == INT64_MAX) return sba_err(err, SBA_ERR_SCHEMA, "time %lld out of range", (long long)t);
                *upper = t + 1;
            }
        }
    }
    return SBA_OK;
}

static sba_status export_set(text_buf *b, const bir_set *set, bool alignment_col, sba_error *err)
{
    if (set->nlocs != 1 || set->locs[0]->type != BIR_MEM_SB) {
        for (uint32_t l = 0; l < set->nlocs; l++)
            if (set->locs[l]->type == BIR_MEM_DRAM)
                return sba_err(err, SBA_ERR_ALLOC, "buffer \"%s\" was spilled to DRAM: the allocation does not "
                               "fit, so it is not a packing", set->name);
        return sba_err(err, SBA_ERR_SCHEMA, "buffer \"%s\" is not one SB tensor: not an imported CSV buffer",
                       set->name);
    }
    const bir_location *loc = set->locs[0];
    if (bir_set_partitions(set) != PARTITIONS)
        return sba_err(err, SBA_ERR_SCHEMA, "buffer \"%s\" has %lld partitions, not %d: not an imported CSV "
                       "buffer", set->name, (long long)bir_set_partitions(set), PARTITIONS);
    if (loc->addr == BIR_NO_ADDR || loc->base == BIR_NO_BASE)
        return sba_err(err, SBA_ERR_ALLOC, "buffer \"%s\" has no SB address: allocate the module first", set->name);
    if (loc->base != 0)
        return sba_err(err, SBA_ERR_SCHEMA, "buffer \"%s\" is placed at base partition %d, not 0", set->name,
                       loc->base);
    int64_t lower = 0, upper = 0;
    sba_status st = buffer_span(loc, &lower, &upper, err);
    if (st != SBA_OK) return st;
    int64_t size = bir_set_nblocks(set) * bir_set_bytes_per_block(set);
    put(b, "%s,%lld,%lld,%lld", set->name, (long long)lower, (long long)upper, (long long)size);
    if (alignment_col) {
        const char *al = set_alignment(set);
        put(b, ",%s", al ? al : "");
    }
    put(b, ",%lld\n", (long long)loc->addr);
    return SBA_OK;
}

sba_status sba_csv_export(const bir_module *m, char **out, size_t *len, sba_error *err)
{
    sba_error_clear(err);
    *out = NULL;
    *len = 0;
    if (m->nfns != 1)
        return sba_err(err, SBA_ERR_SCHEMA, "CSV export needs a module of one function; this one has %u", m->nfns);
    const bir_function *fn = m->fns[0];
    bool alignment_col = false;
    for (uint32_t s = 0; s < fn->nsets && !alignment_col; s++) alignment_col = set_alignment(fn->sets[s]) != NULL;
    text_buf b = {.a = m->arena->a};
    put(&b, "id,lower,upper,size%s,offset\n", alignment_col ? ",alignment" : "");
    for (uint32_t s = 0; s < fn->nsets; s++) {
        sba_status st = export_set(&b, fn->sets[s], alignment_col, err);
        if (st != SBA_OK) {
            sba_free(b.a, b.p);
            return st;
        }
    }
    if (b.failed) {
        sba_free(b.a, b.p);
        return sba_err(err, SBA_ERR_NOMEM, "out of memory while writing CSV");
    }
    *out = b.p;
    *len = b.n;
    return SBA_OK;
}

sba_status sba_csv_export_file(const bir_module *m, const char *path, sba_error *err)
{
    char *text;
    size_t len;
    sba_status st = sba_csv_export(m, &text, &len, err);
    return st == SBA_OK ? bir_write_text(m, text, len, path, err) : st;
}

/* ---- check ------------------------------------------------------------- */

/* qsort has no context argument: sort (lower, index) pairs instead. */
typedef struct row_key {
    int64_t lower;
    uint32_t row;
} row_key;

static int key_cmp(const void *pa, const void *pb)
{
    const row_key *a = pa, *b = pb;
    if (a->lower != b->lower) return a->lower < b->lower ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* A buffer's start (+size) or end (-size) at a time. */
typedef struct live_event {
    int64_t time, delta;
} live_event;

/* By time, ends first: a buffer ending at t and one starting at t are never
 * live together. */
static int live_cmp(const void *pa, const void *pb)
{
    const live_event *a = pa, *b = pb;
    if (a->time != b->time) return a->time < b->time ? -1 : 1;
    return a->delta < b->delta ? -1 : a->delta > b->delta;
}

static int64_t peak_live(const csv_table *t, live_event *ev)
{
    for (uint32_t i = 0; i < t->n; i++) {
        ev[2 * i] = (live_event){t->rows[i].lower, t->rows[i].size};
        ev[2 * i + 1] = (live_event){t->rows[i].upper, -t->rows[i].size};
    }
    qsort(ev, 2 * (size_t)t->n, sizeof *ev, live_cmp);
    int64_t live = 0, peak = 0;
    for (uint32_t i = 0; i < 2 * t->n; i++) {
        live += ev[i].delta;
        if (live > peak) peak = live;
    }
    return peak;
}

static sba_status check_rows(const csv_table *t, int64_t capacity, sba_csv_check_report *rep, sba_error *err)
{
    if (!t->has[COL_OFFSET])
        return sba_err_pos(err, SBA_ERR_SCHEMA, t->line, 1, "no offset column: the CSV is a problem, not a packing");
    for (uint32_t i = 0; i < t->n; i++) {
        const csv_row *r = &t->rows[i];
        if (r->offset < 0)
            return sba_err_pos(err, SBA_ERR_ALLOC, r->line, r->col[COL_OFFSET], "buffer \"%s\" has no offset", r->id);
        if (r->offset > capacity || r->offset + r->size > capacity)
            return sba_err_pos(err, SBA_ERR_ALLOC, r->line, r->col[COL_OFFSET],
                               "buffer \"%s\" at offset %lld ends at %lld, beyond the capacity %lld", r->id,
                               (long long)r->offset, (long long)(r->offset + r->size), (long long)capacity);
        if (r->alignment > 0 && r->offset % r->alignment)
            return sba_err_pos(err, SBA_ERR_ALLOC, r->line, r->col[COL_OFFSET],
                               "buffer \"%s\" at offset %lld is not aligned to %lld", r->id, (long long)r->offset,
                               (long long)r->alignment);
        if (r->offset + r->size > rep->peak_used) rep->peak_used = r->offset + r->size;
    }
    return SBA_OK;
}

static sba_status sweep(const csv_table *t, sba_arena *ar, sba_csv_check_report *rep, sba_error *err)
{
    row_key *keys = sba_arena_array(ar, (size_t)t->n + 1, sizeof *keys);
    uint32_t *live = sba_arena_array(ar, (size_t)t->n + 1, sizeof *live), nlive = 0;
    if (!keys || !live) return sba_err(err, SBA_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < t->n; i++) keys[i] = (row_key){t->rows[i].lower, i};
    qsort(keys, t->n, sizeof *keys, key_cmp);
    for (uint32_t k = 0; k < t->n; k++) {
        const csv_row *b = &t->rows[keys[k].row];
        uint32_t kept = 0;
        for (uint32_t j = 0; j < nlive; j++)
            if (t->rows[live[j]].upper > b->lower) live[kept++] = live[j];
        nlive = kept;
        for (uint32_t j = 0; j < nlive; j++) {
            const csv_row *a = &t->rows[live[j]];
            rep->conflicts++;
            if (a->offset < b->offset + b->size && b->offset < a->offset + a->size)
                return sba_err_pos(err, SBA_ERR_ALLOC, b->line, b->col[COL_OFFSET],
                                   "buffers \"%s\" (line %d) and \"%s\" overlap: lifespans [%lld, %lld) and "
                                   "[%lld, %lld) intersect and bytes [%lld, %lld) and [%lld, %lld) overlap",
                                   a->id, a->line, b->id, (long long)a->lower, (long long)a->upper,
                                   (long long)b->lower, (long long)b->upper, (long long)a->offset,
                                   (long long)(a->offset + a->size), (long long)b->offset,
                                   (long long)(b->offset + b->size));
        }
        live[nlive++] = keys[k].row;
    }
    return SBA_OK;
}

sba_status sba_csv_check(const char *text, size_t len, int64_t capacity, sba_csv_check_report *rep,
                         const sba_allocator *a, sba_error *err)
{
    sba_error_clear(err);
    sba_csv_check_report scratch_rep;
    if (!rep) rep = &scratch_rep;
    memset(rep, 0, sizeof *rep);
    sba_status st = check_capacity(capacity, err);
    if (st != SBA_OK) return st;
    sba_arena ar;
    sba_arena_init(&ar, a);
    csv_table t;
    st = read_table(&ar, text, len, &t, err);
    if (st == SBA_OK) {
        rep->buffers = t.n;
        live_event *ev = sba_arena_array(&ar, 2 * (size_t)t.n + 1, sizeof *ev);
        if (!ev) st = sba_err(err, SBA_ERR_NOMEM, "out of memory");
        else rep->peak_live = peak_live(&t, ev);
    }
    if (st == SBA_OK) st = check_rows(&t, capacity, rep, err);
    if (st == SBA_OK) st = sweep(&t, &ar, rep, err);
    sba_arena_free(&ar);
    return st;
}

sba_status sba_csv_check_file(const char *path, int64_t capacity, sba_csv_check_report *rep,
                              const sba_allocator *a, sba_error *err)
{
    char *text;
    size_t len;
    sba_status st = read_file(path, a, &text, &len, err);
    if (st != SBA_OK) return st;
    st = sba_csv_check(text, len, capacity, rep, a, err);
    sba_free(a, text);
    return st;
}

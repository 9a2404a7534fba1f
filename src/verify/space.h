/* The verifier's private data structures: the ownership space (which value
 * holds every byte of every partition of one address space) and a hash map
 * from (tag, index, 64-bit number) keys to 32-bit values.
 *
 * A space covers bytes [lo, hi) of `nparts` partitions. It is cut into pages
 * of page_bytes bytes; a page is a sorted array of byte segments, and a
 * segment holds the partition runs [p0, p1) -> (value, writer) that cover all
 * of [0, nparts) for its bytes. Adjacent equal segments are merged after each
 * write, so a tensor written as one rectangle stays one segment with one run
 * per page. A page nobody wrote holds the space's initial value and takes no
 * memory. Nothing here is per byte: cost follows the number of distinct
 * rectangles, not the bytes they cover.
 *
 * Memory comes from the caller's arena; run arrays are recycled through
 * free lists by capacity class, owned by a vpool (no statics). */
#ifndef SBA_VERIFY_SPACE_H
#define SBA_VERIFY_SPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"

/* Value 0 means "never written". A writer is an instruction index, or
 * VSPACE_NO_WRITER for an initial or entry value. */
enum { VSPACE_NONE = 0, VSPACE_CLASSES = 32 };
#define VSPACE_NO_WRITER UINT32_MAX

typedef struct vrun {
    uint32_t p0, p1;   /* partitions [p0, p1) */
    uint32_t val, by;  /* value id and the instruction that wrote it there */
} vrun;

typedef struct vseg {
    int64_t lo;        /* the segment runs to the next segment's lo (or the page end) */
    vrun *r;
    uint32_t n, cls;   /* runs used; capacity class (capacity 2 << cls) */
} vseg;

typedef struct vpage {
    vseg *s;           /* n == 0: untouched, holds the initial value */
    uint32_t n, cap;
} vpage;

typedef struct vpool {
    sba_arena *ar;
    vrun *free[VSPACE_CLASSES]; /* recycled run arrays; the first element links */
    vrun *tmp;                  /* scratch for rebuilding one segment's runs */
    uint32_t captmp;
} vpool;

typedef struct vspace {
    int64_t lo, hi, page_bytes;
    uint32_t npages, nparts;
    uint32_t init_val;
    vpage *pages;
} vspace;

/* One rectangle of uniform content reported by vspace_scan. */
typedef struct vpiece {
    int64_t x0, x1;    /* bytes [x0, x1) */
    uint32_t p0, p1;   /* partitions [p0, p1) */
    uint32_t val, by;
} vpiece;

void sba_vpool_init(vpool *pool, sba_arena *ar);

/* A space over bytes [lo, hi) of nparts partitions, all holding init_val.
 * page_bytes <= 0 makes one page of the whole range. False when out of memory. */
bool sba_vspace_init(vspace *s, vpool *pool, int64_t lo, int64_t hi, uint32_t nparts, uint32_t init_val,
                 int64_t page_bytes);

/* Sets partitions [p0, p1) x bytes [x0, x1) to (val, by). The rectangle must
 * lie inside the space. False when out of memory. */
bool sba_vspace_write(vspace *s, vpool *pool, uint32_t p0, uint32_t p1, int64_t x0, int64_t x1,
                  uint32_t val, uint32_t by);

/* Calls visit for every uniform piece of partitions [p0, p1) x bytes [x0, x1),
 * in byte order, then partition order within a segment. Stops and returns the
 * first non-zero result of visit; 0 when every piece was visited. */
typedef int (*vspace_visit)(void *ud, const vpiece *pc);
int sba_vspace_scan(const vspace *s, uint32_t p0, uint32_t p1, int64_t x0, int64_t x1, vspace_visit visit,
                void *ud);

/* Segments held by the space (for reports and tests). */
uint64_t sba_vspace_segments(const vspace *s);

/* ---- key map ----------------------------------------------------------- */

typedef struct vkey {
    uint64_t a;        /* (tag << 32) | index */
    int64_t b;         /* block, or a pointer's bits */
} vkey;

typedef struct vmap_slot {
    vkey k;
    uint32_t v;
    bool used;
} vmap_slot;

typedef struct vmap {
    sba_arena *ar;
    vmap_slot *slots;
    uint32_t cap, n;   /* cap: power of two or 0 */
} vmap;

static inline vkey vkey_make(uint32_t tag, uint32_t index, int64_t b)
{
    return (vkey){((uint64_t)tag << 32) | index, b};
}

void sba_vmap_init(vmap *m, sba_arena *ar);
/* The value of k, or false when absent. */
bool sba_vmap_get(const vmap *m, vkey k, uint32_t *v);
/* Inserts or replaces; false when out of memory. */
bool sba_vmap_put(vmap *m, vkey k, uint32_t v);

#endif

/* Unit tests of the base module: arena, growable arrays, bit sets, the string
 * map and the error setters. A counting allocator hook checks that every byte
 * goes through sba_allocator and makes the Nth call fail. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/bitset.h"
#include "base/error.h"
#include "base/strmap.h"
#include "base/vec.h"

/* ---- a counting hook that can fail ------------------------------------- */

typedef struct counting {
    long calls;      /* successful alloc/realloc calls */
    long frees;
    long fail_after; /* calls allowed before every further call fails; -1: never */
    size_t largest;  /* largest request seen */
} counting;

static void *c_alloc(void *ud, size_t n)
{
    counting *c = ud;
    if (n > c->largest) c->largest = n;
    if (c->fail_after >= 0 && c->calls >= c->fail_after) return NULL;
    c->calls++;
    return malloc(n);
}

static void *c_realloc(void *ud, void *p, size_t n)
{
    counting *c = ud;
    if (c->fail_after >= 0 && c->calls >= c->fail_after) return NULL;
    c->calls++;
    return realloc(p, n);
}

static void c_free(void *ud, void *p)
{
    counting *c = ud;
    c->frees++;
    free(p);
}

static sba_allocator hook(counting *c, long fail_after)
{
    memset(c, 0, sizeof *c);
    c->fail_after = fail_after;
    return (sba_allocator){c_alloc, c_realloc, c_free, c};
}

/* ---- arena ------------------------------------------------------------- */

Test(arena, allocations_are_16_byte_aligned_and_disjoint)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    unsigned char *prev = NULL;
    size_t prev_size = 0;
    for (size_t size = 0; size < 200; size++) {
        unsigned char *p = sba_arena_alloc(&ar, size);
        cr_assert_not_null(p);
        cr_assert_eq((uintptr_t)p % 16, 0, "size %zu gave %p", size, (void *)p);
        memset(p, (int)(size & 0xff), size);
        if (prev) cr_assert(p >= prev + prev_size || p + size <= prev, "overlap at size %zu", size);
        prev = p;
        prev_size = size;
    }
    cr_assert_not(ar.failed);
    sba_arena_free(&ar);
}

Test(arena, grows_across_chunks_and_keeps_earlier_data)
{
    counting c;
    sba_allocator a = hook(&c, -1);
    sba_arena ar;
    sba_arena_init(&ar, &a);
    enum { N = 3000, SZ = 1000 };
    unsigned char *blocks[N];
    for (int i = 0; i < N; i++) {
        blocks[i] = sba_arena_alloc(&ar, SZ);
        cr_assert_not_null(blocks[i]);
        memset(blocks[i], i & 0xff, SZ);
    }
    /* 3 MB cannot fit one 64 KiB chunk: the arena took several from the hook. */
    cr_assert_gt(c.calls, 3);
    cr_assert_geq(ar.bytes, (size_t)N * SZ);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < SZ; k += 97) cr_assert_eq(blocks[i][k], i & 0xff, "block %d byte %d", i, k);
    /* Chunk sizes grow with the arena, so the count stays small. */
    cr_assert_lt(c.calls, 40, "took %ld chunks for 3 MB", c.calls);
    sba_arena_free(&ar);
    cr_assert_eq(c.frees, c.calls, "every chunk is returned to the hook");
    cr_assert_eq(ar.bytes, 0);
}

Test(arena, large_request_gets_a_chunk_of_its_own)
{
    counting c;
    sba_allocator a = hook(&c, -1);
    sba_arena ar;
    sba_arena_init(&ar, &a);
    char *small = sba_arena_alloc(&ar, 8);
    char *big = sba_arena_alloc(&ar, 5u << 20);
    cr_assert_not_null(small);
    cr_assert_not_null(big);
    cr_assert_geq(c.largest, (size_t)(5u << 20));
    memset(big, 1, 5u << 20);
    sba_arena_free(&ar);
}

Test(arena, failure_flag_is_sticky)
{
    counting c;
    sba_allocator a = hook(&c, 1); /* one chunk, then nothing */
    sba_arena ar;
    sba_arena_init(&ar, &a);
    cr_assert_not_null(sba_arena_alloc(&ar, 100));
    cr_assert_not(ar.failed);
    /* Larger than what is left in the first chunk: needs a second one. */
    cr_assert_null(sba_arena_alloc(&ar, 1u << 20));
    cr_assert(ar.failed);
    /* A small request still fits the first chunk, but the flag stays set so
     * that one check at the end catches the earlier failure. */
    cr_assert_not_null(sba_arena_alloc(&ar, 16));
    cr_assert(ar.failed);
    static char longname[1 << 17];
    memset(longname, 'n', sizeof longname - 1);
    cr_assert_null(sba_arena_strdup(&ar, longname));
    cr_assert(ar.failed);
    sba_arena_free(&ar);
    cr_assert_eq(c.frees, 1);
}

Test(arena, first_chunk_failure_returns_null)
{
    counting c;
    sba_allocator a = hook(&c, 0);
    sba_arena ar;
    sba_arena_init(&ar, &a);
    cr_assert_null(sba_arena_alloc(&ar, 1));
    cr_assert_null(sba_arena_zalloc(&ar, 1));
    cr_assert_null(sba_arena_strdup(&ar, "x"));
    cr_assert(ar.failed);
    sba_arena_free(&ar);
    cr_assert_eq(c.frees, 0);
}

Test(arena, size_overflow_fails_instead_of_wrapping)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    cr_assert_null(sba_arena_alloc(&ar, SIZE_MAX));
    cr_assert(ar.failed);
    ar.failed = false;
    cr_assert_null(sba_arena_alloc(&ar, SIZE_MAX - 7));
    cr_assert(ar.failed);
    ar.failed = false;
    cr_assert_null(sba_arena_array(&ar, SIZE_MAX / 4, 8));
    cr_assert(ar.failed);
    sba_arena_free(&ar);
}

Test(arena, zalloc_and_array_are_zeroed)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    /* Dirty the chunk, then reuse none of it: zalloc must clear what it hands out. */
    unsigned char *d = sba_arena_alloc(&ar, 4096);
    memset(d, 0xAB, 4096);
    unsigned char *z = sba_arena_zalloc(&ar, 333);
    for (int i = 0; i < 333; i++) cr_assert_eq(z[i], 0);
    uint64_t *arr = sba_arena_array(&ar, 100, sizeof *arr);
    for (int i = 0; i < 100; i++) cr_assert_eq(arr[i], 0);
    cr_assert_not_null(sba_arena_array(&ar, 0, 8), "an empty array is still a valid pointer");
    sba_arena_free(&ar);
}

Test(arena, strdup_and_strndup_copy)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    char src[] = "partition";
    char *a = sba_arena_strdup(&ar, src);
    char *b = sba_arena_strndup(&ar, src, 4);
    src[0] = 'X';
    cr_assert_str_eq(a, "partition");
    cr_assert_str_eq(b, "part");
    cr_assert_str_eq(sba_arena_strdup(&ar, ""), "");
    sba_arena_free(&ar);
}

Test(arena, hook_alloc_realloc_free)
{
    counting c;
    sba_allocator a = hook(&c, -1);
    char *p = sba_malloc(&a, 10);
    cr_assert_not_null(p);
    p = sba_realloc(&a, p, 100);
    cr_assert_not_null(p);
    sba_free(&a, p);
    sba_free(&a, NULL);
    cr_assert_eq(c.calls, 2);
    cr_assert_eq(c.frees, 1);
    /* NULL is the C library. */
    void *q = sba_malloc(NULL, 0);
    cr_assert_not_null(q);
    sba_free(NULL, q);
    cr_assert_eq(sba_default_allocator()->alloc != NULL, 1);
}

/* ---- sba_arena_grow and SBA_VEC_PUSH ----------------------------------- */

Test(arena_grow, starts_at_4_and_doubles_keeping_contents)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    int *v = NULL;
    uint32_t cap = 0;
    cr_assert(sba_arena_grow(&ar, (void **)&v, &cap, 1, sizeof *v));
    cr_assert_eq(cap, 4);
    for (int i = 0; i < 4; i++) v[i] = i * 10;
    int *before = v;
    cr_assert(sba_arena_grow(&ar, (void **)&v, &cap, 4, sizeof *v));
    cr_assert_eq(v, before, "no move while need <= cap");
    cr_assert_eq(cap, 4);
    cr_assert(sba_arena_grow(&ar, (void **)&v, &cap, 5, sizeof *v));
    cr_assert_eq(cap, 8);
    for (int i = 0; i < 4; i++) cr_assert_eq(v[i], i * 10);
    cr_assert(sba_arena_grow(&ar, (void **)&v, &cap, 100, sizeof *v));
    cr_assert_eq(cap, 128);
    for (int i = 0; i < 4; i++) cr_assert_eq(v[i], i * 10);
    sba_arena_free(&ar);
}

Test(arena_grow, failure_leaves_the_array_unchanged)
{
    counting c;
    sba_allocator a = hook(&c, 1);
    sba_arena ar;
    sba_arena_init(&ar, &a);
    uint64_t *v = NULL;
    uint32_t cap = 0;
    cr_assert(sba_arena_grow(&ar, (void **)&v, &cap, 4, sizeof *v));
    v[3] = 77;
    uint64_t *before = v;
    cr_assert_not(sba_arena_grow(&ar, (void **)&v, &cap, 1u << 20, sizeof *v));
    cr_assert(ar.failed);
    cr_assert_eq(v, before);
    cr_assert_eq(cap, 4);
    cr_assert_eq(v[3], 77);
    sba_arena_free(&ar);
}

Test(vec, push_appends_in_order)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    SBA_VEC(int64_t) v = {0};
    for (int64_t i = 0; i < 10000; i++) cr_assert(SBA_VEC_PUSH(&ar, &v, i * 3 - 7));
    cr_assert_eq(v.n, 10000);
    cr_assert_geq(v.cap, v.n);
    for (int64_t i = 0; i < 10000; i++) cr_assert_eq(v.v[i], i * 3 - 7);
    sba_arena_free(&ar);
}

Test(vec, push_reports_out_of_memory)
{
    counting c;
    sba_allocator a = hook(&c, 0);
    sba_arena ar;
    sba_arena_init(&ar, &a);
    SBA_VEC(int) v = {0};
    cr_assert_not(SBA_VEC_PUSH(&ar, &v, 5));
    cr_assert_eq(v.n, 0);
    cr_assert_null(v.v);
    cr_assert(ar.failed);
    sba_arena_free(&ar);
}

/* ---- bitset ------------------------------------------------------------ */

Test(bitset, set_test_clear_across_word_boundaries)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    sba_bitset b;
    cr_assert(sba_bitset_init(&b, &ar, 130));
    cr_assert_eq(b.nbits, 130);
    cr_assert_eq(sba_bitset_count(&b), 0);
    const uint64_t bits[] = {0, 1, 63, 64, 65, 127, 128, 129};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        cr_assert_not(sba_bitset_test(&b, bits[i]));
        sba_bitset_set(&b, bits[i]);
        cr_assert(sba_bitset_test(&b, bits[i]));
    }
    cr_assert_eq(sba_bitset_count(&b), 8);
    cr_assert_not(sba_bitset_test(&b, 2));
    cr_assert_not(sba_bitset_test(&b, 62));
    sba_bitset_clear(&b, 64);
    cr_assert_not(sba_bitset_test(&b, 64));
    cr_assert(sba_bitset_test(&b, 63));
    cr_assert(sba_bitset_test(&b, 65));
    cr_assert_eq(sba_bitset_count(&b), 7);
    cr_assert_not(sba_bitset_test_and_set(&b, 64));
    cr_assert(sba_bitset_test_and_set(&b, 64));
    cr_assert_eq(sba_bitset_count(&b), 8);
    sba_bitset_reset(&b);
    cr_assert_eq(sba_bitset_count(&b), 0);
    for (uint64_t i = 0; i < 130; i++) cr_assert_not(sba_bitset_test(&b, i));
    sba_arena_free(&ar);
}

Test(bitset, count_matches_a_reference)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    sba_bitset b;
    cr_assert(sba_bitset_init(&b, &ar, 1000));
    uint64_t expect = 0;
    for (uint64_t i = 0; i < 1000; i++)
        if ((i * 7919) % 13 < 5) {
            sba_bitset_set(&b, i);
            expect++;
        }
    cr_assert_eq(sba_bitset_count(&b), expect);
    sba_arena_free(&ar);
}

Test(bitset, empty_and_impossible_sizes)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    sba_bitset b;
    cr_assert(sba_bitset_init(&b, &ar, 0));
    cr_assert_eq(sba_bitset_count(&b), 0);
    sba_bitset_reset(&b);
    cr_assert_not(ar.failed);
    /* A size whose word count would wrap must fail, not give a tiny set. */
    cr_assert_not(sba_bitset_init(&b, &ar, UINT64_MAX));
    cr_assert(ar.failed);
    sba_arena_free(&ar);
}

Test(bitset, init_reports_out_of_memory)
{
    counting c;
    sba_allocator a = hook(&c, 0);
    sba_arena ar;
    sba_arena_init(&ar, &a);
    sba_bitset b;
    cr_assert_not(sba_bitset_init(&b, &ar, 64));
    cr_assert(ar.failed);
    sba_arena_free(&ar);
}

/* ---- strmap ------------------------------------------------------------ */

Test(strmap, insert_get_and_duplicate)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    sba_strmap *m = sba_strmap_new(&ar);
    cr_assert_not_null(m);
    cr_assert_null(sba_strmap_get(m, "a"), "an empty map has nothing");
    int x = 1, y = 2;
    void *existing = NULL;
    cr_assert_eq(sba_strmap_put(m, "a", &x, &existing), 1);
    cr_assert_null(existing);
    cr_assert_eq(sba_strmap_put(m, "b", &y, NULL), 1);
    cr_assert_eq(sba_strmap_get(m, "a"), &x);
    cr_assert_eq(sba_strmap_get(m, "b"), &y);
    /* A second insert of a key keeps the first value and reports it. */
    cr_assert_eq(sba_strmap_put(m, "a", &y, &existing), 0);
    cr_assert_eq(existing, &x);
    cr_assert_eq(sba_strmap_get(m, "a"), &x);
    cr_assert_eq(m->n, 2);
    /* Lookups compare the text, not the pointer. */
    char key[] = {'b', '\0'};
    cr_assert_eq(sba_strmap_get(m, key), &y);
    cr_assert_null(sba_strmap_get(m, "c"));
    cr_assert_null(sba_strmap_get(m, ""));
    cr_assert_null(sba_strmap_get(m, "ab"));
    cr_assert_null(sba_strmap_get(NULL, "a"));
    sba_arena_free(&ar);
}

Test(strmap, grows_to_100k_keys)
{
    sba_arena ar;
    sba_arena_init(&ar, NULL);
    sba_strmap *m = sba_strmap_new(&ar);
    enum { N = 100000 };
    char **keys = sba_arena_array(&ar, N, sizeof *keys);
    for (uintptr_t i = 0; i < N; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "set_%lu", (unsigned long)i);
        keys[i] = sba_arena_strdup(&ar, buf);
        cr_assert_eq(sba_strmap_put(m, keys[i], (void *)(i + 1), NULL), 1, "key %s", buf);
    }
    cr_assert_eq(m->n, N);
    cr_assert_eq(m->cap & (m->cap - 1), 0, "capacity %u is a power of two", m->cap);
    cr_assert_leq((uint64_t)m->n * 2, m->cap, "load factor at most 1/2");
    for (uintptr_t i = 0; i < N; i++) cr_assert_eq((uintptr_t)sba_strmap_get(m, keys[i]), i + 1);
    /* Misses: near names, prefixes, and keys never inserted. */
    for (uintptr_t i = 0; i < 1000; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "set_%lu", (unsigned long)(N + i));
        cr_assert_null(sba_strmap_get(m, buf), "%s", buf);
        snprintf(buf, sizeof buf, "Set_%lu", (unsigned long)i);
        cr_assert_null(sba_strmap_get(m, buf), "%s", buf);
    }
    cr_assert_null(sba_strmap_get(m, "set_"));
    for (uintptr_t i = 0; i < N; i += 997) cr_assert_eq(sba_strmap_put(m, keys[i], NULL, NULL), 0);
    cr_assert_eq(m->n, N);
    cr_assert_not(ar.failed);
    sba_arena_free(&ar);
}

static char oom_names[8192][8];

Test(strmap, put_reports_out_of_memory)
{
    counting c;
    sba_allocator a = hook(&c, 1); /* one 64 KiB chunk, then nothing */
    sba_arena ar;
    sba_arena_init(&ar, &a);
    sba_strmap *m = sba_strmap_new(&ar);
    cr_assert_not_null(m);
    /* Fill until a rehash needs more than the one chunk holds. */
    int last = 1;
    uintptr_t i;
    for (i = 0; i < 8192 && last == 1; i++) {
        snprintf(oom_names[i], sizeof oom_names[i], "%lu", (unsigned long)i);
        last = sba_strmap_put(m, oom_names[i], (void *)(i + 1), NULL);
    }
    cr_assert_eq(last, -1, "a failed rehash reports out of memory");
    cr_assert(ar.failed);
    /* Everything inserted before the failure is still there. */
    cr_assert_eq(m->n, i - 1);
    for (uintptr_t k = 0; k + 1 < i; k++) cr_assert_eq((uintptr_t)sba_strmap_get(m, oom_names[k]), k + 1);
    cr_assert_null(sba_strmap_get(m, oom_names[i - 1]));
    sba_arena_free(&ar);
}

Test(strmap, hash_is_deterministic_and_spreads)
{
    cr_assert_eq(sba_hash_str("abc"), sba_hash_str("abc"));
    cr_assert_neq(sba_hash_str("abc"), sba_hash_str("abd"));
    cr_assert_neq(sba_hash_str(""), sba_hash_str("a"));
}

/* ---- error setters ----------------------------------------------------- */

Test(error, setters_fill_code_message_and_position)
{
    sba_error e;
    cr_assert_eq(sba_err(&e, SBA_ERR_MODEL, "bad %s %d", "thing", 7), SBA_ERR_MODEL);
    cr_assert_eq(e.code, SBA_ERR_MODEL);
    cr_assert_str_eq(e.message, "bad thing 7");
    cr_assert_eq(e.line, 0);
    cr_assert_str_eq(e.path, "");
    cr_assert_eq(sba_err_path(&e, SBA_ERR_SCHEMA, "functions[0].name", "x"), SBA_ERR_SCHEMA);
    cr_assert_str_eq(e.path, "functions[0].name");
    cr_assert_str_eq(e.message, "x");
    cr_assert_eq(e.line, 0);
    cr_assert_eq(sba_err_pos(&e, SBA_ERR_PARSE, 3, 14, "y"), SBA_ERR_PARSE);
    cr_assert_eq(e.line, 3);
    cr_assert_eq(e.column, 14);
    cr_assert_str_eq(e.path, "", "a positioned error clears an earlier path");
    sba_error_clear(&e);
    cr_assert_eq(e.code, SBA_OK);
    cr_assert_str_eq(e.message, "");
}

Test(error, null_error_is_allowed)
{
    cr_assert_eq(sba_err(NULL, SBA_ERR_IO, "x"), SBA_ERR_IO);
    cr_assert_eq(sba_err_path(NULL, SBA_ERR_SCHEMA, "p", "x"), SBA_ERR_SCHEMA);
    cr_assert_eq(sba_err_pos(NULL, SBA_ERR_PARSE, 1, 1, "x"), SBA_ERR_PARSE);
    sba_error_clear(NULL);
}

Test(error, long_messages_are_truncated_not_overflowed)
{
    sba_error e;
    char big[2000];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[sizeof big - 2] = 'E';
    sba_err_path(&e, SBA_ERR_SCHEMA, big, "%s", big);
    cr_assert_eq(strlen(e.message), sizeof e.message - 1);
    cr_assert_eq(strlen(e.path), sizeof e.path - 1);
    /* A long path keeps its end, which says where the error is. */
    cr_assert_eq(strncmp(e.path, "...mmm", 6), 0, "%s", e.path);
    cr_assert_eq(e.path[sizeof e.path - 2], 'E');
    /* One that fits is kept whole. */
    big[sizeof e.path - 1] = '\0';
    sba_err_path(&e, SBA_ERR_SCHEMA, big, "x");
    cr_assert_eq(strlen(e.path), sizeof e.path - 1);
    cr_assert_eq(e.path[0], 'm');
}

Test(error, status_names)
{
    cr_assert_str_eq(sba_status_name(SBA_OK), "ok");
    cr_assert_str_eq(sba_status_name(SBA_ERR_PARSE), "parse");
    cr_assert_str_eq(sba_status_name(SBA_ERR_USAGE), "usage");
    cr_assert_str_eq(sba_status_name(SBA_STATUS_COUNT), "unknown");
}

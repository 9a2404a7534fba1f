/* The PSUM and DRAM allocators (src/psum, src/dram) and their checks in the
 * verifier: bank boundaries, accumulation groups across a K loop, pack hints,
 * over-subscription, spill homes and internal tensors in the DRAM scratch,
 * must-alias sharing, Local vs Shared regions, the verifier on DRAM scratch
 * placements (overlaps, must-alias peers as one storage, spill homes, the
 * DRAM page), PSUM tensors of several blocks across banks, and every example
 * allocated in all three memories and verified. Modules are built as JSON
 * text. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sballoc/alloc.h"
#include "sballoc/program.h"
#include "sballoc/verify.h"
#include "textbuf.h"

/* ---- helpers ---------------------------------------------------------------- */

static bir_module *load(const char *text)
{
    sba_error err;
    bir_module *m = bir_load_buffer(text, strlen(text), "test.json", NULL, &err);
    cr_assert_not_null(m, "load failed: %s: %s\n%s", err.path, err.message, text);
    return m;
}

static bir_location *find_loc(const bir_module *m, const char *set, const char *loc)
{
    bir_set *s = bir_function_find_set(m->fns[0], set);
    cr_assert_not_null(s, "no set %s", set);
    bir_location *l = bir_set_find_location(s, loc);
    cr_assert_not_null(l, "no location %s", loc);
    return l;
}

typedef struct run {
    sba_status st;
    sba_error err;
    sba_alloc_report rep;
} run;

/* Allocates m with DRAM page `page` (0: the default); when it succeeds,
 * proves it with the verifier on the same page. */
static run alloc(bir_module *m, int64_t page)
{
    run r;
    memset(&r, 0, sizeof r);
    sba_alloc_options o = {.dram_page = page};
    r.st = sba_allocate_module(m, &o, &r.rep, &r.err);
    if (r.st == SBA_OK) {
        sba_error verr;
        sba_verify_options vo = {.dram_page = page};
        sba_status vs = sba_verify_module_opts(m, &vo, NULL, &verr);
        cr_assert_eq(vs, SBA_OK, "verify: %s: %s", verr.path, verr.message);
    }
    return r;
}

/* ---- PSUM kernels -------------------------------------------------------------
 *
 * psum_kernel: one SB operand loaded from DRAM; for each tile g a PSUM tensor
 * [128, F_g] fp32 — or [NB_g, 128, F_g] with partition_dim 1, NB_g blocks,
 * when nb gives NB_g > 1 — written block by block by Matmults — inside a K
 * loop of 4 iterations when `accum` (an accumulation group), else once — and
 * then evicted to SB and stored, block after block, tile after tile. All
 * tiles are live together at the Matmults. A block's instructions are named
 * mmG, evG, stG for one block, mmG_K, evG_K, stG_K for block K of several. */
static void psum_kernel(buf *b, const char *target, uint32_t n, const int *f, const int *nb, const int *hint,
                        bool accum)
{
    put(b, "{\"version\": 2, %s\"functions\": [{\"name\": \"f\", \"allocations\": [", target);
    put(b, "{\"name\": \"x_set\", \"kind\": \"ExternalInput\", \"dtype\": \"bfloat16\", \"tensor_shape\": [128, "
           "128], \"memorylocations\": [{\"name\": \"x\", \"type\": \"DRAM\"}]}");
    put(b, ", {\"name\": \"xs_set\", \"dtype\": \"bfloat16\", \"tensor_shape\": [128, 128], \"memorylocations\": "
           "[{\"name\": \"xs\", \"type\": \"SB\"}]}");
    for (uint32_t g = 0; g < n; g++) {
        char shape[64];
        int blocks = nb ? nb[g] : 1;
        if (blocks > 1) snprintf(shape, sizeof shape, "[%d, 128, %d], \"partition_dim\": 1", blocks, f[g]);
        else snprintf(shape, sizeof shape, "[128, %d]", f[g]);
        put(b, ", {\"name\": \"p%u_set\", \"dtype\": \"float32\", \"tensor_shape\": %s, "
               "\"memorylocations\": [{\"name\": \"p%u\", \"type\": \"PSUM\"", g, shape, g);
        if (hint && hint[g] >= 0) put(b, ", \"pack_id_hint\": %d", hint[g]);
        put(b, "}]}");
        put(b, ", {\"name\": \"s%u_set\", \"dtype\": \"float32\", \"tensor_shape\": %s, "
               "\"memorylocations\": [{\"name\": \"s%u\", \"type\": \"SB\"}]}", g, shape, g);
        put(b, ", {\"name\": \"o%u_set\", \"kind\": \"ExternalOutput\", \"dtype\": \"float32\", \"tensor_shape\": "
               "%s, \"memorylocations\": [{\"name\": \"o%u\", \"type\": \"DRAM\"}]}", g, shape, g);
    }
    put(b, "], \"blocks\": [{\"name\": \"entry\", \"instructions\": [");
    put(b, "{\"name\": \"load\", \"opcode\": \"DMALoad\", \"ins\": [{\"memsetref\": \"x_set\", \"ap\": [[128, 128], "
           "[1, 128]]}], \"outs\": [{\"memsetref\": \"xs_set\", \"ap\": [[128, 128], [1, 128]]}]}");
    if (accum)
        put(b, ", {\"name\": \"k\", \"opcode\": \"Loop\", \"LoopAxis\": {\"name\": \"k\", \"lb\": 0, \"ub\": 4, "
               "\"stride\": 1}, \"blocks\": [{\"name\": \"k_body\", \"instructions\": [");
    bool first = true;
    for (uint32_t g = 0; g < n; g++)
        for (int k = 0, blocks = nb ? nb[g] : 1; k < blocks; k++) {
            char id[32];
            if (blocks > 1) snprintf(id, sizeof id, "%u_%d", g, k);
            else snprintf(id, sizeof id, "%u", g);
            put(b, "%s{\"name\": \"mm%s\", \"opcode\": \"Matmult\", \"ins\": [{\"memsetref\": \"xs_set\", \"ap\": "
                   "[[128, 128], [1, 128]]}, {\"memsetref\": \"xs_set\", \"ap\": [[128, 128], [1, 128]]}], "
                   "\"outs\": [{\"memsetref\": \"p%u_set\", \"ap\": [[%d, 128], [1, %d]], \"offset\": %d}]}",
                accum && first ? "" : ", ", id, g, f[g], f[g], k * 128 * f[g]);
            first = false;
        }
    if (accum) put(b, "]}]}");
    for (uint32_t g = 0; g < n; g++)
        for (int k = 0, blocks = nb ? nb[g] : 1; k < blocks; k++) {
            char id[32];
            if (blocks > 1) snprintf(id, sizeof id, "%u_%d", g, k);
            else snprintf(id, sizeof id, "%u", g);
            int off = k * 128 * f[g];
            put(b, ", {\"name\": \"ev%s\", \"opcode\": \"Activation\", \"ins\": [{\"memsetref\": \"p%u_set\", "
                   "\"ap\": [[%d, 128], [1, %d]], \"offset\": %d}], \"outs\": [{\"memsetref\": \"s%u_set\", \"ap\": "
                   "[[%d, 128], [1, %d]], \"offset\": %d}]}", id, g, f[g], f[g], off, g, f[g], f[g], off);
            put(b, ", {\"name\": \"st%s\", \"opcode\": \"DMAStore\", \"ins\": [{\"memsetref\": \"s%u_set\", \"ap\": "
                   "[[%d, 128], [1, %d]], \"offset\": %d}], \"outs\": [{\"memsetref\": \"o%u_set\", \"ap\": "
                   "[[%d, 128], [1, %d]], \"offset\": %d}]}", id, g, f[g], f[g], off, g, f[g], f[g], off);
        }
    put(b, "]}]}]}");
}

static bir_module *blocks_module(uint32_t n, const int *f, const int *nb, const int *hint, bool accum)
{
    static buf b;
    b.n = 0;
    psum_kernel(&b, "\"arch\": \"trn2\", ", n, f, nb, hint, accum);
    return load(b.s);
}

static bir_module *psum_module(uint32_t n, const int *f, const int *hint, bool accum)
{
    return blocks_module(n, f, NULL, hint, accum);
}

/* ---- PSUM ---------------------------------------------------------------------- */

Test(psum, tile_of_one_bank_is_placed)
{
    int f[] = {512, 128};
    bir_module *m = psum_module(2, f, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p0 = find_loc(m, "p0_set", "p0"), *p1 = find_loc(m, "p1_set", "p1");
    cr_assert(p0->has_bank && p1->has_bank);
    cr_assert_eq(p0->addr, 0);
    cr_assert_eq(p0->base, 0);
    cr_assert(p0->allocated);
    /* p0 fills its bank: p1, live at the same time, is in another one */
    cr_assert_neq(p0->bank, p1->bank);
    cr_assert_leq(p1->addr + 512, 2048);
    cr_assert_eq(r.rep.fns[0].psum_tiles, 2);
    cr_assert_eq(r.rep.fns[0].psum_banks_used, 2);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, tile_larger_than_a_bank_is_an_error_naming_it)
{
    int f[] = {600};
    bir_module *m = psum_module(1, f, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_ERR_ALLOC);
    cr_assert_str_eq(r.err.message, "PSUM tensor \"p0_set\" (location \"p0\") needs 2400 bytes per partition; a "
                                    "tile never crosses a bank boundary and a PSUM bank holds 2048");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, small_tiles_share_a_bank_without_crossing_it)
{
    /* 3 × 768 bytes live together: two fit in one 2048-byte bank, the third
     * would cross its end, so it goes to the next bank */
    int f[] = {192, 192, 192};
    bir_module *m = psum_module(3, f, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    for (int g = 0; g < 3; g++) {
        char set[16], loc[16];
        snprintf(set, sizeof set, "p%d_set", g);
        snprintf(loc, sizeof loc, "p%d", g);
        bir_location *l = find_loc(m, set, loc);
        cr_assert_leq(l->addr + 768, 2048, "%s crosses its bank", loc);
        cr_assert_eq(l->addr % 4, 0);
    }
    cr_assert_eq(find_loc(m, "p0_set", "p0")->bank, find_loc(m, "p1_set", "p1")->bank);
    cr_assert_neq(find_loc(m, "p2_set", "p2")->bank, find_loc(m, "p0_set", "p0")->bank);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, accumulation_across_k_loop_keeps_one_bank_to_itself)
{
    /* Two 256-byte accumulators across the K loop: each is an accumulation
     * group in flight for the whole loop, so they take two banks although
     * they would fit in one. */
    int f[] = {64, 64};
    bir_module *m = psum_module(2, f, NULL, true);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p0 = find_loc(m, "p0_set", "p0"), *p1 = find_loc(m, "p1_set", "p1");
    cr_assert_neq(p0->bank, p1->bank);
    cr_assert_eq(r.rep.fns[0].psum_accum_groups, 2);
    cr_assert_eq(r.rep.fns[0].psum_banks_used, 2);
    /* the same tiles written once (no loop) share a bank */
    bir_module *m2 = psum_module(2, f, NULL, false);
    run r2 = alloc(m2, 0);
    cr_assert_eq(r2.st, SBA_OK, "%s", r2.err.message);
    cr_assert_eq(find_loc(m2, "p0_set", "p0")->bank, find_loc(m2, "p1_set", "p1")->bank);
    cr_assert_eq(r2.rep.fns[0].psum_accum_groups, 0);
    sba_alloc_report_free(&r.rep);
    sba_alloc_report_free(&r2.rep);
    bir_module_free(m);
    bir_module_free(m2);
}

Test(psum, pack_hints_share_a_bank)
{
    /* p0 (1024 B) takes bank 0; p1 (1536 B, hint 5) does not fit there and
     * opens bank 1; p2 (256 B, hint 5) would fit in bank 0 by first fit, but
     * its hint packs it with p1. */
    int f[] = {256, 384, 64}, hint[] = {-1, 5, 5};
    bir_module *m = psum_module(3, f, hint, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p0 = find_loc(m, "p0_set", "p0"), *p1 = find_loc(m, "p1_set", "p1"),
                 *p2 = find_loc(m, "p2_set", "p2");
    cr_assert_eq(p0->bank, 0);
    cr_assert_eq(p1->bank, 1);
    cr_assert_eq(p2->bank, 1);
    cr_assert_eq(p2->addr, 1536);
    /* without the hints, p2 lands next to p0 */
    bir_module *m2 = psum_module(3, f, NULL, false);
    run r2 = alloc(m2, 0);
    cr_assert_eq(r2.st, SBA_OK, "%s", r2.err.message);
    cr_assert_eq(find_loc(m2, "p2_set", "p2")->bank, 0);
    sba_alloc_report_free(&r.rep);
    sba_alloc_report_free(&r2.rep);
    bir_module_free(m);
    bir_module_free(m2);
}

Test(psum, oversubscription_names_the_point_and_the_tiles)
{
    /* nine accumulation groups in flight across one K loop, eight banks */
    int f[9];
    for (int g = 0; g < 9; g++) f[g] = 16;
    bir_module *m = psum_module(9, f, NULL, true);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_ERR_ALLOC);
    cr_assert_str_eq(r.err.message,
                     "cannot allocate function \"f\" in PSUM: p8 does not fit: at point 1 (k) the tiles that must be "
                     "live need 576 bytes per partition and 9 accumulation groups, with 8 banks of 2048 bytes: "
                     "p0 (64 bytes, accumulation group), p1 (64 bytes, accumulation group), p2 (64 bytes, "
                     "accumulation group), p3 (64 bytes, accumulation group), p4 (64 bytes, accumulation group), "
                     "p5 (64 bytes, accumulation group), p6 (64 bytes, accumulation group), p7 (64 bytes, "
                     "accumulation group), p8 (64 bytes, accumulation group)");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

/* PSUM location `name` of `text` pre-placed at (bank, addr): the text with
 * them inserted. */
static const char *preplace(const char *text, const char *name, int bank, int addr)
{
    static char out[65536], key[64];
    snprintf(key, sizeof key, "\"name\": \"%s\", \"type\": \"PSUM\"", name);
    const char *at = strstr(text, key);
    cr_assert_not_null(at);
    size_t head = (size_t)(at - text) + strlen(key);
    snprintf(out, sizeof out, "%.*s, \"bank\": %d, \"addr\": %d%s", (int)head, text, bank, addr, text + head);
    return out;
}

Test(psum, preplaced_tile_is_fixed)
{
    int f[] = {512, 512};
    static buf b;
    b.n = 0;
    psum_kernel(&b, "\"arch\": \"trn2\", ", 2, f, NULL, NULL, false);
    /* pre-place p1 in bank 0: p0 must go elsewhere */
    bir_module *m = load(preplace(b.s, "p1", 0, 0));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "p1_set", "p1")->bank, 0);
    cr_assert_eq(find_loc(m, "p1_set", "p1")->addr, 0);
    cr_assert_eq(find_loc(m, "p0_set", "p0")->bank, 1);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

/* Seed 003: the bank is signed and a placement means |bank| (toString takes
 * the absolute value). A pre-placed bank of -1 holds bank 1, keeps its sign in
 * the model, and the verifier (inside alloc) checks it as bank 1. */
Test(psum, negative_preplaced_bank_means_its_magnitude)
{
    int f[] = {512, 128};
    static buf b;
    b.n = 0;
    psum_kernel(&b, "\"arch\": \"trn2\", ", 2, f, NULL, NULL, false);
    bir_module *m = load(preplace(b.s, "p1", -1, 0));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p1 = find_loc(m, "p1_set", "p1");
    cr_assert_eq(p1->bank, -1, "the given sign is kept");
    cr_assert_eq(bir_location_bank(p1), 1);
    char desc[64];
    cr_assert_str_eq(bir_location_describe(p1, desc, sizeof desc), "PSUM bank 1 addr 0");
    /* p0 fills a whole bank: anywhere but bank 1 */
    cr_assert_neq(find_loc(m, "p0_set", "p0")->bank, 1);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, blocks_together_larger_than_a_bank_span_banks_each_inside_one)
{
    /* [2, 128, 384] fp32: two blocks of 1,536 bytes, 3,072 together. Block
     * k is at addr + k × 1536 from bank 0: only addr 512 keeps both clear of
     * the boundary at 2048 (block 0 [512, 2048) of bank 0, block 1 [0, 1536)
     * of bank 1). */
    int f[] = {384}, nb[] = {2};
    bir_module *m = blocks_module(1, f, nb, NULL, false);
    run r = alloc(m, 0); /* verified inside */
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p0 = find_loc(m, "p0_set", "p0");
    cr_assert_eq(p0->bank, 0);
    cr_assert_eq(p0->addr, 512);
    cr_assert_eq(p0->live_n, 2);
    cr_assert_eq(p0->dims[1], 3072);
    cr_assert_eq(r.rep.fns[0].psum_tiles, 1);
    cr_assert_eq(r.rep.fns[0].psum_banks_used, 2);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
    /* blocks of a whole bank take one bank each */
    int f2[] = {512}, nb2[] = {3};
    m = blocks_module(1, f2, nb2, NULL, false);
    r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "p0_set", "p0")->addr, 0);
    cr_assert_eq(r.rep.fns[0].psum_banks_used, 3);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, blocks_that_fit_one_bank_stay_in_one_bank)
{
    /* two blocks of 512 bytes next to a 1,536-byte tile: bank 0 has no room
     * for both, so they go to bank 1 together rather than split across */
    int f[] = {384, 128}, nb[] = {1, 2};
    bir_module *m = blocks_module(2, f, nb, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p1 = find_loc(m, "p1_set", "p1");
    cr_assert_eq(p1->bank, 1);
    cr_assert_eq(p1->addr, 0);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, block_larger_than_a_bank_is_an_error_naming_it)
{
    int f[] = {768}, nb[] = {2}; /* 3,072 bytes per block */
    bir_module *m = blocks_module(1, f, nb, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_ERR_ALLOC);
    cr_assert_str_eq(r.err.message, "PSUM tensor \"p0_set\" (location \"p0\") needs 3072 bytes per partition in each "
                                    "of its 2 blocks; each block is a tile, a tile never crosses a bank boundary and "
                                    "a PSUM bank holds 2048");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, blocks_no_address_lays_out_are_an_error)
{
    /* three blocks of 1,536 bytes: from any address one of them crosses a
     * boundary */
    int f[] = {384}, nb[] = {3};
    bir_module *m = blocks_module(1, f, nb, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_ERR_ALLOC);
    cr_assert_str_eq(r.err.message, "PSUM tensor \"p0_set\" (location \"p0\"): its 3 blocks of 1536 bytes per "
                                    "partition lie one after another, and from no address do they all stay clear of "
                                    "the boundaries of the 2048-byte banks; a tile never crosses a bank boundary");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
    /* nine whole-bank blocks: more than PSUM */
    int f2[] = {512}, nb2[] = {9};
    m = blocks_module(1, f2, nb2, NULL, false);
    r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_ERR_ALLOC);
    cr_assert_str_eq(r.err.message, "PSUM tensor \"p0_set\" (location \"p0\") needs 18432 bytes per partition in its "
                                    "9 blocks, more than the 8 banks of 2048 bytes hold");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, accumulation_group_across_banks_keeps_every_bank_it_touches)
{
    /* p0 (2 × 1,536 bytes) accumulates across the K loop from bank 0 addr
     * 512 into bank 1; p1, a small accumulator, may share neither */
    int f[] = {384, 16}, nb[] = {2, 1};
    bir_module *m = blocks_module(2, f, nb, NULL, true);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p0 = find_loc(m, "p0_set", "p0"), *p1 = find_loc(m, "p1_set", "p1");
    cr_assert_eq(p0->bank, 0);
    cr_assert_eq(p0->addr, 512);
    cr_assert_eq(p1->bank, 2);
    cr_assert_eq(r.rep.fns[0].psum_accum_groups, 2);
    cr_assert_eq(r.rep.fns[0].psum_banks_used, 3);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
    /* written once, p1 fits in bank 0 below p0 */
    m = blocks_module(2, f, nb, NULL, false);
    r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "p1_set", "p1")->bank, 0);
    cr_assert_eq(find_loc(m, "p1_set", "p1")->addr, 0);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, pack_hint_follows_the_bank_of_block_0)
{
    /* p0 (1,792 bytes) leaves [1792, 2048) of bank 0; p1 (2 × 1,536, hint
     * 5) starts at bank 1 addr 512; p2 (256 bytes, hint 5) goes below it in
     * bank 1 instead of first fit's bank 0 */
    int f[] = {448, 384, 64}, nb[] = {1, 2, 1}, hint[] = {-1, 5, 5};
    bir_module *m = blocks_module(3, f, nb, hint, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p1 = find_loc(m, "p1_set", "p1"), *p2 = find_loc(m, "p2_set", "p2");
    cr_assert_eq(p1->bank, 1);
    cr_assert_eq(p1->addr, 512);
    cr_assert_eq(p2->bank, 1);
    cr_assert_eq(p2->addr, 0);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
    m = blocks_module(3, f, nb, NULL, false);
    r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "p2_set", "p2")->bank, 0);
    cr_assert_eq(find_loc(m, "p2_set", "p2")->addr, 1792);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(psum, preplaced_blocks_are_checked_block_by_block)
{
    int f[] = {384}, nb[] = {2};
    static buf b;
    b.n = 0;
    psum_kernel(&b, "\"arch\": \"trn2\", ", 1, f, nb, NULL, false);
    bir_module *m = load(preplace(b.s, "p0", 3, 512));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "p0_set", "p0")->bank, 3);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
    m = load(preplace(b.s, "p0", 3, 0));
    r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_ERR_MODEL);
    cr_assert_str_eq(r.err.message, "pre-placed PSUM location \"p0\": block 1 at bytes [1536, 3072) of bank 3 "
                                    "crosses the end of the bank at 2048");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
    m = load(preplace(b.s, "p0", 7, 512));
    r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_ERR_MODEL);
    cr_assert_str_eq(r.err.message, "pre-placed PSUM location \"p0\": block 1 falls in bank 8, outside [0, 8)");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

/* ---- DRAM kernels ---------------------------------------------------------------
 *
 * dram_kernel: an input x [128, 64] fp32 loaded into SB; internal DRAM
 * tensors d0..d(n-1) of [128, f_i] fp32 in address space as_i; `sched` is a
 * list of steps, "sI" storing SB into dI and "lI" loading dI back into SB
 * (rI). alias[i] >= 0 adds a MustAlias edge from dI to d(alias[i]). */
static const char *dram_kernel(buf *b, uint32_t n, const int *f, const char *const *as, const int *alias,
                               const char *const *sched, uint32_t nsched)
{
    b->n = 0;
    put(b, "{\"version\": 2, \"arch\": \"trn2\", \"functions\": [{\"name\": \"f\", \"allocations\": [");
    put(b, "{\"name\": \"x_set\", \"kind\": \"ExternalInput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 64], "
           "\"memorylocations\": [{\"name\": \"x\", \"type\": \"DRAM\"}]}");
    put(b, ", {\"name\": \"xs_set\", \"dtype\": \"float32\", \"tensor_shape\": [128, 64], \"memorylocations\": "
           "[{\"name\": \"xs\", \"type\": \"SB\"}]}");
    for (uint32_t i = 0; i < n; i++) {
        put(b, ", {\"name\": \"d%u_set\", \"dtype\": \"float32\", \"tensor_shape\": [128, %d], \"addr_space\": "
               "\"%s\", \"memorylocations\": [{\"name\": \"d%u\", \"type\": \"DRAM\"", i, f[i], as ? as[i] : "Local",
            i);
        if (alias && alias[i] >= 0) put(b, ", \"alias\": [[\"d%d_set\", \"d%d\", 3]]", alias[i], alias[i]);
        put(b, "}]}");
        put(b, ", {\"name\": \"r%u_set\", \"dtype\": \"float32\", \"tensor_shape\": [128, 64], \"memorylocations\": "
               "[{\"name\": \"r%u\", \"type\": \"SB\"}]}", i, i);
    }
    put(b, "], \"blocks\": [{\"name\": \"entry\", \"instructions\": [");
    put(b, "{\"name\": \"load\", \"opcode\": \"DMALoad\", \"ins\": [{\"memsetref\": \"x_set\", \"ap\": [[64, 128], "
           "[1, 64]]}], \"outs\": [{\"memsetref\": \"xs_set\", \"ap\": [[64, 128], [1, 64]]}]}");
    for (uint32_t k = 0; k < nsched; k++) {
        int i = atoi(sched[k] + 1);
        if (sched[k][0] == 's')
            put(b, ", {\"name\": \"step%u\", \"opcode\": \"DMAStore\", \"ins\": [{\"memsetref\": \"xs_set\", \"ap\": "
                   "[[64, 128], [1, 64]]}], \"outs\": [{\"memsetref\": \"d%d_set\", \"ap\": [[%d, 128], [1, 64]]}]}",
                k, i, f[i]);
        else
            put(b, ", {\"name\": \"step%u\", \"opcode\": \"DMALoad\", \"ins\": [{\"memsetref\": \"d%d_set\", \"ap\": "
                   "[[%d, 128], [1, 64]]}], \"outs\": [{\"memsetref\": \"r%d_set\", \"ap\": [[64, 128], [1, 64]]}]}",
                k, i, f[i], i);
    }
    put(b, "]}]}]}");
    return b->s;
}

/* ---- DRAM ----------------------------------------------------------------------- */

Test(dram, internal_tensors_are_packed_over_their_live_ranges)
{
    /* d0 and d1 live together, d2 after both: d2 reuses address 0. Each is
     * 128 × 64 × 4 = 32 KiB, a whole number of pages. */
    static buf b;
    int f[] = {64, 64, 64};
    const char *sched[] = {"s0", "s1", "l0", "l1", "s2", "l2"};
    bir_module *m = load(dram_kernel(&b, 3, f, NULL, NULL, sched, 6));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *d0 = find_loc(m, "d0_set", "d0"), *d1 = find_loc(m, "d1_set", "d1"), *d2 = find_loc(m, "d2_set", "d2");
    cr_assert_eq(d0->addr, 0);
    cr_assert_eq(d1->addr, 32768);
    cr_assert_eq(d2->addr, 0);
    cr_assert(d0->allocated && d2->allocated);
    cr_assert_eq(find_loc(m, "x_set", "x")->addr, BIR_NO_ADDR, "an external input is not placed");
    cr_assert_eq(r.rep.fns[0].dram_scratch_bytes[BIR_AS_LOCAL], 65536);
    cr_assert_eq(r.rep.fns[0].dram_lower_bound[BIR_AS_LOCAL], 65536);
    cr_assert_eq(r.rep.fns[0].dram_placed, 3);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(dram, first_fit_by_size_and_the_page)
{
    /* d1 is [128, 65] fp32 = 33,280 bytes: 65 pages of 512, or 9 pages of
     * 4 KiB = 36,864. The larger one goes first, at 0; d0 (32 KiB) after it. */
    static buf b;
    int f[] = {64, 65};
    const char *sched[] = {"s0", "s1", "l0", "l1"};
    bir_module *m = load(dram_kernel(&b, 2, f, NULL, NULL, sched, 4));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "d1_set", "d1")->addr, 0);
    cr_assert_eq(find_loc(m, "d0_set", "d0")->addr, 33280);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
    m = load(dram_kernel(&b, 2, f, NULL, NULL, sched, 4));
    r = alloc(m, 4096);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "d0_set", "d0")->addr, 36864);
    cr_assert_eq(r.rep.fns[0].dram_scratch_bytes[BIR_AS_LOCAL], 36864 + 32768);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(dram, a_preplaced_address_off_the_page_is_refused)
{
    static buf b;
    int f[] = {64};
    const char *sched[] = {"s0", "l0"};
    dram_kernel(&b, 1, f, NULL, NULL, sched, 2);
    static char text[65536];
    const char *at = strstr(b.s, "\"name\": \"d0\", \"type\": \"DRAM\"");
    cr_assert_not_null(at);
    size_t head = (size_t)(at - b.s) + strlen("\"name\": \"d0\", \"type\": \"DRAM\"");
    snprintf(text, sizeof text, "%.*s, \"addr\": 1536%s", (int)head, b.s, b.s + head);
    bir_module *m = load(text);
    run r = alloc(m, 1024);
    cr_assert_eq(r.st, SBA_ERR_MODEL);
    cr_assert_str_eq(r.err.message, "pre-placed DRAM location \"d0\" at byte 1536 is not a multiple of the DRAM page "
                                    "1024");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
    m = load(text);
    r = alloc(m, 512); /* verified on 512 inside */
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "d0_set", "d0")->addr, 1536);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(dram, must_alias_locations_share_one_address)
{
    /* d1 must-aliases d0 (an in-place update); d2 is live with both. The
     * shared region is as large as the larger member. */
    static buf b;
    int f[] = {64, 128, 64}, alias[] = {-1, 0, -1};
    const char *sched[] = {"s0", "s2", "l0", "s1", "l1", "l2"};
    bir_module *m = load(dram_kernel(&b, 3, f, NULL, alias, sched, 6));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *d0 = find_loc(m, "d0_set", "d0"), *d1 = find_loc(m, "d1_set", "d1"), *d2 = find_loc(m, "d2_set", "d2");
    cr_assert_eq(d0->addr, d1->addr);
    /* d2 lies outside the group's 64 KiB */
    cr_assert(d2->addr >= d0->addr + 65536 || d2->addr + 32768 <= d0->addr);
    cr_assert_eq(r.rep.fns[0].dram_scratch_bytes[BIR_AS_LOCAL], 65536 + 32768);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(dram, local_and_shared_are_separate_regions)
{
    static buf b;
    int f[] = {64, 64};
    const char *as[] = {"Local", "Shared"};
    const char *sched[] = {"s0", "s1", "l0", "l1"};
    bir_module *m = load(dram_kernel(&b, 2, f, as, NULL, sched, 4));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "d0_set", "d0")->addr, 0);
    cr_assert_eq(find_loc(m, "d1_set", "d1")->addr, 0, "the Shared region starts at 0 too");
    cr_assert_eq(r.rep.fns[0].dram_scratch_bytes[BIR_AS_LOCAL], 32768);
    cr_assert_eq(r.rep.fns[0].dram_scratch_bytes[BIR_AS_SHARED], 32768);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

/* A tiny SBUF (1,024 bytes per partition) and five computed 320-byte tiles
 * live together: the allocator must spill values that are not plain loads,
 * through DRAM homes. */
static const char *spill_kernel(buf *b)
{
    static const char *const names[] = {"a", "b", "c", "d", "e", "f", "g"};
    b->n = 0;
    put(b, "{\"target\": {\"sbuf_bytes_per_partition\": 1024, \"sbuf_alignment\": 32}, \"functions\": [{"
           "\"name\": \"f\", \"allocations\": [");
    put(b, "{\"name\": \"x\", \"kind\": \"ExternalInput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 80], "
           "\"memorylocations\": [{\"name\": \"x\", \"type\": \"DRAM\"}]}");
    put(b, ", {\"name\": \"y\", \"kind\": \"ExternalOutput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 80], "
           "\"memorylocations\": [{\"name\": \"y\", \"type\": \"DRAM\"}]}");
    put(b, ", {\"name\": \"xs\", \"dtype\": \"float32\", \"tensor_shape\": [128, 80], \"memorylocations\": "
           "[{\"name\": \"xs\", \"type\": \"SB\"}]}");
    for (int i = 0; i < 7; i++)
        put(b, ", {\"name\": \"%s\", \"dtype\": \"float32\", \"tensor_shape\": [128, 80], \"memorylocations\": "
               "[{\"name\": \"%s\", \"type\": \"SB\"}]}", names[i], names[i]);
#define OPND(t) "{\"memsetref\": \"" t "\", \"ap\": [[80, 128], [1, 80]]}"
    put(b, "], \"blocks\": [{\"name\": \"entry\", \"instructions\": [");
    put(b, "{\"name\": \"load\", \"opcode\": \"DMALoad\", \"ins\": [" OPND("x") "], \"outs\": [" OPND("xs") "]}");
    static const char *const ops[][3] = {{"xs", "xs", "a"}, {"xs", "xs", "b"}, {"xs", "xs", "c"}, {"xs", "xs", "d"},
                                         {"a", "b", "e"},   {"c", "d", "f"},   {"e", "f", "g"}};
    for (int i = 0; i < 7; i++)
        put(b, ", {\"name\": \"op%d\", \"opcode\": \"TensorTensor\", \"ins\": [{\"memsetref\": \"%s\", \"ap\": "
               "[[80, 128], [1, 80]]}, {\"memsetref\": \"%s\", \"ap\": [[80, 128], [1, 80]]}], \"outs\": "
               "[{\"memsetref\": \"%s\", \"ap\": [[80, 128], [1, 80]]}]}", i, ops[i][0], ops[i][1], ops[i][2]);
    put(b, ", {\"name\": \"store\", \"opcode\": \"DMAStore\", \"ins\": [" OPND("g") "], \"outs\": [" OPND("y") "]}");
#undef OPND
    put(b, "]}]}]}");
    return b->s;
}

Test(dram, spill_homes_are_packed_in_dram)
{
    static buf b;
    bir_module *m = load(spill_kernel(&b));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_gt(r.rep.fns[0].stores, 0, "the kernel spills through DRAM homes");
    uint32_t homes = 0;
    int64_t sum = 0;
    const bir_function *fn = m->fns[0];
    for (uint32_t s = 0; s < fn->nsets; s++)
        for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++) {
            const bir_location *loc = fn->sets[s]->locs[l];
            if (!(loc->alloc_flags & BIR_LOC_SPILL_HOME)) continue;
            homes++;
            cr_assert_neq(loc->addr, BIR_NO_ADDR, "home %s is placed", loc->name);
            cr_assert_eq(loc->addr % 512, 0);
            cr_assert_not_null(strstr(loc->name, ".home"));
            sum += (bir_set_elements(loc->set) * 4 + 511) / 512 * 512;
        }
    cr_assert_gt(homes, 0);
    int64_t scratch = r.rep.fns[0].dram_scratch_bytes[BIR_AS_LOCAL];
    cr_assert_geq(scratch, r.rep.fns[0].dram_lower_bound[BIR_AS_LOCAL]);
    cr_assert_leq(scratch, sum);
    cr_assert_gt(r.rep.fns[0].dram_lower_bound[BIR_AS_LOCAL], 0);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

/* ---- the verifier on PSUM placements, and the examples ------------------------- */

/* Verifies m with DRAM page `page` (0: the default), expecting `code`. */
static sba_error verify_fails_page(bir_module *m, int64_t page, sba_status code)
{
    sba_error err;
    sba_verify_options vo = {.dram_page = page};
    sba_status s = sba_verify_module_opts(m, &vo, NULL, &err);
    cr_assert_eq(s, code, "expected %s, got %s: %s", sba_status_name(code), sba_status_name(s), err.message);
    return err;
}

static sba_error verify_fails(bir_module *m, sba_status code) { return verify_fails_page(m, 0, code); }

Test(verify_psum, tile_across_a_bank_boundary_is_rejected)
{
    int f[] = {256};
    bir_module *m = psum_module(1, f, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    find_loc(m, "p0_set", "p0")->addr = 1536;
    sba_error err = verify_fails(m, SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "verify: PSUM location \"p0\" of tensor \"p0_set\": bytes [1536, 2560) of bank 0 "
                                  "cross the bank boundary at 2048");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(verify_psum, misaligned_address_is_rejected)
{
    int f[] = {64};
    bir_module *m = psum_module(1, f, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    find_loc(m, "p0_set", "p0")->addr = 6;
    sba_error err = verify_fails(m, SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "verify: PSUM location \"p0\" of tensor \"p0_set\": addr 6 is not a multiple of "
                                  "the PSUM alignment 4");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(verify_psum, live_tiles_in_the_same_bank_bytes_are_rejected)
{
    /* two tiles live together, placed apart by the allocator: moving p1 onto
     * p0's bytes makes the evict of p0 read p1's value */
    int f[] = {128, 128};
    bir_module *m = psum_module(2, f, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p0 = find_loc(m, "p0_set", "p0"), *p1 = find_loc(m, "p1_set", "p1");
    p1->bank = p0->bank;
    p1->addr = p0->addr;
    sba_error err = verify_fails(m, SBA_ERR_PROGRAM);
    cr_assert(strstr(err.message, "instruction \"ev0\" reads tensor \"p0_set\" (PSUM location \"p0\")") != NULL,
              "%s", err.message);
    cr_assert(strstr(err.message, "but tensor \"p1_set\" written there by instruction \"mm1\" overwrote it") != NULL,
              "%s", err.message);
    /* a different bank with the same address is a different place */
    p1->bank = (p0->bank + 1) % 8;
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "%s", err.message);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(verify_psum, a_block_across_a_bank_boundary_is_rejected)
{
    int f[] = {384}, nb[] = {2};
    bir_module *m = blocks_module(1, f, nb, NULL, false);
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *p0 = find_loc(m, "p0_set", "p0");
    /* addr 0: block 1 is bytes [1536, 3072) of bank 0 */
    p0->addr = 0;
    sba_error err = verify_fails(m, SBA_ERR_MODEL);
    cr_assert_str_eq(err.path, "functions[0].allocations[2].memorylocations[0]");
    cr_assert_str_eq(err.message, "verify: PSUM location \"p0\" of tensor \"p0_set\": bytes [1536, 3072) of bank 0 "
                                  "(block 1) cross the bank boundary at 2048");
    /* addr 1024: block 0 crosses */
    p0->addr = 1024;
    err = verify_fails(m, SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "verify: PSUM location \"p0\" of tensor \"p0_set\": bytes [1024, 2560) of bank 0 "
                                  "(block 0) cross the bank boundary at 2048");
    /* from bank 7, block 1 would be in bank 8 */
    p0->bank = 7;
    p0->addr = 512;
    err = verify_fails(m, SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "verify: PSUM location \"p0\" of tensor \"p0_set\": bank 8 (block 1) is outside "
                                  "[0, 8)");
    /* bank 6, addr 512: blocks in banks 6 and 7, accepted */
    p0->bank = 6;
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "%s", err.message);
    /* with one physical block (live_n 1) at addr 0 no block crosses: the
     * placement rules hold, and the data flow fails, as both blocks are
     * written before either is read */
    p0->addr = 0;
    p0->live_n = 1;
    err = verify_fails(m, SBA_ERR_PROGRAM);
    cr_assert(strstr(err.message, "but tensor \"p0_set\" (block 1) written there by instruction \"mm0_1\"") != NULL,
              "%s", err.message);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

/* ---- the verifier on DRAM scratch placements --------------------------------- */

static sba_verify_report verify_ok(const bir_module *m)
{
    sba_error err;
    sba_verify_report rep;
    sba_status s = sba_verify_module(m, &rep, &err);
    cr_assert_eq(s, SBA_OK, "verify: %s: %s", err.path, err.message);
    return rep;
}

Test(verify_dram, live_internal_tensors_at_overlapping_addresses_are_rejected)
{
    /* d0 and d1 (32 KiB each) live together, placed at 0 and 32768. d1 moved
     * to 16384 covers d0's partitions 64..127: the load of d0 reads d1's value. */
    static buf b;
    int f[] = {64, 64};
    const char *sched[] = {"s0", "s1", "l0", "l1"};
    bir_module *m = load(dram_kernel(&b, 2, f, NULL, NULL, sched, 4));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    sba_verify_report rep = verify_ok(m);
    cr_assert_eq(rep.dram_locations, 2);
    bir_location *d0 = find_loc(m, "d0_set", "d0"), *d1 = find_loc(m, "d1_set", "d1");
    cr_assert_eq(d0->addr, 0);
    d1->addr = 16384;
    sba_error err = verify_fails(m, SBA_ERR_PROGRAM);
    cr_assert_str_eq(err.path, "functions[0].blocks[0].instructions[3].ins[0]");
    cr_assert_str_eq(err.message, "verify: instruction \"step2\" reads tensor \"d0_set\" (DRAM location \"d0\") at "
                                  "partition 64, Local scratch bytes [16384, 16640), but tensor \"d1_set\" written "
                                  "there by instruction \"step1\" overwrote it");
    /* one byte of overlap is enough: d1's last row ends on d0's first byte
     * (a page of one byte lets d0 start at any byte) */
    d0->addr = 32768 - 1;
    d1->addr = 0;
    err = verify_fails_page(m, 1, SBA_ERR_PROGRAM);
    cr_assert(strstr(err.message, "bytes [32767, 32768), but tensor \"d1_set\"") != NULL, "%s", err.message);
    /* disjoint: accepted, wherever they are */
    d0->addr = 0;
    d1->addr = 32768;
    verify_ok(m);
    d0->addr = 1 << 20;
    d1->addr = 3 << 20;
    verify_ok(m);
    /* the same address in another address space is another place */
    d0->addr = d1->addr = 0;
    err = verify_fails(m, SBA_ERR_PROGRAM);
    d1->set->addr_space = BIR_AS_SHARED;
    verify_ok(m);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(verify_dram, tensors_live_at_different_times_may_share_bytes)
{
    /* d2 reuses d0's address after d0's last load */
    static buf b;
    int f[] = {64, 64, 64};
    const char *sched[] = {"s0", "s1", "l0", "l1", "s2", "l2"};
    bir_module *m = load(dram_kernel(&b, 3, f, NULL, NULL, sched, 6));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_eq(find_loc(m, "d2_set", "d2")->addr, find_loc(m, "d0_set", "d0")->addr);
    cr_assert_eq(verify_ok(m).dram_locations, 3);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(verify_dram, a_range_outside_the_scratch_is_rejected)
{
    static buf b;
    int f[] = {64};
    const char *sched[] = {"s0", "l0"};
    bir_module *m = load(dram_kernel(&b, 1, f, NULL, NULL, sched, 2));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    find_loc(m, "d0_set", "d0")->addr = -512;
    sba_error err = verify_fails(m, SBA_ERR_MODEL);
    cr_assert_str_eq(err.path, "functions[0].allocations[2].memorylocations[0]");
    cr_assert_str_eq(err.message, "verify: DRAM location \"d0\" of tensor \"d0_set\": addr -512 (1 blocks x 128 "
                                  "partitions x 256 bytes) is not a valid range of the Local scratch");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(verify_dram, addresses_off_the_dram_page_are_rejected)
{
    /* d1 (33,280 bytes) at 0, d0 after it at 33,792: whole pages of 1 KiB */
    static buf b;
    int f[] = {64, 65};
    const char *sched[] = {"s0", "s1", "l0", "l1"};
    bir_module *m = load(dram_kernel(&b, 2, f, NULL, NULL, sched, 4));
    run r = alloc(m, 1024); /* verified on 1024 inside */
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *d0 = find_loc(m, "d0_set", "d0");
    cr_assert_eq(d0->addr, 33792);
    cr_assert_eq(find_loc(m, "d1_set", "d1")->addr, 0);
    sba_verify_options vo = {.dram_page = 1024};
    sba_error err;
    cr_assert_eq(sba_verify_module_opts(m, &vo, NULL, &err), SBA_OK, "%s", err.message);
    /* half a page further: still clear of d1, on the default page of 512,
     * off the page of 1024 */
    d0->addr = 33792 + 512;
    verify_ok(m);
    err = verify_fails_page(m, 1024, SBA_ERR_MODEL);
    cr_assert_str_eq(err.path, "functions[0].allocations[2].memorylocations[0]");
    cr_assert_str_eq(err.message, "verify: DRAM location \"d0\" of tensor \"d0_set\": addr 34304 is not a multiple of "
                                  "the DRAM page 1024");
    /* off the default page too */
    d0->addr = 33792 + 256;
    err = verify_fails(m, SBA_ERR_MODEL);
    cr_assert_str_eq(err.message, "verify: DRAM location \"d0\" of tensor \"d0_set\": addr 34048 is not a multiple of "
                                  "the DRAM page 512");
    /* a negative page is a usage error */
    verify_fails_page(m, -512, SBA_ERR_USAGE);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(verify_dram, must_alias_peers_are_one_storage)
{
    /* d1 must-aliases d0: a write through d1 is a write of d0, so the load
     * through d0 after it reads d1's value and is correct */
    static buf b;
    int f[] = {64, 64, 64}, alias[] = {-1, 0, -1};
    const char *sched[] = {"s0", "s1", "l0", "s2", "l1", "l2"};
    bir_module *m = load(dram_kernel(&b, 3, f, NULL, alias, sched, 6));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    bir_location *d0 = find_loc(m, "d0_set", "d0"), *d1 = find_loc(m, "d1_set", "d1"), *d2 = find_loc(m, "d2_set", "d2");
    cr_assert_eq(d0->addr, d1->addr);
    cr_assert_neq(d2->addr, d0->addr);
    verify_ok(m);
    /* d2, live with the group, moved onto it: the load through d1 finds d2 */
    int64_t apart = d2->addr;
    d2->addr = d0->addr;
    sba_error err = verify_fails(m, SBA_ERR_PROGRAM);
    cr_assert_str_eq(err.message, "verify: instruction \"step4\" reads tensor \"d1_set\" (DRAM location \"d1\") at "
                                  "partition 0, Local scratch bytes [0, 256), but tensor \"d2_set\" written there "
                                  "by instruction \"step3\" overwrote it");
    d2->addr = apart;
    /* must-alias peers apart are not one storage */
    d1->addr = d0->addr + 65536;
    err = verify_fails(m, SBA_ERR_MODEL);
    cr_assert_str_eq(err.path, "functions[0].allocations[2].memorylocations[0]");
    cr_assert_str_eq(err.message, "verify: must-alias DRAM locations \"d0\" of tensor \"d0_set\" (Local scratch "
                                  "address 0) and \"d1\" of tensor \"d1_set\" (Local scratch address 65536) are "
                                  "not one storage: they must share one address");
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

/* t [128, 64] fp32 in DRAM at 0, written as two column halves (bytes [0, 128)
 * and [128, 256) of every row) and loaded whole; u [128, 32] fp32 at u_addr,
 * written between the halves and the load, loaded after it. */
static const char *half_rows_kernel(buf *b, int64_t u_addr)
{
    b->n = 0;
    put(b, "{\"version\": 2, \"arch\": \"trn2\", \"functions\": [{\"name\": \"f\", \"allocations\": ["
           "{\"name\": \"x\", \"kind\": \"ExternalInput\", \"dtype\": \"float32\", \"tensor_shape\": [128, 64], "
           "\"memorylocations\": [{\"name\": \"x\", \"type\": \"DRAM\"}]}, "
           "{\"name\": \"xs\", \"dtype\": \"float32\", \"tensor_shape\": [128, 64], \"memorylocations\": "
           "[{\"name\": \"xs\", \"type\": \"SB\", \"addr\": 0, \"base\": 0}]}, "
           "{\"name\": \"t\", \"dtype\": \"float32\", \"tensor_shape\": [128, 64], \"memorylocations\": "
           "[{\"name\": \"t\", \"type\": \"DRAM\", \"addr\": 0}]}, "
           "{\"name\": \"u\", \"dtype\": \"float32\", \"tensor_shape\": [128, 32], \"memorylocations\": "
           "[{\"name\": \"u\", \"type\": \"DRAM\", \"addr\": %lld}]}, "
           "{\"name\": \"r\", \"dtype\": \"float32\", \"tensor_shape\": [128, 64], \"memorylocations\": "
           "[{\"name\": \"r\", \"type\": \"SB\", \"addr\": 256, \"base\": 0}]}, "
           "{\"name\": \"q\", \"dtype\": \"float32\", \"tensor_shape\": [128, 32], \"memorylocations\": "
           "[{\"name\": \"q\", \"type\": \"SB\", \"addr\": 512, \"base\": 0}]}"
           "], \"blocks\": [{\"name\": \"entry\", \"instructions\": [", (long long)u_addr);
#define HALF(set, off) "{\"memsetref\": \"" set "\", \"ap\": [[64, 128], [1, 32]], \"offset\": " #off "}"
#define WHOLE(set, f) "{\"memsetref\": \"" set "\", \"ap\": [[" #f ", 128], [1, " #f "]]}"
    put(b, "{\"name\": \"load\", \"opcode\": \"DMALoad\", \"ins\": [" WHOLE("x", 64) "], \"outs\": [" WHOLE("xs", 64)
           "]}, {\"name\": \"lo\", \"opcode\": \"DMAStore\", \"ins\": [" HALF("xs", 0) "], \"outs\": [" HALF("t", 0)
           "]}, {\"name\": \"hi\", \"opcode\": \"DMAStore\", \"ins\": [" HALF("xs", 32) "], \"outs\": ["
           HALF("t", 32) "]}, {\"name\": \"su\", \"opcode\": \"DMAStore\", \"ins\": [" HALF("xs", 0)
           "], \"outs\": [" WHOLE("u", 32) "]}, {\"name\": \"lt\", \"opcode\": \"DMALoad\", \"ins\": ["
           WHOLE("t", 64) "], \"outs\": [" WHOLE("r", 64) "]}, {\"name\": \"lu\", \"opcode\": \"DMALoad\", "
           "\"ins\": [" WHOLE("u", 32) "], \"outs\": [" WHOLE("q", 32) "]}]}]}]}");
#undef HALF
#undef WHOLE
    return b->s;
}

Test(verify_dram, partial_rows_compose_and_overlap_by_row)
{
    static buf b;
    /* u after t: the two halves of every row make t's value */
    bir_module *m = load(half_rows_kernel(&b, 32768));
    cr_assert_eq(verify_ok(m).dram_locations, 2);
    bir_module_free(m);
    /* u from byte 128 on (with a page of 128 bytes): its first row is t's
     * partition 0, second half */
    m = load(half_rows_kernel(&b, 128));
    sba_error err = verify_fails_page(m, 128, SBA_ERR_PROGRAM);
    cr_assert_str_eq(err.message, "verify: instruction \"lt\" reads tensor \"t\" (DRAM location \"t\") at partition 0, "
                                  "Local scratch bytes [128, 256), but tensor \"u\" written there by instruction "
                                  "\"su\" overwrote it");
    bir_module_free(m);
}

Test(verify_dram, a_spilled_module_with_homes_packed_in_dram_verifies)
{
    static buf b;
    bir_module *m = load(spill_kernel(&b));
    run r = alloc(m, 0);
    cr_assert_eq(r.st, SBA_OK, "%s", r.err.message);
    cr_assert_gt(r.rep.fns[0].stores, 0);
    sba_verify_report rep = verify_ok(m);
    cr_assert_gt(rep.dram_locations, 0, "the homes are checked in the DRAM space");
    cr_assert_eq(rep.dram_locations, r.rep.fns[0].dram_placed);
    sba_alloc_report_free(&r.rep);
    bir_module_free(m);
}

Test(examples, every_example_is_allocated_in_all_three_memories_and_verified)
{
    static const char *const names[] = {"attention", "dram_alias", "matmul_tiled", "preplaced", "softmax_rows",
                                        "spill_pressure"};
    uint32_t psum = 0, dram = 0;
    uint64_t dram_checked = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/examples/%s.json", SBALLOC_SOURCE_DIR, names[i]);
        sba_error err;
        bir_module *m = bir_load_file(path, NULL, &err);
        cr_assert_not_null(m, "%s: %s", path, err.message);
        run r = alloc(m, 0); /* verified inside */
        cr_assert_eq(r.st, SBA_OK, "%s: %s", names[i], r.err.message);
        dram_checked += verify_ok(m).dram_locations;
        for (uint32_t f = 0; f < m->nfns; f++) {
            const bir_function *fn = m->fns[f];
            for (uint32_t s = 0; s < fn->nsets; s++)
                for (uint32_t l = 0; l < fn->sets[s]->nlocs; l++) {
                    const bir_location *loc = fn->sets[s]->locs[l];
                    bool accessed = loc->storage.nreaders + loc->storage.nwriters > 0;
                    if (!accessed) continue;
                    if (loc->type == BIR_MEM_PSUM) {
                        cr_assert(loc->has_bank && loc->addr != BIR_NO_ADDR, "%s: %s", names[i], loc->name);
                        psum++;
                    } else if (loc->type == BIR_MEM_SB) {
                        cr_assert_neq(loc->addr, BIR_NO_ADDR, "%s: %s", names[i], loc->name);
                    } else if (loc->type == BIR_MEM_DRAM && fn->sets[s]->kind == BIR_TK_INTERNAL) {
                        cr_assert_neq(loc->addr, BIR_NO_ADDR, "%s: %s", names[i], loc->name);
                        dram++;
                    }
                }
        }
        sba_alloc_report_free(&r.rep);
        bir_module_free(m);
    }
    cr_assert_gt(psum, 0);
    cr_assert_gt(dram, 0);
    cr_assert_geq(dram_checked, dram, "every placed internal DRAM tensor is checked in its DRAM space");
}

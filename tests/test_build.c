/* build against seed 000: the triangular bit matrix, the adjacency lists,
 * edges as time overlap only, and the pressure profile it logs. */
#include "sbuf_fixture.h"

/* ====================================================================== */
/* build: the bit matrix, adjacency lists, edges = time overlap            */
/* ====================================================================== */

Test(build, bit_index_formula)
{
    cr_assert_eq(sb_bit_index(0, 1), 0);
    cr_assert_eq(sb_bit_index(1, 2), 1 + 2);
    cr_assert_eq(sb_bit_index(3, 5), 3 + 12);
    cr_assert_eq(sb_bit_index(5, 3), 3 + 12, "unordered");
    cr_assert_eq(sb_bit_index(7, 100), 7 + 5000);
    cr_assert_eq(sb_bit_index(8191, 8192), 8191 + 8192ull * 8192 / 2);
}

/* lo + hi²/2 is one-to-one on pairs lo < hi < n and fits (n² + 15) / 16 bytes. */
Test(build, bit_index_is_injective_and_fits_the_matrix)
{
    enum { N = 300 };
    static uint8_t seen[(N * N + 15) / 16];
    for (uint32_t n = 2; n <= N; n++) {
        uint64_t bytes = ((uint64_t)n * n + 15) / 16;
        memset(seen, 0, sizeof seen);
        for (uint32_t hi = 1; hi < n; hi++)
            for (uint32_t lo = 0; lo < hi; lo++) {
                uint64_t b = sb_bit_index(lo, hi);
                cr_assert_lt(b, bytes * 8, "n %u pair (%u, %u)", n, lo, hi);
                cr_assert_not(seen[b >> 3] >> (b & 7) & 1, "n %u pair (%u, %u) collides", n, lo, hi);
                seen[b >> 3] |= (uint8_t)(1u << (b & 7));
            }
    }
}

/* A chain of overlapping lifetimes, a long-lived tensor and a disjoint pair:
 * adjacency is symmetric, degrees match, E counts each edge once, the matrix
 * agrees, and an edge is exactly a time overlap. */
#define GRAPH                                                                                          \
    MOD(DIN("x", 128, 16) ", " DOUT("y", 128, 16) ", " T("a") ", " T("b") ", " T("c") ", " T("d") ", " \
        T("e") ", " T("long"),                                                                         \
        LD("l0", "x", "long") ", " LD("la", "x", "a") ", " LD("lb", "x", "b") ", " ST("sa", "a", "y")    \
        ", " LD("lc", "x", "c") ", " ST("sb", "b", "y") ", " ST("sc", "c", "y") ", " LD("ld", "x", "d") \
        ", " ST("sd", "d", "y") ", " LD("le", "x", "e") ", " ST("se", "e", "y") ", "                    \
        ST("s0", "long", "y"))

static void check_graph(fx *f)
{
    const sb_ctx *c = &f->c;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const sb_node *ni = &c->info[i];
        if (ni->rep != i) continue;
        sum += ni->degree;
        for (uint32_t k = 0; k < ni->degree; k++) {
            uint32_t j = ni->adj[k];
            cr_assert_neq(j, i, "self edge at %u", i);
            uint32_t back = 0;
            for (uint32_t m = 0; m < c->info[j].degree; m++) back += c->info[j].adj[m] == i;
            cr_assert_eq(back, 1, "edge %u-%u not once in %u's list", i, j, j);
            uint32_t twice = 0;
            for (uint32_t m = 0; m < ni->degree; m++) twice += ni->adj[m] == j;
            cr_assert_eq(twice, 1, "edge %u-%u repeated", i, j);
        }
        for (uint32_t j = 0; j < c->n; j++) {
            if (j == i || c->info[j].rep != j) continue;
            const sb_node *nj = &c->info[j];
            bool overlap = ni->start <= nj->end && nj->start <= ni->end;
            bool listed = false;
            for (uint32_t k = 0; k < ni->degree; k++) listed |= ni->adj[k] == j;
            cr_assert_eq(listed, overlap, "%s [%u,%u] vs %s [%u,%u]", ni->loc->name, ni->start, ni->end,
                         nj->loc->name, nj->start, nj->end);
            cr_assert_eq(sb_interferes(c, i, j), overlap);
            if (c->has_matrix)
                cr_assert_eq(sba_bitset_test(&c->matrix, sb_bit_index(i, j)), overlap);
        }
    }
    cr_assert_eq(sum, 2 * c->edges, "Σ degree = 2E");
    cr_assert_eq(c->rep->edges, c->edges);
}

Test(build, adjacency_is_symmetric_and_matches_the_matrix)
{
    fx f;
    front(&f, GRAPH, SB_TO_BUILD);
    check_graph(&f);
    cr_assert(f.c.has_matrix);
    cr_assert_eq(f.c.matrix.nbits, ((uint64_t)f.c.n * f.c.n + 15) / 16 * 8, "(n² + 15) / 16 bytes");
    /* long: with everyone; a-b, b-c; d, e alone but for long */
    cr_assert_eq(node(&f, "long")->degree, 5);
    cr_assert_eq(node(&f, "a")->degree, 2);
    cr_assert_eq(node(&f, "b")->degree, 3);
    cr_assert_eq(node(&f, "c")->degree, 2);
    cr_assert_eq(node(&f, "d")->degree, 1);
    cr_assert_eq(node(&f, "e")->degree, 1);
    cr_assert_eq(f.c.edges, 7);
    cr_assert_not(sb_interferes(&f.c, id(&f, "a"), id(&f, "c")));
    cr_assert_not(sb_interferes(&f.c, id(&f, "d"), id(&f, "e")));
    fx_free(&f);
}

/* Geometry is not in the edge: pre-placed tensors in disjoint quarters that
 * live together still interfere (with impact 0); tensors in the same band at
 * disjoint times do not. */
Test(build, interference_is_time_overlap_only)
{
    fx f;
    front(&f, MOD(DIN("x", 32, 16) ", " DOUT("y", 32, 16) ", " FIXED("p", "Internal", 32, 16, 0, 0) ", "
                  FIXED("q", "Internal", 32, 16, 0, 96) ", " SB("s", 32, 16) ", " SB("t", 32, 16),
                  INS("lp", "DMALoad", AP("x", 32, 16), AP("p", 32, 16)) ", "
                  INS("lq", "DMALoad", AP("x", 32, 16), AP("q", 32, 16)) ", "
                  INS("sp", "DMAStore", AP("p", 32, 16), AP("y", 32, 16)) ", "
                  INS("sq", "DMAStore", AP("q", 32, 16), AP("y", 32, 16)) ", "
                  INS("ls", "DMALoad", AP("x", 32, 16), AP("s", 32, 16)) ", "
                  INS("ss", "DMAStore", AP("s", 32, 16), AP("y", 32, 16)) ", "
                  INS("lt", "DMALoad", AP("x", 32, 16), AP("t", 32, 16)) ", "
                  INS("st", "DMAStore", AP("t", 32, 16), AP("y", 32, 16))),
          SB_TO_BUILD);
    uint32_t p = id(&f, "p"), q = id(&f, "q"), s = id(&f, "s"), t = id(&f, "t");
    cr_assert(sb_interferes(&f.c, p, q));
    cr_assert_eq(sb_impact(&f.c, p, q), 0);
    cr_assert_not(sb_interferes(&f.c, s, t));
    cr_assert_not(sb_interferes(&f.c, p, s));
    cr_assert_eq(f.c.edges, 1);
    check_graph(&f);
    fx_free(&f);
}

/* Many random lifetimes: the sweep finds exactly the overlapping pairs. */
Test(build, sweep_matches_pairwise_overlap)
{
    char sets[16384] = "", body[32768] = "";
    size_t ls = 0, lb = 0;
    ls += (size_t)snprintf(sets + ls, sizeof sets - ls, DIN("x", 32, 8) ", " DOUT("y", 32, 8));
    uint32_t seed = 12345;
    enum { NT = 40 };
    int def[NT], use[NT];
    for (int k = 0; k < NT; k++) {
        seed = seed * 1103515245u + 12345u;
        def[k] = (int)(seed >> 16) % 60;
        seed = seed * 1103515245u + 12345u;
        use[k] = def[k] + 1 + (int)(seed >> 16) % 20;
        ls += (size_t)snprintf(sets + ls, sizeof sets - ls, ", " SB("t%d", 32, 8), k, k);
    }
    /* program point p: loads of tensors defined at p, then stores of those used at p */
    for (int p = 0; p < 100; p++) {
        for (int k = 0; k < NT; k++)
            if (def[k] == p) {
                char dst[16];
                snprintf(dst, sizeof dst, "t%d", k);
                lb += (size_t)snprintf(body + lb, sizeof body - lb,
                                       "%s{\"name\": \"d%d\", \"opcode\": \"DMALoad\", \"ins\": [" AP("x", 32, 8)
                                       "], \"outs\": [{\"memsetref\": \"%s\", \"ap\": [[8, 32], [1, 8]]}]}",
                                       lb ? ", " : "", k, dst);
            }
        for (int k = 0; k < NT; k++)
            if (use[k] == p) {
                char src[16];
                snprintf(src, sizeof src, "t%d", k);
                lb += (size_t)snprintf(body + lb, sizeof body - lb,
                                       ", {\"name\": \"u%d\", \"opcode\": \"DMAStore\", \"ins\": [{\"memsetref\": "
                                       "\"%s\", \"ap\": [[8, 32], [1, 8]]}], \"outs\": [" AP("y", 32, 8) "]}",
                                       k, src);
            }
    }
    cr_assert_lt(ls, sizeof sets - 1);
    cr_assert_lt(lb, sizeof body - 1);
    static char text[65536];
    snprintf(text, sizeof text,
             "{" TARGET ", \"functions\": [{\"name\": \"f\", \"allocations\": [%s], \"blocks\": [{\"name\": "
             "\"entry\", \"instructions\": [%s]}]}]}",
             sets, body);
    fx f;
    front(&f, text, SB_TO_BUILD);
    cr_assert_eq(f.c.n, NT);
    check_graph(&f);
    fx_free(&f);
}

/* ====================================================================== */
/* pressure                                                                 */
/* ====================================================================== */

/* Three tensors live together at the store of a: a full 64 B, a quarter 32 B
 * (any band) and a pre-placed half at 64 of 96 B. */
Test(pressure, log_lines)
{
    fx f;
    cr_assert_eq(analyze_log(&f, MOD(DIN("x16", 128, 16) ", " DIN("x8", 32, 8) ", " DIN("x24", 64, 24) ", "
                                     DOUT("y16", 128, 16) ", " DOUT("y8", 32, 8) ", " DOUT("y24", 64, 24) ", "
                                     SB("a", 128, 16) ", " SB("q", 32, 8) ", " FIXED("h", "Internal", 64, 24, 512, 64),
                                     INS("lh", "DMALoad", AP("x24", 64, 24), AP("h", 64, 24)) ", "
                                     INS("la", "DMALoad", AP("x16", 128, 16), AP("a", 128, 16)) ", "
                                     INS("lq", "DMALoad", AP("x8", 32, 8), AP("q", 32, 8)) ", "
                                     INS("sa", "DMAStore", AP("a", 128, 16), AP("y16", 128, 16)) ", "
                                     INS("sq", "DMAStore", AP("q", 32, 8), AP("y8", 32, 8)) ", "
                                     INS("sh", "DMAStore", AP("h", 64, 24), AP("y24", 64, 24))),
                             false),
                 SBA_OK, "%s", f.err.message);
    /* total 64 + 32 + 96 = 192; per quarter: a in all four (64), h in [64,127] (96);
     * weighted: 64·4 + 32·1 + 96·2 = 480 -> 120 per quarter; max(120, 160) = 160 */
    assert_log_has(&f, "SB pressure 192 bytes\n"
                       "SB high-water mark = 160 bytes\n"
                       "64 bytes in partitions [0,31]\n"
                       "64 bytes in partitions [32,63]\n"
                       "160 bytes in partitions [64,95]\n"
                       "160 bytes in partitions [96,127]\n");
    assert_log_lacks(&f, "bad height");
    cr_assert_eq(f.rep.peak_pressure, 120); /* per quarter, not 192 summed across bands */
    cr_assert_eq(f.rep.lower_bound_total, 160);
    cr_assert_eq(f.rep.lower_bound[2], 160);
    bir_module_free(f.m);
}

/* The dump: one line per program point. */
Test(pressure, dump_per_point)
{
    fx f;
    cr_assert_eq(analyze_dump(&f, COPY_DIES, false, SBA_DUMP_PRESSURE), SBA_OK, "%s", f.err.message);
    assert_log_has(&f, "pressure 0: 64 bytes; fixed [0,31] 64 [32,63] 64 [64,95] 64 [96,127] 64\n"
                       "pressure 1: 64 bytes; fixed [0,31] 64 [32,63] 64 [64,95] 64 [96,127] 64\n"
                       "pressure 2: 64 bytes; fixed [0,31] 64 [32,63] 64 [64,95] 64 [96,127] 64\n");
    bir_module_free(f.m);
}

/* Two full-height tensors of 640 bytes live together: each quarter needs
 * 1,280 > 1,024 bytes: "bad height" (analysis still completes). */
Test(pressure, bad_height)
{
    fx f;
    cr_assert_eq(analyze_log(&f, MOD(DIN("x", 128, 160) ", " DOUT("y", 128, 160) ", " SB("a", 128, 160) ", "
                                     SB("b", 128, 160),
                                     INS("la", "DMALoad", AP("x", 128, 160), AP("a", 128, 160)) ", "
                                     INS("lb", "DMALoad", AP("x", 128, 160), AP("b", 128, 160)) ", "
                                     INS("sa", "DMAStore", AP("a", 128, 160), AP("y", 128, 160)) ", "
                                     INS("sb", "DMAStore", AP("b", 128, 160), AP("y", 128, 160))),
                             false),
                 SBA_OK, "%s", f.err.message);
    assert_log_has(&f, "SB pressure 1280 bytes\n"
                       "SB high-water mark = 1280 bytes\n"
                       "1280 bytes in partitions [0,31]\n"
                       "1280 bytes in partitions [32,63]\n"
                       "1280 bytes in partitions [64,95]\n"
                       "1280 bytes in partitions [96,127]\n"
                       "bad height\n");
    bir_module_free(f.m);
}

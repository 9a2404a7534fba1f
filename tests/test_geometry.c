/* The 2-D geometry of seed 000: height classes, the vertical impact table,
 * impact and possible_placements. */
#include "sbuf_fixture.h"

/* ====================================================================== */
/* geometry: height classes, vertical impact, possible_placements          */
/* ====================================================================== */

Test(geometry, band_tables)
{
    static const uint32_t bands[SB_HEIGHTS] = {4, 1, 1, 1, 1, 2, 1, 1, 1};
    static const uint32_t width[SB_HEIGHTS] = {32, 32, 32, 32, 32, 64, 64, 64, 128};
    static const uint32_t starts[SB_HEIGHTS][4] = {{0, 32, 64, 96}, {0}, {32}, {64}, {96}, {0, 64}, {0}, {64}, {0}};
    for (uint32_t h = 0; h < SB_HEIGHTS; h++) {
        cr_assert_eq(sb_height_bands(h), bands[h], "bands of class %u", h);
        cr_assert_eq(sb_height_band_width(h), width[h], "width of class %u", h);
        for (uint32_t k = 0; k < bands[h]; k++)
            cr_assert_eq(sb_height_band_start(h, k), starts[h][k], "band %u of class %u", k, h);
    }
}

Test(geometry, height_class_of_each_class)
{
    /* unconstrained: 0 any quarter, 5 any half, 8 full */
    cr_assert_eq(sb_height_class(1, -1), 0);
    cr_assert_eq(sb_height_class(32, -1), 0);
    cr_assert_eq(sb_height_class(33, -1), 5);
    cr_assert_eq(sb_height_class(64, -1), 5);
    cr_assert_eq(sb_height_class(65, -1), 8);
    cr_assert_eq(sb_height_class(128, -1), 8);
    /* a fixed base picks the smallest class that holds the tensor */
    cr_assert_eq(sb_height_class(32, 0), 1);
    cr_assert_eq(sb_height_class(32, 32), 2);
    cr_assert_eq(sb_height_class(16, 64), 3);
    cr_assert_eq(sb_height_class(32, 96), 4);
    cr_assert_eq(sb_height_class(64, 0), 6);
    cr_assert_eq(sb_height_class(33, 64), 7);
    cr_assert_eq(sb_height_class(128, 0), 8);
    cr_assert_eq(sb_height_class(96, 0), 8);
    /* no class: a half at 32 or 96, a tall tensor not at 0, an unaligned base, bad heights */
    cr_assert_eq(sb_height_class(64, 32), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(48, 96), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(128, 64), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(32, 16), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(0, -1), SB_HEIGHTS);
    cr_assert_eq(sb_height_class(129, -1), SB_HEIGHTS);
}

Test(geometry, height_for_mask_of_each_class)
{
    /* masks: bit i = base 32·i */
    cr_assert_eq(sb_height_for_mask(32, 0xF), 0);
    cr_assert_eq(sb_height_for_mask(32, 0x1), 1);
    cr_assert_eq(sb_height_for_mask(32, 0x2), 2);
    cr_assert_eq(sb_height_for_mask(32, 0x4), 3);
    cr_assert_eq(sb_height_for_mask(32, 0x8), 4);
    cr_assert_eq(sb_height_for_mask(64, 0x5), 5);
    cr_assert_eq(sb_height_for_mask(64, 0x1), 6);
    cr_assert_eq(sb_height_for_mask(64, 0x4), 7);
    cr_assert_eq(sb_height_for_mask(128, 0x1), 8);
    /* Only the classes of the tensor's own height are candidates (1-32: 0-4,
     * 33-64: 5-7, 65-128: 8): a quarter allowed at 0 and 64 is the quarter at
     * 0, not the half class 5, which would count it 64 partitions tall. */
    cr_assert_eq(sb_height_for_mask(32, 0x5), 1);
    cr_assert_eq(sb_height_for_mask(16, 0xC), 3);
    cr_assert_eq(sb_height_for_mask(48, 0x1), 6);
    cr_assert_eq(sb_height_for_mask(64, 0xF), 5);
    cr_assert_eq(sb_height_for_mask(64, 0x2), SB_HEIGHTS);
    cr_assert_eq(sb_height_for_mask(128, 0xE), SB_HEIGHTS);
    cr_assert_eq(sb_height_for_mask(32, 0x0), SB_HEIGHTS);
}

/* Nodes: unconstrained heights 32/64/128 give classes 0/5/8; pre-placed bases
 * give 1-4, 6, 7 and 8 (the seed stamps the class from the base). */
Test(geometry, node_height_classes)
{
    fx f;
    front(&f, MOD(DIN("x", 128, 16) ", " SB("q", 32, 16) ", " SB("h", 64, 16) ", " SB("full", 128, 16) ", "
                  FIXED("q0", "Internal", 32, 16, 0, 0) ", " FIXED("q1", "Internal", 32, 16, 0, 32) ", "
                  FIXED("q2", "Internal", 32, 16, 0, 64) ", " FIXED("q3", "Internal", 32, 16, 0, 96) ", "
                  FIXED("h0", "Internal", 64, 16, 64, 0) ", " FIXED("h1", "Internal", 64, 16, 64, 64) ", "
                  FIXED("f0", "Internal", 128, 16, 128, 0),
                  INS("a", "DMALoad", AP("x", 32, 16), AP("q", 32, 16)) ", "
                  INS("b", "DMALoad", AP("x", 64, 16), AP("h", 64, 16)) ", "
                  INS("c", "DMALoad", AP("x", 128, 16), AP("full", 128, 16)) ", "
                  INS("d", "DMALoad", AP("x", 32, 16), AP("q0", 32, 16)) ", "
                  INS("e", "DMALoad", AP("x", 32, 16), AP("q1", 32, 16)) ", "
                  INS("g", "DMALoad", AP("x", 32, 16), AP("q2", 32, 16)) ", "
                  INS("h", "DMALoad", AP("x", 32, 16), AP("q3", 32, 16)) ", "
                  INS("i", "DMALoad", AP("x", 64, 16), AP("h0", 64, 16)) ", "
                  INS("j", "DMALoad", AP("x", 64, 16), AP("h1", 64, 16)) ", "
                  INS("k", "DMALoad", AP("x", 128, 16), AP("f0", 128, 16))),
          SB_TO_BUILD);
    static const struct {
        const char *name;
        uint32_t height, band;
    } want[] = {{"q", 0, 32},  {"h", 5, 64},  {"full", 8, 128}, {"q0", 1, 32}, {"q1", 2, 32}, {"q2", 3, 32},
                {"q3", 4, 32}, {"h0", 6, 64}, {"h1", 7, 64},    {"f0", 8, 128}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const sb_node *nd = node(&f, want[k].name);
        cr_assert_eq(nd->height, want[k].height, "%s: class %u", want[k].name, nd->height);
        cr_assert_eq(nd->band_width, want[k].band, "%s: band %u", want[k].name, nd->band_width);
    }
    cr_assert_eq(f.rep.precoloured, 7);
    cr_assert_eq(f.rep.nodes, 10);
    fx_free(&f);
}

/* vi[a][b]: the largest number of a class-b node's candidate bands that one
 * placement of a class-a node overlaps; 0 exactly when the bands are disjoint. */
static const uint32_t VI[SB_HEIGHTS][SB_HEIGHTS] = {
    /*        0  1  2  3  4  5  6  7  8 */
    /* 0 */ {1, 1, 1, 1, 1, 1, 1, 1, 1},
    /* 1 */ {1, 1, 0, 0, 0, 1, 1, 0, 1},
    /* 2 */ {1, 0, 1, 0, 0, 1, 1, 0, 1},
    /* 3 */ {1, 0, 0, 1, 0, 1, 0, 1, 1},
    /* 4 */ {1, 0, 0, 0, 1, 1, 0, 1, 1},
    /* 5 */ {2, 1, 1, 1, 1, 1, 1, 1, 1},
    /* 6 */ {2, 1, 1, 0, 0, 1, 1, 0, 1},
    /* 7 */ {2, 0, 0, 1, 1, 1, 0, 1, 1},
    /* 8 */ {4, 1, 1, 1, 1, 2, 1, 1, 1},
};

Test(geometry, vertical_impact_table)
{
    for (uint32_t a = 0; a < SB_HEIGHTS; a++)
        for (uint32_t b = 0; b < SB_HEIGHTS; b++)
            cr_assert_eq(sb_vertical_impact(a, b), VI[a][b], "vi[%u][%u] = %u", a, b, sb_vertical_impact(a, b));
}

/* The zeros are exactly the pairs of disjoint bands. */
Test(geometry, vertical_impact_zero_iff_disjoint_bands)
{
    for (uint32_t a = 0; a < SB_HEIGHTS; a++)
        for (uint32_t b = 0; b < SB_HEIGHTS; b++) {
            bool meet = false;
            for (uint32_t x = 0; x < sb_height_bands(a); x++)
                for (uint32_t y = 0; y < sb_height_bands(b); y++) {
                    uint32_t alo = sb_height_band_start(a, x), blo = sb_height_band_start(b, y);
                    meet |= alo < blo + sb_height_band_width(b) && blo < alo + sb_height_band_width(a);
                }
            cr_assert_eq(sb_vertical_impact(a, b) == 0, !meet, "vi[%u][%u]", a, b);
        }
}

/* sb_impact(i, j) = vi[H(j)][H(i)] × (units(i) + units(j) − 1), in 32-byte units:
 * a full-height j (class 8) denies a quarter node i (class 0) in all 4
 * bands; disjoint pre-placed quarters deny nothing. */
Test(geometry, impact_values)
{
    fx f;
    front(&f, MOD(DIN("x16", 128, 16) ", " DIN("x64", 128, 64) ", " DIN("x8", 128, 8) ", " DOUT("y", 128, 16)
                  ", " SB("q", 32, 16) ", " SB("full", 128, 64) ", " FIXED("q0", "Internal", 32, 16, 0, 0) ", "
                  FIXED("q1", "Internal", 32, 8, 0, 32),
                  INS("a", "DMALoad", AP("x16", 32, 16), AP("q", 32, 16)) ", "
                  INS("b", "DMALoad", AP("x64", 128, 64), AP("full", 128, 64)) ", "
                  INS("c", "DMALoad", AP("x16", 32, 16), AP("q0", 32, 16)) ", "
                  INS("d", "DMALoad", AP("x8", 32, 8), AP("q1", 32, 8)) ", "
                  INS("u", "TensorTensor", AP("q", 32, 16) ", " AP("full", 32, 64) ", " AP("q0", 32, 16) ", "
                      AP("q1", 32, 8), AP("y", 32, 16))),
          SB_TO_BUILD);
    uint32_t q = id(&f, "q"), full = id(&f, "full"), q0 = id(&f, "q0"), q1 = id(&f, "q1");
    /* units: q 64 B = 2, full 256 B = 8, q0 2, q1 32 B = 1 */
    cr_assert_eq(sb_impact(&f.c, q, full), 4 * (2 + 8 - 1));
    cr_assert_eq(sb_impact(&f.c, full, q), 1 * (8 + 2 - 1));
    cr_assert_eq(sb_impact(&f.c, q, q0), 1 * (2 + 2 - 1));
    cr_assert_eq(sb_impact(&f.c, q0, q1), 0, "disjoint quarters");
    cr_assert_eq(sb_impact(&f.c, q1, q0), 0);
    cr_assert_eq(sb_impact(&f.c, full, q1), 1 * (8 + 1 - 1));
    fx_free(&f);
}

/* possible_placements: k = bands(H) × (capacity units − units + 1). */
Test(geometry, possible_placements_per_height)
{
    fx f;
    front(&f, MOD(DIN("x16", 128, 16) ", " DIN("x64", 128, 64) ", " DIN("x8", 128, 8) ", " DIN("x200", 64, 200)
                  ", " SB("q", 32, 16) ", " SB("h", 64, 16) ", " SB("full", 128, 64) ", "
                  FIXED("q2", "Internal", 32, 8, 0, 64) ", " FIXED("h1", "Internal", 64, 200, 0, 64),
                  INS("a", "DMALoad", AP("x16", 32, 16), AP("q", 32, 16)) ", "
                  INS("b", "DMALoad", AP("x16", 64, 16), AP("h", 64, 16)) ", "
                  INS("c", "DMALoad", AP("x64", 128, 64), AP("full", 128, 64)) ", "
                  INS("d", "DMALoad", AP("x8", 32, 8), AP("q2", 32, 8)) ", "
                  INS("e", "DMALoad", AP("x200", 64, 200), AP("h1", 64, 200))),
          SB_TO_BUILD);
    /* 1024 / 32 = 32 units */
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "q")), 4 * (32 - 2 + 1));
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "h")), 2 * (32 - 2 + 1));
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "full")), 1 * (32 - 8 + 1));
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "q2")), 1 * (32 - 1 + 1));
    /* 800 bytes: 25 units */
    cr_assert_eq(sb_possible_placements(&f.c, id(&f, "h1")), 1 * (32 - 25 + 1));
    fx_free(&f);
}

/* The exact packer (src/sbuf/search.c): functions that colouring alone
 * spills although a packing exists are packed, with no spill, by the search;
 * precoloured rectangles stay where they are and the search packs around
 * them; independent parts are packed each on its own; a spent budget is
 * reported as such; identical tensors are not tried in every order; the
 * greedy runs take MiniMalloc's orders too, and restart with those orders
 * perturbed; the time sections a search keeps keep every meeting of two
 * live ranges; the same input gives the same placements; the address
 * search's pruning keeps every planted packing (followed step by step). Every
 * allocation is proved by the verifier, and the 1-D ones are also checked by
 * the independent CSV checker against the capacity. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sballoc/alloc.h"
#include "sballoc/csv.h"
#include "sballoc/gen.h"
#include "sballoc/verify.h"
#include "base/rng.h"
#include "sbuf/sbuf.h"

/* Colouring alone: a budget of one work unit stops the search at once. */
#define NO_SEARCH 1u

enum { OUTCOME_PACKED = 1, OUTCOME_INFEASIBLE = 2, OUTCOME_BUDGET = 3 };

/* Lifespans where colouring's order leaves a hole: the lower bound is
 * exactly the capacity (13 at time 6), and only one arrangement fits. */
static const char TRAP13[] = "id,lower,upper,size\n"
                             "t0,5,8,1\n"
                             "t1,5,8,4\n"
                             "t2,4,6,3\n"
                             "t3,2,7,4\n"
                             "t4,6,11,4\n";

/* A function once taken for infeasible by an unsound skip of the search. */
static const char TRAP10[] = "id,lower,upper,size\n"
                             "t0,5,10,2\n"
                             "t1,5,7,1\n"
                             "t2,2,6,4\n"
                             "t3,6,9,3\n"
                             "t4,2,3,3\n"
                             "t5,2,4,3\n"
                             "t6,5,8,3\n";

typedef struct result {
    uint32_t spilled, outcome;
    uint64_t search_nodes;
} result;

static bir_module *import(const char *csv, int64_t capacity)
{
    sba_error err;
    bir_module *m = sba_csv_import(csv, strlen(csv), capacity, NULL, &err);
    cr_assert_not_null(m, "import: %d:%d: %s", err.line, err.column, err.message);
    return m;
}

/* Allocates with the given budget (0: the default) and proves the result. */
static result allocate(bir_module *m, uint64_t budget)
{
    sba_alloc_options o = {.search_budget = budget};
    sba_alloc_report r;
    sba_error err;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "allocate: %s", err.message);
    result res = {r.fns[0].spilled, r.fns[0].search_outcome, r.fns[0].search_nodes};
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    return res;
}

/* The allocated 1-D module as a CSV solution, checked on its own. */
static char *export_checked(const bir_module *m, int64_t capacity)
{
    char *text;
    size_t len;
    sba_error err;
    cr_assert_eq(sba_csv_export(m, &text, &len, &err), SBA_OK, "export: %s", err.message);
    sba_csv_check_report rep;
    cr_assert_eq(sba_csv_check(text, len, capacity, &rep, NULL, &err), SBA_OK, "check: %d:%d: %s\n%s", err.line,
                 err.column, err.message, text);
    cr_assert_leq(rep.peak_used, capacity);
    return text;
}

/* Colouring alone spills `csv`; the search packs it within `capacity`. */
static void search_packs_what_colouring_spills(const char *csv, int64_t capacity)
{
    bir_module *m = import(csv, capacity);
    result alone = allocate(m, NO_SEARCH);
    cr_assert_gt(alone.spilled, 0u, "colouring alone no longer spills: the case tests nothing");
    cr_assert_eq(alone.outcome, OUTCOME_BUDGET);
    bir_module_free(m);

    m = import(csv, capacity);
    result searched = allocate(m, 0);
    cr_assert_eq(searched.spilled, 0u);
    cr_assert_eq(searched.outcome, OUTCOME_PACKED);
    cr_assert_gt(searched.search_nodes, 0u);
    bir_free_text(m, export_checked(m, capacity));
    bir_module_free(m);
}

Test(search, packs_a_zero_slack_function_colouring_spills)
{
    search_packs_what_colouring_spills(TRAP13, 13);
}

Test(search, packs_the_function_an_unsound_skip_gave_up)
{
    search_packs_what_colouring_spills(TRAP10, 10);
}

Test(search, packs_around_a_precoloured_rectangle)
{
    /* TRAP10 over a buffer fixed at the bottom of an 11-byte capacity while
     * most of it is live: the others must pack above it. */
    char csv[512];
    snprintf(csv, sizeof csv, "id,lower,upper,size,offset\n%s", "fix,2,9,1,0\n");
    const char *rows = strchr(TRAP10, '\n') + 1;
    for (const char *line = rows; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = strlen(csv);
        snprintf(csv + n, sizeof csv - n, "%.*s,\n", (int)(end - line), line);
        line = end + 1;
    }
    bir_module *m = import(csv, 11);
    cr_assert_gt(allocate(m, NO_SEARCH).spilled, 0u, "colouring alone no longer spills: the case tests nothing");
    bir_module_free(m);
    m = import(csv, 11);
    result res = allocate(m, 0);
    cr_assert_eq(res.spilled, 0u);
    cr_assert_eq(res.outcome, OUTCOME_PACKED);
    char *out = export_checked(m, 11);
    cr_assert_not_null(strstr(out, "fix,2,9,1,0\n"), "the fixed buffer moved:\n%s", out);
    bir_free_text(m, out);
    bir_module_free(m);
}

Test(search, packs_independent_parts_each_on_its_own)
{
    /* TRAP13 twice, the second copy after the first has ended. */
    char csv[512] = "id,lower,upper,size\n";
    const char *rows = strchr(TRAP13, '\n') + 1;
    for (int copy = 0; copy < 2; copy++)
        for (const char *line = rows; *line;) {
            char id[8];
            int lo, hi, size;
            cr_assert_eq(sscanf(line, "%7[^,],%d,%d,%d", id, &lo, &hi, &size), 4);
            size_t n = strlen(csv);
            snprintf(csv + n, sizeof csv - n, "%s_%d,%d,%d,%d\n", id, copy, lo + 20 * copy, hi + 20 * copy, size);
            line = strchr(line, '\n') + 1;
        }
    search_packs_what_colouring_spills(csv, 13);
}

Test(search, a_spent_budget_is_reported_and_spills)
{
    bir_module *m = import(TRAP13, 13);
    result res = allocate(m, NO_SEARCH);
    cr_assert_eq(res.outcome, OUTCOME_BUDGET);
    cr_assert_gt(res.spilled, 0u);
    bir_module_free(m);
}

/* Pigeonholes: seven gaps of 3 bytes between pre-placed walls, and eight
 * identical tensors of 2 bytes live with them: their bytes fit the gaps,
 * yet each gap holds one. */
static const char PIGEONHOLES[] = "id,lower,upper,size,offset\n"
                                  "w0,0,10,1,3\nw1,0,10,1,7\nw2,0,10,1,11\n"
                                  "w3,0,10,1,15\nw4,0,10,1,19\nw5,0,10,1,23\n"
                                  "t0,0,10,2,\nt1,0,10,2,\nt2,0,10,2,\nt3,0,10,2,\n"
                                  "t4,0,10,2,\nt5,0,10,2,\nt6,0,10,2,\nt7,0,10,2,\n";

/* The first line of the search's log, kept. */
static void first_search_line(void *ud, const char *line)
{
    char *keep = ud;
    if (!keep[0] && strncmp(line, "search: part", 12) == 0) snprintf(keep, 256, "%s", line);
}

/* Identical nodes are interchangeable: once one fails at an address, the
 * others are not tried there. Without that the proof goes through the
 * orders of the eight, which this budget does not reach. */
Test(search, identical_tensors_are_not_tried_in_every_order)
{
    bir_module *m = import(PIGEONHOLES, 27);
    char line[256] = "";
    sba_alloc_options o = {.search_budget = 1000000, .log = first_search_line, .log_ud = line};
    sba_alloc_report r;
    sba_error err;
    /* what the spill code makes after the proof may still not fit: either
     * an allocation, proved, or the error that says so */
    sba_status st = sba_allocate_module(m, &o, &r, &err);
    cr_assert(st == SBA_OK || st == SBA_ERR_ALLOC, "allocate: %s", err.message);
    sba_alloc_report_free(&r);
    if (st == SBA_OK) cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    cr_assert(strstr(line, "proved infeasible") != NULL, "first search: %s", line);
    bir_module_free(m);
}

Test(search, same_input_same_placements)
{
    char *first = NULL;
    for (int run = 0; run < 2; run++) {
        bir_module *m = import(TRAP10, 10);
        cr_assert_eq(allocate(m, 0).spilled, 0u);
        char *out = export_checked(m, 10);
        if (run == 0) {
            first = strdup(out);
        } else {
            cr_assert_str_eq(out, first);
            free(first);
        }
        bir_free_text(m, out);
        bir_module_free(m);
    }
}

/* Colouring alone spills the generated kernel; the search packs it. */
static void search_packs_generated(uint64_t seed, const char *heights, double pressure)
{
    sba_gen_options g;
    sba_gen_defaults(&g);
    g.seed = seed;
    g.tensors = 300;
    g.pressure = pressure;
    if (heights) g.heights = heights;
    sba_error err;
    for (int run = 0; run < 2; run++) {
        bir_module *m = sba_gen_module(&g, NULL, &err);
        cr_assert_not_null(m, "gen: %s", err.message);
        result res = allocate(m, run == 0 ? NO_SEARCH : 0);
        if (run == 0) {
            cr_assert_gt(res.spilled, 0u, "colouring alone no longer spills: the case tests nothing");
        } else {
            cr_assert_eq(res.spilled, 0u);
            cr_assert_eq(res.outcome, OUTCOME_PACKED);
        }
        bir_module_free(m);
    }
}

Test(search, packs_a_mixed_height_kernel_colouring_spills)
{
    /* quarter, half and full-height tensors; the lower bound fits at 97% */
    search_packs_generated(1, NULL, 0.97);
}

Test(search, packs_around_pre_placed_tensors_at_the_top)
{
    /* full-height tensors, seven of them pre-placed in the top 16 KiB: the
     * room left in a section excludes them, and the search runs on the
     * mirrored SBUF so that it decides the places they constrain first */
    search_packs_generated(8, "full", 0.95);
}

/* Keeps every "search: part" line, for tests that say which run packed. */
static void search_lines(void *ud, const char *line)
{
    char *keep = ud;
    size_t len = strlen(keep);
    if (strncmp(line, "search: part", 12) == 0 && len + strlen(line) + 2 < 4096)
        snprintf(keep + len, 4096 - len, "%s\n", line);
}

/* The planted function of p, on `budget` units (0: the default), packs
 * with no spill, proved; `lines` gets the search's lines. */
static void planted_packs(const sba_planted_options *p, uint64_t budget, char *lines)
{
    sba_error err;
    bir_module *m = sba_gen_planted(p, false, NULL, &err);
    cr_assert_not_null(m, "gen --planted: %s", err.message);
    lines[0] = '\0';
    sba_alloc_options o = {.search_budget = budget, .log = search_lines, .log_ud = lines};
    sba_alloc_report r;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "allocate: %s", err.message);
    cr_assert_eq(r.fns[0].spilled, 0u, "spilled %u:\n%s", r.fns[0].spilled, lines);
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    bir_module_free(m);
}

/* `gen --planted` with these options (span 0: the default), the rest
 * default. */
static sba_planted_options planted_opts(uint64_t seed, uint32_t tensors, const char *heights, uint32_t span,
                                        uint32_t holes)
{
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.seed = seed;
    p.tensors = tensors;
    p.heights = heights;
    p.span = span;
    p.holes = holes;
    return p;
}

/* That planted function packs on the default budget. */
static void planted_of_packs(uint64_t seed, uint32_t tensors, const char *heights, uint32_t span, uint32_t holes,
                             char *lines)
{
    sba_planted_options p = planted_opts(seed, tensors, heights, span, holes);
    planted_packs(&p, 0, lines);
}

/* That planted function packs on the default budget, and the search says
 * `line` (which run packed which part). */
static void planted_packs_saying(uint64_t seed, uint32_t tensors, const char *heights, uint32_t span, uint32_t holes,
                                 const char *line)
{
    char lines[4096];
    planted_of_packs(seed, tensors, heights, span, holes, lines);
    cr_assert(strstr(lines, line) != NULL, "no \"%s\" in:\n%s", line, lines);
}

/* A planted 1-D function with holes, as MiniMalloc's instances: 1 MiB,
 * tensors of at least 1 KiB over 1,024 steps, `holes` percent of the tiling
 * left out, cuts in time `elongation` times rarer, on `budget` units (0:
 * the default). */
static void planted_long_with_holes_packs(uint64_t seed, uint32_t tensors, uint32_t holes, uint32_t elongation,
                                          uint64_t budget, char *lines)
{
    sba_planted_options p;
    sba_planted_defaults(&p);
    p.seed = seed;
    p.tensors = tensors;
    p.heights = "full";
    p.capacity = 1048576;
    p.span = 1024;
    p.min_size = 1024;
    p.holes = holes;
    p.elongation = elongation;
    planted_packs(&p, budget, lines);
}

static void planted_with_holes_packs(uint64_t seed, uint32_t tensors, uint32_t holes, char *lines)
{
    planted_long_with_holes_packs(seed, tensors, holes, 0, 0, lines);
}

/* The searches by lowest floor read where each node lands from landings
 * kept as floors rise, as the address search does: reading each node's
 * sections instead, for every candidate of every place scanned, made a
 * search node of the greedy runs cost thousands of units where tensors
 * live long (here 260 of them, 11 % holes, cuts in time 13 times rarer, as
 * MiniMalloc's D). Within 3e8 units a greedy run now packs this one,
 * which spilled 13 tensors. */
Test(search, floor_searches_keep_landings_up_to_date)
{
    char lines[4096];
    planted_long_with_holes_packs(3, 260, 11, 13, 300000000, lines);
}

/* The parts select failed are searched the smallest first, each on a fair
 * share of what is left: here one of 30 nodes packs at once and leaves
 * its share to the one of 60, which needs more than half of what the
 * iteration has (searched first, on half, it left a tensor to spill). */
Test(search, small_parts_first_leave_their_share_to_the_large)
{
    char lines[4096];
    planted_of_packs(2, 100, "q:3,h:1,f:1", 25, 0, lines);
    const char *small = strstr(lines, "part of 30 nodes"), *large = strstr(lines, "part of 60 nodes");
    cr_assert(small && large && small < large, "%s", lines);
}

/* The greedy skip also takes MiniMalloc's orders: here T-A-W packs the
 * 300-node part that the skylines and the greedy runs by area, start, end
 * and T-W-A, all run before it, do not. */
Test(search, greedy_runs_take_minimallocs_orders)
{
    char lines[4096];
    planted_with_holes_packs(7, 300, 10, lines);
    cr_assert(strstr(lines, "part of 300 nodes packed (run 7: greedy, T-A-W order)") != NULL, "%s", lines);
}

/* Restarts of the greedy runs, their orders perturbed by a seed: the
 * 300-node part here packs on the first restart, by none of the quick
 * runs in the plain orders. */
Test(search, greedy_restarts_perturb_the_orders)
{
    char lines[4096];
    planted_with_holes_packs(122, 300, 10, lines);
    cr_assert(strstr(lines, "part of 300 nodes packed (run 6: greedy, T-W-A order perturbed by seed 1, left out first)") !=
                  NULL,
              "%s", lines);
}

/* A restart also moves up the nodes that the greedy runs before it left
 * out where they got furthest (squeaky wheel): the 300-node part of this
 * planted 1-D function with 10 % holes (`gen --planted --heights full
 * --holes 10 --tensors 300 --seed 159`) packs on the first round so,
 * where with the orders only perturbed all eight rounds fail and the
 * address-order search packs it 2.4e9 units later. */
Test(search, greedy_restarts_try_the_left_out_first)
{
    planted_packs_saying(159, 300, "full", 0, 10,
                         "part of 300 nodes packed (run 8: greedy, W-A-T order perturbed by seed 1, left out first)");
}

/* A 2-D part with no slack gets its relays merged with time mirrored
 * after the forward run: the 136-node part of this quarter-heavy function
 * (`gen --planted --heights q:3,h:1,f:1 --span 50 --tensors 200 --seed
 * 20`) packs on it, before the strips alone on ever wider bounds, which
 * packed it on four times the bounds (sixteen times, their one run alone
 * before, spent its share on wrong sets of the right load, and 75 tensors
 * spilled; test_skyline.c keeps a tiling where four times pack and
 * sixteen do not). */
Test(search, a_2d_part_gets_its_relays_with_time_mirrored)
{
    planted_packs_saying(20, 200, "q:3,h:1,f:1", 50, 0,
                         "part of 136 nodes packed (run 19: relays merged, area order, time mirrored)");
}

/* A 2-D part with no slack gets the skyline by bands' quick run once more
 * with time mirrored: the 741-node part of this quarter-heavy function
 * (`gen --planted --heights q:3,h:1,f:1 --span 250 --tensors 1000 --seed
 * 1`) packs on it, where forwards no run packed it and 77 tensors
 * spilled. */
Test(search, a_2d_part_gets_a_quick_skyline_run_with_time_mirrored)
{
    planted_packs_saying(1, 1000, "q:3,h:1,f:1", 250, 0,
                         "part of 741 nodes packed (run 1: skyline by bands, area order, time mirrored)");
}

/* In 2-D the strips can check each section of a set as their sweep
 * completes it (strips.c, Fills): the parts of 206 and 210 nodes of this
 * dense function (`gen --planted --heights q:1,h:1,f:1 --span 166
 * --tensors 1000 --seed 2`) pack on the run that does, where the plain
 * strips found tens of thousands of sets of a strip's load that did not
 * fill the quarters, and 34 tensors spilled. */
Test(search, the_strips_check_each_section_of_a_set)
{
    planted_packs_saying(2, 1000, "q:1,h:1,f:1", 166, 0,
                         "part of 206 nodes packed (run 21: strips by bands, filled section by section");
}

/* That run is the strips alone, on a quarter of what the quick runs
 * leave: the skyline by bands that took half of an eighth after them
 * repeated the quick run's (the same part, order and seed). The part of
 * 1,000 nodes of this dense function (`gen --planted --heights q:1,h:1,f:1
 * --span 166 --tensors 1000 --seed 3`) packs on it, its strips needing 306
 * million units (half of the eighth: 91 tensors spilled), and the part of
 * 762 nodes of the one of 2,000 tensors over 333 steps, seed 2 (the whole
 * eighth: 66 spilled). */
Test(search, the_strips_filled_section_by_section_get_a_quarter)
{
    planted_packs_saying(3, 1000, "q:1,h:1,f:1", 166, 0,
                         "part of 1000 nodes packed (run 21: strips by bands, filled section by section");
}

Test(search, the_strips_filled_section_by_section_get_a_quarter_on_2000)
{
    planted_packs_saying(2, 2000, "q:1,h:1,f:1", 333, 0,
                         "part of 762 nodes packed (run 21: strips by bands, filled section by section");
}

/* A piece the strips do not cut goes to the skyline on its own sections,
 * only those where a maximal set of its nodes meet: the pieces of a side
 * of a cut span every section the other side's nodes start or end in. The
 * part of this planted 1-D function with 5 % holes (`gen --planted
 * --heights full --holes 5 --tensors 600 --seed 11`) packs in its first
 * run so; searched on all those sections, its pieces ran out of their
 * share, and 23 tensors spilled. */
Test(search, a_strips_leaf_searches_its_own_sections)
{
    char lines[4096];
    planted_of_packs(11, 600, "full", 0, 5, lines);
    cr_assert(strstr(lines, "part of 600 nodes packed (run 1: skyline by bands") != NULL, "%s", lines);
}

/* The strips' sweep reads which loads the items left in a group can still
 * make (their subset sums), not only their total: on a dense planted 2-D
 * function (1,000 tensors over 166 steps) the sets of the right load it
 * then reaches within its first bounds include a cut of the part of 673
 * nodes, which the strips by bands pack (those filled section by section);
 * by totals alone the sweep spent its steps on sets whose groups could not
 * fill, and 218 tensors spilled. */
Test(search, the_strips_read_the_subset_sums_left_in_a_group)
{
    char lines[4096];
    planted_of_packs(12, 1000, "q:1,h:1,f:1", 166, 0, lines);
    cr_assert(strstr(lines, "part of 673 nodes packed (run 21: strips by bands") != NULL, "%s", lines);
}

/* That planted function packs its one part in the first run. */
static void packs_at_once(const sba_planted_options *p)
{
    char lines[4096], packed[64];
    planted_packs(p, 0, lines);
    snprintf(packed, sizeof packed, "part of %u nodes packed (run 1: skyline by bands", p->tensors);
    cr_assert(strstr(lines, packed) != NULL, "%s", lines);
}

/* The planted function at MiniMalloc's sizes: `tensors` over a third as
 * many steps, 5 % left out, 1 MiB, pieces of at least 16 KiB,
 * `--elongation 4`. */
static sba_planted_options minimalloc_sized(uint64_t seed, uint32_t tensors)
{
    sba_planted_options p = planted_opts(seed, tensors, "full", tensors / 3, 5);
    p.capacity = 1048576;
    p.min_size = 16384;
    p.elongation = 4;
    return p;
}

/* That function of `seed` packs its one part in the first run. */
static void minimalloc_sized_packs_at_once(uint64_t seed, uint32_t tensors)
{
    sba_planted_options p = minimalloc_sized(seed, tensors);
    packs_at_once(&p);
}

/* Planted 1-D walls with 2 % of the tensors left out (`--walls --holes 2`,
 * span a quarter of the tensor count) of `seed` pack in the first run. */
static void walls_with_holes_pack_at_once(uint64_t seed, uint32_t tensors)
{
    sba_planted_options p = planted_opts(seed, tensors, "full", tensors / 4, 2);
    p.walls = true;
    packs_at_once(&p);
}

/* A 1-D part with a little slack is padded into a tiling; the first
 * reading of its free room takes a drop that no open holes sum to for two
 * holes that started together. On a planted function at MiniMalloc's sizes
 * (300 tensors, 5 % left out, seed 2) that reading packs the part in the
 * first run; the other reading (one hole ended, another started) alone
 * spends the padding budget, and 5 tensors spill. */
Test(search, the_padding_reads_holes_that_started_together) { minimalloc_sized_packs_at_once(2, 300); }

/* After the forward readings and two draws, the room is read backward in
 * time: holes that ended together are then holes that started together,
 * which the split readings take apart. On a planted function at
 * MiniMalloc's sizes (300 tensors, 5 % left out, seed 9) every forward
 * reading fails, and 8 tensors spilled; read backward it packs in the
 * first run. */
Test(search, the_padding_reads_the_room_backward) { minimalloc_sized_packs_at_once(9, 300); }

/* The padding reads the room of every section time is cut into at the
 * nodes' end points, not only of those the searches keep (where some node
 * starts and some ends): a hole that ends and one that starts a few points
 * apart fall on one boundary of the kept sections, where only their
 * difference shows. On a planted long-lived function with 5 % holes (600
 * tensors, seed 32, `--elongation 8`) the first reading then packs the
 * part in the first run; read on the kept sections every reading failed
 * and 6 tensors spilled. */
Test(search, the_padding_reads_the_room_of_every_section)
{
    char lines[4096];
    planted_long_with_holes_packs(32, 600, 5, 8, 0, lines);
    cr_assert(strstr(lines, "part of 600 nodes packed (run 1: skyline by bands") != NULL, "%s", lines);
}

/* A padded 1-D part is first searched by refill, on half of the try's
 * share. On planted walls with 2 % of the tensors left out (600 tensors,
 * seed 31, span 150) the first reading is right, and refill packs it in
 * the first run after 11.4 million units; a quarter of that try's share
 * was 6.1 million, and 37 tensors spilled. */
Test(search, refill_has_half_of_each_padding_try) { walls_with_holes_pack_at_once(31, 600); }

/* The padding has a quarter of the strips' budget. On planted walls with
 * 2 % left out (800 tensors, seed 43, span 200) a reading packs the part
 * in the first run; on an eighth the padding ran out, and 41 tensors
 * spilled. */
Test(search, the_padding_has_a_quarter_of_the_strips_budget) { walls_with_holes_pack_at_once(43, 800); }

/* After the first three readings, refill alone takes each of them with
 * the padded part's relays merged. On planted walls with 2 % left out (500
 * tensors, seed 4, span 125) that packs the part in the first run; refill
 * and the strips on the padded part as it is ran out on every reading, and
 * 37 tensors spilled. */
Test(search, the_padding_tries_its_relays_merged) { walls_with_holes_pack_at_once(4, 500); }

/* A reading a padding try of the same kind took on at least as large a
 * share is not taken again. On planted walls with 2 % left out (1,200
 * tensors, seed 41, span 300) the first two readings are one: the second,
 * not taken, leaves its share to the third, which packs the part in the
 * first run; taken again, 74 tensors spilled. */
Test(search, the_padding_takes_no_reading_twice) { walls_with_holes_pack_at_once(41, 1200); }

/* Memory reused over time in 1-D (`gen --planted --heights full --walls
 * --span 250 --tensors 1000 --seed 13`): no cut splits it, and refill
 * leaves open which of several starters of a size that end apart takes
 * which slot (refill.c, Ties), so the quick run's refill packs it. Naming
 * the starter of every relay, only the relays-merged run did (run 19),
 * whose refill restarts keep the ties of the run that got furthest. */
Test(search, refill_leaves_ties_of_equal_sizes_open)
{
    sba_planted_options p = planted_opts(13, 1000, "full", 250, 0);
    p.walls = true;
    packs_at_once(&p);
}

/* Memory reused over time with 2 % of the tensors left out (`gen --planted
 * --heights full --walls --holes 2 --tensors 1000 --seed 1`, the
 * benchmark's): its sizes are few (the least, 512 B, most often), so at
 * most boundaries several relays share a size. With the ties left open
 * (refill.c) a padding reading packs the part in the first run; naming
 * each relay's starter, 71 tensors spilled. */
Test(search, the_padding_refills_with_ties_left_open)
{
    sba_planted_options p = planted_opts(1, 1000, "full", 0, 2);
    p.walls = true;
    packs_at_once(&p);
}

/* No padding node is smaller than the part's smallest node, as no hole
 * is: a split that would leave a smaller part is not read, and a growth
 * smaller than any node is an open hole ending where a larger one starts
 * (apart in address). On a planted function at MiniMalloc's sizes (450
 * tensors, seed 8) it then packs in the first run; before, every reading
 * failed and 11 tensors spilled. */
Test(search, the_padding_makes_no_node_smaller_than_the_smallest) { minimalloc_sized_packs_at_once(8, 450); }

/* Where no fixed reading of the room is right, readings drawn at random
 * are searched one after another (strips.c, Drawn): the planted function
 * at MiniMalloc's sizes of 320 tensors, seed 9 (17 tiles left out), packs
 * on that run, where every fixed reading failed and 9 tensors spilled. */
Test(search, the_padding_is_read_at_random_where_no_reading_packs)
{
    sba_planted_options p = minimalloc_sized(9, 320);
    char lines[4096];
    planted_packs(&p, 0, lines);
    cr_assert(strstr(lines, "part of 320 nodes packed (run 22: strips on paddings drawn at random") != NULL, "%s",
              lines);
}

/* The rules' reading has half of what is left, and each later reading at
 * most a sixteenth of the padding's budget: a wrong padding most often
 * spends its whole share, so the later readings ran only where the third
 * failed at once. On a planted function with 5 % holes (300 tensors,
 * seed 24) the second reading backward packs the part in the first run;
 * before, the third reading spent what was left, and 2 tensors spilled. */
Test(search, the_later_paddings_each_get_a_share)
{
    sba_planted_options p = planted_opts(24, 300, "full", 0, 5);
    char lines[4096];
    planted_packs(&p, 0, lines);
    cr_assert(strstr(lines, "part of 300 nodes packed (run 1: skyline by bands") != NULL, "%s", lines);
}

/* The second reading splits the open hole that began last rather than the
 * largest. On a planted 1-D function with 5 % holes (1,000 tensors, seed
 * 1) it packs both parts in their first run; the largest split, then the
 * rules' reading, spilled 53 tensors. */
Test(search, the_padding_splits_the_hole_begun_last)
{
    sba_planted_options p = planted_opts(1, 1000, "full", 0, 5);
    char lines[4096];
    planted_packs(&p, 0, lines);
    cr_assert(strstr(lines, "part of 743 nodes packed (run 1: skyline by bands") != NULL, "%s", lines);
}

/* The planted function of p, on `budget` units, allocates (spilling or
 * not) and verifies; `log` gets the allocator's lines. */
static void planted_allocates(const sba_planted_options *p, uint64_t budget, sba_log_fn log, void *ud)
{
    sba_error err;
    bir_module *m = sba_gen_planted(p, false, NULL, &err);
    cr_assert_not_null(m, "gen --planted: %s", err.message);
    sba_alloc_options o = {.search_budget = budget, .log = log, .log_ud = ud};
    sba_alloc_report r;
    cr_assert_eq(sba_allocate_module(m, &o, &r, &err), SBA_OK, "allocate: %s", err.message);
    sba_alloc_report_free(&r);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    bir_module_free(m);
}

/* Keeps the insertion's line (the first: the iterations after spill code
 * may insert again). */
static void insertion_line(void *ud, const char *line)
{
    char *keep = ud;
    if (!keep[0] && strncmp(line, "search: insertion", 17) == 0) snprintf(keep, 256, "%s", line);
}

/* Where the search of a 1-D part runs out, the insertion first tries box
 * windows for each unplaced node: the few placed nodes live beside it
 * around one address, everything else held. On a planted 1-D function with
 * holes (1,000 tensors, seed 11) on 1e9 units it puts 9 of the 42 in; the
 * time windows alone, which hold every node live around one, put 3 in. The
 * result still verifies. */
Test(search, the_insertion_makes_room_in_a_box_around_an_address)
{
    sba_planted_options p = planted_opts(11, 1000, "full", 0, 5);
    char line[256] = "";
    planted_allocates(&p, 1000000000, insertion_line, line);
    unsigned put = 0, of = 0;
    cr_assert_eq(sscanf(line, "search: insertion put %u of %u", &put, &of), 2, "no insertion: '%s'", line);
    cr_assert_eq(of, 42u, "%s", line);
    cr_assert_geq(put, 8u, "%s", line);
}

/* The sections a search keeps, on random live ranges: each range keeps at
 * least one, two ranges meet iff their kept ranges do, and no more are
 * kept than there were. A staircase (every range ends at the last
 * section, each starts one later: the reloads of one instruction) is one
 * section. */
Test(search, kept_sections_keep_every_meeting)
{
    enum { N = 40, K = 60 };
    uint32_t s0[N], s1[N], rank[K + 1];
    uint8_t events[K];
    sba_rng r = {7};
    for (int round = 0; round < 200; round++) {
        /* ranges of time points in [0, K), then cut into sections at
         * their end points, as a search does */
        uint32_t n = 2 + (uint32_t)(sba_rng_next(&r) % (N - 1)), k;
        bool cut[K + 1] = {false};
        for (uint32_t x = 0; x < n; x++) {
            uint32_t a = (uint32_t)(sba_rng_next(&r) % K), b = (uint32_t)(sba_rng_next(&r) % K);
            s0[x] = a < b ? a : b, s1[x] = a < b ? b : a;
            cut[s0[x]] = cut[s1[x] + 1] = true;
        }
        uint32_t cuts[K + 1]; /* cut points at or before t */
        for (uint32_t t = 0; t <= K; t++) cuts[t] = (t ? cuts[t - 1] : 0) + cut[t];
        k = cuts[K] - 1;
        for (uint32_t x = 0; x < n; x++) s0[x] = cuts[s0[x]] - 1, s1[x] = cuts[s1[x] + 1] - 2;
        uint32_t kept = sb_kept_sections(k, s0, s1, n, events, rank);
        cr_assert_leq(kept, k);
        for (uint32_t x = 0; x < n; x++) {
            /* kept: [rank[s0], rank[s1 + 1]) */
            cr_assert_lt(rank[s0[x]], rank[s1[x] + 1], "range %u [%u,%u] keeps nothing", x, s0[x], s1[x]);
            for (uint32_t y = 0; y < n; y++) {
                bool meet = s0[x] <= s1[y] && s0[y] <= s1[x];
                bool kept_meet = rank[s0[x]] < rank[s1[y] + 1] && rank[s0[y]] < rank[s1[x] + 1];
                cr_assert_eq(meet, kept_meet, "ranges [%u,%u] and [%u,%u]", s0[x], s1[x], s0[y], s1[y]);
            }
        }
    }
    for (uint32_t x = 0; x < N; x++) s0[x] = x, s1[x] = N - 1;
    cr_assert_eq(sb_kept_sections(N, s0, s1, N, events, rank), 1u);
}

/* ---- the pruning keeps every packing it should ---------------------------
 * In a packing where no tensor could sit lower in any of its bands, every
 * tensor rests on another (or on 0): both complete searches build such a
 * packing (in order of address, or at the lowest floor first), so none of
 * their rules (the lowest top an unplaced node could reach, the room each
 * section has left above its floors and landings, per band and in all,
 * the twins, how far a place left empty rises) may cut it. Followed
 * candidate by candidate, a planted packing pushed down so must be reached
 * in every part by both, across families, sizes and seeds; so must it by
 * the skyline (its cells, edges and column sums) where it leaves no byte
 * free. A rule that cut it would leave a part short (taking the lowest
 * top an alignment unit lower does, so does raising a place left empty
 * twice as far, and so does a column sum that refuses some exact fills).
 * The placement reached is committed and proved by the verifier. */

/* Moves each node of the packing (addr, base by node) to the lowest spot
 * any of its bases allows with every other node where it is, until none
 * moves. A planted packing may leave a quarter empty where a tensor of
 * another quarter could go. */
static void push_down(const sb_ctx *c, int64_t *addr, int32_t *base)
{
    const int64_t align = c->t->sbuf_align, cap = c->t->sbuf_bytes / align * align;
    for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t i = 0; i < c->n; i++) {
            const sb_node *nd = &c->info[i];
            if (nd->rep != i || nd->precoloured) continue;
            for (uint32_t k = 0; k < sb_height_bands(nd->height); k++) {
                int32_t b = (int32_t)sb_height_band_start(nd->height, k);
                if (!(nd->base_mask & (1u << (b / 32))) || b + nd->partitions > c->t->partitions) continue;
                uint32_t q = sb_quarter_mask(b, nd->partitions);
                /* the spots at 0 or on top of a neighbour in those quarters */
                for (uint32_t y = 0; y <= nd->degree; y++) {
                    int64_t at = 0;
                    if (y < nd->degree) {
                        uint32_t j = nd->adj[y];
                        if (!(sb_quarter_mask(base[j], c->info[j].partitions) & q)) continue;
                        at = (addr[j] + c->info[j].bytes + align - 1) / align * align;
                    }
                    if (at >= addr[i] || at + nd->bytes > cap) continue;
                    bool clear = true;
                    for (uint32_t x = 0; x < nd->degree && clear; x++) {
                        uint32_t j = nd->adj[x];
                        clear = !(sb_quarter_mask(base[j], c->info[j].partitions) & q) ||
                                addr[j] >= at + nd->bytes || at >= addr[j] + c->info[j].bytes;
                    }
                    if (clear) addr[i] = at, base[i] = b, moved = true;
                }
            }
        }
    }
}

/* Whether at every program point of the function the live tensors fill
 * every quarter their height classes use (bytes × quarters = the SBUF). */
static bool leaves_nothing_free(const sb_ctx *c)
{
    uint32_t end = 0;
    bool two_d = false;
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->info[i].end > end) end = c->info[i].end;
        two_d |= c->info[i].height != 8; /* all full: the search's one band, bytes alone */
    }
    const int64_t full = c->t->sbuf_bytes / c->t->sbuf_align * c->t->sbuf_align * (two_d ? SBA_BANDS : 1);
    int64_t *load = calloc((size_t)end + 2, sizeof *load);
    cr_assert_not_null(load);
    for (uint32_t i = 0; i < c->n; i++) {
        const sb_node *nd = &c->info[i];
        int64_t quarters = two_d ? (nd->partitions + 31) / 32 : 1;
        for (uint32_t p = nd->start; p <= nd->end; p++) load[p] += nd->bytes * quarters;
    }
    bool all = true;
    for (uint32_t p = 0; p <= end && all; p++) all = load[p] == 0 || load[p] == full;
    free(load);
    return all;
}

static void planted_packing_is_followed(const char *heights, uint32_t tensors, uint32_t span, uint32_t holes,
                                        bool walls, uint64_t seed)
{
    sba_planted_options p = planted_opts(seed, tensors, heights, span, holes);
    p.walls = walls;
    sba_error err;
    bir_module *planted = sba_gen_planted(&p, true, NULL, &err);
    cr_assert_not_null(planted, "gen --planted: %s", err.message);
    bir_module *m = sba_gen_planted(&p, false, NULL, &err);
    cr_assert_not_null(m, "gen --planted: %s", err.message);
    /* the planted placement by location (both modules number them alike) */
    const bir_function *pf = planted->fns[0];
    int64_t *where = calloc(pf->nloc_index + 1, sizeof *where);
    int32_t *band = calloc(pf->nloc_index + 1, sizeof *band);
    cr_assert(where && band);
    for (uint32_t s = 0; s < pf->nsets; s++)
        for (uint32_t l = 0; l < pf->sets[s]->nlocs; l++) {
            const bir_location *loc = pf->sets[s]->locs[l];
            where[loc->index] = loc->addr, band[loc->index] = loc->base;
        }

    sba_alloc_options o = {0};
    sba_function_report rep = {0};
    sb_ctx c;
    sb_ctx_init(&c, m->fns[0], &m->target, &o, &rep, &err);
    sba_status st = bir_validate_module(m, &err);
    if (st == SBA_OK) st = sb_setup(&c);
    if (st == SBA_OK) st = sb_front_half(&c, SB_TO_BUILD);
    cr_assert_eq(st, SBA_OK, "front half: %s", err.message);
    int64_t *addr = calloc(c.n + 1, sizeof *addr);
    int32_t *base = calloc(c.n + 1, sizeof *base);
    cr_assert(addr && base);
    for (uint32_t i = 0; i < c.n; i++) addr[i] = where[c.info[i].loc->index], base[i] = band[c.info[i].loc->index];
    push_down(&c, addr, base);
    sb_guide g = {addr, base};
    static const char *const searches[] = {"in address order", "by lowest floor", "skyline"};
    /* the skyline gives up whole runs: it follows packings that leave no byte free */
    for (int x = leaves_nothing_free(&c) ? SB_FOLLOW_SKYLINE : SB_FOLLOW_FLOOR; x >= SB_FOLLOW_ADDRESS; x--) {
        uint32_t followed = 0, parts = 0;
        cr_assert_eq(sb_search_follow(&c, &g, (sb_follow)x, &followed, &parts), SBA_OK, "%s", err.message);
        cr_assert_eq(followed, parts,
                     "%s, %u tensors, span %u, %u %% holes%s, seed %llu: the search %s reached the end of %u of %u "
                     "parts",
                     heights, tensors, span, holes, walls ? ", walls" : "", (unsigned long long)seed, searches[x],
                     followed, parts);
    }
    for (uint32_t i = 0; i < c.n; i++) {
        const sb_node *nd = &c.info[i];
        cr_assert(nd->placed && nd->addr == addr[i] && nd->base == base[i], "%s is not where it was followed to",
                  nd->loc->name);
        bir_location *loc = nd->loc;
        loc->addr = nd->addr, loc->base = nd->base, loc->live_n = nd->live_n;
        loc->dims[0] = nd->partitions, loc->dims[1] = nd->live_n * nd->bytes_per_block, loc->has_dims = true;
        bir_location_set_allocated(loc, true);
    }
    sb_ctx_free(&c);
    cr_assert_eq(sba_verify_module(m, NULL, &err), SBA_OK, "verify: %s", err.message);
    free(addr), free(base), free(where), free(band);
    bir_module_free(m);
    bir_module_free(planted);
}

Test(search, pruning_keeps_every_planted_packing)
{
    static const struct {
        const char *heights;
        uint32_t span_div; /* span = tensors / span_div; 0: the default */
        uint32_t holes;
        bool walls;
    } families[] = {
        {"full", 0, 0, false},        {"q:1,h:1,f:1", 0, 0, false}, {"q:3,h:1,f:1", 4, 0, false},
        {"q:1,h:1,f:1", 6, 0, false}, {"full", 0, 5, false},        {"q:1,h:1,f:1", 0, 5, false},
        {"full", 4, 0, true},         {"q:1,h:1,f:1", 4, 0, true},
    };
    for (uint32_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (uint32_t tensors = 150; tensors <= 600; tensors *= 2)
            for (uint64_t seed = 1; seed <= 5; seed++)
                planted_packing_is_followed(families[f].heights, tensors,
                                            families[f].span_div ? tensors / families[f].span_div : 0,
                                            families[f].holes, families[f].walls, seed);
}

/* Keeps the lines of the search of the nodes spill code made. */
static void rescue_lines(void *ud, const char *line)
{
    char *keep = ud;
    size_t len = strlen(keep);
    if (strncmp(line, "search: the nodes spill code made", 33) == 0 && len + strlen(line) + 2 < 4096)
        snprintf(keep + len, 4096 - len, "%s\n", line);
}

/* The def copies of the tensors one instruction defines, all spilled, fill
 * every quarter to the byte at its point: searched alone, the nodes spill
 * code made are a part with no slack, which the strips take apart (band
 * cuts, subset sums). On the planted quarter-heavy function of 1,000
 * tensors, seed 2, on 5e9 units, 56 such copies ran the rest of the plan
 * out and the function stopped with "no place found" although it fits;
 * now every part of them packs, and the function allocates (spilling) and
 * verifies. */
Test(search, the_nodes_spill_code_made_without_slack_go_to_the_strips)
{
    sba_planted_options p = planted_opts(2, 1000, "q:3,h:1,f:1", 250, 0);
    char lines[4096] = "";
    planted_allocates(&p, 5000000000ull, rescue_lines, lines);
    cr_assert(strstr(lines, "search: the nodes spill code made") != NULL, "the rescue did not run:\n%s", lines);
    unsigned packed, of, proved;
    for (const char *at = lines; (at = strstr(at, "alone: ")) != NULL; at++) {
        cr_assert_eq(sscanf(at, "alone: %u of %u parts packed, %u", &packed, &of, &proved), 3, "%s", at);
        cr_assert_eq(packed, of, "%s", lines);
    }
}

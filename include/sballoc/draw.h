/* sballoc — pictures of an allocated module: one SVG for the whole module.
 *
 * Per function, four panels, one per partition quarter (0–31, 32–63, 64–95,
 * 96–127): program points along x, byte address along y with 0 at the bottom.
 * Every accessed SB placement is a rectangle over its live range in each
 * quarter its partitions touch, coloured by its set's name, with a tooltip.
 * Under the panels: loop extents and spill markers on the time axis, then the
 * bytes live per band at every point against the capacity and the lower
 * bound. Large functions are aggregated into per-pixel occupancy so the file
 * stays bounded. src/report/svg.c says exactly what is drawn. */
#ifndef SBALLOC_DRAW_H
#define SBALLOC_DRAW_H

#include <stdio.h>

#include "sballoc/export.h"
#include "sballoc/alloc.h"
#include "sballoc/bir.h"

#ifdef __cplusplus
extern "C" {
#endif
SBA_API_BEGIN

/* Writes the picture of every function of m to out, which the caller opens
 * and closes. m must have its def-use lists built (as after bir_load_buffer
 * or sba_allocate_module); it is not modified. r may be NULL; when given,
 * its figures (lower bound, spill counts, high-water marks) are shown for the
 * function of the same name. The output depends only on m and r: the same
 * input gives the same bytes. Returns SBA_ERR_IO when writing fails,
 * SBA_ERR_NOMEM, or an error of bir_linearize; err may be NULL. Nothing is
 * written anywhere but out. */
sba_status sba_draw_svg(const bir_module *m, const sba_alloc_report *r, FILE *out, sba_error *err);

SBA_API_END
#ifdef __cplusplus
}
#endif
#endif

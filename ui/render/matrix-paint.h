/* matrix-paint.h — painting a matrix of values as coloured cells; the part of a heatmap that
 * heatmaps, head-grid thumbnails and comparison panels share.
 *
 * The way is chosen from the cell size and count and the kind of target only (never from the
 * scale), so one figure always draws the same way on screen and in every file of a kind:
 * - cells as filled rectangles (vector output stays vector) when the cells are at least
 *   AR_MATRIX_MIN_RECT_CELL units and there are at most AR_MATRIX_MAX_RECTS of them, separated by
 *   a gap of GAP units in GAP_COLOR on their right and bottom edges;
 * - otherwise, on image targets (PNG export, the widgets' pixels), one image at the target's own
 *   resolution in which each pixel takes the colour of the cell its centre falls in (the rule
 *   ar_heatmap_hit uses: column floor((x - x0) / cell_w)), so hit-testing agrees with every
 *   pixel; in files (SVG, PDF) one image of COLS × ROWS pixels scaled up with nearest-neighbour
 *   filtering; in recordings (what the GTK widgets draw into, replayed on screen) the same with
 *   at most two pixels per unit, each the cell under its centre — a 1024 × 1024 matrix in a
 *   100-unit thumbnail costs 200 × 200 colours, not a million.
 * Either way a cell's interior has exactly the colour colormap.h gives its value. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "colormap.h"
#include "render-style.h"

G_BEGIN_DECLS

#define AR_MATRIX_MIN_RECT_CELL 4.0
#define AR_MATRIX_MAX_RECTS 16384

typedef struct
{
  ArColormap colormap;
  double vmin, vmax;
  gboolean mask_upper; /* cells with column > row are painted MASKED (a causal model's future) */
  ArRgb masked;
  double gap; /* units between rectangle cells (0 = none) */
  ArRgb gap_color;
} ArMatrixPaint;

/* Paints VALUES [ROWS][COLS] with the top left corner at (X, Y), cells CELL_W × CELL_H. */
void ar_matrix_paint (cairo_t *cr, const ArMatrixPaint *paint, const float *values, int rows,
                      int cols, double x, double y, double cell_w, double cell_h);

/* TRUE when ar_matrix_paint draws rectangles for this size. */
gboolean ar_matrix_paint_uses_rects (int rows, int cols, double cell_w, double cell_h);

G_END_DECLS

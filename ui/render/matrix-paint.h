/* matrix-paint.h — painting a matrix of values as coloured cells; the part of a heatmap that
 * heatmaps, head-grid thumbnails and comparison panels share.
 *
 * The way is chosen from the cell size and count and the kind of target only (never from the
 * scale), so one figure always draws the same way on screen and in every file of a kind:
 * - cells as filled rectangles (vector output stays vector) when the cells are at least
 *   AR_MATRIX_MIN_RECT_CELL units and there are at most AR_MATRIX_MAX_RECTS of them (in
 *   recordings AR_MATRIX_MAX_SCREEN_RECTS), separated by a gap of GAP units in GAP_COLOR on their
 *   right and bottom edges;
 * - otherwise, on image targets (PNG export, the widgets' pixels), one image at the target's own
 *   resolution in which each pixel takes the colour of the cell its centre falls in (the rule
 *   ar_heatmap_hit uses: column floor((x - x0) / cell_w)), so hit-testing agrees with every
 *   pixel; in files (SVG, PDF) one image of COLS × ROWS pixels scaled up with nearest-neighbour
 *   filtering; in recordings (what the GTK widgets draw into, replayed on screen) the same with
 *   at most two pixels per unit, each the cell under its centre — a 1024 × 1024 matrix in a
 *   100-unit thumbnail costs 200 × 200 colours, not a million.
 * Either way a cell's interior has exactly the colour colormap.h gives its value (with LOG, the
 * colour of its log10 on [log10 vmin, log10 vmax]).
 *
 * The cells painted may be a window of a larger matrix: ROWS × COLS of them from (ROW0, COL0) of
 * a matrix STRIDE values wide (0: COLS), which is how a zoomed heatmap paints only what it shows.
 * Cells without a value — above the diagonal with MASK_UPPER, left of a sliding WINDOW, non-zero
 * in CELL_MASK, NaN — are painted MASKED. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "colormap.h"
#include "render-style.h"

G_BEGIN_DECLS

#define AR_MATRIX_MIN_RECT_CELL 4.0
#define AR_MATRIX_MAX_RECTS 16384
/* In recordings (the widgets' drawings, replayed every frame) rectangles only up to this many
 * cells (64 × 64); larger matrices are one image there. */
#define AR_MATRIX_MAX_SCREEN_RECTS 4096

typedef struct
{
  ArColormap colormap;
  double vmin, vmax;
  gboolean log;        /* colours by log10 (vmin > 0) */
  gboolean mask_upper; /* cells with column > row are painted MASKED (a causal model's future) */
  int window; /* > 0: cells with column <= row - window are painted MASKED (a sliding window) */
  const guint8 *cell_mask; /* [..][stride] non-zero: painted MASKED; or NULL */
  ArRgb masked;
  double gap; /* units between rectangle cells (0 = none) */
  ArRgb gap_color;
  int row0, col0; /* the first cell painted, in the whole matrix */
  int stride;     /* values per row of the whole matrix (0: COLS) */
} ArMatrixPaint;

/* Paints ROWS × COLS cells of VALUES (the whole matrix, see above) with the top left corner at
 * (X, Y), cells CELL_W × CELL_H. */
void ar_matrix_paint (cairo_t *cr, const ArMatrixPaint *paint, const float *values, int rows,
                      int cols, double x, double y, double cell_w, double cell_h);

/* TRUE when ar_matrix_paint draws rectangles for this size. */
gboolean ar_matrix_paint_uses_rects (int rows, int cols, double cell_w, double cell_h);

G_END_DECLS

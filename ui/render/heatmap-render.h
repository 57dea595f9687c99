/* heatmap-render.h — one matrix as an annotated heatmap: an attention head (queries as rows, keys
 * as columns, as in the seed figure), a mean or rollout, a similarity matrix, a difference.
 *
 * The figure is a plain struct that borrows its arrays; the same ar_heatmap_render() draws it in
 * the GTK widget and into PNG/SVG/PDF files. Layout, top to bottom: the title block (title,
 * subtitle), the plot with row tick labels on the left and the row axis name read bottom to top,
 * column tick labels below (turned to read bottom to top when they do not fit under their
 * column), the column axis name, and the colour bar on the right. Cells are square; the plot is
 * centred in whatever room the decorations leave, so the figure scales to any size. Tick labels
 * are thinned to every k-th when the cells are shorter than the text; labels longer than
 * AR_HEATMAP_MAX_LABEL units are ellipsized.
 *
 * Values are annotated ("0.34", 2 decimals) when annotate is ALWAYS, or AUTO and the cells are at
 * least AR_HEATMAP_ANNOTATE_CELL units; white text on dark cells, dark text on light ones.
 * With mask_upper the cells above the diagonal (a causal model's future, exactly 0) are grey and
 * never annotated. A highlighted row/column (the selected token) is outlined in the accent colour
 * and its tick labels are bold.
 *
 * Sizes are in figure units (px at scale 1, pt in PDF/SVG). The natural size grows with the
 * number of tokens: cells of 480 / n units clamped to 2..64 (whole units from 8 up). */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "colormap.h"
#include "render-style.h"

G_BEGIN_DECLS

#define AR_HEATMAP_ANNOTATE_CELL 28.0
#define AR_HEATMAP_MAX_LABEL 140.0

typedef enum
{
  AR_ANNOTATE_AUTO,
  AR_ANNOTATE_ALWAYS,
  AR_ANNOTATE_NEVER,
} ArAnnotate;

typedef struct
{
  const char *title;    /* bold first line, or NULL */
  const char *subtitle; /* second line (model, text), or NULL */

  int n_rows, n_cols;
  const float *values;           /* [n_rows][n_cols] */
  const char *const *row_labels; /* [n_rows] or NULL (then 0, 1, 2, ...) */
  const char *const *col_labels; /* [n_cols] or NULL */
  const char *row_axis;          /* "Queries", or NULL for none */
  const char *col_axis;          /* "Keys", or NULL */

  ArColormap colormap;
  double vmin, vmax; /* the colour range */
  ArAnnotate annotate;
  int decimals; /* of annotations, 0..6 */
  gboolean mask_upper;
  int highlight_row; /* -1 for none */
  int highlight_col; /* -1 for none */

  gboolean colorbar;
  const char *colorbar_label; /* "Attention weight", or NULL */

  const ArRenderStyle *style; /* NULL = light print style */

  /* The widest row and column tick label, as ar_heatmap_figure_measure_labels () found them;
   * 0 = measure them on every layout. Measuring 512 labels with Pango takes milliseconds, so a
   * view that draws and hit-tests the same labels again and again measures them once. */
  double row_label_width, col_label_width;
} ArHeatmapFigure;

/* Defaults: YlGnBu on [0, 1], AUTO annotation with 2 decimals, "Queries"/"Keys", colour bar on,
 * no highlight, no mask, no titles, no data. */
void ar_heatmap_figure_init (ArHeatmapFigure *fig);

/* Measures FIG's tick labels (with FIG's style) into row_label_width and col_label_width. */
void ar_heatmap_figure_measure_labels (ArHeatmapFigure *fig);

/* The natural size of FIG (whole units). */
void ar_heatmap_get_size (const ArHeatmapFigure *fig, double *width, double *height);

/* TRUE when A and B are laid out alike at every size — the same cells, label widths, titles, axis
 * names and colour bar — so a widget showing A can show B without a new layout. Measures
 * nothing: A's and B's label widths must have been measured (ar_heatmap_figure_measure_labels)
 * or be measured alike. */
gboolean ar_heatmap_same_layout (const ArHeatmapFigure *a, const ArHeatmapFigure *b);

/* Draws FIG into the rectangle (0, 0, WIDTH, HEIGHT) of CR's user space. */
void ar_heatmap_render (cairo_t *cr, const ArHeatmapFigure *fig, double width, double height);

/* The cell under (X, Y) when FIG is drawn at WIDTH × HEIGHT: TRUE and *ROW, *COL, or FALSE
 * outside the cells. */
gboolean ar_heatmap_hit (const ArHeatmapFigure *fig, double width, double height, double x,
                         double y, int *row, int *col);

/* The rectangle of cell (ROW, COL) when drawn at WIDTH × HEIGHT (for tooltips and tests). */
void ar_heatmap_get_cell_rect (const ArHeatmapFigure *fig, double width, double height, int row,
                               int col, double *x, double *y, double *cell_w, double *cell_h);

/* Whether values are annotated when drawn at WIDTH × HEIGHT. */
gboolean ar_heatmap_is_annotated (const ArHeatmapFigure *fig, double width, double height);

G_END_DECLS

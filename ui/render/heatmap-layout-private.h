/* heatmap-layout-private.h — where everything of a heatmap goes (heatmap-render.h), shared by the
 * drawing (heatmap-render.c) and the tick labels (heatmap-axes.c).
 *
 * One layout function (ar_heatmap_layout) decides every position from the figure and the size;
 * render, hit and cell_rect all start from it, so what is drawn and what is hit can never
 * disagree. */
#pragma once

#include <pango/pangocairo.h>

#include "heatmap-render.h"

G_BEGIN_DECLS

#define AR_HEATMAP_TICK_GAP 6.0
#define AR_HEATMAP_AXIS_GAP 8.0
#define AR_HEATMAP_COLORBAR_GAP 16.0
#define AR_HEATMAP_BARS_W 96.0

typedef struct
{
  /* measured from the figure, independent of the size */
  double title_h;
  double row_label_w, col_label_w, label_h; /* at the full tick font */
  double row_axis_h, col_axis_h;
  double colorbar_w;
  double bars_w; /* the row bars' strip (AR_HEATMAP_BARS_W), 0 without row bars */
  /* the cells shown */
  int r0, c0, nr, nc;
  /* fitted to the size */
  double cell, gap, x0, y0;
  double label_scale; /* tick labels are drawn at AR_FONT_TICK × label_scale (ALL mode) */
  gboolean rotate_cols;
  int row_step, col_step; /* THINNED: every k-th label */
  int fixed_step;         /* the step the label widths were measured for (0: none) */
} ArHeatmapLayout;

gboolean ar_heatmap_has_data (const ArHeatmapFigure *fig);

/* Tick label I of an axis (LABELS may be NULL: the index). Newly allocated. */
char *ar_heatmap_label_at (const char *const *labels, int i);

/* Measures FIG (with PC) and fits it to WIDTH × HEIGHT. */
void ar_heatmap_layout (ArHeatmapLayout *lo, PangoContext *pc, const ArHeatmapFigure *fig,
                        double width, double height);

/* The same with a context of its own (hit-testing, sizes). */
void ar_heatmap_layout_only (ArHeatmapLayout *lo, const ArHeatmapFigure *fig, double width,
                             double height);

/* Measures FIG only (no size yet: the fitted fields are zero). */
void ar_heatmap_measure (ArHeatmapLayout *lo, PangoContext *pc, const ArHeatmapFigure *fig);

/* Narrows LO's (measured) tick label widths to those of the labels drawn with cells of CELL
 * units: thinned labels draw only every k-th (ar_heatmap_measure measures all of them). */
void ar_heatmap_measure_shown (ArHeatmapLayout *lo, PangoContext *pc, const ArHeatmapFigure *fig,
                               double cell);

double ar_heatmap_left_extent (const ArHeatmapLayout *lo);
double ar_heatmap_right_extent (const ArHeatmapLayout *lo);
double ar_heatmap_top_extent (const ArHeatmapLayout *lo);
double ar_heatmap_bottom_extent (const ArHeatmapLayout *lo, gboolean rotate);
gboolean ar_heatmap_needs_rotation (const ArHeatmapLayout *lo, double cell);

/* Draws FIG's row bars (heatmap-render.h) in a strip of LO's bars_w starting at X: a bar per row
 * shown from a zero line, its label above and its range below. */
void ar_heatmap_draw_row_bars (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                               const ArHeatmapFigure *fig, const ArHeatmapLayout *lo, double x);

/* Draws the tick labels (by FIG's label mode), word brackets and axis names. */
void ar_heatmap_draw_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                           const ArHeatmapFigure *fig, const ArHeatmapLayout *lo);

/* Whether thinned tick label I is drawn: every STEP-th, and the highlighted one in place of its
 * neighbours. */
gboolean ar_heatmap_label_shown (int i, int step, int highlight);

/* The cell size of FIG's natural size. */
double ar_heatmap_natural_cell (const ArHeatmapFigure *fig);

/* The word holding token I of FIG (word mode), or -1. */
int ar_heatmap_word_of (const ArHeatmapFigure *fig, int i);

G_END_DECLS

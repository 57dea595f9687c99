/* lines-render.h — a small line chart with one line per series over a few x positions: the
 * per-layer cosine similarity of the tokens two sentences share ("man" in "The man hit the car"
 * against "The car hit the man"; core/as-compare.h), x = hidden-state index 0..L.
 *
 * Lines with round markers in the categorical colours, nice y ticks with light grid lines, the
 * x positions labelled (x_labels or 0, 1, 2, ...), and a legend of the series names to the right
 * of the plot. NaN values leave a gap in their line. The y range is [ymin, ymax] when both are
 * finite, otherwise the data's range widened to nice ticks. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "render-style.h"

G_BEGIN_DECLS

typedef struct
{
  const char *title;
  const char *subtitle;

  int n_series, n_x;
  const double *values;            /* [n_series][n_x] */
  const char *const *series_names; /* [n_series] legend entries, or NULL */
  const char *const *x_labels;     /* [n_x] or NULL for the indices */
  const char *x_axis, *y_axis;
  double ymin, ymax;    /* NaN for automatic */
  int highlight_series; /* -1 for none */

  const ArRenderStyle *style;
} ArLineFigure;

/* Defaults: automatic y range, axes "Layer" / "Cosine similarity", no highlight, no data. */
void ar_line_figure_init (ArLineFigure *fig);

/* Natural size: a 420 × 220 plot plus axes and legend. */
void ar_line_get_size (const ArLineFigure *fig, double *width, double *height);

/* The height FIG needs WIDTH units wide (the plot keeps its natural proportions). */
double ar_line_get_height_for_width (const ArLineFigure *fig, double width);

/* The least height FIG needs WIDTH units wide: its texts and a plot of 90 units. */
double ar_line_get_min_height_for_width (const ArLineFigure *fig, double width);

void ar_line_render (cairo_t *cr, const ArLineFigure *fig, double width, double height);

/* The marker nearest to (X, Y) within 8 units: TRUE and *SERIES, *X_INDEX. */
gboolean ar_line_hit (const ArLineFigure *fig, double width, double height, double x, double y,
                      int *series, int *x_index);

/* Where the marker of (SERIES, X_INDEX) is drawn at WIDTH × HEIGHT. */
void ar_line_get_point_position (const ArLineFigure *fig, double width, double height, int series,
                                 int x_index, double *x, double *y);

G_END_DECLS

/* compare-render.h — two sentences side by side: the same head (or mean, or rollout) for text A
 * and text B, the difference B − A in the diverging map when both have the same number of
 * tokens, and optionally a line chart of the per-layer similarity of the tokens they share below.
 *
 * The panels are ordinary heatmap figures (heatmap-render.h) drawn next to each other, each in a
 * share of the width proportional to its natural width, under the figure's own title block; when
 * the difference cannot be drawn, NOTE says why in a line under the title. The chart spans the
 * whole width under the panels. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "heatmap-render.h"
#include "lines-render.h"
#include "render-style.h"

G_BEGIN_DECLS

typedef enum
{
  AS_COMPARE_PANEL_A,
  AS_COMPARE_PANEL_B,
  AS_COMPARE_PANEL_DIFF,
  AS_COMPARE_PANEL_CHART,
} AsComparePanel;

typedef struct
{
  const char *title;
  const char *subtitle;
  const char *note; /* e.g. why there is no difference panel, or NULL */

  const AsHeatmapFigure *a;    /* required */
  const AsHeatmapFigure *b;    /* required */
  const AsHeatmapFigure *diff; /* NULL when the token counts differ */
  const AsLineFigure *chart;   /* NULL for none */

  const AsRenderStyle *style;
} AsCompareFigure;

void as_compare_get_size (const AsCompareFigure *fig, double *width, double *height);

void as_compare_render (cairo_t *cr, const AsCompareFigure *fig, double width, double height);

/* What is under (X, Y): TRUE with the panel and, for heatmap panels, *ROW and *COL (for the chart,
 * *ROW = series and *COL = x index). */
gboolean as_compare_hit (const AsCompareFigure *fig, double width, double height, double x,
                         double y, AsComparePanel *panel, int *row, int *col);

/* The rectangle panel PANEL occupies at WIDTH × HEIGHT (all zero when it is absent). */
void as_compare_get_panel_rect (const AsCompareFigure *fig, double width, double height,
                                AsComparePanel panel, double *x, double *y, double *panel_w,
                                double *panel_h);

G_END_DECLS

/* compare-render.h — two sentences side by side: the same head (or mean, or rollout) for text A
 * and text B, the difference B − A in the diverging map when both have the same number of
 * tokens, and optionally a line chart of the per-layer similarity of the tokens they share below.
 *
 * The panels are ordinary heatmap figures (heatmap-render.h) drawn next to each other with cells
 * of one size (the largest the width and height allow), centred, under the figure's own title
 * block; when side by side their cells would be smaller than 8 units (a figure one journal column
 * wide) and stacked they would be larger, they are stacked instead, each as wide as the figure.
 * NOTE is a line under the title (which alignment is shown, or why there is no difference); it
 * and the titles wrap to the width. The chart sits under the panels at its natural width (at
 * least half the figure's) and proportions. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "heatmap-render.h"
#include "lines-render.h"
#include "render-style.h"

G_BEGIN_DECLS

typedef enum
{
  AR_COMPARE_PANEL_A,
  AR_COMPARE_PANEL_B,
  AR_COMPARE_PANEL_DIFF,
  AR_COMPARE_PANEL_CHART,
} ArComparePanel;

typedef struct
{
  const char *title;
  const char *subtitle;
  const char *note; /* e.g. why there is no difference panel, or NULL */

  const ArHeatmapFigure *a;    /* required */
  const ArHeatmapFigure *b;    /* required */
  const ArHeatmapFigure *diff; /* NULL when the token counts differ */
  const ArLineFigure *chart;   /* NULL for none */

  const ArRenderStyle *style;
} ArCompareFigure;

void ar_compare_get_size (const ArCompareFigure *fig, double *width, double *height);

/* The height FIG needs WIDTH units wide. */
double ar_compare_get_height_for_width (const ArCompareFigure *fig, double width);

void ar_compare_render (cairo_t *cr, const ArCompareFigure *fig, double width, double height);

/* What is under (X, Y): TRUE with the panel and, for heatmap panels, *ROW and *COL (for the chart,
 * *ROW = series and *COL = x index). */
gboolean ar_compare_hit (const ArCompareFigure *fig, double width, double height, double x,
                         double y, ArComparePanel *panel, int *row, int *col);

/* The rectangle panel PANEL occupies at WIDTH × HEIGHT (all zero when it is absent). */
void ar_compare_get_panel_rect (const ArCompareFigure *fig, double width, double height,
                                ArComparePanel panel, double *x, double *y, double *panel_w,
                                double *panel_h);

G_END_DECLS

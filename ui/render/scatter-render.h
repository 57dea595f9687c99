/* scatter-render.h — a 2-D projection of token vectors (PCA or t-SNE) as a labelled scatter plot.
 *
 * Points are dots coloured by group (the sentence they come from in compare mode; matplotlib's
 * tab10 colours), each labelled with its token when show_labels is on. The axes get nice ticks
 * and light grid lines over a range padded by 8 % of the data's extent; the two axes are scaled
 * independently (PCA and t-SNE coordinates have no common unit). A legend of the group names sits
 * at the top right of the plot when there is more than one group. The highlighted point is drawn
 * larger with an accent ring. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "render-style.h"

G_BEGIN_DECLS

typedef struct
{
  const char *title;
  const char *subtitle;

  int n_points;
  const float *xy;           /* [n_points][2] */
  const char *const *labels; /* [n_points] token labels, or NULL */
  const int *groups;         /* [n_points] group index 0..n_groups-1, or NULL (all 0) */
  int n_groups;
  const char *const *group_names; /* [n_groups] legend entries, or NULL */
  const char *x_axis, *y_axis;    /* "PC 1", "PC 2" */
  gboolean show_labels;
  int highlight_point; /* -1 for none */

  const ArRenderStyle *style;
} ArScatterFigure;

/* Defaults: labels shown, axes "Component 1"/"Component 2", one group, no highlight, no data. */
void ar_scatter_figure_init (ArScatterFigure *fig);

/* Natural size: a 480 × 400 plot plus decorations. */
void ar_scatter_get_size (const ArScatterFigure *fig, double *width, double *height);

void ar_scatter_render (cairo_t *cr, const ArScatterFigure *fig, double width, double height);

/* The point nearest to (X, Y) within AR_SCATTER_HIT_RADIUS units: TRUE and *INDEX. */
#define AR_SCATTER_HIT_RADIUS 8.0
gboolean ar_scatter_hit (const ArScatterFigure *fig, double width, double height, double x,
                         double y, int *index);

/* Where point INDEX is drawn at WIDTH × HEIGHT. */
void ar_scatter_get_point_position (const ArScatterFigure *fig, double width, double height,
                                    int index, double *x, double *y);

G_END_DECLS

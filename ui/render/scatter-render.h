/* scatter-render.h — a 2-D projection of token vectors (PCA, t-SNE or UMAP) as a labelled scatter
 * plot.
 *
 * Points are dots coloured by group (the sentence they come from; matplotlib's tab10 colours).
 * The axes get nice ticks and light grid lines over a range padded by 8 % of the data's extent;
 * the two axes are scaled independently (projected coordinates have no common unit). A legend of
 * the group names sits between the title and the plot when there is more than one group; it
 * wraps into at most AR_SCATTER_LEGEND_ROWS rows and shortens long names with '…'; entries that
 * do not fit are summed up in a last entry "+ N more", so the legend stays inside the figure for
 * any number of groups. The highlighted point is drawn larger with an accent ring; marked points
 * (every occurrence of a word) larger with a dark ring, and labelled first. With dim_unmarked
 * (a word is highlighted) the other points are drawn small in grey and their labels greyed.
 *
 * Two panels (xy2 given): the same points (same labels, groups, marks) in two projections side by
 * side — each with its own axes, ticks and panel title — under one title and one legend (the
 * static token embeddings beside a layer's contextual vectors). Point indices of the second panel
 * are n_points + i in hit-testing, positions and label boxes.
 *
 * Points that land on the same spot (within COINCIDENT units: the same token embedding in several
 * sentences, say) are drawn apart on a small circle around that spot, joined to it by thin
 * spokes, so each can be seen and hovered; the positions reported below are where they are drawn.
 *
 * Labels (show_labels): with AR_LABELS_ALL every point's token to its right; otherwise (the
 * default) labels are placed one by one — the highlighted point, the marked points, then in
 * order — to the right, left, above or below their point, wherever the label neither leaves the
 * plot nor overlaps a label already placed; a label with no such place is not drawn (the widget
 * shows it on hover). */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "heatmap-render.h"
#include "render-style.h"

G_BEGIN_DECLS

#define AR_SCATTER_COINCIDENT 1.5
#define AR_SCATTER_LEGEND_ROWS 3

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
  const gboolean *marked;         /* [n_points] or NULL */
  const char *x_axis, *y_axis;    /* "PC 1", "PC 2" */
  const char *const *tooltips;    /* [n_points] what a pointer over the point shows, or NULL */
  gboolean dim_unmarked;          /* draw the points that are not marked small and grey */

  /* A second panel of the same points, or NULL; then each panel has its title and axes. */
  const float *xy2; /* [n_points][2] */
  const char *panel_titles[2];
  const char *x_axis2, *y_axis2;
  gboolean show_labels;
  ArLabelMode label_mode; /* AR_LABELS_ALL: every label; else decluttered */
  int highlight_point;    /* -1 for none */

  const ArRenderStyle *style;
} ArScatterFigure;

/* Defaults: labels shown and decluttered, axes "Component 1"/"Component 2", one group, no
 * highlight, nothing marked, no data. */
void ar_scatter_figure_init (ArScatterFigure *fig);

/* 1, or 2 with a second panel. */
int ar_scatter_get_n_panels (const ArScatterFigure *fig);

/* Natural size: a 480 × 400 plot plus decorations (two panels: two 400 × 360 plots). */
void ar_scatter_get_size (const ArScatterFigure *fig, double *width, double *height);

/* The height FIG needs WIDTH units wide (the plot keeps its natural proportions). */
double ar_scatter_get_height_for_width (const ArScatterFigure *fig, double width);

void ar_scatter_render (cairo_t *cr, const ArScatterFigure *fig, double width, double height);

/* The point nearest to (X, Y) within AR_SCATTER_HIT_RADIUS units: TRUE and *INDEX (n_points + i
 * for point i of the second panel). */
#define AR_SCATTER_HIT_RADIUS 8.0
gboolean ar_scatter_hit (const ArScatterFigure *fig, double width, double height, double x,
                         double y, int *index);

/* Where point INDEX (of either panel, numbered as by ar_scatter_hit) is drawn at WIDTH × HEIGHT. */
void ar_scatter_get_point_position (const ArScatterFigure *fig, double width, double height,
                                    int index, double *x, double *y);

/* The labels drawn at WIDTH × HEIGHT: their boxes BOXES [n][4] (x, y, width, height; may be
 * NULL) and points INDICES [n] (may be NULL), both with room for n_panels × n_points entries.
 * Returns n. */
int ar_scatter_get_label_boxes (const ArScatterFigure *fig, double width, double height,
                                double *boxes, int *indices);

/* The legend drawn at WIDTH × HEIGHT: the box of every entry drawn BOXES [n][4] (room for
 * n_groups + 1 entries; may be NULL) and the group each stands for GROUPS [n] (-1 for the
 * "+ N more" entry; may be NULL); *PLOT (may be NULL) = the plot rectangle of the first panel,
 * x, y, width, height. Returns n (0 without a legend). */
int ar_scatter_get_legend_boxes (const ArScatterFigure *fig, double width, double height,
                                 double *boxes, int *groups, double *plot);

G_END_DECLS

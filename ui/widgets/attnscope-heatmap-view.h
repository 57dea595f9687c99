/* attnscope-heatmap-view.h — a matrix drawn as a heatmap (ui/render/heatmap-render.h): attention
 * of one head, a mean, a rollout, a similarity matrix or a difference.
 *
 * The widget owns a copy of the values and labels; its snapshot hands them to
 * ar_heatmap_render(), so the screen and an exported file are drawn by the same function.
 * Hovering a cell shows its exact value in a tooltip; clicking one emits "cell-activated". */
#pragma once

#include <gtk/gtk.h>

#include "heatmap-render.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_HEATMAP_VIEW (attnscope_heatmap_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeHeatmapView, attnscope_heatmap_view, ATTNSCOPE, HEATMAP_VIEW,
                      GtkWidget)

GtkWidget *attnscope_heatmap_view_new (void);

/* Copies VALUES [ROWS][COLS] and the labels (NULL: indices). VALUES NULL clears the view. */
void attnscope_heatmap_view_set_matrix (AttnscopeHeatmapView *self, const float *values, int rows,
                                        int cols, const char *const *row_labels,
                                        const char *const *col_labels);
int attnscope_heatmap_view_get_n_rows (AttnscopeHeatmapView *self);
int attnscope_heatmap_view_get_n_cols (AttnscopeHeatmapView *self);
/* The value of cell (ROW, COL); NaN outside the matrix. */
float attnscope_heatmap_view_get_value (AttnscopeHeatmapView *self, int row, int col);

void attnscope_heatmap_view_set_titles (AttnscopeHeatmapView *self, const char *title,
                                        const char *subtitle);
void attnscope_heatmap_view_set_axes (AttnscopeHeatmapView *self, const char *row_axis,
                                      const char *col_axis, const char *colorbar_label);

/* "ylgnbu", "viridis", "magma", "greys", "rdbu_r". */
void attnscope_heatmap_view_set_colormap (AttnscopeHeatmapView *self, const char *colormap);
const char *attnscope_heatmap_view_get_colormap (AttnscopeHeatmapView *self);
void attnscope_heatmap_view_set_range (AttnscopeHeatmapView *self, double vmin, double vmax);
void attnscope_heatmap_view_set_annotate (AttnscopeHeatmapView *self, gboolean annotate);
/* Decimals of the cell annotations and the tooltip's value (default 2). */
void attnscope_heatmap_view_set_decimals (AttnscopeHeatmapView *self, int decimals);
void attnscope_heatmap_view_set_mask_upper (AttnscopeHeatmapView *self, gboolean mask_upper);
/* Row and column outlined in the accent colour (-1: none). */
void attnscope_heatmap_view_set_highlight (AttnscopeHeatmapView *self, int row, int col);

/* The figure as drawn on screen but in the print style, borrowing the widget's arrays (valid
 * until the next change). For export. */
void attnscope_heatmap_view_get_figure (AttnscopeHeatmapView *self, ArHeatmapFigure *fig);

G_END_DECLS

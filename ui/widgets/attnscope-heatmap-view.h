/* attnscope-heatmap-view.h — a heatmap figure (ui/render/heatmap-render.h) on screen: attention of
 * one head, a mean, a rollout, a similarity matrix.
 *
 * The widget shows a built figure (ui/render/built-figure.h) made by a figure builder; its
 * snapshot hands it to ar_heatmap_render() in the screen's style, so the screen and an exported
 * file are drawn by the same function from the same description. Hovering a cell shows its exact
 * value in a tooltip; clicking one emits "cell-activated". */
#pragma once

#include <gtk/gtk.h>

#include "built-figure.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_HEATMAP_VIEW (attnscope_heatmap_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeHeatmapView, attnscope_heatmap_view, ATTNSCOPE, HEATMAP_VIEW,
                      GtkWidget)

GtkWidget *attnscope_heatmap_view_new (void);

/* Shows FIGURE (a heatmap; a reference is kept), or nothing for NULL. */
void attnscope_heatmap_view_set_figure (AttnscopeHeatmapView *self, ArBuiltFigure *figure);
/* The figure shown (borrowed), or NULL. */
ArBuiltFigure *attnscope_heatmap_view_get_figure (AttnscopeHeatmapView *self);

int attnscope_heatmap_view_get_n_rows (AttnscopeHeatmapView *self);
int attnscope_heatmap_view_get_n_cols (AttnscopeHeatmapView *self);
/* The value of cell (ROW, COL); NaN outside the matrix. */
float attnscope_heatmap_view_get_value (AttnscopeHeatmapView *self, int row, int col);

G_END_DECLS

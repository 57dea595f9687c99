/* attnscope-heatmap-view.h — a heatmap figure (ui/render/heatmap-render.h) on screen: attention of
 * one head, a mean, a rollout, a similarity matrix.
 *
 * The widget shows a built figure (ui/render/built-figure.h) made by a figure builder; its
 * snapshot hands it to ar_heatmap_render() in the screen's style, so the screen and an exported
 * file are drawn by the same function from the same description. Hovering a cell shows its exact
 * value in a tooltip ("masked" where the model could not attend); clicking one emits
 * "cell-activated".
 *
 * Long texts: the view zooms (Ctrl+scroll around the pointer, + and −, 0 for all) and pans
 * (dragging, scrolling; Shift+scroll sideways) over the matrix, drawing only the cells in view
 * (ar_heatmap_render's zoomed view); while zoomed a minimap in the bottom right corner shows the
 * whole matrix and the part in view. The keyboard moves a cursor cell (arrow keys; the view
 * follows it), whose query and key the page reports ("cursor-row", "cursor-col"); Return or space
 * activates it like a click. */
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

/* Zoom: how many rows (and as many columns) are in view (0: all), and the first of them. A new
 * figure of another size shows all again. */
int attnscope_heatmap_view_get_zoom (AttnscopeHeatmapView *self);
void attnscope_heatmap_view_set_view (AttnscopeHeatmapView *self, int row0, int col0, int n);
void attnscope_heatmap_view_get_view (AttnscopeHeatmapView *self, int *row0, int *col0, int *n);
/* Zooms in (FACTOR < 1) or out (> 1): the rows in view times FACTOR (at least one fewer or
 * more; never fewer than 4, all of them past the matrix's size). Around the cursor cell, or
 * without one the selected token's diagonal cell, which stays where it is on screen (a cursor
 * scrolled out of view comes back into it); without either around the middle of the view. */
void attnscope_heatmap_view_zoom (AttnscopeHeatmapView *self, double factor);
/* Zooms by FACTOR keeping the cell under (X, Y) (widget coordinates) under it (Ctrl+scroll);
 * outside the cells as attnscope_heatmap_view_zoom. */
void attnscope_heatmap_view_zoom_at (AttnscopeHeatmapView *self, double factor, double x, double y);
/* Where cell (ROW, COL) is drawn now (the view's zoom and size); FALSE outside the matrix. */
gboolean attnscope_heatmap_view_get_cell_rect (AttnscopeHeatmapView *self, int row, int col,
                                               double *x, double *y, double *width, double *height);
/* The tooltip's markup for the cell under (X, Y): its query and key and its value, or "masked"
 * where the model could not attend; NULL outside the cells. Newly allocated. */
char *attnscope_heatmap_view_dup_tooltip_at (AttnscopeHeatmapView *self, double x, double y);

/* A page's own text for cell (ROW, COL) in the tooltip, in place of its value (the lens page: the
 * cell's top five tokens): plain text, newly allocated; NULL: the value. */
typedef char *(*AttnscopeCellDescribeFunc) (int row, int col, gpointer data);
void attnscope_heatmap_view_set_cell_describe (AttnscopeHeatmapView *self,
                                               AttnscopeCellDescribeFunc describe, gpointer data);

/* The cursor cell (-1, -1 when there is none). Moving it keeps it in view. */
int attnscope_heatmap_view_get_cursor_row (AttnscopeHeatmapView *self);
int attnscope_heatmap_view_get_cursor_col (AttnscopeHeatmapView *self);
void attnscope_heatmap_view_set_cursor (AttnscopeHeatmapView *self, int row, int col);
void attnscope_heatmap_view_move_cursor (AttnscopeHeatmapView *self, int d_row, int d_col);

G_END_DECLS

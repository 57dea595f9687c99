/* attnscope-heatmap-view-private.h — the heatmap widget's fields and the functions its parts
 * share: attnscope-heatmap-view.c (the figure, the view — zoom, pan — and the cursor),
 * attnscope-heatmap-view-draw.c (snapshot: the kept drawing, the cursor, the minimap) and
 * attnscope-heatmap-view-input.c (tooltips, clicks, drags, scrolling and keys). Private to
 * ui/widgets. */
#pragma once

#include "attnscope-heatmap-tiles.h"
#include "attnscope-heatmap-view.h"
#include "figure.h"

G_BEGIN_DECLS

struct _AttnscopeHeatmapView
{
  GtkWidget parent_instance;

  ArBuiltFigure *figure; /* a heatmap, or NULL */

  /* the tick labels' widths measured for LABEL_STYLE (0 = not yet) */
  double row_label_width, col_label_width;
  const ArRenderStyle *label_style;

  int zoom;       /* rows (and columns) in view, 0 = all */
  int row0, col0; /* the first cell in view */
  int cursor_row, cursor_col;

  /* the minimap's picture of the whole matrix, for MINIMAP_FIGURE in MINIMAP_STYLE */
  cairo_surface_t *minimap;
  const ArBuiltFigure *minimap_figure;
  const ArRenderStyle *minimap_style;

  AttnscopeCellDescribeFunc describe; /* the tooltip's text of a cell, or NULL: its value */
  gpointer describe_data;

  double pointer_x, pointer_y;
  int drag_row0, drag_col0; /* the view when the drag began */
  double drag_cell;         /* the cell size then */

  /* The figure's drawing for NODE_FIGURE in NODE_STYLE at NODE_WIDTH × NODE_HEIGHT in the view
   * NODE_VIEW (row0, col0, zoom): kept, so that a redraw of the same view (the cursor moving, a
   * tooltip, the window exposed) draws only the cursor and minimap over it. */
  GskRenderNode *node;
  const ArBuiltFigure *node_figure;
  const ArRenderStyle *node_style;
  int node_width, node_height, node_view[3];
  guint node_tiles; /* the exact tiles that had landed then */

  /* a long text's exact entries when zoomed in (attnscope-heatmap-view-exact.c) */
  AttnscopeHeatmapTiles *tiles;
};

/* The figure's heatmap, or NULL; its rows and columns (0 without a figure). */
const ArHeatmapFigure *attnscope_heatmap_view_heatmap (AttnscopeHeatmapView *self);
int attnscope_heatmap_view_n_rows (AttnscopeHeatmapView *self);
int attnscope_heatmap_view_n_cols (AttnscopeHeatmapView *self);

/* Clamps the view (first row and column, rows in view; 0 = all) to the matrix and redraws;
 * notifies a new zoom. */
void attnscope_heatmap_view_apply_view (AttnscopeHeatmapView *self, int row0, int col0, int zoom);

/* Zooms by FACTOR (the rows in view times FACTOR, at least one row less or more) keeping cell
 * (ROW, COL) where it is on screen. */
void attnscope_heatmap_view_zoom_around (AttnscopeHeatmapView *self, double factor, int row,
                                         int col);

/* PARTS = the figure in the screen's style, its tick labels measured once per figure and style,
 * in the current view. */
void attnscope_heatmap_view_screen_figure (AttnscopeHeatmapView *self, ArFigureParts *parts);

/* The cell under (X, Y) of the widget: TRUE and *ROW, *COL, or FALSE. */
gboolean attnscope_heatmap_view_hit (AttnscopeHeatmapView *self, double x, double y, int *row,
                                     int *col);

/* Emits "cell-activated" for (ROW, COL). */
void attnscope_heatmap_view_emit_activated (AttnscopeHeatmapView *self, int row, int col);

/* GtkWidget's snapshot and measure (attnscope-heatmap-view-draw.c). */
void attnscope_heatmap_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot);
void attnscope_heatmap_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                     int *minimum, int *natural, int *minimum_baseline,
                                     int *natural_baseline);

/* Adds the tooltip, click, drag, scroll and key handling (attnscope-heatmap-view-input.c). */
void attnscope_heatmap_view_init_input (AttnscopeHeatmapView *self);

/* attnscope-heatmap-view-exact.c: follows the figure's pooled head (or none), paints the exact
 * entries of a zoomed view over the enlarged blocks once they are in, and their tooltip. */
void attnscope_heatmap_view_init_exact (AttnscopeHeatmapView *self);
void attnscope_heatmap_view_update_exact (AttnscopeHeatmapView *self);
void attnscope_heatmap_view_draw_exact (AttnscopeHeatmapView *self, cairo_t *cr,
                                        const ArHeatmapFigure *fig, int width, int height);
void attnscope_heatmap_view_label_exact (AttnscopeHeatmapView *self, ArHeatmapFigure *fig);
char *attnscope_heatmap_view_dup_exact_tooltip (AttnscopeHeatmapView *self, double x, double y);

G_END_DECLS

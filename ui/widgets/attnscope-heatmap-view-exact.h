/* attnscope-heatmap-view-exact.h — a long text's heatmap zoomed in: the exact entries in view.
 *
 * A heatmap of a long text's pooled head (attention-overview.h; the figure's `pool` > 1) zoomed in
 * until the view holds at most AR_OVERVIEW_CELLS entries a side — a screen cell then covers no
 * more entries than an overview block did — draws the entries themselves, computed off the UI
 * thread with as_trace_attention_tile () into the widget's tile cache
 * (attnscope-heatmap-tiles.h); until they are in, the enlarged pooled blocks stay drawn. Tooltips
 * then name the query and key token and the entry's exact value. Zoomed out, the pooled blocks. */
#pragma once

#include "attnscope-heatmap-view.h"

G_BEGIN_DECLS

/* The entries in view when the view shows exact entries: TRUE with the query rows ROW0 ..
 * ROW0+N_ROWS−1 and key columns COL0 .. COL0+N_COLS−1; FALSE when it shows pooled blocks (or a
 * matrix that is not pooled). */
gboolean attnscope_heatmap_view_get_exact_region (AttnscopeHeatmapView *self, int *row0,
                                                  int *n_rows, int *col0, int *n_cols);

/* TRUE when the exact entries in view are all computed (and drawn). */
gboolean attnscope_heatmap_view_exact_ready (AttnscopeHeatmapView *self);

/* Entry (ROW, COL) (query and key token) when its tile is in the cache. */
gboolean attnscope_heatmap_view_get_exact_value (AttnscopeHeatmapView *self, int row, int col,
                                                 float *value);

/* The entry (query, key) drawn under (X, Y) in a view of exact entries. */
gboolean attnscope_heatmap_view_exact_hit (AttnscopeHeatmapView *self, double x, double y, int *row,
                                           int *col);

/* The bytes the tile cache holds, and its budget (0: ATTNSCOPE_TILE_BUDGET). */
gsize attnscope_heatmap_view_get_tile_bytes (AttnscopeHeatmapView *self);
void attnscope_heatmap_view_set_tile_budget (AttnscopeHeatmapView *self, gsize bytes);

G_END_DECLS

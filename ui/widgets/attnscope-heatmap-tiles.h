/* attnscope-heatmap-tiles.h — the exact entries of a long text's zoomed heatmap: a bounded cache
 * of tiles of one head's attention, computed off the UI thread.
 *
 * A long text's heatmap shows its head pooled in blocks (attention-overview.h). Zoomed in until
 * the view holds at most AR_OVERVIEW_CELLS entries a side, the heatmap widget draws the entries
 * themselves: it asks this cache for the region in view; tiles of ATTNSCOPE_TILE_SIDE ×
 * ATTNSCOPE_TILE_SIDE entries that are missing are computed with as_trace_attention_tile () in a
 * worker thread (one job at a time; the widget keeps drawing the enlarged blocks meanwhile), and
 * ARRIVED is called on the UI thread when they are in, so that the widget draws again. The cache
 * keeps the tiles least recently used last and drops them beyond its byte budget
 * (ATTNSCOPE_TILE_BUDGET by default); another trace, layer or head empties it and drops the job in
 * flight (ui/README.md, "Attention at long lengths"). */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TILE_SIDE 128
/* 64 MiB: 1,024 tiles of 64 KiB, sixteen views of 1,024 × 1,024 entries. */
#define ATTNSCOPE_TILE_BUDGET ((gsize) 64 << 20)

typedef struct _AttnscopeHeatmapTiles AttnscopeHeatmapTiles;

/* ARRIVED (DATA) is called on the thread-default main context of the caller when tiles land. */
AttnscopeHeatmapTiles *attnscope_heatmap_tiles_new (GSourceFunc arrived, gpointer data);
void attnscope_heatmap_tiles_free (AttnscopeHeatmapTiles *self);

/* The head whose entries the cache holds: head HEAD of LAYER of TRACE (a reference is kept), or
 * nothing (NULL). Another head empties the cache and drops the job in flight. */
void attnscope_heatmap_tiles_set_source (AttnscopeHeatmapTiles *self, const AsTrace *trace,
                                         int layer, int head);

/* Entries ROW0 .. ROW0+N_ROWS−1 × COL0 .. COL0+N_COLS−1 into OUT [N_ROWS][N_COLS] when every tile
 * they need is in the cache (TRUE); else FALSE, and the missing tiles are being computed. */
gboolean attnscope_heatmap_tiles_region (AttnscopeHeatmapTiles *self, float *out, int row0,
                                         int n_rows, int col0, int n_cols);

/* TRUE when every tile of the region is in the cache (nothing is computed). */
gboolean attnscope_heatmap_tiles_covers (AttnscopeHeatmapTiles *self, int row0, int n_rows,
                                         int col0, int n_cols);

/* Entry (ROW, COL) when its tile is in the cache. */
gboolean attnscope_heatmap_tiles_lookup (AttnscopeHeatmapTiles *self, int row, int col,
                                         float *value);

/* The bytes the tiles take now, and the budget (0: ATTNSCOPE_TILE_BUDGET). */
gsize attnscope_heatmap_tiles_get_bytes (AttnscopeHeatmapTiles *self);
void attnscope_heatmap_tiles_set_budget (AttnscopeHeatmapTiles *self, gsize bytes);

/* Counts the tiles that landed (a drawing made with fewer is stale); TRUE while a job runs. */
guint attnscope_heatmap_tiles_get_generation (AttnscopeHeatmapTiles *self);
gboolean attnscope_heatmap_tiles_busy (AttnscopeHeatmapTiles *self);

/* An image of the entries VALUES [NR][NC] from (ROW0, COL0) of the matrix, one pixel each. */
typedef cairo_surface_t *(*AttnscopeTilePaint) (const float *values, int row0, int nr, int col0,
                                                int nc, gpointer data);

/* The picture of tile (TR, TC) (entries TR·S.., TC·S..; *NR × *NC of them) made by PAINT (DATA)
 * the first time it is asked with KEY (the colours: another KEY makes it again) and kept with the
 * tile (up to as many bytes again as the tiles' values); NULL when the tile is not in the cache.
 * A zoomed frame then draws a few kept images, not every entry. Borrowed. */
cairo_surface_t *attnscope_heatmap_tiles_get_picture (AttnscopeHeatmapTiles *self, int tr, int tc,
                                                      guint64 key, AttnscopeTilePaint paint,
                                                      gpointer data, int *nr, int *nc);

G_END_DECLS

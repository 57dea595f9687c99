/* attnscope-head-grid-view.h — every head of every layer as a thumbnail heatmap, labelled with
 * its pattern (ui/render/grid-render.h): a built figure made by ar_build_grid_figure(). Hovering a
 * thumbnail shows the head's statistics; clicking one emits "head-activated". */
#pragma once

#include <gtk/gtk.h>

#include "as-cross-stats.h"
#include "as-head-stats.h"
#include "built-figure.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_HEAD_GRID_VIEW (attnscope_head_grid_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeHeadGridView, attnscope_head_grid_view, ATTNSCOPE, HEAD_GRID_VIEW,
                      GtkWidget)

GtkWidget *attnscope_head_grid_view_new (void);

/* Shows FIGURE (a grid; a reference is kept) with the tooltips' numbers from STATS (copied), or
 * nothing for NULL. */
void attnscope_head_grid_view_set_figure (AttnscopeHeadGridView *self, ArBuiltFigure *figure,
                                          const AsHeadStats *stats);
ArBuiltFigure *attnscope_head_grid_view_get_figure (AttnscopeHeadGridView *self);
int attnscope_head_grid_view_get_n_layers (AttnscopeHeadGridView *self);
int attnscope_head_grid_view_get_n_heads (AttnscopeHeadGridView *self);

/* A cross-attention grid (ar_build_cross_grid_figure): the tooltips' numbers from STATS (copied;
 * entropy, share on </s>, row maximum, diagonal), until the next figure. */
void attnscope_head_grid_view_set_cross_stats (AttnscopeHeadGridView *self,
                                               const AsCrossStats *stats);

/* The tooltip of head (LAYER, HEAD): its numbers, pattern and shares (entropy, previous, first,
 * self; for an encoder [CLS], [SEP], previous, next, self, as `attnscope stats`); NULL outside the
 * grid. Newly allocated. */
/* The head whose thumbnail is at (X, Y) in widget coordinates: TRUE and *LAYER, *HEAD. (A
 * Shift+click on one emits "head-toggled" instead of "head-activated".) */
gboolean attnscope_head_grid_view_head_at (AttnscopeHeadGridView *self, double x, double y,
                                           int *layer, int *head);
char *attnscope_head_grid_view_dup_tooltip (AttnscopeHeadGridView *self, int layer, int head);

/* How many thumbnails its last drawing drew anew; the others it kept from the figure before, which
 * drew them alike (attnscope-grid-drawing.h). */
int attnscope_head_grid_view_get_redrawn (AttnscopeHeadGridView *self);

G_END_DECLS

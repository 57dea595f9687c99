/* attnscope-head-grid-view.h — every head of every layer as a thumbnail heatmap, labelled with
 * its pattern from the head statistics (ui/render/grid-render.h). Hovering a thumbnail shows the
 * head's statistics; clicking one emits "head-activated". */
#pragma once

#include <gtk/gtk.h>

#include "as-head-stats.h"
#include "grid-render.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_HEAD_GRID_VIEW (attnscope_head_grid_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeHeadGridView, attnscope_head_grid_view, ATTNSCOPE, HEAD_GRID_VIEW,
                      GtkWidget)

GtkWidget *attnscope_head_grid_view_new (void);

/* Shows TRACE's attention (a reference is kept) with the labels of STATS (copied; may be NULL).
 * TRACE NULL clears the view. */
void attnscope_head_grid_view_set_trace (AttnscopeHeadGridView *self, AsTrace *trace,
                                         const AsHeadStats *stats);
int attnscope_head_grid_view_get_n_layers (AttnscopeHeadGridView *self);
int attnscope_head_grid_view_get_n_heads (AttnscopeHeadGridView *self);

void attnscope_head_grid_view_set_titles (AttnscopeHeadGridView *self, const char *title,
                                          const char *subtitle);
void attnscope_head_grid_view_set_colormap (AttnscopeHeadGridView *self, const char *colormap);
/* The head outlined in the accent colour (-1, -1: none). */
void attnscope_head_grid_view_set_highlight (AttnscopeHeadGridView *self, int layer, int head);

/* The figure as on screen, print style, borrowing the widget's data. For export. */
void attnscope_head_grid_view_get_figure (AttnscopeHeadGridView *self, ArGridFigure *fig);

G_END_DECLS

/* attnscope-scatter-view.h — a 2-D projection of token vectors as a labelled scatter plot
 * (ui/render/scatter-render.h): a built figure made by ar_build_projection_figure(), coloured by
 * sentence in compare mode. Hovering a point shows its token and sentence; clicking one emits
 * "point-activated". */
#pragma once

#include <gtk/gtk.h>

#include "built-figure.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_SCATTER_VIEW (attnscope_scatter_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeScatterView, attnscope_scatter_view, ATTNSCOPE, SCATTER_VIEW,
                      GtkWidget)

GtkWidget *attnscope_scatter_view_new (void);

/* Shows FIGURE (a scatter plot; a reference is kept), or nothing for NULL. */
void attnscope_scatter_view_set_figure (AttnscopeScatterView *self, ArBuiltFigure *figure);
ArBuiltFigure *attnscope_scatter_view_get_figure (AttnscopeScatterView *self);
int attnscope_scatter_view_get_n_points (AttnscopeScatterView *self);
/* Coordinates of point I (FALSE outside 0..N-1). */
gboolean attnscope_scatter_view_get_point (AttnscopeScatterView *self, int i, float *x, float *y);

G_END_DECLS

/* attnscope-scatter-view.h — a 2-D projection of token vectors as a labelled scatter plot
 * (ui/render/scatter-render.h), coloured by sentence in compare mode. Hovering a point shows its
 * token and sentence; clicking one emits "point-activated". */
#pragma once

#include <gtk/gtk.h>

#include "scatter-render.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_SCATTER_VIEW (attnscope_scatter_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeScatterView, attnscope_scatter_view, ATTNSCOPE, SCATTER_VIEW,
                      GtkWidget)

GtkWidget *attnscope_scatter_view_new (void);

/* Copies XY [N][2], LABELS [N], GROUPS [N] (NULL: all 0) and GROUP_NAMES [N_GROUPS]. XY NULL
 * clears the view. */
void attnscope_scatter_view_set_points (AttnscopeScatterView *self, const float *xy, int n,
                                        const char *const *labels, const int *groups,
                                        const char *const *group_names, int n_groups);
int attnscope_scatter_view_get_n_points (AttnscopeScatterView *self);
/* Coordinates of point I (FALSE outside 0..N-1). */
gboolean attnscope_scatter_view_get_point (AttnscopeScatterView *self, int i, float *x, float *y);

void attnscope_scatter_view_set_titles (AttnscopeScatterView *self, const char *title,
                                        const char *subtitle);
void attnscope_scatter_view_set_axes (AttnscopeScatterView *self, const char *x_axis,
                                      const char *y_axis);
void attnscope_scatter_view_set_show_labels (AttnscopeScatterView *self, gboolean show);
void attnscope_scatter_view_set_highlight (AttnscopeScatterView *self, int point);

/* The figure as on screen, print style, borrowing the widget's data. For export. */
void attnscope_scatter_view_get_figure (AttnscopeScatterView *self, ArScatterFigure *fig);

G_END_DECLS

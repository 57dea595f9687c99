/* attnscope-compare-view.h — two sentences side by side (ui/render/compare-render.h): a built
 * figure made by ar_build_compare_figure() — the same view of text A and text B, their difference
 * B − A when the token counts match, and a chart of the per-layer similarity of the tokens they
 * share. The whole comparison is one figure, drawn on screen and exported by the same function. */
#pragma once

#include <gtk/gtk.h>

#include "built-figure.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_COMPARE_VIEW (attnscope_compare_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeCompareView, attnscope_compare_view, ATTNSCOPE, COMPARE_VIEW,
                      GtkWidget)

GtkWidget *attnscope_compare_view_new (void);

/* Shows FIGURE (a comparison; a reference is kept), or nothing for NULL. */
void attnscope_compare_view_set_figure (AttnscopeCompareView *self, ArBuiltFigure *figure);
ArBuiltFigure *attnscope_compare_view_get_figure (AttnscopeCompareView *self);

gboolean attnscope_compare_view_has_panels (AttnscopeCompareView *self);
gboolean attnscope_compare_view_has_difference (AttnscopeCompareView *self);
/* Value of cell (ROW, COL) of PANEL (0 A, 1 B, 2 difference); NaN when absent. */
float attnscope_compare_view_get_value (AttnscopeCompareView *self, int panel, int row, int col);

G_END_DECLS

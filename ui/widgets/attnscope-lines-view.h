/* attnscope-lines-view.h — a line chart (ui/render/lines-render.h) on screen: the lens page's
 * chart of one token's probability through the hidden states. Hovering a marker shows its series,
 * its x label and its exact value. */
#pragma once

#include <gtk/gtk.h>

#include "built-figure.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_LINES_VIEW (attnscope_lines_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeLinesView, attnscope_lines_view, ATTNSCOPE, LINES_VIEW, GtkWidget)

GtkWidget *attnscope_lines_view_new (void);

/* Shows FIGURE (a line chart; a reference is kept), or nothing for NULL. */
void attnscope_lines_view_set_figure (AttnscopeLinesView *self, ArBuiltFigure *figure);
ArBuiltFigure *attnscope_lines_view_get_figure (AttnscopeLinesView *self);

/* The tooltip's markup for the marker at (X, Y), or NULL. Newly allocated. */
char *attnscope_lines_view_dup_tooltip_at (AttnscopeLinesView *self, double x, double y);

G_END_DECLS

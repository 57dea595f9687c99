/* attnscope-figure-widget.h — what the drawing widgets (heatmap, head grid, scatter, compare)
 * share: the ui/render style to paint with (light, or dark when libadwaita's style manager is
 * dark) applied to the built figure they show, snapshot and measure through ui/render's
 * ArFigure, and the tooltip/click/dark-mode wiring. */
#pragma once

#include <gtk/gtk.h>

#include "built-figure.h"
#include "render-style.h"

G_BEGIN_DECLS

const ArRenderStyle *attnscope_figure_style_get (void);

/* Whether WIDGET lays out NEW exactly like OLD (both in the screen's style). */
typedef gboolean (*AttnscopeFigureSameFunc) (GtkWidget *widget, const ArFigureParts *old,
                                             const ArFigureParts *new);

/* Replaces *SLOT, the figure WIDGET shows, with FIGURE (a reference is kept; NULL for none). A
 * figure laid out like the old one (SAME says; NULL: assume not) only needs a redraw, anything
 * else a new layout — which at T = 1024 means measuring the whole window again, a thousand token
 * chips included. */
void attnscope_figure_widget_replace (GtkWidget *widget, ArBuiltFigure **slot,
                                      ArBuiltFigure *figure, AttnscopeFigureSameFunc same);

/* A SAME function: equal natural sizes. */
gboolean attnscope_figure_widget_same_size (GtkWidget *widget, const ArFigureParts *old,
                                            const ArFigureParts *new);

/* PARTS = FIGURE's parts drawn in attnscope_figure_style_get ()'s style. */
void attnscope_figure_widget_restyle (const ArBuiltFigure *figure, ArFigureParts *parts);

/* Draws FIGURE over the whole of WIDGET (nothing for NULL). */
void attnscope_figure_widget_snapshot (GtkWidget *widget, GtkSnapshot *snapshot,
                                       const ArFigure *figure);

/* measure() sizes: natural = FIGURE's natural size (0 for NULL); minimum = 200 pixels, or
 * MIN_FRACTION of the natural size when that is larger. */
void attnscope_figure_widget_measure (const ArFigure *figure, GtkOrientation orientation,
                                      double min_fraction, int *minimum, int *natural);

/* Tooltips from QUERY_TOOLTIP (a "query-tooltip" handler), clicks to RELEASED (a GtkGestureClick
 * "released" handler called with WIDGET as its data; may be NULL), and a redraw whenever the
 * light/dark choice changes. */
void attnscope_figure_widget_init (GtkWidget *widget, GCallback query_tooltip, GCallback released);

G_END_DECLS

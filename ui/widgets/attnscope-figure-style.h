/* attnscope-figure-style.h — which ui/render style a drawing widget paints with: the light
 * (print) style, or the dark style when libadwaita's style manager is dark. Drawing widgets call
 * attnscope_figure_style_track() once so they redraw when the system switches. */
#pragma once

#include <gtk/gtk.h>

#include "render-style.h"

G_BEGIN_DECLS

const AsRenderStyle *attnscope_figure_style_get (void);

/* Queues a redraw of WIDGET whenever the light/dark choice changes (for WIDGET's lifetime). */
void attnscope_figure_style_track (GtkWidget *widget);

G_END_DECLS

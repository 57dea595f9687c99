/* attnscope-figure-style.c — the render style follows AdwStyleManager's dark flag (see
 * attnscope-figure-style.h). */
#include "attnscope-figure-style.h"

#include <adwaita.h>

const AsRenderStyle *
attnscope_figure_style_get (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ()) ? as_render_style_dark ()
                                                                        : as_render_style_light ();
}

void
attnscope_figure_style_track (GtkWidget *widget)
{
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), widget, G_CONNECT_SWAPPED);
}

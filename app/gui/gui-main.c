/* gui-main.c — sets up translations and the widget library, then runs the application (see
 * gui-main.h). */
#include "gui-main.h"

#include <stdio.h>
#include <string.h>

#include <gtk/gtk.h>

#include "attnscope-application.h"
#include "attnscope-widgets.h"
#include "attnscope-background.h"

gboolean
gui_main_wants_gui (const char *arg)
{
  return arg[0] == '-' && strcmp (arg, "--help") != 0 && strcmp (arg, "-h") != 0;
}

/* Is there a GPU render node (/dev/dri/renderD*)? */
static gboolean
has_render_node (void)
{
  g_autoptr (GDir) dir = g_dir_open ("/dev/dri", 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "renderD"))
      return TRUE;
  return FALSE;
}

int
gui_main (int argc, char **argv)
{
  attnscope_application_init_i18n ();
  /* Without a GPU, GTK's GL renderer runs on a software rasteriser that spends 30–40 ms on every
   * frame; its Cairo renderer draws the same views in a few (tests/bench/RESULTS.md). A
   * GSK_RENDERER the user set still wins. */
  if (g_getenv ("GSK_RENDERER") == NULL && !has_render_node ())
    g_setenv ("GSK_RENDERER", "cairo", FALSE);
  if (!gtk_init_check ())
    {
      fprintf (stderr, "attnscope: error: cannot open a display for the window; the command line "
                       "works without one (attnscope --help)\n");
      return 1;
    }
  attnscope_widgets_init ();
  g_autoptr (AttnscopeApplication) app = attnscope_application_new (G_APPLICATION_DEFAULT_FLAGS);
  int status = g_application_run (G_APPLICATION (app), argc, argv);
  g_clear_object (&app);
  /* the windows are gone and their jobs cancelled: let the workers stop before the exit
   * handlers unload what they run in */
  attnscope_background_wait (30000);
  return status;
}

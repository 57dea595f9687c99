/* gui-main.c — sets up translations and the widget library, then runs the application (see
 * gui-main.h). */
#include "gui-main.h"

#include <stdio.h>
#include <string.h>

#include <gtk/gtk.h>

#include "attnscope-application.h"
#include "attnscope-widgets.h"

gboolean
gui_main_wants_gui (const char *arg)
{
  return arg[0] == '-' && strcmp (arg, "--help") != 0 && strcmp (arg, "-h") != 0;
}

int
gui_main (int argc, char **argv)
{
  attnscope_application_init_i18n ();
  if (!gtk_init_check ())
    {
      fprintf (stderr, "attnscope: error: cannot open a display for the window; the command line "
                       "works without one (attnscope --help)\n");
      return 1;
    }
  attnscope_widgets_init ();
  g_autoptr (AttnscopeApplication) app = attnscope_application_new (G_APPLICATION_DEFAULT_FLAGS);
  return g_application_run (G_APPLICATION (app), argc, argv);
}

/* gui-main.h — starting the desktop application from main(). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when ARG (argv[1]) is an option for the GUI (GApplication/GTK options such as
 * --gapplication-service) rather than a subcommand or --help. */
gboolean gui_main_wants_gui (const char *arg);

/* Runs the GUI; returns the exit status. */
int gui_main (int argc, char **argv);

G_END_DECLS

/* main.c — entry point: `attnscope --version`; with no arguments, or only options for the GUI
 * toolkit, the window opens on the default model (gui/); otherwise the subcommand runs
 * (cli/cli-commands.c) and never touches the display. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli-commands.h"
#include "cli-common.h"
#include "gui-main.h"

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  /* Numbers are printed and parsed in the C locale whatever the user's language. */
  setlocale (LC_NUMERIC, "C");
  g_set_prgname ("attnscope");

  if (argc >= 2 && (strcmp (argv[1], "--version") == 0 || strcmp (argv[1], "-V") == 0))
    {
      printf ("attnscope %s\n", ATTNSCOPE_VERSION);
      return CLI_EXIT_OK;
    }
  if (argc < 2 || gui_main_wants_gui (argv[1]))
    return gui_main (argc, argv);
  return cli_main (argc, argv);
}

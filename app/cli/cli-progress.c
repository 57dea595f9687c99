/* cli-progress.c — the terminal's progress line of a forward pass (cli-progress.h).
 *
 * The pass calls back after each layer on its own thread; the line is drawn only once the pass
 * has run for PROGRESS_DELAY_US, so short passes print nothing, and erased with "\r\033[K" when
 * the last layer is done or cli_progress_end() is called (cli_fail does before its message). */
#include "cli-progress.h"

#include <stdio.h>
#include <unistd.h>

#define PROGRESS_DELAY_US (G_USEC_PER_SEC / 2)

gboolean cli_progress_quiet = FALSE;

static gint64 started; /* monotonic µs at cli_progress_apply */
static gboolean drawn; /* the line is on the terminal */

void
cli_progress_end (void)
{
  if (!drawn)
    return;
  fputs ("\r\033[K", stderr);
  fflush (stderr);
  drawn = FALSE;
}

static void
on_layer (int done, int total, gpointer user_data)
{
  (void) user_data;
  if (done >= total)
    {
      cli_progress_end ();
      return;
    }
  if (g_get_monotonic_time () - started < PROGRESS_DELAY_US)
    return;
  fprintf (stderr, "\rattnscope: layer %d of %d", done + 1, total);
  fflush (stderr);
  drawn = TRUE;
}

void
cli_progress_apply (AsForwardOptions *options)
{
  if (cli_progress_quiet || !isatty (STDERR_FILENO))
    return;
  started = g_get_monotonic_time ();
  options->progress = on_layer;
  options->progress_data = NULL;
}

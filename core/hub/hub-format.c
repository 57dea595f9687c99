/* hub-format.c — a download's progress in words, the same on the command line's bar and in the
 * window's dialog: bytes in place of the total, the speed, the time left. Sizes in SI units as
 * g_format_size writes them ("6.4 MB"), with a plain space (output for terminals and scripts). */
#include "as-hub.h"

#include <math.h>

char *
as_hub_format_size (guint64 bytes)
{
  /* g_format_size puts a no-break space (U+00A0) between the number and the unit */
  g_autofree char *glib = g_format_size (bytes);
  g_auto (GStrv) parts = g_strsplit (glib, "\xc2\xa0", -1);
  return g_strjoinv (" ", parts);
}

char *
as_hub_format_duration (double seconds)
{
  if (seconds < 0 || !isfinite (seconds))
    return g_strdup ("?");
  guint64 s = (guint64) llround (seconds);
  if (s >= 3600)
    return g_strdup_printf ("%" G_GUINT64_FORMAT ":%02u:%02u", s / 3600, (unsigned) (s / 60 % 60),
                            (unsigned) (s % 60));
  return g_strdup_printf ("%u:%02u", (unsigned) (s / 60), (unsigned) (s % 60));
}

char *
as_hub_progress_format (const AsHubProgress *progress)
{
  GString *out = g_string_new (NULL);
  g_autofree char *done = as_hub_format_size (progress->done_bytes);
  if (progress->total_bytes > 0)
    {
      g_autofree char *total = as_hub_format_size (progress->total_bytes);
      g_string_append_printf (out, "%s of %s", done, total);
    }
  else
    g_string_append (out, done);
  if (progress->bytes_per_second >= 0)
    {
      g_autofree char *speed = as_hub_format_size ((guint64) llround (progress->bytes_per_second));
      g_string_append_printf (out, ", %s/s", speed);
    }
  if (progress->seconds_left >= 0)
    {
      g_autofree char *left = as_hub_format_duration (progress->seconds_left);
      g_string_append_printf (out, ", %s left", left);
    }
  return g_string_free (out, FALSE);
}

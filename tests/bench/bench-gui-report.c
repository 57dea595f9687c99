/* bench-gui-report.c — the GUI benchmark's progress notes and summaries (bench-gui.h). */
#include "bench-gui.h"

#include <stdio.h>
#include <stdlib.h>

/* The readable table, one row per summary. */
static GString *table;

double
bench_ms_since (gint64 t0)
{
  return (g_get_monotonic_time () - t0) / 1000.0;
}

void
bench_note (const char *what)
{
  static gint64 start;
  if (start == 0)
    start = g_get_monotonic_time ();
  fprintf (stderr, "bench-gui: %6.1f s  %s\n", bench_ms_since (start) / 1000.0, what);
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

void
bench_summary (const char *name, const char *what, double *ms, int n, double target_ms,
               gboolean by_max)
{
  if (table == NULL)
    table = g_string_new (NULL);
  qsort (ms, n, sizeof (double), compare_double);
  double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  g_autofree char *target = target_ms > 0 ? g_strdup_printf ("%g", target_ms) : g_strdup ("null");
  double judged = by_max ? ms[n - 1] : median;
  g_autofree char *label = g_strescape (g_strstrip (g_strdup (what)), NULL);
  printf ("{\"kind\": \"summary\", \"name\": \"%s\", \"what\": \"%s\", \"n\": %d, "
          "\"median_ms\": %.3f, \"min_ms\": %.3f, \"max_ms\": %.3f, \"target_ms\": %s, "
          "\"judged_by\": \"%s\"}\n",
          name, label, n, median, ms[0], ms[n - 1], target, by_max ? "max" : "median");
  g_string_append_printf (table, "%-52s %5d %9.3f %9.3f %9.3f  %6s  %s\n", what, n, median, ms[0],
                          ms[n - 1], target_ms > 0 ? target : "",
                          target_ms <= 0        ? ""
                          : judged <= target_ms ? "met"
                                                : "NOT met");
}

void
bench_print_table (void)
{
  fprintf (stderr, "%-52s %5s %9s %9s %9s  %6s\n%s", "measurement (ms)", "n", "median", "min",
           "max", "target", table != NULL ? table->str : "");
  if (table != NULL)
    g_string_free (table, TRUE);
  table = NULL;
}

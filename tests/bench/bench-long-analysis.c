/* bench-long-analysis.c — head statistics and the comparison of two texts at a long length, with
 * the attention on demand: time and the process's peak memory after each step (not a test).
 *
 * Two passes over T ids ((i·7919 + 13) mod V, and the same with every 97th id changed), then the
 * head statistics of the first (as_head_stats_aggregate: every head read 256 rows at a time) and
 * the comparison of the two (as_compare_traces: every head of both read 64 rows at a time).
 * Prints one JSON object per line: {"what": ..., "T": ..., "ms": ..., "peak_rss_mb": ...}.
 *
 * usage: bench-long-analysis MODEL_DIR [--tokens T] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "as-compare.h"
#include "as-forward.h"
#include "as-head-stats.h"
#include "as-model.h"

static void
report (const char *what, int T, gint64 t0)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  printf ("{\"what\": \"%s\", \"T\": %d, \"ms\": %.1f, \"peak_rss_mb\": %.1f}\n", what, T,
          (g_get_monotonic_time () - t0) / 1000.0, u.ru_maxrss / 1024.0);
  fflush (stdout);
}

static AsTrace *
pass (AsModel *model, int T, int change, int V)
{
  g_autofree int32_t *ids = g_new (int32_t, T);
  for (int i = 0; i < T; i++)
    ids[i] = (int32_t) (((gint64) i * 7919 + 13 + (change && i % 97 == 5 ? 1 : 0)) % V);
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward (model, ids, T, NULL, &error);
  if (t == NULL)
    {
      fprintf (stderr, "bench-long-analysis: %s\n", error->message);
      exit (1);
    }
  return t;
}

int
main (int argc, char **argv)
{
  int T = 4096;
  const char *dir = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--tokens") == 0 && i + 1 < argc)
        T = atoi (argv[++i]);
      else
        dir = argv[i];
    }
  if (dir == NULL || T < 2)
    {
      fprintf (stderr, "usage: bench-long-analysis MODEL_DIR [--tokens T]\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  if (model == NULL)
    {
      fprintf (stderr, "bench-long-analysis: %s\n", error->message);
      return 1;
    }
  int V = as_model_get_config (model)->vocab_size;
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (AsTrace) a = pass (model, T, 0, V);
  report ("pass A", T, t0);
  t0 = g_get_monotonic_time ();
  g_autoptr (AsTrace) b = pass (model, T, 1, V);
  report ("pass B", T, t0);
  t0 = g_get_monotonic_time ();
  g_autoptr (AsHeadStats) stats = as_head_stats_aggregate (&a, 1, &error);
  if (stats == NULL)
    {
      fprintf (stderr, "bench-long-analysis: %s\n", error->message);
      return 1;
    }
  report ("stats", T, t0);
  t0 = g_get_monotonic_time ();
  g_autoptr (AsComparison) c = as_compare_traces (a, b, &error);
  if (c == NULL)
    {
      fprintf (stderr, "bench-long-analysis: %s\n", error->message);
      return 1;
    }
  report ("compare", T, t0);
  printf ("{\"what\": \"result\", \"entropy_l0h0\": %.6f, \"head_change_l0h0\": %.6g, "
          "\"attention_on_demand\": %s}\n",
          stats->values[AS_HEAD_STAT_ENTROPY], c->head_change[0],
          as_trace_attention_held (a) ? "false" : "true");
  return 0;
}

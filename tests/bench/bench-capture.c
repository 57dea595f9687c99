/* bench-capture.c — what capturing the trace costs a forward pass (not a test).
 *
 * The same pass over T tokens (ids (i·7919 + 13) mod V) of a rotary decoder, REPEAT times each
 * way, alternating so that the machine's load falls on both alike:
 *   capture: the trace every view reads (the automatic choice: attention on demand past 1 GiB of
 *            matrices, contexts, hidden states, the last position's logits) — what `run` and the
 *            window make;
 *   logits:  AsForwardOptions.logits_only, nothing kept but the logits and hidden[L].
 * The last logits of both are compared (they must be the same bits: capturing never changes the
 * computation). Prints one JSON object per line: {"what": ..., "T": ..., "median_ms": ...,
 * "min_ms": ...}, then the ratio of the medians and of the minima.
 *
 * usage: bench-capture MODEL_DIR [--tokens T] [--repeat N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "as-forward.h"
#include "as-model.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
timed_pass (AsModel *model, const int32_t *ids, int T, gboolean logits_only, float *last)
{
  AsForwardOptions options = { .logits_only = logits_only };
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (AsTrace) trace = as_forward (model, ids, T, &options, &error);
  double ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (trace == NULL)
    {
      fprintf (stderr, "bench-capture: %s\n", error->message);
      exit (1);
    }
  if (logits_only && (trace->ctx != NULL || trace->attn_q != NULL || trace->attn != NULL))
    {
      fprintf (stderr, "bench-capture: this model's family captures everything anyway\n");
      exit (1);
    }
  memcpy (last, as_trace_last_logits (trace), sizeof (float) * trace->vocab_size);
  return ms;
}

static void
report (const char *what, int T, double *ms, int n, double *median, double *min)
{
  qsort (ms, n, sizeof (double), cmp_double);
  *median = ms[n / 2], *min = ms[0];
  printf ("{\"what\": \"%s\", \"T\": %d, \"median_ms\": %.1f, \"min_ms\": %.1f}\n", what, T,
          *median, *min);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  int T = 2048, repeat = 3;
  const char *dir = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--tokens") == 0 && i + 1 < argc)
        T = atoi (argv[++i]);
      else if (strcmp (argv[i], "--repeat") == 0 && i + 1 < argc)
        repeat = atoi (argv[++i]);
      else
        dir = argv[i];
    }
  if (dir == NULL || T < 1 || repeat < 1)
    {
      fprintf (stderr, "usage: bench-capture MODEL_DIR [--tokens T] [--repeat N]\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  if (model == NULL)
    {
      fprintf (stderr, "bench-capture: %s\n", error->message);
      return 1;
    }
  int V = as_model_get_config (model)->vocab_size;
  g_autofree int32_t *ids = g_new (int32_t, T);
  for (int i = 0; i < T; i++)
    ids[i] = (int32_t) (((gint64) i * 7919 + 13) % V);
  g_autofree float *a = g_new (float, V), *b = g_new (float, V);
  g_autofree double *with = g_new (double, repeat), *without = g_new (double, repeat);
  for (int r = 0; r < repeat; r++)
    {
      with[r] = timed_pass (model, ids, T, FALSE, a);
      without[r] = timed_pass (model, ids, T, TRUE, b);
      if (memcmp (a, b, sizeof (float) * V) != 0)
        {
          fprintf (stderr, "bench-capture: the logits differ with and without capture\n");
          return 1;
        }
    }
  double m1, n1, m2, n2;
  report ("capture", T, with, repeat, &m1, &n1);
  report ("logits-only", T, without, repeat, &m2, &n2);
  printf ("{\"what\": \"ratio\", \"T\": %d, \"median\": %.3f, \"min\": %.3f}\n", T, m1 / m2,
          n1 / n2);
  return 0;
}

/* bench-capture.c — what capturing the trace costs a forward pass (not a test).
 *
 * The same pass over T tokens (ids (i·7919 + 13) mod V) of a rotary decoder, REPEAT times each
 * way, alternating so that the machine's load falls on both alike:
 *   capture: the trace every view reads (the automatic choice: attention on demand past 1 GiB of
 *            matrices, contexts, hidden states, the last position's logits) — what `run` and the
 *            window make;
 *   logits:  AsForwardOptions.logits_only, nothing kept but the logits and hidden[L].
 * Two untimed passes first, one each way (the weights' pages warm, and the trace pool holding a
 * freed trace's arrays as in a window that runs pass after pass: trace-pool-private.h; a single
 * pass in a new process pays the first touch of its trace's memory), then the rounds in the
 * order capture, logits, logits, capture, ... (a drift of the load falls on both alike). The last
 * logits of both are compared (they must be the same bits: capturing never changes the
 * computation). Each pass is timed in wall time and in the process's CPU time (user + system of
 * every thread, getrusage), which a loaded machine disturbs far less: a pass that waits for a core
 * does not do more work. Prints one JSON object per line: {"what": ..., "T": ..., "median_ms":
 * ..., "min_ms": ..., "cpu_median_ms": ..., "cpu_min_ms": ...}, then the ratios, then the minor
 * page faults of one pass each way (the first touches of the memory a pass maps).
 *
 * usage: bench-capture MODEL_DIR [--tokens T] [--repeat N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "as-forward.h"
#include "as-model.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Minor page faults of the passes, each way: first touches of freshly mapped memory. */
static long faults_capture, faults_logits;

/* The process's CPU time so far, user + system, in ms; its minor page faults in *FAULTS. */
static double
cpu_ms (long *faults)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  *faults = u.ru_minflt;
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3
         + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static double
timed_pass (AsModel *model, const int32_t *ids, int T, gboolean logits_only, float *last,
            double *cpu)
{
  AsForwardOptions options = { .logits_only = logits_only };
  g_autoptr (GError) error = NULL;
  long f0, f1;
  double c0 = cpu_ms (&f0);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (AsTrace) trace = as_forward (model, ids, T, &options, &error);
  double ms = (g_get_monotonic_time () - t0) / 1000.0;
  *cpu = cpu_ms (&f1) - c0;
  *(logits_only ? &faults_logits : &faults_capture) += f1 - f0;
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

/* Sorts MS and CPU; their medians and minima into OUT [4]. */
static void
report (const char *what, int T, double *ms, double *cpu, int n, double out[4])
{
  qsort (ms, n, sizeof (double), cmp_double);
  qsort (cpu, n, sizeof (double), cmp_double);
  out[0] = ms[n / 2], out[1] = ms[0], out[2] = cpu[n / 2], out[3] = cpu[0];
  printf ("{\"what\": \"%s\", \"T\": %d, \"median_ms\": %.1f, \"min_ms\": %.1f, "
          "\"cpu_median_ms\": %.1f, \"cpu_min_ms\": %.1f}\n",
          what, T, out[0], out[1], out[2], out[3]);
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
  g_autofree double *with_cpu = g_new (double, repeat), *without_cpu = g_new (double, repeat);
  double warm;
  timed_pass (model, ids, T, FALSE, a, &warm);
  timed_pass (model, ids, T, TRUE, b, &warm);
  long warm_faults = faults_logits, warm_capture_faults = faults_capture;
  for (int r = 0; r < repeat; r++)
    {
      gboolean capture_first = r % 2 == 0;
      if (capture_first)
        with[r] = timed_pass (model, ids, T, FALSE, a, &with_cpu[r]);
      without[r] = timed_pass (model, ids, T, TRUE, b, &without_cpu[r]);
      if (!capture_first)
        with[r] = timed_pass (model, ids, T, FALSE, a, &with_cpu[r]);
      if (memcmp (a, b, sizeof (float) * V) != 0)
        {
          fprintf (stderr, "bench-capture: the logits differ with and without capture\n");
          return 1;
        }
    }
  double c[4], l[4];
  report ("capture", T, with, with_cpu, repeat, c);
  report ("logits-only", T, without, without_cpu, repeat, l);
  printf ("{\"what\": \"ratio\", \"T\": %d, \"median\": %.3f, \"min\": %.3f, \"cpu_median\": "
          "%.3f, \"cpu_min\": %.3f}\n",
          T, c[0] / l[0], c[1] / l[1], c[2] / l[2], c[3] / l[3]);
  printf ("{\"what\": \"minor page faults per pass\", \"T\": %d, \"capture\": %ld, "
          "\"logits-only\": %ld}\n",
          T, (faults_capture - warm_capture_faults) / repeat,
          (faults_logits - warm_faults) / repeat);
  return 0;
}

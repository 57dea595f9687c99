/* bench-load.c — what loading a model costs, step by step (the HDF5 child that reads untrusted
 * files must keep loading a 330 MB distilgpt2-shaped tf_model.h5 within 0.5 s).
 *
 * For the model folder given, REPEAT times each, in this process (warm page cache):
 *   model    as_model_load: config.json, tokenizer, the HDF5 child's listing, binding (mapping)
 *            and the NaN/Inf check of every weight — what `attnscope` waits for;
 *   listing  as_tensor_store_open_keras_h5 alone: fork, libhdf5 in the child, the records;
 *   weights  as_tensor_store_load_keras_h5: the listing plus every dataset fetched.
 * Prints one JSON line per step: min and median wall milliseconds, and the mean CPU milliseconds
 * (user + system) of this process and of the HDF5 children per run — on a shared machine the CPU
 * times say more than the wall times. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "as-model.h"
#include "tensor-store-private.h"

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* CPU seconds (user + system) of this process (RUSAGE_SELF) or its reaped children. */
static double
cpu_seconds (int who)
{
  struct rusage u;
  getrusage (who, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec
         + u.ru_stime.tv_usec / 1e6;
}

static void
report (const char *step, double *ms, int n, double self_cpu, double child_cpu)
{
  qsort (ms, n, sizeof *ms, compare_doubles);
  double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  printf ("{\"step\":\"%s\",\"repeat\":%d,\"min_ms\":%.1f,\"median_ms\":%.1f,"
          "\"self_cpu_ms\":%.1f,\"child_cpu_ms\":%.1f}\n",
          step, n, ms[0], median, self_cpu * 1000 / n, child_cpu * 1000 / n);
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: bench-load MODEL_DIR REPEAT\n");
      return 2;
    }
  int repeat = atoi (argv[2]);
  if (repeat < 1)
    return 2;
  g_autofree char *h5 = g_build_filename (argv[1], "tf_model.h5", NULL);
  g_autofree double *ms = g_new (double, repeat);
  g_autoptr (GError) error = NULL;
  for (int step = 0; step < 3; step++)
    {
      double self0 = cpu_seconds (RUSAGE_SELF), child0 = cpu_seconds (RUSAGE_CHILDREN);
      for (int r = 0; r < repeat; r++)
        {
          gint64 start = g_get_monotonic_time ();
          gboolean ok;
          if (step == 0)
            {
              AsModel *model = as_model_load (argv[1], &error);
              ok = model != NULL;
              as_model_unref (model);
            }
          else
            {
              AsTensorStore *store = step == 1 ? as_tensor_store_open_keras_h5 (h5, &error)
                                               : as_tensor_store_load_keras_h5 (h5, &error);
              ok = store != NULL;
              as_tensor_store_free (store);
            }
          ms[r] = (g_get_monotonic_time () - start) / 1000.0;
          if (!ok)
            {
              fprintf (stderr, "bench-load: %s\n", error->message);
              return 1;
            }
        }
      report (step == 0   ? "model"
              : step == 1 ? "listing"
                          : "weights",
              ms, repeat, cpu_seconds (RUSAGE_SELF) - self0,
              cpu_seconds (RUSAGE_CHILDREN) - child0);
    }
  return 0;
}

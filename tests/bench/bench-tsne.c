/* bench-tsne.c — times attnscope's PCA and t-SNE on one matrix (used by bench-tsne.sh).
 *
 * Reads dataset DATASET of an HDF5 file, runs PCA(2) REPEAT times and t-SNE once with the given
 * method, perplexity, iterations, seed and threads, and prints one JSON object:
 *   {"n":..., "d":..., "method":"exact", "pca_ms":..., "tsne_ms":..., "kl":..., "iterations":...}
 * (pca_ms is the median). With --out, the embedding is written as dataset "y" of an HDF5 file
 * so that the Python side can score it. Not a test: it asserts nothing. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "as-matrix-h5.h"
#include "as-pca.h"
#include "as-tsne.h"

static int last_iteration;

static void
on_progress (int iteration, int n_iter, double kl, const float *y, int n, gpointer user_data)
{
  last_iteration = iteration;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
  g_autofree char *input = NULL, *dataset = NULL, *method = NULL, *out = NULL;
  double perplexity = 30.0;
  int n_iter = 1000, threads = 2, pca_repeat = 5;
  gint64 seed = 0;
  GOptionEntry entries[] = {
    { "input", 0, 0, G_OPTION_ARG_FILENAME, &input, "HDF5 file", "FILE" },
    { "dataset", 0, 0, G_OPTION_ARG_STRING, &dataset, "dataset (default x)", "NAME" },
    { "method", 0, 0, G_OPTION_ARG_STRING, &method, "auto, exact or barnes_hut", "M" },
    { "perplexity", 0, 0, G_OPTION_ARG_DOUBLE, &perplexity, "perplexity (30)", "P" },
    { "n-iter", 0, 0, G_OPTION_ARG_INT, &n_iter, "iterations (1000)", "N" },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, "threads (2)", "T" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed (0)", "S" },
    { "pca-repeat", 0, 0, G_OPTION_ARG_INT, &pca_repeat, "PCA repetitions (5)", "R" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "write the embedding here", "FILE" },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- time PCA and t-SNE");
  g_option_context_add_main_entries (context, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error) || input == NULL)
    {
      fprintf (stderr, "bench-tsne: %s\n", error ? error->message : "--input is required");
      return 2;
    }

  int n = 0, d = 0;
  g_autofree float *x = as_matrix_h5_read (input, dataset ? dataset : "x", &n, &d, &error);
  if (x == NULL)
    {
      fprintf (stderr, "bench-tsne: %s\n", error->message);
      return 1;
    }

  g_autofree double *pca_ms = g_new (double, MAX (pca_repeat, 1));
  for (int r = 0; r < pca_repeat; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr (AsPca) pca = as_pca_fit (x, n, d, 2, &error);
      pca_ms[r] = (g_get_monotonic_time () - t0) / 1000.0;
      if (pca == NULL)
        {
          fprintf (stderr, "bench-tsne: %s\n", error->message);
          return 1;
        }
    }
  qsort (pca_ms, pca_repeat, sizeof (double), compare_double);

  AsTsneOptions options;
  as_tsne_options_init (&options);
  options.perplexity = perplexity;
  options.n_iter = n_iter;
  options.n_threads = threads;
  options.seed = (guint64) seed;
  options.progress = on_progress;
  if (g_strcmp0 (method, "exact") == 0)
    options.method = AS_TSNE_METHOD_EXACT;
  else if (g_strcmp0 (method, "barnes_hut") == 0)
    options.method = AS_TSNE_METHOD_BARNES_HUT;
  g_autofree float *y = g_new (float, 2 * (gsize) n);
  double kl = 0.0;
  gint64 t0 = g_get_monotonic_time ();
  if (!as_tsne_run (y, &kl, x, n, d, &options, &error))
    {
      fprintf (stderr, "bench-tsne: %s\n", error->message);
      return 1;
    }
  double tsne_ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (out != NULL && !as_matrix_h5_write (out, "y", y, n, 2, &error))
    {
      fprintf (stderr, "bench-tsne: %s\n", error->message);
      return 1;
    }
  AsTsneMethod used = as_tsne_method_for (options.method, n);
  printf ("{\"n\": %d, \"d\": %d, \"method\": \"%s\", \"pca_ms\": %.3f, \"tsne_ms\": %.3f, "
          "\"kl\": %.6f, \"iterations\": %d}\n",
          n, d, used == AS_TSNE_METHOD_EXACT ? "exact" : "barnes_hut",
          pca_repeat > 0 ? pca_ms[pca_repeat / 2] : 0.0, tsne_ms, kl, last_iteration);
  return 0;
}

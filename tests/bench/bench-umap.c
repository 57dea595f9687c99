/* bench-umap.c — times attnscope's UMAP on one matrix (used by bench-umap.sh).
 *
 * Reads dataset DATASET of an HDF5 file, runs UMAP once with the given options and prints one
 * JSON object:
 *   {"n":..., "d":..., "umap_ms":..., "epochs":..., "edges":..., "components":...,
 *    "init":"spectral", "a":..., "b":...}
 * With --out the embedding is written as dataset "y" of an HDF5 file (for scoring). Not a test:
 * it asserts nothing. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "as-matrix-h5.h"
#include "as-umap.h"

int
main (int argc, char **argv)
{
  g_autofree char *input = NULL, *dataset = NULL, *metric = NULL, *init = NULL, *out = NULL;
  AsUmapOptions o;
  as_umap_options_init (&o);
  gint64 seed = 0;
  GOptionEntry entries[] = {
    { "input", 0, 0, G_OPTION_ARG_FILENAME, &input, "HDF5 file", "FILE" },
    { "dataset", 0, 0, G_OPTION_ARG_STRING, &dataset, "dataset (default x)", "NAME" },
    { "neighbors", 0, 0, G_OPTION_ARG_INT, &o.n_neighbors, "n_neighbors (15)", "K" },
    { "min-dist", 0, 0, G_OPTION_ARG_DOUBLE, &o.min_dist, "min_dist (0.1)", "M" },
    { "epochs", 0, 0, G_OPTION_ARG_INT, &o.n_epochs, "epochs (0 = auto)", "N" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &metric, "euclidean or cosine", "M" },
    { "init", 0, 0, G_OPTION_ARG_STRING, &init, "spectral or random", "I" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "seed (0)", "S" },
    { "threads", 0, 0, G_OPTION_ARG_INT, &o.n_threads, "threads (0 = all)", "T" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "write the embedding here (HDF5, dataset y)",
      "FILE" },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- time attnscope's UMAP");
  g_option_context_add_main_entries (context, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error) || input == NULL)
    {
      fprintf (stderr, "bench-umap: %s\n", error != NULL ? error->message : "--input is required");
      return 2;
    }
  o.seed = (guint64) seed;
  o.metric = g_strcmp0 (metric, "cosine") == 0 ? AS_UMAP_METRIC_COSINE : AS_UMAP_METRIC_EUCLIDEAN;
  o.init = g_strcmp0 (init, "random") == 0 ? AS_UMAP_INIT_RANDOM : AS_UMAP_INIT_SPECTRAL;

  int n = 0, d = 0;
  g_autofree float *x = as_matrix_h5_read (input, dataset != NULL ? dataset : "x", &n, &d, &error);
  if (x == NULL)
    {
      fprintf (stderr, "bench-umap: %s\n", error->message);
      return 1;
    }
  g_autofree float *y = g_new (float, 2 * (gsize) n);
  AsUmapInfo info;
  gint64 t0 = g_get_monotonic_time ();
  if (!as_umap_run (y, &info, x, n, d, &o, &error))
    {
      fprintf (stderr, "bench-umap: %s\n", error->message);
      return 1;
    }
  double ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (out != NULL && !as_matrix_h5_write (out, "y", y, n, 2, &error))
    {
      fprintf (stderr, "bench-umap: %s\n", error->message);
      return 1;
    }
  printf ("{\"n\": %d, \"d\": %d, \"umap_ms\": %.1f, \"epochs\": %d, \"edges\": %" G_GINT64_FORMAT
          ", \"components\": %d, \"init\": \"%s\", \"a\": %.9g, \"b\": %.9g}\n",
          n, d, ms, info.n_epochs, info.n_edges, info.n_graph_components,
          info.init == AS_UMAP_INIT_SPECTRAL ? "spectral" : "random", info.a, info.b);
  return 0;
}

/* bench-attention-tiles.c — what a view of a long text costs with the attention computed on demand
 * (tests/bench/bench-attention-tiles.sh runs it; not a test).
 *
 * One forward pass over T tokens (ids 0..T−1 spread over the vocabulary) with the trace on demand,
 * then, for one head of the middle layer, REPEAT times each:
 *   tile-first, tile-diagonal, tile-last: a 512 × 512 tile (as_trace_attention_tile) at the top
 *     left, on the diagonal in the middle, and at the bottom right (the last queries, which see
 *     every key: the dearest);
 *   pool-max, pool-mean: the whole head pooled into at most 1024 × 1024 blocks
 *     (as_trace_attention_pool, ATTNSCOPE_THREADS threads).
 * Prints one JSON object per line: {"what": "...", "T": ..., "median_ms": ..., "max_ms": ...},
 * after one for the pass.
 *
 * usage: bench-attention-tiles MODEL_DIR [--tokens T] [--repeat N] [--layer L] [--head H] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "as-attention-pool.h"
#include "as-forward.h"
#include "as-model.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
report (const char *what, int T, double *ms, int n)
{
  qsort (ms, n, sizeof (double), cmp_double);
  printf ("{\"what\": \"%s\", \"T\": %d, \"median_ms\": %.3f, \"max_ms\": %.3f}\n", what, T,
          ms[n / 2], ms[n - 1]);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  int T = 8192, repeat = 5, layer = -1, head = 0;
  const char *dir = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--tokens") && i + 1 < argc)
        T = atoi (argv[++i]);
      else if (g_str_equal (argv[i], "--repeat") && i + 1 < argc)
        repeat = atoi (argv[++i]);
      else if (g_str_equal (argv[i], "--layer") && i + 1 < argc)
        layer = atoi (argv[++i]);
      else if (g_str_equal (argv[i], "--head") && i + 1 < argc)
        head = atoi (argv[++i]);
      else if (dir == NULL && argv[i][0] != '-')
        dir = argv[i];
      else
        {
          fprintf (stderr, "usage: %s MODEL_DIR [--tokens T] [--repeat N] [--layer L] [--head H]\n",
                   argv[0]);
          return 2;
        }
    }
  repeat = MAX (1, repeat);
  if (dir == NULL || T < 512)
    {
      fprintf (stderr, "%s: a model folder and at least 512 tokens are needed\n", argv[0]);
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  if (model == NULL)
    {
      fprintf (stderr, "%s: %s\n", argv[0], error->message);
      return 1;
    }
  int V = as_model_get_config (model)->vocab_size;
  g_autofree int32_t *ids = g_new (int32_t, T);
  for (int t = 0; t < T; t++)
    ids[t] = (int32_t) (((gint64) t * 7919 + 13) % V);
  AsForwardOptions options = { .attention = AS_ATTENTION_ON_DEMAND };
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (AsTrace) trace = as_forward (model, ids, T, &options, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "%s: %s\n", argv[0], error->message);
      return 1;
    }
  printf ("{\"what\": \"forward\", \"T\": %d, \"ms\": %.1f, \"threads\": %d}\n", T,
          (g_get_monotonic_time () - t0) / 1e3, as_forward_threads ());
  fflush (stdout);
  if (layer < 0)
    layer = trace->n_layer / 2;

  g_autofree float *tile = g_new (float, 512 * 512);
  g_autofree double *ms = g_new (double, repeat);
  const struct
  {
    const char *what;
    int row0, col0;
  } tiles[] = {
    { "tile-first", 0, 0 },
    { "tile-diagonal", T / 2 - 256, T / 2 - 256 },
    { "tile-last", T - 512, T - 512 },
  };
  for (guint c = 0; c < G_N_ELEMENTS (tiles); c++)
    {
      for (int r = 0; r < repeat; r++)
        {
          gint64 s = g_get_monotonic_time ();
          as_trace_attention_tile (trace, layer, head, tiles[c].row0, 512, tiles[c].col0, 512, tile,
                                   512);
          ms[r] = (g_get_monotonic_time () - s) / 1e3;
        }
      report (tiles[c].what, T, ms, repeat);
    }
  int k = as_pool_factor (T, 1024), P = as_pool_size (T, k);
  g_autofree float *pooled = g_new (float, (gsize) P *P);
  for (AsPool pool = AS_POOL_MAX; pool <= AS_POOL_MEAN; pool++)
    {
      for (int r = 0; r < repeat; r++)
        {
          gint64 s = g_get_monotonic_time ();
          as_trace_attention_pool (pooled, trace, layer, head, k, pool, 0, NULL);
          ms[r] = (g_get_monotonic_time () - s) / 1e3;
        }
      report (pool == AS_POOL_MAX ? "pool-max" : "pool-mean", T, ms, repeat);
    }
  return 0;
}

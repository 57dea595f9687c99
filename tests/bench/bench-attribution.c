/* bench-attribution.c — the time of "why this prediction" for one text: a forward pass that
 * keeps q, k and v, then direct logit attribution at the last position, the attention norms of
 * every head, the query–key view of one head and the logit lens of every hidden state at every
 * position (top 5), repeated; prints the median and the minimum of
 * each step and of the whole in milliseconds as one JSON line (bench-attribution.sh).
 *
 * usage: bench-attribution MODEL_DIR T REPEAT */
#include <stdio.h>
#include <stdlib.h>

#include "as-attention-norms.h"
#include "as-attribution.h"
#include "as-forward.h"
#include "as-lens.h"
#include "as-model.h"
#include "as-qk.h"
#include "bench-median.h"

#define N_STEPS 5

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: bench-attribution MODEL_DIR T REPEAT\n");
      return 2;
    }
  int T = atoi (argv[2]), repeat = atoi (argv[3]);
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (argv[1], &error);
  if (model == NULL || T < 2 || repeat < 1)
    {
      fprintf (stderr, "bench-attribution: %s\n", error != NULL ? error->message : "bad sizes");
      return 1;
    }
  g_autofree int32_t *ids = g_new (int32_t, T);
  for (int t = 0; t < T; t++)
    ids[t] = (int32_t) ((t * 7919 + 13) % 50000);
  g_autofree int *positions = g_new (int, T);
  for (int t = 0; t < T; t++)
    positions[t] = t;
  g_autofree double *ms = g_new0 (double, (gsize) (repeat + 1) * (N_STEPS + 1));
  AsForwardOptions options = { .capture_qkv = TRUE };
  for (int r = 0; r <= repeat; r++) /* the first is a warm-up */
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr (AsTrace) trace = as_forward (model, ids, T, &options, &error);
      gint64 t1 = g_get_monotonic_time ();
      g_autoptr (AsAttribution) at
          = trace != NULL ? as_attribution_compute (model, trace, T - 1, 42, 17, &error) : NULL;
      gint64 t2 = g_get_monotonic_time ();
      g_autoptr (AsAttentionNorms) norms
          = at != NULL ? as_attention_norms_compute (model, trace, NULL, &error) : NULL;
      gint64 t3 = g_get_monotonic_time ();
      g_autoptr (AsQk) qk
          = norms != NULL ? as_qk_compute (model, trace, 3, 5, T - 1, &error) : NULL;
      gint64 t4 = g_get_monotonic_time ();
      AsLens *lens
          = qk != NULL ? as_lens_compute (model, trace, positions, T, 5, -1, NULL, &error) : NULL;
      gint64 t5 = g_get_monotonic_time ();
      if (lens == NULL)
        {
          fprintf (stderr, "bench-attribution: %s\n", error->message);
          return 1;
        }
      as_lens_free (lens);
      gint64 marks[] = { t0, t1, t2, t3, t4, t5 };
      for (int s = 0; s < N_STEPS; s++)
        ms[(gsize) r * (N_STEPS + 1) + s] = (marks[s + 1] - marks[s]) / 1000.0;
      ms[(gsize) r * (N_STEPS + 1) + N_STEPS] = (t5 - t0) / 1000.0;
    }
  const char *names[] = { "forward", "attribution", "norms", "qk", "lens", "total" };
  printf ("{");
  for (int s = 0; s <= N_STEPS; s++)
    {
      g_autofree double *v = g_new (double, repeat);
      for (int r = 0; r < repeat; r++)
        v[r] = ms[(gsize) (r + 1) * (N_STEPS + 1) + s];
      double median = bench_sort_median (v, repeat);
      printf ("%s\"%s\":{\"median_ms\":%.3f,\"min_ms\":%.3f}", s > 0 ? "," : "", names[s], median,
              v[0]);
    }
  printf ("}\n");
  return 0;
}

/* cross-stats.c — statistics of cross-attention heads (as-cross-stats.h). */
#include "as-cross-stats.h"

#include <math.h>

#include "as-error.h"

static const char *const kind_names[AS_CROSS_STAT_COUNT] = { "entropy", "eos", "max", "diagonal" };

const char *
as_cross_stat_kind_to_string (AsCrossStatKind kind)
{
  g_return_val_if_fail (kind < AS_CROSS_STAT_COUNT, NULL);
  return kind_names[kind];
}

void
as_cross_stats_of_matrix (double *out, const float *attn, int n_target, int n_source)
{
  double entropy = 0, eos = 0, max = 0, diagonal = 0;
  for (int i = 0; i < n_target; i++)
    {
      const float *row = attn + (gsize) i * n_source;
      int centre = n_target > 1 ? (int) lround ((double) i * (n_source - 1) / (n_target - 1)) : 0;
      double h = 0, top = 0;
      for (int j = 0; j < n_source; j++)
        {
          double p = row[j];
          if (p > 0)
            h -= p * log (p);
          top = MAX (top, p);
          if (ABS (j - centre) <= 1)
            diagonal += p;
        }
      entropy += n_source > 1 ? h / log (n_source) : NAN;
      eos += row[n_source - 1];
      max += top;
    }
  out[AS_CROSS_STAT_ENTROPY] = entropy / n_target;
  out[AS_CROSS_STAT_EOS] = eos / n_target;
  out[AS_CROSS_STAT_MAX] = max / n_target;
  out[AS_CROSS_STAT_DIAGONAL] = diagonal / n_target;
}

static const char *
classify (const double *v)
{
  if (v[AS_CROSS_STAT_EOS] >= 0.5)
    return "eos";
  if (v[AS_CROSS_STAT_DIAGONAL] >= 0.5)
    return "diagonal";
  if (v[AS_CROSS_STAT_MAX] >= 0.5)
    return "focused";
  if (v[AS_CROSS_STAT_ENTROPY] >= 0.9)
    return "broad";
  return "mixed";
}

AsCrossStats *
as_cross_stats_new (void)
{
  return g_new0 (AsCrossStats, 1);
}

void
as_cross_stats_free (AsCrossStats *stats)
{
  if (stats == NULL)
    return;
  g_free (stats->values);
  g_free (stats->labels);
  g_free (stats->defined);
  g_free (stats);
}

gboolean
as_cross_stats_add (AsCrossStats *stats, const AsTrace *trace, GError **error)
{
  g_return_val_if_fail (stats != NULL && trace != NULL && stats->labels == NULL, FALSE);
  if (trace->source == NULL || trace->cross_attn == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "cross-attention statistics need a translation (encoder–decoder) model");
      return FALSE;
    }
  int L = trace->n_layer, H = trace->n_head;
  if (stats->n_traces == 0)
    {
      stats->n_layer = L;
      stats->n_head = H;
      stats->values = g_new0 (double, (gsize) L *H *AS_CROSS_STAT_COUNT);
      stats->defined = g_new0 (int, (gsize) L *H *AS_CROSS_STAT_COUNT);
    }
  else if (L != stats->n_layer || H != stats->n_head)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "sentence %d has %d layers x %d heads, the first %d x %d", stats->n_traces + 1,
                   L, H, stats->n_layer, stats->n_head);
      return FALSE;
    }
  for (int e = 0; e < L * H; e++)
    {
      double one[AS_CROSS_STAT_COUNT];
      as_cross_stats_of_matrix (one, as_trace_cross_attn (trace, e / H, e % H), trace->n_tokens,
                                trace->source->n_tokens);
      for (int k = 0; k < AS_CROSS_STAT_COUNT; k++)
        if (!isnan (one[k]))
          {
            stats->values[(gsize) e * AS_CROSS_STAT_COUNT + k] += one[k];
            stats->defined[(gsize) e * AS_CROSS_STAT_COUNT + k]++;
          }
    }
  stats->n_traces++;
  return TRUE;
}

gboolean
as_cross_stats_finish (AsCrossStats *stats, GError **error)
{
  g_return_val_if_fail (stats != NULL && stats->labels == NULL, FALSE);
  if (stats->n_traces == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "no sentences to compute statistics over");
      return FALSE;
    }
  int n = stats->n_layer * stats->n_head;
  stats->labels = g_new0 (const char *, n);
  for (int i = 0; i < n * AS_CROSS_STAT_COUNT; i++)
    stats->values[i] = stats->defined[i] > 0 ? stats->values[i] / stats->defined[i] : NAN;
  for (int e = 0; e < n; e++)
    stats->labels[e] = classify (stats->values + (gsize) e * AS_CROSS_STAT_COUNT);
  return TRUE;
}

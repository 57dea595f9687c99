/* attnscope-cross.c — a translation trace's cross-attention results (see attnscope-cross.h). */
#include "attnscope-cross.h"

#include "as-attention-ranges.h"
#include "as-rollout.h"

struct _AttnscopeCross
{
  AsTrace *trace;
  float *mean_heads; /* [L][T][S] */
  double *ranges;    /* [2 + 2·L·H] */
  AsCrossStats *stats;
  gint ref_count;
};

AttnscopeCross *
attnscope_cross_new (AsTrace *trace)
{
  g_return_val_if_fail (trace != NULL && trace->cross_attn != NULL, NULL);
  AttnscopeCross *cross = g_new0 (AttnscopeCross, 1);
  cross->ref_count = 1;
  cross->trace = as_trace_ref (trace);
  cross->mean_heads = as_trace_cross_mean_heads (trace);
  cross->ranges = as_trace_cross_attention_ranges (trace);
  cross->stats = as_cross_stats_new ();
  /* cannot fail: the trace has cross-attention */
  if (!as_cross_stats_add (cross->stats, trace, NULL)
      || !as_cross_stats_finish (cross->stats, NULL))
    g_clear_pointer (&cross->stats, as_cross_stats_free);
  return cross;
}

AttnscopeCross *
attnscope_cross_ref (AttnscopeCross *cross)
{
  g_atomic_int_inc (&cross->ref_count);
  return cross;
}

void
attnscope_cross_unref (AttnscopeCross *cross)
{
  if (cross == NULL || !g_atomic_int_dec_and_test (&cross->ref_count))
    return;
  as_trace_unref (cross->trace);
  g_free (cross->mean_heads);
  g_free (cross->ranges);
  g_clear_pointer (&cross->stats, as_cross_stats_free);
  g_free (cross);
}

AsTrace *
attnscope_cross_get_trace (const AttnscopeCross *cross)
{
  return cross->trace;
}

void
attnscope_cross_get_attention (const AttnscopeCross *cross, ArCrossAttention *attention)
{
  *attention = (ArCrossAttention){ .trace = cross->trace,
                                   .mean_heads = cross->mean_heads,
                                   .range = cross->ranges,
                                   .head_ranges = cross->ranges + 2 };
}

const AsCrossStats *
attnscope_cross_get_stats (const AttnscopeCross *cross)
{
  return cross->stats;
}

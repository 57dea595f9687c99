/* attnscope-analysis-long.c — the analysis jobs of a long text whose trace computes attention on
 * demand (attnscope-analysis-private.h): a head pooled for the heatmap, and one layer's mean over
 * heads or rollout, computed from tiles with progress and the job's cancellable. */
#include "attnscope-analysis-private.h"

#include "as-attention-pool.h"
#include "as-rollout-long.h"

gpointer
attnscope_analysis_compute_overview (Job *job)
{
  int P = as_pool_size (job->trace->n_tokens, job->k);
  g_autofree float *out = g_new (float, (gsize) P *P); /* [P][P] */
  if (!as_trace_attention_pool (out, job->trace, job->layer, job->head, job->k,
                                job->pool_mean ? AS_POOL_MEAN : AS_POOL_MAX, 0, job->cancellable))
    return NULL;
  return g_steal_pointer (&out);
}

/* A long text's mean over the heads of JOB's layer, [T][T], from tiles of ROW_BLOCK query rows
 * (as-rollout-long.h: the same bits as as_trace_mean_heads' layer); NULL when cancelled. */
static gpointer
compute_mean_layer (Job *job)
{
  enum
  {
    ROW_BLOCK = 64
  };
  const AsTrace *t = job->trace;
  int T = t->n_tokens;
  g_autofree float *out = g_new (float, (gsize) T *T); /* [T][T] */
  g_atomic_int_set (&job->total, (T + ROW_BLOCK - 1) / ROW_BLOCK);
  for (int r0 = 0; r0 < T; r0 += ROW_BLOCK)
    {
      if (g_cancellable_is_cancelled (job->cancellable))
        return NULL;
      as_trace_mean_heads_tile (t, job->layer, r0, MIN (ROW_BLOCK, T - r0), 0, T,
                                out + (gsize) r0 * T, T);
      g_atomic_int_inc (&job->done);
    }
  return g_steal_pointer (&out);
}

static void
rollout_progress (int done, int total, gpointer user_data)
{
  Job *job = user_data;
  g_atomic_int_set (&job->total, total);
  g_atomic_int_set (&job->done, done);
}

/* Seconds a long text's rollout may take before the window refuses it (as_rollout_check);
 * $ATTNSCOPE_ROLLOUT_MAX_SECONDS sets another limit. */
static double
rollout_max_seconds (void)
{
  const char *env = g_getenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS");
  return env != NULL && *env != '\0' ? g_ascii_strtod (env, NULL) : 120.0;
}

/* A long text's rollout through JOB's layer, [T][T] (as_trace_rollout_layer, with progress and
 * JOB's cancellable); NULL with ERROR when as_rollout_check refuses it, or when cancelled. */
static gpointer
compute_rollout_layer (Job *job, GError **error)
{
  const AsTrace *t = job->trace;
  if (!as_rollout_check (t->n_tokens, job->layer, rollout_max_seconds (), error))
    return NULL;
  AsRolloutOptions options = { job->cancellable, rollout_progress, job };
  g_autofree float *out = g_new (float, (gsize) t->n_tokens * t->n_tokens); /* [T][T] */
  g_autoptr (GError) local = NULL;
  if (!as_trace_rollout_layer (t, job->layer, &options, out, &local))
    {
      if (!g_cancellable_is_cancelled (job->cancellable))
        g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  return g_steal_pointer (&out);
}

/* One layer's [T][T] MATRIX (taken) as the bytes figures share (ArAttention.layer_values), or
 * NULL when there is none. */
static GBytes *
layer_bytes (Job *job, float *matrix)
{
  if (matrix == NULL)
    return NULL;
  job->free_value = (GDestroyNotify) g_bytes_unref;
  gsize n = (gsize) job->trace->n_tokens * job->trace->n_tokens;
  return g_bytes_new_take (matrix, n * sizeof (float));
}

GBytes *
attnscope_analysis_compute_layer (Job *job, GError **error)
{
  gboolean mean = job->kind == ATTNSCOPE_RESULT_MEAN_HEADS;
  return layer_bytes (job, mean ? compute_mean_layer (job) : compute_rollout_layer (job, error));
}

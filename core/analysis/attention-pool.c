/* attention-pool.c — a head's attention pooled in blocks of K × K entries (as-attention-pool.h).
 *
 * Rows are read through as_trace_attention_tile() in runs that follow the pass's blocks of 64
 * query rows (a run that straddled two would score both blocks), and each row is folded into the
 * pooled row it belongs to: the maximum, or a sum in double divided at the end. A causal trace's
 * row i has nothing past key i, so only keys 0 .. i are asked for. Threads share whole pooled
 * rows, each folded in row order: the result does not depend on their number. */
#include "as-attention-pool.h"

#include <string.h>

#include "as-forward.h"
#include "attention-private.h"
#include "worker-team-private.h"

int
as_pool_factor (int n, int max_cells)
{
  g_return_val_if_fail (max_cells >= 1, 1);
  return n <= max_cells ? 1 : (n + max_cells - 1) / max_cells;
}

/* Folds ROW [N] into the pooled row ACC_MAX or ACC_SUM [⌈N/K⌉] (one of them). */
static void
fold_row (float *acc_max, double *acc_sum, const float *row, int n, int k)
{
  for (int j0 = 0, p = 0; j0 < n; j0 += k, p++)
    {
      int j1 = MIN (n, j0 + k);
      if (acc_max != NULL)
        {
          float m = acc_max[p];
          for (int j = j0; j < j1; j++)
            m = row[j] > m ? row[j] : m;
          acc_max[p] = m;
        }
      else
        {
          double s = 0;
          for (int j = j0; j < j1; j++)
            s += row[j];
          acc_sum[p] += s;
        }
    }
}

void
as_trace_attention_pool_rows (float *out, const AsTrace *t, int layer, int head, int k, AsPool pool,
                              int prow0, int n_prows)
{
  int T = t->n_tokens, P = as_pool_size (T, k);
  g_return_if_fail (k >= 1 && prow0 >= 0 && n_prows >= 0 && prow0 + n_prows <= P);
  int r0 = prow0 * k, r1 = MIN (T, (prow0 + n_prows) * k);
  g_autofree float *rows = g_new (float, (gsize) AS_ATTENTION_ROW_BLOCK *T); /* [64][T] */
  g_autofree double *sums = pool == AS_POOL_MEAN ? g_new0 (double, (gsize) n_prows *P) : NULL;
  if (pool == AS_POOL_MAX)
    memset (out, 0, sizeof (float) * n_prows * P); /* attention is ≥ 0 */
  for (int c0 = r0; c0 < r1;)
    {
      int c1 = MIN (r1, (c0 / AS_ATTENTION_ROW_BLOCK + 1) * AS_ATTENTION_ROW_BLOCK);
      int n_cols = t->causal ? c1 : T; /* a causal row i holds nothing past key i */
      as_trace_attention_tile (t, layer, head, c0, c1 - c0, 0, n_cols, rows, T);
      for (int i = c0; i < c1; i++)
        {
          gsize p = (gsize) (i / k - prow0) * P;
          int n = t->causal ? i + 1 : T;
          fold_row (sums == NULL ? out + p : NULL, sums == NULL ? NULL : sums + p,
                    rows + (gsize) (i - c0) * T, n, k);
        }
      c0 = c1;
    }
  if (sums == NULL)
    return;
  for (int pi = 0; pi < n_prows; pi++)
    {
      int h = MIN (T, (prow0 + pi + 1) * k) - (prow0 + pi) * k;
      for (int pj = 0; pj < P; pj++)
        {
          int w = MIN (T, (pj + 1) * k) - pj * k;
          out[(gsize) pi * P + pj] = (float) (sums[(gsize) pi * P + pj] / ((double) h * w));
        }
    }
}

typedef struct
{
  float *out;
  const AsTrace *t;
  int layer, head, k, rows_per_block, P;
  AsPool pool;
  GCancellable *cancellable;
} PoolJob;

static void
pool_block (gpointer data, int block)
{
  PoolJob *job = data;
  if (g_cancellable_is_cancelled (job->cancellable))
    return;
  int prow0 = block * job->rows_per_block, n = MIN (job->rows_per_block, job->P - prow0);
  as_trace_attention_pool_rows (job->out + (gsize) prow0 * job->P, job->t, job->layer, job->head,
                                job->k, job->pool, prow0, n);
}

gboolean
as_trace_attention_pool (float *out, const AsTrace *t, int layer, int head, int k, AsPool pool,
                         int n_threads, GCancellable *cancellable)
{
  g_return_val_if_fail (k >= 1, FALSE);
  int P = as_pool_size (t->n_tokens, k);
  /* about 64 query rows a block: one of the pass's products each */
  PoolJob job
      = { out, t, layer, head, k, MAX (1, AS_ATTENTION_ROW_BLOCK / k), P, pool, cancellable };
  int n_blocks = (P + job.rows_per_block - 1) / job.rows_per_block;
  if (n_threads <= 0)
    n_threads = as_forward_threads ();
  g_autoptr (AsWorkerTeam) team
      = n_threads > 1 && n_blocks > 1 ? as_worker_team_new (MIN (n_threads, n_blocks)) : NULL;
  as_worker_team_run_blocks (team, n_blocks, pool_block, &job);
  return !g_cancellable_is_cancelled (cancellable);
}

void
as_matrix_pool (float *out, const float *matrix, int n_rows, int n_cols, int k, AsPool pool)
{
  g_return_if_fail (k >= 1);
  int P = as_pool_size (n_rows, k), Q = as_pool_size (n_cols, k);
  g_autofree double *sums = pool == AS_POOL_MEAN ? g_new0 (double, Q) : NULL;
  for (int pi = 0; pi < P; pi++)
    {
      float *o = out + (gsize) pi * Q;
      int i0 = pi * k, i1 = MIN (n_rows, i0 + k);
      if (sums != NULL)
        memset (sums, 0, sizeof (double) * Q);
      else
        for (int pj = 0; pj < Q; pj++)
          o[pj] = -G_MAXFLOAT;
      for (int i = i0; i < i1; i++)
        fold_row (sums == NULL ? o : NULL, sums, matrix + (gsize) i * n_cols, n_cols, k);
      if (sums != NULL)
        for (int pj = 0; pj < Q; pj++)
          o[pj] = (float) (sums[pj] / ((double) (i1 - i0) * (MIN (n_cols, (pj + 1) * k) - pj * k)));
    }
}

/* tsne-affinity.c — the input-space affinities P of t-SNE.
 *
 * Squared distances come from the blocked matrix products of knn-private.h. Each point's
 * conditional Gaussian is tuned to the perplexity by a safeguarded Newton search on its precision
 * β: the entropy H(β) decreases with dH/dβ = −β·Var_P(d²), so Newton converges in a few steps where
 * sklearn's bisection takes dozens; the bracket keeps it safe. The exact method keeps all pairs
 * (dense P), Barnes-Hut keeps the k nearest neighbours of each point (found exactly from the same
 * distance blocks) and symmetrises them into a sparse P. */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "tsne-private.h"

#define ENTROPY_TOLERANCE 1e-5
#define MAX_STEPS 100

/* Entropy (nats) of p_j ∝ exp(−β·s_j) over the M shifted distances S; fills W [m] with
 * unnormalised weights and *VAR with Var_P(s). */
static double
row_entropy (double *w, const double *s, int m, double beta, double *var)
{
  double sum = 0.0, mean = 0.0, sq = 0.0;
  for (int j = 0; j < m; j++)
    {
      w[j] = exp (-beta * s[j]);
      sum += w[j];
      mean += w[j] * s[j];
      sq += w[j] * s[j] * s[j];
    }
  mean /= sum;
  *var = fmax (sq / sum - mean * mean, 0.0);
  return log (sum) + beta * mean;
}

double
as_tsne_conditional_row (float *p_out, const float *d2, int m, int skip, double perplexity)
{
  int count = m - (skip >= 0 ? 1 : 0);
  if (count <= 0)
    {
      if (skip >= 0)
        p_out[skip] = 0.0f;
      return 0.0;
    }
  g_autofree double *s = g_new (double, count); /* [count] shifted squared distances */
  g_autofree double *w = g_new (double, count); /* [count] unnormalised probabilities */
  double smin = INFINITY, smean = 0.0;
  for (int j = 0, c = 0; j < m; j++)
    if (j != skip)
      {
        s[c] = d2[j];
        smin = fmin (smin, s[c++]);
      }
  for (int c = 0; c < count; c++)
    {
      s[c] -= smin; /* shifting leaves P unchanged and keeps exp() from underflowing */
      smean += s[c];
    }
  smean /= count;

  double target = log (perplexity);
  double beta = smean > 0 ? 1.0 / smean : 1.0;
  double lo = 0.0, hi = INFINITY, var = 0.0;
  for (int step = 0; step < MAX_STEPS; step++)
    {
      double h = row_entropy (w, s, count, beta, &var);
      double diff = h - target;
      if (fabs (diff) <= ENTROPY_TOLERANCE)
        break;
      if (diff > 0)
        lo = beta; /* too flat: sharpen */
      else
        hi = beta;
      double next = var > 0 ? beta + diff / (beta * var) : -1.0;
      if (!(next > lo && next < hi))
        next = isinf (hi) ? beta * 2.0 : (lo + hi) / 2.0;
      beta = next;
    }
  row_entropy (w, s, count, beta, &var);

  double sum = 0.0;
  for (int c = 0; c < count; c++)
    sum += w[c];
  for (int j = 0, c = 0; j < m; j++)
    p_out[j] = j == skip ? 0.0f : (float) (w[c++] / sum);
  return beta;
}

/* ---- dense P (exact method) ---- */

typedef struct
{
  float *p; /* [n][n] */
  int n;
  double perplexity;
  AsWorkerTeam *team;
  GCancellable *cancellable;
  const float *dist; /* [rows][n] of the current block */
  int row0, rows;
} DenseJob;

static void
dense_rows (gpointer data, int index, int n_workers)
{
  DenseJob *job = data;
  int begin, end;
  as_worker_split (job->rows, index, n_workers, &begin, &end);
  for (int r = begin; r < end; r++)
    {
      int i = job->row0 + r;
      as_tsne_conditional_row (job->p + (gsize) i * job->n, job->dist + (gsize) r * job->n, job->n,
                               i, job->perplexity);
    }
}

static gboolean
dense_block (const float *dist, int row0, int rows, gpointer data)
{
  DenseJob *job = data;
  job->dist = dist;
  job->row0 = row0;
  job->rows = rows;
  as_worker_team_run (job->team, dense_rows, job);
  return !g_cancellable_is_cancelled (job->cancellable);
}

gboolean
as_tsne_affinities_dense (float *p, const float *x, int n, int d, double perplexity,
                          AsWorkerTeam *team, GCancellable *cancellable, GError **error)
{
  DenseJob job = { p, n, perplexity, team, cancellable, NULL, 0, 0 };
  if (!as_knn_distance_blocks (x, n, d, team, dense_block, &job, "t-SNE", error))
    return FALSE;
  double sum = 0.0;
  for (gsize i = 0; i < (gsize) n; i++)
    for (gsize j = i + 1; j < (gsize) n; j++)
      sum += 2.0 * ((double) p[i * n + j] + p[j * n + i]);
  sum = fmax (sum, TSNE_P_FLOOR);
  for (gsize i = 0; i < (gsize) n; i++)
    for (gsize j = i + 1; j < (gsize) n; j++)
      {
        double v = fmax (((double) p[i * n + j] + p[j * n + i]) / sum, TSNE_P_FLOOR);
        p[i * n + j] = p[j * n + i] = (float) v;
      }
  return TRUE;
}

/* ---- sparse P (Barnes-Hut) ---- */

typedef struct
{
  int k;
  double perplexity;
  const float *d2; /* [n][k] squared distances to the neighbours */
  float *cond;     /* [n][k] P_j|i on those neighbours */
  int n;
} SparseJob;

static void
sparse_rows (gpointer data, int index, int n_workers)
{
  SparseJob *job = data;
  int begin, end;
  as_worker_split (job->n, index, n_workers, &begin, &end);
  for (int i = begin; i < end; i++)
    as_tsne_conditional_row (job->cond + (gsize) i * job->k, job->d2 + (gsize) i * job->k, job->k,
                             -1, job->perplexity);
}

static double
sum_weights (double w_ij, double w_ji)
{
  return w_ij + w_ji;
}

gboolean
as_tsne_affinities_sparse (AsSparseGraph *p, const float *x, int n, int d, double perplexity, int k,
                           AsWorkerTeam *team, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (k >= 1 && k < n, FALSE);
  g_autofree int *nn = g_try_malloc ((gsize) n * k * sizeof (int));       /* [n][k] */
  g_autofree float *d2 = g_try_malloc ((gsize) n * k * sizeof (float));   /* [n][k] */
  g_autofree float *cond = g_try_malloc ((gsize) n * k * sizeof (float)); /* [n][k] */
  if (nn == NULL || d2 == NULL || cond == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "t-SNE: %d neighbours of %d points do not fit in memory", k, n);
      return FALSE;
    }
  if (!as_knn_exact (nn, d2, x, n, d, k, team, cancellable, "t-SNE", error))
    return FALSE;
  SparseJob job = { k, perplexity, d2, cond, n };
  as_worker_team_run (team, sparse_rows, &job);
  /* P = (C + Cᵀ) / Σ */
  as_knn_symmetrise (p, nn, cond, n, k, sum_weights);
  double total = 0.0;
  for (int64_t e = 0; e < p->row_ptr[n]; e++)
    total += p->val[e];
  total = fmax (total, TSNE_P_FLOOR);
  for (int64_t e = 0; e < p->row_ptr[n]; e++)
    p->val[e] = (float) (p->val[e] / total);
  return TRUE;
}

/* tsne-affinity.c — the input-space affinities P of t-SNE.
 *
 * Squared distances come from one matrix product per block of rows on the centred data
 * (|a − b|² = |a|² + |b|² − 2a·b; centring keeps the cancellation small). Each point's conditional
 * Gaussian is tuned to the perplexity by a safeguarded Newton search on its precision β: the
 * entropy H(β) decreases with dH/dβ = −β·Var_P(d²), so Newton converges in a few steps where
 * sklearn's bisection takes dozens; the bracket keeps it safe. The exact method keeps all pairs
 * (dense P), Barnes-Hut keeps the k nearest neighbours of each point (found exactly from the same
 * distance blocks) and symmetrises them into a sparse P. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "tsne-private.h"

#define ENTROPY_TOLERANCE 1e-5
#define MAX_STEPS 100
#define BLOCK_BYTES (32u << 20)

void
as_tsne_sparse_p_clear (AsTsneSparseP *p)
{
  g_clear_pointer (&p->row_ptr, g_free);
  g_clear_pointer (&p->col, g_free);
  g_clear_pointer (&p->val, g_free);
}

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

gboolean
as_tsne_distance_blocks (const float *x, int n, int d, TsneDistanceBlockFunc callback,
                         gpointer user_data, GError **error)
{
  g_autofree double *mean = g_new0 (double, d);              /* [d] */
  float *xc = g_try_malloc ((gsize) n * d * sizeof (float)); /* [n][d] centred */
  g_autofree float *norm = g_new (float, n);                 /* [n] |xc_i|² */
  int block = (int) CLAMP (BLOCK_BYTES / (sizeof (float) * (gsize) n), 1, (gsize) n);
  float *dist = g_try_malloc ((gsize) block * n * sizeof (float)); /* [block][n] */
  if (xc == NULL || dist == NULL)
    {
      g_free (xc);
      g_free (dist);
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "t-SNE: the %d×%d input does not fit in memory twice", n, d);
      return FALSE;
    }
  for (gsize i = 0; i < (gsize) n; i++)
    for (int j = 0; j < d; j++)
      mean[j] += x[i * d + j];
  for (int j = 0; j < d; j++)
    mean[j] /= n;
  for (gsize i = 0; i < (gsize) n; i++)
    {
      double sq = 0.0;
      for (int j = 0; j < d; j++)
        {
          float v = (float) (x[i * d + j] - mean[j]);
          xc[i * d + j] = v;
          sq += (double) v * v;
        }
      norm[i] = (float) sq;
    }

  gboolean ok = TRUE;
  for (int row0 = 0; ok && row0 < n; row0 += block)
    {
      int rows = MIN (block, n - row0);
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, rows, n, d, -2.0f,
                   xc + (gsize) row0 * d, d, xc, d, 0.0f, dist, n);
      for (int r = 0; r < rows; r++)
        {
          float *row = dist + (gsize) r * n; /* [n] */
          float ni = norm[row0 + r];
          for (int j = 0; j < n; j++)
            row[j] = fmaxf (row[j] + ni + norm[j], 0.0f);
          row[row0 + r] = 0.0f;
        }
      ok = callback (dist, row0, rows, user_data);
    }
  if (!ok)
    g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "t-SNE was cancelled");
  g_free (xc);
  g_free (dist);
  return ok;
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
  if (!as_tsne_distance_blocks (x, n, d, dense_block, &job, error))
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
  int *nn;     /* [n][k] neighbour indices, nearest first */
  float *cond; /* [n][k] P_j|i on those neighbours */
  AsWorkerTeam *team;
  GCancellable *cancellable;
  const float *dist; /* [rows][n] */
  int n, row0, rows;
} SparseJob;

static inline gboolean
farther (const float *row, int a, int b)
{
  return row[a] > row[b] || (row[a] == row[b] && a > b);
}

/* The K nearest columns of ROW [n] other than SELF, nearest first (ties by index), via a
 * max-heap of size K. */
static void
select_nearest (int *out, const float *row, int n, int self, int k)
{
  int size = 0;
  for (int j = 0; j < n; j++)
    {
      if (j == self)
        continue;
      if (size == k && !farther (row, out[0], j))
        continue;
      int pos;
      if (size < k)
        { /* sift up */
          pos = size++;
          while (pos > 0 && farther (row, j, out[(pos - 1) / 2]))
            {
              out[pos] = out[(pos - 1) / 2];
              pos = (pos - 1) / 2;
            }
        }
      else
        { /* replace the root, sift down */
          pos = 0;
          for (;;)
            {
              int c = 2 * pos + 1;
              if (c >= size)
                break;
              if (c + 1 < size && farther (row, out[c + 1], out[c]))
                c++;
              if (!farther (row, out[c], j))
                break;
              out[pos] = out[c];
              pos = c;
            }
        }
      out[pos] = j;
    }
  /* heap sort: repeatedly move the farthest to the end */
  for (int end = size - 1; end > 0; end--)
    {
      int top = out[0], last = out[end], pos = 0;
      for (;;)
        {
          int c = 2 * pos + 1;
          if (c >= end)
            break;
          if (c + 1 < end && farther (row, out[c + 1], out[c]))
            c++;
          if (!farther (row, out[c], last))
            break;
          out[pos] = out[c];
          pos = c;
        }
      out[pos] = last;
      out[end] = top;
    }
}

static void
sparse_rows (gpointer data, int index, int n_workers)
{
  SparseJob *job = data;
  int begin, end;
  as_worker_split (job->rows, index, n_workers, &begin, &end);
  g_autofree float *d2 = g_new (float, job->k); /* [k] */
  for (int r = begin; r < end; r++)
    {
      int i = job->row0 + r;
      const float *row = job->dist + (gsize) r * job->n;
      int *nn = job->nn + (gsize) i * job->k;
      select_nearest (nn, row, job->n, i, job->k);
      for (int c = 0; c < job->k; c++)
        d2[c] = row[nn[c]];
      as_tsne_conditional_row (job->cond + (gsize) i * job->k, d2, job->k, -1, job->perplexity);
    }
}

static gboolean
sparse_block (const float *dist, int row0, int rows, gpointer data)
{
  SparseJob *job = data;
  job->dist = dist;
  job->row0 = row0;
  job->rows = rows;
  as_worker_team_run (job->team, sparse_rows, job);
  return !g_cancellable_is_cancelled (job->cancellable);
}

static int
compare_entry (const void *a, const void *b)
{
  const int *x = a, *y = b; /* (column, index into the value array) */
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* P = (C + Cᵀ) / Σ in CSR, duplicates merged, columns sorted. */
static void
symmetrise (AsTsneSparseP *p, const int *nn, const float *cond, int n, int k)
{
  g_autofree int64_t *count = g_new0 (int64_t, n + 1);
  for (gsize e = 0; e < (gsize) n * k; e++)
    {
      count[e / k]++;
      count[nn[e]]++;
    }
  g_autofree int64_t *start = g_new0 (int64_t, n + 1);
  for (int i = 0; i < n; i++)
    start[i + 1] = start[i] + count[i];
  g_autofree int *pairs = g_new (int, 2 * start[n]); /* [2nk][2] (column, source entry) */
  g_autofree int64_t *fill = g_memdup2 (start, sizeof (int64_t) * (n + 1));
  for (gsize e = 0; e < (gsize) n * k; e++)
    {
      int i = (int) (e / k), j = nn[e];
      int64_t a = fill[i]++, b = fill[j]++;
      pairs[2 * a] = j, pairs[2 * a + 1] = (int) e;
      pairs[2 * b] = i, pairs[2 * b + 1] = (int) e;
    }
  p->n = n;
  p->row_ptr = g_new0 (int64_t, n + 1);
  p->col = g_new (int, start[n]);
  p->val = g_new (float, start[n]);
  double total = 0.0;
  g_autofree double *merged = g_new (double, start[n]);
  int64_t out = 0;
  for (int i = 0; i < n; i++)
    {
      qsort (pairs + 2 * start[i], start[i + 1] - start[i], 2 * sizeof (int), compare_entry);
      for (int64_t a = start[i]; a < start[i + 1]; a++)
        {
          int j = pairs[2 * a];
          if (a == start[i] || j != p->col[out - 1])
            {
              p->col[out] = j;
              merged[out++] = 0.0;
            }
          merged[out - 1] += cond[pairs[2 * a + 1]];
          total += cond[pairs[2 * a + 1]];
        }
      p->row_ptr[i + 1] = out;
    }
  total = fmax (total, TSNE_P_FLOOR);
  for (int64_t a = 0; a < out; a++)
    p->val[a] = (float) (merged[a] / total);
}

gboolean
as_tsne_affinities_sparse (AsTsneSparseP *p, const float *x, int n, int d, double perplexity, int k,
                           AsWorkerTeam *team, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (k >= 1 && k < n, FALSE);
  g_autofree int *nn = g_try_malloc ((gsize) n * k * sizeof (int));       /* [n][k] */
  g_autofree float *cond = g_try_malloc ((gsize) n * k * sizeof (float)); /* [n][k] */
  if (nn == NULL || cond == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "t-SNE: %d neighbours of %d points do not fit in memory", k, n);
      return FALSE;
    }
  SparseJob job = { k, perplexity, nn, cond, team, cancellable, NULL, n, 0, 0 };
  if (!as_tsne_distance_blocks (x, n, d, sparse_block, &job, error))
    return FALSE;
  symmetrise (p, nn, cond, n, k);
  return TRUE;
}

/* umap-graph.c — from points to UMAP's fuzzy simplicial set (McInnes, Healy & Melville 2018,
 * section 3.1 and appendix; umap-learn's nearest_neighbors, smooth_knn_dist,
 * compute_membership_strengths and fuzzy_simplicial_set).
 *
 * Every point's neighbourhood defines a local metric: distances beyond the nearest neighbour
 * (ρ_i) are measured in units of σ_i, chosen so that the point's k memberships sum to log2(k).
 * The directed memberships w_ij are combined by the probabilistic t-conorm (fuzzy union)
 * w_ij + w_ji − w_ij·w_ji, giving a symmetric weighted graph; the descent samples its edges. */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "umap-private.h"

void
as_umap_knn_clear (AsUmapKnn *knn)
{
  g_clear_pointer (&knn->nn, g_free);
  g_clear_pointer (&knn->dist, g_free);
}

double
as_umap_distance (const float *a, const float *b, int d, AsUmapMetric metric)
{
  if (metric == AS_UMAP_METRIC_EUCLIDEAN)
    {
      double sq = 0.0;
      for (int j = 0; j < d; j++)
        {
          double diff = (double) a[j] - b[j];
          sq += diff * diff;
        }
      return sqrt (sq);
    }
  double dot = 0.0, na = 0.0, nb = 0.0;
  for (int j = 0; j < d; j++)
    {
      dot += (double) a[j] * b[j];
      na += (double) a[j] * a[j];
      nb += (double) b[j] * b[j];
    }
  if (na == 0.0 && nb == 0.0)
    return 0.0;
  if (na == 0.0 || nb == 0.0)
    return 1.0;
  return fmax (1.0 - dot / sqrt (na * nb), 0.0);
}

/* Rows of X scaled to unit length, plus one column that is 1 for a zero row and 0 otherwise:
 * squared euclidean distances of these rows are 2·(cosine distance) for two non-zero rows, 2 for
 * a zero and a non-zero row (cosine distance 1) and 0 for two zero rows — the order of umap-learn's
 * cosine distance in every case. [n][d + 1] */
static float *
cosine_rows (const float *x, int n, int d)
{
  float *out = g_try_malloc ((gsize) n * (d + 1) * sizeof (float));
  if (out == NULL)
    return NULL;
  for (gsize i = 0; i < (gsize) n; i++)
    {
      const float *row = x + i * d;
      float *o = out + i * (d + 1);
      double sq = 0.0;
      for (int j = 0; j < d; j++)
        sq += (double) row[j] * row[j];
      double scale = sq > 0 ? 1.0 / sqrt (sq) : 0.0;
      for (int j = 0; j < d; j++)
        o[j] = (float) (row[j] * scale);
      o[d] = sq > 0 ? 0.0f : 1.0f;
    }
  return out;
}

/* Recomputes the distances of row I's neighbours exactly and sorts them (insertion sort: k is
 * small), ties by index. */
static void
refine_row (int *nn, float *dist, const float *x, int d, int i, int k, AsUmapMetric metric)
{
  const float *xi = x + (gsize) i * d;
  for (int c = 0; c < k; c++)
    dist[c] = (float) as_umap_distance (xi, x + (gsize) nn[c] * d, d, metric);
  for (int c = 1; c < k; c++)
    {
      int j = nn[c];
      float v = dist[c];
      int p = c;
      for (; p > 0 && (dist[p - 1] > v || (dist[p - 1] == v && nn[p - 1] > j)); p--)
        {
          nn[p] = nn[p - 1];
          dist[p] = dist[p - 1];
        }
      nn[p] = j;
      dist[p] = v;
    }
}

typedef struct
{
  AsUmapKnn *knn;
  const float *x;
  int d;
  AsUmapMetric metric;
} RefineJob;

static void
refine_rows (gpointer data, int index, int n_workers)
{
  RefineJob *job = data;
  int begin, end, k = job->knn->k;
  as_worker_split (job->knn->n, index, n_workers, &begin, &end);
  for (int i = begin; i < end; i++)
    refine_row (job->knn->nn + (gsize) i * k, job->knn->dist + (gsize) i * k, job->x, job->d, i, k,
                job->metric);
}

gboolean
as_umap_knn (AsUmapKnn *knn, const float *x, int n, int d, int n_neighbors, AsUmapMetric metric,
             AsWorkerTeam *team, GCancellable *cancellable, GError **error)
{
  int k = n_neighbors - 1;
  g_return_val_if_fail (k >= 1 && k < n, FALSE);
  knn->n = n;
  knn->k = k;
  knn->nn = g_try_malloc ((gsize) n * k * sizeof (int));
  knn->dist = g_try_malloc ((gsize) n * k * sizeof (float));
  g_autofree float *unit = metric == AS_UMAP_METRIC_COSINE ? cosine_rows (x, n, d) : NULL;
  if (knn->nn == NULL || knn->dist == NULL || (metric == AS_UMAP_METRIC_COSINE && unit == NULL))
    {
      as_umap_knn_clear (knn);
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "UMAP: %d neighbours of %d points do not fit in memory", k, n);
      return FALSE;
    }
  gboolean ok
      = unit != NULL
            ? as_knn_exact (knn->nn, knn->dist, unit, n, d + 1, k, team, cancellable, "UMAP", error)
            : as_knn_exact (knn->nn, knn->dist, x, n, d, k, team, cancellable, "UMAP", error);
  if (!ok)
    {
      as_umap_knn_clear (knn);
      return FALSE;
    }
  RefineJob job = { knn, x, d, metric };
  as_worker_team_run (team, refine_rows, &job);
  return TRUE;
}

void
as_umap_smooth_distances (float *sigma, float *rho, const float *dist, int n, int k)
{
  double target = log2 (k + 1.0);
  double mean_all = 0.0; /* over n·(k + 1) distances, the zero self distances included */
  for (gsize e = 0; e < (gsize) n * k; e++)
    mean_all += dist[e];
  mean_all /= (double) n * (k + 1);

  for (int i = 0; i < n; i++)
    {
      const float *row = dist + (gsize) i * k; /* [k] ascending */
      double r = 0.0, mean_i = 0.0;
      for (int c = 0; c < k; c++)
        {
          if (r == 0.0 && row[c] > 0.0f)
            r = row[c];
          mean_i += row[c];
        }
      mean_i /= k + 1;

      double lo = 0.0, hi = INFINITY, mid = 1.0;
      for (int step = 0; step < UMAP_SMOOTH_K_STEPS; step++)
        {
          double psum = 0.0;
          for (int c = 0; c < k; c++)
            {
              double dd = row[c] - r;
              psum += dd > 0 ? exp (-(dd / mid)) : 1.0;
            }
          if (fabs (psum - target) < UMAP_SMOOTH_K_TOLERANCE)
            break;
          if (psum > target)
            {
              hi = mid;
              mid = (lo + hi) / 2.0;
            }
          else
            {
              lo = mid;
              mid = isinf (hi) ? mid * 2 : (lo + hi) / 2.0;
            }
        }
      double floor = UMAP_MIN_K_DIST_SCALE * (r > 0.0 ? mean_i : mean_all);
      sigma[i] = (float) fmax (mid, floor);
      rho[i] = (float) r;
    }
}

void
as_umap_memberships (float *w, const float *dist, const float *sigma, const float *rho, int n,
                     int k)
{
  for (int i = 0; i < n; i++)
    for (int c = 0; c < k; c++)
      {
        gsize e = (gsize) i * k + c;
        double dd = (double) dist[e] - rho[i];
        w[e] = dd <= 0.0 || sigma[i] == 0.0f ? 1.0f : (float) exp (-(dd / sigma[i]));
      }
}

static double
fuzzy_union (double w_ij, double w_ji)
{
  return w_ij + w_ji - w_ij * w_ji;
}

/* Drops the entries of G below THRESHOLD (and the zeros), keeping the CSR compact. */
static void
drop_below (AsSparseGraph *g, float threshold)
{
  int64_t out = 0, begin = 0;
  for (int i = 0; i < g->n; i++)
    {
      int64_t end = g->row_ptr[i + 1];
      for (int64_t e = begin; e < end; e++)
        if (g->val[e] > 0.0f && g->val[e] >= threshold)
          {
            g->col[out] = g->col[e];
            g->val[out++] = g->val[e];
          }
      begin = end;
      g->row_ptr[i + 1] = out;
    }
}

void
as_umap_fuzzy_graph (AsSparseGraph *g, const int *nn, const float *w, int n, int k, int n_epochs)
{
  as_knn_symmetrise (g, nn, w, n, k, fuzzy_union);
  float max = 0.0f;
  for (int64_t e = 0; e < g->row_ptr[n]; e++)
    max = fmaxf (max, g->val[e]);
  int divisor = n_epochs > 10 ? n_epochs : as_umap_epochs_for (0, n);
  drop_below (g, max / (float) divisor);
}

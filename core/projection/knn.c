/* knn.c — blocked distance products, exact k-nearest-neighbour lists and their symmetric union
 * (knn-private.h). */
#include "knn-private.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "blas-threads-private.h"

#define BLOCK_BYTES (32u << 20)

/* Rows per matrix product inside a block: the team's members share a block's panels, and a
 * distance is computed by the same single-threaded product whatever the thread count (fixed
 * panels, worker-team-private.h). 64 rows keep the repacking of x, once per product, to ~2 % of
 * the work. */
#define PANEL_ROWS 64

void
as_sparse_graph_clear (AsSparseGraph *g)
{
  g_clear_pointer (&g->row_ptr, g_free);
  g_clear_pointer (&g->col, g_free);
  g_clear_pointer (&g->val, g_free);
}

typedef struct
{
  float *dist;       /* [rows][n] of the current block */
  const float *xc;   /* [n][d] centred */
  const float *norm; /* [n] |xc_i|² */
  int n, d, row0, rows;
} DistanceJob;

/* Panel PANEL of the current block: its rows of DIST, |x_i − x_j|² clamped at 0, self 0. */
static void
distance_panel (gpointer data, int panel)
{
  const DistanceJob *job = data;
  int n = job->n, r0 = panel * PANEL_ROWS, rows = MIN (PANEL_ROWS, job->rows - r0);
  float *dist = job->dist + (gsize) r0 * n; /* [rows][n] */
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, rows, n, job->d, -2.0f,
               job->xc + (gsize) (job->row0 + r0) * job->d, job->d, job->xc, job->d, 0.0f, dist, n);
  for (int r = 0; r < rows; r++)
    {
      float *row = dist + (gsize) r * n; /* [n] */
      int i = job->row0 + r0 + r;
      float ni = job->norm[i];
      for (int j = 0; j < n; j++)
        row[j] = fmaxf (row[j] + ni + job->norm[j], 0.0f);
      row[i] = 0.0f;
    }
}

gboolean
as_knn_distance_blocks (const float *x, int n, int d, AsWorkerTeam *team,
                        AsKnnDistanceBlockFunc callback, gpointer user_data, const char *what,
                        GError **error)
{
  as_blas_single_threaded ();
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
                   "%s: the %d×%d input does not fit in memory twice", what, n, d);
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
  DistanceJob job = { dist, xc, norm, n, d, 0, 0 };
  for (int row0 = 0; ok && row0 < n; row0 += block)
    {
      job.row0 = row0;
      job.rows = MIN (block, n - row0);
      as_worker_team_run_blocks (team, (job.rows + PANEL_ROWS - 1) / PANEL_ROWS, distance_panel,
                                 &job);
      ok = callback (dist, row0, job.rows, user_data);
    }
  if (!ok)
    g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "%s was cancelled", what);
  g_free (xc);
  g_free (dist);
  return ok;
}

static inline gboolean
farther (const float *row, int a, int b)
{
  return row[a] > row[b] || (row[a] == row[b] && a > b);
}

void
as_knn_select_nearest (int *out, const float *row, int n, int self, int k)
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
  for (int c = size; c < k; c++)
    out[c] = -1;
}

typedef struct
{
  int k;
  int *nn;   /* [n][k] */
  float *d2; /* [n][k] */
  AsWorkerTeam *team;
  GCancellable *cancellable;
  const float *dist; /* [rows][n] of the current block */
  int n, row0, rows;
} KnnJob;

static void
knn_rows (gpointer data, int index, int n_workers)
{
  KnnJob *job = data;
  int begin, end;
  as_worker_split (job->rows, index, n_workers, &begin, &end);
  for (int r = begin; r < end; r++)
    {
      int i = job->row0 + r;
      const float *row = job->dist + (gsize) r * job->n;
      int *nn = job->nn + (gsize) i * job->k;
      float *d2 = job->d2 + (gsize) i * job->k;
      as_knn_select_nearest (nn, row, job->n, i, job->k);
      for (int c = 0; c < job->k; c++)
        d2[c] = row[nn[c]];
    }
}

static gboolean
knn_block (const float *dist, int row0, int rows, gpointer data)
{
  KnnJob *job = data;
  job->dist = dist;
  job->row0 = row0;
  job->rows = rows;
  as_worker_team_run (job->team, knn_rows, job);
  return !g_cancellable_is_cancelled (job->cancellable);
}

gboolean
as_knn_exact (int *nn, float *d2, const float *x, int n, int d, int k, AsWorkerTeam *team,
              GCancellable *cancellable, const char *what, GError **error)
{
  g_return_val_if_fail (k >= 1 && k < n, FALSE);
  KnnJob job = { k, nn, d2, team, cancellable, NULL, n, 0, 0 };
  return as_knn_distance_blocks (x, n, d, team, knn_block, &job, what, error);
}

static int
compare_entry (const void *a, const void *b)
{
  const int *x = a, *y = b; /* (column, index into the weight array) */
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

void
as_knn_symmetrise (AsSparseGraph *g, const int *nn, const float *w, int n, int k,
                   AsKnnCombineFunc combine)
{
  /* every directed edge e = (i → j) is listed in row i and in row j, with its source e */
  g_autofree int64_t *start = g_new0 (int64_t, n + 1);
  for (gsize e = 0; e < (gsize) n * k; e++)
    if (nn[e] >= 0)
      {
        start[e / k + 1]++;
        start[nn[e] + 1]++;
      }
  for (int i = 0; i < n; i++)
    start[i + 1] += start[i];
  g_autofree int *pairs = g_new (int, 2 * start[n] + 2); /* [2·edges][2] (column, source e) */
  g_autofree int64_t *fill = g_memdup2 (start, sizeof (int64_t) * (n + 1));
  for (gsize e = 0; e < (gsize) n * k; e++)
    {
      int i = (int) (e / k), j = nn[e];
      if (j < 0)
        continue;
      int64_t a = fill[i]++, b = fill[j]++;
      pairs[2 * a] = j, pairs[2 * a + 1] = (int) e;
      pairs[2 * b] = i, pairs[2 * b + 1] = (int) e;
    }
  g->n = n;
  g->row_ptr = g_new0 (int64_t, n + 1);
  g->col = g_new (int, start[n] + 1);
  g->val = g_new (float, start[n] + 1);
  int64_t out = 0;
  for (int i = 0; i < n; i++)
    {
      qsort (pairs + 2 * start[i], start[i + 1] - start[i], 2 * sizeof (int), compare_entry);
      for (int64_t a = start[i]; a < start[i + 1];)
        {
          int j = pairs[2 * a];
          double w_ij = 0.0, w_ji = 0.0;
          for (; a < start[i + 1] && pairs[2 * a] == j; a++)
            {
              int e = pairs[2 * a + 1];
              if (e / k == i)
                w_ij = w[e]; /* i's own list names j */
              else
                w_ji = w[e]; /* j's list names i */
            }
          g->col[out] = j;
          g->val[out++] = (float) combine (w_ij, w_ji);
        }
      g->row_ptr[i + 1] = out;
    }
}

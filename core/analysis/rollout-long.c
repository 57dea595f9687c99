/* rollout-long.c — mean over heads and rollout of long texts from tiles (as-rollout-long.h).
 *
 * rollout.c computes both from whole layers [H][T][T] and keeps every layer's result [L][T][T]:
 * 74 GB and 8 GB at 8,192 tokens of a 30-layer, 9-head model. Here a layer is read in blocks of
 * ROW_BLOCK query rows, one head's tile at a time, and only the layer asked is kept; the sums and
 * products are rollout.c's, in the same order, so the results are the same bits. */
#include "as-rollout-long.h"

#include <cblas.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "blas-threads-private.h"
#include "worker-team-private.h"

#define ROW_BLOCK 64
/* rollout.c's panels: columns of R_l per single-threaded dgemm */
#define PANEL_COLUMNS 64
#define THREADED_MIN_TOKENS 256
/* panels between checks for cancellation */
#define PANELS_PER_STEP 16

void
as_trace_mean_heads_tile (const AsTrace *t, int layer, int row0, int n_rows, int col0, int n_cols,
                          float *out, int ld)
{
  int H = t->n_head;
  gsize n = (gsize) n_rows * n_cols;
  g_autofree double *sum = g_new0 (double, n); /* [n_rows][n_cols] */
  g_autofree float *tile = g_new (float, n);   /* [n_rows][n_cols] */
  for (int h = 0; h < H; h++)
    {
      as_trace_attention_tile (t, layer, h, row0, n_rows, col0, n_cols, tile, n_cols);
      for (gsize e = 0; e < n; e++)
        sum[e] += tile[e];
    }
  for (int i = 0; i < n_rows; i++)
    for (int j = 0; j < n_cols; j++)
      out[(gsize) i * ld + j] = (float) (sum[(gsize) i * n_cols + j] / H);
}

void
as_trace_mean_heads_pool (float *out, const AsTrace *t, int layer, int k, AsPool pool)
{
  int T = t->n_tokens, P = as_pool_size (T, k);
  g_autofree float *strip = g_new (float, (gsize) k *T); /* [k][T] */
  for (int p = 0; p < P; p++)
    {
      int r0 = p * k, rows = MIN (k, T - r0);
      as_trace_mean_heads_tile (t, layer, r0, rows, 0, T, strip, T);
      /* blocks never straddle strips: pooling a strip is pooling those rows of the matrix */
      as_matrix_pool (out + (gsize) p * P, strip, rows, T, k, pool);
    }
}

static gboolean
cancelled (const AsRolloutOptions *o, GError **error)
{
  if (o == NULL || !g_cancellable_is_cancelled (o->cancellable))
    return FALSE;
  g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the attention rollout was cancelled");
  return TRUE;
}

static void
tell (const AsRolloutOptions *o, int done, int total)
{
  if (o != NULL && o->progress != NULL)
    o->progress (done, total, o->progress_data);
}

/* a [T][T] = row-normalised 0.5·mean over heads + 0.5·I of LAYER, a block of rows at a time (as
 * rollout.c's rollout_layer_matrix: heads summed in double in order, then the identity, then
 * each row over its sum). */
static gboolean
layer_matrix (double *a, const AsTrace *t, int layer, const AsRolloutOptions *o, int *done,
              int total, GError **error)
{
  int T = t->n_tokens, H = t->n_head;
  g_autofree float *tile = g_new (float, (gsize) ROW_BLOCK *T); /* [64][T] */
  for (int r0 = 0; r0 < T; r0 += ROW_BLOCK)
    {
      if (cancelled (o, error))
        return FALSE;
      int rows = MIN (ROW_BLOCK, T - r0);
      double *block = a + (gsize) r0 * T; /* [rows][T] */
      memset (block, 0, sizeof (double) * rows * T);
      for (int h = 0; h < H; h++)
        {
          as_trace_attention_tile (t, layer, h, r0, rows, 0, T, tile, T);
          for (gsize e = 0; e < (gsize) rows * T; e++)
            block[e] += tile[e];
        }
      for (gsize e = 0; e < (gsize) rows * T; e++)
        block[e] = 0.5 * block[e] / H;
      for (int i = 0; i < rows; i++)
        {
          double *row = block + (gsize) i * T;
          row[r0 + i] += 0.5;
          double sum = 0;
          for (int j = 0; j < T; j++)
            sum += row[j];
          for (int j = 0; j < T; j++)
            row[j] /= sum;
        }
      tell (o, ++*done, total);
    }
  return TRUE;
}

typedef struct
{
  double *next;    /* [T][T] R_l */
  const double *a; /* [T][T] A_l */
  const double *r; /* [T][T] R_{l-1} */
  int n_tokens, first_panel;
} ProductJob;

static void
product_panel (gpointer data, int block)
{
  const ProductJob *job = data;
  int t = job->n_tokens, c0 = (job->first_panel + block) * PANEL_COLUMNS;
  int cols = MIN (PANEL_COLUMNS, t - c0);
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, t, cols, t, 1.0, job->a, t, job->r + c0,
               t, 0.0, job->next + c0, t);
}

gboolean
as_trace_rollout_layer (const AsTrace *t, int layer, const AsRolloutOptions *o, float *out,
                        GError **error)
{
  g_return_val_if_fail (layer >= 0 && layer < t->n_layer, FALSE);
  int T = t->n_tokens;
  gsize tt = (gsize) T * T;
  int row_steps = (T + ROW_BLOCK - 1) / ROW_BLOCK, panels = (T + PANEL_COLUMNS - 1) / PANEL_COLUMNS;
  int panel_steps = (panels + PANELS_PER_STEP - 1) / PANELS_PER_STEP;
  int total = (layer + 1) * row_steps + layer * panel_steps, done = 0;
  g_autofree double *a = g_new (double, tt);    /* [T][T] A_l */
  g_autofree double *r = g_new (double, tt);    /* [T][T] R_{l-1} */
  g_autofree double *next = g_new (double, tt); /* [T][T] R_l */
  as_blas_single_threaded ();
  g_autoptr (AsWorkerTeam) team = t->n_layer > 1 && T >= THREADED_MIN_TOKENS
                                      ? as_worker_team_new (as_forward_threads ())
                                      : NULL;
  for (int l = 0; l <= layer; l++)
    {
      if (!layer_matrix (l == 0 ? next : a, t, l, o, &done, total, error))
        return FALSE;
      for (int p0 = 0; l > 0 && p0 < panels; p0 += PANELS_PER_STEP)
        {
          if (cancelled (o, error))
            return FALSE;
          ProductJob job = { next, a, r, T, p0 };
          as_worker_team_run_blocks (team, MIN (PANELS_PER_STEP, panels - p0), product_panel, &job);
          tell (o, ++done, total);
        }
      double *tmp = r;
      r = next;
      next = tmp;
    }
  for (gsize e = 0; e < tt; e++)
    out[e] = (float) r[e];
  return TRUE;
}

/* Double-precision operations per second of this machine's dgemm on one thread, measured once. */
static double
measured_rate (void)
{
  static gsize once = 0;
  static double rate;
  if (g_once_init_enter (&once))
    {
      enum
      {
        N = 256
      };
      g_autofree double *x = g_new (double, N *N), *y = g_new (double, N *N);
      for (int e = 0; e < N * N; e++)
        x[e] = 1.0 / (1 + e % 7);
      as_blas_single_threaded ();
      gint64 start = g_get_monotonic_time ();
      int reps = 0;
      do
        cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0, x, N, x, N, 0.0, y,
                     N),
            reps++;
      while (g_get_monotonic_time () - start < 20000);
      double seconds = MAX (1e-6, (g_get_monotonic_time () - start) / 1e6);
      rate = reps * 2.0 * N * N * N / seconds;
      g_once_init_leave (&once, 1);
    }
  return rate;
}

double
as_rollout_estimate_seconds (int n_tokens, int n_products)
{
  double T = n_tokens;
  int threads = n_tokens >= THREADED_MIN_TOKENS ? MAX (1, as_forward_threads ()) : 1;
  return n_products * 2.0 * T * T * T / (measured_rate () * threads);
}

gboolean
as_rollout_check (int n_tokens, int layer, double max_seconds, GError **error)
{
  double seconds = as_rollout_estimate_seconds (n_tokens, layer);
  if (seconds <= max_seconds)
    return TRUE;
  g_autofree char *took = seconds >= 120 ? g_strdup_printf ("%.0f minutes", seconds / 60)
                                         : g_strdup_printf ("%.0f seconds", seconds);
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "the attention rollout of layer %d over %d tokens multiplies %d matrices of %d × "
               "%d: about %s on this machine (more than %.0f seconds)",
               layer, n_tokens, layer, n_tokens, n_tokens, took, max_seconds);
  return FALSE;
}

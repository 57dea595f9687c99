/* rollout.c — mean attention over heads and attention rollout through the layers.
 *
 * See as-rollout.h for the definitions and the multiplication order. The rollout keeps the running
 * product in double and multiplies with cblas_dgemm, so long inputs (T = 1024, 12 layers) stay
 * fast and the result matches a numpy float64 reference to ~1e-12 before the final float cast.
 * Long inputs share each product between ATTNSCOPE_THREADS threads in panels of PANEL_COLUMNS
 * columns, each one single-threaded dgemm whatever the thread count, so the result is the same
 * bits for every thread count (worker-team-private.h). */
#include "as-rollout.h"

#include <cblas.h>
#include <string.h>

#include "as-forward.h"
#include "blas-threads-private.h"
#include "worker-team-private.h"

/* Columns of R_l per product; below THREADED_MIN_TOKENS one thread does every panel. */
#define PANEL_COLUMNS 64
#define THREADED_MIN_TOKENS 256

/* OUT [N] = mean over the N_HEAD heads of ATTN [H][N]: one layer's heads of any shape (N = T·T
 * for self-attention, T·S for cross-attention), summed in double. */
static void
mean_heads (float *out, const float *attn, int n_head, gsize n)
{
  for (gsize e = 0; e < n; e++)
    {
      double sum = 0;
      for (int h = 0; h < n_head; h++)
        sum += attn[(gsize) h * n + e];
      out[e] = (float) (sum / n_head);
    }
}

void
as_attention_mean_heads (float *out, const float *attn, int n_head, int n_tokens)
{
  mean_heads (out, attn, n_head, (gsize) n_tokens * n_tokens); /* out [T][T], attn [H][T][T] */
}

/* a [T][T] = row-normalised 0.5·mean_heads(attn) + 0.5·I, for one layer's ATTN [H][T][T]. */
static void
rollout_layer_matrix (double *a, const float *attn, int n_head, int n_tokens)
{
  gsize tt = (gsize) n_tokens * n_tokens;
  for (gsize e = 0; e < tt; e++)
    {
      double sum = 0;
      for (int h = 0; h < n_head; h++)
        sum += attn[(gsize) h * tt + e];
      a[e] = 0.5 * sum / n_head;
    }
  for (int i = 0; i < n_tokens; i++)
    {
      double *row = a + (gsize) i * n_tokens;
      row[i] += 0.5;
      double total = 0;
      for (int j = 0; j < n_tokens; j++)
        total += row[j];
      /* total >= 0.5 because of the identity term, so the division is always defined */
      for (int j = 0; j < n_tokens; j++)
        row[j] /= total;
    }
}

typedef struct
{
  double *next;    /* [T][T] R_l */
  const double *a; /* [T][T] A_l */
  const double *r; /* [T][T] R_{l-1} */
  int n_tokens;
} ProductJob;

/* Columns [PANEL_COLUMNS·panel, +PANEL_COLUMNS) of R_l = A_l · R_{l-1}. */
static void
product_panel (gpointer data, int panel)
{
  const ProductJob *job = data;
  int t = job->n_tokens, c0 = panel * PANEL_COLUMNS, cols = MIN (PANEL_COLUMNS, t - c0);
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, t, cols, t, 1.0, job->a, t, job->r + c0,
               t, 0.0, job->next + c0, t);
}

/* One layer's attention [H][T][T]: a pointer into what DATA holds, or a new array in *OWNED. */
typedef const float *(*LayerAttention) (gconstpointer data, int layer, float **owned);

typedef struct
{
  const float *attn;  /* [L][H][T][T] */
  gsize layer_floats; /* H·T² */
} ArrayLayers;

static const float *
array_layer (gconstpointer data, int layer, float **owned)
{
  const ArrayLayers *a = data;
  *owned = NULL;
  return a->attn + (gsize) layer * a->layer_floats;
}

static const float *
trace_layer (gconstpointer data, int layer, float **owned)
{
  return as_trace_attention_layer (data, layer, owned);
}

/* out [L][T][T]: the rollout of the layers LAYER_OF gives. */
static void
rollout (float *out, LayerAttention layer_of, gconstpointer data, int n_layer, int n_head,
         int n_tokens)
{
  gsize tt = (gsize) n_tokens * n_tokens;
  g_autofree double *a = g_new (double, tt);    /* [T][T] A_l */
  g_autofree double *r = g_new (double, tt);    /* [T][T] R_{l-1} */
  g_autofree double *next = g_new (double, tt); /* [T][T] R_l */
  as_blas_single_threaded ();
  g_autoptr (AsWorkerTeam) team = n_layer > 1 && n_tokens >= THREADED_MIN_TOKENS
                                      ? as_worker_team_new (as_forward_threads ())
                                      : NULL;

  for (int l = 0; l < n_layer; l++)
    {
      g_autofree float *owned = NULL;
      rollout_layer_matrix (a, layer_of (data, l, &owned), n_head, n_tokens);
      if (l == 0)
        memcpy (next, a, tt * sizeof (double));
      else
        {
          ProductJob job = { next, a, r, n_tokens };
          as_worker_team_run_blocks (team, (n_tokens + PANEL_COLUMNS - 1) / PANEL_COLUMNS,
                                     product_panel, &job);
        }
      float *dst = out + (gsize) l * tt;
      for (gsize e = 0; e < tt; e++)
        dst[e] = (float) next[e];
      double *tmp = r;
      r = next;
      next = tmp;
    }
}

void
as_attention_rollout (float *out, const float *attn, int n_layer, int n_head, int n_tokens)
{
  /* out [L][T][T], attn [L][H][T][T] */
  ArrayLayers a = { attn, (gsize) n_head * n_tokens * n_tokens };
  rollout (out, array_layer, &a, n_layer, n_head, n_tokens);
}

float *
as_trace_mean_heads (const AsTrace *trace)
{
  gsize tt = (gsize) trace->n_tokens * trace->n_tokens;
  float *out = g_new (float, (gsize) trace->n_layer *tt); /* [L][T][T] */
  for (int l = 0; l < trace->n_layer; l++)
    {
      g_autofree float *owned = NULL;
      mean_heads (out + (gsize) l * tt, as_trace_attention_layer (trace, l, &owned), trace->n_head,
                  tt);
    }
  return out;
}

float *
as_trace_cross_mean_heads (const AsTrace *trace)
{
  g_return_val_if_fail (trace->cross_attn != NULL && trace->source != NULL, NULL);
  gsize ts = (gsize) trace->n_tokens * trace->source->n_tokens;
  float *out = g_new (float, (gsize) trace->n_layer *ts); /* [L][T][S] */
  for (int l = 0; l < trace->n_layer; l++)
    mean_heads (out + (gsize) l * ts, as_trace_cross_attn (trace, l, 0), trace->n_head, ts);
  return out;
}

float *
as_trace_rollout (const AsTrace *trace)
{
  gsize tt = (gsize) trace->n_tokens * trace->n_tokens;
  float *out = g_new (float, (gsize) trace->n_layer *tt); /* [L][T][T] */
  rollout (out, trace_layer, trace, trace->n_layer, trace->n_head, trace->n_tokens);
  return out;
}

/* fitted-lens.c — the fitted lens (as-lens.h): per hidden state an affine map to hidden[L],
 * fitted by ridge-regularised least squares in closed form, and the KL divergence of the logit
 * and fitted lenses on held-out lines.
 *
 * The normal equations are summed in float64 line by line (cblas_dsyrk, cblas_dgemm; OpenBLAS
 * runs on one thread in this process, blas-threads-private.h), in corpus order, so the maps do
 * not depend on the thread count; the forward passes are bitwise identical across thread counts
 * already. */
#include "as-lens.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-shard.h"

/* The sums of the normal equations of every hidden state i < L. */
typedef struct
{
  int L, D;
  double *gram;  /* [L][D + 1][D + 1] XᵀX (upper triangle) */
  double *cross; /* [L][D + 1][D] XᵀY */
  double *x;     /* [T][D + 1] one line's hidden[i] with a column of ones */
  double *y;     /* [T][D] its hidden[L] */
  int n_positions;
} Sums;

static void
sums_clear (Sums *s)
{
  g_free (s->gram);
  g_free (s->cross);
  g_free (s->x);
  g_free (s->y);
}

static void
sums_add (Sums *s, const AsTrace *trace)
{
  int T = trace->n_tokens, D = s->D, D1 = D + 1;
  s->x = g_renew (double, s->x, (gsize) T *D1);
  s->y = g_renew (double, s->y, (gsize) T *D);
  const float *last = as_trace_hidden (trace, s->L);
  for (gsize e = 0; e < (gsize) T * D; e++)
    s->y[e] = last[e];
  for (int i = 0; i < s->L; i++)
    {
      const float *h = as_trace_hidden (trace, i);
      for (int t = 0; t < T; t++)
        {
          for (int d = 0; d < D; d++)
            s->x[(gsize) t * D1 + d] = h[(gsize) t * D + d];
          s->x[(gsize) t * D1 + D] = 1.0;
        }
      cblas_dsyrk (CblasRowMajor, CblasUpper, CblasTrans, D1, T, 1.0, s->x, D1, 1.0,
                   s->gram + (gsize) i * D1 * D1, D1);
      cblas_dgemm (CblasRowMajor, CblasTrans, CblasNoTrans, D1, D, T, 1.0, s->x, D1, s->y, D, 1.0,
                   s->cross + (gsize) i * D1 * D, D);
    }
  s->n_positions += T;
}

/* maps [D + 1][D] of hidden state I from the sums: (G + λ I₀) W = C by Cholesky. */
static gboolean
solve_map (const Sums *s, int i, double ridge, float *map, GError **error)
{
  int D = s->D, D1 = D + 1;
  g_autofree double *a = g_memdup2 (s->gram + (gsize) i * D1 * D1, sizeof (double) * D1 * D1);
  g_autofree double *w = g_memdup2 (s->cross + (gsize) i * D1 * D, sizeof (double) * D1 * D);
  double trace = 0.0;
  for (int d = 0; d < D; d++)
    trace += a[(gsize) d * D1 + d];
  double lambda = ridge * trace / D;
  for (int d = 0; d < D; d++)
    a[(gsize) d * D1 + d] += lambda;
  lapack_int info = LAPACKE_dposv (LAPACK_ROW_MAJOR, 'U', D1, D, a, D1, w, D);
  if (info != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_VALUE,
                   "the least-squares problem of hidden state %d is singular (LAPACK dposv: %d); "
                   "give a larger --ridge or a longer corpus",
                   i, (int) info);
      return FALSE;
    }
  for (gsize e = 0; e < (gsize) D1 * D; e++)
    map[e] = (float) w[e];
  return TRUE;
}

static gboolean
check_model (AsModel *model, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  if (c->encoder_decoder)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s is a translation model: the fitted lens is fitted on decoder-only and "
                   "encoder models (the logit lens reads translation models)",
                   as_model_get_name (model));
      return FALSE;
    }
  return TRUE;
}

static AsTrace *
run_line (AsModel *model, const char *line, int number, GError **error)
{
  AsForwardOptions options = { .all_logits = FALSE };
  AsTrace *trace = as_forward_text (model, line, TRUE, &options, error);
  if (trace == NULL)
    g_prefix_error (error, "line %d: ", number + 1);
  return trace;
}

/* Σ_v p_v (log p_v − log q_v) of the softmaxes of logits P and Q [V], in float64. */
static double
kl_divergence (const float *p, const float *q, int V)
{
  double pmax = -INFINITY, qmax = -INFINITY, ps = 0.0, qs = 0.0;
  for (int v = 0; v < V; v++)
    pmax = fmax (pmax, p[v]), qmax = fmax (qmax, q[v]);
  for (int v = 0; v < V; v++)
    ps += exp (p[v] - pmax), qs += exp (q[v] - qmax);
  double lp0 = pmax + log (ps), lq0 = qmax + log (qs), kl = 0.0;
  for (int v = 0; v < V; v++)
    {
      double lp = p[v] - lp0, lq = q[v] - lq0;
      kl += exp (lp) * (lp - lq);
    }
  return kl;
}

/* Adds the KL of every hidden state i < L at the first N positions of TRACE to KL_LOGIT and
 * KL_FITTED [L]. */
static gboolean
add_kl (AsModel *model, const AsTrace *trace, const AsFittedLens *lens, int n, double *kl_logit,
        double *kl_fitted, GError **error)
{
  int L = lens->n_layer, V = trace->vocab_size;
  g_autofree int *positions = g_new (int, n);
  for (int t = 0; t < n; t++)
    positions[t] = t;
  g_autofree float *final = g_try_new (float, (gsize) n *V); /* [n][V] */
  g_autofree float *q = g_try_new (float, (gsize) n *V);     /* [n][V] */
  if (final == NULL || q == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate %d rows of logits", n);
      return FALSE;
    }
  if (!as_forward_read_out (model, trace, L, positions, n, final, error))
    return FALSE;
  for (int i = 0; i < L; i++)
    {
      if (!as_forward_read_out (model, trace, i, positions, n, q, error))
        return FALSE;
      for (int t = 0; t < n; t++)
        kl_logit[i] += kl_divergence (final + (gsize) t * V, q + (gsize) t * V, V);
      if (!as_fitted_lens_read (model, trace, lens, i, positions, n, q, error))
        return FALSE;
      for (int t = 0; t < n; t++)
        kl_fitted[i] += kl_divergence (final + (gsize) t * V, q + (gsize) t * V, V);
    }
  return TRUE;
}

/* The KL of both lenses on the held-out lines of LINES, into LENS. */
static gboolean
measure (AsModel *model, const char *const *lines, int n_lines, AsFittedLens *lens,
         GCancellable *cancellable, GError **error)
{
  int L = lens->n_layer;
  lens->kl_logit = g_new0 (double, L);
  lens->kl_fitted = g_new0 (double, L);
  for (int l = AS_FITTED_LENS_HOLDOUT - 1; l < n_lines; l += AS_FITTED_LENS_HOLDOUT)
    {
      if (lens->n_heldout_positions >= AS_FITTED_LENS_KL_POSITIONS)
        break;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      g_autoptr (AsTrace) trace = run_line (model, lines[l], l, error);
      if (trace == NULL)
        return FALSE;
      int n = MIN (trace->n_tokens, AS_FITTED_LENS_KL_POSITIONS - lens->n_heldout_positions);
      if (!add_kl (model, trace, lens, n, lens->kl_logit, lens->kl_fitted, error))
        return FALSE;
      lens->n_heldout_lines++;
      lens->n_heldout_positions += n;
    }
  for (int i = 0; i < L; i++)
    {
      lens->kl_logit[i] /= lens->n_heldout_positions;
      lens->kl_fitted[i] /= lens->n_heldout_positions;
    }
  return TRUE;
}

static gboolean
check_corpus (AsModel *model, int n_lines, int n_positions, int D, GError **error)
{
  if (n_lines < AS_FITTED_LENS_HOLDOUT)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the corpus has %d line%s: the fit needs at least %d (every %dth is held out "
                   "to measure it)",
                   n_lines, n_lines == 1 ? "" : "s", AS_FITTED_LENS_HOLDOUT,
                   AS_FITTED_LENS_HOLDOUT);
      return FALSE;
    }
  if (n_positions >= 0 && n_positions < D + 1)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the corpus is too short: its training lines give %d positions, and a map of "
                   "%s's width %d needs at least %d",
                   n_positions, as_model_get_name (model), D, D + 1);
      return FALSE;
    }
  return TRUE;
}

static gboolean
fit_sums (AsModel *model, const char *const *lines, int n_lines, Sums *s, AsFittedLens *lens,
          GCancellable *cancellable, GError **error)
{
  for (int l = 0; l < n_lines; l++)
    {
      if (l % AS_FITTED_LENS_HOLDOUT == AS_FITTED_LENS_HOLDOUT - 1)
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      g_autoptr (AsTrace) trace = run_line (model, lines[l], l, error);
      if (trace == NULL)
        return FALSE;
      if (trace->vocab_size == 0 || trace->logits_rows == 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "%s has no output head to read hidden states through: it computes "
                       "attention only",
                       as_model_get_name (model));
          return FALSE;
        }
      sums_add (s, trace);
      lens->n_train_lines++;
    }
  lens->n_train_positions = s->n_positions;
  return TRUE;
}

AsFittedLens *
as_fitted_lens_fit (AsModel *model, const char *const *lines, int n_lines, double ridge,
                    GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (model != NULL && (lines != NULL || n_lines == 0), NULL);
  const AsConfig *c = as_model_get_config (model);
  int L = c->n_layer, D = c->n_embd;
  if (!check_model (model, error) || !check_corpus (model, n_lines, -1, D, error))
    return NULL;
  g_autofree char *fingerprint = as_shard_model_fingerprint (as_model_get_path (model), error);
  if (fingerprint == NULL)
    return NULL;
  g_autoptr (AsFittedLens) lens = g_new0 (AsFittedLens, 1);
  lens->n_layer = L;
  lens->d_model = D;
  lens->ridge = ridge;
  lens->model_name = g_strdup (as_model_get_name (model));
  lens->model_fingerprint = g_steal_pointer (&fingerprint);
  Sums s = { .L = L, .D = D };
  s.gram = g_try_new0 (double, (gsize) L *(D + 1) * (D + 1));
  s.cross = g_try_new0 (double, (gsize) L *(D + 1) * D);
  gboolean ok = s.gram != NULL && s.cross != NULL;
  if (!ok)
    g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                 "could not allocate the normal equations of %d hidden states of width %d", L, D);
  ok = ok && fit_sums (model, lines, n_lines, &s, lens, cancellable, error)
       && check_corpus (model, n_lines, s.n_positions, D, error);
  if (ok)
    {
      lens->maps = g_new (float, (gsize) L *(D + 1) * D);
      for (int i = 0; ok && i < L; i++)
        ok = solve_map (&s, i, ridge, lens->maps + (gsize) i * (D + 1) * D, error);
    }
  sums_clear (&s);
  if (!ok || !measure (model, lines, n_lines, lens, cancellable, error))
    return NULL;
  return g_steal_pointer (&lens);
}

gboolean
as_fitted_lens_map (const AsTrace *trace, const AsFittedLens *fitted, int index,
                    const int *positions, int n, float *out, GError **error)
{
  g_return_val_if_fail (index >= 0 && index < fitted->n_layer && n > 0, FALSE);
  int D = fitted->d_model;
  g_return_val_if_fail (D == trace->d_model, FALSE);
  const float *map = fitted->maps + (gsize) index * (D + 1) * D; /* [D + 1][D] */
  const float *hidden = as_trace_hidden (trace, index);
  g_autofree float *x = g_try_new (float, (gsize) n *D); /* [n][D] */
  if (x == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate %d mapped vectors", n);
      return FALSE;
    }
  for (int t = 0; t < n; t++)
    {
      memcpy (x + (gsize) t * D, hidden + (gsize) positions[t] * D, sizeof (float) * D);
      memcpy (out + (gsize) t * D, map + (gsize) D * D, sizeof (float) * D); /* b */
    }
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, n, D, D, 1.0f, x, D, map, D, 1.0f, out,
               D);
  return TRUE;
}

gboolean
as_fitted_lens_read (AsModel *model, const AsTrace *trace, const AsFittedLens *fitted, int index,
                     const int *positions, int n, float *logits, GError **error)
{
  g_autofree float *y = g_try_new (float, (gsize) n * fitted->d_model); /* [n][D] */
  if (y == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate %d mapped vectors", n);
      return FALSE;
    }
  return as_fitted_lens_map (trace, fitted, index, positions, n, y, error)
         && as_forward_read_head (model, trace, y, n, logits, error);
}

void
as_fitted_lens_free (AsFittedLens *lens)
{
  if (lens == NULL)
    return;
  g_free (lens->maps);
  g_free (lens->kl_logit);
  g_free (lens->kl_fitted);
  g_free (lens->model_name);
  g_free (lens->model_fingerprint);
  g_free (lens);
}

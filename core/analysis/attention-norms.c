/* attention-norms.c — attention weighted by the norms of what each key writes
 * (as-attention-norms.h).
 *
 * Per layer: O [H][hd][D] = the output projection head by head (output-pieces-private.h). What
 * key j writes through head h is f_j = v_j · O_h, and ‖f_j‖² = v_j · G_h · v_jᵀ with the head's
 * Gram matrix G_h = O_h · O_hᵀ [hd][hd]: the norms need products of depth hd, not the [T][D]
 * vectors themselves (a sixth of the work for GPT-2's hd = 64, D = 768). G_h and the quadratic
 * forms are computed in double (OpenBLAS's dsyrk and dgemm), a head per worker, so a norm is
 * the same bits whatever the thread count; ‖v_j‖ are the value norms, Σ_i ‖ctx_i · O_h‖ the
 * head's write. Norms are summed in double. */
#include "as-attention-norms.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "blas-threads-private.h"
#include "kernels-private.h"
#include "output-pieces-private.h"
#include "worker-team-private.h"

/* OUT [N] (when not NULL) = ‖x_i · O‖ for the rows of X [N][HD], from the Gram matrix G =
 * O · Oᵀ [HD][HD] (full, in double); XD and XG [N][HD] working memory. Returns their sum. */
static double
gram_norms (float *out, const float *x, int n, int hd, const double *g, double *xd, double *xg)
{
  for (gsize i = 0; i < (gsize) n * hd; i++)
    xd[i] = x[i];
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, n, hd, hd, 1.0, xd, hd, g, hd, 0.0, xg,
               hd);
  double total = 0.0;
  for (int i = 0; i < n; i++)
    {
      double q = 0.0;
      for (int a = 0; a < hd; a++)
        q += xd[(gsize) i * hd + a] * xg[(gsize) i * hd + a];
      float v = (float) sqrt (MAX (q, 0.0)); /* a rounding may leave 0 a hair below */
      if (out != NULL)
        out[i] = v;
      total += v;
    }
  return total;
}

#define FIRST_RATIO_ROWS 64

/* Norm-weighted over weight-only attention on key 0, averaged over the queries of head H. */
static float
first_ratio (const AsAttentionNorms *norms, const AsTrace *t, int layer, int head)
{
  int T = t->n_tokens, block = MIN (FIRST_RATIO_ROWS, T);
  /* the head read FIRST_RATIO_ROWS rows at a time (a long text's is never expanded whole), the
   * sums in the same order as over the whole matrix */
  g_autofree float *tile = g_new (float, (gsize) block *T);        /* [block][T] */
  const float *n = as_attention_norms_values (norms, layer, head); /* [T] */
  double weighted = 0.0, plain = 0.0;
  for (int r0 = 0; r0 < T; r0 += block)
    {
      int rows = MIN (block, T - r0);
      as_trace_attention_tile (t, layer, head, r0, rows, 0, T, tile, T);
      for (int i = 0; i < rows; i++)
        {
          const float *row = tile + (gsize) i * T;
          double sum = 0.0;
          for (int j = 0; j < T; j++)
            sum += (double) row[j] * n[j];
          weighted += sum > 0.0 ? row[0] * n[0] / sum : 0.0;
          plain += row[0];
        }
    }
  return plain > 0.0 ? (float) (weighted / plain) : 0.0f;
}

/* One layer's heads, a head per worker. */
typedef struct
{
  AsAttentionNorms *norms;
  const AsTrace *t;
  const float *o; /* [H][hd][D] */
  int layer;
  double *writes; /* [H] */
} LayerJob;

/* Head H's value norms and write (the team's block function: heads are independent). */
static void
head_norms (gpointer data, int h)
{
  const LayerJob *job = data;
  const AsTrace *t = job->t;
  int l = job->layer, H = t->n_head, T = t->n_tokens, hd = t->head_dim, D = t->d_model;
  g_autofree double *od = g_new (double, (gsize) hd *D); /* O_h [hd][D] */
  g_autofree double *g = g_new (double, (gsize) hd *hd); /* G_h [hd][hd] */
  g_autofree double *xd = g_new (double, (gsize) T *hd);
  g_autofree double *xg = g_new (double, (gsize) T *hd);
  const float *oh = job->o + (gsize) h * hd * D;
  for (gsize i = 0; i < (gsize) hd * D; i++)
    od[i] = oh[i];
  cblas_dsyrk (CblasRowMajor, CblasUpper, CblasNoTrans, hd, D, 1.0, od, D, 0.0, g, hd);
  for (int a = 0; a < hd; a++)
    for (int b = 0; b < a; b++)
      g[(gsize) a * hd + b] = g[(gsize) b * hd + a];
  float *values = job->norms->value_norms + ((gsize) l * H + h) * T;
  gram_norms (values, as_trace_head_vectors (t, t->v, l, h), T, hd, g, xd, xg);
  job->writes[h] = gram_norms (NULL, as_trace_head_vectors (t, t->ctx, l, h), T, hd, g, xd, xg);
}

/* Layer L's value norms, head shares and ratios; O [H][hd][D] working memory. */
static void
layer_norms (AsAttentionNorms *norms, const AsTrace *t, AsWorkerTeam *team, const AsReadout *pieces,
             int l, float *o)
{
  int H = t->n_head, hd = t->head_dim, D = t->d_model;
  as_output_pieces_heads (o, pieces, l, H, hd, D);
  g_autofree double *writes = g_new0 (double, H);
  LayerJob job = { .norms = norms, .t = t, .o = o, .layer = l, .writes = writes };
  as_worker_team_run_blocks (team, H, head_norms, &job);
  double total = 0.0;
  for (int h = 0; h < H; h++)
    total += writes[h];
  for (int h = 0; h < H; h++)
    {
      norms->head_shares[l * H + h] = total > 0.0 ? (float) (writes[h] / total) : 0.0f;
      norms->first_ratios[l * H + h] = first_ratio (norms, t, l, h);
    }
}

AsAttentionNorms *
as_attention_norms_compute (AsModel *model, const AsTrace *trace, GCancellable *cancellable,
                            GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL, NULL);
  if (trace->v == NULL)
    {
      g_set_error_literal (error, AS_ERROR, AS_ERROR_INPUT,
                           "the attention norms need the values of every head: run the forward "
                           "pass with q, k and v captured");
      return NULL;
    }
  AsReadout pieces;
  if (!as_output_pieces_get (model, "the attention norms", FALSE, &pieces, error))
    return NULL;
  int L = trace->n_layer, H = trace->n_head, T = trace->n_tokens;
  gsize D = trace->d_model, hd = trace->head_dim;
  g_autoptr (AsAttentionNorms) norms = g_new0 (AsAttentionNorms, 1);
  norms->n_layer = L;
  norms->n_head = H;
  norms->n_tokens = T;
  norms->value_norms = g_try_new0 (float, (gsize) L *H *T);
  norms->head_shares = g_new0 (float, (gsize) L *H);
  norms->first_ratios = g_new0 (float, (gsize) L *H);
  g_autofree float *o = g_try_new (float, (gsize) H *hd *D); /* [H][hd][D] */
  if (norms->value_norms == NULL || o == NULL)
    {
      as_output_pieces_clear (&pieces);
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the attention norms of %d tokens", T);
      return NULL;
    }
  as_blas_single_threaded ();
  g_autoptr (AsWorkerTeam) team = as_worker_team_new (as_forward_threads ());
  for (int l = 0; l < L; l++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          as_output_pieces_clear (&pieces);
          return NULL;
        }
      layer_norms (norms, trace, team, &pieces, l, o);
    }
  as_output_pieces_clear (&pieces);
  return g_steal_pointer (&norms);
}

AsAttentionNorms *
as_attention_norms_of_trace (AsModel *model, const AsTrace *trace, GCancellable *cancellable,
                             GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL, NULL);
  gboolean translation = as_model_get_config (model)->encoder_decoder;
  if (translation && trace->source == NULL)
    {
      /* a translation's encoder: the readout's output projections are the decoder's */
      g_set_error_literal (error, AS_ERROR, AS_ERROR_INPUT,
                           "the attention norms of a translation model are of its decoder's "
                           "self-attention: the core reads no output projection of the encoder's "
                           "heads");
      return NULL;
    }
  if (trace->v != NULL)
    return as_attention_norms_compute (model, trace, cancellable, error);
  AsReadout pieces;
  if (!as_output_pieces_get (model, "the attention norms", FALSE, &pieces, error))
    return NULL;
  as_output_pieces_clear (&pieces);
  if (translation)
    {
      g_set_error_literal (error, AS_ERROR, AS_ERROR_INPUT,
                           "the attention norms need the decoder's values: run the translation "
                           "with q, k and v captured");
      return NULL;
    }
  AsForwardOptions options = { .capture_qkv = TRUE,
                               .type_ids = trace->type_ids,
                               .cancellable = cancellable,
                               .attention = AS_ATTENTION_ON_DEMAND };
  g_autoptr (AsTrace) qkv = as_forward (model, trace->ids, trace->n_tokens, &options, error);
  if (qkv == NULL)
    return NULL;
  return as_attention_norms_compute (model, qkv, cancellable, error);
}

void
as_attention_norms_row (float *out, const AsAttentionNorms *norms, const AsTrace *trace, int layer,
                        int head, int row)
{
  int T = trace->n_tokens;
  const float *n = as_attention_norms_values (norms, layer, head);
  as_trace_attention_tile (trace, layer, head, row, 1, 0, T, out, T);
  for (int j = 0; j < T; j++)
    out[j] *= n[j];
}

void
as_attention_norms_row_normalised (float *out, const AsAttentionNorms *norms, const AsTrace *trace,
                                   int layer, int head, int row)
{
  int T = trace->n_tokens;
  as_attention_norms_row (out, norms, trace, layer, head, row);
  double sum = 0.0;
  for (int j = 0; j < T; j++)
    sum += out[j];
  for (int j = 0; j < T; j++)
    out[j] = sum > 0.0 ? (float) (out[j] / sum) : 0.0f;
}

void
as_attention_norms_free (AsAttentionNorms *norms)
{
  if (norms == NULL)
    return;
  g_free (norms->value_norms);
  g_free (norms->head_shares);
  g_free (norms->first_ratios);
  g_free (norms);
}

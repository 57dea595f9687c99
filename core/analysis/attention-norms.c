/* attention-norms.c — attention weighted by the norms of what each key writes
 * (as-attention-norms.h).
 *
 * Per layer: O [H][hd][D] = the output projection head by head (output-pieces-private.h); per
 * head F = V_h [T][hd] · O_h [hd][D] and C = ctx_h [T][hd] · O_h, products on the pass's worker
 * team in fixed blocks (the same bits for every thread count); ‖F_j‖ are the value norms, Σ_i
 * ‖C_i‖ the head's write. Norms are summed in double. */
#include "as-attention-norms.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "blas-threads-private.h"
#include "kernels-private.h"
#include "output-pieces-private.h"

/* OUT [n] = ‖row i‖ of X [n][d]; returns their sum. */
static double
row_norms (float *out, const float *x, int n, int d)
{
  double total = 0.0;
  for (int i = 0; i < n; i++)
    {
      float v = (float) sqrt (as_sum_squares (x + (gsize) i * d, d));
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

/* Layer L's value norms, head shares and ratios; O [H][hd][D], F [T][D] working memory. */
static void
layer_norms (AsAttentionNorms *norms, const AsTrace *t, AsWorkerTeam *team, const AsReadout *pieces,
             int l, float *o, float *f)
{
  int H = t->n_head, T = t->n_tokens, hd = t->head_dim, D = t->d_model;
  as_output_pieces_heads (o, pieces, l, H, hd, D);
  g_autofree double *writes = g_new0 (double, H);
  double total = 0.0;
  for (int h = 0; h < H; h++)
    {
      const float *oh = o + (gsize) h * hd * D; /* [hd][D] */
      float *values = norms->value_norms + ((gsize) l * H + h) * T;
      as_matmul (team, f, as_trace_head_vectors (t, t->v, l, h), oh, NULL, T, hd, D);
      row_norms (values, f, T, D);
      as_matmul (team, f, as_trace_head_vectors (t, t->ctx, l, h), oh, NULL, T, hd, D);
      writes[h] = row_norms (NULL, f, T, D);
      total += writes[h];
    }
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
  g_autofree float *f = g_try_new (float, (gsize) T *D);     /* [T][D] */
  if (norms->value_norms == NULL || o == NULL || f == NULL)
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
      layer_norms (norms, trace, team, &pieces, l, o, f);
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

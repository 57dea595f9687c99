/* attribution.c — direct logit attribution (as-attribution.h).
 *
 * At position p, with g [D] the output matrix's row of the target (minus the other token's):
 *   logit = g · N(r),  r = embeddings + Σ_l (attention_l + mlp_l)   the residual the final
 *                                                                    norm received (trace)
 *   N frozen at the run: LayerNorm N(c) = (c − mean c)/σ ⊙ w + b, RMSNorm c/rms ⊙ w
 *   so part(c) = e · c with e = (g⊙w − mean(g⊙w))/σ (LayerNorm) or g⊙w/rms, and norm_bias = g·b.
 *   attention_l = Σ_h ctx_h · O_h + o_b (a post-attention norm: frozen at the rms of the
 *   attention output, its weight folded into e); mlp_l = what is left of the block's update,
 *   hidden[l+1] − hidden[l] − attention_l (the residual r for the last block) — exact for
 *   sequential and parallel residuals alike.
 * A head's part is ctx_h · (O_h · e): the output projection runs backwards once per layer
 * (one matrix–vector product) instead of forwards once per head. Sums run in double. */
#include "as-attribution.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-lens.h"
#include "attribution-seq2seq-private.h"
#include "output-pieces-private.h"

/* g [D] = unembed[target] − unembed[vs] (vs < 0: none). */
static void
logit_direction (float *g, const AsReadout *pieces, int32_t target, int32_t vs, int D)
{
  as_output_pieces_unembed_row (g, pieces, target, D);
  if (vs < 0)
    return;
  g_autofree float *other = g_new (float, D);
  as_output_pieces_unembed_row (other, pieces, vs, D);
  for (int i = 0; i < D; i++)
    g[i] -= other[i];
}

/* √(mean(x²) + eps), and for LayerNorm √(var(x) + eps) with MEAN = mean(x). */
static double
norm_scale (const float *x, int D, AsReadoutNorm kind, float eps, double *mean)
{
  double s = 0.0, ss = 0.0;
  for (int i = 0; i < D; i++)
    s += x[i];
  *mean = kind == AS_READOUT_LAYERNORM ? s / D : 0.0;
  for (int i = 0; i < D; i++)
    ss += (x[i] - *mean) * (x[i] - *mean);
  return sqrt (ss / D + eps);
}

/* E [D]: part(c) = e · c for the final norm frozen at residual R [D]. */
static void
frozen_direction (double *e, const float *g, const AsReadout *pieces, const float *r, int D)
{
  double mean, gw_mean = 0.0;
  double scale = norm_scale (r, D, pieces->norm, pieces->eps, &mean);
  for (int i = 0; i < D; i++)
    {
      e[i] = (double) g[i] * pieces->norm_w[i];
      gw_mean += e[i];
    }
  gw_mean = pieces->norm == AS_READOUT_LAYERNORM ? gw_mean / D : 0.0;
  for (int i = 0; i < D; i++)
    e[i] = (e[i] - gw_mean) / scale;
}

static double
dot (const double *e, const float *c, int D)
{
  double s = 0.0;
  for (int i = 0; i < D; i++)
    s += e[i] * c[i];
  return s;
}

/* Layer L's parts at position P into OUT; E [D] the frozen direction; U [H·hd], EL, A and ELF
 * [D] working memory. */
static void
layer_parts (AsAttribution *out, const AsTrace *t, const AsReadout *pieces, const double *e, int l,
             int p, float *u, double *el, float *a, float *elf)
{
  int H = t->n_head, hd = t->head_dim, D = t->d_model;
  const AsReadoutLayer *rl = &pieces->layers[l];
  const float *attn = as_trace_attn_out (t, l) + (gsize) p * D; /* [D] */
  /* the attention's write into the residual: A = attn, or post_w ⊙ attn / rms(attn) */
  double mean, rms = 1.0;
  if (rl->post_w != NULL)
    rms = norm_scale (attn, D, AS_READOUT_RMSNORM, pieces->eps, &mean);
  for (int i = 0; i < D; i++)
    {
      double w = rl->post_w != NULL ? rl->post_w[i] / rms : 1.0;
      el[i] = e[i] * w;
      elf[i] = (float) el[i];
      a[i] = rl->post_w != NULL ? (float) (attn[i] * w) : attn[i];
    }
  as_output_pieces_project (u, pieces, l, elf, H * hd, D); /* u = O · el */
  for (int h = 0; h < H; h++)
    {
      const float *ctx = as_trace_head_vectors (t, t->ctx, l, h) + (gsize) p * hd; /* [hd] */
      double s = 0.0;
      for (int k = 0; k < hd; k++)
        s += (double) ctx[k] * u[h * hd + k];
      out->heads[l * H + h] = (float) s;
    }
  out->attn_biases[l] = rl->o_b != NULL ? (float) dot (el, rl->o_b, D) : 0.0f;
  /* the MLP: the rest of the block's update */
  const float *before = as_trace_hidden (t, l) + (gsize) p * D;
  const float *after
      = (l + 1 < t->n_layer ? as_trace_hidden (t, l + 1) : t->residual) + (gsize) p * D;
  double m = 0.0;
  for (int i = 0; i < D; i++)
    m += e[i] * ((double) after[i] - before[i] - a[i]);
  out->mlps[l] = (float) m;
}

static gboolean
check_request (const AsTrace *t, int position, int32_t target, int32_t vs, GError **error)
{
  if (position < 0 || position >= t->n_tokens)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "position %d is out of range: the text has %d tokens (0..%d)", position,
                   t->n_tokens, t->n_tokens - 1);
      return FALSE;
    }
  int32_t ids[2] = { target, vs };
  for (int i = 0; i < 2; i++)
    if (ids[i] >= t->vocab_size || (i == 0 && ids[i] < 0))
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "token id %d is outside the vocabulary (0..%d)", ids[i], t->vocab_size - 1);
        return FALSE;
      }
  return TRUE;
}

/* The sum of the parts and the logit of the run at P. */
static void
finish_sums (AsAttribution *out, const AsTrace *t, const float *g, int p)
{
  int L = t->n_layer, H = t->n_head, D = t->d_model;
  double sum = (double) out->embeddings + out->norm_bias;
  for (int l = 0; l < L; l++)
    {
      sum += (double) out->mlps[l] + out->attn_biases[l];
      for (int h = 0; h < H; h++)
        sum += out->heads[l * H + h];
    }
  out->sum = (float) sum;
  const float *final = as_trace_hidden (t, L) + (gsize) p * D;
  double logit = 0.0;
  for (int i = 0; i < D; i++)
    logit += (double) g[i] * final[i];
  out->logit = (float) logit;
}

gboolean
as_attribution_supported (AsModel *model, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  if (c->vocab_size == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s has no output head: there is no logit to attribute",
                   as_model_get_name (model));
      return FALSE;
    }
  if (c->encoder_decoder && as_attribution_seq2seq_supported (model))
    return TRUE;
  AsReadout pieces;
  if (!as_output_pieces_get (model, "direct logit attribution", TRUE, &pieces, error))
    return FALSE;
  as_output_pieces_clear (&pieces);
  return TRUE;
}

AsAttribution *
as_attribution_compute (AsModel *model, const AsTrace *trace, int position, int32_t target_id,
                        int32_t vs_id, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL, NULL);
  if (trace->vocab_size == 0 || trace->logits_rows == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s has no output head: there is no logit to attribute",
                   as_model_get_name (model));
      return NULL;
    }
  if (!check_request (trace, position, target_id, vs_id, error))
    return NULL;
  if (trace->source != NULL)
    return as_attribution_seq2seq_compute (model, trace, position, target_id, vs_id, error);
  AsReadout pieces;
  if (!as_output_pieces_get (model, "direct logit attribution", TRUE, &pieces, error))
    return NULL;
  int L = trace->n_layer, H = trace->n_head, D = trace->d_model, p = position;
  AsAttribution *out = g_new0 (AsAttribution, 1);
  out->n_layer = L;
  out->n_head = H;
  out->position = p;
  out->target_id = target_id;
  out->vs_id = vs_id;
  out->heads = g_new0 (float, (gsize) L *H);
  out->mlps = g_new0 (float, L);
  out->attn_biases = g_new0 (float, L);

  g_autofree float *g = g_new (float, D);                           /* [D] */
  g_autofree double *e = g_new (double, D);                         /* [D] */
  g_autofree double *el = g_new (double, D);                        /* [D] */
  g_autofree float *a = g_new (float, D);                           /* [D] */
  g_autofree float *u = g_new (float, (gsize) H * trace->head_dim); /* [H·hd] */
  g_autofree float *elf = g_new (float, D);                         /* [D] */
  logit_direction (g, &pieces, target_id, vs_id, D);
  frozen_direction (e, g, &pieces, trace->residual + (gsize) p * D, D);
  out->embeddings = (float) dot (e, as_trace_hidden (trace, 0) + (gsize) p * D, D);
  double nb = 0.0;
  for (int i = 0; pieces.norm_b != NULL && i < D; i++)
    nb += (double) g[i] * pieces.norm_b[i];
  out->norm_bias = (float) nb;
  for (int l = 0; l < L; l++)
    layer_parts (out, trace, &pieces, e, l, p, u, el, a, elf);
  finish_sums (out, trace, g, p);
  as_output_pieces_clear (&pieces);
  return out;
}

void
as_attribution_free (AsAttribution *attribution)
{
  if (attribution == NULL)
    return;
  g_free (attribution->heads);
  g_free (attribution->mlps);
  g_free (attribution->attn_biases);
  g_free (attribution->cross_heads);
  g_free (attribution->cross_biases);
  g_free (attribution->norm_biases);
  g_free (attribution);
}

gboolean
as_attribution_predicted_id (AsModel *model, const AsTrace *trace, int position, int32_t *id,
                             GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL && id != NULL, FALSE);
  if (trace->vocab_size == 0 || trace->logits_rows == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s has no output head: there is no logit to attribute",
                   as_model_get_name (model));
      return FALSE;
    }
  if (!check_request (trace, position, 0, -1, error))
    return FALSE;
  int V = trace->vocab_size;
  if (trace->logits_rows == trace->n_tokens || position == trace->n_tokens - 1)
    {
      int row = trace->logits_rows == trace->n_tokens ? position : trace->logits_rows - 1;
      const float *logits = trace->logits + (gsize) row * V; /* [V] */
      int32_t best = 0;
      for (int32_t v = 1; v < V; v++)
        best = logits[v] > logits[best] ? v : best;
      *id = best;
      return TRUE;
    }
  g_autoptr (AsLens) lens = as_lens_compute (model, trace, &position, 1, 1, -1, NULL, error);
  if (lens == NULL)
    return FALSE;
  *id = as_lens_cell (lens, lens->n_hidden - 1, 0)->top[0].id;
  return TRUE;
}

/* attribution-seq2seq.c — direct logit attribution for the decoder of an encoder–decoder model
 * (attribution-seq2seq-private.h; core/analysis/README.md, "Direct logit attribution").
 *
 * The family replays the position (model/replay-private.h): the heads' contexts of both
 * attentions, the MLPs' outputs, the embeddings, and every norm on the residual path with its σ
 * in the run. Each norm frozen there is affine, N(z) = (z − mean z)/σ ⊙ w + b, so
 *   logit = g · s·hidden[L] + flb[target] (− flb[vs])
 * is a sum of parts, each pushed forward through the later frozen norms. Instead of pushing every
 * part forwards the direction runs backwards once: after a norm the direction is e, before it
 *   e' = (e⊙w − mean(e⊙w))/σ   (RMSNorm: e⊙w/σ)
 * and the norm's own bias contributes e · b. Walking the decoder from the top, a part entering
 * the residual between two norms is e · part with the e of that stretch:
 *   post-norm (Marian, BART) per layer, top down: LN3 (bias), MLP, LN2 (bias), cross heads and
 *     bias, LN1 (bias), self heads and bias; then the embedding norm (bias) and the embeddings;
 *   pre-norm (mBART, T5): the final norm, then every block's writes with the same e.
 * A head's part is ctx_h · (O_h · e). Sums run in double. */
#include "attribution-seq2seq-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "family-private.h"
#include "model-private.h"

static double
dot_d (const double *e, const float *x, int d)
{
  double s = 0.0;
  for (int i = 0; i < d; i++)
    s += e[i] * x[i];
  return s;
}

/* Through NORM backwards: returns e · b, and E becomes the direction before the norm. */
static double
through_norm (double *e, const AsReplayNorm *norm, int d)
{
  if (norm->w == NULL)
    return 0.0;
  double bias = norm->b != NULL ? dot_d (e, norm->b, d) : 0.0, mean = 0.0;
  for (int i = 0; i < d; i++)
    {
      e[i] *= norm->w[i];
      mean += e[i];
    }
  mean = norm->centred ? mean / d : 0.0;
  for (int i = 0; i < d; i++)
    e[i] = (e[i] - mean) / norm->sigma;
  return bias;
}

/* HEADS [H] = each head's ctx_h · (O_h · e); returns e · o_b. */
static double
attention_parts (float *heads, const AsReplayAttention *a, const double *e, int H, int hd, int d)
{
  int in = H * hd;
  for (int h = 0; h < H; h++)
    {
      double s = 0.0;
      for (int k = 0; k < hd; k++)
        {
          int j = h * hd + k;
          double u = 0.0; /* (O · e)[j] */
          if (a->o_in_out)
            for (int i = 0; i < d; i++)
              u += (double) a->o[(gsize) j * d + i] * e[i];
          else
            for (int i = 0; i < d; i++)
              u += (double) a->o[(gsize) i * in + j] * e[i];
          s += (double) a->ctx[j] * u;
        }
      heads[h] = (float) s;
    }
  return a->o_b != NULL ? dot_d (e, a->o_b, d) : 0.0;
}

static AsAttribution *
attribution_new (const AsReplay *r, int position, int32_t target, int32_t vs)
{
  int L = r->n_layer, H = r->n_head;
  AsAttribution *out = g_new0 (AsAttribution, 1);
  out->n_layer = L;
  out->n_head = H;
  out->position = position;
  out->target_id = target;
  out->vs_id = vs;
  out->heads = g_new0 (float, (gsize) L *H);
  out->cross_heads = g_new0 (float, (gsize) L *H);
  out->mlps = g_new0 (float, L);
  out->attn_biases = g_new0 (float, L);
  out->cross_biases = g_new0 (float, L);
  out->norm_biases = g_new0 (float, L);
  return out;
}

/* The walk from the top (the file's comment); E [D] the direction after the final norm. */
static void
walk (AsAttribution *out, const AsReplay *r, double *e)
{
  int L = r->n_layer, H = r->n_head, hd = r->head_dim, D = r->d_model;
  double norm_bias = through_norm (e, &r->final_norm, D);
  for (int l = L - 1; l >= 0; l--)
    {
      const AsReplayLayer *y = &r->layers[l];
      double nb = r->post_norm ? through_norm (e, &y->norms[2], D) : 0.0;
      out->mlps[l] = (float) dot_d (e, y->mlp, D);
      if (r->post_norm)
        nb += through_norm (e, &y->norms[1], D);
      out->cross_biases[l]
          = (float) attention_parts (out->cross_heads + (gsize) l * H, &y->cross, e, H, hd, D);
      if (r->post_norm)
        nb += through_norm (e, &y->norms[0], D);
      out->attn_biases[l]
          = (float) attention_parts (out->heads + (gsize) l * H, &y->self, e, H, hd, D);
      out->norm_biases[l] = (float) nb;
    }
  norm_bias += through_norm (e, &r->embed_norm, D);
  out->norm_bias = (float) norm_bias;
  out->embeddings = (float) dot_d (e, r->embeddings, D);
}

static void
finish_sums (AsAttribution *out)
{
  int L = out->n_layer, H = out->n_head;
  double sum = (double) out->embeddings + out->norm_bias + out->final_logits_bias;
  for (int l = 0; l < L; l++)
    {
      sum += (double) out->mlps[l] + out->attn_biases[l] + out->cross_biases[l]
             + out->norm_biases[l];
      for (int h = 0; h < H; h++)
        sum += (double) out->heads[l * H + h] + out->cross_heads[l * H + h];
    }
  out->sum = (float) sum;
}

gboolean
as_attribution_seq2seq_supported (AsModel *model)
{
  return as_model_get_config (model)->ops->stack->replay != NULL;
}

AsAttribution *
as_attribution_seq2seq_compute (AsModel *model, const AsTrace *trace, int position,
                                int32_t target_id, int32_t vs_id, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  if (!as_attribution_seq2seq_supported (model) || trace->source == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "direct logit attribution is not available for %s (%s): its decoder cannot "
                   "be replayed",
                   as_model_get_name (model), c->ops->name);
      return NULL;
    }
  AsReplay r;
  if (!c->ops->stack->replay (c, as_model_get_weights (model), trace, position, &r, error))
    return NULL;
  int D = r.d_model;
  AsAttribution *out = attribution_new (&r, position, target_id, vs_id);
  g_autofree double *g = g_new (double, D); /* [D] */
  g_autofree double *e = g_new (double, D); /* [D] */
  const float *row = r.unembed + (gsize) target_id * D;
  const float *other = vs_id >= 0 ? r.unembed + (gsize) vs_id * D : NULL;
  for (int i = 0; i < D; i++)
    g[i] = e[i] = ((double) row[i] - (other != NULL ? other[i] : 0.0)) * r.unembed_scale;
  if (r.final_logits_bias != NULL)
    out->final_logits_bias
        = r.final_logits_bias[target_id] - (vs_id >= 0 ? r.final_logits_bias[vs_id] : 0.0f);
  walk (out, &r, e);
  finish_sums (out);
  const float *final = as_trace_hidden (trace, trace->n_layer) + (gsize) position * D;
  double logit = out->final_logits_bias;
  for (int i = 0; i < D; i++)
    logit += g[i] * final[i];
  out->logit = (float) logit;
  as_replay_clear (&r);
  return out;
}

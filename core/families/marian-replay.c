/* marian-replay.c — one position of the Marian / BART / mBART decoder replayed from its trace
 * (model/replay-private.h), for direct logit attribution: the embeddings before BART's embedding
 * norm, each layer's self-attention contexts and output (from the trace), the cross-attention
 * contexts (the trace's attention weights times the values of the encoder's output), the MLP's
 * output, and the σ of every LayerNorm on the residual path — three per layer after post-norm
 * (Marian, BART), only the final one before it (mBART). The embeddings are replayed with the
 * positions, or without them for a pass that left them out. The replay must reproduce the run's
 * hidden[L] at the position, or it fails. */
#include "marian-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "kernels-private.h"

/* σ = √(var(x) + eps) in double. */
static double
layernorm_sigma (const float *x, int d)
{
  double s = 0.0, ss = 0.0;
  for (int i = 0; i < d; i++)
    s += x[i];
  double mean = s / d;
  for (int i = 0; i < d; i++)
    ss += (x[i] - mean) * (x[i] - mean);
  return sqrt (ss / d + AS_MARIAN_LN_EPS);
}

/* X [D] = LN(X) with NORM, recording σ into FROZEN. */
static void
frozen_layernorm (float *x, const AsMarianNorm *norm, AsReplayNorm *frozen, int d)
{
  *frozen = (AsReplayNorm){ norm->g, norm->b, layernorm_sigma (x, d), TRUE };
  as_layernorm (x, x, norm->g, norm->b, AS_MARIAN_LN_EPS, 1, d);
}

static AsReplayAttention
attention_of (const AsMarianLinear *out, float *ctx)
{
  return (AsReplayAttention){ out->w, !out->transposed, out->b, ctx };
}

/* CTX [H·hd] = the cross-attention contexts of decoder layer LAYER at POSITION: the trace's
 * weights times the values of the encoder's output; V [S][D] scratch. */
static void
cross_contexts (float *ctx, float *v, const AsTrace *t, const AsMarianLayer *y, int layer,
                int position)
{
  int S = t->source->n_tokens, D = t->d_model;
  const float *enc = as_trace_hidden (t->source, t->source->n_layer); /* [S][D] */
  as_marian_linear (NULL, v, enc, &y->cross_attn.v, S, D, D);
  as_replay_cross_contexts (ctx, t, layer, position, v, D);
}

/* x [D] through decoder layer L at the position; BUF [D], FF [F], V [S][D] scratch. */
static void
replay_layer (const AsConfig *c, const AsMarianLayer *y, const AsTrace *t, int l, int p, float *x,
              AsReplayLayer *out, float *buf, float *ff, float *v)
{
  int D = t->d_model, hd = t->head_dim, F = c->n_inner;
  gboolean post = as_marian_settings (c)->norm_place == AS_MARIAN_POST_NORM;
  for (int h = 0; h < t->n_head; h++)
    memcpy (out->self.ctx + h * hd, as_trace_head_vectors (t, t->ctx, l, h) + (gsize) p * hd,
            sizeof (float) * hd);
  as_add_inplace (x, as_trace_attn_out (t, l) + (gsize) p * D, D);
  if (post)
    frozen_layernorm (x, &y->self_attn_norm, &out->norms[0], D);

  cross_contexts (out->cross.ctx, v, t, y, l, p);
  as_marian_linear (NULL, buf, out->cross.ctx, &y->cross_attn.out, 1, D, D);
  as_add_inplace (x, buf, D);
  if (post)
    frozen_layernorm (x, &y->cross_attn_norm, &out->norms[1], D);

  const float *in = x;
  if (!post)
    {
      as_layernorm (buf, x, y->final_norm.g, y->final_norm.b, AS_MARIAN_LN_EPS, 1, D);
      in = buf;
    }
  as_marian_linear (NULL, ff, in, &y->fc1, 1, D, F);
  as_activate (ff, F, c->activation);
  as_marian_linear (NULL, out->mlp, ff, &y->fc2, 1, F, D);
  as_add_inplace (x, out->mlp, D);
  if (post)
    frozen_layernorm (x, &y->final_norm, &out->norms[2], D);
}

/* Whether X [D] is the run's ROW [D] within 1e-3 of its largest value. */
static gboolean
reproduces (const float *x, const float *row, int d)
{
  float top = 1e-6f, err = 0.0f;
  for (int i = 0; i < d; i++)
    {
      top = MAX (top, fabsf (row[i]));
      err = MAX (err, fabsf (x[i] - row[i]));
    }
  return err <= 1e-3f * top;
}

gboolean
as_marian_replay (const AsConfig *c, gconstpointer weights, const AsTrace *t, int p, AsReplay *out,
                  GError **error)
{
  const AsMarianWeights *w = weights;
  const AsMarianStack *d = &w->decoder;
  const AsMarianSettings *set = as_marian_settings (c);
  int L = t->n_layer, D = t->d_model, S = t->source->n_tokens;
  memset (out, 0, sizeof *out);
  *out = (AsReplay){ .n_layer = L,
                     .n_head = t->n_head,
                     .head_dim = t->head_dim,
                     .d_model = D,
                     .post_norm = set->norm_place == AS_MARIAN_POST_NORM,
                     .unembed = w->shared,
                     .unembed_scale = 1.0f,
                     .final_logits_bias = w->final_logits_bias };
  out->owned = g_new0 (float, (gsize) D *(2 + 3 * L));
  out->layers = g_new0 (AsReplayLayer, L);
  out->embeddings = out->owned;
  float *x = out->owned + D; /* [D] the residual stream, replayed */
  for (int l = 0; l < L; l++)
    {
      float *base = out->owned + (gsize) D * (2 + 3 * l);
      AsReplayLayer *rl = &out->layers[l];
      rl->self = attention_of (&d->layers[l].self_attn.out, base);
      rl->cross = attention_of (&d->layers[l].cross_attn.out, base + D);
      rl->mlp = base + 2 * D;
    }
  /* the embeddings: as as_marian_embed, one row; with the positions, or without them for a pass
   * that left them out (the No Positions view) */
  const float *e = w->shared + (gsize) t->ids[p] * D, *pe = d->positions + (gsize) p * D;
  gboolean same = FALSE;
  for (int positions = 1; !same && positions >= 0; positions--)
    {
      for (int i = 0; i < D; i++)
        out->embeddings[i] = e[i] * set->embed_scale + (positions ? pe[i] : 0.0f);
      memcpy (x, out->embeddings, sizeof (float) * D);
      if (d->embed_norm.g != NULL)
        frozen_layernorm (x, &d->embed_norm, &out->embed_norm, D);
      same = reproduces (x, as_trace_hidden (t, 0) + (gsize) p * D, D);
    }
  g_autofree float *buf = g_new (float, D), *ff = g_new (float, c->n_inner);
  g_autofree float *v = g_new (float, (gsize) S *D);
  for (int l = 0; same && l < L; l++)
    replay_layer (c, &d->layers[l], t, l, p, x, &out->layers[l], buf, ff, v);
  if (d->final_norm.g != NULL)
    frozen_layernorm (x, &d->final_norm, &out->final_norm, D);
  if (!same || !reproduces (x, as_trace_hidden (t, L) + (gsize) p * D, D))
    {
      return as_replay_fail (out, error);
    }
  return TRUE;
}

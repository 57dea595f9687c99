/* t5-replay.c — one position of the T5 decoder replayed from its trace (model/replay-private.h),
 * for direct logit attribution. T5 is pre-norm with RMS norms and no biases: the final RMSNorm is
 * the only norm on the residual path, frozen at the rms of the residual it received. The parts:
 * the token embedding (no position vectors: the relative position bias only moves the attention
 * weights, which the heads' contexts already hold), each head's context of both attentions (the
 * cross-attention's as the trace's weights times the values of the encoder's output), and each
 * MLP as what is left of its layer's update. The output matrix reads hidden[L]·D^-½ when the
 * embeddings are tied. */
#include "t5-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "kernels-private.h"

/* CTX [H·d_kv] = the cross-attention contexts of decoder layer LAYER at POSITION; V [S][H·d_kv]
 * scratch. */
static void
cross_contexts (float *ctx, float *v, const AsTrace *t, const AsT5Layer *y, int layer, int p)
{
  int S = t->source->n_tokens, D = t->d_model, I = t->n_head * t->head_dim;
  const float *enc = as_trace_hidden (t->source, t->source->n_layer); /* [S][D] */
  as_t5_linear (NULL, v, enc, y->cross_attn.v, S, D, I);
  as_replay_cross_contexts (ctx, t, layer, p, v, I);
}

static double
rms (const float *x, int d, float eps)
{
  double ss = 0.0;
  for (int i = 0; i < d; i++)
    ss += (double) x[i] * x[i];
  return sqrt (ss / d + eps);
}

gboolean
as_t5_replay (const AsConfig *c, gconstpointer weights, const AsTrace *t, int p, AsReplay *out,
              GError **error)
{
  const AsT5Weights *w = weights;
  const AsT5Stack *d = &w->decoder;
  int L = t->n_layer, D = t->d_model, H = t->n_head, hd = t->head_dim, I = H * hd;
  int S = t->source->n_tokens;
  *out = (AsReplay){ .n_layer = L,
                     .n_head = H,
                     .head_dim = hd,
                     .d_model = D,
                     .post_norm = FALSE,
                     .unembed = w->lm_head,
                     .unembed_scale = as_t5_settings (c)->output_scale };
  out->owned = g_new0 (float, (gsize) D *(1 + L) + (gsize) 2 * L * I);
  out->layers = g_new0 (AsReplayLayer, L);
  out->embeddings = out->owned;
  memcpy (out->embeddings, w->shared + (gsize) t->ids[p] * D, sizeof (float) * D);
  g_autofree float *v = g_new (float, (gsize) S *I), *ca = g_new (float, D);
  float top = 1e-6f, err = 0.0f;
  for (int l = 0; l < L; l++)
    {
      AsReplayLayer *rl = &out->layers[l];
      const AsT5Layer *y = &d->layers[l];
      float *base = out->owned + (gsize) D * (1 + L) + (gsize) 2 * l * I;
      rl->self = (AsReplayAttention){ y->self_attn.o, FALSE, NULL, base };
      rl->cross = (AsReplayAttention){ y->cross_attn.o, FALSE, NULL, base + I };
      rl->mlp = out->owned + (gsize) D * (1 + l);
      for (int h = 0; h < H; h++)
        memcpy (rl->self.ctx + h * hd, as_trace_head_vectors (t, t->ctx, l, h) + (gsize) p * hd,
                sizeof (float) * hd);
      cross_contexts (rl->cross.ctx, v, t, y, l, p);
      as_t5_linear (NULL, ca, rl->cross.ctx, y->cross_attn.o, 1, I, D);
      const float *sa = as_trace_attn_out (t, l) + (gsize) p * D;
      const float *before = as_trace_hidden (t, l) + (gsize) p * D;
      const float *after = (l + 1 < L ? as_trace_hidden (t, l + 1) : t->residual) + (gsize) p * D;
      for (int i = 0; i < D; i++)
        rl->mlp[i] = after[i] - before[i] - sa[i] - ca[i];
      if (l == 0)
        for (int i = 0; i < D; i++)
          {
            top = MAX (top, fabsf (before[i]));
            err = MAX (err, fabsf (before[i] - out->embeddings[i]));
          }
    }
  const float *residual = t->residual + (gsize) p * D;
  out->final_norm
      = (AsReplayNorm){ d->final_norm, NULL, rms (residual, D, c->layer_norm_eps), FALSE };
  if (err > 1e-3f * top)
    {
      return as_replay_fail (out, error);
    }
  return TRUE;
}

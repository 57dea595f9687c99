/* encoder-forward.c — the forward pass of BERT, RoBERTa and DistilBERT (post-LN, bidirectional)
 * that keeps everything.
 *
 * Reads top to bottom like the maths in core/families/README.md ("Encoders"):
 *   h = LN(word[ids] + type[type_ids] + position[pos])     pos = 0..T-1, RoBERTa: from pad + 1
 *   per layer: q, k, v = h·W + b; per head P = softmax(q·kᵀ/√hd) (no mask), ctx = P·v;
 *              a = LN(concat(ctx)·W_o + b_o + h);  h = LN(act(a·W_1 + b_1)·W_2 + b_2 + a)
 *   masked-LM head (when present): logits = LN(act(h·W_d + b_d))·wordᵀ + bias
 * hidden_states[0] is the embeddings' LayerNorm output, hidden_states[l+1] layer l's output (the
 * last one is not normalised again). Every intermediate the trace promises goes straight into
 * the trace's arrays.
 *
 * The stages of one stack (model/stack-private.h) that the one forward driver runs
 * (forward/pass.c). Speed: as gpt2-forward.c, one worker team per pass splits each projection by
 * columns and shares the heads out; each head's scores are one T×T product (nothing is
 * masked). */
#include "encoder-private.h"

#include <math.h>
#include <string.h>

#include "attention-private.h"
#include "kernels-private.h"

typedef struct
{
  float *a;  /* [T][D] after the attention block's LayerNorm */
  float *q;  /* [T][D] queries of every head side by side */
  float *k;  /* [T][D] */
  float *v;  /* [T][D] */
  float *cc; /* [T][D] heads' contexts side by side */
  float *y;  /* [T][D] output of a dense layer before its residual */
  float *ff; /* [T][F] feed-forward hidden layer */
} EncoderScratch;

static guint64
encoder_scratch_bytes (const AsConfig *config, int n_tokens, int n_source)
{
  guint64 T = n_tokens, D = config->n_embd, F = config->n_inner;
  return (T * D * 6 + T * F) * sizeof (float);
}

/* The buffers of the pass's working memory. */
static EncoderScratch
scratch_of (const AsPass *p)
{
  gsize TD = (gsize) p->n_tokens * p->config->n_embd;
  EncoderScratch s = { .a = p->scratch };
  s.q = s.a + TD;
  s.k = s.q + TD;
  s.v = s.k + TD;
  s.cc = s.v + TD;
  s.y = s.cc + TD;
  s.ff = s.y + TD;
  return s;
}

/* out [n][out_dim] = x [n][in] · W + b, W in the layout of its file. */
static void
linear (AsWorkerTeam *team, float *out, const float *x, const AsEncoderLinear *w, int n, int in,
        int out_dim)
{
  if (!w->out_in)
    {
      as_matmul (team, out, x, w->w, w->b, n, in, out_dim);
      return;
    }
  as_matmul_transposed (team, out, x, w->w, n, in, out_dim);
  for (int i = 0; i < n; i++)
    as_add_inplace (out + (gsize) i * out_dim, w->b, out_dim);
}

/* pos [T]: 0..T-1, or RoBERTa's create_position_ids_from_input_ids: pad + the running count of
 * non-pad tokens for a non-pad token, pad for a pad token. */
static void
position_ids (int32_t *pos, const AsEncoderSettings *s, const int32_t *ids, int T)
{
  int count = 0;
  for (int t = 0; t < T; t++)
    {
      if (!s->roberta_positions)
        pos[t] = t;
      else if (ids[t] == s->pad_token_id)
        pos[t] = s->pad_token_id;
      else
        pos[t] = s->pad_token_id + ++count;
    }
}

/* x [T][D] = LN(word[ids] + type[type_ids] + position[pos]) (without positions: no position[pos])
 */
static void
encoder_embed (AsPass *p)
{
  const AsEncoderWeights *w = p->weights;
  const AsConfig *c = p->config;
  const int32_t *ids = p->trace->ids;
  const int32_t *type_ids = p->options != NULL ? p->options->type_ids : NULL;
  int T = p->n_tokens, D = c->n_embd;
  g_autofree int32_t *pos = g_new (int32_t, T); /* [T] */
  position_ids (pos, as_encoder_settings (c), ids, T);
  gboolean positions = !as_pass_no_positions (p);
  for (int t = 0; t < T; t++)
    {
      const float *we = w->word + (gsize) ids[t] * D;
      const float *pe = w->position + (gsize) pos[t] * D;
      const float *te
          = w->token_type == NULL ? NULL : w->token_type + (gsize) (type_ids ? type_ids[t] : 0) * D;
      float *xt = p->x + (gsize) t * D;
      for (int i = 0; i < D; i++)
        {
          float e = te != NULL ? we[i] + te[i] : we[i];
          xt[i] = positions ? e + pe[i] : e;
        }
    }
  as_layernorm (p->x, p->x, w->emb_ln_g, w->emb_ln_b, c->layer_norm_eps, T, D);
}

/* Copies head HEAD's columns of q, k, v [T][D] into the trace, each [T][hd]. */
static void
capture_qkv (AsTrace *t, const EncoderScratch *s, int layer, int head)
{
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim;
  const float *src[3] = { s->q, s->k, s->v };
  float *dst[3] = { t->q, t->k, t->v };
  for (int m = 0; m < 3; m++)
    {
      float *out = as_trace_head_vectors (t, dst[m], layer, head); /* [T][hd] */
      for (int i = 0; i < T; i++)
        memcpy (out + (gsize) i * hd, src[m] + (gsize) i * D + (gsize) head * hd,
                sizeof (float) * hd);
    }
}

/* x [T][D] = LN(x + y) in place, y [T][D]. */
static void
add_norm (float *x, const float *y, const float *gamma, const float *beta, float eps, int T, int D)
{
  as_add_inplace (x, y, (gsize) T * D);
  as_layernorm (x, x, gamma, beta, eps, T, D);
}

static void
encoder_layer (AsPass *p, int layer)
{
  const AsConfig *c = p->config;
  const AsEncoderLayer *w = &((const AsEncoderWeights *) p->weights)->layers[layer];
  AsWorkerTeam *team = p->team;
  AsTrace *t = p->trace;
  EncoderScratch s = scratch_of (p);
  int T = t->n_tokens, D = c->n_embd, F = c->n_inner;
  float eps = c->layer_norm_eps;
  float *attn_out = as_trace_attn_out (t, layer); /* [T][D] */

  linear (team, s.q, p->x, &w->q, T, D, D);
  linear (team, s.k, p->x, &w->k, T, D, D);
  linear (team, s.v, p->x, &w->v, T, D, D);
  AsAttentionInput in = {
    .q = s.q,
    .k = s.k,
    .v = s.v,
    .ldq = D,
    .ldk = D,
    .ldv = D,
    .cc = s.cc,
    .ldc = D,
    .bidirectional = TRUE,
    .scale = 1.0f / sqrtf ((float) t->head_dim),
  };
  as_attention_layer (team, t, layer, &in);
  as_pass_heads (p, layer, s.cc, D);
  if (t->q != NULL)
    for (int h = 0; h < t->n_head; h++)
      capture_qkv (t, &s, layer, h);
  linear (team, attn_out, s.cc, &w->o, T, D, D);
  memcpy (s.a, attn_out, sizeof (float) * T * D);
  add_norm (s.a, p->x, w->ln1_g, w->ln1_b, eps, T, D); /* a = LN(attn_out + h) */

  linear (team, s.ff, s.a, &w->ff1, T, D, F);
  as_activate_rows (team, s.ff, T, F, c->activation);
  linear (team, s.y, s.ff, &w->ff2, T, F, D);
  as_pass_mlp (p, layer, s.y);
  memcpy (p->x, s.y, sizeof (float) * T * D);
  add_norm (p->x, s.a, w->ln2_g, w->ln2_b, eps, T, D); /* h = LN(ffn + a) */
}

/* hidden[L] = x (not normalised again); with the masked-LM head, the logits of the last rows:
 * LN(act(h·W_d + b_d))·wordᵀ + bias. */
static void
encoder_finish (AsPass *p)
{
  const AsConfig *c = p->config;
  const AsEncoderWeights *w = p->weights;
  AsTrace *t = p->trace;
  int T = t->n_tokens, D = c->n_embd, V = c->vocab_size, rows = t->logits_rows;
  memcpy (as_trace_hidden (t, c->n_layer), p->x, sizeof (float) * T * D);
  if (rows == 0)
    return;
  EncoderScratch s = scratch_of (p);
  const float *h = p->x + (gsize) (T - rows) * D; /* [rows][D] */
  linear (p->team, s.y, h, &w->mlm_dense, rows, D, D);
  as_activate_rows (p->team, s.y, rows, D, as_encoder_settings (c)->head_activation);
  as_layernorm (s.y, s.y, w->mlm_ln_g, w->mlm_ln_b, c->layer_norm_eps, rows, D);
  as_matmul_transposed (p->team, t->logits, s.y, w->word, rows, D, V);
  for (int i = 0; i < rows; i++)
    as_add_inplace (t->logits + (gsize) i * V, w->mlm_bias, V);
}

/* Bidirectional; logits only with the masked-LM head. */
static void
encoder_trace_shape (const AsConfig *config, AsTraceShape *shape, gboolean *causal)
{
  if (!config->masked_lm)
    shape->vocab_size = 0; /* attention only: no logits */
  *causal = FALSE;
}

static const float *
encoder_token_embeddings (gconstpointer weights)
{
  return ((const AsEncoderWeights *) weights)->word;
}

/* The layers' pieces (readout-private.h): post-norm, so no sum of the blocks' writes. */
static void
encoder_readout (const AsConfig *c, gconstpointer weights, AsReadout *out)
{
  const AsEncoderWeights *w = weights;
  out->post_norm = TRUE;
  out->layers = g_new0 (AsReadoutLayer, c->n_layer);
  for (int l = 0; l < c->n_layer; l++)
    out->layers[l] = (AsReadoutLayer){
      .o = { w->layers[l].o.w, AS_DTYPE_F32 },
      .o_in_out = !w->layers[l].o.out_in,
      .o_b = w->layers[l].o.b,
    };
  out->attn_scale = 1.0f / sqrtf ((float) c->head_dim);
}

const AsStack as_encoder_stack = {
  .trace_shape = encoder_trace_shape,
  .scratch_bytes = encoder_scratch_bytes,
  .token_embeddings = encoder_token_embeddings,
  .embed = encoder_embed,
  .layer = encoder_layer,
  .finish = encoder_finish,
  .readout = encoder_readout,
};

/* t5-forward.c — the T5 blocks and its encoder–decoder forward pass that keeps everything: the
 * stages of its two stacks (AsFamily.encoder, AsFamily.stack; model/stack-private.h), which the
 * one forward driver runs (forward/pass.c), as Hugging Face's eager modeling_t5.py computes them
 * (core/families/README.md, "T5"):
 *
 *   B[h][i][j] = rel_bias[bucket(j − i)][h]     the stack's first layer's table, every layer
 *                                               (umT5: each layer's own table, B per layer)
 *   encoder: x = E[src];  per layer: x += o(Attn(RMS(x), bidirectional, + B));
 *                                    x += MLP(RMS(x));              hidden[L] = RMS(x)
 *   decoder: y = E[tgt];  per layer: y += o(Attn(RMS(y), causal, + B));
 *                                    y += o(CrossAttn(RMS(y), enc));  y += MLP(RMS(y))
 *   logits = (RMS(y) · D^-½ when tied) · lm_headᵀ
 *
 * Attention is softmax(q·kᵀ + B)·v: no 1/√hd. The cross-attention has no position bias. B
 * depends only on j − i: the trace keeps it compact as its position_bias_relative, [H][2T−1] per
 * block (a causal stack's future distances 0), and the attention reads its rows from there. */
#include "t5-private.h"

#include <math.h>
#include <string.h>

#include "attention-private.h"
#include "kernels-private.h"

int
as_t5_bucket (int rel, gboolean bidirectional, int n_buckets, int max_distance)
{
  int bucket = 0, n = n_buckets;
  if (bidirectional)
    {
      n /= 2;
      bucket += rel > 0 ? n : 0;
      rel = ABS (rel);
    }
  else
    rel = rel < 0 ? -rel : 0;
  int max_exact = n / 2;
  if (rel < max_exact)
    return bucket + rel;
  /* torch: log(rel.float() / max_exact) / math.log(max_distance / max_exact) · (n − max_exact),
   * each step in float32, truncated to an integer */
  float ratio = (float) rel / (float) max_exact;
  float scaled = logf (ratio) / (float) log ((double) max_distance / max_exact);
  scaled = scaled * (float) (n - max_exact);
  int large = max_exact + (int) scaled;
  return bucket + MIN (large, n - 1);
}

void
as_t5_position_bias (float *out, const float *table, const AsT5Settings *s, int n_head, int q0,
                     int n_q, int n_k, gboolean bidirectional)
{
  for (int i = 0; i < n_q; i++)
    for (int j = 0; j < n_k; j++)
      {
        int b = as_t5_bucket (j - (q0 + i), bidirectional, s->n_buckets, s->max_distance);
        for (int h = 0; h < n_head; h++)
          out[((gsize) h * n_q + i) * n_k + j] = table[(gsize) b * n_head + h];
      }
}

void
as_t5_relative_bias (float *out, const float *table, const AsT5Settings *s, int n_head, int n,
                     gboolean bidirectional)
{
  gsize width = 2 * (gsize) n - 1;
  for (int d = -(n - 1); d <= n - 1; d++)
    {
      /* a causal stack's future: no bias where the head never looks */
      int b = as_t5_bucket (d, bidirectional, s->n_buckets, s->max_distance);
      for (int h = 0; h < n_head; h++)
        out[h * width + (gsize) (d + n - 1)]
            = !bidirectional && d > 0 ? 0.0f : table[(gsize) b * n_head + h];
    }
}

void
as_t5_linear (AsWorkerTeam *team, float *out, const float *x, const float *w, int n, int in,
              int out_dim)
{
  as_matmul_transposed (team, out, x, w, n, in, out_dim);
}

void
as_t5_mlp (AsWorkerTeam *team, float *x, float *normed, float *ff, float *gate, const AsT5Layer *y,
           const AsConfig *c, int n, int f)
{
  int d = c->n_embd;
  as_norm_rows (team, normed, x, y->ff_norm, NULL, c->layer_norm_eps, n, d);
  as_matmul_transposed (team, ff, normed, y->wi, n, d, f); /* ff [n][F] */
  if (y->wi_1 != NULL)
    {
      as_matmul_transposed (team, gate, normed, y->wi_1, n, d, f); /* [n][F] */
      as_gate (ff, gate, (gsize) n * f, c->activation);
    }
  else
    as_activate_rows (team, ff, n, f, c->activation);
  as_matmul_transposed (team, normed, ff, y->wo, n, f, d); /* [n][D] */
  as_add_inplace (x, normed, (gsize) n * d);
}

typedef struct
{
  float *normed;    /* [T][D] */
  float *q;         /* [T][I] query projections, I = H·d_kv */
  float *k, *v;     /* [max(T, S)][I] */
  float *cc;        /* [T][I] heads' contexts side by side */
  float *ff, *gate; /* [T][F] */
} T5Scratch;

static guint64
t5_scratch_bytes (const AsConfig *c, int n_tokens, int n_source)
{
  guint64 T = n_tokens, D = c->n_embd, I = (guint64) c->n_head * c->head_dim, F = c->n_inner;
  guint64 KV = MAX (n_tokens, n_source);
  return (T * D + 2 * T * I + 2 * KV * I + 2 * T * F) * sizeof (float);
}

static T5Scratch
scratch_of (const AsPass *p)
{
  const AsConfig *c = p->config;
  int S = p->source != NULL ? p->source->n_tokens : 0;
  gsize T = p->n_tokens, I = (gsize) c->n_head * c->head_dim;
  gsize KV = (gsize) MAX (p->n_tokens, S) * I;
  T5Scratch s = { .normed = p->scratch };
  s.q = s.normed + T * c->n_embd;
  s.k = s.q + T * I;
  s.v = s.k + KV;
  s.cc = s.v + KV;
  s.ff = s.cc + T * I;
  s.gate = s.ff + T * c->n_inner;
  return s;
}

/* Copies the head columns of PROJ [T][H·hd] into the trace array BASE's layer LAYER: [H][T][hd]. */
static void
split_heads (AsTrace *t, float *base, int layer, const float *proj)
{
  int T = t->n_tokens, hd = t->head_dim, I = t->n_head * hd;
  for (int h = 0; h < t->n_head; h++)
    {
      float *dst = as_trace_head_vectors (t, base, layer, h); /* [T][hd] */
      for (int i = 0; i < T; i++)
        memcpy (dst + (gsize) i * hd, proj + (gsize) i * I + (gsize) h * hd, sizeof (float) * hd);
    }
}

/* x += o(SelfAttn(RMS(x)) + B) for layer LAYER, capturing q, k, v, P, contexts and the block's
 * output. */
static void
self_attention (AsPass *p, T5Scratch *s, const AsT5Layer *y, int layer)
{
  AsWorkerTeam *team = p->team;
  AsTrace *t = p->trace;
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim, I = t->n_head * hd;
  as_norm_rows (team, s->normed, p->x, y->self_norm, NULL, p->config->layer_norm_eps, T, D);
  as_t5_linear (team, s->q, s->normed, y->self_attn.q, T, D, I);
  as_t5_linear (team, s->k, s->normed, y->self_attn.k, T, D, I);
  as_t5_linear (team, s->v, s->normed, y->self_attn.v, T, D, I);
  split_heads (t, t->q, layer, s->q);
  split_heads (t, t->k, layer, s->k);
  split_heads (t, t->v, layer, s->v);
  gsize head = (gsize) T * hd;
  gboolean held = as_trace_attention_held (t);
  const float *bias = as_trace_position_bias_relative (t, layer, 0); /* [H][2T−1] */
  t->attn_recipe[layer] = (AsAttentionRecipe){
    .causal = t->causal,
    .scale = 1.0f,
    .bias_relative = bias,
  };
  if (!held) /* on demand: the queries and keys (K = H) recompute the weights with the bias */
    {
      memcpy (t->attn_q + (gsize) layer * t->n_head * head,
              as_trace_head_vectors (t, t->q, layer, 0), sizeof (float) * t->n_head * head);
      memcpy (t->attn_k + (gsize) layer * t->n_head * head,
              as_trace_head_vectors (t, t->k, layer, 0), sizeof (float) * t->n_head * head);
    }
  AsAttention job = {
    .q = as_trace_head_vectors (t, t->q, layer, 0),
    .k = as_trace_head_vectors (t, t->k, layer, 0),
    .v = as_trace_head_vectors (t, t->v, layer, 0),
    .q_head = head,
    .k_head = head,
    .v_head = head,
    .ldq = hd,
    .ldk = hd,
    .ldv = hd,
    .p = held ? as_trace_attn_matrices (t, layer, 0) : NULL,
    .p_head = (gsize) T * T,
    .row_max = held ? NULL : t->attn_row_max + (gsize) layer * t->n_head * T,
    .row_inv = held ? NULL : t->attn_row_inv + (gsize) layer * t->n_head * T,
    .cc = s->cc,
    .ldcc = I,
    .n_heads = t->n_head,
    .n_q = T,
    .n_k = T,
    .head_dim = hd,
    .group = 1,
    .scale = 1.0f,
    .causal = t->causal,
    .bias = bias + (T - 1), /* row i's keys from distance −i on (attention-private.h) */
    .bias_head = 2 * (gsize) T - 1,
    .ldbias = -1,
  };
  as_attend (team, &job);
  split_heads (t, t->ctx, layer, s->cc);
  float *attn_out = as_trace_attn_out (t, layer); /* [T][D] */
  as_t5_linear (team, attn_out, s->cc, y->self_attn.o, T, I, D);
  as_add_inplace (p->x, attn_out, (gsize) T * D);
}

/* y += o(CrossAttn(RMS(y), enc)) for decoder layer LAYER, enc [S][D] the encoder's output (the
 * weights into the trace's cross_attn). */
static void
cross_attention (AsPass *p, T5Scratch *s, const AsT5Layer *y, int layer)
{
  AsWorkerTeam *team = p->team;
  AsTrace *t = p->trace;
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim, I = t->n_head * hd;
  int S = p->source->n_tokens;
  const float *enc = as_trace_hidden (p->source, p->source->n_layer); /* [S][D] */
  as_norm_rows (team, s->normed, p->x, y->cross_norm, NULL, p->config->layer_norm_eps, T, D);
  as_t5_linear (team, s->q, s->normed, y->cross_attn.q, T, D, I);
  as_t5_linear (team, s->k, enc, y->cross_attn.k, S, D, I); /* [S][I] */
  as_t5_linear (team, s->v, enc, y->cross_attn.v, S, D, I); /* [S][I] */
  as_pass_cross_attend (p, layer, s->q, s->k, s->v, s->cc, I, 1.0f);
  as_t5_linear (team, s->normed, s->cc, y->cross_attn.o, T, I, D);
  as_add_inplace (p->x, s->normed, (gsize) T * D);
}

static const float *
t5_token_embeddings (gconstpointer weights)
{
  return ((const AsT5Weights *) weights)->shared;
}

/* x = E[ids] and the stack's position bias into the trace: one [H][2T−1] block, or one per
 * layer (umT5), each from that layer's table. */
static void
embed (AsPass *p, const AsT5Stack *st)
{
  const AsT5Weights *w = p->weights;
  AsTrace *t = p->trace;
  int D = p->config->n_embd, T = t->n_tokens;
  for (int i = 0; i < p->n_tokens; i++)
    memcpy (p->x + (gsize) i * D, w->shared + (gsize) t->ids[i] * D, sizeof (float) * D);
  for (int l = 0; l < t->n_position_bias; l++)
    as_t5_relative_bias (as_trace_position_bias_relative (t, l, 0), st->layers[l].rel_bias,
                         as_t5_settings (p->config), t->n_head, T, !t->causal);
}

static void
encoder_embed (AsPass *p)
{
  embed (p, &((const AsT5Weights *) p->weights)->encoder);
}

static void
decoder_embed (AsPass *p)
{
  embed (p, &((const AsT5Weights *) p->weights)->decoder);
}

static void
encoder_layer (AsPass *p, int layer)
{
  const AsT5Layer *y = &((const AsT5Weights *) p->weights)->encoder.layers[layer];
  T5Scratch s = scratch_of (p);
  self_attention (p, &s, y, layer);
  as_t5_mlp (p->team, p->x, s.normed, s.ff, s.gate, y, p->config, p->n_tokens,
             p->config->encoder_n_inner);
}

static void
decoder_layer (AsPass *p, int layer)
{
  const AsT5Layer *y = &((const AsT5Weights *) p->weights)->decoder.layers[layer];
  T5Scratch s = scratch_of (p);
  self_attention (p, &s, y, layer);
  cross_attention (p, &s, y, layer);
  as_t5_mlp (p->team, p->x, s.normed, s.ff, s.gate, y, p->config, p->n_tokens, p->config->n_inner);
}

/* OUT [N][D] = RMS(X) with the stack's final norm. */
static void
final_norm (const AsConfig *c, const AsT5Stack *st, AsWorkerTeam *team, float *out, const float *x,
            int n)
{
  as_norm_rows (team, out, x, st->final_norm, NULL, c->layer_norm_eps, n, c->n_embd);
}

/* hidden[L] = RMS(x) with the stack's final norm. */
static void
finish (AsPass *p, const AsT5Stack *st)
{
  final_norm (p->config, st, p->team, as_trace_hidden (p->trace, p->trace->n_layer), p->x,
              p->n_tokens);
}

static void
encoder_finish (AsPass *p)
{
  finish (p, &((const AsT5Weights *) p->weights)->encoder);
}

/* lm_head, its input scaled by D^-½ when it is the tied embeddings. */
static void
decoder_head_product (const AsConfig *c, gconstpointer weights, AsHeadProduct *head)
{
  const AsT5Weights *w = weights;
  *head = (AsHeadProduct){ .weight = { w->lm_head, AS_DTYPE_F32 },
                           .x_scale = as_t5_settings (c)->output_scale };
}

/* The decoder's final RMSNorm. */
static void
decoder_final_norm (const AsConfig *c, gconstpointer weights, AsWorkerTeam *team, float *out,
                    const float *x, int n)
{
  final_norm (c, &((const AsT5Weights *) weights)->decoder, team, out, x, n);
}

/* hidden[L]; logits of the last rows = (hidden[L] · D^-½ when tied) · lm_headᵀ. */
static void
decoder_finish (AsPass *p)
{
  finish (p, &((const AsT5Weights *) p->weights)->decoder);
  as_pass_head_logits (p, as_trace_hidden (p->trace, p->trace->n_layer), decoder_head_product);
}

static void
encoder_trace_shape (const AsConfig *c, AsTraceShape *shape, gboolean *causal)
{
  shape->n_layer = c->n_encoder_layer;
  shape->n_head = shape->n_kv_head = c->n_encoder_head;
  shape->vocab_size = 0;
  shape->all_logits = FALSE;
  shape->capture_qkv = TRUE;
  shape->position_bias = TRUE;
  shape->position_bias_per_layer = as_t5_settings (c)->bias_every_layer;
  *causal = FALSE;
}

static void
decoder_trace_shape (const AsConfig *c, AsTraceShape *shape, gboolean *causal)
{
  shape->capture_qkv = TRUE;
  shape->position_bias = TRUE;
  shape->position_bias_per_layer = as_t5_settings (c)->bias_every_layer;
  *causal = TRUE;
}

const AsStack as_t5_encoder_stack = {
  .name = "encoder",
  .trace_shape = encoder_trace_shape,
  .scratch_bytes = t5_scratch_bytes,
  .token_embeddings = t5_token_embeddings,
  .embed = encoder_embed,
  .layer = encoder_layer,
  .finish = encoder_finish,
};

const AsStack as_t5_decoder_stack = {
  .name = "decoder",
  .trace_shape = decoder_trace_shape,
  .scratch_bytes = t5_scratch_bytes,
  .token_embeddings = t5_token_embeddings,
  .embed = decoder_embed,
  .layer = decoder_layer,
  .finish = decoder_finish,
  .final_norm = decoder_final_norm,
  .head_product = decoder_head_product,
  .replay = as_t5_replay,
  .readout = as_t5_decoder_readout,
};

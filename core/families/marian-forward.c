/* marian-forward.c — the Marian encoder–decoder forward pass that keeps everything: the stages
 * of its two stacks (AsFamily.encoder, AsFamily.stack; model/stack-private.h), which the one
 * forward driver runs (forward/pass.c), reading top to bottom like the maths in core/README.md
 * ("Marian"):
 *
 *   encoder: x = E[src]·scale + pe[0..S-1]
 *            per layer: x = LN(x + SelfAttn(x));  x = LN(x + fc2(act(fc1(x))))
 *   decoder: y = E[tgt]·scale + pe[0..T-1]
 *            per layer: y = LN(y + CausalSelfAttn(y));  y = LN(y + CrossAttn(y, x));
 *                       y = LN(y + fc2(act(fc1(y))))
 *   logits = y·Eᵀ + final_logits_bias
 *
 * The encoder's pass fills a trace of its own (bidirectional, no logits), which becomes the
 * `source` of the decoder's trace; the decoder's cross-attention weights go into its
 * cross_attn. Hidden states follow Hugging Face: the embeddings first, then every layer's
 * output (no final norm). q, k and v are each head's projections before the 1/√hd scaling. */
#include "marian-private.h"

#include <math.h>
#include <string.h>

#include "attention-private.h"
#include "kernels-private.h"

typedef struct
{
  float *q;     /* [T][D] query projections */
  float *k, *v; /* [max(T, S)][D] key and value projections (of the source for cross-attention) */
  float *cc;    /* [T][D] heads' contexts side by side */
  float *tmp;   /* [T][D] */
  float *ff;    /* [T][F] MLP hidden layer, F the stack's */
} MarianScratch;

/* Rows of the key and value buffers: the stack's tokens, or the source's when more. */
static guint64
kv_rows (int n_tokens, int n_source)
{
  return MAX (n_tokens, n_source);
}

static guint64
scratch_bytes (const AsConfig *c, int n_tokens, int n_source, int f)
{
  guint64 T = n_tokens, D = c->n_embd;
  return (T * D * 3 + 2 * kv_rows (n_tokens, n_source) * D + T * f) * sizeof (float);
}

static guint64
encoder_scratch_bytes (const AsConfig *config, int n_tokens, int n_source)
{
  return scratch_bytes (config, n_tokens, n_source, config->encoder_n_inner);
}

static guint64
decoder_scratch_bytes (const AsConfig *config, int n_tokens, int n_source)
{
  return scratch_bytes (config, n_tokens, n_source, config->n_inner);
}

/* The buffers of the pass's working memory. */
static MarianScratch
scratch_of (const AsPass *p)
{
  int S = p->source != NULL ? p->source->n_tokens : 0;
  gsize TD = (gsize) p->n_tokens * p->config->n_embd;
  gsize KVD = (gsize) kv_rows (p->n_tokens, S) * p->config->n_embd;
  MarianScratch s = { .q = p->scratch };
  s.k = s.q + TD;
  s.v = s.k + KVD;
  s.cc = s.v + KVD;
  s.tmp = s.cc + TD;
  s.ff = s.tmp + TD;
  return s;
}

/* Copies the head columns of PROJ [T][D] into the trace array BASE's layer LAYER: [H][T][hd]. */
static void
split_heads (AsTrace *t, float *base, int layer, const float *proj)
{
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim;
  for (int h = 0; h < t->n_head; h++)
    {
      float *dst = as_trace_head_vectors (t, base, layer, h); /* [T][hd] */
      for (int i = 0; i < T; i++)
        memcpy (dst + (gsize) i * hd, proj + (gsize) i * D + (gsize) h * hd, sizeof (float) * hd);
    }
}

/* x = LN(x + SelfAttn(x)) (pre-norm: x + SelfAttn(LN(x))) for layer LAYER of the pass's trace,
 * capturing q, k, v, P, contexts and the block's output. */
static void
self_attention (AsPass *p, MarianScratch *s, const AsMarianLayer *y, int layer)
{
  AsWorkerTeam *team = p->team;
  AsTrace *t = p->trace;
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim;
  const AsMarianSettings *set = as_marian_settings (p->config);
  const float *x = as_marian_block_input (set, s->tmp, p->x, &y->self_attn_norm, T, D);
  as_marian_linear (team, s->q, x, &y->self_attn.q, T, D, D);
  as_marian_linear (team, s->k, x, &y->self_attn.k, T, D, D);
  as_marian_linear (team, s->v, x, &y->self_attn.v, T, D, D);
  split_heads (t, t->q, layer, s->q);
  split_heads (t, t->k, layer, s->k);
  split_heads (t, t->v, layer, s->v);
  gsize head = (gsize) T * hd;
  AsAttentionInput in = {
    .q = as_trace_head_vectors (t, t->q, layer, 0),
    .k = as_trace_head_vectors (t, t->k, layer, 0),
    .v = as_trace_head_vectors (t, t->v, layer, 0),
    .ldq = hd,
    .ldk = hd,
    .ldv = hd,
    .q_head = head,
    .k_head = head,
    .v_head = head,
    .cc = s->cc,
    .ldc = D,
    .bidirectional = !t->causal,
    .scale = 1.0f / sqrtf ((float) hd),
  };
  as_attention_layer (team, t, layer, &in);
  float *attn_out = as_trace_attn_out (t, layer); /* [T][D] */
  as_marian_linear (team, attn_out, s->cc, &y->self_attn.out, T, D, D);
  as_marian_block_output (set, p->x, attn_out, &y->self_attn_norm, T, D);
}

/* x = LN(x + CrossAttn(x, enc)) (pre-norm: x + CrossAttn(LN(x), enc)) for decoder layer LAYER,
 * enc [S][D] the encoder's output (the weights into the trace's cross_attn). */
static void
cross_attention (AsPass *p, MarianScratch *s, const AsMarianLayer *y, int layer)
{
  AsWorkerTeam *team = p->team;
  AsTrace *t = p->trace;
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim, S = p->source->n_tokens;
  const float *enc = as_trace_hidden (p->source, p->source->n_layer); /* [S][D] */
  const AsMarianSettings *set = as_marian_settings (p->config);
  const float *x = as_marian_block_input (set, s->tmp, p->x, &y->cross_attn_norm, T, D);
  as_marian_linear (team, s->q, x, &y->cross_attn.q, T, D, D);
  as_marian_linear (team, s->k, enc, &y->cross_attn.k, S, D, D); /* [S][D] */
  as_marian_linear (team, s->v, enc, &y->cross_attn.v, S, D, D); /* [S][D] */
  as_pass_cross_attend (p, layer, s->q, s->k, s->v, s->cc, D, 1.0f / sqrtf ((float) hd));
  as_marian_linear (team, s->tmp, s->cc, &y->cross_attn.out, T, D, D);
  as_marian_block_output (set, p->x, s->tmp, &y->cross_attn_norm, T, D);
}

static void
encoder_embed (AsPass *p)
{
  const AsMarianWeights *w = p->weights;
  as_marian_embed (p->x, w, &w->encoder, as_marian_settings (p->config)->embed_scale, p->trace->ids,
                   p->n_tokens, 0, p->config->n_embd, !as_pass_no_positions (p));
}

static void
decoder_embed (AsPass *p)
{
  const AsMarianWeights *w = p->weights;
  as_marian_embed (p->x, w, &w->decoder, as_marian_settings (p->config)->embed_scale, p->trace->ids,
                   p->n_tokens, 0, p->config->n_embd, !as_pass_no_positions (p));
}

static void
encoder_layer (AsPass *p, int layer)
{
  const AsMarianLayer *y = &((const AsMarianWeights *) p->weights)->encoder.layers[layer];
  const AsConfig *c = p->config;
  MarianScratch s = scratch_of (p);
  self_attention (p, &s, y, layer);
  as_marian_mlp (p->team, p->x, s.ff, s.tmp, y, as_marian_settings (c), c->activation, p->n_tokens,
                 c->n_embd, c->encoder_n_inner);
}

static void
decoder_layer (AsPass *p, int layer)
{
  const AsMarianLayer *y = &((const AsMarianWeights *) p->weights)->decoder.layers[layer];
  const AsConfig *c = p->config;
  MarianScratch s = scratch_of (p);
  self_attention (p, &s, y, layer);
  cross_attention (p, &s, y, layer);
  as_marian_mlp (p->team, p->x, s.ff, s.tmp, y, as_marian_settings (c), c->activation, p->n_tokens,
                 c->n_embd, c->n_inner);
}

/* hidden[L] = x, or mBART's final LN(x). */
static void
encoder_finish (AsPass *p)
{
  const AsMarianWeights *w = p->weights;
  as_marian_final_norm (as_trace_hidden (p->trace, p->trace->n_layer), p->x, &w->encoder,
                        p->n_tokens, p->config->n_embd);
}

/* The shared embeddings and final_logits_bias. */
static void
decoder_head_product (const AsConfig *c, gconstpointer weights, AsHeadProduct *head)
{
  (void) c;
  const AsMarianWeights *w = weights;
  *head = (AsHeadProduct){ .weight = { w->shared, AS_DTYPE_F32 },
                           .x_scale = 1.0f,
                           .bias = w->final_logits_bias };
}

/* x itself (Marian), or mBART's final LN(x). */
static void
decoder_final_norm (const AsConfig *c, gconstpointer weights, AsWorkerTeam *team, float *out,
                    const float *x, int n)
{
  (void) team;
  const AsMarianWeights *w = weights;
  as_marian_final_norm (out, x, &w->decoder, n, c->n_embd);
}

/* hidden[L] = x (mBART: LN(x)); logits of the last rows = hidden[L]·Eᵀ + final_logits_bias. */
static void
decoder_finish (AsPass *p)
{
  float *last = as_trace_hidden (p->trace, p->trace->n_layer); /* [T][D] */
  decoder_final_norm (p->config, p->weights, p->team, last, p->x, p->n_tokens);
  as_pass_head_logits (p, last, decoder_head_product);
}

/* The encoder's own layers and heads; bidirectional, no logits; q, k, v always (the attention
 * reads them from the trace). */
static void
encoder_trace_shape (const AsConfig *c, AsTraceShape *shape, gboolean *causal)
{
  shape->n_layer = c->n_encoder_layer;
  shape->n_head = shape->n_kv_head = c->n_encoder_head;
  shape->head_dim = c->n_embd / c->n_encoder_head;
  shape->vocab_size = 0;
  shape->all_logits = FALSE;
  shape->capture_qkv = TRUE;
  *causal = FALSE;
}

/* Causal; q, k, v always (the attention reads them from the trace). */
static void
decoder_trace_shape (const AsConfig *c, AsTraceShape *shape, gboolean *causal)
{
  shape->capture_qkv = TRUE;
  *causal = TRUE;
}

const AsStack as_marian_encoder_stack = {
  .name = "encoder",
  .trace_shape = encoder_trace_shape,
  .scratch_bytes = encoder_scratch_bytes,
  .embed = encoder_embed,
  .layer = encoder_layer,
  .finish = encoder_finish,
};

/* The decoder's self-attention pieces (readout-private.h): post-norm, so no sum of the blocks'
 * writes; the cross-attention's values are not in the trace. */
static void
decoder_readout (const AsConfig *c, gconstpointer weights, AsReadout *out)
{
  const AsMarianStack *d = &((const AsMarianWeights *) weights)->decoder;
  out->post_norm = TRUE;
  out->layers = g_new0 (AsReadoutLayer, d->n_layer);
  for (int l = 0; l < d->n_layer; l++)
    out->layers[l] = (AsReadoutLayer){
      .o = { d->layers[l].self_attn.out.w, AS_DTYPE_F32 },
      .o_in_out = !d->layers[l].self_attn.out.transposed,
      .o_b = d->layers[l].self_attn.out.b,
    };
  out->attn_scale = 1.0f / sqrtf ((float) c->head_dim);
}

const AsStack as_marian_decoder_stack = {
  .name = "decoder",
  .trace_shape = decoder_trace_shape,
  .scratch_bytes = decoder_scratch_bytes,
  .embed = decoder_embed,
  .layer = decoder_layer,
  .finish = decoder_finish,
  .final_norm = decoder_final_norm,
  .head_product = decoder_head_product,
  .readout = decoder_readout,
  .replay = as_marian_replay,
};

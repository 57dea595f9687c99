/* decoder-forward.c — the forward pass of the rotary decoders (Llama family, Qwen3, Phi-3, Gemma
 * 2/3, GPT-NeoX) that keeps everything (decoder-private.h).
 *
 * Reads top to bottom like the maths in core/families/README.md ("Llama family", "Gemma 2 and Gemma
 * 3", "Qwen3", "Phi-3", "GPT-NeoX"): h = embed[ids] (Gemma: times √D) per block: a = norm1(h); q,
 * k, v = projections of a (NeoX: one fused, split per head); Qwen3, Gemma 3: each head's q and k
 * RMS-normalised over head_dim; RoPE on q and k (Gemma 3's sliding layers: the local RoPE); per
 * query head S = q·kᵀ·scale with the key of its key/value head (Gemma 2: soft-capped), causal (and
 * sliding-window) softmax, ctx = P·v; attn = concat(ctx)·Woᵀ; llama: h += attn; h += mlp(norm2(h))
 * mlp = down(act(gate(a)) · up(a)) Gemma: h += norm(attn); h += norm(mlp(norm2(h))) NeoX parallel:
 * h += mlp(norm2(h)) + attn   mlp = down(act(up(a))) NeoX sequential: h += attn; h += mlp(norm2(h))
 *   hidden[L] = norm(h); logits = hidden[L]·lm_headᵀ (Gemma 2: soft-capped)
 * writing every intermediate the trace promises straight into the trace's arrays. Additions
 * follow HF's order (mlp + attn + h for the parallel residual), so sums round the same way.
 * Which norm, projection layout, MLP and residual a model has is data in its settings
 * (AsDecoderSettings); the pass is the stages of one stack (model/stack-private.h) that the one
 * forward driver runs (forward/pass.c: the trace, the residual stream x, the layer loop and its
 * checks).
 *
 * Weights may be F32, BF16 or F16; the projections widen 16-bit weights tile by tile
 * (forward/matmul.c) and the embedding rows of the ids only. One worker team per pass does all
 * the threading (OpenBLAS single-threaded meanwhile): projections are split by output columns,
 * attention (forward/attention.c) by heads and blocks of query rows. */
#include "decoder-private.h"

#include <math.h>
#include <string.h>

#include "attention-private.h"
#include "kernels-private.h"

typedef struct
{
  float *a;         /* [T][D] normalised input of a sub-block */
  float *q;         /* [T][H·hd] queries, heads side by side */
  float *k;         /* [T][K·hd] keys */
  float *v;         /* [T][K·hd] values */
  float *qkv;       /* [T][3D] the fused projection (AS_DECODER_QKV_PER_HEAD), else NULL */
  float *cc;        /* [T][H·hd] heads' contexts side by side */
  float *gate;      /* [T][F] (AS_DECODER_MLP_GATED), else NULL */
  float *up;        /* [T][F] */
  float *m;         /* [T][D] MLP output */
  float *cos, *sin; /* [T][rotary_dim/2] RoPE tables */
  float *cos_local, *sin_local; /* [T][rotary_dim/2] rope_local's tables (settings' local), else
                                 * NULL */
} DecoderScratch;

#define N_BUFFERS 11

/* Floats of each scratch buffer, in the order of DecoderScratch (cos and sin together). */
static void
scratch_sizes (const AsConfig *c, int n_tokens, guint64 sizes[N_BUFFERS])
{
  const AsDecoderSettings *s = as_decoder_settings (c);
  guint64 T = n_tokens, D = c->n_embd, F = c->n_inner;
  guint64 Q = (guint64) c->n_head * c->head_dim, KV = (guint64) c->n_kv_head * c->head_dim;
  guint64 half = s->rope.rotary_dim / 2;
  guint64 sz[N_BUFFERS] = {
    T * D,
    T * Q,
    T * KV,
    T * KV,
    s->qkv == AS_DECODER_QKV_PER_HEAD ? T * 3 * D : 0,
    T * Q,
    s->mlp == AS_DECODER_MLP_GATED ? T * F : 0,
    T * F,
    T * D,
    2 * T * half,
    s->local != NULL ? 2 * T * half : 0,
  };
  memcpy (sizes, sz, sizeof sz);
}

static guint64
decoder_scratch_bytes (const AsConfig *config, int n_tokens, int n_source)
{
  guint64 sizes[N_BUFFERS], total = 0;
  scratch_sizes (config, n_tokens, sizes);
  for (int i = 0; i < N_BUFFERS; i++)
    total += sizes[i];
  return total * sizeof (float);
}

/* The buffers of the pass's working memory. */
static DecoderScratch
scratch_of (const AsPass *p)
{
  guint64 sizes[N_BUFFERS];
  scratch_sizes (p->config, p->n_tokens, sizes);
  DecoderScratch s;
  float **slots[N_BUFFERS]
      = { &s.a, &s.q, &s.k, &s.v, &s.qkv, &s.cc, &s.gate, &s.up, &s.m, &s.cos, &s.cos_local };
  float *at = p->scratch;
  for (int i = 0; i < N_BUFFERS; i++)
    {
      *slots[i] = sizes[i] > 0 ? at : NULL;
      at += sizes[i];
    }
  gsize half_table = (gsize) p->n_tokens * (as_decoder_settings (p->config)->rope.rotary_dim / 2);
  s.sin = s.cos + half_table;
  s.sin_local = s.cos_local != NULL ? s.cos_local + half_table : NULL;
  return s;
}

/* x [T][D] = embed[ids], widened exactly from the stored dtype; the RoPE tables of positions
 * 0..T-1. */
static void
decoder_embed (AsPass *p)
{
  const AsDecoderWeights *w = p->weights;
  const AsWeight *e = &w->embed;
  int T = p->n_tokens, D = p->config->n_embd;
  gsize row_bytes = (gsize) D * as_dtype_size (e->dtype);
  const AsDecoderSettings *set = as_decoder_settings (p->config);
  for (int t = 0; t < T; t++)
    as_dtype_widen (p->x + (gsize) t * D,
                    (const char *) e->data + (gsize) p->trace->ids[t] * row_bytes, e->dtype, D);
  if (set->embed_scale > 0.0f)
    for (gsize i = 0; i < (gsize) T * D; i++)
      p->x[i] *= set->embed_scale;
  DecoderScratch s = scratch_of (p);
  as_rope_tables (s.cos, s.sin, &set->rope, T);
  if (s.cos_local != NULL)
    as_rope_tables (s.cos_local, s.sin_local, &set->rope_local, T);
}

/* norm(x) into OUT as the settings say: RMSNorm (weight only) or LayerNorm (weight and bias).
 * x, out [T][D]. */
static void
norm (AsWorkerTeam *team, float *out, const float *x, const float *w, const float *b,
      const AsConfig *c, int T)
{
  gboolean layer = as_decoder_settings (c)->norm == AS_DECODER_LAYERNORM;
  as_norm_rows (team, out, x, w, layer ? b : NULL, c->layer_norm_eps, T, c->n_embd);
}

/* The attention's q [T][H·hd], k and v [T][K·hd] of layer LAYER (weights W) from a [T][D], the
 * per-head q/k norms (when bound) and RoPE (the layer's; not with NO_POSITIONS) applied. */
static void
project_qkv (AsWorkerTeam *team, DecoderScratch *s, const AsDecoderLayer *w, const AsConfig *c,
             int T, int layer, gboolean no_positions)
{
  const AsDecoderSettings *set = as_decoder_settings (c);
  int D = c->n_embd, H = c->n_head, K = c->n_kv_head, hd = c->head_dim;
  if (set->qkv == AS_DECODER_QKV_PER_HEAD)
    {
      /* query_key_value's output viewed (T, H, 3·hd): per head q | k | v */
      as_matmul_weight (team, s->qkv, s->a, &w->qkv, w->qkv_b, T, D, 3 * D);
      for (int t = 0; t < T; t++)
        for (int h = 0; h < H; h++)
          {
            const float *src = s->qkv + (gsize) t * 3 * D + (gsize) h * 3 * hd; /* [3·hd] */
            gsize at = (gsize) t * H * hd + (gsize) h * hd;
            memcpy (s->q + at, src, sizeof (float) * hd);
            memcpy (s->k + at, src + hd, sizeof (float) * hd);
            memcpy (s->v + at, src + 2 * hd, sizeof (float) * hd);
          }
    }
  else
    {
      AsProjection qkv[] = {
        { s->q, &w->q, w->q_b, H * hd },
        { s->k, &w->k, w->k_b, K * hd },
        { s->v, &w->v, w->v_b, K * hd },
      };
      as_matmul_weights (team, s->a, T, D, qkv, 3, AS_EPILOGUE_NONE, 0);
    }
  if (w->q_norm_w != NULL)
    {
      /* per head: q [T][H·hd] is [T·H][hd] rows (Qwen3's q_norm, k_norm before RoPE) */
      as_norm_rows (team, s->q, s->q, w->q_norm_w, NULL, c->layer_norm_eps, T * H, hd);
      as_norm_rows (team, s->k, s->k, w->k_norm_w, NULL, c->layer_norm_eps, T * K, hd);
    }
  if (no_positions)
    return;
  int rot = set->rope.rotary_dim;
  gboolean local = set->local != NULL && set->local[layer];
  const float *cos = local ? s->cos_local : s->cos, *sin = local ? s->sin_local : s->sin;
  as_rope_apply (s->q, T, H * hd, H, hd, rot, cos, sin);
  as_rope_apply (s->k, T, K * hd, K, hd, rot, cos, sin);
}

/* Copies each query head's q, and the k and v of its key/value head, into the trace. */
static void
capture_qkv (AsTrace *t, const DecoderScratch *s, int layer)
{
  int T = t->n_tokens, H = t->n_head, K = t->n_kv_head, hd = t->head_dim;
  for (int h = 0; h < H; h++)
    {
      int g = as_trace_kv_head (t, h);
      float *q = as_trace_head_vectors (t, t->q, layer, h); /* [T][hd] */
      float *k = as_trace_head_vectors (t, t->k, layer, h); /* [T][hd] */
      float *v = as_trace_head_vectors (t, t->v, layer, h); /* [T][hd] */
      for (int i = 0; i < T; i++)
        {
          memcpy (q + (gsize) i * hd, s->q + (gsize) i * H * hd + (gsize) h * hd,
                  sizeof (float) * hd);
          memcpy (k + (gsize) i * hd, s->k + (gsize) i * K * hd + (gsize) g * hd,
                  sizeof (float) * hd);
          memcpy (v + (gsize) i * hd, s->v + (gsize) i * K * hd + (gsize) g * hd,
                  sizeof (float) * hd);
        }
    }
}

static void
attention (AsWorkerTeam *team, AsTrace *t, DecoderScratch *s, const AsConfig *c, int layer)
{
  const AsDecoderSettings *set = as_decoder_settings (c);
  int Q = c->n_head * c->head_dim, KV = c->n_kv_head * c->head_dim;
  AsAttentionInput in = {
    .q = s->q,
    .k = s->k,
    .v = s->v,
    .ldq = Q,
    .ldk = KV,
    .ldv = KV,
    .cc = s->cc,
    .ldc = Q,
    .window = set->windows[layer],
    .scale = set->attn_scale,
    .softcap = set->attn_softcap,
  };
  as_attention_layer (team, t, layer, &in);
}

/* m [T][D] = the MLP of a [T][D]. */
static void
mlp (AsWorkerTeam *team, DecoderScratch *s, const AsDecoderLayer *w, const AsConfig *c, int T)
{
  int D = c->n_embd, F = c->n_inner;
  if (as_decoder_settings (c)->mlp == AS_DECODER_MLP_GATED)
    {
      AsProjection gate_up[] = {
        { s->gate, &w->gate, w->gate_b, F },
        { s->up, &w->up, w->up_b, F },
      };
      as_matmul_weights (team, s->a, T, D, gate_up, 2, AS_EPILOGUE_GATE, c->activation);
      as_matmul_weight (team, s->m, s->gate, &w->down, w->down_b, T, F, D);
    }
  else
    {
      AsProjection up = { s->up, &w->up, w->up_b, F };
      as_matmul_weights (team, s->a, T, D, &up, 1, AS_EPILOGUE_ACTIVATE, c->activation);
      as_matmul_weight (team, s->m, s->up, &w->down, w->down_b, T, F, D);
    }
}

static void
decoder_layer (AsPass *p, int layer)
{
  const AsConfig *c = p->config;
  const AsDecoderLayer *w = &((const AsDecoderWeights *) p->weights)->layers[layer];
  AsWorkerTeam *team = p->team;
  AsTrace *t = p->trace;
  DecoderScratch s = scratch_of (p);
  int T = t->n_tokens, D = c->n_embd;
  gsize n = (gsize) T * D;
  /* a trace without attn_out remakes it from the contexts when read (decoder_trace_shape): the
   * pass keeps it in m meanwhile, which the MLP overwrites only after its last use */
  float *attn_out = t->attn_out != NULL ? as_trace_attn_out (t, layer) : s.m; /* [T][D] */

  norm (team, s.a, p->x, w->norm1_w, w->norm1_b, c, T);
  project_qkv (team, &s, w, c, T, layer, as_pass_no_positions (p));
  if (t->q != NULL)
    capture_qkv (t, &s, layer);
  attention (team, t, &s, c, layer);
  as_pass_heads (p, layer, s.cc, c->n_head * c->head_dim);
  as_matmul_weight (team, attn_out, s.cc, &w->o, w->o_b, T, c->n_head * c->head_dim, D);

  if (as_decoder_settings (c)->residual == AS_DECODER_PARALLEL)
    {
      norm (team, s.a, p->x, w->norm2_w, w->norm2_b, c, T);
      mlp (team, &s, w, c, T);
      as_pass_mlp (p, layer, s.m);
      as_add_inplace (s.m, attn_out, n); /* mlp + attn */
      as_add_inplace (p->x, s.m, n);     /* + h */
      return;
    }
  if (w->post_attn_w != NULL)
    {
      /* Gemma: h + post_attention_layernorm(attn); the trace keeps attn as o_proj gave it */
      norm (team, s.a, attn_out, w->post_attn_w, NULL, c, T);
      as_add_inplace (p->x, s.a, n);
    }
  else
    as_add_inplace (p->x, attn_out, n);
  norm (team, s.a, p->x, w->norm2_w, w->norm2_b, c, T);
  mlp (team, &s, w, c, T);
  as_pass_mlp (p, layer, s.m);
  if (w->post_mlp_w != NULL)
    {
      norm (team, s.a, s.m, w->post_mlp_w, NULL, c, T);
      as_add_inplace (p->x, s.a, n);
      return;
    }
  as_add_inplace (p->x, s.m, n);
}

/* A long text's trace on demand keeps no attention outputs (L·T·D floats) when they can be remade
 * from the contexts: the sequential residual's, whose attn_out the MLP's output may overwrite;
 * without an intervention (as_pass_trace_shape), whose heads' columns would differ from the
 * contexts the trace keeps. */
static void
decoder_trace_shape (const AsConfig *c, AsTraceShape *shape, gboolean *causal)
{
  *causal = TRUE;
  gboolean sequential = as_decoder_settings (c)->residual != AS_DECODER_PARALLEL;
  shape->attn_out_on_demand = shape->attention_on_demand && sequential;
  shape->logits_only = shape->logits_only && sequential; /* needs the same buffer */
}

/* OUT [T][D] = LAYER's attention output, concat(ctx)·Woᵀ, from TRACE's contexts: the pass's
 * product (as_matmul_weight's blocks never depend on the thread count), so the pass's bits. */
static void
decoder_attention_output (const AsConfig *c, gconstpointer weights, const AsTrace *t, int layer,
                          float *out)
{
  const AsDecoderLayer *w = &((const AsDecoderWeights *) weights)->layers[layer];
  int T = t->n_tokens, H = t->n_head, hd = t->head_dim;
  g_autofree float *cc = g_new (float, (gsize) T *H *hd); /* [T][H·hd] heads side by side */
  for (int h = 0; h < H; h++)
    {
      const float *ctx = as_trace_head_vectors (t, t->ctx, layer, h); /* [T][hd] */
      for (int i = 0; i < T; i++)
        memcpy (cc + ((gsize) i * H + h) * hd, ctx + (gsize) i * hd, sizeof (float) * hd);
    }
  g_autoptr (AsWorkerTeam) team = as_worker_team_new (as_forward_threads ());
  as_matmul_weight (team, out, cc, &w->o, w->o_b, T, H * hd, c->n_embd);
}

/* lm_head (or the tied embeddings), soft-capped where the model caps its logits (Gemma 2's
 * final_logit_softcapping). */
static void
decoder_head_product (const AsConfig *c, gconstpointer weights, AsHeadProduct *head)
{
  const AsDecoderWeights *w = weights;
  *head = (AsHeadProduct){ .weight = w->lm_head,
                           .x_scale = 1.0f,
                           .soft_cap = as_decoder_settings (c)->logit_softcap };
}

static void
decoder_final_norm (const AsConfig *c, gconstpointer weights, AsWorkerTeam *team, float *out,
                    const float *x, int n)
{
  const AsDecoderWeights *w = weights;
  norm (team, out, x, w->norm_w, w->norm_b, c, n);
}

/* hidden[L] = norm(x); logits of the last rows = hidden[L]·lm_headᵀ */
static void
decoder_finish (AsPass *p)
{
  float *final = as_trace_hidden (p->trace, p->config->n_layer); /* [T][D] after the norm */
  decoder_final_norm (p->config, p->weights, p->team, final, p->x, p->trace->n_tokens);
  as_pass_head_logits (p, final, decoder_head_product);
}

/* The linear pieces of the output (readout-private.h): o_proj, Gemma's post-attention norm, the
 * final norm and lm_head (Gemma's 1 + w are what the binding keeps). */
static void
decoder_readout (const AsConfig *c, gconstpointer weights, AsReadout *out)
{
  const AsDecoderWeights *w = weights;
  const AsDecoderSettings *set = as_decoder_settings (c);
  out->layers = g_new0 (AsReadoutLayer, c->n_layer);
  for (int l = 0; l < c->n_layer; l++)
    out->layers[l] = (AsReadoutLayer){
      .o = w->layers[l].o,
      .o_b = w->layers[l].o_b,
      .post_w = w->layers[l].post_attn_w,
      .window = set->windows != NULL ? set->windows[l] : 0,
      .rope = set->local != NULL && set->local[l] ? &set->rope_local : &set->rope,
    };
  gboolean layer = set->norm == AS_DECODER_LAYERNORM;
  out->norm = layer ? AS_READOUT_LAYERNORM : AS_READOUT_RMSNORM;
  out->norm_w = w->norm_w;
  out->norm_b = layer ? w->norm_b : NULL;
  out->eps = c->layer_norm_eps;
  out->unembed = w->lm_head;
  out->logit_softcap = set->logit_softcap;
  out->attn_scale = set->attn_scale;
  out->attn_softcap = set->attn_softcap;
}

const AsStack as_decoder_stack = {
  .trace_shape = decoder_trace_shape,
  .attention_output = decoder_attention_output,
  .scratch_bytes = decoder_scratch_bytes,
  .embed = decoder_embed,
  .layer = decoder_layer,
  .finish = decoder_finish,
  .final_norm = decoder_final_norm,
  .head_product = decoder_head_product,
  .readout = decoder_readout,
};

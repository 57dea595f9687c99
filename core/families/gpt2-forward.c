/* gpt2-forward.c — GPT-2 / DistilGPT-2 forward pass (pre-LN, causal) that keeps everything.
 *
 * Reads top to bottom like the maths in core/families/README.md ("GPT-2"):
 *   h = wte[ids] + wpe[0..T-1]
 *   per block: a = LN1(h); qkv = a·W_attn + b; per head S = q·kᵀ/√hd, causal softmax, ctx = P·v;
 *              h += concat(ctx)·W_proj + b;  h += gelu_new(LN2(h)·W_fc + b)·W_fc2 + b
 *   h = LN_f(h); logits = h·wteᵀ
 * and writes every intermediate the trace promises straight into the trace's arrays.
 *
 * The stages of one stack (model/stack-private.h), which the one forward driver runs
 * (forward/pass.c: the trace, the residual stream x, the layer loop and its checks).
 *
 * Speed: one worker team per pass does all the threading (OpenBLAS runs single-threaded
 * meanwhile, and idle members sleep instead of spinning): each projection is split by columns
 * of W between the members, and the attention (forward/attention.c) reads each head's q, k, v
 * in place from the fused projection, sharing heads and blocks of rows out, computing only what
 * the causal mask lets a block see. q, k, v are copied into the trace only when asked. */
#include "gpt2-private.h"

#include <math.h>
#include <string.h>

#include "attention-private.h"
#include "kernels-private.h"

typedef struct
{
  float *a;   /* [T][D] normalised input of a sub-block */
  float *qkv; /* [T][3D] */
  float *cc;  /* [T][D] heads' contexts side by side */
  float *ff;  /* [T][F] MLP hidden layer */
} Gpt2Scratch;

static guint64
gpt2_scratch_bytes (const AsConfig *config, int n_tokens, int n_source)
{
  guint64 T = n_tokens, D = config->n_embd, F = config->n_inner;
  return (T * D * 5 + T * F) * sizeof (float);
}

/* The buffers of the pass's working memory. */
static Gpt2Scratch
scratch_of (const AsPass *p)
{
  gsize T = p->n_tokens, D = p->config->n_embd;
  Gpt2Scratch s = { .a = p->scratch };
  s.qkv = s.a + T * D;
  s.cc = s.qkv + T * 3 * D;
  s.ff = s.cc + T * D;
  return s;
}

/* x [T][D] = wte[ids] + wpe[0..T-1] (without positions: wte[ids]) */
static void
gpt2_embed (AsPass *p)
{
  const AsGpt2Weights *w = p->weights;
  int T = p->n_tokens, D = p->config->n_embd;
  const int32_t *ids = p->trace->ids;
  gboolean positions = !as_pass_no_positions (p);
  for (int t = 0; t < T; t++)
    {
      const float *te = w->wte + (gsize) ids[t] * D;
      const float *pe = w->wpe + (gsize) t * D;
      float *xt = p->x + (gsize) t * D;
      for (int i = 0; i < D; i++)
        xt[i] = positions ? te[i] + pe[i] : te[i];
    }
}

/* Copies every head's q, k, v columns out of qkv [T][3D] into the trace, each [T][hd]. */
static void
capture_qkv (AsTrace *t, int layer, const float *qkv)
{
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim;
  for (int h = 0; h < t->n_head; h++)
    {
      float *q = as_trace_head_vectors (t, t->q, layer, h);
      float *k = as_trace_head_vectors (t, t->k, layer, h);
      float *v = as_trace_head_vectors (t, t->v, layer, h);
      for (int i = 0; i < T; i++)
        {
          const float *row = qkv + (gsize) i * 3 * D + (gsize) h * hd;
          memcpy (q + (gsize) i * hd, row, sizeof (float) * hd);
          memcpy (k + (gsize) i * hd, row + D, sizeof (float) * hd);
          memcpy (v + (gsize) i * hd, row + 2 * D, sizeof (float) * hd);
        }
    }
}

/* Every head of LAYER straight from qkv [T][3D] (q | k | v, head h at columns h·hd of each). */
static void
attention (AsWorkerTeam *team, AsTrace *t, float *cc, const float *qkv, int layer)
{
  int D = t->d_model;
  AsAttentionInput in = {
    .q = qkv,
    .k = qkv + D,
    .v = qkv + 2 * D,
    .ldq = 3 * D,
    .ldk = 3 * D,
    .ldv = 3 * D,
    .cc = cc,
    .ldc = D,
    .window = 0,
    .scale = 1.0f / sqrtf ((float) t->head_dim),
  };
  as_attention_layer (team, t, layer, &in);
}

static void
gpt2_layer (AsPass *p, int layer)
{
  const AsConfig *c = p->config;
  const AsGpt2Layer *w = &((const AsGpt2Weights *) p->weights)->layers[layer];
  AsWorkerTeam *team = p->team;
  AsTrace *t = p->trace;
  Gpt2Scratch s = scratch_of (p);
  int T = t->n_tokens, D = c->n_embd, F = c->n_inner;
  float *attn_out = as_trace_attn_out (t, layer); /* [T][D] */

  as_norm_rows (team, s.a, p->x, w->ln1_g, w->ln1_b, c->layer_norm_eps, T, D);
  as_matmul (team, s.qkv, s.a, w->attn_w, w->attn_b, T, D, 3 * D);
  if (t->q != NULL)
    capture_qkv (t, layer, s.qkv);
  attention (team, t, s.cc, s.qkv, layer);
  as_pass_heads (p, layer, s.cc, D);
  as_matmul (team, attn_out, s.cc, w->proj_w, w->proj_b, T, D, D);
  as_add_inplace (p->x, attn_out, (gsize) T * D);

  as_norm_rows (team, s.a, p->x, w->ln2_g, w->ln2_b, c->layer_norm_eps, T, D);
  as_matmul_activate (team, s.ff, s.a, w->fc_w, w->fc_b, T, D, F, c->activation);
  as_matmul (team, s.a, s.ff, w->fc2_w, w->fc2_b, T, F, D);
  as_pass_mlp (p, layer, s.a);
  as_add_inplace (p->x, s.a, (gsize) T * D);
}

/* The tied wte, no bias. */
static void
gpt2_head_product (const AsConfig *c, gconstpointer weights, AsHeadProduct *head)
{
  (void) c;
  const AsGpt2Weights *w = weights;
  *head = (AsHeadProduct){ .weight = { w->wte, AS_DTYPE_F32 }, .x_scale = 1.0f };
}

static void
gpt2_final_norm (const AsConfig *c, gconstpointer weights, AsWorkerTeam *team, float *out,
                 const float *x, int n)
{
  const AsGpt2Weights *w = weights;
  as_norm_rows (team, out, x, w->lnf_g, w->lnf_b, c->layer_norm_eps, n, c->n_embd);
}

/* hidden[L] = LN_f(x); logits of the last rows = hidden[L]·wteᵀ */
static void
gpt2_finish (AsPass *p)
{
  float *final = as_trace_hidden (p->trace, p->config->n_layer); /* [T][D] after ln_f */
  gpt2_final_norm (p->config, p->weights, p->team, final, p->x, p->trace->n_tokens);
  as_pass_head_logits (p, final, gpt2_head_product);
}

static const float *
gpt2_token_embeddings (gconstpointer weights)
{
  return ((const AsGpt2Weights *) weights)->wte;
}

/* The linear pieces of the output (readout-private.h): Conv1D c_proj, ln_f, the tied wte. */
static void
gpt2_readout (const AsConfig *c, gconstpointer weights, AsReadout *out)
{
  const AsGpt2Weights *w = weights;
  out->layers = g_new0 (AsReadoutLayer, c->n_layer);
  for (int l = 0; l < c->n_layer; l++)
    out->layers[l] = (AsReadoutLayer){
      .o = { w->layers[l].proj_w, AS_DTYPE_F32 },
      .o_in_out = TRUE,
      .o_b = w->layers[l].proj_b,
    };
  out->norm = AS_READOUT_LAYERNORM;
  out->norm_w = w->lnf_g;
  out->norm_b = w->lnf_b;
  out->eps = c->layer_norm_eps;
  out->unembed = (AsWeight){ w->wte, AS_DTYPE_F32 };
  out->attn_scale = 1.0f / sqrtf ((float) c->head_dim);
}

const AsStack as_gpt2_stack = {
  .scratch_bytes = gpt2_scratch_bytes,
  .token_embeddings = gpt2_token_embeddings,
  .embed = gpt2_embed,
  .layer = gpt2_layer,
  .finish = gpt2_finish,
  .final_norm = gpt2_final_norm,
  .head_product = gpt2_head_product,
  .readout = gpt2_readout,
};

/* gpt2-forward.c — GPT-2 / DistilGPT-2 forward pass (pre-LN, causal) that keeps everything.
 *
 * Reads top to bottom like the maths in core/README.md ("GPT-2"):
 *   h = wte[ids] + wpe[0..T-1]
 *   per block: a = LN1(h); qkv = a·W_attn + b; per head S = q·kᵀ/√hd, causal softmax, ctx = P·v;
 *              h += concat(ctx)·W_proj + b;  h += gelu_new(LN2(h)·W_fc + b)·W_fc2 + b
 *   h = LN_f(h); logits = h·wteᵀ
 * and writes every intermediate the trace promises straight into the trace's arrays.
 *
 * Speed: one worker team per pass does all the threading (OpenBLAS runs single-threaded
 * meanwhile, and idle members sleep instead of spinning): each projection is split by columns
 * of W between the members, and the attention (forward/attention.c) reads each head's q, k, v
 * in place from the fused projection, sharing heads and blocks of rows out, computing only what
 * the causal mask lets a block see. q, k, v are copied into the trace only when asked. */
#include "gpt2-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "attention-private.h"
#include "kernels-private.h"

typedef struct
{
  float *x;   /* [T][D] residual stream */
  float *a;   /* [T][D] normalised input of a sub-block */
  float *qkv; /* [T][3D] */
  float *cc;  /* [T][D] heads' contexts side by side */
  float *ff;  /* [T][F] MLP hidden layer */
  float *mem; /* the one allocation behind the buffers above */
} Gpt2Scratch;

guint64
as_gpt2_scratch_bytes (const AsConfig *config, int n_tokens)
{
  guint64 T = n_tokens, D = config->n_embd, F = config->n_inner;
  return (T * D * 6 + T * F) * sizeof (float);
}

static gboolean
scratch_init (Gpt2Scratch *s, const AsConfig *c, int T, GError **error)
{
  gsize D = c->n_embd;
  s->mem = g_try_malloc ((gsize) as_gpt2_scratch_bytes (c, T));
  if (s->mem == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the working memory for %d tokens", T);
      return FALSE;
    }
  s->x = s->mem;
  s->a = s->x + T * D;
  s->qkv = s->a + T * D;
  s->cc = s->qkv + T * 3 * D;
  s->ff = s->cc + T * D;
  return TRUE;
}

/* x [T][D] = wte[ids] + wpe[0..T-1] */
static void
embed (float *x, const AsGpt2Weights *w, const int32_t *ids, int T, int D)
{
  for (int t = 0; t < T; t++)
    {
      const float *te = w->wte + (gsize) ids[t] * D;
      const float *pe = w->wpe + (gsize) t * D;
      float *xt = x + (gsize) t * D;
      for (int i = 0; i < D; i++)
        xt[i] = te[i] + pe[i];
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
block_forward (AsWorkerTeam *team, AsTrace *t, Gpt2Scratch *s, const AsGpt2Layer *w,
               const AsConfig *c, int layer)
{
  int T = t->n_tokens, D = c->n_embd, F = c->n_inner;
  float *attn_out = as_trace_attn_out (t, layer); /* [T][D] */

  as_norm_rows (team, s->a, s->x, w->ln1_g, w->ln1_b, c->layer_norm_eps, T, D);
  as_matmul (team, s->qkv, s->a, w->attn_w, w->attn_b, T, D, 3 * D);
  if (t->q != NULL)
    capture_qkv (t, layer, s->qkv);
  attention (team, t, s->cc, s->qkv, layer);
  as_matmul (team, attn_out, s->cc, w->proj_w, w->proj_b, T, D, D);
  as_add_inplace (s->x, attn_out, (gsize) T * D);

  as_norm_rows (team, s->a, s->x, w->ln2_g, w->ln2_b, c->layer_norm_eps, T, D);
  as_matmul_activate (team, s->ff, s->a, w->fc_w, w->fc_b, T, D, F, c->activation);
  as_matmul (team, s->a, s->ff, w->fc2_w, w->fc2_b, T, F, D);
  as_add_inplace (s->x, s->a, (gsize) T * D);
}

AsTrace *
as_gpt2_forward (const AsModel *model, const int32_t *ids, int T, const AsForwardOptions *options,
                 GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  const AsGpt2Weights *w = as_gpt2_weights (model);
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  int L = c->n_layer, D = c->n_embd, V = c->vocab_size;
  gboolean all_logits = options != NULL && options->all_logits;
  GCancellable *cancellable = options != NULL ? options->cancellable : NULL;

  AsTraceShape shape = as_forward_trace_shape (model, T, options);
  AsTrace *t = as_trace_new_shape (&shape, error);
  if (t == NULL)
    return NULL;
  t->causal = TRUE;
  as_trace_set_tokens (t, tokenizer, ids);
  if (!as_trace_set_token_embeddings (t, w->wte, error))
    {
      as_trace_unref (t);
      return NULL;
    }

  Gpt2Scratch s;
  if (!scratch_init (&s, c, T, error))
    {
      as_trace_unref (t);
      return NULL;
    }

  /* threads only when the largest product is worth sharing (tiny models run faster alone) */
  gsize largest = MAX ((gsize) T * D * c->n_inner, (gsize) (all_logits ? T : 1) * D * V);
  g_autoptr (AsWorkerTeam) team
      = as_worker_team_new (as_parallel_worth (largest) ? as_forward_threads () : 1);
  embed (s.x, w, ids, T, D);
  for (int l = 0; l < L; l++)
    {
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the forward pass was cancelled");
          g_free (s.mem);
          as_trace_unref (t);
          return NULL;
        }
      memcpy (as_trace_hidden (t, l), s.x, sizeof (float) * T * D);
      block_forward (team, t, &s, &w->layers[l], c, l);
    }

  float *final = as_trace_hidden (t, L); /* [T][D] after ln_f */
  as_norm_rows (team, final, s.x, w->lnf_g, w->lnf_b, c->layer_norm_eps, T, D);
  if (all_logits)
    as_matmul_logits_transposed (team, t->logits, final, w->wte, T, D, V);
  else
    as_matmul_logits_transposed (team, t->logits, final + (gsize) (T - 1) * D, w->wte, 1, D, V);

  g_free (s.mem);
  return t;
}

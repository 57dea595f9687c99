/* decoder-forward.c — the forward pass of the rotary decoders (Llama family, GPT-NeoX) that keeps
 * everything (decoder-private.h).
 *
 * Reads top to bottom like the maths in core/README.md ("Llama family", "GPT-NeoX"):
 *   h = embed[ids]
 *   per block: a = norm1(h); q, k, v = projections of a (NeoX: one fused, split per head);
 *              RoPE on q and k; per query head S = q·kᵀ/√hd with the key of its key/value head,
 *              causal (and sliding-window) softmax, ctx = P·v; attn = concat(ctx)·Woᵀ;
 *              llama: h += attn; h += mlp(norm2(h))       mlp = down(act(gate(a)) · up(a))
 *              NeoX parallel: h += mlp(norm2(h)) + attn   mlp = down(act(up(a)))
 *              NeoX sequential: h += attn; h += mlp(norm2(h))
 *   hidden[L] = norm(h); logits = hidden[L]·lm_headᵀ
 * writing every intermediate the trace promises straight into the trace's arrays. Additions
 * follow HF's order (mlp + attn + h for the parallel residual), so sums round the same way.
 *
 * Weights may be F32, BF16 or F16; the projections widen 16-bit weights tile by tile
 * (forward/matmul.c) and the embedding rows of the ids only. One worker team per pass does all
 * the threading (OpenBLAS single-threaded meanwhile): projections are split by output columns,
 * attention (forward/attention.c) by heads and blocks of query rows. */
#include "decoder-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "attention-private.h"
#include "kernels-private.h"

typedef struct
{
  float *x;         /* [T][D] residual stream */
  float *a;         /* [T][D] normalised input of a sub-block */
  float *q;         /* [T][H·hd] queries, heads side by side */
  float *k;         /* [T][K·hd] keys */
  float *v;         /* [T][K·hd] values */
  float *qkv;       /* [T][3D] NeoX's fused projection, NULL for the Llama family */
  float *cc;        /* [T][H·hd] heads' contexts side by side */
  float *gate;      /* [T][F] */
  float *up;        /* [T][F] */
  float *m;         /* [T][D] MLP output */
  float *cos, *sin; /* [T][rotary_dim/2] RoPE tables */
  float *mem;       /* the one allocation behind the buffers above */
} DecoderScratch;

/* Floats of each scratch buffer, in the order of DecoderScratch. */
static void
scratch_sizes (const AsConfig *c, int n_tokens, guint64 sizes[11])
{
  const AsDecoderSettings *s = as_decoder_settings (c);
  guint64 T = n_tokens, D = c->n_embd, F = c->n_inner;
  guint64 Q = (guint64) c->n_head * c->head_dim, KV = (guint64) c->n_kv_head * c->head_dim;
  guint64 half = s->rope.rotary_dim / 2;
  guint64 sz[11] = {
    T * D, T * D, T * Q,       T * KV, T * KV, s->neox ? T * 3 * D : 0, T * Q, s->gated ? T * F : 0,
    T * F, T * D, 2 * T * half
  };
  memcpy (sizes, sz, sizeof sz);
}

guint64
as_decoder_scratch_bytes (const AsConfig *config, int n_tokens)
{
  guint64 sizes[11], total = 0;
  scratch_sizes (config, n_tokens, sizes);
  for (int i = 0; i < 11; i++)
    total += sizes[i];
  return total * sizeof (float);
}

static gboolean
scratch_init (DecoderScratch *s, const AsConfig *c, int T, GError **error)
{
  guint64 sizes[11];
  scratch_sizes (c, T, sizes);
  s->mem = g_try_malloc ((gsize) as_decoder_scratch_bytes (c, T));
  if (s->mem == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the working memory for %d tokens", T);
      return FALSE;
    }
  float **slots[11]
      = { &s->x, &s->a, &s->q, &s->k, &s->v, &s->qkv, &s->cc, &s->gate, &s->up, &s->m, &s->cos };
  float *at = s->mem;
  for (int i = 0; i < 11; i++)
    {
      *slots[i] = sizes[i] > 0 ? at : NULL;
      at += sizes[i];
    }
  s->sin = s->cos + (gsize) T * (as_decoder_settings (c)->rope.rotary_dim / 2);
  return TRUE;
}

/* x [T][D] = embed[ids], widened exactly from the stored dtype. */
static void
embed (float *x, const AsWeight *e, const int32_t *ids, int T, int D)
{
  gsize row_bytes = (gsize) D * as_dtype_size (e->dtype);
  for (int t = 0; t < T; t++)
    as_dtype_widen (x + (gsize) t * D, (const char *) e->data + (gsize) ids[t] * row_bytes,
                    e->dtype, D);
}

/* norm(x) into OUT: LayerNorm with bias (NeoX) or RMSNorm (bias NULL). x, out [T][D]. */
static void
norm (AsWorkerTeam *team, float *out, const float *x, const float *w, const float *b,
      const AsConfig *c, int T)
{
  as_norm_rows (team, out, x, w, b, c->layer_norm_eps, T, c->n_embd);
}

/* The attention's q [T][H·hd], k and v [T][K·hd] of layer W from a [T][D], RoPE applied. */
static void
project_qkv (AsWorkerTeam *team, DecoderScratch *s, const AsDecoderLayer *w, const AsConfig *c,
             int T)
{
  const AsDecoderSettings *set = as_decoder_settings (c);
  int D = c->n_embd, H = c->n_head, K = c->n_kv_head, hd = c->head_dim;
  if (set->neox)
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
  int rot = set->rope.rotary_dim;
  as_rope_apply (s->q, T, H * hd, H, hd, rot, s->cos, s->sin);
  as_rope_apply (s->k, T, K * hd, K, hd, rot, s->cos, s->sin);
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
    .window = as_decoder_settings (c)->windows[layer],
    .scale = (float) pow ((double) c->head_dim, -0.5), /* HF: head_dim**-0.5 */
  };
  as_attention_layer (team, t, layer, &in);
}

/* m [T][D] = the MLP of a [T][D]. */
static void
mlp (AsWorkerTeam *team, DecoderScratch *s, const AsDecoderLayer *w, const AsConfig *c, int T)
{
  int D = c->n_embd, F = c->n_inner;
  if (as_decoder_settings (c)->gated)
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
block_forward (AsWorkerTeam *team, AsTrace *t, DecoderScratch *s, const AsDecoderLayer *w,
               const AsConfig *c, int layer)
{
  const AsDecoderSettings *set = as_decoder_settings (c);
  int T = t->n_tokens, D = c->n_embd;
  gsize n = (gsize) T * D;
  float *attn_out = as_trace_attn_out (t, layer); /* [T][D] */

  norm (team, s->a, s->x, w->norm1_w, w->norm1_b, c, T);
  project_qkv (team, s, w, c, T);
  if (t->q != NULL)
    capture_qkv (t, s, layer);
  attention (team, t, s, c, layer);
  as_matmul_weight (team, attn_out, s->cc, &w->o, w->o_b, T, c->n_head * c->head_dim, D);

  if (set->parallel_residual)
    {
      norm (team, s->a, s->x, w->norm2_w, w->norm2_b, c, T);
      mlp (team, s, w, c, T);
      as_add_inplace (s->m, attn_out, n); /* mlp + attn */
      as_add_inplace (s->x, s->m, n);     /* + h */
      return;
    }
  as_add_inplace (s->x, attn_out, n);
  norm (team, s->a, s->x, w->norm2_w, w->norm2_b, c, T);
  mlp (team, s, w, c, T);
  as_add_inplace (s->x, s->m, n);
}

/* A trace of the model's shape for T tokens and OPTIONS. */
static AsTrace *
trace_new (const AsModel *model, const int32_t *ids, int T, const AsForwardOptions *options,
           GError **error)
{
  AsTraceShape shape = as_forward_trace_shape (model, T, options);
  AsTrace *t = as_trace_new_shape (&shape, error);
  if (t == NULL)
    return NULL;
  t->causal = TRUE;
  as_trace_set_tokens (t, as_model_get_tokenizer (model), ids);
  return t;
}

AsTrace *
as_decoder_forward (const AsModel *model, const int32_t *ids, int T,
                    const AsForwardOptions *options, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  const AsDecoderWeights *w = as_model_get_weights (model);
  const AsDecoderSettings *set = as_decoder_settings (c);
  int L = c->n_layer, D = c->n_embd, V = c->vocab_size;
  GCancellable *cancellable = options != NULL ? options->cancellable : NULL;

  g_autoptr (AsTrace) t = trace_new (model, ids, T, options, error);
  DecoderScratch s;
  if (t == NULL || !scratch_init (&s, c, T, error))
    return NULL;
  as_rope_tables (s.cos, s.sin, &set->rope, T);

  /* threads only when the largest product is worth sharing (tiny models run faster alone) */
  gsize largest = MAX ((gsize) T * D * c->n_inner, (gsize) (t->logits_rows) * D * V);
  g_autoptr (AsWorkerTeam) team
      = as_worker_team_new (as_parallel_worth (largest) ? as_forward_threads () : 1);
  embed (s.x, &w->embed, ids, T, D);
  gboolean cancelled = FALSE;
  for (int l = 0; l < L && !cancelled; l++)
    {
      cancelled = g_cancellable_is_cancelled (cancellable);
      if (cancelled)
        break;
      memcpy (as_trace_hidden (t, l), s.x, sizeof (float) * T * D);
      block_forward (team, t, &s, &w->layers[l], c, l);
    }
  if (!cancelled)
    {
      float *final = as_trace_hidden (t, L); /* [T][D] after the final norm */
      norm (team, final, s.x, w->norm_w, w->norm_b, c, T);
      int rows = t->logits_rows;
      as_matmul_logits (team, t->logits, final + (gsize) (T - rows) * D, &w->lm_head, rows, D, V);
    }
  g_free (s.mem);
  if (cancelled)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the forward pass was cancelled");
      return NULL;
    }
  return g_steal_pointer (&t);
}

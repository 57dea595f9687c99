/* encoder-forward.c — the forward pass of BERT, RoBERTa and DistilBERT (post-LN, bidirectional)
 * that keeps everything.
 *
 * Reads top to bottom like the maths in core/README.md ("Encoders"):
 *   h = LN(word[ids] + type[type_ids] + position[pos])     pos = 0..T-1, RoBERTa: from pad + 1
 *   per layer: q, k, v = h·W + b; per head P = softmax(q·kᵀ/√hd) (no mask), ctx = P·v;
 *              a = LN(concat(ctx)·W_o + b_o + h);  h = LN(act(a·W_1 + b_1)·W_2 + b_2 + a)
 *   masked-LM head (when present): logits = LN(act(h·W_d + b_d))·wordᵀ + bias
 * hidden_states[0] is the embeddings' LayerNorm output, hidden_states[l+1] layer l's output (the
 * last one is not normalised again). Every intermediate the trace promises goes straight into
 * the trace's arrays.
 *
 * Speed: as gpt2-forward.c, one worker team per pass splits each projection by columns and
 * shares the heads out; each head's scores are one T×T product (nothing is masked). */
#include "encoder-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "attention-private.h"
#include "kernels-private.h"

typedef struct
{
  float *x;   /* [T][D] residual stream (h) */
  float *a;   /* [T][D] after the attention block's LayerNorm */
  float *q;   /* [T][D] queries of every head side by side */
  float *k;   /* [T][D] */
  float *v;   /* [T][D] */
  float *cc;  /* [T][D] heads' contexts side by side */
  float *y;   /* [T][D] output of a dense layer before its residual */
  float *ff;  /* [T][F] feed-forward hidden layer */
  float *mem; /* the one allocation behind the buffers above */
} EncoderScratch;

static gboolean
scratch_init (EncoderScratch *s, const AsConfig *c, int T, GError **error)
{
  gsize TD = (gsize) T * c->n_embd;
  s->mem = g_try_malloc ((gsize) as_encoder_scratch_bytes (c, T));
  if (s->mem == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the working memory for %d tokens", T);
      return FALSE;
    }
  s->x = s->mem;
  s->a = s->x + TD;
  s->q = s->a + TD;
  s->k = s->q + TD;
  s->v = s->k + TD;
  s->cc = s->v + TD;
  s->y = s->cc + TD;
  s->ff = s->y + TD;
  return TRUE;
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

/* x [T][D] = LN(word[ids] + type[type_ids] + position[pos]) */
static void
embed (float *x, const AsEncoderWeights *w, const AsConfig *c, const int32_t *ids,
       const int32_t *type_ids, int T)
{
  int D = c->n_embd;
  g_autofree int32_t *pos = g_new (int32_t, T); /* [T] */
  position_ids (pos, as_encoder_settings (c), ids, T);
  for (int t = 0; t < T; t++)
    {
      const float *we = w->word + (gsize) ids[t] * D;
      const float *pe = w->position + (gsize) pos[t] * D;
      const float *te
          = w->token_type == NULL ? NULL : w->token_type + (gsize) (type_ids ? type_ids[t] : 0) * D;
      float *xt = x + (gsize) t * D;
      for (int i = 0; i < D; i++)
        xt[i] = (te != NULL ? we[i] + te[i] : we[i]) + pe[i];
    }
  as_layernorm (x, x, w->emb_ln_g, w->emb_ln_b, c->layer_norm_eps, T, D);
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
layer_forward (AsWorkerTeam *team, AsTrace *t, EncoderScratch *s, const AsEncoderLayer *w,
               const AsConfig *c, int layer)
{
  int T = t->n_tokens, D = c->n_embd, F = c->n_inner;
  float eps = c->layer_norm_eps;
  float *attn_out = as_trace_attn_out (t, layer); /* [T][D] */

  linear (team, s->q, s->x, &w->q, T, D, D);
  linear (team, s->k, s->x, &w->k, T, D, D);
  linear (team, s->v, s->x, &w->v, T, D, D);
  AsAttentionInput in = {
    .q = s->q,
    .k = s->k,
    .v = s->v,
    .ldq = D,
    .ldk = D,
    .ldv = D,
    .cc = s->cc,
    .ldc = D,
    .bidirectional = TRUE,
    .scale = 1.0f / sqrtf ((float) t->head_dim),
  };
  as_attention_layer (team, t, layer, &in);
  if (t->q != NULL)
    for (int h = 0; h < t->n_head; h++)
      capture_qkv (t, s, layer, h);
  linear (team, attn_out, s->cc, &w->o, T, D, D);
  memcpy (s->a, attn_out, sizeof (float) * T * D);
  add_norm (s->a, s->x, w->ln1_g, w->ln1_b, eps, T, D); /* a = LN(attn_out + h) */

  linear (team, s->ff, s->a, &w->ff1, T, D, F);
  as_activate_rows (team, s->ff, T, F, c->activation);
  linear (team, s->y, s->ff, &w->ff2, T, F, D);
  memcpy (s->x, s->y, sizeof (float) * T * D);
  add_norm (s->x, s->a, w->ln2_g, w->ln2_b, eps, T, D); /* h = LN(ffn + a) */
}

/* logits [rows][V] = LN(act(h·W_d + b_d))·wordᵀ + bias for the last ROWS positions of h [T][D]. */
static void
mlm_head (AsWorkerTeam *team, float *logits, EncoderScratch *s, const AsEncoderWeights *w,
          const AsConfig *c, int T, int rows)
{
  int D = c->n_embd, V = c->vocab_size;
  const float *h = s->x + (gsize) (T - rows) * D; /* [rows][D] */
  linear (team, s->y, h, &w->mlm_dense, rows, D, D);
  as_activate_rows (team, s->y, rows, D, as_encoder_settings (c)->head_activation);
  as_layernorm (s->y, s->y, w->mlm_ln_g, w->mlm_ln_b, c->layer_norm_eps, rows, D);
  as_matmul_transposed (team, logits, s->y, w->word, rows, D, V);
  for (int i = 0; i < rows; i++)
    as_add_inplace (logits + (gsize) i * V, w->mlm_bias, V);
}

AsTrace *
as_encoder_forward (const AsModel *model, const int32_t *ids, int T,
                    const AsForwardOptions *options, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  const AsEncoderWeights *w = as_model_get_weights (model);
  int L = c->n_layer, D = c->n_embd;
  GCancellable *cancellable = options != NULL ? options->cancellable : NULL;

  AsTraceShape shape = as_forward_trace_shape (model, T, options);
  if (!w->has_mlm)
    shape.vocab_size = 0; /* attention only: no logits */
  AsTrace *t = as_trace_new_shape (&shape, error);
  if (t == NULL)
    return NULL;
  t->causal = FALSE;
  as_trace_set_tokens (t, as_model_get_tokenizer (model), ids);
  if (!as_trace_set_token_embeddings (t, w->word, error))
    {
      as_trace_unref (t);
      return NULL;
    }

  EncoderScratch s;
  if (!scratch_init (&s, c, T, error))
    {
      as_trace_unref (t);
      return NULL;
    }
  gsize largest = MAX ((gsize) T * D * c->n_inner, (gsize) T * T * D);
  if (w->has_mlm)
    largest = MAX (largest, (gsize) t->logits_rows * D * c->vocab_size);
  g_autoptr (AsWorkerTeam) team
      = as_worker_team_new (as_parallel_worth (largest) ? as_forward_threads () : 1);

  embed (s.x, w, c, ids, options != NULL ? options->type_ids : NULL, T);
  for (int l = 0; l < L; l++)
    {
      memcpy (as_trace_hidden (t, l), s.x, sizeof (float) * T * D);
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the forward pass was cancelled");
          g_free (s.mem);
          as_trace_unref (t);
          return NULL;
        }
      layer_forward (team, t, &s, &w->layers[l], c, l);
    }
  memcpy (as_trace_hidden (t, L), s.x, sizeof (float) * T * D);
  if (w->has_mlm)
    mlm_head (team, t->logits, &s, w, c, T, t->logits_rows);

  g_free (s.mem);
  return t;
}

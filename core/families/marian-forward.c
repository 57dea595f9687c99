/* marian-forward.c — the Marian encoder–decoder forward pass that keeps everything
 * (AsFamily.forward_pair), reading top to bottom like the maths in core/README.md ("Marian"):
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

#include "as-error.h"
#include "attention-private.h"
#include "kernels-private.h"

typedef struct
{
  float *x;     /* [n][D] residual stream */
  float *q;     /* [n][D] query projections */
  float *k, *v; /* [n][D] key and value projections */
  float *cc;    /* [n][D] heads' contexts side by side */
  float *tmp;   /* [n][D] */
  float *ff;    /* [n][F] MLP hidden layer, F the larger stack's */
  float *mem;   /* the one allocation behind the buffers above */
} MarianScratch;

guint64
as_marian_scratch_bytes (const AsConfig *config, int n_tokens)
{
  guint64 n = n_tokens, D = config->n_embd, F = MAX (config->n_inner, config->encoder_n_inner);
  return (n * D * 6 + n * F) * sizeof (float);
}

static gboolean
scratch_init (MarianScratch *s, const AsConfig *c, int n, GError **error)
{
  gsize D = c->n_embd;
  s->mem = g_try_malloc ((gsize) as_marian_scratch_bytes (c, n));
  if (s->mem == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the working memory for %d tokens", n);
      return FALSE;
    }
  s->x = s->mem;
  s->q = s->x + n * D;
  s->k = s->q + n * D;
  s->v = s->k + n * D;
  s->cc = s->v + n * D;
  s->tmp = s->cc + n * D;
  s->ff = s->tmp + n * D;
  return TRUE;
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

/* x = LN(x + SelfAttn(x)) for layer LAYER of trace T, capturing q, k, v, P, contexts and the
 * block's output. */
static void
self_attention (AsWorkerTeam *team, AsTrace *t, MarianScratch *s, const AsMarianLayer *y, int layer)
{
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim;
  as_marian_linear (team, s->q, s->x, &y->self_attn.q, T, D, D);
  as_marian_linear (team, s->k, s->x, &y->self_attn.k, T, D, D);
  as_marian_linear (team, s->v, s->x, &y->self_attn.v, T, D, D);
  split_heads (t, t->q, layer, s->q);
  split_heads (t, t->k, layer, s->k);
  split_heads (t, t->v, layer, s->v);
  gsize head = (gsize) T * hd;
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
    .p = as_trace_attn (t, layer, 0),
    .p_head = (gsize) T * T,
    .cc = s->cc,
    .ldcc = D,
    .n_heads = t->n_head,
    .n_q = T,
    .n_k = T,
    .head_dim = hd,
    .group = 1,
    .scale = 1.0f / sqrtf ((float) hd),
    .causal = t->causal,
  };
  as_attend (team, &job);
  split_heads (t, t->ctx, layer, s->cc);
  float *attn_out = as_trace_attn_out (t, layer); /* [T][D] */
  as_marian_linear (team, attn_out, s->cc, &y->self_attn.out, T, D, D);
  as_marian_add_norm (s->x, attn_out, &y->self_attn_norm, T, D);
}

/* y = LN(y + CrossAttn(y, ENC [S][D])) for decoder layer LAYER of trace T (weights into
 * t->cross_attn). */
static void
cross_attention (AsWorkerTeam *team, AsTrace *t, MarianScratch *s, const AsMarianLayer *y,
                 int layer, const float *enc, int S)
{
  int T = t->n_tokens, D = t->d_model, hd = t->head_dim;
  as_marian_linear (team, s->q, s->x, &y->cross_attn.q, T, D, D);
  as_marian_linear (team, s->k, enc, &y->cross_attn.k, S, D, D); /* [S][D] */
  as_marian_linear (team, s->v, enc, &y->cross_attn.v, S, D, D); /* [S][D] */
  AsAttention job = {
    .q = s->q,
    .k = s->k,
    .v = s->v,
    .q_head = hd,
    .k_head = hd,
    .v_head = hd,
    .ldq = D,
    .ldk = D,
    .ldv = D,
    .p = as_trace_cross_attn (t, layer, 0),
    .p_head = (gsize) T * S,
    .cc = s->cc,
    .ldcc = D,
    .n_heads = t->n_head,
    .n_q = T,
    .n_k = S,
    .head_dim = hd,
    .group = 1,
    .scale = 1.0f / sqrtf ((float) hd),
    .causal = FALSE,
  };
  as_attend (team, &job);
  as_marian_linear (team, s->tmp, s->cc, &y->cross_attn.out, T, D, D);
  as_marian_add_norm (s->x, s->tmp, &y->cross_attn_norm, T, D);
}

static gboolean
check_cancelled (GCancellable *cancellable, GError **error)
{
  if (!g_cancellable_is_cancelled (cancellable))
    return FALSE;
  g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the forward pass was cancelled");
  return TRUE;
}

/* Runs the encoder over T->ids into trace T (hidden[Le] is its output). */
static gboolean
encoder_run (const AsModel *model, AsWorkerTeam *team, AsTrace *t, MarianScratch *s,
             GCancellable *cancellable, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  const AsMarianWeights *w = as_marian_weights (model);
  int S = t->n_tokens, D = c->n_embd;
  as_marian_embed (s->x, w, &w->encoder, as_marian_settings (c)->embed_scale, t->ids, S, 0, D);
  for (int l = 0; l < t->n_layer; l++)
    {
      if (check_cancelled (cancellable, error))
        return FALSE;
      memcpy (as_trace_hidden (t, l), s->x, sizeof (float) * S * D);
      const AsMarianLayer *y = &w->encoder.layers[l];
      self_attention (team, t, s, y, l);
      as_marian_mlp (team, s->x, s->ff, s->tmp, y, c->activation, S, D, c->encoder_n_inner);
    }
  memcpy (as_trace_hidden (t, t->n_layer), s->x, sizeof (float) * S * D);
  return TRUE;
}

/* Runs the decoder over T->ids into trace T, attending to its source's last hidden state. */
static gboolean
decoder_run (const AsModel *model, AsWorkerTeam *team, AsTrace *t, MarianScratch *s,
             GCancellable *cancellable, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  const AsMarianWeights *w = as_marian_weights (model);
  int T = t->n_tokens, D = c->n_embd, S = t->source->n_tokens, V = c->vocab_size;
  const float *enc = as_trace_hidden (t->source, t->source->n_layer); /* [S][D] */
  as_marian_embed (s->x, w, &w->decoder, as_marian_settings (c)->embed_scale, t->ids, T, 0, D);
  for (int l = 0; l < t->n_layer; l++)
    {
      if (check_cancelled (cancellable, error))
        return FALSE;
      memcpy (as_trace_hidden (t, l), s->x, sizeof (float) * T * D);
      const AsMarianLayer *y = &w->decoder.layers[l];
      self_attention (team, t, s, y, l);
      cross_attention (team, t, s, y, l, enc, S);
      as_marian_mlp (team, s->x, s->ff, s->tmp, y, c->activation, T, D, c->n_inner);
    }
  float *last = as_trace_hidden (t, t->n_layer); /* [T][D] */
  memcpy (last, s->x, sizeof (float) * T * D);
  int rows = t->logits_rows;
  as_matmul_logits_transposed (team, t->logits, last + (gsize) (T - rows) * D, w->shared, rows, D,
                               V);
  for (int i = 0; i < rows; i++)
    as_add_inplace (t->logits + (gsize) i * V, w->final_logits_bias, V);
  return TRUE;
}

/* An encoder trace for SRC [S] with its token strings. */
static AsTrace *
encoder_trace_new (const AsModel *model, const int32_t *src, int S, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  int he = c->n_encoder_head;
  AsTrace *t = as_trace_new (c->n_encoder_layer, he, S, c->n_embd, c->n_embd / he, 0, FALSE, error);
  if (t != NULL)
    as_trace_set_tokens (t, as_model_get_tokenizer (model), src);
  return t;
}

/* A worker team sized for a pass over N rows (tiny models run faster alone). */
static AsWorkerTeam *
team_for (const AsConfig *c, int n)
{
  gsize largest = MAX ((gsize) n * c->n_embd * MAX (c->n_inner, c->encoder_n_inner),
                       (gsize) c->n_embd * c->vocab_size);
  return as_worker_team_new (as_parallel_worth (largest) ? as_forward_threads () : 1);
}

AsTrace *
as_marian_encoder_pass (const AsModel *model, AsWorkerTeam *team, const int32_t *src, int n_src,
                        GCancellable *cancellable, GError **error)
{
  MarianScratch s;
  g_autoptr (AsTrace) t = encoder_trace_new (model, src, n_src, error);
  if (t == NULL || !scratch_init (&s, as_model_get_config (model), n_src, error))
    return NULL;
  gboolean ok = encoder_run (model, team, t, &s, cancellable, error);
  g_free (s.mem);
  return ok ? g_steal_pointer (&t) : NULL;
}

AsTrace *
as_marian_forward_pair (const AsModel *model, const int32_t *src, int S, const int32_t *tgt, int T,
                        const AsForwardOptions *options, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  gboolean all_logits = options != NULL && options->all_logits;
  GCancellable *cancellable = options != NULL ? options->cancellable : NULL;

  AsTrace *source = encoder_trace_new (model, src, S, error);
  if (source == NULL)
    return NULL;
  g_autoptr (AsTrace) t = as_trace_new (c->n_layer, c->n_head, T, c->n_embd, c->head_dim,
                                        c->vocab_size, all_logits, error);
  if (t == NULL)
    {
      as_trace_unref (source);
      return NULL;
    }
  t->causal = TRUE;
  as_trace_set_tokens (t, as_model_get_tokenizer (model), tgt);
  MarianScratch s;
  if (!as_trace_set_source (t, source, error) || !scratch_init (&s, c, MAX (S, T), error))
    return NULL;

  g_autoptr (AsWorkerTeam) team = team_for (c, MAX (S, T));
  gboolean ok = encoder_run (model, team, t->source, &s, cancellable, error)
                && decoder_run (model, team, t, &s, cancellable, error);
  g_free (s.mem);
  return ok ? g_steal_pointer (&t) : NULL;
}

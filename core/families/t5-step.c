/* t5-step.c — the T5 decoder one token at a time, for generation (AsFamily.step_decoder_new,
 * model/step-decoder-private.h).
 *
 * The encoder runs once (t5-forward.c); every decoder layer's cross-attention keys and values of
 * the source are computed once from its output. Each step embeds the new token of every
 * sequence, computes the position bias of the new row (query at POS against keys 0..POS, the
 * decoder's causal buckets), and per layer appends the token's self-attention key and value to
 * the sequence's cache, attends over the cache with that bias, attends to the source, and runs
 * the MLP — the maths of the full pass restricted to the new row. Beam search reorders
 * sequences between steps; the caches follow their parents. */
#include "t5-private.h"

#include <string.h>

#include "pass-private.h"
#include "step-shared-private.h"

typedef struct
{
  AsStepDecoder base;
  const AsModel *model; /* borrowed: the caller keeps the model alive */
  const AsConfig *c;
  const AsT5Weights *w;
  AsWorkerTeam *team;
  int S, D, H, I, L, F;
  float *cross_k, *cross_v;  /* [L][S][I] */
  AsStepCache cache;         /* the self-attention's keys and values, [L][B][max_steps][I] */
  AsStepAttention attention; /* of one query row (T5: no scaling) */
  float *x, *normed;         /* [B][D] */
  float *q, *k, *v, *cc;     /* [B][I] */
  float *ff, *gate;          /* [B][F] */
  float *bias;               /* [H][max_steps] the new row's position bias */
  float *p;                  /* [H][max(max_steps, S)] attention weights of one row */
  float *mem;
} T5Step;

/* CC's row b = the attention of Q's row b over N_K keys and values K, V [n_k][I], with BIAS
 * [H][n_k] or none. */
static void
attend_row (T5Step *m, int b, const float *k, const float *v, int n_k, const float *bias)
{
  gsize at = (gsize) b * m->I;
  as_step_attend_row (&m->attention, m->cc + at, m->q + at, k, v, n_k, bias);
}

static void
layer_step (T5Step *m, int l, int pos)
{
  const AsT5Layer *y = &m->w->decoder.layers[l];
  int B = m->base.n_seqs, D = m->D, I = m->I;
  float eps = m->c->layer_norm_eps;
  if (l > 0 && as_t5_settings (m->c)->bias_every_layer) /* umT5: this layer's own table */
    as_t5_position_bias (m->bias, y->rel_bias, as_t5_settings (m->c), m->H, pos, 1, pos + 1, FALSE);
  as_norm_rows (m->team, m->normed, m->x, y->self_norm, NULL, eps, B, D);
  as_t5_linear (m->team, m->q, m->normed, y->self_attn.q, B, D, I);
  as_t5_linear (m->team, m->k, m->normed, y->self_attn.k, B, D, I);
  as_t5_linear (m->team, m->v, m->normed, y->self_attn.v, B, D, I);
  as_step_cache_append (&m->cache, l, pos, m->k, m->v);
  for (int b = 0; b < B; b++)
    attend_row (m, b, as_step_cache_keys (&m->cache, l, b), as_step_cache_values (&m->cache, l, b),
                pos + 1, m->bias);
  as_t5_linear (m->team, m->normed, m->cc, y->self_attn.o, B, I, D);
  as_add_inplace (m->x, m->normed, (gsize) B * D);

  as_norm_rows (m->team, m->normed, m->x, y->cross_norm, NULL, eps, B, D);
  as_t5_linear (m->team, m->q, m->normed, y->cross_attn.q, B, D, I);
  gsize at = (gsize) l * m->S * I;
  for (int b = 0; b < B; b++)
    attend_row (m, b, m->cross_k + at, m->cross_v + at, m->S, NULL);
  as_t5_linear (m->team, m->normed, m->cc, y->cross_attn.o, B, I, D);
  as_add_inplace (m->x, m->normed, (gsize) B * D);

  as_t5_mlp (m->team, m->x, m->normed, m->ff, m->gate, y, m->c, B, m->F);
}

/* The logits of every sequence from x [B][D]: (RMS(x) · D^-½ when tied) · lm_headᵀ. */
static void
step_logits (T5Step *m, float *logits)
{
  int B = m->base.n_seqs, D = m->D;
  as_norm_rows (m->team, m->normed, m->x, m->w->decoder.final_norm, NULL, m->c->layer_norm_eps, B,
                D);
  float scale = as_t5_settings (m->c)->output_scale;
  for (gsize i = 0; i < (gsize) B * D; i++)
    m->normed[i] *= scale;
  as_matmul_transposed (m->team, logits, m->normed, m->w->lm_head, B, D, m->base.vocab_size);
}

static gboolean
t5_step (AsStepDecoder *decoder, const int *parents, const int32_t *tokens, float *logits,
         GError **error)
{
  T5Step *m = (T5Step *) decoder;
  int pos = decoder->n_steps, B = decoder->n_seqs, D = m->D, V = decoder->vocab_size;
  if (!as_step_check_input (decoder, tokens, error))
    return FALSE;
  if (parents != NULL)
    as_step_cache_reorder (&m->cache, parents, pos);

  for (int b = 0; b < B; b++)
    memcpy (m->x + (gsize) b * D, m->w->shared + (gsize) tokens[b] * D, sizeof (float) * D);
  as_t5_position_bias (m->bias, m->w->decoder.rel_bias, as_t5_settings (m->c), m->H, pos, 1,
                       pos + 1, FALSE);
  gboolean ok = as_step_check_finite (m->x, B, D, "embeddings", 0, pos, error);
  for (int l = 0; ok && l < m->L; l++)
    {
      layer_step (m, l, pos);
      ok = as_step_check_finite (m->x, B, D, NULL, l, pos, error);
    }
  if (ok)
    {
      step_logits (m, logits);
      ok = as_step_check_finite (logits, B, V, "output layer", 0, pos, error);
    }
  if (ok)
    decoder->n_steps++;
  return ok;
}

static void
t5_step_free (AsStepDecoder *decoder)
{
  T5Step *m = (T5Step *) decoder;
  g_clear_pointer (&m->team, as_worker_team_free);
  g_free (m->mem);
  g_free (m);
}

static const AsStepDecoderFuncs t5_step_funcs = { t5_step, t5_step_free };

/* Floats the step decoder needs for B sequences of up to N tokens over S source tokens. */
static guint64
step_floats (const T5Step *m, int B, int N)
{
  guint64 L = m->L, I = m->I, D = m->D, F = m->F, S = m->S;
  return 2 * L * S * I + as_step_cache_floats (L, B, N, I) + 2 * (guint64) B * D
         + 4 * (guint64) B * I + 2 * (guint64) B * F + (guint64) m->H * N
         + (guint64) m->H * MAX (N, m->S);
}

static gboolean
step_alloc (T5Step *m, int B, int N, GError **error)
{
  m->mem = as_step_alloc (step_floats (m, B, N), B, N, error);
  if (m->mem == NULL)
    return FALSE;
  gsize LSI = (gsize) m->L * m->S * m->I;
  gsize BD = (gsize) B * m->D, BI = (gsize) B * m->I;
  m->cross_k = m->mem;
  m->cross_v = m->cross_k + LSI;
  m->x = as_step_cache_place (&m->cache, m->cross_v + LSI, m->L, B, N, m->I);
  m->normed = m->x + BD;
  m->q = m->normed + BD;
  m->k = m->q + BI;
  m->v = m->k + BI;
  m->cc = m->v + BI;
  m->ff = m->cc + BI;
  m->gate = m->ff + (gsize) B * m->F;
  m->bias = m->gate + (gsize) B * m->F;
  m->p = m->bias + (gsize) m->H * N;
  m->attention = (AsStepAttention){ m->team, m->I, m->H, 1.0f, m->p };
  return TRUE;
}

AsStepDecoder *
as_t5_step_decoder_new (const AsModel *model, const int32_t *src, int n_src, int n_beams,
                        int max_steps, gboolean no_positions, GError **error)
{
  /* T5 has no position embeddings (as_translation_positions_removable refuses it) */
  g_return_val_if_fail (!no_positions, NULL);
  const AsConfig *c = as_model_get_config (model);
  g_return_val_if_fail (n_beams >= 1 && max_steps >= 1 && max_steps <= c->n_positions, NULL);
  T5Step *m = g_new0 (T5Step, 1);
  m->base = (AsStepDecoder){ &t5_step_funcs, n_beams, c->vocab_size, max_steps, 0 };
  m->model = model;
  m->c = c;
  m->w = as_t5_weights (model);
  m->S = n_src, m->D = c->n_embd, m->H = c->n_head, m->L = c->n_layer, m->F = c->n_inner;
  m->I = c->n_head * c->head_dim;
  gsize largest = MAX ((gsize) MAX (n_src, n_beams) * c->n_embd * c->n_inner,
                       (gsize) n_beams * c->n_embd * c->vocab_size);
  m->team = as_worker_team_new (as_parallel_worth (largest) ? as_forward_threads () : 1);
  as_worker_team_set_watching (m->team, TRUE); /* a step's ~70 small products back to back */
  g_autoptr (AsStepDecoder) decoder = &m->base;
  if (!step_alloc (m, n_beams, max_steps, error))
    return NULL;

  g_autoptr (AsTrace) enc = as_pass_run (
      &as_t5_encoder_stack, c, m->w, as_model_get_tokenizer (model), src, n_src, NULL, NULL, error);
  if (enc == NULL)
    return NULL;
  const float *out = as_trace_hidden (enc, enc->n_layer); /* [S][D] */
  for (int l = 0; l < m->L; l++)
    {
      const AsT5Layer *y = &m->w->decoder.layers[l];
      gsize at = (gsize) l * n_src * m->I;
      as_t5_linear (m->team, m->cross_k + at, out, y->cross_attn.k, n_src, m->D, m->I);
      as_t5_linear (m->team, m->cross_v + at, out, y->cross_attn.v, n_src, m->D, m->I);
    }
  return g_steal_pointer (&decoder);
}

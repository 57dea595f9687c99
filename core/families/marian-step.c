/* marian-step.c — the Marian decoder one token at a time, for generation
 * (AsFamily.step_decoder_new, model/step-decoder-private.h).
 *
 * The encoder runs once (marian-forward.c); every decoder layer's cross-attention keys and values
 * of the source are computed once from its output. Each step embeds the new token of every
 * sequence at its position, and per layer appends the token's self-attention key and value to
 * the sequence's cache, attends over the cache (the causal mask is implicit: the cache holds only
 * the past), attends to the source, and runs the MLP — the maths of the full pass restricted to
 * the new row. Beam search reorders sequences between steps; the caches follow their parents. */
#include "marian-private.h"

#include <math.h>
#include <string.h>

#include "pass-private.h"
#include "step-shared-private.h"

typedef struct
{
  AsStepDecoder base;
  const AsModel *model; /* borrowed: the caller keeps the model alive */
  const AsMarianWeights *w;
  AsWorkerTeam *team;
  int S, D, H, L, F;
  float *cross_k, *cross_v;        /* [L][S][D] */
  AsStepCache cache;               /* the self-attention's keys and values, [L][B][max_steps][D] */
  AsStepAttention attention;       /* of one query row */
  float *x, *q, *k, *v, *cc, *tmp; /* [B][D] */
  float *ff;                       /* [B][F] */
  float *p;                        /* [H][max(max_steps, S)] attention weights of one row */
  float *mem;
  gboolean no_positions; /* the position embeddings left out (encoder and decoder) */
} MarianStep;

/* CC's row b = the attention of Q's row b over N_K keys and values K, V [n_k][D]. */
static void
attend_row (MarianStep *m, int b, const float *k, const float *v, int n_k)
{
  gsize at = (gsize) b * m->D;
  as_step_attend_row (&m->attention, m->cc + at, m->q + at, k, v, n_k, NULL);
}

static void
layer_step (MarianStep *m, int l, int pos)
{
  const AsMarianLayer *y = &m->w->decoder.layers[l];
  const AsConfig *c = as_model_get_config (m->model);
  const AsMarianSettings *s = as_marian_settings (c);
  int B = m->base.n_seqs, D = m->D;
  const float *x = as_marian_block_input (s, m->tmp, m->x, &y->self_attn_norm, B, D);
  as_marian_linear (m->team, m->q, x, &y->self_attn.q, B, D, D);
  as_marian_linear (m->team, m->k, x, &y->self_attn.k, B, D, D);
  as_marian_linear (m->team, m->v, x, &y->self_attn.v, B, D, D);
  as_step_cache_append (&m->cache, l, pos, m->k, m->v);
  for (int b = 0; b < B; b++)
    attend_row (m, b, as_step_cache_keys (&m->cache, l, b), as_step_cache_values (&m->cache, l, b),
                pos + 1);
  as_marian_linear (m->team, m->tmp, m->cc, &y->self_attn.out, B, D, D);
  as_marian_block_output (s, m->x, m->tmp, &y->self_attn_norm, B, D);

  x = as_marian_block_input (s, m->tmp, m->x, &y->cross_attn_norm, B, D);
  as_marian_linear (m->team, m->q, x, &y->cross_attn.q, B, D, D);
  gsize at = (gsize) l * m->S * D;
  for (int b = 0; b < B; b++)
    attend_row (m, b, m->cross_k + at, m->cross_v + at, m->S);
  as_marian_linear (m->team, m->tmp, m->cc, &y->cross_attn.out, B, D, D);
  as_marian_block_output (s, m->x, m->tmp, &y->cross_attn_norm, B, D);

  as_marian_mlp (m->team, m->x, m->ff, m->tmp, y, s, c->activation, B, D, m->F);
}

static gboolean
marian_step (AsStepDecoder *decoder, const int *parents, const int32_t *tokens, float *logits,
             GError **error)
{
  MarianStep *m = (MarianStep *) decoder;
  int pos = decoder->n_steps, B = decoder->n_seqs, D = m->D, V = decoder->vocab_size;
  if (!as_step_check_input (decoder, tokens, error))
    return FALSE;
  const AsConfig *c = as_model_get_config (m->model);
  if (parents != NULL)
    as_step_cache_reorder (&m->cache, parents, pos);

  for (int b = 0; b < B; b++) /* every sequence's new token is at position POS */
    as_marian_embed (m->x + (gsize) b * D, m->w, &m->w->decoder,
                     as_marian_settings (c)->embed_scale, tokens + b, 1, pos, D, !m->no_positions);
  gboolean ok = as_step_check_finite (m->x, B, D, "embeddings", 0, pos, error);
  for (int l = 0; ok && l < m->L; l++)
    {
      layer_step (m, l, pos);
      ok = as_step_check_finite (m->x, B, D, NULL, l, pos, error);
    }
  if (ok)
    {
      as_marian_final_norm (m->x, m->x, &m->w->decoder, B, D);
      as_matmul_transposed (m->team, logits, m->x, m->w->shared, B, D, V); /* [B][V] */
      for (int b = 0; b < B; b++)
        as_add_inplace (logits + (gsize) b * V, m->w->final_logits_bias, V);
      ok = as_step_check_finite (logits, B, V, "output layer", 0, pos, error);
    }
  if (ok)
    decoder->n_steps++;
  return ok;
}

static void
marian_step_free (AsStepDecoder *decoder)
{
  MarianStep *m = (MarianStep *) decoder;
  g_clear_pointer (&m->team, as_worker_team_free);
  g_free (m->mem);
  g_free (m);
}

static const AsStepDecoderFuncs marian_step_funcs = { marian_step, marian_step_free };

/* Floats the step decoder needs for B sequences of up to N tokens over S source tokens. */
static guint64
step_floats (const AsConfig *c, int S, int B, int N)
{
  guint64 L = c->n_layer, D = c->n_embd, F = c->n_inner;
  return 2 * L * S * D + as_step_cache_floats (L, B, N, D) + 6 * (guint64) B * D + (guint64) B * F
         + (guint64) c->n_head * MAX (N, S);
}

static gboolean
step_alloc (MarianStep *m, const AsConfig *c, int B, int N, GError **error)
{
  m->mem = as_step_alloc (step_floats (c, m->S, B, N), B, N, error);
  if (m->mem == NULL)
    return FALSE;
  gsize LSD = (gsize) m->L * m->S * m->D;
  gsize BD = (gsize) B * m->D;
  m->cross_k = m->mem;
  m->cross_v = m->cross_k + LSD;
  m->x = as_step_cache_place (&m->cache, m->cross_v + LSD, m->L, B, N, m->D);
  m->q = m->x + BD;
  m->k = m->q + BD;
  m->v = m->k + BD;
  m->cc = m->v + BD;
  m->tmp = m->cc + BD;
  m->ff = m->tmp + BD;
  m->p = m->ff + (gsize) B * m->F;
  m->attention
      = (AsStepAttention){ m->team, m->D, m->H, 1.0f / sqrtf ((float) (m->D / m->H)), m->p };
  return TRUE;
}

AsStepDecoder *
as_marian_step_decoder_new (const AsModel *model, const int32_t *src, int n_src, int n_beams,
                            int max_steps, gboolean no_positions, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  g_return_val_if_fail (n_beams >= 1 && max_steps >= 1 && max_steps <= c->n_positions, NULL);
  MarianStep *m = g_new0 (MarianStep, 1);
  m->base = (AsStepDecoder){ &marian_step_funcs, n_beams, c->vocab_size, max_steps, 0 };
  m->model = model;
  m->w = as_marian_weights (model);
  m->no_positions = no_positions;
  m->S = n_src, m->D = c->n_embd, m->H = c->n_head, m->L = c->n_layer, m->F = c->n_inner;
  gsize largest = MAX ((gsize) MAX (n_src, n_beams) * c->n_embd * c->n_inner,
                       (gsize) n_beams * c->n_embd * c->vocab_size);
  m->team = as_worker_team_new (as_parallel_worth (largest) ? as_forward_threads () : 1);
  as_worker_team_set_watching (m->team, TRUE); /* a step's ~70 small products back to back */
  g_autoptr (AsStepDecoder) decoder = &m->base;
  if (!step_alloc (m, c, n_beams, max_steps, error))
    return NULL;

  AsForwardOptions encoder_options = { .no_positions = no_positions };
  g_autoptr (AsTrace) enc
      = as_pass_run (&as_marian_encoder_stack, c, m->w, as_model_get_tokenizer (model), src, n_src,
                     NULL, &encoder_options, error);
  if (enc != NULL)
    {
      const float *out = as_trace_hidden (enc, enc->n_layer); /* [S][D] */
      for (int l = 0; l < m->L; l++)
        {
          const AsMarianLayer *y = &m->w->decoder.layers[l];
          gsize at = (gsize) l * n_src * m->D;
          as_marian_linear (m->team, m->cross_k + at, out, &y->cross_attn.k, n_src, m->D, m->D);
          as_marian_linear (m->team, m->cross_v + at, out, &y->cross_attn.v, n_src, m->D, m->D);
        }
    }
  return enc != NULL ? g_steal_pointer (&decoder) : NULL;
}

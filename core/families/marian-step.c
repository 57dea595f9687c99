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

#include "as-error.h"
#include "attention-private.h"
#include "kernels-private.h"
#include "pass-private.h"

typedef struct
{
  AsStepDecoder base;
  const AsModel *model; /* borrowed: the caller keeps the model alive */
  const AsMarianWeights *w;
  AsWorkerTeam *team;
  int S, D, H, L, F;
  float *cross_k, *cross_v;        /* [L][S][D] */
  float *cache_k, *cache_v;        /* [L][B][max_steps][D] */
  float *spare_k, *spare_v;        /* [L][B][max_steps][D] for reordering */
  float *x, *q, *k, *v, *cc, *tmp; /* [B][D] */
  float *ff;                       /* [B][F] */
  float *p;                        /* [H][max(max_steps, S)] attention weights of one row */
  float *mem;
  gboolean no_positions; /* the position embeddings left out (encoder and decoder) */
} MarianStep;

static float *
cache_row (const MarianStep *m, float *cache, int layer, int seq, int pos) /* [D] */
{
  gsize B = m->base.n_seqs, N = m->base.max_steps;
  return cache + (((gsize) layer * B + seq) * N + pos) * m->D;
}

/* Sequence b's cache becomes sequence PARENTS[b]'s, for the N_STEPS rows held so far. */
static void
reorder (MarianStep *m, const int *parents)
{
  gboolean identity = TRUE;
  for (int b = 0; b < m->base.n_seqs; b++)
    identity = identity && parents[b] == b;
  if (identity || m->base.n_steps == 0)
    return;
  gsize rows = (gsize) m->base.n_steps * m->D;
  for (int l = 0; l < m->L; l++)
    for (int b = 0; b < m->base.n_seqs; b++)
      {
        memcpy (cache_row (m, m->spare_k, l, b, 0), cache_row (m, m->cache_k, l, parents[b], 0),
                rows * sizeof (float));
        memcpy (cache_row (m, m->spare_v, l, b, 0), cache_row (m, m->cache_v, l, parents[b], 0),
                rows * sizeof (float));
      }
  float *t = m->cache_k;
  m->cache_k = m->spare_k, m->spare_k = t;
  t = m->cache_v;
  m->cache_v = m->spare_v, m->spare_v = t;
}

/* CC's row b [D] = the attention of query row b of Q [B][D] over N_K keys and values K, V
 * (row stride D). */
static void
attend_row (MarianStep *m, int b, const float *k, const float *v, int n_k)
{
  int hd = m->D / m->H;
  AsAttention job = {
    .q = m->q + (gsize) b * m->D,
    .k = k,
    .v = v,
    .q_head = hd,
    .k_head = hd,
    .v_head = hd,
    .ldq = m->D,
    .ldk = m->D,
    .ldv = m->D,
    .p = m->p,
    .p_head = n_k,
    .cc = m->cc + (gsize) b * m->D,
    .ldcc = m->D,
    .n_heads = m->H,
    .n_q = 1,
    .n_k = n_k,
    .head_dim = hd,
    .group = 1,
    .scale = 1.0f / sqrtf ((float) hd),
    .causal = FALSE,
  };
  as_attend (m->team, &job);
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
  for (int b = 0; b < B; b++)
    {
      memcpy (cache_row (m, m->cache_k, l, b, pos), m->k + (gsize) b * D, D * sizeof (float));
      memcpy (cache_row (m, m->cache_v, l, b, pos), m->v + (gsize) b * D, D * sizeof (float));
      attend_row (m, b, cache_row (m, m->cache_k, l, b, 0), cache_row (m, m->cache_v, l, b, 0),
                  pos + 1);
    }
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

/* Fails when x [B][D] — one row per sequence (beam) — of decoder layer LAYER, or of PART
 * ("embeddings", "output layer") when not NULL, is not finite at step POS, naming the first
 * sequence that is not. */
static gboolean
check_step (const float *x, int B, int D, const char *part, int layer, int pos, GError **error)
{
  if (as_find_non_finite (x, (gsize) B * D) < 0)
    return TRUE;
  g_autofree char *what
      = part != NULL ? g_strdup_printf ("the decoder's %s (generating token %d)", part, pos + 1)
                     : g_strdup_printf ("decoder layer %d (generating token %d)", layer, pos + 1);
  return as_check_finite (x, B, D, 0, what, "sequence", NULL, error);
}

static gboolean
marian_step (AsStepDecoder *decoder, const int *parents, const int32_t *tokens, float *logits,
             GError **error)
{
  MarianStep *m = (MarianStep *) decoder;
  int pos = decoder->n_steps, B = decoder->n_seqs, D = m->D, V = decoder->vocab_size;
  if (pos >= decoder->max_steps)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the decoder holds %d tokens per sequence, no room for another",
                   decoder->max_steps);
      return FALSE;
    }
  const AsConfig *c = as_model_get_config (m->model);
  for (int b = 0; b < B; b++)
    if (tokens[b] < 0 || tokens[b] >= V)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "token id %d is outside the vocabulary (0..%d)", tokens[b], V - 1);
        return FALSE;
      }
  if (parents != NULL)
    reorder (m, parents);

  for (int b = 0; b < B; b++) /* every sequence's new token is at position POS */
    as_marian_embed (m->x + (gsize) b * D, m->w, &m->w->decoder,
                     as_marian_settings (c)->embed_scale, tokens + b, 1, pos, D, !m->no_positions);
  gboolean ok = check_step (m->x, B, D, "embeddings", 0, pos, error);
  for (int l = 0; ok && l < m->L; l++)
    {
      layer_step (m, l, pos);
      ok = check_step (m->x, B, D, NULL, l, pos, error);
    }
  if (ok)
    {
      as_marian_final_norm (m->x, m->x, &m->w->decoder, B, D);
      as_matmul_transposed (m->team, logits, m->x, m->w->shared, B, D, V); /* [B][V] */
      for (int b = 0; b < B; b++)
        as_add_inplace (logits + (gsize) b * V, m->w->final_logits_bias, V);
      ok = check_step (logits, B, V, "output layer", 0, pos, error);
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
  return 2 * L * S * D + 4 * L * B * N * D + 6 * (guint64) B * D + (guint64) B * F
         + (guint64) c->n_head * MAX (N, S);
}

static gboolean
step_alloc (MarianStep *m, const AsConfig *c, int B, int N, GError **error)
{
  guint64 n = step_floats (c, m->S, B, N);
  char what[96];
  g_snprintf (what, sizeof what, "Generating %d sequence%s of up to %d tokens", B,
              B == 1 ? "" : "s", N);
  if (!as_memory_check (n * sizeof (float), what, error))
    return FALSE;
  m->mem = g_try_malloc0_n (n, sizeof (float));
  if (m->mem == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate the memory for %s", what);
      return FALSE;
    }
  gsize LSD = (gsize) m->L * m->S * m->D, cache = (gsize) m->L * B * N * m->D;
  gsize BD = (gsize) B * m->D;
  m->cross_k = m->mem;
  m->cross_v = m->cross_k + LSD;
  m->cache_k = m->cross_v + LSD;
  m->cache_v = m->cache_k + cache;
  m->spare_k = m->cache_v + cache;
  m->spare_v = m->spare_k + cache;
  m->x = m->spare_v + cache;
  m->q = m->x + BD;
  m->k = m->q + BD;
  m->v = m->k + BD;
  m->cc = m->v + BD;
  m->tmp = m->cc + BD;
  m->ff = m->tmp + BD;
  m->p = m->ff + (gsize) B * m->F;
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

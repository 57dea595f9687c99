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
  const AsConfig *c;
  const AsT5Weights *w;
  AsWorkerTeam *team;
  int S, D, H, I, L, F;
  float *cross_k, *cross_v; /* [L][S][I] */
  float *cache_k, *cache_v; /* [L][B][max_steps][I] */
  float *spare_k, *spare_v; /* [L][B][max_steps][I] for reordering */
  float *x, *normed;        /* [B][D] */
  float *q, *k, *v, *cc;    /* [B][I] */
  float *ff, *gate;         /* [B][F] */
  float *bias;              /* [H][max_steps] the new row's position bias */
  float *p;                 /* [H][max(max_steps, S)] attention weights of one row */
  float *mem;
} T5Step;

static float *
cache_row (const T5Step *m, float *cache, int layer, int seq, int pos) /* [I] */
{
  gsize B = m->base.n_seqs, N = m->base.max_steps;
  return cache + (((gsize) layer * B + seq) * N + pos) * m->I;
}

/* Sequence b's cache becomes sequence PARENTS[b]'s, for the rows held so far. */
static void
reorder (T5Step *m, const int *parents)
{
  gboolean identity = TRUE;
  for (int b = 0; b < m->base.n_seqs; b++)
    identity = identity && parents[b] == b;
  if (identity || m->base.n_steps == 0)
    return;
  gsize rows = (gsize) m->base.n_steps * m->I;
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

/* CC's row b [I] = the attention of query row b of Q [B][I] over N_K keys and values K, V (row
 * stride I), with BIAS [H][n_k] or none. */
static void
attend_row (T5Step *m, int b, const float *k, const float *v, int n_k, const float *bias)
{
  int hd = m->I / m->H;
  AsAttention job = {
    .q = m->q + (gsize) b * m->I,
    .k = k,
    .v = v,
    .q_head = hd,
    .k_head = hd,
    .v_head = hd,
    .ldq = m->I,
    .ldk = m->I,
    .ldv = m->I,
    .p = m->p,
    .p_head = n_k,
    .cc = m->cc + (gsize) b * m->I,
    .ldcc = m->I,
    .n_heads = m->H,
    .n_q = 1,
    .n_k = n_k,
    .head_dim = hd,
    .group = 1,
    .scale = 1.0f,
    .bias = bias,
    .bias_head = n_k,
    .ldbias = n_k,
  };
  as_attend (m->team, &job);
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
  for (int b = 0; b < B; b++)
    {
      memcpy (cache_row (m, m->cache_k, l, b, pos), m->k + (gsize) b * I, I * sizeof (float));
      memcpy (cache_row (m, m->cache_v, l, b, pos), m->v + (gsize) b * I, I * sizeof (float));
      attend_row (m, b, cache_row (m, m->cache_k, l, b, 0), cache_row (m, m->cache_v, l, b, 0),
                  pos + 1, m->bias);
    }
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

/* Fails when x [B][D] of decoder layer LAYER, or of PART when not NULL, is not finite at step
 * POS, naming the first sequence that is not. */
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
  if (pos >= decoder->max_steps)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the decoder holds %d tokens per sequence, no room for another",
                   decoder->max_steps);
      return FALSE;
    }
  for (int b = 0; b < B; b++)
    if (tokens[b] < 0 || tokens[b] >= V)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "token id %d is outside the vocabulary (0..%d)", tokens[b], V - 1);
        return FALSE;
      }
  if (parents != NULL)
    reorder (m, parents);

  for (int b = 0; b < B; b++)
    memcpy (m->x + (gsize) b * D, m->w->shared + (gsize) tokens[b] * D, sizeof (float) * D);
  as_t5_position_bias (m->bias, m->w->decoder.rel_bias, as_t5_settings (m->c), m->H, pos, 1,
                       pos + 1, FALSE);
  gboolean ok = check_step (m->x, B, D, "embeddings", 0, pos, error);
  for (int l = 0; ok && l < m->L; l++)
    {
      layer_step (m, l, pos);
      ok = check_step (m->x, B, D, NULL, l, pos, error);
    }
  if (ok)
    {
      step_logits (m, logits);
      ok = check_step (logits, B, V, "output layer", 0, pos, error);
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
  return 2 * L * S * I + 4 * L * B * N * I + 2 * (guint64) B * D + 4 * (guint64) B * I
         + 2 * (guint64) B * F + (guint64) m->H * N + (guint64) m->H * MAX (N, m->S);
}

static gboolean
step_alloc (T5Step *m, int B, int N, GError **error)
{
  guint64 n = step_floats (m, B, N);
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
  gsize LSI = (gsize) m->L * m->S * m->I, cache = (gsize) m->L * B * N * m->I;
  gsize BD = (gsize) B * m->D, BI = (gsize) B * m->I;
  m->cross_k = m->mem;
  m->cross_v = m->cross_k + LSI;
  m->cache_k = m->cross_v + LSI;
  m->cache_v = m->cache_k + cache;
  m->spare_k = m->cache_v + cache;
  m->spare_v = m->spare_k + cache;
  m->x = m->spare_v + cache;
  m->normed = m->x + BD;
  m->q = m->normed + BD;
  m->k = m->q + BI;
  m->v = m->k + BI;
  m->cc = m->v + BI;
  m->ff = m->cc + BI;
  m->gate = m->ff + (gsize) B * m->F;
  m->bias = m->gate + (gsize) B * m->F;
  m->p = m->bias + (gsize) m->H * N;
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

/* toy-attention.c — binding and forward pass of the one-layer `toy-attention` architecture.
 *
 * The maths is in toy-attention-private.h; this file reads top to bottom like it: embed (+
 * positions), project each head, softmax(q·kᵀ·s)·v per head, concatenate, optional W_O — the
 * stages of one stack (model/stack-private.h) that the one forward driver runs
 * (forward/pass.c). Every intermediate is written straight into the trace. The numeric kernels are
 * the core's shared ones (kernels-private.h), so the toy and GPT-2 paths compute attention the same
 * way. */
#include "toy-attention-private.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "blas-threads-private.h"
#include "kernels-private.h"
#include "pass-private.h"
#include "positional-private.h"
#include "tensor-store-private.h"

gboolean
as_toy_attention_check_config (const AsConfig *c, GError **error)
{
  if (c->n_embd <= 0 || c->n_head <= 0 || c->head_dim <= 0 || c->vocab_size <= 0
      || c->n_positions <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "toy-attention needs positive n_embd, n_head, head_dim, vocab_size and "
                   "n_positions (got %d, %d, %d, %d, %d)",
                   c->n_embd, c->n_head, c->head_dim, c->vocab_size, c->n_positions);
      return FALSE;
    }
  gint64 width = (gint64) c->n_head * c->head_dim;
  if (width != c->n_embd
      && (!as_toy_settings (c)->use_projections || !as_toy_settings (c)->use_output))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "with %s false, n_head * head_dim (%d * %d = %" G_GINT64_FORMAT
                   ") must equal n_embd (%d)",
                   !as_toy_settings (c)->use_projections ? "use_projections"
                                                         : "use_output_projection",
                   c->n_head, c->head_dim, width, c->n_embd);
      return FALSE;
    }
  return TRUE;
}

/* The tensor named *SUFFIX with exactly SHAPE[0..NDIM-1], or NULL and an error naming the
 * file, the dataset, the expected and the actual shape. */
static const float *
require_exact (const AsTensorStore *store, const char *suffix, const char *why, int ndim,
               const int64_t *shape, GError **error)
{
  const AsTensor *tensor = as_tensor_store_find_suffix (store, suffix);
  g_autofree char *want = as_tensor_shape_to_string (ndim, shape);
  if (tensor == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND, "%s: no dataset '%s' (expected shape %s%s)",
                   as_tensor_store_get_path (store), suffix, want, why);
      return NULL;
    }
  gboolean same = tensor->ndim == ndim;
  for (int i = 0; same && i < ndim; i++)
    same = tensor->shape[i] == shape[i];
  if (!same)
    {
      g_autofree char *have = as_tensor_shape_to_string (tensor->ndim, tensor->shape);
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' has shape %s, expected %s (from config.json)",
                   as_tensor_store_get_path (store), tensor->name, have, want);
      return NULL;
    }
  return as_tensor_store_get_floats (store, tensor, error);
}

gboolean
as_toy_attention_bind_weights (AsToyWeights *w, const AsConfig *c, const AsTensorStore *store,
                               GError **error)
{
  memset (w, 0, sizeof *w);
  if (!as_toy_attention_check_config (c, error))
    {
      /* the weight file sits next to config.json */
      g_autofree char *folder = g_path_get_dirname (as_tensor_store_get_path (store));
      g_prefix_error (error, "%s" G_DIR_SEPARATOR_S "config.json: ", folder);
      return FALSE;
    }

  int64_t V = c->vocab_size, D = c->n_embd, H = c->n_head, hd = c->head_dim;
  int64_t emb_shape[] = { V, D };
  w->embeddings = require_exact (store, "embeddings:0", "", 2, emb_shape, error);
  if (w->embeddings == NULL)
    return FALSE;

  if (as_toy_settings (c)->use_projections)
    {
      const char *why = " because use_projections is true";
      int64_t shape[] = { H, D, hd };
      if ((w->w_q = require_exact (store, "w_q:0", why, 3, shape, error)) == NULL
          || (w->w_k = require_exact (store, "w_k:0", why, 3, shape, error)) == NULL
          || (w->w_v = require_exact (store, "w_v:0", why, 3, shape, error)) == NULL)
        goto fail;
    }
  if (as_toy_settings (c)->use_output)
    {
      int64_t shape[] = { H * hd, D };
      w->w_o = require_exact (store, "w_o:0", " because use_output_projection is true", 2, shape,
                              error);
      if (w->w_o == NULL)
        goto fail;
    }
  return TRUE;

fail:
  memset (w, 0, sizeof *w);
  return FALSE;
}

int64_t
as_toy_attention_count_params (const AsConfig *c)
{
  int64_t V = c->vocab_size, D = c->n_embd, H = c->n_head, hd = c->head_dim;
  return V * D + (as_toy_settings (c)->use_projections ? 3 * H * D * hd : 0)
         + (as_toy_settings (c)->use_output ? H * hd * D : 0);
}

/* x [T][D] = embeddings[ids] (+ sinusoidal PE of positions 0..T-1) */
static void
toy_embed (AsPass *p)
{
  const AsToyWeights *w = p->weights;
  int T = p->n_tokens, D = p->config->n_embd;
  for (int t = 0; t < T; t++)
    memcpy (p->x + (gsize) t * D, w->embeddings + (gsize) p->trace->ids[t] * D, sizeof (float) * D);
  if (as_toy_settings (p->config)->sinusoidal)
    as_positional_add (p->x, 0, T, D, AS_POSITIONAL_INTERLEAVED);
}

/* out [T][hd] = x·W[head] with W [H][D][hd], or columns head·hd.. of x [T][D] without W. */
static void
project (float *out, const float *x, const float *w, int head, int T, int D, int hd)
{
  if (w != NULL)
    {
      as_matmul (NULL, out, x, w + (gsize) head * D * hd, NULL, T, D, hd);
      return;
    }
  for (int t = 0; t < T; t++)
    memcpy (out + (gsize) t * hd, x + (gsize) t * D + (gsize) head * hd, sizeof (float) * hd);
}

/* One head: q, k, v [T][hd] from x, P [T][T] = softmax(q·kᵀ·scale) (causal when asked),
 * ctx [T][hd] = P·v, and ctx copied into columns head·hd.. of cc [T][H·hd]. */
static void
attention_head (AsTrace *t, float *cc, const float *x, const AsToyWeights *w, int head, float scale,
                int D)
{
  int T = t->n_tokens, hd = t->head_dim, width = t->n_head * hd;
  float *q = as_trace_head_vectors (t, t->q, 0, head);     /* [T][hd] */
  float *k = as_trace_head_vectors (t, t->k, 0, head);     /* [T][hd] */
  float *v = as_trace_head_vectors (t, t->v, 0, head);     /* [T][hd] */
  float *ctx = as_trace_head_vectors (t, t->ctx, 0, head); /* [T][hd] */
  float *P = as_trace_attn_matrices (t, 0, head);          /* [T][T] */

  as_blas_single_threaded ();
  project (q, x, w->w_q, head, T, D, hd);
  project (k, x, w->w_k, head, T, D, hd);
  project (v, x, w->w_v, head, T, D, hd);
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, T, T, hd, 1.0f, q, hd, k, hd, 0.0f, P, T);
  as_softmax_rows (P, T, T, T, scale, t->causal, 0);
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, T, hd, T, 1.0f, P, T, v, hd, 0.0f, ctx,
               hd);
  for (int i = 0; i < T; i++)
    memcpy (cc + (gsize) i * width + (gsize) head * hd, ctx + (gsize) i * hd, sizeof (float) * hd);
}

/* The one layer: every head, concatenated, W_O when given; no residual, no normalisation, so the
 * layer's output becomes x. */
static void
toy_layer (AsPass *p, int layer)
{
  const AsConfig *c = p->config;
  const AsToyWeights *w = p->weights;
  AsTrace *t = p->trace;
  int T = p->n_tokens, D = c->n_embd, H = c->n_head, hd = c->head_dim;
  float *out = as_trace_attn_out (t, 0); /* [T][D] layer output */
  /* heads' contexts side by side [T][H·hd]; straight into OUT when there is no W_O (H·hd = D) */
  float *cc = w->w_o != NULL ? p->scratch : out;
  float scale = as_toy_settings (c)->scale_scores ? 1.0f / sqrtf ((float) hd) : 1.0f;
  t->attn_recipe[0] = (AsAttentionRecipe){ .causal = t->causal, .scale = scale };
  for (int h = 0; h < H; h++)
    attention_head (t, cc, p->x, w, h, scale, D);
  if (w->w_o != NULL)
    as_matmul (NULL, out, cc, w->w_o, NULL, T, H * hd, D);
  memcpy (p->x, out, sizeof (float) * T * D);
}

/* The layer's output is the last hidden state. */
static void
toy_finish (AsPass *p)
{
  memcpy (as_trace_hidden (p->trace, 1), p->x, sizeof (float) * p->n_tokens * p->config->n_embd);
}

/* One layer, q, k, v always kept, no logits (vocab_size 0: the toy layer has no output
 * vocabulary, so logits_rows = 0); causal when the config says so. */
static void
toy_trace_shape (const AsConfig *c, AsTraceShape *shape, gboolean *causal)
{
  shape->n_layer = 1;
  shape->n_kv_head = shape->n_head;
  shape->vocab_size = 0;
  shape->all_logits = FALSE;
  shape->capture_qkv = TRUE;
  shape->attention_on_demand = FALSE; /* its one layer writes the matrices itself */
  *causal = as_toy_settings (c)->causal;
}

/* The heads' contexts before W_O, [T][H·hd]. */
static guint64
toy_scratch_bytes (const AsConfig *c, int n_tokens, int n_source)
{
  return (guint64) n_tokens * c->n_head * c->head_dim * sizeof (float);
}

static const float *
toy_token_embeddings (gconstpointer weights)
{
  return ((const AsToyWeights *) weights)->embeddings;
}

static const AsStack toy_stack = {
  .trace_shape = toy_trace_shape,
  .scratch_bytes = toy_scratch_bytes,
  .token_embeddings = toy_token_embeddings,
  .embed = toy_embed,
  .layer = toy_layer,
  .finish = toy_finish,
};

/* The weights actually given decide the shapes: W_Q, W_K, W_V all or none, and H·hd = D
 * wherever the heads' columns stand in for a projection. */
static gboolean
check_weights (const AsConfig *c, const AsToyWeights *w, GError **error)
{
  int n_proj = (w->w_q != NULL) + (w->w_k != NULL) + (w->w_v != NULL);
  if (n_proj != 0 && n_proj != 3)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "toy-attention weights: W_Q, W_K and W_V must be given together (%d of 3 are)",
                   n_proj);
      return FALSE;
    }
  gint64 width = (gint64) c->n_head * c->head_dim;
  if (width != c->n_embd && (n_proj == 0 || w->w_o == NULL))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "toy-attention weights: without %s, n_head * head_dim (%d * %d) must equal "
                   "n_embd (%d)",
                   n_proj == 0 ? "W_Q/W_K/W_V" : "W_O", c->n_head, c->head_dim, c->n_embd);
      return FALSE;
    }
  return TRUE;
}

AsTrace *
as_toy_attention_run (const AsConfig *c, const AsToyWeights *w, const AsTokenizer *tokenizer,
                      const int32_t *ids, int T, const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (c != NULL && w != NULL && w->embeddings != NULL, NULL);
  g_return_val_if_fail (ids != NULL && T >= 1 && T <= c->n_positions, NULL);
  for (int i = 0; i < T; i++)
    g_return_val_if_fail (ids[i] >= 0 && ids[i] < c->vocab_size, NULL);
  if (!as_toy_attention_check_config (c, error))
    {
      g_prefix_error (error, "toy-attention configuration: ");
      return NULL;
    }
  if (!check_weights (c, w, error))
    return NULL;
  return as_pass_run (&toy_stack, c, w, tokenizer, ids, T, NULL, options, error);
}

/* ---- the family ---- */

static const char *const toy_model_types[] = { "toy-attention", NULL };

static gboolean
toy_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  AsToySettings *s = g_new0 (AsToySettings, 1);
  c->settings = s;
  c->n_layer = 1;
  c->activation = AS_ACT_GELU_NEW;
  if (!as_config_reader_int (r, "n_embd", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH, &c->n_embd, error)
      || !as_config_reader_int (r, "n_head", FALSE, 0, 1, AS_CONFIG_MAX_HEADS, &c->n_head, error)
      || !as_config_reader_int (r, "vocab_size", FALSE, 0, 1, AS_CONFIG_MAX_VOCAB, &c->vocab_size,
                                error)
      || !as_config_reader_int (r, "n_positions", TRUE, 512, 1, AS_CONFIG_MAX_POSITIONS,
                                &c->n_positions, error)
      || !as_config_reader_bool (r, "use_projections", FALSE, &s->use_projections, error)
      || !as_config_reader_bool (r, "use_output_projection", FALSE, &s->use_output, error)
      || !as_config_reader_bool (r, "scale_scores", FALSE, &s->scale_scores, error)
      || !as_config_reader_bool (r, "sinusoidal_positions", FALSE, &s->sinusoidal, error)
      || !as_config_reader_bool (r, "causal", FALSE, &s->causal, error)
      || !as_config_reader_eps (r, "layer_norm_epsilon", 1e-5f, &c->layer_norm_eps, error))
    return FALSE;
  int default_hd = c->n_embd % c->n_head == 0 ? c->n_embd / c->n_head : 0;
  if (!as_config_reader_int (r, "head_dim", default_hd != 0, default_hd, 1, AS_CONFIG_MAX_WIDTH,
                             &c->head_dim, error))
    return FALSE;
  if (!s->use_projections && c->head_dim != c->n_embd)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: head_dim (%d) must equal n_embd (%d) when use_projections is false "
                   "(queries, keys and values are the embeddings themselves)",
                   r->path, c->head_dim, c->n_embd);
      return FALSE;
    }
  return TRUE;
}

/* The weights a toy model may hold at most (checked against memory before loading). */
static guint64
toy_count_weights (const AsConfig *c)
{
  guint64 V = c->vocab_size, D = c->n_embd, H = c->n_head, hd = c->head_dim;
  return V * D + 3 * H * D * hd + H * hd * D;
}

/* The word-level vocabulary of the toy models (vocab.json). */
static AsTokenizer *
toy_load_tokenizer (const char *folder, const AsConfig *config, GError **error)
{
  g_autofree char *vocab = g_build_filename (folder, "vocab.json", NULL);
  if (!g_file_test (vocab, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s has no vocab.json (the word-level tokenizer of toy-attention needs it)",
                   folder);
      return NULL;
    }
  return as_tokenizer_load_words (vocab, error);
}

static gpointer
toy_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params, GError **error)
{
  g_autofree AsToyWeights *w = g_new0 (AsToyWeights, 1);
  if (!as_toy_attention_bind_weights (w, c, store, error))
    return NULL;
  *n_params += as_toy_attention_count_params (c);
  return g_steal_pointer (&w);
}

const AsFamily as_family_toy_attention = {
  .name = "toy-attention",
  .model_types = toy_model_types,
  .read_config = toy_read_config,
  .free_settings = g_free,
  .count_weights = toy_count_weights,
  .load_tokenizer = toy_load_tokenizer,
  .bind_weights = toy_bind_weights,
  .free_weights = g_free,
  .stack = &toy_stack,
};

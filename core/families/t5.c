/* t5.c — the `t5` family: config.json keys, the tokenizer, weight names (core/families/README.md,
 * "T5").
 *
 * Model types t5 (T5 v1.0 with feed_forward_proj "relu"; v1.1 and Flan-T5 with "gated-gelu"),
 * mt5 (the same network; its config's tie_word_embeddings defaults to false) and umt5
 * (UMT5ForConditionalGeneration: every layer's self-attention has its own
 * relative_attention_bias table instead of sharing block 0's; tie_word_embeddings defaults to true
 * as UMT5Config's does in transformers 4.x; the real checkpoints say false). Weights are
 * T5ForConditionalGeneration's safetensors names: shared.weight, {encoder,decoder}.block.N.layer.M.
 * {SelfAttention,EncDecAttention}.{q,k,v,o}.weight, ….layer_norm.weight,
 * ….DenseReluDense.{wi,wi_0,wi_1,wo}.weight, block.0's relative_attention_bias.weight
 * [buckets][H], {encoder,decoder}.final_layer_norm.weight and lm_head.weight (untied). The passes
 * are t5-forward.c and t5-step.c. */
#include "t5-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "tensor-bind-private.h"

static const char *const t5_model_types[] = { "t5", "mt5", "umt5", NULL };

/* feed_forward_proj as T5Config reads it: "[gated-]ACT", and "gated-gelu" meaning gelu_new. */
static gboolean
read_mlp (const AsConfigReader *r, AsT5Settings *s, AsActivation *act, GError **error)
{
  const char *proj = NULL;
  if (!as_config_reader_string (r, "feed_forward_proj", &proj, error))
    return FALSE;
  static const struct
  {
    const char *name;
    AsT5Mlp mlp;
    AsActivation act;
  } known[] = {
    { "relu", AS_T5_MLP_DENSE, AS_ACT_RELU },
    { "gelu", AS_T5_MLP_DENSE, AS_ACT_GELU },
    { "gelu_new", AS_T5_MLP_DENSE, AS_ACT_GELU_NEW },
    { "silu", AS_T5_MLP_DENSE, AS_ACT_SILU },
    { "gated-relu", AS_T5_MLP_GATED, AS_ACT_RELU },
    { "gated-gelu", AS_T5_MLP_GATED, AS_ACT_GELU_NEW },
    { "gated-gelu_new", AS_T5_MLP_GATED, AS_ACT_GELU_NEW },
    { "gated-silu", AS_T5_MLP_GATED, AS_ACT_SILU },
  };
  if (proj == NULL)
    proj = "relu"; /* T5Config's default */
  for (gsize i = 0; i < G_N_ELEMENTS (known); i++)
    if (strcmp (proj, known[i].name) == 0)
      {
        s->mlp = known[i].mlp;
        s->feed_forward_proj = known[i].name;
        *act = known[i].act;
        return TRUE;
      }
  g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
               "%s: feed_forward_proj \"%s\" is not supported (expected relu, gelu, gelu_new, "
               "silu or gated- with one of them)",
               r->path, proj);
  return FALSE;
}

static gboolean
t5_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  AsT5Settings *s = g_new0 (AsT5Settings, 1);
  c->settings = s;
  c->encoder_decoder = TRUE;
  c->causal_lm = FALSE;
  const char *model_type = NULL;
  int max_id = AS_CONFIG_MAX_VOCAB;
  if (!as_config_reader_string (r, "model_type", &model_type, error)
      || !as_config_reader_int (r, "d_model", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH, &c->n_embd, error)
      || !as_config_reader_int (r, "vocab_size", FALSE, 0, 1, AS_CONFIG_MAX_VOCAB, &c->vocab_size,
                                error)
      /* T5Config's defaults */
      || !as_config_reader_int (r, "d_kv", TRUE, 64, 1, AS_CONFIG_MAX_WIDTH, &s->d_kv, error)
      || !as_config_reader_int (r, "d_ff", TRUE, 2048, 1, AS_CONFIG_MAX_WIDTH, &c->n_inner, error)
      || !as_config_reader_int (r, "num_layers", TRUE, 6, 1, AS_CONFIG_MAX_LAYERS,
                                &c->n_encoder_layer, error)
      || !as_config_reader_int (r, "num_decoder_layers", TRUE, c->n_encoder_layer, 1,
                                AS_CONFIG_MAX_LAYERS, &c->n_layer, error)
      || !as_config_reader_int (r, "num_heads", TRUE, 8, 1, AS_CONFIG_MAX_HEADS, &c->n_head, error)
      || !as_config_reader_int (r, "relative_attention_num_buckets", TRUE, 32, 1, 1 << 16,
                                &s->n_buckets, error)
      || !as_config_reader_int (r, "relative_attention_max_distance", TRUE, 128, 1,
                                AS_CONFIG_MAX_POSITIONS, &s->max_distance, error)
      || !as_config_reader_eps (r, "layer_norm_epsilon", 1e-6f, &c->layer_norm_eps, error)
      || !read_mlp (r, s, &c->activation, error)
      || !as_config_reader_bool (r, "tie_word_embeddings", g_strcmp0 (model_type, "mt5") != 0,
                                 &s->tie, error)
      || !as_config_reader_int (r, "pad_token_id", TRUE, 0, 0, max_id, &s->pad_token_id, error)
      || !as_config_reader_int (r, "decoder_start_token_id", TRUE, s->pad_token_id, 0, max_id,
                                &c->decoder_start_token_id, error))
    return FALSE;
  if (c->decoder_start_token_id >= c->vocab_size)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: decoder_start_token_id %d is outside the vocabulary (vocab_size %d)",
                   r->path, c->decoder_start_token_id, c->vocab_size);
      return FALSE;
    }
  if (s->max_distance < s->n_buckets / 2 || s->n_buckets < 4)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: relative_attention_num_buckets %d with relative_attention_max_distance %d: "
                   "expected at least 4 buckets and a distance of at least half as many",
                   r->path, s->n_buckets, s->max_distance);
      return FALSE;
    }
  c->n_encoder_head = c->n_head;
  c->encoder_n_inner = c->n_inner;
  c->head_dim = s->d_kv;
  /* relative positions only: no table bounds the length (memory does) */
  c->n_positions = AS_CONFIG_MAX_POSITIONS;
  /* model_dim ** -0.5 in Python's double, then a float32 multiplier */
  s->bias_every_layer = g_strcmp0 (model_type, "umt5") == 0;
  s->output_scale = s->tie ? (float) pow ((double) c->n_embd, -0.5) : 1.0f;
  c->special_tokens[AS_SPECIAL_SEP] = "</s>";
  c->special_tokens[AS_SPECIAL_PAD] = "<pad>";
  return TRUE;
}

/* HF's num_parameters: the shared embedding, the untied head, every layer, both stacks'
 * first-layer bias tables and final norms. */
static guint64
t5_count_weights (const AsConfig *c)
{
  const AsT5Settings *s = c->settings;
  guint64 D = c->n_embd, V = c->vocab_size, I = (guint64) c->n_head * s->d_kv, F = c->n_inner;
  guint64 attention = 4 * D * I, mlp = (s->mlp == AS_T5_MLP_GATED ? 3 : 2) * D * F;
  guint64 encoder = attention + mlp + 2 * D, decoder = 2 * attention + mlp + 3 * D;
  guint64 tables = s->bias_every_layer ? (guint64) c->n_encoder_layer + c->n_layer : 2;
  guint64 bias = tables * (guint64) s->n_buckets * c->n_head;
  return V * D * (s->tie ? 1 : 2) + c->n_encoder_layer * encoder + c->n_layer * decoder + bias
         + 2 * D;
}

static AsTokenizer *
t5_load_tokenizer (const char *folder, const AsConfig *config, GError **error)
{
  return as_tokenizer_load_folder (folder, error);
}

/* --- binding ------------------------------------------------------------------------------- */

static const float *
bind (AsTensorBinder *b, const char *prefix, const char *name, int64_t d0, int64_t d1)
{
  g_autofree char *full = g_strconcat (prefix, name, NULL);
  return as_tensor_binder_get (b, full, d0, d1);
}

static AsT5AttentionWeights
bind_attention (AsTensorBinder *b, const char *prefix, int64_t d, int64_t inner)
{
  AsT5AttentionWeights a;
  a.q = bind (b, prefix, "q.weight", inner, d);
  a.k = bind (b, prefix, "k.weight", inner, d);
  a.v = bind (b, prefix, "v.weight", inner, d);
  a.o = bind (b, prefix, "o.weight", d, inner);
  return a;
}

/* Layer LAYER's relative_attention_bias [buckets][H]; a stored table of another shape is a config
 * that does not match its weights, named as such with the file and both sizes. */
static const float *
bind_rel_bias (AsTensorBinder *b, const char *side, int layer, const AsConfig *c,
               const AsT5Settings *s)
{
  g_autofree char *name = g_strdup_printf (
      "%s.block.%d.layer.0.SelfAttention.relative_attention_bias.weight", side, layer);
  const AsTensor *info = as_tensor_store_find_suffix (b->store, name);
  if (!b->failed && info != NULL && info->ndim == 2 && info->shape[0] != s->n_buckets
      && info->shape[1] == c->n_head)
    {
      g_set_error (b->error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: %s holds %" G_GINT64_FORMAT
                   " relative-position buckets but config.json's relative_attention_num_buckets "
                   "is %d",
                   info->file, info->name, info->shape[0], s->n_buckets);
      b->failed = TRUE;
      return NULL;
    }
  return as_tensor_binder_get (b, name, s->n_buckets, c->n_head);
}

static void
bind_stack (AsTensorBinder *b, AsT5Stack *st, const char *side, const AsConfig *c, gboolean decoder)
{
  const AsT5Settings *s = c->settings;
  int64_t D = c->n_embd, I = (int64_t) c->n_head * s->d_kv, F = st->n_inner;
  st->layers = g_new0 (AsT5Layer, st->n_layer);
  st->rel_bias = bind_rel_bias (b, side, 0, c, s);
  for (int l = 0; l < st->n_layer; l++)
    {
      AsT5Layer *y = &st->layers[l];
      y->rel_bias = l > 0 && s->bias_every_layer ? bind_rel_bias (b, side, l, c, s) : st->rel_bias;
      char p[96];
      g_snprintf (p, sizeof p, "%s.block.%d.layer.0.", side, l);
      g_autofree char *sa = g_strconcat (p, "SelfAttention.", NULL);
      y->self_attn = bind_attention (b, sa, D, I);
      y->self_norm = bind (b, p, "layer_norm.weight", D, 0);
      int ff_index = 1;
      if (decoder)
        {
          g_snprintf (p, sizeof p, "%s.block.%d.layer.1.", side, l);
          g_autofree char *ca = g_strconcat (p, "EncDecAttention.", NULL);
          y->cross_attn = bind_attention (b, ca, D, I);
          y->cross_norm = bind (b, p, "layer_norm.weight", D, 0);
          ff_index = 2;
        }
      g_snprintf (p, sizeof p, "%s.block.%d.layer.%d.", side, l, ff_index);
      if (s->mlp == AS_T5_MLP_GATED)
        {
          y->wi = bind (b, p, "DenseReluDense.wi_0.weight", F, D);
          y->wi_1 = bind (b, p, "DenseReluDense.wi_1.weight", F, D);
        }
      else
        y->wi = bind (b, p, "DenseReluDense.wi.weight", F, D);
      y->wo = bind (b, p, "DenseReluDense.wo.weight", D, F);
      y->ff_norm = bind (b, p, "layer_norm.weight", D, 0);
    }
  g_autofree char *norm = g_strdup_printf ("%s.final_layer_norm.weight", side);
  st->final_norm = as_tensor_binder_get (b, norm, D, 0);
}

static void
t5_free_weights (gpointer weights)
{
  AsT5Weights *w = weights;
  if (w == NULL)
    return;
  g_free (w->encoder.layers);
  g_free (w->decoder.layers);
  g_free (w);
}

/* The shared embedding: shared.weight, or a tied copy when a file kept only that. */
static const float *
bind_shared (AsTensorBinder *b, int64_t v, int64_t d)
{
  static const char *const names[]
      = { "shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight" };
  for (gsize i = 1; i < G_N_ELEMENTS (names); i++)
    if (as_tensor_store_find_suffix (b->store, names[0]) == NULL
        && as_tensor_store_find_suffix (b->store, names[i]) != NULL)
      return as_tensor_binder_get (b, names[i], v, d);
  return as_tensor_binder_get (b, names[0], v, d);
}

static gpointer
t5_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params, GError **error)
{
  const AsT5Settings *s = c->settings;
  int64_t D = c->n_embd, V = c->vocab_size;
  AsTensorBinder b = as_tensor_binder_init (store, error);
  AsT5Weights *w = g_new0 (AsT5Weights, 1);
  w->encoder = (AsT5Stack){ .n_layer = c->n_encoder_layer, .n_inner = c->encoder_n_inner };
  w->decoder = (AsT5Stack){ .n_layer = c->n_layer, .n_inner = c->n_inner };
  w->shared = bind_shared (&b, V, D);
  w->lm_head = s->tie ? w->shared : as_tensor_binder_get (&b, "lm_head.weight", V, D);
  bind_stack (&b, &w->encoder, "encoder", c, FALSE);
  bind_stack (&b, &w->decoder, "decoder", c, TRUE);
  if (b.failed)
    {
      t5_free_weights (w);
      return NULL;
    }
  *n_params += b.n_params;
  return w;
}

const AsT5Weights *
as_t5_weights (const AsModel *model)
{
  return as_model_get_weights (model);
}

const AsT5Settings *
as_t5_settings (const AsConfig *config)
{
  return config->settings;
}

static void
add_setting (GPtrArray *settings, const char *name, char *value)
{
  g_ptr_array_add (settings, g_strdup (name));
  g_ptr_array_add (settings, value);
}

static void
t5_describe (const AsConfig *c, GPtrArray *settings)
{
  const AsT5Settings *s = c->settings;
  add_setting (settings, "relative_attention_num_buckets", g_strdup_printf ("%d", s->n_buckets));
  add_setting (settings, "relative_attention_max_distance",
               g_strdup_printf ("%d", s->max_distance));
  add_setting (settings, "d_kv", g_strdup_printf ("%d", s->d_kv));
  add_setting (settings, "feed_forward_proj", g_strdup (s->feed_forward_proj));
  add_setting (settings, "position_bias",
               g_strdup (s->bias_every_layer ? "a table per layer (umT5)"
                                             : "the first layer's table, shared by every layer"));
  add_setting (settings, "norm", g_strdup ("T5LayerNorm (RMS, no mean, no bias)"));
  add_setting (settings, "score_scale", g_strdup ("1 (none)"));
  add_setting (settings, "tie_word_embeddings",
               g_strdup (s->tie ? "true (output rows rescaled by d_model^-0.5)" : "false"));
  add_setting (settings, "decoder_start_token_id",
               g_strdup_printf ("%d", c->decoder_start_token_id));
}

/* Tied copies of the shared embedding; lm_head.weight when tied (a saved copy). */
static const char *const t5_unused_ok[] = { "*embed_tokens.weight", "lm_head.weight", NULL };

const AsFamily as_family_t5 = {
  .name = "t5",
  .model_types = t5_model_types,
  .read_config = t5_read_config,
  .free_settings = g_free,
  .count_weights = t5_count_weights,
  .load_tokenizer = t5_load_tokenizer,
  .tokenizer_optional = TRUE,
  .bind_weights = t5_bind_weights,
  .free_weights = t5_free_weights,
  .unused_ok = t5_unused_ok,
  .layers_key = "num_decoder_layers",
  .encoder_layers_key = "num_layers",
  .describe = t5_describe,
  .stack = &as_t5_decoder_stack,
  .encoder = &as_t5_encoder_stack,
  .step_decoder_new = as_t5_step_decoder_new,
};

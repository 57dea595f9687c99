/* gpt2.c — the `gpt2` family (GPT-2, DistilGPT-2): config.json keys, weight names, tokenizer.
 *
 * Weight names (core/io/README.md, "Weight files"): Keras `…/h_._N/attn/c_attn/weight:0`, or
 * safetensors `h.N.attn.c_attn.weight` (some files prefix `transformer.`); both hold matrices as
 * [in, out]. The forward pass is gpt2-forward.c. */
#include "gpt2-private.h"

#include "as-error.h"
#include "tensor-bind-private.h"

static const char *const gpt2_model_types[] = { "gpt2", NULL };

static gboolean
gpt2_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  c->causal_lm = TRUE;
  if (!as_config_reader_int (r, "n_layer", FALSE, 0, 1, AS_CONFIG_MAX_LAYERS, &c->n_layer, error)
      || !as_config_reader_int (r, "n_head", FALSE, 0, 1, AS_CONFIG_MAX_HEADS, &c->n_head, error)
      || !as_config_reader_int (r, "n_embd", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH, &c->n_embd, error)
      || !as_config_reader_int (r, "vocab_size", FALSE, 0, 1, AS_CONFIG_MAX_VOCAB, &c->vocab_size,
                                error))
    return FALSE;
  const char *pos_key
      = as_config_reader_member (r, "n_positions") != NULL ? "n_positions" : "n_ctx";
  if (as_config_reader_member (r, pos_key) == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: missing key 'n_positions' (or 'n_ctx')",
                   r->path);
      return FALSE;
    }
  if (!as_config_reader_int (r, pos_key, FALSE, 0, 1, AS_CONFIG_MAX_POSITIONS, &c->n_positions,
                             error)
      || !as_config_reader_int (r, "n_inner", TRUE, 0, 1, AS_CONFIG_MAX_WIDTH, &c->n_inner, error)
      || !as_config_reader_eps (r, "layer_norm_epsilon", 1e-5f, &c->layer_norm_eps, error)
      || !as_config_reader_activation (r, "activation_function", AS_ACT_GELU_NEW, &c->activation,
                                       error))
    return FALSE;
  if (c->n_embd % c->n_head != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: n_embd (%d) is not divisible by n_head (%d)", r->path, c->n_embd,
                   c->n_head);
      return FALSE;
    }
  c->head_dim = c->n_embd / c->n_head;
  if (c->n_inner == 0)
    c->n_inner = 4 * c->n_embd;
  return TRUE;
}

/* Weights the configuration implies, in floats (matches HF's num_parameters). */
static guint64
gpt2_count_weights (const AsConfig *c)
{
  guint64 D = (guint64) c->n_embd, F = (guint64) c->n_inner, V = (guint64) c->vocab_size;
  guint64 P = (guint64) c->n_positions;
  guint64 per_layer = 4 * D + D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D;
  return V * D + P * D + (guint64) c->n_layer * per_layer + 2 * D;
}

static AsTokenizer *
gpt2_load_tokenizer (const char *folder, const AsConfig *config, GError **error)
{
  return as_tokenizer_load_folder (folder, error);
}

/* The weight KERAS_NAME / ST_NAME (Keras or safetensors spelling), in block LAYER ("h_._N/",
 * "h.N.") when LAYER >= 0. */
static const float *
bind (AsTensorBinder *b, int layer, const char *keras_name, const char *st_name, int64_t d0,
      int64_t d1)
{
  gboolean keras = as_tensor_binder_is_keras (b);
  const char *name = keras ? keras_name : st_name;
  g_autofree char *suffix = layer < 0 ? g_strdup (name)
                            : keras   ? g_strdup_printf ("h_._%d/%s", layer, name)
                                      : g_strdup_printf ("h.%d.%s", layer, name);
  /* Newer exports name the token embedding like the position one. */
  if (keras && g_str_equal (suffix, "wte/weight:0")
      && as_tensor_store_find_suffix (b->store, suffix) == NULL
      && as_tensor_store_find_suffix (b->store, "wte/embeddings:0") != NULL)
    {
      g_free (suffix);
      suffix = g_strdup ("wte/embeddings:0");
    }
  return as_tensor_binder_get (b, suffix, d0, d1);
}

static void
gpt2_free_weights (gpointer weights)
{
  AsGpt2Weights *w = weights;
  if (w == NULL)
    return;
  g_free (w->layers);
  g_free (w);
}

static gpointer
gpt2_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params, GError **error)
{
  int64_t D = c->n_embd, F = c->n_inner;
  AsTensorBinder b = as_tensor_binder_init (store, error);
  AsGpt2Weights *w = g_new0 (AsGpt2Weights, 1);
  w->layers = g_new0 (AsGpt2Layer, c->n_layer);

  w->wte = bind (&b, -1, "wte/weight:0", "wte.weight", c->vocab_size, D);
  w->wpe = bind (&b, -1, "wpe/embeddings:0", "wpe.weight", c->n_positions, D);
  for (int l = 0; l < c->n_layer; l++)
    {
      AsGpt2Layer *y = &w->layers[l];
      y->ln1_g = bind (&b, l, "ln_1/gamma:0", "ln_1.weight", D, 0);
      y->ln1_b = bind (&b, l, "ln_1/beta:0", "ln_1.bias", D, 0);
      y->attn_w = bind (&b, l, "attn/c_attn/weight:0", "attn.c_attn.weight", D, 3 * D);
      y->attn_b = bind (&b, l, "attn/c_attn/bias:0", "attn.c_attn.bias", 3 * D, 0);
      y->proj_w = bind (&b, l, "attn/c_proj/weight:0", "attn.c_proj.weight", D, D);
      y->proj_b = bind (&b, l, "attn/c_proj/bias:0", "attn.c_proj.bias", D, 0);
      y->ln2_g = bind (&b, l, "ln_2/gamma:0", "ln_2.weight", D, 0);
      y->ln2_b = bind (&b, l, "ln_2/beta:0", "ln_2.bias", D, 0);
      y->fc_w = bind (&b, l, "mlp/c_fc/weight:0", "mlp.c_fc.weight", D, F);
      y->fc_b = bind (&b, l, "mlp/c_fc/bias:0", "mlp.c_fc.bias", F, 0);
      y->fc2_w = bind (&b, l, "mlp/c_proj/weight:0", "mlp.c_proj.weight", F, D);
      y->fc2_b = bind (&b, l, "mlp/c_proj/bias:0", "mlp.c_proj.bias", D, 0);
    }
  w->lnf_g = bind (&b, -1, "ln_f/gamma:0", "ln_f.weight", D, 0);
  w->lnf_b = bind (&b, -1, "ln_f/beta:0", "ln_f.bias", D, 0);
  if (b.failed)
    {
      gpt2_free_weights (w);
      return NULL;
    }
  *n_params += b.n_params;
  return w;
}

const AsGpt2Weights *
as_gpt2_weights (const AsModel *model)
{
  return as_model_get_weights (model);
}

/* The causal-mask buffers GPT2Attention saves beside its weights, and the tied output matrix a
 * GPT2LMHeadModel file may repeat. */
static const char *const gpt2_unused_ok[]
    = { "*.attn.bias", "*.attn.masked_bias", "lm_head.weight", NULL };

const AsFamily as_family_gpt2 = {
  .name = "gpt2",
  .model_types = gpt2_model_types,
  .read_config = gpt2_read_config,
  .count_weights = gpt2_count_weights,
  .load_tokenizer = gpt2_load_tokenizer,
  .bind_weights = gpt2_bind_weights,
  .free_weights = gpt2_free_weights,
  .unused_ok = gpt2_unused_ok,
  .layers_key = "n_layer",
  .stack = &as_gpt2_stack,
};

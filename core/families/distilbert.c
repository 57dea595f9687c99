/* distilbert.c — the `distilbert` family (model_type "distilbert"): config.json keys, weight
 * names, special tokens. The forward pass is encoder-forward.c: BERT's post-LN block without
 * token types, LayerNorm eps fixed at 1e-12 (transformers' modeling_distilbert.py does not read
 * it from the config).
 *
 * config.json (DistilBertConfig): n_layers, n_heads, dim, hidden_dim, vocab_size,
 * max_position_embeddings, activation ("gelu" = exact erf form, or "relu"), pad_token_id.
 * sinusoidal_pos_embds only initialises the position table, which the weight file holds either
 * way.
 *
 * Weight names (core/families/README.md, "Encoders"): Keras
 * `<scope>/distilbert/transformer/layer_._N/ attention/q_lin/kernel:0` [in, out] and the head in
 * the groups vocab_transform, vocab_layer_norm, vocab_projector; safetensors
 * `distilbert.transformer.layer.N.attention.q_lin. weight` [out, in], head vocab_transform.*,
 * vocab_layer_norm.*, vocab_projector.bias. */
#include "encoder-private.h"

#include <string.h>

#include "as-error.h"

static const char *const distilbert_model_types[] = { "distilbert", NULL };

static const char *const distilbert_specials[AS_N_SPECIAL]
    = { "[CLS]", "[SEP]", "[MASK]", "[PAD]" };

static gboolean
distilbert_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  AsEncoderSettings *s = g_new0 (AsEncoderSettings, 1);
  c->settings = s;
  c->causal_lm = FALSE;
  c->type_vocab_size = 0;
  c->layer_norm_eps = 1e-12f;
  memcpy (c->special_tokens, distilbert_specials, sizeof c->special_tokens);
  if (!as_config_reader_int (r, "n_layers", FALSE, 0, 1, AS_CONFIG_MAX_LAYERS, &c->n_layer, error)
      || !as_config_reader_int (r, "n_heads", FALSE, 0, 1, AS_CONFIG_MAX_HEADS, &c->n_head, error)
      || !as_config_reader_int (r, "dim", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH, &c->n_embd, error)
      || !as_config_reader_int (r, "hidden_dim", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH, &c->n_inner,
                                error)
      || !as_config_reader_int (r, "vocab_size", FALSE, 0, 1, AS_CONFIG_MAX_VOCAB, &c->vocab_size,
                                error)
      || !as_config_reader_int (r, "max_position_embeddings", FALSE, 0, 1, AS_CONFIG_MAX_POSITIONS,
                                &s->max_position_embeddings, error)
      || !as_config_reader_int (r, "pad_token_id", TRUE, 0, 0, c->vocab_size - 1, &s->pad_token_id,
                                error)
      || !as_config_reader_activation (r, "activation", AS_ACT_GELU, &c->activation, error))
    return FALSE;
  s->head_activation = c->activation;
  if (c->n_embd % c->n_head != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: dim (%d) is not divisible by n_heads (%d)", r->path, c->n_embd, c->n_head);
      return FALSE;
    }
  c->head_dim = c->n_embd / c->n_head;
  c->n_positions = s->max_position_embeddings;
  return TRUE;
}

/* Weights the configuration implies, in floats (the masked-LM head counted). */
static guint64
distilbert_count_weights (const AsConfig *c)
{
  guint64 D = c->n_embd, F = c->n_inner, V = c->vocab_size, P = c->n_positions;
  guint64 per_layer = 4 * (D * D + D) + 2 * D + D * F + F + F * D + D + 2 * D;
  return (V + P) * D + 2 * D + c->n_layer * per_layer + D * D + D + 2 * D + V;
}

static AsTokenizer *
distilbert_load_tokenizer (const char *folder, const AsConfig *config, GError **error)
{
  return as_tokenizer_load_folder (folder, error);
}

static void
bind_layer (AsEncoderBinder *eb, AsEncoderLayer *y, const AsConfig *c, int l)
{
  int64_t D = c->n_embd, F = c->n_inner;
  g_autofree char *kp = g_strdup_printf ("transformer/layer_._%d/", l);
  g_autofree char *sp = g_strdup_printf ("transformer.layer.%d.", l);
  as_encoder_binder_set_prefix (eb, kp, sp);
  y->q = as_encoder_bind_linear (eb, "attention/q_lin", "attention.q_lin", D, D);
  y->k = as_encoder_bind_linear (eb, "attention/k_lin", "attention.k_lin", D, D);
  y->v = as_encoder_bind_linear (eb, "attention/v_lin", "attention.v_lin", D, D);
  y->o = as_encoder_bind_linear (eb, "attention/out_lin", "attention.out_lin", D, D);
  as_encoder_bind_layernorm (eb, "sa_layer_norm", "sa_layer_norm", D, &y->ln1_g, &y->ln1_b);
  y->ff1 = as_encoder_bind_linear (eb, "ffn/lin1", "ffn.lin1", D, F);
  y->ff2 = as_encoder_bind_linear (eb, "ffn/lin2", "ffn.lin2", F, D);
  as_encoder_bind_layernorm (eb, "output_layer_norm", "output_layer_norm", D, &y->ln2_g, &y->ln2_b);
}

/* The masked-LM head: vocab_transform, vocab_layer_norm, vocab_projector (tied to the word
 * embeddings, its own bias). */
static void
bind_head (AsEncoderBinder *eb, AsEncoderWeights *w, const AsConfig *c)
{
  int64_t D = c->n_embd;
  as_encoder_binder_set_prefix (eb, "", "");
  w->has_mlm = as_encoder_binder_has (eb, "vocab_projector/bias:0", "vocab_projector.bias");
  if (!w->has_mlm)
    return;
  w->mlm_bias
      = as_encoder_bind (eb, "vocab_projector/bias:0", "vocab_projector.bias", c->vocab_size, 0);
  w->mlm_dense = as_encoder_bind_linear (eb, "vocab_transform", "vocab_transform", D, D);
  as_encoder_bind_layernorm (eb, "vocab_layer_norm", "vocab_layer_norm", D, &w->mlm_ln_g,
                             &w->mlm_ln_b);
}

static gpointer
distilbert_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params,
                         GError **error)
{
  int64_t D = c->n_embd;
  AsEncoderBinder eb;
  as_encoder_binder_init (&eb, store, error);
  AsEncoderWeights *w = g_new0 (AsEncoderWeights, 1);
  w->layers = g_new0 (AsEncoderLayer, c->n_layer);

  as_encoder_binder_set_prefix (&eb, "distilbert/embeddings/", "embeddings.");
  w->word = as_encoder_bind (&eb, "word_embeddings/weight:0", "word_embeddings.weight",
                             c->vocab_size, D);
  w->position = as_encoder_bind (&eb, "position_embeddings/embeddings:0",
                                 "position_embeddings.weight", c->n_positions, D);
  as_encoder_bind_layernorm (&eb, "LayerNorm", "LayerNorm", D, &w->emb_ln_g, &w->emb_ln_b);
  for (int l = 0; l < c->n_layer; l++)
    bind_layer (&eb, &w->layers[l], c, l);
  bind_head (&eb, w, c);
  as_encoder_binder_clear (&eb);
  if (eb.binder.failed)
    {
      as_encoder_free_weights (w);
      return NULL;
    }
  *n_params += eb.binder.n_params;
  return w;
}

/* The position-id buffer, and vocab_projector's matrix, a tied copy of the word embeddings. */
static const char *const distilbert_unused_ok[]
    = { "*embeddings.position_ids", "*vocab_projector.weight", NULL };

const AsFamily as_family_distilbert = {
  .name = "distilbert",
  .model_types = distilbert_model_types,
  .read_config = distilbert_read_config,
  .free_settings = as_encoder_free_settings,
  .count_weights = distilbert_count_weights,
  .load_tokenizer = distilbert_load_tokenizer,
  .bind_weights = distilbert_bind_weights,
  .free_weights = as_encoder_free_weights,
  .unused_ok = distilbert_unused_ok,
  .layers_key = "n_layers",
  .has_masked_lm_head = as_encoder_has_masked_lm_head,
  .stack = &as_encoder_stack,
};

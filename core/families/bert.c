/* bert.c — the `bert` family: BERT (model_type "bert") and RoBERTa ("roberta"), config.json keys,
 * weight names and special tokens. The forward pass is encoder-forward.c.
 *
 * config.json (transformers' BertConfig, RobertaConfig): num_hidden_layers, num_attention_heads,
 * hidden_size, intermediate_size, vocab_size, max_position_embeddings, type_vocab_size (2; RoBERTa
 * 1), layer_norm_eps (1e-12; RoBERTa 1e-5), hidden_act ("gelu" = exact erf form), pad_token_id
 * (RoBERTa's padding_idx, 1). Only position_embedding_type "absolute" exists here, and a BERT
 * configured as a decoder (is_decoder, add_cross_attention) is refused.
 *
 * Weight names (core/families/README.md, "Encoders"): Keras
 * `<scope>/bert/encoder/layer_._N/attention/ self/query/kernel:0` [in, out] (transformers 4.3's
 * EinsumDense shapes (D, H, hd), (H, hd, D) bind the same), the masked-LM head in the group
 * mlm___cls (RoBERTa: lm_head); safetensors `bert.encoder.layer.N.attention.self.query.weight`
 * [out, in] (without the base prefix in BertModel files; LayerNorm gamma/beta in old checkpoints),
 * head cls.predictions.* (RoBERTa lm_head.*). The tied decoder copies and pooler are not needed and
 * not read. */
#include "encoder-private.h"

#include <string.h>

#include "as-error.h"

static const char *const bert_model_types[] = { "bert", "roberta", NULL };

static const char *const bert_specials[AS_N_SPECIAL] = { "[CLS]", "[SEP]", "[MASK]", "[PAD]" };
static const char *const roberta_specials[AS_N_SPECIAL] = { "<s>", "</s>", "<mask>", "<pad>" };

/* Fails when config.json asks for a variant this family does not implement. */
static gboolean
bert_check_variant (const AsConfigReader *r, GError **error)
{
  const char *position_type = NULL;
  gboolean is_decoder = FALSE, cross = FALSE;
  if (!as_config_reader_string (r, "position_embedding_type", &position_type, error)
      || !as_config_reader_bool (r, "is_decoder", FALSE, &is_decoder, error)
      || !as_config_reader_bool (r, "add_cross_attention", FALSE, &cross, error))
    return FALSE;
  if (position_type != NULL && !g_str_equal (position_type, "absolute"))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: position_embedding_type \"%s\" is not supported (only \"absolute\")",
                   r->path, position_type);
      return FALSE;
    }
  if (is_decoder || cross)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: %s is true: a BERT used as a decoder is not supported (only the "
                   "bidirectional encoder)",
                   r->path, is_decoder ? "is_decoder" : "add_cross_attention");
      return FALSE;
    }
  return TRUE;
}

static gboolean
bert_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  AsEncoderSettings *s = g_new0 (AsEncoderSettings, 1);
  c->settings = s;
  gboolean roberta = g_str_equal (json_object_get_string_member (r->obj, "model_type"), "roberta");
  s->roberta_positions = roberta;
  c->causal_lm = FALSE;
  memcpy (c->special_tokens, roberta ? roberta_specials : bert_specials, sizeof c->special_tokens);
  int pad_default = roberta ? 1 : 0;
  if (!bert_check_variant (r, error)
      || !as_config_reader_int (r, "num_hidden_layers", FALSE, 0, 1, AS_CONFIG_MAX_LAYERS,
                                &c->n_layer, error)
      || !as_config_reader_int (r, "num_attention_heads", FALSE, 0, 1, AS_CONFIG_MAX_HEADS,
                                &c->n_head, error)
      || !as_config_reader_int (r, "hidden_size", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH, &c->n_embd,
                                error)
      || !as_config_reader_int (r, "intermediate_size", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH,
                                &c->n_inner, error)
      || !as_config_reader_int (r, "vocab_size", FALSE, 0, 1, AS_CONFIG_MAX_VOCAB, &c->vocab_size,
                                error)
      || !as_config_reader_int (r, "max_position_embeddings", FALSE, 0, 1, AS_CONFIG_MAX_POSITIONS,
                                &s->max_position_embeddings, error)
      || !as_config_reader_int (r, "type_vocab_size", TRUE, roberta ? 1 : 2, 1, 1024,
                                &c->type_vocab_size, error)
      || !as_config_reader_int (r, "pad_token_id", TRUE, pad_default, 0, c->vocab_size - 1,
                                &s->pad_token_id, error)
      || !as_config_reader_eps (r, "layer_norm_eps", roberta ? 1e-5f : 1e-12f, &c->layer_norm_eps,
                                error)
      || !as_config_reader_activation (r, "hidden_act", AS_ACT_GELU, &c->activation, error))
    return FALSE;
  /* RobertaLMHead applies gelu whatever hidden_act says */
  s->head_activation = roberta ? AS_ACT_GELU : c->activation;
  if (c->n_embd % c->n_head != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: hidden_size (%d) is not divisible by num_attention_heads (%d)", r->path,
                   c->n_embd, c->n_head);
      return FALSE;
    }
  c->head_dim = c->n_embd / c->n_head;
  /* RoBERTa's positions start at padding_idx + 1: that many rows of the table are never used */
  int unused = roberta ? s->pad_token_id + 1 : 0;
  c->n_positions = s->max_position_embeddings - unused;
  if (c->n_positions < 1)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: max_position_embeddings (%d) leaves no position after pad_token_id (%d) + "
                   "1, where RoBERTa's positions start",
                   r->path, s->max_position_embeddings, s->pad_token_id);
      return FALSE;
    }
  return TRUE;
}

/* Weights the configuration implies, in floats (the masked-LM head counted). */
static guint64
bert_count_weights (const AsConfig *c)
{
  guint64 D = c->n_embd, F = c->n_inner, V = c->vocab_size;
  guint64 P = as_encoder_settings (c)->max_position_embeddings, TV = c->type_vocab_size;
  guint64 per_layer = 4 * (D * D + D) + 2 * D + D * F + F + F * D + D + 2 * D;
  return (V + P + TV) * D + 2 * D + c->n_layer * per_layer + D * D + D + 2 * D + V;
}

static AsTokenizer *
bert_load_tokenizer (const char *folder, const AsConfig *config, GError **error)
{
  return as_tokenizer_load_folder (folder, error);
}

static void
bind_layer (AsEncoderBinder *eb, AsEncoderLayer *y, const AsConfig *c, int l)
{
  int64_t D = c->n_embd, F = c->n_inner;
  g_autofree char *kp = g_strdup_printf ("encoder/layer_._%d/", l);
  g_autofree char *sp = g_strdup_printf ("encoder.layer.%d.", l);
  as_encoder_binder_set_prefix (eb, kp, sp);
  y->q = as_encoder_bind_linear (eb, "attention/self/query", "attention.self.query", D, D);
  y->k = as_encoder_bind_linear (eb, "attention/self/key", "attention.self.key", D, D);
  y->v = as_encoder_bind_linear (eb, "attention/self/value", "attention.self.value", D, D);
  y->o = as_encoder_bind_linear (eb, "attention/output/dense", "attention.output.dense", D, D);
  as_encoder_bind_layernorm (eb, "attention/output/LayerNorm", "attention.output.LayerNorm", D,
                             &y->ln1_g, &y->ln1_b);
  y->ff1 = as_encoder_bind_linear (eb, "intermediate/dense", "intermediate.dense", D, F);
  y->ff2 = as_encoder_bind_linear (eb, "output/dense", "output.dense", F, D);
  as_encoder_bind_layernorm (eb, "output/LayerNorm", "output.LayerNorm", D, &y->ln2_g, &y->ln2_b);
}

/* The masked-LM head: BERT's cls.predictions (Keras group mlm___cls), RoBERTa's lm_head. */
static void
bind_head (AsEncoderBinder *eb, AsEncoderWeights *w, const AsConfig *c, gboolean roberta)
{
  int64_t D = c->n_embd;
  if (roberta)
    as_encoder_binder_set_prefix (eb, "lm_head/", "lm_head.");
  else
    as_encoder_binder_set_prefix (eb, "mlm___cls/predictions/", "cls.predictions.");
  w->has_mlm = as_encoder_binder_has (eb, "bias:0", "bias");
  if (!w->has_mlm)
    return;
  w->mlm_bias = as_encoder_bind (eb, "bias:0", "bias", c->vocab_size, 0);
  w->mlm_dense = roberta ? as_encoder_bind_linear (eb, "dense", "dense", D, D)
                         : as_encoder_bind_linear (eb, "transform/dense", "transform.dense", D, D);
  if (roberta)
    as_encoder_bind_layernorm (eb, "layer_norm", "layer_norm", D, &w->mlm_ln_g, &w->mlm_ln_b);
  else
    as_encoder_bind_layernorm (eb, "transform/LayerNorm", "transform.LayerNorm", D, &w->mlm_ln_g,
                               &w->mlm_ln_b);
}

static gpointer
bert_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params, GError **error)
{
  int64_t D = c->n_embd;
  gboolean roberta = as_encoder_settings (c)->roberta_positions;
  AsEncoderBinder eb;
  as_encoder_binder_init (&eb, store, error);
  AsEncoderWeights *w = g_new0 (AsEncoderWeights, 1);
  w->layers = g_new0 (AsEncoderLayer, c->n_layer);

  as_encoder_binder_set_prefix (&eb, "embeddings/", "embeddings.");
  w->word = as_encoder_bind (&eb, "word_embeddings/weight:0", "word_embeddings.weight",
                             c->vocab_size, D);
  w->position
      = as_encoder_bind (&eb, "position_embeddings/embeddings:0", "position_embeddings.weight",
                         as_encoder_settings (c)->max_position_embeddings, D);
  w->token_type = as_encoder_bind (&eb, "token_type_embeddings/embeddings:0",
                                   "token_type_embeddings.weight", c->type_vocab_size, D);
  as_encoder_bind_layernorm (&eb, "LayerNorm", "LayerNorm", D, &w->emb_ln_g, &w->emb_ln_b);
  for (int l = 0; l < c->n_layer; l++)
    bind_layer (&eb, &w->layers[l], c, l);
  bind_head (&eb, w, c, roberta);
  as_encoder_binder_clear (&eb);
  if (eb.binder.failed)
    {
      as_encoder_free_weights (w);
      return NULL;
    }
  *n_params += eb.binder.n_params;
  return w;
}

/* What BERT and RoBERTa checkpoints hold beyond the encoder and its masked-LM head: the
 * position-id buffer, the pooler and the next-sentence head (BertForPreTraining; Keras
 * nsp___cls), and the head's decoder, a tied copy of the word embeddings and of the head's bias. */
static const char *const bert_unused_ok[] = { "*embeddings.position_ids",
                                              "*pooler*",
                                              "*cls.seq_relationship.*",
                                              "*nsp___cls/*",
                                              "*cls.predictions.decoder.*",
                                              "*lm_head.decoder.*",
                                              NULL };

const AsFamily as_family_bert = {
  .name = "bert",
  .model_types = bert_model_types,
  .read_config = bert_read_config,
  .free_settings = as_encoder_free_settings,
  .count_weights = bert_count_weights,
  .load_tokenizer = bert_load_tokenizer,
  .bind_weights = bert_bind_weights,
  .free_weights = as_encoder_free_weights,
  .unused_ok = bert_unused_ok,
  .layers_key = "num_hidden_layers",
  .has_masked_lm_head = as_encoder_has_masked_lm_head,
  .stack = &as_encoder_stack,
};

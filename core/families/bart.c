/* bart.c — the `bart` family: BART (facebook/bart-*, DistilBART: the same model with fewer
 * decoder layers) and mBART (facebook/mbart-*), Hugging Face's BartForConditionalGeneration and
 * MBartForConditionalGeneration (modeling_bart.py, modeling_mbart.py). Both are Marian's
 * encoder–decoder with other settings, so the family reads their config.json into
 * AsMarianSettings and runs Marian's stacks and step decoder (marian-private.h):
 *
 *   learned positions with an offset of 2 (BartLearnedPositionalEmbedding: row pos + 2),
 *   layernorm_embedding after the embeddings of each stack,
 *   embeddings × √d_model when scale_embedding (BART false, mBART true),
 *   bart: post-norm as Marian; mbart: pre-norm and a final layer_norm after each stack,
 *   logits = hidden·Eᵀ + final_logits_bias, E the shared, tied embedding.
 *
 * Weight names (safetensors, nn.Linear [out, in]): model.shared.weight (or its tied copies),
 * model.{encoder,decoder}.embed_positions.weight [P + 2][D], ….layernorm_embedding.{weight,bias},
 * ….layers.N.… as Marian's, mBART's ….layer_norm.{weight,bias}, final_logits_bias [1][V]
 * (zeros when absent). Facts and sources: core/families/README.md ("BART and mBART"). */
#include "marian-private.h"

static const char *const bart_model_types[] = { "bart", "mbart", NULL };

static gboolean
bart_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  AsMarianSettings *s = g_new0 (AsMarianSettings, 1);
  c->settings = s;
  c->encoder_decoder = TRUE;
  c->causal_lm = FALSE;
  const char *type = NULL;
  if (!as_config_reader_string (r, "model_type", &type, error)
      || !as_marian_read_common (c, s, r, error))
    return FALSE;
  s->position_offset = 2;
  s->learned_positions = TRUE;
  s->embedding_norm = TRUE;
  s->norm_place = g_strcmp0 (type, "mbart") == 0 ? AS_MARIAN_PRE_NORM : AS_MARIAN_POST_NORM;
  c->special_tokens[AS_SPECIAL_CLS] = "<s>";
  c->special_tokens[AS_SPECIAL_SEP] = "</s>";
  c->special_tokens[AS_SPECIAL_PAD] = "<pad>";
  c->special_tokens[AS_SPECIAL_MASK] = "<mask>";
  return TRUE;
}

/* Weights the configuration implies, in floats: HF's num_parameters (the shared embedding once,
 * both position tables with their offset rows, the embedding norms, mBART's final norms, every
 * layer; final_logits_bias is a buffer, not a parameter). */
static guint64
bart_count_weights (const AsConfig *c)
{
  const AsMarianSettings *s = c->settings;
  guint64 D = c->n_embd, V = c->vocab_size, P = c->n_positions + s->position_offset;
  guint64 attention = 4 * (D * D + D);
  guint64 fe = c->encoder_n_inner, fd = c->n_inner;
  guint64 encoder = attention + 2 * D + D * fe + fe + fe * D + D + 2 * D;
  guint64 decoder = 2 * attention + 4 * D + D * fd + fd + fd * D + D + 2 * D;
  guint64 norms = 2 * 2 * D * (s->norm_place == AS_MARIAN_PRE_NORM ? 2 : 1);
  return V * D + 2 * P * D + norms + c->n_encoder_layer * encoder + c->n_layer * decoder;
}

/* tokenizer.json (BART's byte-level BPE with its <s> … </s> template; mBART's SentencePiece
 * converted by transformers), or vocab.json + merges.txt. */
static AsTokenizer *
bart_load_tokenizer (const char *folder, const AsConfig *config, GError **error)
{
  return as_tokenizer_load_folder (folder, error);
}

static void
add_setting (GPtrArray *settings, const char *key, char *value)
{
  g_ptr_array_add (settings, g_strdup (key));
  g_ptr_array_add (settings, value);
}

static const char *
activation_name (AsActivation act)
{
  switch (act)
    {
    case AS_ACT_GELU:
      return "gelu (erf)";
    case AS_ACT_GELU_NEW:
      return "gelu_new (tanh)";
    case AS_ACT_RELU:
      return "relu";
    case AS_ACT_SILU:
      return "silu";
    default:
      return "other";
    }
}

static void
bart_describe (const AsConfig *c, GPtrArray *settings)
{
  const AsMarianSettings *s = c->settings;
  gboolean pre = s->norm_place == AS_MARIAN_PRE_NORM;
  add_setting (settings, "norm",
               g_strdup (pre ? "pre-norm LayerNorm, a final layer_norm after each stack"
                             : "post-norm LayerNorm (after each residual sum)"));
  add_setting (settings, "layernorm_embedding", g_strdup ("true"));
  add_setting (settings, "positions",
               g_strdup_printf ("learned, offset %d (table of %d rows)", s->position_offset,
                                c->n_positions + s->position_offset));
  add_setting (settings, "scale_embedding",
               s->embed_scale != 1.0f ? g_strdup_printf ("true (×%g)", s->embed_scale)
                                      : g_strdup ("false"));
  add_setting (settings, "activation_function", g_strdup (activation_name (c->activation)));
  add_setting (settings, "final_logits_bias", g_strdup ("added to the logits"));
  add_setting (settings, "tie_word_embeddings", g_strdup ("true"));
  add_setting (settings, "decoder_start_token_id",
               g_strdup_printf ("%d", c->decoder_start_token_id));
}

/* The tied copies of the shared embedding that safetensors files may hold beside it (the binding
 * takes one of them). */
static const char *const bart_unused_ok[] = { "*embed_tokens.weight", "lm_head.weight", NULL };

const AsFamily as_family_bart = {
  .name = "bart",
  .model_types = bart_model_types,
  .read_config = bart_read_config,
  .free_settings = g_free,
  .count_weights = bart_count_weights,
  .load_tokenizer = bart_load_tokenizer,
  .bind_weights = as_marian_bind_weights,
  .free_weights = as_marian_free_weights,
  .unused_ok = bart_unused_ok,
  .layers_key = "decoder_layers",
  .encoder_layers_key = "encoder_layers",
  .describe = bart_describe,
  .stack = &as_marian_decoder_stack,
  .encoder = &as_marian_encoder_stack,
  .step_decoder_new = as_marian_step_decoder_new,
};

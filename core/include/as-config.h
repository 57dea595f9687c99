/* as-config.h — a model's hyper-parameters, read from a Hugging Face config.json.
 *
 * config.json's model_type names the model family (core/README.md, "Model families"); the family
 * reads the keys its architecture uses into the shared fields below and keeps anything else in
 * its own settings. Values are checked (positive sizes, widths divisible by the head count, ...)
 * and a failure names config.json and the key. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  AS_ACT_GELU_NEW, /* tanh approximation, GPT-2 */
  AS_ACT_GELU,     /* exact erf form */
  AS_ACT_RELU,
  AS_ACT_SILU, /* x·sigmoid(x), the Llama family's SwiGLU gate */
} AsActivation;

typedef struct _AsFamily AsFamily;

/* The special tokens an encoder's input is built from (core/families/README.md, "Encoders").
 * Append-only. */
typedef enum
{
  AS_SPECIAL_CLS,  /* [CLS] (BERT, DistilBERT), <s> (RoBERTa): starts the input */
  AS_SPECIAL_SEP,  /* [SEP], </s>: ends each text of the input */
  AS_SPECIAL_MASK, /* [MASK], <mask>: a position the masked-LM head fills */
  AS_SPECIAL_PAD,  /* [PAD], <pad> */
  AS_N_SPECIAL,
} AsSpecialToken;

typedef struct
{
  const char *family; /* the family module that reads this model, e.g. "gpt2" (static string) */
  char *model_type;   /* as written in config.json, e.g. "gpt2" */
  int n_layer;        /* L */
  int n_head;         /* H query heads */
  int n_kv_head;      /* K key/value heads: H, or fewer with grouped-query attention (query head
                       * h uses key/value head h / (H / K)) */
  int n_embd;         /* D */
  int head_dim;       /* hd = D / H unless the model says otherwise */
  int n_inner;        /* F, MLP width (4·D when config says null) */
  int n_positions;    /* context length */
  int vocab_size;     /* V */
  float layer_norm_eps;
  AsActivation activation;
  int bos_token_id;    /* -1 when absent */
  int eos_token_id;    /* -1 when absent */
  gboolean causal_lm;  /* the model predicts the next token (predict, perplexity) */
  gboolean masked_lm;  /* the weights hold a masked-LM head: logits for every position, predict
                        * fills [MASK] positions; FALSE for an encoder loaded for attention only */
  int type_vocab_size; /* token types (segments) the embeddings know: 0 when the model has none
                        * (GPT-2, DistilBERT), 2 for BERT, 1 for RoBERTa */
  const char
      *special_tokens[AS_N_SPECIAL]; /* the vocabulary strings of the family's special
                                      * tokens ("[CLS]", ...), NULL when it has none; the
                                      * model resolves them to ids (as_model_get_special_id) */

  /* Encoder–decoder (translation) models: the fields above describe the decoder, whose trace is
   * the main one (as-trace.h); these describe the encoder. n_encoder_layer is 0 for every other
   * model. */
  gboolean encoder_decoder;
  int n_encoder_layer;        /* Le */
  int n_encoder_head;         /* He */
  int encoder_n_inner;        /* Fe */
  int decoder_start_token_id; /* the decoder's first input token; -1 when absent */

  /*< private >*/
  const AsFamily *ops;  /* the family's functions */
  guint64 weight_bytes; /* the weights the sizes imply, at the checkpoint's declared dtype */
  gpointer settings;    /* the family's own settings, freed by as_config_clear() */
} AsConfig;

/* Reads and validates PATH (a config.json). On failure returns FALSE, sets ERROR and leaves
 * CONFIG cleared. */
gboolean as_config_load (AsConfig *config, const char *path, GError **error);

/* Fails with AS_ERROR_CONFIG, naming PATH (the config.json), the sizes and both numbers, when the
 * weights CONFIG implies exceed the memory budget: checked before a model's weight file is read
 * (a tokenizer alone needs no such check). */
gboolean as_config_check_memory (const AsConfig *config, const char *path, GError **error);

/* Frees what as_config_load allocated inside CONFIG (not CONFIG itself). */
void as_config_clear (AsConfig *config);

/* The family's own settings (RoPE, sliding window, ...) as a NULL-terminated list of name and
 * value strings: { "rope_theta", "500000", "rope_scaling", "llama3 ...", ..., NULL } (owned;
 * empty for families without settings of their own). */
char **as_config_dup_settings (const AsConfig *config);

G_END_DECLS

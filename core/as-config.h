/* as-config.h — a model's hyper-parameters, read from a Hugging Face config.json.
 *
 * The loader fills every field from the keys FORMATS.md names for each architecture, checks that
 * the values make sense (positive sizes, n_embd divisible by n_head, ...) and fails with a message
 * that names config.json and the key otherwise. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  AS_ARCH_GPT2,          /* GPT-2, DistilGPT-2: causal, pre-LN */
  AS_ARCH_TOY_ATTENTION, /* one attention layer, word-level vocabulary (the seeds' examples) */
} AsArch;

typedef enum
{
  AS_ACT_GELU_NEW, /* tanh approximation, GPT-2 */
  AS_ACT_GELU,     /* exact erf form */
  AS_ACT_RELU,
} AsActivation;

typedef struct
{
  AsArch arch;
  char *model_type; /* as written in config.json, e.g. "gpt2" */
  int n_layer;      /* L */
  int n_head;       /* H */
  int n_embd;       /* D */
  int head_dim;     /* hd = D / H (toy models may set it separately) */
  int n_inner;      /* F, MLP width (4·D when config says null) */
  int n_positions;  /* context length */
  int vocab_size;   /* V */
  float layer_norm_eps;
  AsActivation activation;
  int bos_token_id; /* -1 when absent */
  int eos_token_id; /* -1 when absent */

  /* toy-attention only (see toy-attention.h) */
  gboolean toy_use_projections; /* W_Q, W_K, W_V (and W_O when toy_use_output) present */
  gboolean toy_use_output;
  gboolean toy_scale_scores; /* divide scores by sqrt(head_dim) */
  gboolean toy_sinusoidal;   /* add sinusoidal positions to the embeddings */
  gboolean toy_causal;
} AsConfig;

/* Reads and validates PATH (a config.json). On failure returns FALSE, sets ERROR and leaves
 * CONFIG cleared. */
gboolean as_config_load (AsConfig *config, const char *path, GError **error);

/* Frees what as_config_load allocated inside CONFIG (not CONFIG itself). */
void as_config_clear (AsConfig *config);

const char *as_arch_to_string (AsArch arch);

G_END_DECLS

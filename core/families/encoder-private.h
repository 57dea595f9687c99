/* encoder-private.h — what the encoder families share: BERT and RoBERTa (`bert`, bert.c) and
 * DistilBERT (`distilbert`, distilbert.c) have the same post-LN block, so they bind their weights
 * into one struct and run one forward pass (encoder-forward.c). The maths, the config keys and the
 * weight names of both layouts are in core/families/README.md ("Encoders").
 *
 * A weight matrix keeps the layout of its file: Keras kernels are [in][out] (x · W), PyTorch's
 * nn.Linear weights in model.safetensors are [out][in] (x · Wᵀ); the forward pass multiplies
 * either way, so nothing is copied or transposed at load. */
#pragma once

#include "family-private.h"
#include "tensor-bind-private.h"

G_BEGIN_DECLS

/* A dense layer y = x · W + b from IN to OUT features. */
typedef struct
{
  const float *w;  /* [in][out], or [out][in] when out_in */
  const float *b;  /* [out] */
  gboolean out_in; /* PyTorch's nn.Linear layout (model.safetensors) */
} AsEncoderLinear;

typedef struct
{
  AsEncoderLinear q, k, v;    /* D → D, head h owns columns h·hd .. h·hd+hd-1 */
  AsEncoderLinear o;          /* D → D, the attention output dense */
  const float *ln1_g, *ln1_b; /* [D] after the attention (BERT attention.output.LayerNorm) */
  AsEncoderLinear ff1;        /* D → F */
  AsEncoderLinear ff2;        /* F → D */
  const float *ln2_g, *ln2_b; /* [D] after the feed-forward block */
} AsEncoderLayer;

typedef struct
{
  const float *word;                /* [V][D], also the masked-LM head's (tied) output matrix */
  const float *position;            /* [P][D], P = max_position_embeddings */
  const float *token_type;          /* [type_vocab_size][D], NULL for DistilBERT */
  const float *emb_ln_g, *emb_ln_b; /* [D] */
  AsEncoderLayer *layers;           /* [L] */

  gboolean has_mlm;                 /* the masked-LM head is present */
  AsEncoderLinear mlm_dense;        /* D → D */
  const float *mlm_ln_g, *mlm_ln_b; /* [D] */
  const float *mlm_bias;            /* [V] */
} AsEncoderWeights;

/* The encoder families' own settings (AsConfig.settings). */
typedef struct
{
  gboolean roberta_positions;   /* position ids as RoBERTa's create_position_ids_from_input_ids */
  int pad_token_id;             /* RoBERTa's padding_idx */
  int max_position_embeddings;  /* P, rows of the position table */
  AsActivation head_activation; /* of the masked-LM head's dense layer: the config's activation
                                 * (BERT, DistilBERT), exact GELU always (RoBERTa's lm_head) */
} AsEncoderSettings;

static inline const AsEncoderSettings *
as_encoder_settings (const AsConfig *config)
{
  return config->settings;
}

/* Binds a weight by its name in either layout: the Keras name after the class scope, matched as
 * a suffix ("encoder/layer_._0/attention/self/query/kernel:0"), or the safetensors name without
 * the base-model prefix ("encoder.layer.0.attention.self.query.weight", which also matches
 * "bert.encoder.layer.0.…"). Every name is the current prefix (as_encoder_binder_set_prefix)
 * followed by the name given. */
typedef struct
{
  AsTensorBinder binder;
  gboolean keras;
  char *keras_prefix; /* e.g. "encoder/layer_._0/" */
  char *st_prefix;    /* e.g. "encoder.layer.0." */
} AsEncoderBinder;

void as_encoder_binder_init (AsEncoderBinder *eb, const AsTensorStore *store, GError **error);
void as_encoder_binder_clear (AsEncoderBinder *eb);
void as_encoder_binder_set_prefix (AsEncoderBinder *eb, const char *keras, const char *st);

/* Dense layer KERAS ("…/kernel:0" [in][out], "…/bias:0") or SAFETENSORS ("….weight" [out][in],
 * "….bias"). */
AsEncoderLinear as_encoder_bind_linear (AsEncoderBinder *eb, const char *keras,
                                        const char *safetensors, int64_t in, int64_t out);

/* LayerNorm KERAS ("…/gamma:0", "…/beta:0") or SAFETENSORS ("….weight", "….bias", or the legacy
 * "….gamma", "….beta"), each [D]. */
void as_encoder_bind_layernorm (AsEncoderBinder *eb, const char *keras, const char *safetensors,
                                int64_t d, const float **gamma, const float **beta);

/* The tensor KERAS (the whole name after the prefix) or SAFETENSORS of shape (D0) or (D0, D1). */
const float *as_encoder_bind (AsEncoderBinder *eb, const char *keras, const char *safetensors,
                              int64_t d0, int64_t d1);

/* Whether the store holds the weight KERAS / SAFETENSORS (after the prefix). */
gboolean as_encoder_binder_has (const AsEncoderBinder *eb, const char *keras,
                                const char *safetensors);

/* The shared AsFamily members of the encoders. */
void as_encoder_free_weights (gpointer weights);
gboolean as_encoder_has_masked_lm_head (gconstpointer weights);
void as_encoder_free_settings (gpointer settings);

/* The forward pass of both families (AsFamily.stack, encoder-forward.c). */
extern const AsStack as_encoder_stack;

G_END_DECLS

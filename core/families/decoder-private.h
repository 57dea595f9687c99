/* decoder-private.h — the rotary decoders: the Llama family (llama, mistral, qwen2, qwen3), Phi-3,
 * Gemma 2/3 and GPT-NeoX.
 *
 * Four families read these models — `llama` (llama.c: Llama 2/3, Mistral, Qwen2/2.5, Qwen3,
 * SmolLM2, TinyLlama), `phi3` (phi3.c: Phi-3, Phi-3.5, Phi-4-mini), `gemma` (gemma.c: gemma2,
 * gemma3_text) and `gpt_neox` (gpt-neox.c: Pythia) — and all fill the settings and the weights
 * below, so that one forward pass (decoder-forward.c) computes them all: RoPE on q and k
 * (optionally after a per-head RMSNorm of each, and per layer one of two RoPEs), grouped-query
 * attention with an optional sliding window and soft-cap, RMSNorm (also with 1 + w) or LayerNorm,
 * norms after the attention and the MLP, a gated or a plain MLP, sequential or parallel residuals
 * — each a value of the settings, not a family. The maths, the config keys and the weight names
 * are in core/families/README.md ("Llama family", "Gemma 2 and Gemma 3", "Qwen3", "Phi-3",
 * "GPT-NeoX"). decoder-config.c holds what the config readers share: the RoPE keys, the head
 * counts, the weight count, the settings `info` shows. */
#pragma once

#include "family-private.h"
#include "rope-private.h"
#include "tensor-bind-private.h"

G_BEGIN_DECLS

/* The norms of a block and the final norm. */
typedef enum
{
  AS_DECODER_RMSNORM,          /* weight · x/√(mean(x²) + eps) (Llama family) */
  AS_DECODER_LAYERNORM,        /* LayerNorm with weight and bias (NeoX) */
  AS_DECODER_RMSNORM_PLUS_ONE, /* (1 + weight) · x/√(mean(x²) + eps) (Gemma): the binding keeps
                                * 1 + w, so the pass computes it as RMSNorm */
} AsDecoderNorm;

/* How q, k and v are stored. */
typedef enum
{
  AS_DECODER_QKV_SEPARATE, /* q_proj, k_proj, v_proj */
  AS_DECODER_QKV_PER_HEAD, /* one fused [3D][D] matrix whose rows are q | k | v per head (NeoX) */
} AsDecoderQkv;

typedef enum
{
  AS_DECODER_MLP_GATED, /* down(act(gate(a)) · up(a)) (SwiGLU with silu) */
  AS_DECODER_MLP_PLAIN, /* down(act(up(a))) */
} AsDecoderMlp;

typedef enum
{
  AS_DECODER_SEQUENTIAL, /* h += attn(norm1(h)); h += mlp(norm2(h)) */
  AS_DECODER_PARALLEL,   /* h += mlp(norm2(h)) + attn(norm1(h)) (NeoX's use_parallel_residual) */
} AsDecoderResidual;

/* A normalisation of each head's query and key before RoPE. */
typedef enum
{
  AS_DECODER_QK_NORM_NONE,
  AS_DECODER_QK_NORM_RMS, /* RMSNorm over head_dim with the block's eps, one weight [hd] for
                           * q and one for k shared by the heads (Qwen3's q_norm, k_norm) */
} AsDecoderQkNorm;

/* Which projections have biases (flags). */
typedef enum
{
  AS_DECODER_BIAS_QKV = 1 << 0,
  AS_DECODER_BIAS_O = 1 << 1,
  AS_DECODER_BIAS_MLP = 1 << 2,
} AsDecoderBias;

/* What a rotary decoder is, as data: the config readers of the families fill it, the one forward
 * pass (decoder-forward.c) reads it. A new variant is a new value here or a new field with a
 * neutral default (core/README.md, "Adding a model family"), never a flag named after a
 * family. */
typedef struct
{
  AsDecoderNorm norm;
  AsDecoderQkv qkv;
  AsDecoderMlp mlp;
  AsDecoderResidual residual;
  AsDecoderBias biases;
  AsDecoderQkNorm qk_norm;
  gboolean post_norms; /* a norm on the attention's and the MLP's outputs before each residual
                        * add (Gemma's post_attention_ and post_feedforward_layernorm) */
  gboolean tie;        /* the output matrix is the input embedding (tie_word_embeddings) */
  float attn_scale;    /* the scores' scale: head_dim^-½ (HF's self.scaling) */
  float embed_scale;   /* > 0: the embeddings times it (Gemma: float32 √D); 0: none */
  float attn_softcap;  /* > 0: scores capped to cap·tanh(s/cap) (Gemma 2); 0: none */
  float logit_softcap; /* > 0: logits capped likewise (Gemma 2's final_logit_softcapping) */
  AsRope rope;
  AsRope rope_local; /* the RoPE of the layers local[l] marks (Gemma 3's sliding layers) */
  guint8 *local;     /* [L] 1: the layer rotates with rope_local; NULL: every layer with rope */
  int *windows; /* [L] per layer: the sliding window W (a query at i sees keys i−W+1..i), or 0
                 * for plain causal attention */
} AsDecoderSettings;

typedef struct
{
  const float *norm1_w, *norm1_b;      /* [D] input_layernorm (bias NULL for RMSNorm) */
  const float *norm2_w, *norm2_b;      /* [D] post_attention_layernorm */
  AsWeight q, k, v;                    /* llama: [H·hd][D], [K·hd][D], [K·hd][D] */
  const float *q_b, *k_b, *v_b;        /* [H·hd], [K·hd], [K·hd] or NULL */
  const float *q_norm_w, *k_norm_w;    /* [hd] each (AS_DECODER_QK_NORM_RMS), else NULL */
  AsWeight qkv;                        /* NeoX: [3D][D], rows per head: q | k | v, hd each */
  const float *qkv_b;                  /* [3D] or NULL */
  AsWeight o;                          /* [D][H·hd] o_proj / dense */
  const float *o_b;                    /* [D] or NULL */
  const float *post_attn_w;            /* [D] a norm of the attention output before the residual
                                        * add (Gemma's post_attention_layernorm), or NULL */
  const float *post_mlp_w;             /* [D] likewise of the MLP output (post_feedforward) */
  AsWeight gate, up, down;             /* [F][D], [F][D], [D][F]; gate unused when not gated */
  const float *gate_b, *up_b, *down_b; /* [F], [F], [D] or NULL */
} AsDecoderLayer;

typedef struct
{
  AsWeight embed;               /* [V][D] embed_tokens / embed_in */
  AsDecoderLayer *layers;       /* [L] */
  const float *norm_w, *norm_b; /* [D] the final norm (bias NULL for RMSNorm) */
  AsWeight lm_head;             /* [V][D] lm_head / embed_out, or the embedding when tied */
  GPtrArray *owned;             /* vectors the binding made (Gemma's 1 + w), freed with these */
} AsDecoderWeights;

/* The settings of a loaded decoder config. */
static inline const AsDecoderSettings *
as_decoder_settings (const AsConfig *config)
{
  return config->settings;
}

/* --- decoder-config.c -------------------------------------------------------------------- */

/* The keys both families name alike: num_hidden_layers, num_attention_heads, hidden_size,
 * intermediate_size, vocab_size, max_position_embeddings (DEFAULT_POSITIONS), the norm's EPS_KEY
 * (DEFAULT_EPS) and hidden_act (DEFAULT_ACT). Sets causal_lm. */
gboolean as_decoder_read_sizes (AsConfig *c, const AsConfigReader *r, int default_positions,
                                const char *eps_key, float default_eps, AsActivation default_act,
                                GError **error);

/* What a family's RoPE keys are called and default to. */
typedef struct
{
  const char *theta_key;             /* rope_theta; NeoX rotary_emb_base */
  double default_theta;              /* when the key is missing; 0: 10000 */
  int rotary_dim;                    /* dims rotated per head */
  int original_max_positions;        /* longrope's original_max_position_embeddings when its
                                      * scaling object does not give it (Phi-3: the config's key) */
  const char *const *longrope_types; /* scaling types read as longrope (NULL: "longrope") */
} AsDecoderRopeKeys;

/* S->windows [L]: WINDOW on the layers config.json's layer_types names "sliding_attention", 0 on
 * its "full_attention" ones; without layer_types, WINDOW where DEFAULT_SLIDES [l] (the model
 * type's own rule). A layer_types that is not one such string per layer is refused. */
gboolean as_decoder_read_layer_windows (AsDecoderSettings *s, const AsConfig *c,
                                        const AsConfigReader *r, int window,
                                        const gboolean *default_slides, GError **error);

/* Reads the RoPE keys into S->rope: rope_parameters (transformers 5) when present, else
 * KEYS->theta_key and rope_scaling (types default, linear, llama3, longrope; anything else is
 * refused naming the type). longrope needs short_factor and long_factor of rotary_dim/2 positive
 * numbers each; its factor defaults to max_position_embeddings / original_max_position_embeddings
 * and its attention_factor to √(1 + ln factor / ln original) (1 when factor ≤ 1), as HF's
 * _compute_longrope_parameters. */
gboolean as_decoder_read_rope (AsDecoderSettings *s, const AsConfig *c, const AsConfigReader *r,
                               const AsDecoderRopeKeys *keys, GError **error);

/* num_key_value_heads: an explicit null means one per query head; a missing key DEFAULT_KV (the
 * model type's configuration class). Checked to divide num_attention_heads. */
gboolean as_decoder_read_kv_heads (AsConfig *c, const AsConfigReader *r, int default_kv,
                                   GError **error);

/* head_dim when given, else DEFAULT_HEAD_DIM when > 0, else hidden_size / num_attention_heads. */
gboolean as_decoder_read_head_dim (AsConfig *c, const AsConfigReader *r, int default_head_dim,
                                   GError **error);

/* Settings for CONFIG's L layers: sliding windows all 0 (plain causal), the scores scaled by
 * head_dim^-½; the rest zero (RMSNorm, separate q/k/v, gated MLP, sequential, no biases). */
void as_decoder_settings_init (AsDecoderSettings *s, const AsConfig *config);
void as_decoder_free_settings (gpointer settings);

/* The weights (floats) of CONFIG, as HF's num_parameters counts them. */
guint64 as_decoder_count_weights (const AsConfig *config);

/* AsFamily.describe: attention (heads, head_dim, scale), RoPE, sliding window, norm, q/k norm,
 * MLP, residual, biases, output matrix. */
void as_decoder_describe (const AsConfig *config, GPtrArray *settings);

/* The tokenizer of FOLDER when it has one the engine reads; AS_ERROR_NOT_FOUND otherwise (the
 * families are tokenizer_optional: such a model runs on token ids). */
AsTokenizer *as_decoder_load_tokenizer (const char *folder, const AsConfig *config, GError **error);

/* The matrix NAME ("layers.N." + NAME when LAYER >= 0) as stored, of shape (D0, D1). Names are
 * matched by suffix, so files saved from the *ForCausalLM class ("model.", "gpt_neox.") and from
 * the bare model both bind. */
AsWeight as_decoder_bind_matrix (AsTensorBinder *b, int layer, const char *name, int64_t d0,
                                 int64_t d1);

/* The float32 vector NAME of LAYER (as above) of length D0, or NULL without binding when
 * !PRESENT. */
const float *as_decoder_bind_vector (AsTensorBinder *b, int layer, const char *name, int64_t d0,
                                     gboolean present);

/* Binds W's output matrix — the embedding when tied, else HEAD_NAME [V][D] — and ends the binding:
 * returns W, or frees it and returns NULL when any weight failed. Adds the bound count to
 * *N_PARAMS. */
gpointer as_decoder_bind_finish (AsTensorBinder *b, AsDecoderWeights *w, const AsDecoderSettings *s,
                                 const char *head_name, const AsConfig *c, int64_t *n_params);

void as_decoder_free_weights (gpointer weights);

/* --- decoder-forward.c ------------------------------------------------------------------- */

/* The forward pass of both families (AsFamily.stack). */
extern const AsStack as_decoder_stack;

G_END_DECLS

/* decoder-private.h — the rotary decoders: the Llama family (llama, mistral, qwen2) and GPT-NeoX.
 *
 * Two families read these models — `llama` (llama.c: Llama 2/3, Mistral, Qwen2/2.5, SmolLM2,
 * TinyLlama) and `gpt_neox` (gpt-neox.c: Pythia) — and both fill the settings and the weights
 * below, so that one forward pass (decoder-forward.c) computes them all: RoPE on q and k,
 * grouped-query attention with an optional sliding window, RMSNorm or LayerNorm, a SwiGLU or a
 * plain MLP, sequential or parallel residuals. The maths, the config keys and the weight names
 * are in core/README.md ("Llama family", "GPT-NeoX"). decoder-config.c holds what both config
 * readers share: the RoPE keys, the weight count, the settings `info` shows. */
#pragma once

#include "family-private.h"
#include "rope-private.h"
#include "tensor-bind-private.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean neox;              /* GPT-NeoX: fused per-head query_key_value, LayerNorm with bias,
                               * plain MLP with biases */
  gboolean parallel_residual; /* NeoX: h = h + attn(ln1(h)) + mlp(ln2(h)) */
  gboolean qkv_bias;          /* q, k, v projections have biases */
  gboolean o_bias;            /* the output projection has a bias */
  gboolean mlp_bias;          /* the MLP's projections have biases */
  gboolean tie;               /* the output matrix is the input embedding */
  gboolean gated;             /* SwiGLU-style MLP: down(act(gate(x)) · up(x)) */
  AsRope rope;
  int *windows; /* [L] per layer: the sliding window W (a query at i sees keys i−W+1..i), or 0
                 * for plain causal attention */
} AsDecoderSettings;

typedef struct
{
  const float *norm1_w, *norm1_b;      /* [D] input_layernorm (bias NULL for RMSNorm) */
  const float *norm2_w, *norm2_b;      /* [D] post_attention_layernorm */
  AsWeight q, k, v;                    /* llama: [H·hd][D], [K·hd][D], [K·hd][D] */
  const float *q_b, *k_b, *v_b;        /* [H·hd], [K·hd], [K·hd] or NULL */
  AsWeight qkv;                        /* NeoX: [3D][D], rows per head: q | k | v, hd each */
  const float *qkv_b;                  /* [3D] or NULL */
  AsWeight o;                          /* [D][H·hd] o_proj / dense */
  const float *o_b;                    /* [D] or NULL */
  AsWeight gate, up, down;             /* [F][D], [F][D], [D][F]; gate unused when not gated */
  const float *gate_b, *up_b, *down_b; /* [F], [F], [D] or NULL */
} AsDecoderLayer;

typedef struct
{
  AsWeight embed;               /* [V][D] embed_tokens / embed_in */
  AsDecoderLayer *layers;       /* [L] */
  const float *norm_w, *norm_b; /* [D] the final norm (bias NULL for RMSNorm) */
  AsWeight lm_head;             /* [V][D] lm_head / embed_out, or the embedding when tied */
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

/* Reads the RoPE keys into S->rope with rotary_dim = ROTARY_DIM: rope_parameters (transformers
 * 5) when present, else THETA_KEY (rope_theta; NeoX rotary_emb_base, default 10000) and
 * rope_scaling (types default, linear, llama3; anything else is refused naming the type). */
gboolean as_decoder_read_rope (AsDecoderSettings *s, const AsConfigReader *r, const char *theta_key,
                               int rotary_dim, GError **error);

/* The settings' sliding windows, all 0 (plain causal), for L layers. */
void as_decoder_settings_init (AsDecoderSettings *s, int n_layer);
void as_decoder_free_settings (gpointer settings);

/* The weights (floats) of CONFIG, as HF's num_parameters counts them. */
guint64 as_decoder_count_weights (const AsConfig *config);

/* AsFamily.describe: RoPE, sliding window, norm, MLP, residual, biases, output matrix. */
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

AsTrace *as_decoder_forward (const AsModel *model, const int32_t *ids, int n_ids,
                             const AsForwardOptions *options, GError **error);
guint64 as_decoder_scratch_bytes (const AsConfig *config, int n_tokens);

G_END_DECLS

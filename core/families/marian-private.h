/* marian-private.h — the `marian` family (Helsinki-NLP/opus-mt-*, Hugging Face's MarianMTModel):
 * an encoder–decoder translation model, its weights, settings and the building blocks its two
 * passes share.
 *
 * config.json keys, weight names and the maths are in core/families/README.md ("Marian"). marian.c
 * reads the config and binds the weights, marian-blocks.c holds the blocks (embedding, projections,
 * attention, post-LN residuals, MLP), marian-forward.c the full pass with capture (its two
 * stacks, AsFamily.encoder and AsFamily.stack) and marian-step.c the one-token-at-a-time decoder of
 * generation (AsFamily.step_decoder_new). */
#pragma once

#include "family-private.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

/* LayerNorm epsilon: nn.LayerNorm's default in modeling_marian.py, 1e-5 in the TF model. */
#define AS_MARIAN_LN_EPS 1e-5f

/* A projection y = x·W + b. Keras kernels are [in][out]; PyTorch's nn.Linear weights [out][in]
 * (TRANSPOSED). */
typedef struct
{
  const float *w; /* [in][out], or [out][in] when transposed */
  const float *b; /* [out] */
  gboolean transposed;
} AsMarianLinear;

typedef struct
{
  const float *g, *b; /* [D] */
} AsMarianNorm;

typedef struct
{
  AsMarianLinear q, k, v, out; /* [D][D] each */
} AsMarianAttentionWeights;

typedef struct
{
  AsMarianAttentionWeights self_attn;
  AsMarianNorm self_attn_norm;
  AsMarianAttentionWeights cross_attn; /* decoder layers only */
  AsMarianNorm cross_attn_norm;        /* decoder layers only */
  AsMarianLinear fc1;                  /* [D][F] */
  AsMarianLinear fc2;                  /* [F][D] */
  AsMarianNorm final_norm;
} AsMarianLayer;

typedef struct
{
  int n_layer, n_head, n_inner; /* L, H, F of this stack */
  const float *positions;       /* [P][D] position 0's row first (BART's table past its offset) */
  AsMarianNorm embed_norm;      /* BART's layernorm_embedding; g NULL for none (Marian) */
  AsMarianNorm final_norm;      /* mBART's layer_norm after the last layer; g NULL for none */
  AsMarianLayer *layers;        /* [L] */
} AsMarianStack;

typedef struct
{
  const float *shared;            /* [V][D] embeddings of both stacks and the tied output matrix */
  const float *final_logits_bias; /* [V] */
  AsMarianStack encoder, decoder;
  float *owned; /* what bind computed itself: positions absent from the file, a zero bias */
} AsMarianWeights;

/* Where a layer's LayerNorms sit: after each residual sum (Marian, BART: x = LN(x + f(x))) or
 * before each block (mBART: x = x + f(LN(x))). */
typedef enum
{
  AS_MARIAN_POST_NORM,
  AS_MARIAN_PRE_NORM,
} AsMarianNormPlace;

/* config.json keys of the family's own (AsConfig.settings); the `bart` family (bart.c) fills
 * the same struct and runs the same stacks. */
typedef struct
{
  float embed_scale; /* √D with scale_embedding, else 1 */
  AsMarianNormPlace norm_place;
  int position_offset;        /* rows of the position table before position 0: BART's 2, else 0 */
  gboolean learned_positions; /* the table is a weight (BART); else sinusoids, stored or not */
  gboolean embedding_norm;    /* each stack has layernorm_embedding (BART, mBART) */
  int pad_token_id;           /* -1 when absent */
  int forced_eos_token_id;    /* -1 when absent */
} AsMarianSettings;

const AsMarianWeights *as_marian_weights (const AsModel *model);

/* The weights of a Marian or BART checkpoint as the config's AsMarianSettings imply
 * (AsFamily.bind_weights; marian.c). */
gpointer as_marian_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params,
                                 GError **error);
void as_marian_free_weights (gpointer weights);

/* The config.json keys MarianConfig and BartConfig name alike (marian.c): d_model, vocab_size,
 * max_position_embeddings, each stack's _layers, _attention_heads and _ffn_dim,
 * activation_function (default gelu), scale_embedding (default false: S->embed_scale),
 * decoder_start_token_id, pad_token_id and forced_eos_token_id (-1 when absent, else inside the
 * vocabulary) and tie_word_embeddings (must be true); d_model divisible by both stacks' heads.
 * Fills C's sizes, head_dim and layer_norm_eps. */
gboolean as_marian_read_common (AsConfig *c, AsMarianSettings *s, const AsConfigReader *r,
                                GError **error);
const AsMarianSettings *as_marian_settings (const AsConfig *config);

/* --- blocks (marian-blocks.c) --------------------------------------------------------------- */

/* out [n][D] = shared[ids]·embed_scale + positions[pos0 .. pos0+n-1] (left out without
 * POSITIONS), then the stack's embed_norm when it has one. */
void as_marian_embed (float *out, const AsMarianWeights *w, const AsMarianStack *stack,
                      float embed_scale, const int32_t *ids, int n, int pos0, int d,
                      gboolean positions);

/* The input of a block on x [n][D]: x itself after post-norm, LN(x) into BUF [n][D] before. */
const float *as_marian_block_input (const AsMarianSettings *s, float *buf, const float *x,
                                    const AsMarianNorm *norm, int n, int d);

/* x [n][D] after a block wrote DELTA [n][D]: LN(x + delta) after post-norm, x + delta before. */
void as_marian_block_output (const AsMarianSettings *s, float *x, const float *delta,
                             const AsMarianNorm *norm, int n, int d);

/* OUT [n][D] = the stack's final_norm of x when it has one, else a copy of x (OUT may be X). */
void as_marian_final_norm (float *out, const float *x, const AsMarianStack *stack, int n, int d);

/* out [n][out_dim] = x [n][in] · W + b */
void as_marian_linear (AsWorkerTeam *team, float *out, const float *x, const AsMarianLinear *lin,
                       int n, int in, int out_dim);

/* The MLP block on x [n][D]: post-norm x = LN(x + fc2(act(fc1(x)))), pre-norm
 * x = x + fc2(act(fc1(LN(x)))); ff [n][F] and tmp [n][D] are scratch. */
void as_marian_mlp (AsWorkerTeam *team, float *x, float *ff, float *tmp, const AsMarianLayer *y,
                    const AsMarianSettings *s, AsActivation act, int n, int d, int f);

/* --- passes --------------------------------------------------------------------------------- */

/* The two stacks of the full pass with capture (marian-forward.c): the encoder over the source,
 * the decoder over the decoder input attending to the encoder's last hidden state. */
extern const AsStack as_marian_encoder_stack;
extern const AsStack as_marian_decoder_stack;

/* One position of the decoder pass replayed for direct logit attribution (marian-replay.c,
 * AsStack.replay; model/replay-private.h). */
gboolean as_marian_replay (const AsConfig *config, gconstpointer weights, const AsTrace *trace,
                           int position, AsReplay *out, GError **error);

AsStepDecoder *as_marian_step_decoder_new (const AsModel *model, const int32_t *src, int n_src,
                                           int n_beams, int max_steps, gboolean no_positions,
                                           GError **error);

G_END_DECLS

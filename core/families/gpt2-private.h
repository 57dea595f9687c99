/* gpt2-private.h — the `gpt2` family (GPT-2, DistilGPT-2): its weights and forward pass.
 *
 * config.json keys: n_layer, n_head, n_embd, n_positions (or n_ctx), vocab_size, n_inner (null:
 * 4·n_embd), layer_norm_epsilon, activation_function. The maths is in core/families/README.md
 * ("GPT-2"); gpt2.c reads the config and binds the weights, gpt2-forward.c runs the pass. */
#pragma once

#include "family-private.h"

G_BEGIN_DECLS

/* GPT-2 weights, pointing into the tensor store. Matrices are [in][out], row-major, so a row
 * vector x times W is cblas "x · W" (the Keras and Conv1D layouts are the same). */
typedef struct
{
  const float *ln1_g, *ln1_b; /* [D] */
  const float *attn_w;        /* [D][3D] */
  const float *attn_b;        /* [3D] */
  const float *proj_w;        /* [D][D] */
  const float *proj_b;        /* [D] */
  const float *ln2_g, *ln2_b; /* [D] */
  const float *fc_w;          /* [D][F] */
  const float *fc_b;          /* [F] */
  const float *fc2_w;         /* [F][D] */
  const float *fc2_b;         /* [D] */
} AsGpt2Layer;

typedef struct
{
  const float *wte;           /* [V][D], also the tied output matrix */
  const float *wpe;           /* [P][D] */
  AsGpt2Layer *layers;        /* [L] */
  const float *lnf_g, *lnf_b; /* [D] */
} AsGpt2Weights;

/* The bound weights of a loaded gpt2 MODEL. */
const AsGpt2Weights *as_gpt2_weights (const AsModel *model);

/* The forward pass (AsFamily.stack, gpt2-forward.c). */
extern const AsStack as_gpt2_stack;

G_END_DECLS

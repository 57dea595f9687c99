/* readout-private.h — what a stack's output is made of, as linear pieces: the output projection
 * of every layer's attention, the norms that rescale what the residual stream receives, the
 * final norm and the output matrix. Direct logit attribution (analysis/attribution.c) and the
 * attention norms read these to split a logit into the heads' and MLPs' parts
 * (core/analysis/README.md, "Direct logit attribution"). A stack fills it in its `readout` hook
 * (stack-private.h); the attention norms and the query–key view read the layers' pieces of
 * post-norm stacks too. The pointers borrow the model's weights. Private to the core. */
#pragma once

#include <glib.h>

#include "dtype-private.h"
#include "rope-private.h"

G_BEGIN_DECLS

typedef enum
{
  AS_READOUT_LAYERNORM, /* (x − mean)/√(var + eps) · w + b */
  AS_READOUT_RMSNORM,   /* x/√(mean(x²) + eps) · w (Gemma's 1 + w is w here) */
} AsReadoutNorm;

/* One layer's attention output: out [D] = Σ_h ctx_h [hd] · O_h + o_b. */
typedef struct
{
  AsWeight o;        /* the output projection: [D][H·hd] (x·Oᵀ), or [H·hd][D] when o_in_out */
  gboolean o_in_out; /* GPT-2's Conv1D layout, float32 */
  const float *o_b;  /* [D] or NULL */
  const float *post_w; /* [D] an RMSNorm (same kind and eps as the others) the attention output
                        * passes before the residual (Gemma's post_attention_layernorm), or
                        * NULL */
  int window;          /* a sliding window W (a query at i sees keys i−W+1..i), or 0 */
  const AsRope *rope;  /* the RoPE that rotated the layer's queries and keys (borrowed from the
                        * config), or NULL where the model does not rotate */
} AsReadoutLayer;

typedef struct
{
  gboolean post_norm;     /* the layers renormalise the residual stream after every block (BERT):
                           * the output is not a sum of the blocks' writes, and only the layers'
                           * pieces and the scores' scale below are filled */
  AsReadoutLayer *layers; /* [L], owned (g_free) */
  AsReadoutNorm norm;     /* the final norm's (and the post-attention norms') kind */
  const float *norm_w;    /* [D] */
  const float *norm_b;    /* [D] or NULL */
  float eps;
  AsWeight unembed;    /* [V][D]: logits = hidden[L] · unembedᵀ */
  float logit_softcap; /* > 0: the logits are soft-capped after the product (Gemma 2) */
  float attn_scale;    /* the scores' scale (q·k times it) */
  float attn_softcap;  /* > 0: scores capped to cap·tanh(s/cap) (Gemma 2) */
} AsReadout;

G_END_DECLS

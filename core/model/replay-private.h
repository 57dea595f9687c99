/* replay-private.h — one position of an encoder–decoder's decoder pass replayed from its trace,
 * with what direct logit attribution needs to split the output into parts
 * (analysis/attribution-seq2seq.c): every head's context (self- and cross-attention), each MLP's
 * output, the embeddings, and every LayerNorm on the residual path with the σ it had in the run.
 *
 * Frozen at that σ a LayerNorm is affine, LN(z) = (z − mean z)/σ ⊙ w + b, so the decoder's last
 * hidden state is a sum of parts pushed forward through the later norms. Post-norm stacks (Marian,
 * BART) have three such norms per layer (after the self-attention, the cross-attention and the
 * MLP sums); pre-norm ones (mBART) only the final norm on the residual path. The family fills it
 * (AsStack.replay) and checks that the replay reproduces the run's hidden[L]. Private to the
 * core. */
#pragma once

#include "as-config.h"
#include "as-trace.h"

G_BEGIN_DECLS

/* A norm frozen at the run: w NULL for none. CENTRED: LayerNorm (mean-centring), else RMSNorm. */
typedef struct
{
  const float *w, *b; /* [D]; b NULL for none */
  double sigma; /* √(var + eps) (LayerNorm) or √(mean square + eps) (RMSNorm) in the run */
  gboolean centred;
} AsReplayNorm;

/* An attention block at the position: its heads' contexts and its output projection. */
typedef struct
{
  const float *o; /* [D][H·hd]: PyTorch's [out][in] (O_IN_OUT FALSE) or [H·hd][D] */
  gboolean o_in_out;
  const float *o_b; /* [D] or NULL */
  float *ctx;       /* [H·hd] the heads' contexts side by side */
} AsReplayAttention;

typedef struct
{
  AsReplayAttention self, cross;
  float *mlp;            /* [D] the MLP's output (with its last bias) */
  AsReplayNorm norms[3]; /* post-norm: after the self-attention, cross-attention, MLP sums */
} AsReplayLayer;

typedef struct
{
  int n_layer, n_head, head_dim, d_model;
  gboolean post_norm;
  float *embeddings;       /* [D] token·scale + position: what enters embed_norm */
  AsReplayNorm embed_norm; /* BART's layernorm_embedding; w NULL for none */
  AsReplayLayer *layers;   /* [L] */
  AsReplayNorm final_norm; /* mBART's layer_norm after the last layer; w NULL for none */
  const float *unembed;    /* [V][D] the output matrix */
  float unembed_scale;     /* hidden[L] is multiplied by it before the output matrix (1: none) */
  const float *final_logits_bias; /* [V] or NULL */
  float *owned;
} AsReplay;

/* Fills OUT for POSITION of TRACE (a decoder trace with its source); fails (AS_ERROR_INPUT) when
 * the replay does not reproduce the run. */
typedef gboolean (*AsReplayFunc) (const AsConfig *config, gconstpointer weights,
                                  const AsTrace *trace, int position, AsReplay *out,
                                  GError **error);

/* CTX [H·hd]: each head's cross-attention context at POSITION of decoder layer LAYER of TRACE —
 * the trace's cross-attention weights times V [S][LD], the values of the encoder's output (head h
 * in columns h·hd …). Summed in double. */
void as_replay_cross_contexts (float *ctx, const AsTrace *trace, int layer, int position,
                               const float *v, int ld);

/* A replay that did not reproduce the run: OUT cleared, ERROR set (AS_ERROR_INPUT); FALSE. */
gboolean as_replay_fail (AsReplay *out, GError **error);

static inline void
as_replay_clear (AsReplay *replay)
{
  g_clear_pointer (&replay->owned, g_free);
  g_clear_pointer (&replay->layers, g_free);
}

G_END_DECLS

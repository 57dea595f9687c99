/* toy-attention-private.h — the `toy-attention` family: one attention layer and nothing else,
 * to reproduce the worked examples of the articles attnscope grew from exactly (core/README.md,
 * "Toy attention").
 *
 * config.json (model_type "toy-attention"): n_embd D, n_head H, head_dim hd, vocab_size V,
 * n_positions, use_projections, use_output_projection, scale_scores, sinusoidal_positions,
 * causal. Weights (tf_model.h5, Keras layout, matched by name suffix):
 *   embeddings:0 (V, D); w_q:0, w_k:0, w_v:0 (H, D, hd) when use_projections;
 *   w_o:0 (H·hd, D) when use_output_projection.
 * Shapes must match exactly (no reshaping: a transposed matrix would silently give other
 * numbers). Without projections the H heads split the embedding columns (head h reads columns
 * h·hd .. h·hd+hd-1, so H·hd must equal D; with H = 1 that is Q = K = V = the embeddings);
 * without W_O the layer output is the heads' contexts side by side (again H·hd = D).
 *
 * The forward pass, row vectors throughout:
 *   x = embeddings[ids] (+ PE(t), t = 0..T-1, interleaved sin/cos, positional-private.h)
 *   per head h: q = x·W_Q[h], k = x·W_K[h], v = x·W_V[h]
 *               P = softmax(q·kᵀ · s) with s = 1/√hd when scale_scores else 1, causal mask
 *               when causal (masked weights exactly 0); ctx = P·v
 *   out = concat_h(ctx)·W_O (or concat_h(ctx))
 * There is no residual connection, no normalisation, no feed-forward block and no output
 * vocabulary projection: the trace has n_layer = 1, hidden[0] = x, hidden[1] = out (= attn_out),
 * vocab_size = 0 and logits_rows = 0, so no next-token predictions are offered. */
#pragma once

#include "family-private.h"

G_BEGIN_DECLS

/* The family's own config.json switches (AsConfig.settings). */
typedef struct
{
  gboolean use_projections; /* W_Q, W_K, W_V (and W_O when use_output) present */
  gboolean use_output;
  gboolean scale_scores; /* divide scores by sqrt(head_dim) */
  gboolean sinusoidal;   /* add sinusoidal positions to the embeddings */
  gboolean causal;
} AsToySettings;

static inline const AsToySettings *
as_toy_settings (const AsConfig *config)
{
  return config->settings;
}

/* toy-attention weights, pointing into the tensor store. */
typedef struct
{
  const float *embeddings;      /* [V][D] */
  const float *w_q, *w_k, *w_v; /* [H][D][hd] or NULL (then Q = K = V = embeddings) */
  const float *w_o;             /* [H·hd][D] or NULL */
} AsToyWeights;

/* Checks the toy-specific consistency of CONFIG (the sizes are positive; H·hd = D where the
 * architecture needs it). Errors name config.json's keys and the numbers (callers that know
 * the file prefix its path). */
gboolean as_toy_attention_check_config (const AsConfig *config, GError **error);

/* Points WEIGHTS into STORE as CONFIG says (see above). Fails naming the weight file and the
 * dataset when one is missing or has another shape. */
gboolean as_toy_attention_bind_weights (AsToyWeights *weights, const AsConfig *config,
                                        const AsTensorStore *store, GError **error);

/* The number of weights CONFIG implies: V·D embeddings, + 3·H·D·hd with projections,
 * + H·hd·D with W_O. */
int64_t as_toy_attention_count_params (const AsConfig *config);

/* Runs the toy layer on IDS with CONFIG and WEIGHTS (no AsModel needed, e.g. for weights set up
 * in memory). IDS must be valid, as as_forward() checks them: 1 <= N_IDS <= n_positions, every
 * id in 0..V-1 (programmer error otherwise). TOKENIZER names the tokens in the trace and may be
 * NULL ("<id>" then). Runs the one forward driver (forward/pass.c) on the family's stack. Fails
 * when WEIGHTS do not fit CONFIG, on cancellation, when the trace would not fit in memory and on
 * a value that is not finite. */
AsTrace *as_toy_attention_run (const AsConfig *config, const AsToyWeights *weights,
                               const AsTokenizer *tokenizer, const int32_t *ids, int n_ids,
                               const AsForwardOptions *options, GError **error);

G_END_DECLS

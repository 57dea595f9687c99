/* t5-private.h — the `t5` family (Hugging Face's T5ForConditionalGeneration: T5 v1.0, T5 v1.1 /
 * Flan-T5, mT5): an encoder–decoder whose attention has no position vectors, only a learned
 * bias per relative-distance bucket added to every head's scores.
 *
 * config.json keys, weight names and the maths are in core/families/README.md ("T5"). t5.c reads
 * the config and binds the weights, t5-forward.c holds the blocks and the full pass with capture
 * (its two stacks), t5-step.c the one-token-at-a-time decoder of generation. */
#pragma once

#include "family-private.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

/* The MLP: DenseReluDense's wo(act(wi(x))) or the gated wo(act(wi_0(x)) · wi_1(x)). */
typedef enum
{
  AS_T5_MLP_DENSE,
  AS_T5_MLP_GATED,
} AsT5Mlp;

/* nn.Linear weights [out][in], no biases anywhere. */
typedef struct
{
  const float *q, *k, *v; /* [H·d_kv][D] */
  const float *o;         /* [D][H·d_kv] */
} AsT5AttentionWeights;

typedef struct
{
  AsT5AttentionWeights self_attn;
  const float *self_norm;          /* [D] */
  AsT5AttentionWeights cross_attn; /* decoder layers only */
  const float *cross_norm;         /* [D], decoder layers only */
  const float *wi;                 /* [F][D] wi, or wi_0 when gated */
  const float *wi_1;               /* [F][D] gated only, else NULL */
  const float *wo;                 /* [D][F] */
  const float *ff_norm;            /* [D] */
  const float *rel_bias; /* [buckets][H] the table this layer's self-attention reads: the stack's
                          * first layer's (T5), its own (umT5) */
} AsT5Layer;

typedef struct
{
  int n_layer, n_inner;    /* L, F of this stack */
  const float *rel_bias;   /* [buckets][H] the first layer's relative_attention_bias */
  AsT5Layer *layers;       /* [L] */
  const float *final_norm; /* [D] */
} AsT5Stack;

typedef struct
{
  const float *shared;  /* [V][D] both stacks' embeddings */
  const float *lm_head; /* [V][D] the output matrix: shared when tied */
  AsT5Stack encoder, decoder;
} AsT5Weights;

/* config.json keys of the family's own (AsConfig.settings). */
typedef struct
{
  int n_buckets;             /* relative_attention_num_buckets */
  int max_distance;          /* relative_attention_max_distance */
  int d_kv;                  /* each head's width (H·d_kv need not be D) */
  AsT5Mlp mlp;               /* from feed_forward_proj */
  gboolean tie;              /* tie_word_embeddings: the output is shared, rows rescaled by D^-½ */
  float output_scale;        /* D^-½ when tied, else 1 */
  int pad_token_id;          /* -1 when absent */
  gboolean bias_every_layer; /* umT5: every layer's self-attention has its own bias table */
  const char *feed_forward_proj; /* as written, for info (static) */
} AsT5Settings;

const AsT5Weights *as_t5_weights (const AsModel *model);
const AsT5Settings *as_t5_settings (const AsConfig *config);

/* The bucket of relative distance REL = key − query (HF T5Attention._relative_position_bucket,
 * in float32 as torch computes it): BIDIRECTIONAL splits the buckets between the two
 * directions; otherwise only the past counts (the future falls in bucket 0). */
int as_t5_bucket (int rel, gboolean bidirectional, int n_buckets, int max_distance);

/* out [H][n_q][n_k] = the bias of query positions q0..q0+n_q−1 against keys 0..n_k−1 from
 * TABLE [buckets][H] (relative_attention_bias.weight). */
void as_t5_position_bias (float *out, const float *table, const AsT5Settings *s, int n_head, int q0,
                          int n_q, int n_k, gboolean bidirectional);

/* out [H][2n−1] = the bias of distance d = key − query, d = −(n−1) .. n−1, at [h][d + n − 1],
 * from TABLE [buckets][H]: the compact form of the [H][n][n] bias of n positions (the trace's
 * position_bias_relative). Causal (not BIDIRECTIONAL): the future distances d > 0, which the
 * mask hides, are 0. */
void as_t5_relative_bias (float *out, const float *table, const AsT5Settings *s, int n_head, int n,
                          gboolean bidirectional);

/* out [n][out_dim] = x [n][in] · Wᵀ, W an nn.Linear weight [out_dim][in] (T5 has no biases). */
void as_t5_linear (AsWorkerTeam *team, float *out, const float *x, const float *w, int n, int in,
                   int out_dim);

/* x [n][D] += wo(act(wi(norm(x)))) (or the gated form); NORMED [n][D], FF and GATE [n][F] are
 * scratch. */
void as_t5_mlp (AsWorkerTeam *team, float *x, float *normed, float *ff, float *gate,
                const AsT5Layer *y, const AsConfig *c, int n, int f);

/* The two stacks of the full pass with capture (t5-forward.c). */
extern const AsStack as_t5_encoder_stack;
extern const AsStack as_t5_decoder_stack;

/* One position of the decoder pass replayed for direct logit attribution (t5-replay.c,
 * AsStack.replay; model/replay-private.h). */
gboolean as_t5_replay (const AsConfig *config, gconstpointer weights, const AsTrace *trace,
                       int position, AsReplay *out, GError **error);

/* The decoder's self-attention pieces for the query–key view and the attention norms
 * (t5-readout.c, AsStack.readout). */
void as_t5_decoder_readout (const AsConfig *config, gconstpointer weights, AsReadout *out);

AsStepDecoder *as_t5_step_decoder_new (const AsModel *model, const int32_t *src, int n_src,
                                       int n_beams, int max_steps, gboolean no_positions,
                                       GError **error);

G_END_DECLS

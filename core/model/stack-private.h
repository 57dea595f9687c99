/* stack-private.h — a family's forward pass as the stages the one forward driver runs
 * (forward/pass.c).
 *
 * Every forward pass does the same around its maths: allocate the trace, give it the tokens and
 * the token embeddings, allocate the residual stream and the working memory, run OpenBLAS
 * single-threaded beside one worker team, then per layer check for cancellation, keep the
 * block's input as hidden[l], run the block and check that its output is finite, and at the end
 * check the last hidden state and the logits. The driver does all of that once; a family writes
 * only its maths, as the hooks of one AsStack per stack of layers: a decoder-only or
 * encoder-only model has one (AsFamily.stack), an encoder–decoder two (AsFamily.encoder runs
 * first, AsFamily.stack attends to its output).
 *
 * Families that share a stack differ by data in their settings (norm kind, MLP kind, residual
 * order, windows, RoPE, scales), never by a flag here (core/README.md, "Adding a model family").
 * Private to the core. */
#pragma once

#include <math.h>

#include "as-forward.h"
#include "as-trace.h"
#include "dtype-private.h"
#include "readout-private.h"
#include "replay-private.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

/* What the stages of one pass receive. */
typedef struct
{
  const AsConfig *config;
  gconstpointer weights;           /* the family's weights struct (AsFamily.bind_weights) */
  const AsForwardOptions *options; /* may be NULL */
  AsTrace *trace;                  /* being filled: ids and tokens set, arrays zeroed */
  const AsTrace *source;           /* a decoder stack's encoder trace (the cross-attention reads
                                    * its last hidden state), else NULL */
  AsWorkerTeam *team;              /* the pass's threads (OpenBLAS is single-threaded meanwhile) */
  int n_tokens;                    /* T */
  float *x;                        /* [T][D] the residual stream */
  gpointer scratch;                /* the stack's working memory: scratch_bytes (config, T, S) */
} AsPass;

/* The output head as one product, what head applies to rows taken as through the final norm:
 *   logits = (x · x_scale) · weightᵀ + bias, then tanh(logits / soft_cap) · soft_cap,
 * each step in float32 (as_head_logits). A reader that needs only a summary of every row (the
 * logit lens's top K, read-out-ranked.c) ranks the product's sums in the cache instead. */
typedef struct
{
  AsWeight weight;   /* [V][D] */
  float x_scale;     /* 1, or T5's D^-½ before a tied head */
  const float *bias; /* [V] (Marian's final_logits_bias), or NULL */
  float soft_cap;    /* Gemma 2's final_logit_softcapping, or 0 */
} AsHeadProduct;

/* OUT [N][V] = the logits of X [N][D] through HEAD (a float32 head of more than 32 rows on AMX
 * tiles, its last row apart: as_matmul_logits). */
void as_head_logits (AsWorkerTeam *team, float *out, const float *x, const AsHeadProduct *head,
                     int n, int d, int v);

/* The head's steps after the product on LOGITS [N], the vocabulary's entries from V_BEGIN: the
 * bias added, then the soft-cap. */
void as_head_finish_row (const AsHeadProduct *head, float *logits, int v_begin, int n);

/* The pass's logits rows (the last trace->logits_rows of T) of FINAL [T][D] through the head
 * that HEAD_PRODUCT describes (as_head_logits): every family's logits code. */
void as_pass_head_logits (AsPass *pass, const float *final,
                          void (*head_product) (const AsConfig *config, gconstpointer weights,
                                                AsHeadProduct *head));

/* L, the soft-capped value of logit L (Gemma 2): in float32, through a double tanh. */
static inline float
as_head_soft_cap (float l, float cap)
{
  return (float) tanh ((double) (l / cap)) * cap;
}

/* One stack of layers: its data and the stages of its forward pass. */
typedef struct
{
  /* The stack in messages ("encoder layer 2 produced ..."): "encoder", "decoder", or NULL for a
   * model's only stack ("layer 2 produced ..."). */
  const char *name;

  /* The trace the stack fills. SHAPE arrives as the config's sizes with the options' choices
   * (all logits, q/k/v); the hook changes what differs for this stack — an encoder stack's own
   * layers and heads, no logits without an output head, q/k/v kept when the stack attends from
   * them — and sets *CAUSAL (whether a token sees only the tokens before it). NULL: the shape
   * as it arrives, causal. */
  void (*trace_shape) (const AsConfig *config, AsTraceShape *shape, gboolean *causal);

  /* Bytes of working memory (AsPass.scratch) for N_TOKENS tokens attending to N_SOURCE encoder
   * tokens (0 for a stack without cross-attention); the residual stream is the driver's. */
  guint64 (*scratch_bytes) (const AsConfig *config, int n_tokens, int n_source);

  /* The token-embedding table [V][D] whose rows for the ids the trace keeps (token_embeddings:
   * each token's vector before positions or anything else are added), or NULL. May be NULL. */
  const float *(*token_embeddings) (gconstpointer weights);

  /* x [T][D] = the stack's input for the trace's ids: token embeddings, positions, an embedding
   * norm; and any table the layers read for the whole pass (RoPE's angles). */
  void (*embed) (AsPass *pass);

  /* Block LAYER on x [T][D] in place, writing the layer's attention, contexts and attention
   * output into the trace (q, k, v when the trace keeps them; a decoder stack also its
   * cross-attention). */
  void (*layer) (AsPass *pass, int layer);

  /* hidden[L] (x after the final norm, or x itself) and the trace's logits rows. */
  void (*finish) (AsPass *pass);

  /* OUT [N][D] = X [N][D] through the final norm, as finish writes hidden[L] (OUT may be X), and
   * *HEAD what finish applies after it: the output head alone, which also reads vectors taken as
   * already through the final norm (hidden[L] itself, the fitted lens's maps; read-out.c and the
   * ranked read-out). Both NULL when finish applies no final norm (finish is then the head) or
   * the head is more than one product (a masked-LM head's transform). */
  void (*final_norm) (const AsConfig *config, gconstpointer weights, AsWorkerTeam *team, float *out,
                      const float *x, int n);
  void (*head_product) (const AsConfig *config, gconstpointer weights, AsHeadProduct *head);
  /* Fills OUT with the stack's output as linear pieces (readout-private.h): all of them for a
   * model whose residual stream reaches the final norm as a sum of its blocks' outputs
   * (pre-norm), the layers' only for one that renormalises it after every block (post-norm).
   * NULL: the stack offers none (Marian, toy-attention). */
  void (*readout) (const AsConfig *config, gconstpointer weights, AsReadout *out);

  /* OUT [T][D] = LAYER's attention output remade from TRACE's contexts, to the bits the pass
   * gave it, for a trace whose shape the stack gave attn_out_on_demand (trace_shape): what
   * as_trace_attn_out() reads then. NULL: the stack's traces always keep attn_out. */
  void (*attention_output) (const AsConfig *config, gconstpointer weights, const AsTrace *trace,
                            int layer, float *out);

  /* One position of a decoder pass replayed for direct logit attribution (replay-private.h).
   * NULL: the stack offers none. */
  AsReplayFunc replay;
} AsStack;

/* The interventions a family's layer stage applies (AsForwardOptions.intervention; the driver
 * itself replaces residual rows and starts later). Both do nothing without an intervention.
 * as_pass_heads: after the attention, before the output projection: the chosen heads' columns
 * of cc [T][LDC] (head h at columns h·hd) replaced. as_pass_mlp: m [T][D], LAYER's MLP output,
 * recorded and, when chosen, replaced, before it joins the residual stream. */
void as_pass_heads (const AsPass *pass, int layer, float *cc, int ldc);
void as_pass_mlp (const AsPass *pass, int layer, float *m);

/* The cross-attention of LAYER in a translation pass: CC [T][WIDTH] = softmax(SCALE · q·kᵀ) · v
 * per head over the source's S keys, the weights written to the trace's cross-attention. Q
 * [T][WIDTH], K and V [S][WIDTH], the heads side by side. */
void as_pass_cross_attend (const AsPass *pass, int layer, const float *q, const float *k,
                           const float *v, float *cc, int width, float scale);

/* Whether the pass leaves out positions (AsForwardOptions.no_positions). */
static inline gboolean
as_pass_no_positions (const AsPass *pass)
{
  return pass->options != NULL && pass->options->no_positions;
}

G_END_DECLS

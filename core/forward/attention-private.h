/* attention-private.h — multi-head attention: one kernel for every family's self-attention
 * (causal, or bidirectional for encoders), cross-attention and generation steps.
 *
 * Every family computes its heads here, so they all compute attention the same way
 * (core/families/README.md, "Forward maths"): for each query head h, with the key/value head g it
 * shares (g = h / (H/K); K = H without grouped-query attention), P_h = softmax(q_h·k_gᵀ · scale)
 * under the causal mask (and a sliding window) unless bidirectional (Gemma 2: the scaled scores
 * soft-capped first; T5: an additive bias B_h on the scaled scores, P_h = softmax(q_h·k_gᵀ · scale
 * + B_h)), ctx_h = P_h·v_g where masked weights are exactly 0. P goes to the trace's attention
 * [L][H][T][T], ctx to its contexts [L][H][T][hd] and, heads side by side, to CC for the output
 * projection.
 *
 * The work is dealt out in (head, block of 64 query rows) units, round robin over the members of
 * the pass's worker team: lower blocks see more keys, so dealing them in turn balances the work,
 * and each unit writes its own outputs (results never depend on timing). Each block multiplies
 * only by the keys it can see. Private to the core. */
#pragma once

#include "as-trace.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

/* Scaled dot-product attention of every head over queries and keys of any two lengths (a
 * trace's self-attention, a decoder's cross-attention to the encoder, one generation step's
 * query against its key/value cache). Query head h reads Q + h·q_head, its key/value head
 * g = h / group reads K + g·k_head and V + g·v_head, rows ldq/ldk/ldv apart; it writes its
 * weights into P + h·p_head ([n_q][n_k]), its context into CTX + h·ctx_head ([n_q][hd], when CTX
 * is not NULL) and into columns h·hd.. of CC ([n_q][ldcc]). */
typedef struct
{
  const float *q, *k, *v;       /* head 0's first row */
  gsize q_head, k_head, v_head; /* from one head's block to the next */
  int ldq, ldk, ldv;            /* row strides */
  float *p;                     /* head 0's weights [n_q][n_k]; NULL: keep none (on demand) */
  gsize p_head;
  float *row_max, *row_inv; /* NULL, or head h's rows' maximum and 1/sum at h·n_q [H][n_q] */
  float *ctx;               /* NULL, or head 0's context [n_q][hd] */
  gsize ctx_head;
  float *cc; /* [n_q][ldcc], head h at columns h·hd */
  int ldcc;
  int n_heads, group; /* query heads; query heads per key/value head (1: no GQA) */
  int n_q, n_k, head_dim;
  gboolean causal; /* query i sees keys 0..i (n_q = n_k) */
  int window;      /* causal only: query i sees keys i−W+1 .. i; 0: every key up to i */
  float scale;     /* usually 1/√hd */
  float softcap;   /* > 0: the scaled scores become cap·tanh(s/cap) before the mask (Gemma 2) */
  /* NULL, or an additive bias on the scores: query head h's row i, key j adds
   * bias[h·bias_head + i·ldbias + j] to q·kᵀ·scale before the soft-cap and the mask (T5's
   * relative position bias; a generation step passes its one row, [H][n_k] with ldbias n_k).
   * LDBIAS may be −1: a bias that depends only on j − i (a full pass's relative bias, [H][2n_k−1]
   * with distance j − i at [j − i + n_k − 1], bias_head 2n_k − 1) is passed as a pointer to its
   * entry n_k − 1, so row i starts i entries earlier and no [n_q][n_k] copy is made. */
  const float *bias;
  gsize bias_head;
  int ldbias;
} AsAttention;

void as_attend (AsWorkerTeam *team, const AsAttention *job);

/* Query rows per unit of work: each block of rows multiplies only by the keys it can see. */
#define AS_ATTENTION_ROW_BLOCK 64

/* The keys K0 .. K1−1 the block of query rows R0 .. R0+ROWS−1 (of N_K keys) multiplies by: all
 * unless CAUSAL; else up to its last row, from the first row's window start (WINDOW > 0). The
 * scores of a block are one product of its rows and these keys: a recomputation that wants the
 * same bits makes the same product. */
void as_attention_block_keys (gboolean causal, int window, int r0, int rows, int n_k, int *k0,
                              int *k1);

/* Keys per product of scores: a block of query rows is scored against its keys K0 .. K1−1 in
 * products of this many keys, counted from K0. OpenBLAS's sgemm rounds a column by where it
 * falls in the product (a column subset of a product may differ in a last bit), so fixed blocks
 * are what lets a recomputation score only the columns it needs and still get the pass's bits. */
#define AS_ATTENTION_COL_BLOCK 256

/* Scores q·kᵀ of ROWS query rows Q [rows][ldq] (head width HD) against the keys of the blocks of
 * AS_ATTENTION_COL_BLOCK counted from K0 (K [k1−k0][ldk], key K0 first) that meet columns
 * C0 .. C1−1, into S: column c at S[c] (S's rows LDS apart). Columns of those blocks outside
 * C0 .. C1 are written too; columns of other blocks are left alone. */
void as_attention_scores (float *s, int lds, const float *q, int ldq, const float *k, int ldk,
                          int rows, int hd, int k0, int k1, int c0, int c1);

/* A trace's layer: its queries, keys and values as the family computed them, row-major with
 * heads side by side (or in blocks of their own). */
typedef struct
{
  const float *q; /* [T][ldq] query head h at columns h·hd .. */
  const float *k; /* [T][ldk] key/value head g at columns g·hd .. */
  const float *v; /* [T][ldv] */
  int ldq, ldk, ldv;
  gsize q_head, k_head,
      v_head; /* 0: heads side by side (h·hd); else one head's block to the next */
  float *cc;  /* [T][ldc] out: context of head h at columns h·hd .. */
  int ldc;
  int window;             /* a query at i sees keys i−W+1 .. i; 0: every key up to i */
  gboolean bidirectional; /* every query sees every key (encoders); WINDOW is then ignored */
  float scale;            /* usually 1/√hd */
  float softcap;          /* > 0: scores capped as AsAttention.softcap; 0: none */
} AsAttentionInput;

/* Attention of every head of LAYER of trace T (its H, K, T and hd), into the trace's weights —
 * the matrices, or the queries, keys and row statistics that recompute them — its contexts and
 * IN->cc (as_attend on the trace's arrays); records the layer's AsAttentionRecipe. */
void as_attention_layer (AsWorkerTeam *team, AsTrace *t, int layer, const AsAttentionInput *in);

G_END_DECLS

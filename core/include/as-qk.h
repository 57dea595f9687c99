/* as-qk.h — the query–key view of one head and one query token: why the head attends where it
 * does (core/analysis/README.md, "Query–key view"), as BertViz's neuron view shows it, for every
 * family.
 *
 * q is the query as the scores use it (after RoPE and a per-head q-norm where the model has
 * them; the trace keeps no query before RoPE), k_j every key of the head's key/value head, and
 * q ⊙ k_j their per-dimension products: Σ_d (q ⊙ k_j)_d · scale is the score of key j
 * (soft-capped afterwards where the model caps: Gemma 2), and the softmax over the keys the
 * query sees is the head's attention row. */
#pragma once

#include <glib.h>

#include "as-model.h"
#include "as-trace.h"

G_BEGIN_DECLS

typedef struct
{
  int layer, head, kv_head, query;
  int n_keys, head_dim; /* S (= T), hd */
  float scale;          /* the scores' scale */
  float softcap;        /* > 0: scores capped to cap·tanh(s/cap) */
  float *q;             /* [hd] */
  float *q_before_rope; /* [hd] the query before RoPE (after a per-head q-norm), the rotation
                         * undone; NULL where the model does not rotate */
  float *keys;          /* [S][hd] */
  float *products;      /* [S][hd] q_d · k_jd */
  float *bias;          /* [S] what the layer adds to each score before the softmax (T5's
                         * relative position bias: scores = q·k + bias), or NULL */
  float *scores;        /* [S] before the softmax; -INFINITY for keys the query does not see */
  float *probs;         /* [S] the head's attention row */
  float *dims;   /* [hd] Σ_j probs_j · products_jd · scale: what each dimension adds to the
                  * expected score */
  int *top_dims; /* [hd] dimensions by |dims|, largest first */
} AsQk;

/* The view of head HEAD of layer LAYER for query QUERY of TRACE (made by MODEL with q, k and v
 * captured). Fails (AS_ERROR_INPUT) for a layer, head or token out of range (the message names
 * the range), a trace without queries and keys, a model that offers no scale (Marian,
 * toy-attention). */
AsQk *as_qk_compute (AsModel *model, const AsTrace *trace, int layer, int head, int query,
                     GError **error);
void as_qk_free (AsQk *qk);

/* TRACE itself (a new reference) when it holds the queries and keys, else a new pass of MODEL
 * over TRACE's ids with q, k and v captured — the same ids, so the same numbers — which the
 * query–key view reads (the window's passes do not capture them), its attention on demand (no
 * [L][H][T][T] matrices: at 1,024 tokens it holds less than the main trace's attention;
 * ui/README.md, "Query–key view"). Fails (AS_ERROR_INPUT) for a translation's trace and a sentence
 * pair (their passes take more than the ids), and as as_forward does. */
AsTrace *as_qk_trace_with_qkv (AsModel *model, AsTrace *trace, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsQk, as_qk_free)

G_END_DECLS

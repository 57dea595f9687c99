/* as-rollout.h — attention aggregated over heads and through layers.
 *
 * Mean over heads: M_l = (1/H) Σ_h P[l][h], one [T][T] matrix per layer (for a translation
 * model's cross-attention one [T][S] matrix per decoder layer), summed in double.
 *
 * Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"): the
 * residual connection is modelled by mixing in the identity, per layer
 *   A_l = 0.5·M_l + 0.5·I, then every row divided by its sum (already 1 for softmax rows; the
 *       renormalisation only matters for inputs whose rows do not sum to 1),
 * and the layers are multiplied from the first upwards:
 *   R_0 = A_0,   R_l = A_l · R_{l-1}   (so R_{L-1} = A_{L-1} · … · A_1 · A_0).
 * Rows are queries (output positions of layer l), columns input tokens: R_l[i][j] is how much of
 * position i after layer l flows from input token j; every row of R_l sums to 1. The output holds
 * the cumulative R_l for every layer l. Products are computed in double (cblas_dgemm). */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* OUT [T][T] = mean over the N_HEAD heads of ATTN [H][T][T]. */
void as_attention_mean_heads (float *out, const float *attn, int n_head, int n_tokens);

/* OUT [L][T][T] = rollout R_0..R_{L-1} of ATTN [L][H][T][T] as described above. */
void as_attention_rollout (float *out, const float *attn, int n_layer, int n_head, int n_tokens);

/* The same on a trace; newly allocated [L][T][T] arrays, free with g_free. */
float *as_trace_mean_heads (const AsTrace *trace);
float *as_trace_rollout (const AsTrace *trace);

/* [L][T][S]: the mean over each layer's heads of a decoder trace's cross-attention (cross_attn
 * set; T target, S source tokens), as as_trace_mean_heads. Newly allocated, free with g_free. */
float *as_trace_cross_mean_heads (const AsTrace *trace);

G_END_DECLS

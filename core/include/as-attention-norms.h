/* as-attention-norms.h — attention weighted by what each key writes (Kobayashi et al. 2020,
 * "Attention is not only a weight"; core/analysis/README.md, "Attention norms").
 *
 * For head h and key j, f_h(x_j) = v_j · O_h is the key's value through the head's slice of the
 * output projection (grouped-query attention: the value of the key/value head it shares); the
 * norm-weighted attention of query i to key j is ‖α_ij · f_h(x_j)‖ = α_ij · ‖f_h(x_j)‖. A head
 * that attends to a token whose value it maps to almost nothing writes almost nothing there:
 * the weights alone would say it reads it. Gemma's post-attention norm acts after the sum over
 * the heads and is not part of f. */
#pragma once

#include <gio/gio.h>

#include "as-model.h"
#include "as-trace.h"

G_BEGIN_DECLS

typedef struct
{
  int n_layer, n_head, n_tokens;
  float *value_norms; /* [L][H][T] ‖f_h(x_j)‖ per key j */
  float *head_shares; /* [L][H] each head's share of its layer's attention output: Σ_i ‖ctx_h,i ·
                       * O_h‖ over Σ of it over the layer's heads (0..1, a layer sums to 1) */
  float *first_ratios; /* [L][H] the norm-weighted attention on the first token over the weight
                        * alone, both averaged over the queries: well below 1 for a head that
                        * looks at the first token but writes little from it */
} AsAttentionNorms;

/* The norms of TRACE (made by MODEL with q, k, v captured). Checked between layers: CANCELLABLE
 * (may be NULL). Fails (AS_ERROR_INPUT) for a trace without values or a model that offers no
 * output projection (Marian, toy-attention); on cancellation. */
AsAttentionNorms *as_attention_norms_compute (AsModel *model, const AsTrace *trace,
                                              GCancellable *cancellable, GError **error);
void as_attention_norms_free (AsAttentionNorms *norms);

/* As as_attention_norms_compute for any trace of MODEL (a decoder or an encoder, of a text or a
 * pair): a trace without values is run again over its ids with q, k and v captured and its
 * attention on demand (no [T][T] array is kept), the norms read from that pass, and the pass
 * dropped — the caller keeps its own trace for the weights, which are the same. A translation's
 * decoder trace (which keeps its values) gives the decoder self-attention's norms. Fails as
 * as_attention_norms_compute, and for a translation's encoder trace (AS_ERROR_INPUT: the readout's
 * output projections are the decoder's). */
AsAttentionNorms *as_attention_norms_of_trace (AsModel *model, const AsTrace *trace,
                                               GCancellable *cancellable, GError **error);

/* OUT [T] = row ROW of head (LAYER, HEAD) of TRACE weighted by the norms: α_ij · ‖f_h(x_j)‖. */
void as_attention_norms_row (float *out, const AsAttentionNorms *norms, const AsTrace *trace,
                             int layer, int head, int row);

/* The weighted row ROW divided by its sum (a distribution again, comparable with the weights;
 * zero when the row writes nothing). OUT [T]. */
void as_attention_norms_row_normalised (float *out, const AsAttentionNorms *norms,
                                        const AsTrace *trace, int layer, int head, int row);

static inline const float *
as_attention_norms_values (const AsAttentionNorms *n, int layer, int head) /* [T] */
{
  return n->value_norms + ((gsize) layer * n->n_head + head) * n->n_tokens;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsAttentionNorms, as_attention_norms_free)

G_END_DECLS

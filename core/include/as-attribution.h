/* as-attribution.h — direct logit attribution: one token's logit at one position (or the
 * difference of two tokens' logits) split into what every part of the model wrote directly into
 * the residual stream (core/analysis/README.md, "Direct logit attribution").
 *
 * The parts are the heads (each head's context through its slice of the output projection), the
 * MLPs, the embeddings (token + positions), the attention output biases and the final norm's own
 * bias. The final norm's scale is frozen at its value in the run — LayerNorm: every part centred
 * and divided by the run's σ; RMSNorm: divided by the run's rms — so the parts add up to the
 * logit. A norm on the attention's output before the residual (Gemma's post-attention norm) is
 * frozen likewise at its run's rms. Encoders that renormalise the residual stream after every
 * block (BERT, DistilBERT, RoBERTa: post-norm) have no such sum and are refused; the decoder of
 * an encoder–decoder (Marian, BART, mBART) is replayed with every norm on its residual path
 * frozen, which adds the cross-attention heads and the norms' biases as parts
 * (attribution-seq2seq.c). */
#pragma once

#include <glib.h>

#include "as-model.h"
#include "as-trace.h"

G_BEGIN_DECLS

typedef struct
{
  int n_layer, n_head;
  int position;
  int32_t target_id, vs_id; /* vs_id -1: the target's logit alone */
  float logit;              /* the logit (or the difference) the run computed: before a final
                             * soft-cap (Gemma 2), which is not linear */
  float *heads;             /* [L][H] */
  float *mlps;              /* [L] */
  float embeddings;
  float *attn_biases;  /* [L] */
  float norm_bias;     /* encoder–decoders: the final norm's and the embedding norm's biases */
  float *cross_heads;  /* [L][H] an encoder–decoder's cross-attention heads; else NULL */
  float *cross_biases; /* [L] their output biases; NULL as cross_heads */
  float *norm_biases;  /* [L] the biases of a post-norm layer's norms, carried forward
                        * through the later frozen norms; NULL as cross_heads */
  float final_logits_bias; /* the output's own bias (Marian, BART); 0 without */
  float sum;               /* of every part above */
} AsAttribution;

/* Whether direct logit attribution applies to MODEL; when not, ERROR (AS_ERROR_INPUT) says why
 * in one line. */
gboolean as_attribution_supported (AsModel *model, GError **error);

/* The attribution of TARGET_ID's logit (minus VS_ID's when VS_ID ≥ 0) at POSITION of TRACE,
 * which MODEL made. Fails (AS_ERROR_INPUT) for a position or id out of range, a model without an
 * output head, and a post-norm model (the message says why). */
AsAttribution *as_attribution_compute (AsModel *model, const AsTrace *trace, int position,
                                       int32_t target_id, int32_t vs_id, GError **error);
void as_attribution_free (AsAttribution *attribution);

/* *ID = the token the model predicts at POSITION of TRACE (MODEL's): the argmax of the pass's
 * logits there, or when the pass kept only the last position's, of hidden[L] read through the
 * output head (the logit lens at i = L, as-lens.h) — the token attribution splits by default.
 * Fails (AS_ERROR_INPUT) for a position out of range or a model without an output head. */
gboolean as_attribution_predicted_id (AsModel *model, const AsTrace *trace, int position,
                                      int32_t *id, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsAttribution, as_attribution_free)

G_END_DECLS

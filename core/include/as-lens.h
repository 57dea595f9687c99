/* as-lens.h — the logit lens: what the model would predict from each hidden state, read through
 * its own final norm and output head (core/README.md, "Logit lens").
 *
 * Hidden state i uses HF's hidden_states numbering: 0 = the embeddings, i = the input of layer i,
 * L = the last (already through the final norm: its predictions are the model's own). For a
 * masked-LM encoder the output head is the masked-LM head; for a translation model the decoder's
 * output head over the decoder's hidden states. */
#pragma once

#include <gio/gio.h>

#include "as-model.h"
#include "as-predict.h"
#include "as-trace.h"

G_BEGIN_DECLS

/* One (hidden state, position): its top K and, when a target was asked for, the target's place. */
typedef struct
{
  AsPrediction *top; /* [n_top] best first (as_predict_top_k_row) */
  int n_top;
  int target_rank; /* 0 = the most likely; -1 without a target */
  float target_probability;
} AsLensCell;

typedef struct
{
  int n_hidden;      /* L + 1 */
  int n_positions;   /* the positions read */
  int *positions;    /* [n_positions] token indices in the trace */
  int32_t target_id; /* -1: none */
  AsLensCell *cells; /* [n_hidden][n_positions] */
} AsLens;

/* The lens of TRACE (made by MODEL, with or without all_logits: hidden[L] is read through the
 * output head where the trace has no logits; a translation model's decoder trace) at
 * POSITIONS [N_POSITIONS] (token indices), K best tokens each, and TARGET_ID's rank and
 * probability when TARGET_ID ≥ 0. Checked between hidden states: CANCELLABLE (may be NULL). Fails
 * (AS_ERROR_INPUT) for a model without an output head, a position or target id out of range; on
 * memory and cancellation. */
AsLens *as_lens_compute (AsModel *model, const AsTrace *trace, const int *positions,
                         int n_positions, int k, int32_t target_id, GCancellable *cancellable,
                         GError **error);
void as_lens_free (AsLens *lens);

static inline const AsLensCell *
as_lens_cell (const AsLens *lens, int hidden, int position_index)
{
  return &lens->cells[(gsize) hidden * lens->n_positions + position_index];
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsLens, as_lens_free)

G_END_DECLS

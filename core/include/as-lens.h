/* as-lens.h — the logit lens: what the model would predict from each hidden state, read through
 * its own final norm and output head (core/analysis/README.md, "Logit lens").
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

/* The fitted lens (core/analysis/README.md, "Fitted lens"): per hidden state i < L an affine map
 * y = x·A_i + b_i from hidden state i to hidden state L, fitted on a corpus by ridge-regularised
 * least squares (the least-squares variant of Belrose et al. 2023's tuned lens, which is trained
 * on KL); y is read through the output head alone, as hidden[L] is. */
typedef struct
{
  int n_layer, d_model; /* L, D */
  float *maps;          /* [L][D + 1][D]: rows 0..D-1 = A_i, row D = b_i */
  double ridge;         /* λ relative to the mean diagonal of XᵀX (see as_fitted_lens_fit) */
  int n_train_lines, n_train_positions;
  /* the KL divergence (nats) from the final distribution to each lens's, averaged over the
   * held-out positions: [L] for hidden states 0..L-1; hidden[L] is 0 for both */
  int n_heldout_lines, n_heldout_positions;
  double *kl_logit, *kl_fitted;
  char *model_name;
  char *model_fingerprint; /* as_shard_model_fingerprint of the model's folder */
} AsFittedLens;

/* Lines held out of the fit to measure it: every AS_FITTED_LENS_HOLDOUT-th line (4, 9, 14, ...);
 * the KL is measured at the first AS_FITTED_LENS_KL_POSITIONS positions of those lines. A corpus
 * needs at least AS_FITTED_LENS_HOLDOUT lines. */
#define AS_FITTED_LENS_HOLDOUT 5
#define AS_FITTED_LENS_KL_POSITIONS 256
#define AS_FITTED_LENS_RIDGE 1e-3

/* Fits MODEL's lens on LINES [N_LINES] (texts, each truncated to the context): for each i < L,
 * with X = the training positions' hidden[i] with a column of ones appended and Y their
 * hidden[L] (float64 sums of float32 states, line by line),
 *   W_i = (XᵀX + λ I₀)⁻¹ XᵀY,  λ = RIDGE · (the mean of XᵀX's first D diagonal entries),
 * I₀ the identity without the bias entry (Cholesky, LAPACK dposv). Deterministic whatever the
 * thread count. Fails (AS_ERROR_INPUT) for a model without an output head, a translation model,
 * fewer than AS_FITTED_LENS_HOLDOUT lines, fewer training positions than D + 1; on a line the
 * model cannot run (naming its number), memory, cancellation. */
AsFittedLens *as_fitted_lens_fit (AsModel *model, const char *const *lines, int n_lines,
                                  double ridge, GCancellable *cancellable, GError **error);
void as_fitted_lens_free (AsFittedLens *lens);

/* Writes LENS to PATH (HDF5, whole or not at all; FORCE replaces a read-only file). */
gboolean as_fitted_lens_save (const AsFittedLens *lens, const char *path, gboolean force,
                              GError **error);
/* Reads the lens at PATH for MODEL; refuses (AS_ERROR_INPUT) a lens of another model, naming
 * both, or of another shape. */
AsFittedLens *as_fitted_lens_load (const char *path, AsModel *model, GError **error);

/* As as_lens_compute, but hidden states 0..L-1 go through FITTED's maps, then the output head. */
AsLens *as_lens_compute_fitted (AsModel *model, const AsTrace *trace, const AsFittedLens *fitted,
                                const int *positions, int n_positions, int k, int32_t target_id,
                                GCancellable *cancellable, GError **error);

/* OUT [N][D] = hidden state INDEX < L of TRACE at POSITIONS [N] through FITTED's map (vectors
 * like hidden[L], for the output head alone). */
gboolean as_fitted_lens_map (const AsTrace *trace, const AsFittedLens *fitted, int index,
                             const int *positions, int n, float *out, GError **error);

/* logits [N][V] of hidden state INDEX < L of TRACE at POSITIONS [N] through FITTED. */
gboolean as_fitted_lens_read (AsModel *model, const AsTrace *trace, const AsFittedLens *fitted,
                              int index, const int *positions, int n, float *logits,
                              GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsFittedLens, as_fitted_lens_free)

G_END_DECLS

/* lens.c — the logit lens (as-lens.h): every hidden state read through the model's own output
 * (as_forward_read_out), top K and a target's rank per position. */
#include "as-lens.h"

#include <string.h>

#include "as-error.h"
#include "as-forward.h"

/* Positions read out per call: bounds the logits held at once to LENS_BLOCK × V floats. */
#define LENS_BLOCK 64

static gboolean
check_request (const AsTrace *trace, const int *positions, int n_positions, int32_t target_id,
               GError **error)
{
  if (trace->vocab_size == 0 || trace->logits_rows == 0)
    {
      g_set_error_literal (error, AS_ERROR, AS_ERROR_INPUT,
                           "the model has no output head to read hidden states through: it "
                           "computes attention only");
      return FALSE;
    }
  for (int i = 0; i < n_positions; i++)
    if (positions[i] < 0 || positions[i] >= trace->n_tokens)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "position %d is out of range: the text has %d tokens (0..%d)", positions[i],
                     trace->n_tokens, trace->n_tokens - 1);
        return FALSE;
      }
  if (target_id >= trace->vocab_size)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "token id %d is outside the vocabulary (0..%d)",
                   target_id, trace->vocab_size - 1);
      return FALSE;
    }
  return TRUE;
}

/* Fills the cells of hidden state I for positions [P0, P0 + N) from LOGITS [N][V]. */
static void
fill_cells (AsLens *lens, const AsTrace *trace, const AsTokenizer *tokenizer, int i, int p0, int n,
            const float *logits, int k)
{
  int V = trace->vocab_size;
  for (int p = 0; p < n; p++)
    {
      AsLensCell *cell = &lens->cells[(gsize) i * lens->n_positions + p0 + p];
      const float *row = logits + (gsize) p * V;
      cell->top = as_predict_top_k_row (row, V, tokenizer, k, &cell->n_top);
      cell->target_rank = -1;
      if (lens->target_id >= 0)
        as_predict_rank (row, V, lens->target_id, &cell->target_rank, &cell->target_probability);
    }
}

static AsLens *
lens_compute (AsModel *model, const AsTrace *trace, const AsFittedLens *fitted,
              const int *positions, int n_positions, int k, int32_t target_id,
              GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL && positions != NULL, NULL);
  g_return_val_if_fail (n_positions > 0 && k > 0, NULL);
  if (!check_request (trace, positions, n_positions, target_id, error))
    return NULL;
  int L = trace->n_layer, V = trace->vocab_size;
  int block = MIN (n_positions, LENS_BLOCK);
  g_autofree float *logits = g_try_new (float, (gsize) block *V); /* [block][V] */
  if (logits == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the logits of %d positions for the lens", block);
      return NULL;
    }
  g_autoptr (AsLens) lens = g_new0 (AsLens, 1);
  lens->n_hidden = L + 1;
  lens->n_positions = n_positions;
  lens->positions = g_memdup2 (positions, sizeof (int) * n_positions);
  lens->target_id = target_id;
  lens->cells = g_new0 (AsLensCell, (gsize) (L + 1) * n_positions);
  const AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  for (int i = 0; i <= L; i++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      for (int p0 = 0; p0 < n_positions; p0 += block)
        {
          int n = MIN (block, n_positions - p0);
          /* hidden[L] went through the final norm: where the pass kept its logits, they are the
           * pass's own (the trace holds the logits of its last logits_rows positions) */
          int first_row = trace->n_tokens - trace->logits_rows;
          gboolean kept = i == L;
          for (int p = 0; p < n; p++)
            kept = kept && positions[p0 + p] >= first_row;
          gboolean read
              = kept
                || (fitted != NULL && i < L
                        ? as_fitted_lens_read (model, trace, fitted, i, positions + p0, n, logits,
                                               error)
                        : as_forward_read_out (model, trace, i, positions + p0, n, logits, error));
          if (!read)
            return NULL;
          for (int p = 0; i == L && p < n; p++)
            if (positions[p0 + p] >= first_row)
              memcpy (logits + (gsize) p * V,
                      trace->logits + (gsize) (positions[p0 + p] - first_row) * V,
                      sizeof (float) * V);
          fill_cells (lens, trace, tokenizer, i, p0, n, logits, k);
        }
    }
  return g_steal_pointer (&lens);
}

AsLens *
as_lens_compute (AsModel *model, const AsTrace *trace, const int *positions, int n_positions, int k,
                 int32_t target_id, GCancellable *cancellable, GError **error)
{
  return lens_compute (model, trace, NULL, positions, n_positions, k, target_id, cancellable,
                       error);
}

AsLens *
as_lens_compute_fitted (AsModel *model, const AsTrace *trace, const AsFittedLens *fitted,
                        const int *positions, int n_positions, int k, int32_t target_id,
                        GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (fitted != NULL, NULL);
  if (fitted->n_layer != trace->n_layer || fitted->d_model != trace->d_model)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the fitted lens has %d layers of width %d; the model has %d of width %d",
                   fitted->n_layer, fitted->d_model, trace->n_layer, trace->d_model);
      return NULL;
    }
  return lens_compute (model, trace, fitted, positions, n_positions, k, target_id, cancellable,
                       error);
}

void
as_lens_free (AsLens *lens)
{
  if (lens == NULL)
    return;
  for (gsize c = 0; c < (gsize) lens->n_hidden * lens->n_positions; c++)
    as_predictions_free (lens->cells[c].top, lens->cells[c].n_top);
  g_free (lens->cells);
  g_free (lens->positions);
  g_free (lens);
}

/* lens.c — the logit lens (as-lens.h): every hidden state read through the model's own output
 * (as_forward_read_out), top K and a target's rank per position.
 *
 * Where the head's product can rank its rows as it makes them (as_forward_can_rank: AMX tiles, a
 * head of one product, K ≤ 16), every cell whose logits the pass did not keep is ranked so
 * (rank_cells; with a fitted lens its mapped vectors, 1,024 at a time): no logits are written.
 * Otherwise the cells (hidden state, position) are read out in blocks of as_forward_read_out_block
 * rows, the hidden states before the last together (each block repacks the output head once,
 * whatever hidden states its rows come from); the top K and ranks of a block's rows are found by
 * the worker team, a row each, and decoded afterwards on the calling thread. Cells whose logits the
 * pass kept are ranked from them. */
#include "as-lens.h"

#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "memory-private.h"
#include "worker-team-private.h"

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

/* Whether cell (hidden state I, position POSITION) has the pass's own logits. */
static gboolean
kept_logits (const AsTrace *trace, int i, int position)
{
  return i == trace->n_layer && position >= trace->n_tokens - trace->logits_rows;
}

/* What a block's rows are: how they are read out, and so which rows may share a block. */
typedef enum
{
  LENS_SOURCE_HIDDEN, /* hidden states before the last, through the final norm and the head */
  LENS_SOURCE_FITTED, /* one hidden state before the last, through its fitted map and the head */
  LENS_SOURCE_LAST,   /* hidden[L] where the pass kept no logits: through the head alone */
  LENS_SOURCE_KEPT,   /* hidden[L] where the pass kept its logits: they are the pass's own */
} LensSource;

/* A block of rows being gathered and read. */
typedef struct
{
  AsModel *model;
  const AsTrace *trace;
  const AsFittedLens *fitted;
  AsLens *lens;
  int k;
  LensSource source;
  int n;                    /* rows gathered */
  int *indexes;             /* [block] hidden state of each row */
  int *positions;           /* [block] token position of each row */
  int *cells;               /* [block] the row's cell in lens->cells */
  float *logits;            /* [block][V] */
  const float **rows;       /* [block] each row's logits */
  int32_t *top_ids;         /* [block][k] */
  float *top_probabilities; /* [block][k] */
  int *n_top;               /* [block] */
  AsWorkerTeam *team;
} LensBlock;

/* Top K and the target's place of row R of B (the team's block function: rows are independent). */
static void
rank_row (gpointer data, int r)
{
  LensBlock *b = data;
  AsLensCell *cell = &b->lens->cells[b->cells[r]];
  int V = b->trace->vocab_size;
  b->n_top[r] = as_predict_top_k_ids (b->rows[r], V, b->k, b->top_ids + (gsize) r * b->k,
                                      b->top_probabilities + (gsize) r * b->k);
  cell->target_rank = -1;
  if (b->lens->target_id >= 0)
    as_predict_rank (b->rows[r], V, b->lens->target_id, &cell->target_rank,
                     &cell->target_probability);
}

/* Reads the gathered rows of B out and fills their cells. */
static gboolean
flush_block (LensBlock *b, GError **error)
{
  if (b->n == 0)
    return TRUE;
  const AsTrace *trace = b->trace;
  gsize V = (gsize) trace->vocab_size;
  gboolean read = TRUE;
  switch (b->source)
    {
    case LENS_SOURCE_HIDDEN:
      read = as_forward_read_out_cells (b->model, trace, b->indexes, b->positions, b->n, b->logits,
                                        error);
      break;
    case LENS_SOURCE_FITTED:
      read = as_fitted_lens_read (b->model, trace, b->fitted, b->indexes[0], b->positions, b->n,
                                  b->logits, error);
      break;
    case LENS_SOURCE_LAST:
      read = as_forward_read_out (b->model, trace, trace->n_layer, b->positions, b->n, b->logits,
                                  error);
      break;
    case LENS_SOURCE_KEPT:
      break;
    }
  if (!read)
    return FALSE;
  int first_row = trace->n_tokens - trace->logits_rows;
  for (int r = 0; r < b->n; r++)
    b->rows[r] = b->source == LENS_SOURCE_KEPT
                     ? trace->logits + (gsize) (b->positions[r] - first_row) * V
                     : b->logits + (gsize) r * V;
  as_worker_team_run_blocks (b->team, b->n, rank_row, b);
  const AsTokenizer *tokenizer = as_model_get_tokenizer (b->model);
  for (int r = 0; r < b->n; r++)
    {
      AsLensCell *cell = &b->lens->cells[b->cells[r]];
      cell->n_top = b->n_top[r];
      cell->top
          = as_predict_from_ids (b->rows[r], b->top_ids + (gsize) r * b->k,
                                 b->top_probabilities + (gsize) r * b->k, b->n_top[r], tokenizer);
    }
  b->n = 0;
  return TRUE;
}

/* Adds cell (hidden state I, position number P) to B, reading the block out first when it is full
 * or its rows are read another way. */
static gboolean
add_cell (LensBlock *b, int block, int i, int p, GError **error)
{
  const AsTrace *trace = b->trace;
  int L = trace->n_layer, position = b->lens->positions[p];
  LensSource source;
  if (i < L)
    source = b->fitted != NULL ? LENS_SOURCE_FITTED : LENS_SOURCE_HIDDEN;
  else
    source = kept_logits (trace, i, position) ? LENS_SOURCE_KEPT : LENS_SOURCE_LAST;
  gboolean same
      = b->n > 0 && b->source == source && (source != LENS_SOURCE_FITTED || b->indexes[0] == i);
  if ((b->n == block || !same) && !flush_block (b, error))
    return FALSE;
  b->source = source;
  b->indexes[b->n] = i;
  b->positions[b->n] = position;
  b->cells[b->n] = i * b->lens->n_positions + p;
  b->n++;
  return TRUE;
}

/* OUT's rows from R0 on. */
static AsRankedRows
ranked_rows_from (const AsRankedRows *out, int r0)
{
  gsize at = (gsize) r0 * out->k;
  return (AsRankedRows){ .k = out->k,
                         .target_id = out->target_id,
                         .top_ids = out->top_ids + at,
                         .top_logits = out->top_logits + at,
                         .top_probabilities = out->top_probabilities + at,
                         .n_top = out->n_top + r0,
                         .target_rank = out->target_rank + r0,
                         .target_probability = out->target_probability + r0 };
}

/* Rows of fitted-lens vectors ranked at once: the head is split once per call. */
#define FITTED_RANK_ROWS 1024

/* The N cells (INDEXES, POSITIONS, sorted by hidden state) through FITTED's maps — hidden[L]
 * as it is — ranked into OUT, up to FITTED_RANK_ROWS vectors a call. */
static gboolean
rank_fitted (AsModel *model, const AsTrace *trace, const AsFittedLens *fitted, const int *indexes,
             const int *positions, int n, const AsRankedRows *out, GCancellable *cancellable,
             GError **error)
{
  gsize D = (gsize) trace->d_model;
  int chunk = MIN (n, FITTED_RANK_ROWS);
  g_autofree float *vectors = g_try_new (float, (gsize) chunk *D); /* [chunk][D] */
  if (vectors == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate %d mapped vectors", chunk);
      return FALSE;
    }
  for (int r0 = 0; r0 < n; r0 += chunk)
    {
      int m = MIN (chunk, n - r0);
      for (int r = 0; r < m;)
        {
          /* the run of rows of one hidden state */
          int i = indexes[r0 + r], run = 1;
          while (r + run < m && indexes[r0 + r + run] == i)
            run++;
          if (i == trace->n_layer)
            for (int j = 0; j < run; j++)
              memcpy (vectors + (gsize) (r + j) * D,
                      as_trace_hidden (trace, i) + (gsize) positions[r0 + r + j] * D,
                      sizeof (float) * D);
          else if (!as_fitted_lens_map (trace, fitted, i, positions + r0 + r, run,
                                        vectors + (gsize) r * D, error))
            return FALSE;
          r += run;
        }
      AsRankedRows rows = ranked_rows_from (out, r0);
      if (!as_forward_rank_vectors (model, trace, vectors, m, &rows, cancellable, error))
        return FALSE;
    }
  return TRUE;
}

/* Every cell of LENS without kept logits, ranked as the head's product makes them: through the
 * final norm, or with FITTED through its maps. */
static gboolean
rank_cells (AsModel *model, const AsTrace *trace, const AsFittedLens *fitted, AsLens *lens, int k,
            GCancellable *cancellable, GError **error)
{
  int n_cells = lens->n_hidden * lens->n_positions, n = 0;
  g_autofree int *indexes = g_new (int, n_cells);
  g_autofree int *positions = g_new (int, n_cells);
  g_autofree int *cells = g_new (int, n_cells);
  for (int i = 0; i < lens->n_hidden; i++)
    for (int p = 0; p < lens->n_positions; p++)
      if (!kept_logits (trace, i, lens->positions[p]))
        {
          indexes[n] = i;
          positions[n] = lens->positions[p];
          cells[n++] = i * lens->n_positions + p;
        }
  if (n == 0)
    return TRUE;
  g_autofree int32_t *top_ids = g_new (int32_t, (gsize) n * k);
  g_autofree float *top_logits = g_new (float, (gsize) n *k);
  g_autofree float *top_probabilities = g_new (float, (gsize) n *k);
  g_autofree int *n_top = g_new (int, n);
  g_autofree int *target_rank = g_new (int, n);
  g_autofree float *target_probability = g_new (float, n);
  AsRankedRows out = { .k = k,
                       .target_id = lens->target_id,
                       .top_ids = top_ids,
                       .top_logits = top_logits,
                       .top_probabilities = top_probabilities,
                       .n_top = n_top,
                       .target_rank = target_rank,
                       .target_probability = target_probability };
  if (fitted != NULL
          ? !rank_fitted (model, trace, fitted, indexes, positions, n, &out, cancellable, error)
          : !as_forward_rank_cells (model, trace, indexes, positions, n, &out, cancellable, error))
    return FALSE;
  const AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  for (int r = 0; r < n; r++)
    {
      AsLensCell *cell = &lens->cells[cells[r]];
      gsize at = (gsize) r * k;
      cell->n_top = n_top[r];
      cell->top = as_predict_from_top (top_ids + at, top_logits + at, top_probabilities + at,
                                       n_top[r], tokenizer);
      cell->target_rank = lens->target_id >= 0 ? target_rank[r] : -1;
      cell->target_probability = lens->target_id >= 0 ? target_probability[r] : 0.0f;
    }
  return TRUE;
}

static void
lens_block_clear (LensBlock *b)
{
  g_free (b->indexes);
  g_free (b->positions);
  g_free (b->cells);
  g_free (b->logits);
  g_free (b->rows);
  g_free (b->top_ids);
  g_free (b->top_probabilities);
  g_free (b->n_top);
  if (b->team != NULL)
    as_worker_team_free (b->team);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LensBlock, lens_block_clear)

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
  k = MIN (k, V);
  gboolean ranked = as_forward_can_rank (model, trace, k);
  /* ranked: only the kept cells are read from a block, and their logits are the trace's */
  int block = ranked ? n_positions : MIN ((L + 1) * n_positions, as_forward_read_out_block (trace));
  g_autoptr (AsLens) lens = g_new0 (AsLens, 1);
  lens->n_hidden = L + 1;
  lens->n_positions = n_positions;
  lens->positions = g_memdup2 (positions, sizeof (int) * n_positions);
  lens->target_id = target_id;
  lens->cells = g_new0 (AsLensCell, (gsize) (L + 1) * n_positions);
  g_auto (LensBlock) b = {
    .model = model,
    .trace = trace,
    .fitted = fitted,
    .lens = lens,
    .k = k,
    .indexes = g_new (int, block),
    .positions = g_new (int, block),
    .cells = g_new (int, block),
    .logits = ranked ? NULL : g_try_new (float, (gsize) block *V),
    .rows = g_new (const float *, block),
    .top_ids = g_new (int32_t, (gsize) block * k),
    .top_probabilities = g_new (float, (gsize) block *k),
    .n_top = g_new (int, block),
    .team = as_worker_team_new (as_forward_threads ()),
  };
  if (!ranked)
    {
      if (b.logits == NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                       "could not allocate the logits of %d positions for the lens", block);
          return NULL;
        }
      /* every page of the block is written by each read-out */
      as_memory_advise_huge_pages (b.logits, sizeof (float) * (gsize) block * V);
    }
  if (ranked && !rank_cells (model, trace, fitted, lens, k, cancellable, error))
    return NULL;
  for (int i = 0; i <= L; i++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      for (int p = 0; p < n_positions; p++)
        if ((!ranked || kept_logits (trace, i, positions[p])) && !add_cell (&b, block, i, p, error))
          return NULL;
    }
  if (!flush_block (&b, error))
    return NULL;
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

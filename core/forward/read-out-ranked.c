/* read-out-ranked.c — hidden states read through the model's own output and ranked while the
 * output head's product makes them (as_forward_rank_cells: the logit lens's fast path).
 *
 * The logit lens of GPT-2 at 128 positions reads ~900 rows through a 50,257-row head: written
 * out, that is 180 MB of logits, read back once more to find each row's top K and normaliser.
 * Here the head's product (AMX tiles, matmul-amx-private.h) hands each unit of ~256 vocabulary
 * rows' sums for 32 positions to as_rank_unit (read-out-ranked-unit.c) while they are in the
 * core's cache: it applies the head's bias and soft-cap (AsHeadProduct, the steps as_head_logits
 * takes), keeps per (row, unit) the unit's largest logit, its normaliser Σ exp(l − max_u) and
 * how many of its tokens rank before the target, and merges the unit's tokens not below the
 * row's floor into the row's best K. join_row then joins the units in vocabulary order:
 *   max = max_u max_u,  Σ = Σ_u Σ_u · exp(max_u − max),  rank = Σ_u before_u,
 * so the result does not depend on how the units were shared among threads (nor does the best
 * K: the best of every token merged, in whatever order). The target's logit, which the counts
 * need before its unit comes, is the same product for the target's row alone (every element of
 * a tile product is the same sequence of operations wherever its row falls). The rows go through
 * in blocks whose per-unit summaries take at most RANK_STATE_BYTES (GPT-2: all ~900 rows in one
 * block, so the head is split once). */
#include "as-forward.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "family-private.h"
#include "kernels-private.h"
#include "matmul-amx-private.h"
#include "model-private.h"
#include "read-out-ranked-private.h"

#define RANK_STATE_BYTES (32u << 20)

/* What join_row needs beside the job. */
typedef struct
{
  const AsRankJob *job;
  const AsRankedRows *out;
  int r0; /* the block's first row in OUT */
} JoinJob;

/* Row R of the block from its units' summaries, in vocabulary order, into OUT (the team's block
 * function: rows are independent). */
static void
join_row (gpointer data, int r)
{
  const JoinJob *join = data;
  const AsRankJob *job = join->job;
  const AsRankedRows *out = join->out;
  const AsUnitSummary *s = job->summaries + (gsize) r * job->units;
  const AsRankBest *best = &job->best[r];
  int k = job->k, out_row = join->r0 + r;
  float max = -INFINITY;
  for (int u = 0; u < job->units; u++)
    max = MAX (max, s[u].max);
  double sum = 0.0;
  int before = 0;
  for (int u = 0; u < job->units; u++)
    {
      sum += s[u].sum * exp ((double) s[u].max - max);
      before += s[u].before;
    }
  out->n_top[out_row] = best->n;
  for (int i = 0; i < best->n; i++)
    {
      gsize at = (gsize) out_row * k + i;
      out->top_ids[at] = best->ids[i];
      out->top_logits[at] = best->logits[i];
      out->top_probabilities[at] = (float) (exp ((double) best->logits[i] - max) / sum);
    }
  if (job->target_id >= 0)
    {
      out->target_rank[out_row] = before;
      out->target_probability[out_row] = (float) (exp ((double) job->target_logits[r] - max) / sum);
    }
}

gboolean
as_forward_can_rank (AsModel *model, const AsTrace *trace, int k)
{
  g_return_val_if_fail (model != NULL && trace != NULL, FALSE);
  const AsConfig *c = as_model_get_config (model);
  const AsStack *stack = c->ops->stack;
  if (stack->final_norm == NULL || stack->head_product == NULL || k <= 0
      || k > AS_FORWARD_RANK_MAX_K || trace->vocab_size != c->vocab_size || trace->vocab_size <= 0
      || trace->d_model != c->n_embd || !as_amx_usable ())
    return FALSE;
  AsHeadProduct head;
  stack->head_product (c, as_model_get_weights (model), &head);
  return head.weight.dtype == AS_DTYPE_F32 || head.weight.dtype == AS_DTYPE_BF16;
}

/* Where a block's rows come from: VECTORS [n][D] already through the final norm, or hidden state
 * INDEXES[r] at POSITIONS[r] of TRACE. */
typedef struct
{
  const AsTrace *trace;
  const float *vectors;
  const int *indexes;
  const int *positions;
} RankSource;

/* X [n][D] = rows [R0, R0 + N) of SOURCE through the final norm (hidden[L] and given vectors as
 * they are), times the head's x_scale; NORMED [n][D] working memory. */
static void
block_vectors (const AsConfig *c, gconstpointer weights, AsWorkerTeam *team,
               const RankSource *source, int r0, int n, const AsHeadProduct *head, float *x,
               float *normed)
{
  const AsTrace *trace = source->trace;
  gsize D = (gsize) trace->d_model;
  if (source->vectors != NULL)
    memcpy (x, source->vectors + (gsize) r0 * D, sizeof (float) * D * n);
  else
    {
      for (int r = 0; r < n; r++)
        memcpy (x + r * D,
                as_trace_hidden (trace, source->indexes[r0 + r])
                    + (gsize) source->positions[r0 + r] * D,
                sizeof (float) * D);
      c->ops->stack->final_norm (c, weights, team, normed, x, n);
      for (int r = 0; r < n; r++)
        if (source->indexes[r0 + r] < trace->n_layer)
          memcpy (x + r * D, normed + r * D, sizeof (float) * D);
    }
  for (gsize i = 0; i < (gsize) n * D; i++)
    x[i] *= head->x_scale;
}

/* The target's logit in each of the block's N rows X: the head's product for its row alone. */
static void
target_logits (AsWorkerTeam *team, const AsHeadProduct *head, const float *x, int n, int D,
               int32_t target_id, float *out)
{
  gsize size = head->weight.dtype == AS_DTYPE_F32 ? sizeof (float) : sizeof (guint16);
  const char *row = (const char *) head->weight.data + size * (gsize) target_id * D;
  gboolean done = as_amx_matmul_transposed (team, out, x, row, head->weight.dtype, n, D, 1);
  g_assert (done); /* as_forward_can_rank said the tiles take this weight */
  for (int r = 0; r < n; r++)
    as_head_finish_row (head, out + r, target_id, 1);
}

/* The N rows of SOURCE ranked into OUT. */
static gboolean
rank_rows (AsModel *model, const RankSource *source, int n, const AsRankedRows *out,
           GCancellable *cancellable, GError **error)
{
  const AsTrace *trace = source->trace;
  g_return_val_if_fail (as_forward_can_rank (model, trace, out->k), FALSE);
  g_return_val_if_fail (out->target_id < trace->vocab_size, FALSE);
  const AsConfig *c = as_model_get_config (model);
  gconstpointer weights = as_model_get_weights (model);
  AsHeadProduct head;
  c->ops->stack->head_product (c, weights, &head);
  int D = trace->d_model, V = trace->vocab_size, k = out->k;
  int unit_rows = as_amx_unit_rows (head.weight.dtype, D);
  int units = (V + unit_rows - 1) / unit_rows;
  gsize per_row = (gsize) units * sizeof (AsUnitSummary) + sizeof (AsRankBest);
  int block = (int) MIN ((gsize) as_amx_rows_at_once (D), RANK_STATE_BYTES / per_row);
  block = MIN (MAX (block / 32 * 32, 32), n);
  g_autofree float *x = g_try_new (float, (gsize) block *D);
  g_autofree float *normed = g_try_new (float, (gsize) block *D);
  g_autofree float *target = g_try_new (float, block);
  g_autofree AsUnitSummary *summaries = g_try_new (AsUnitSummary, (gsize) units * block);
  g_autofree AsRankBest *best = g_try_new (AsRankBest, block);
  if (x == NULL || normed == NULL || target == NULL || summaries == NULL || best == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the working memory to rank %d positions", block);
      return FALSE;
    }
  g_autoptr (AsWorkerTeam) team = as_worker_team_new (as_forward_threads ());
  for (int r0 = 0; r0 < n; r0 += block)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      int rows = MIN (block, n - r0);
      block_vectors (c, weights, team, source, r0, rows, &head, x, normed);
      if (out->target_id >= 0)
        target_logits (team, &head, x, rows, D, out->target_id, target);
      for (int r = 0; r < rows; r++)
        best[r] = (AsRankBest){ .floor = -INFINITY };
      AsRankJob job = { .head = &head,
                        .k = k,
                        .rows = rows,
                        .units = units,
                        .target_id = out->target_id,
                        .target_logits = target,
                        .summaries = summaries,
                        .best = best };
      gboolean done = as_amx_matmul_visit (team, x, head.weight.data, head.weight.dtype, rows, D, V,
                                           as_rank_unit, &job);
      g_assert (done);
      JoinJob join = { .job = &job, .out = out, .r0 = r0 };
      as_worker_team_run_blocks (team, rows, join_row, &join);
    }
  return TRUE;
}

gboolean
as_forward_rank_cells (AsModel *model, const AsTrace *trace, const int *indexes,
                       const int *positions, int n, const AsRankedRows *out,
                       GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL && out != NULL && n > 0, FALSE);
  for (int i = 0; i < n; i++)
    {
      g_return_val_if_fail (indexes[i] >= 0 && indexes[i] <= trace->n_layer, FALSE);
      g_return_val_if_fail (positions[i] >= 0 && positions[i] < trace->n_tokens, FALSE);
    }
  RankSource source = { .trace = trace, .indexes = indexes, .positions = positions };
  return rank_rows (model, &source, n, out, cancellable, error);
}

gboolean
as_forward_rank_vectors (AsModel *model, const AsTrace *trace, const float *vectors, int n,
                         const AsRankedRows *out, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL && vectors != NULL && out != NULL && n > 0,
                        FALSE);
  RankSource source = { .trace = trace, .vectors = vectors };
  return rank_rows (model, &source, n, out, cancellable, error);
}

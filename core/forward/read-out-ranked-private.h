/* read-out-ranked-private.h — what the ranked read-out (read-out-ranked.c) keeps per unit of the
 * vocabulary and row, and the AsAmxSumsFunc that fills it (read-out-ranked-unit.c, compiled for
 * AVX-512 beside the AMX kernel: it runs on the tiles' sums, so only where they run). Private to
 * the core. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "as-forward.h"
#include "predict-private.h"
#include "stack-private.h"

G_BEGIN_DECLS

/* One unit's summary of one row. */
typedef struct
{
  double sum; /* Σ exp(l − max) over the unit */
  float max;  /* the unit's largest logit */
  int before; /* its tokens ranked before the target */
} AsUnitSummary;

/* A row's best K so far, shared by the threads that rank its units: taken under LOCK, FLOOR (its
 * K-th best once it has K, else -∞) also read without it. */
typedef struct
{
  int lock;
  int n;
  float floor;
  int32_t ids[AS_FORWARD_RANK_MAX_K];
  float logits[AS_FORWARD_RANK_MAX_K];
} AsRankBest;

typedef struct
{
  const AsHeadProduct *head;
  int k, rows, units;         /* ROWS: the block's rows */
  int32_t target_id;          /* or -1 */
  const float *target_logits; /* [rows] */
  AsUnitSummary *summaries;   /* [rows][units] */
  AsRankBest *best;           /* [rows] */
} AsRankJob;

/* Puts (L, ID) into the sorted list BEST, BEST_LOGITS [*N] of at most K when it ranks there;
 * FALSE when it does not (nor does anything ranked after it). */
static inline gboolean
as_rank_consider (int32_t *best, float *best_logits, int *n, int k, float l, int32_t id)
{
  if (*n == k && !as_predict_ranks_before (l, id, best_logits[k - 1], best[k - 1]))
    return FALSE;
  int pos = *n < k ? (*n)++ : k - 1;
  while (pos > 0 && as_predict_ranks_before (l, id, best_logits[pos - 1], best[pos - 1]))
    {
      best[pos] = best[pos - 1];
      best_logits[pos] = best_logits[pos - 1];
      pos--;
    }
  best[pos] = id;
  best_logits[pos] = l;
  return TRUE;
}

/* AsAmxSumsFunc (matmul-amx-private.h) on an AsRankJob: the head's bias and soft-cap on the
 * sums, then every row's summary of the unit, and its tokens that rank among the row's best so
 * far merged into them. */
void as_rank_unit (gpointer data, int unit, int v_begin, int rows, int p0, int positions,
                   float *sums, int ld);

G_END_DECLS

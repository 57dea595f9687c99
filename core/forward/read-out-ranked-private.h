/* read-out-ranked-private.h — what the ranked read-out (read-out-ranked.c) keeps per unit of the
 * vocabulary and row, and the AsAmxSumsFunc that fills it (read-out-ranked-unit.c, compiled for
 * AVX-512 beside the AMX kernel: it runs on the tiles' sums, so only where they run). Private to
 * the core. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "as-forward.h"
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

/* AsAmxSumsFunc (matmul-amx-private.h) on an AsRankJob: the head's bias and soft-cap on the
 * sums, then every row's summary of the unit, and its tokens that rank among the row's best so
 * far merged into them. */
void as_rank_unit (gpointer data, int unit, int v_begin, int rows, int p0, int positions,
                   float *sums, int ld);

G_END_DECLS

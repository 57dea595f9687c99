/* as-head-stats.h — what each attention head does, in four numbers and a label.
 *
 * Per head of one trace (P = its [T][T] attention, rows = queries i, columns = keys j):
 *
 * - entropy: mean over query rows of the normalised entropy -Σ_j P[i][j]·ln P[i][j] / ln(n_i),
 *   where n_i is the number of keys row i can see (i+1 when causal, T when bidirectional).
 *   0 = all weight on one key, 1 = uniform over the visible keys. A row that sees a single key
 *   (row 0 of a causal model, every row of a one-token text) has normalised entropy 0 by
 *   definition (ln 1 = 0) and carries no information, so such rows are left out of the mean;
 *   without them a uniform causal head scores exactly 1 rather than (T-1)/T.
 * - previous: mean over rows i >= 1 of P[i][i-1].
 * - first: mean over rows i >= 1 of P[i][0]. Row 0 is skipped: its weight on token 0 is
 *   attention to itself (and trivially 1 in a causal model); it counts under "self".
 * - self: mean of P[i][i] over rows i >= 1 when causal (row 0 is trivially 1), over all rows
 *   when bidirectional.
 *
 * A statistic with no row to average (a one-token text) is NaN for that trace.
 *
 * Label: "previous", "first" or "self" when that share is >= 0.5 (the largest if several; on an
 * exact tie the earlier in that order), else "mixed". In a causal model row 1's previous token is
 * also the first token, so a first-token head also shows a previous share of 1/(T-1).
 *
 * Aggregation over sentences: each statistic is the unweighted mean over sentences of the
 * per-sentence value (every sentence counts once whatever its length), over the sentences where it
 * is defined; labels are computed from the aggregated shares. All traces must come from models
 * with the same number of layers and heads.
 *
 * Rankings: for each statistic, all heads sorted by decreasing value (NaN last; ties: lower
 * layer, then lower head first). */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

typedef enum
{
  AS_HEAD_STAT_ENTROPY,
  AS_HEAD_STAT_PREVIOUS,
  AS_HEAD_STAT_FIRST,
  AS_HEAD_STAT_SELF,
  AS_HEAD_STAT_COUNT,
} AsHeadStatKind;

typedef enum
{
  AS_HEAD_PATTERN_MIXED,
  AS_HEAD_PATTERN_PREVIOUS,
  AS_HEAD_PATTERN_FIRST,
  AS_HEAD_PATTERN_SELF,
} AsHeadPattern;

typedef struct
{
  int n_layer;             /* L */
  int n_head;              /* H */
  int n_traces;            /* sentences aggregated */
  double *values;          /* [L][H][AS_HEAD_STAT_COUNT] */
  AsHeadPattern *patterns; /* [L][H] */
} AsHeadStats;

/* "entropy", "previous", "first", "self". */
const char *as_head_stat_kind_to_string (AsHeadStatKind kind);
/* "mixed", "previous", "first", "self". */
const char *as_head_pattern_to_string (AsHeadPattern pattern);

/* The four statistics of one head, P [T][T]; OUT [AS_HEAD_STAT_COUNT]. */
void as_head_stats_of_matrix (double *out, const float *attn, int n_tokens, gboolean causal);

/* The label for the shares in VALUES [AS_HEAD_STAT_COUNT]. */
AsHeadPattern as_head_pattern_classify (const double *values);

static inline double
as_head_stats_get (const AsHeadStats *stats, int layer, int head, AsHeadStatKind kind)
{
  return stats->values[((gsize) layer * stats->n_head + head) * AS_HEAD_STAT_COUNT + kind];
}

/* Statistics of one trace. */
AsHeadStats *as_head_stats_compute (const AsTrace *trace);
void as_head_stats_free (AsHeadStats *stats);

/* Heads sorted by KIND as described above: [L·H] flat indices layer·H + head. Free with g_free. */
int *as_head_stats_rank (const AsHeadStats *stats, AsHeadStatKind kind);

/* Accumulates sentences one trace at a time (so a long --lines file never holds all traces). */
typedef struct _AsHeadStatsAccumulator AsHeadStatsAccumulator;

AsHeadStatsAccumulator *as_head_stats_accumulator_new (void);
void as_head_stats_accumulator_free (AsHeadStatsAccumulator *acc);

/* Adds TRACE; fails with AS_ERROR_SHAPE when its layers/heads differ from the first trace's. */
gboolean as_head_stats_accumulate (AsHeadStatsAccumulator *acc, const AsTrace *trace,
                                   GError **error);

/* The aggregated statistics so far; fails with AS_ERROR_INPUT when nothing was accumulated. */
AsHeadStats *as_head_stats_accumulator_finish (const AsHeadStatsAccumulator *acc, GError **error);

/* Aggregates N_TRACES traces at once (same rules). */
AsHeadStats *as_head_stats_aggregate (AsTrace *const *traces, int n_traces, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHeadStats, as_head_stats_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHeadStatsAccumulator, as_head_stats_accumulator_free)

G_END_DECLS

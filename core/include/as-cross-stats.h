/* as-cross-stats.h — what each cross-attention head of a translation model does.
 *
 * Per head of one encoder–decoder trace (P = its cross-attention [T][S], rows = target tokens i
 * (the decoder input), columns = source tokens j; as-trace.h):
 *
 * - entropy: mean over rows of the normalised entropy -Σ_j P[i][j]·ln P[i][j] / ln S (0: all
 *   weight on one source token, 1: uniform); NaN for a one-token source.
 * - eos: mean over rows of the weight on the source's last token (the tokenizer's </s>), the
 *   "no-op" place a head parks its attention when it has nothing to read.
 * - max: mean over rows of the largest weight in the row: how sharply the head aligns.
 * - diagonal: mean over rows of the weight on the source tokens within one position of the
 *   proportional diagonal j* = round(i·(S−1)/(T−1)) (j* = 0 when T = 1): the share a monotone
 *   word-for-word alignment would give.
 *
 * Label: "eos" when eos ≥ 0.5; else "diagonal" when diagonal ≥ 0.5; else "focused" when max ≥ 0.5;
 * else "broad" when entropy ≥ 0.9; else "mixed". Aggregation over sentences: the unweighted mean of
 * the per-sentence values (NaN values left out), labels from the means. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

typedef enum
{
  AS_CROSS_STAT_ENTROPY,
  AS_CROSS_STAT_EOS,
  AS_CROSS_STAT_MAX,
  AS_CROSS_STAT_DIAGONAL,
  AS_CROSS_STAT_COUNT,
} AsCrossStatKind;

typedef struct
{
  int n_layer, n_head; /* the decoder's */
  int n_traces;        /* sentences added */
  double *values;      /* [L][H][AS_CROSS_STAT_COUNT]: means after as_cross_stats_finish */
  const char **labels; /* [L][H] static strings, after as_cross_stats_finish */
  /*< private >*/
  int *defined; /* [L][H][AS_CROSS_STAT_COUNT] sentences where each value is defined */
} AsCrossStats;

/* "entropy", "eos", "max", "diagonal". */
const char *as_cross_stat_kind_to_string (AsCrossStatKind kind);

/* The statistics of one head's cross-attention P [T][S] into OUT [AS_CROSS_STAT_COUNT]. */
void as_cross_stats_of_matrix (double *out, const float *attn, int n_target, int n_source);

/* Sentences are added one trace at a time (a long --lines file never holds all its traces). */
AsCrossStats *as_cross_stats_new (void);

/* Adds the cross-attention of TRACE; fails with AS_ERROR_INPUT for a trace without
 * cross-attention, AS_ERROR_SHAPE when its layers/heads differ from the first trace's. */
gboolean as_cross_stats_add (AsCrossStats *stats, const AsTrace *trace, GError **error);

/* Turns the sums into means and labels; fails with AS_ERROR_INPUT when nothing was added. */
gboolean as_cross_stats_finish (AsCrossStats *stats, GError **error);

void as_cross_stats_free (AsCrossStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsCrossStats, as_cross_stats_free)

G_END_DECLS

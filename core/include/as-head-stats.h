/* as-head-stats.h — what each attention head does, in a few numbers and a label.
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
 * Bidirectional traces (encoders, the toy models) have three more, NaN for causal traces (a
 * causal head cannot look ahead, and decoders have no [CLS]/[SEP]):
 *
 * - next: mean over rows i <= T-2 of P[i][i+1].
 * - cls: mean over the rows that are not a [CLS] position of the total attention to the [CLS]
 *   positions; the [CLS] positions are where the trace's ids equal its special_ids[AS_SPECIAL_CLS]
 *   (RoBERTa's <s>). With the usual "[CLS] ... [SEP]" input that is the mean over rows i >= 1 of
 *   P[i][0].
 * - sep: the same for the attention to all [SEP] positions (RoBERTa's </s>), over the same rows
 *   (a [SEP] row counts, its weight on itself included).
 *   cls and sep are NaN for a text without such a token (or without another row).
 *
 * A statistic with no row to average (a one-token text) is NaN for that trace.
 *
 * Label: the first of "previous", "first", "self" (causal) — "previous", "cls", "first", "self",
 * "next", "sep" (bidirectional) — whose share is >= 0.5 (the largest if several; on an exact tie
 * the earlier in that order, so a head on an input's leading [CLS] is "cls"); else, for a
 * bidirectional trace, "broad" when the entropy is >= AS_HEAD_BROAD_ENTROPY; else "mixed". In a
 * causal model row 1's previous token is also the first token, so a first-token head also shows a
 * previous share of 1/(T-1).
 *
 * Aggregation over sentences: each statistic is the unweighted mean over sentences of the
 * per-sentence value (every sentence counts once whatever its length), over the sentences where it
 * is defined; labels are computed from the aggregated shares. The sums are exact until the mean
 * is taken (as-shard-sum.h), so the result does not depend on the order of the sentences, and the
 * partial sums of the shards of a corpus merge to it bit for bit (as_head_stats_accumulator_to_json
 * and _merge_json). All traces must come from models
 * with the same number of layers and heads, and be all causal or all bidirectional.
 *
 * Rankings: for each statistic, all heads sorted by decreasing value (NaN last; ties: lower
 * layer, then lower head first). */
#pragma once

#include <gio/gio.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

typedef enum
{
  AS_HEAD_STAT_ENTROPY,
  AS_HEAD_STAT_PREVIOUS,
  AS_HEAD_STAT_FIRST,
  AS_HEAD_STAT_SELF,
  AS_HEAD_STAT_NEXT, /* bidirectional only */
  AS_HEAD_STAT_CLS,  /* bidirectional only */
  AS_HEAD_STAT_SEP,  /* bidirectional only */
  AS_HEAD_STAT_COUNT,
} AsHeadStatKind;

typedef enum
{
  AS_HEAD_PATTERN_MIXED,
  AS_HEAD_PATTERN_PREVIOUS,
  AS_HEAD_PATTERN_FIRST,
  AS_HEAD_PATTERN_SELF,
  AS_HEAD_PATTERN_NEXT, /* bidirectional only, as the three below */
  AS_HEAD_PATTERN_CLS,
  AS_HEAD_PATTERN_SEP,
  AS_HEAD_PATTERN_BROAD, /* no share reaches 0.5 and the entropy is high */
  AS_HEAD_PATTERN_COUNT,
} AsHeadPattern;

/* The normalised entropy from which a bidirectional head without a dominant share is "broad". */
#define AS_HEAD_BROAD_ENTROPY 0.9

typedef struct
{
  int n_layer;             /* L */
  int n_head;              /* H */
  int n_traces;            /* sentences aggregated */
  gboolean bidirectional;  /* the traces were bidirectional: next, cls and sep are defined */
  double *values;          /* [L][H][AS_HEAD_STAT_COUNT] */
  AsHeadPattern *patterns; /* [L][H] */
} AsHeadStats;

/* "entropy", "previous", "first", "self", "next", "cls", "sep". */
const char *as_head_stat_kind_to_string (AsHeadStatKind kind);
/* "mixed", "previous", "first", "self", "next", "cls", "sep", "broad". */
const char *as_head_pattern_to_string (AsHeadPattern pattern);

/* Whether KIND is defined for causal or bidirectional traces (the first four always). */
gboolean as_head_stat_kind_applies (AsHeadStatKind kind, gboolean bidirectional);

/* The statistics of one head, P [T][T]; OUT [AS_HEAD_STAT_COUNT]. IS_CLS and IS_SEP [T] mark the
 * [CLS] and [SEP] positions (either may be NULL: none). */
void as_head_stats_of_matrix (double *out, const float *attn, int n_tokens, gboolean causal,
                              const gboolean *is_cls, const gboolean *is_sep);

/* The label for the statistics in VALUES [AS_HEAD_STAT_COUNT] of a causal or bidirectional
 * trace. */
AsHeadPattern as_head_pattern_classify (const double *values, gboolean bidirectional);

static inline double
as_head_stats_get (const AsHeadStats *stats, int layer, int head, AsHeadStatKind kind)
{
  return stats->values[((gsize) layer * stats->n_head + head) * AS_HEAD_STAT_COUNT + kind];
}

/* Statistics of one trace. */
AsHeadStats *as_head_stats_compute (const AsTrace *trace);
/* The same, checking CANCELLABLE (may be NULL) before each head: NULL once it is cancelled (a
 * long text's heads take seconds each, and the window drops what it no longer shows). */
AsHeadStats *as_head_stats_compute_cancellable (const AsTrace *trace, GCancellable *cancellable);
void as_head_stats_free (AsHeadStats *stats);

/* Heads sorted by KIND as described above: [L·H] flat indices layer·H + head. Free with g_free. */
int *as_head_stats_rank (const AsHeadStats *stats, AsHeadStatKind kind);

/* Accumulates sentences one trace at a time (so a long --lines file never holds all traces). */
typedef struct _AsHeadStatsAccumulator AsHeadStatsAccumulator;

AsHeadStatsAccumulator *as_head_stats_accumulator_new (void);
void as_head_stats_accumulator_free (AsHeadStatsAccumulator *acc);

/* Adds TRACE; fails with AS_ERROR_SHAPE when its layers/heads differ from the first trace's, or
 * it is causal where the first was bidirectional or the other way round. */
gboolean as_head_stats_accumulate (AsHeadStatsAccumulator *acc, const AsTrace *trace,
                                   GError **error);

/* The aggregated statistics so far; fails with AS_ERROR_INPUT when nothing was accumulated. */
AsHeadStats *as_head_stats_accumulator_finish (const AsHeadStatsAccumulator *acc, GError **error);

/* The accumulator's state as a shard's partial result (as-shard.h): {"sentences": S, "n_layer": L,
 * "n_head": H, "bidirectional": B, "sums": [L·H·AS_HEAD_STAT_COUNT exact sums, as-shard-sum.h],
 * "counts": [the same number of counts]}; sums and counts are empty when S is 0. */
JsonNode *as_head_stats_accumulator_to_json (const AsHeadStatsAccumulator *acc);

/* Adds a partial result NODE written by as_head_stats_accumulator_to_json to ACC, exactly (the
 * same bits as accumulating its sentences into ACC). Fails naming WHAT (the part file) when NODE
 * is malformed (AS_ERROR_FORMAT) or its heads differ from ACC's (AS_ERROR_SHAPE). */
gboolean as_head_stats_accumulator_merge_json (AsHeadStatsAccumulator *acc, JsonNode *node,
                                               const char *what, GError **error);

/* Aggregates N_TRACES traces at once (same rules). */
AsHeadStats *as_head_stats_aggregate (AsTrace *const *traces, int n_traces, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHeadStats, as_head_stats_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHeadStatsAccumulator, as_head_stats_accumulator_free)

G_END_DECLS

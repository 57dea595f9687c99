/* head-stats.c — per-head entropy and previous/first/self shares (and, for bidirectional traces,
 * next/[CLS]/[SEP] shares), their labels and rankings, and their aggregation over sentences. The
 * definitions are in as-head-stats.h. */
#include "as-head-stats.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-rank.h"
#include "as-shard-sum.h"

static const char *const kind_names[] = {
  [AS_HEAD_STAT_ENTROPY] = "entropy", [AS_HEAD_STAT_PREVIOUS] = "previous",
  [AS_HEAD_STAT_FIRST] = "first",     [AS_HEAD_STAT_SELF] = "self",
  [AS_HEAD_STAT_NEXT] = "next",       [AS_HEAD_STAT_CLS] = "cls",
  [AS_HEAD_STAT_SEP] = "sep",
};

static const char *const pattern_names[] = {
  [AS_HEAD_PATTERN_MIXED] = "mixed", [AS_HEAD_PATTERN_PREVIOUS] = "previous",
  [AS_HEAD_PATTERN_FIRST] = "first", [AS_HEAD_PATTERN_SELF] = "self",
  [AS_HEAD_PATTERN_NEXT] = "next",   [AS_HEAD_PATTERN_CLS] = "cls",
  [AS_HEAD_PATTERN_SEP] = "sep",     [AS_HEAD_PATTERN_BROAD] = "broad",
};

const char *
as_head_stat_kind_to_string (AsHeadStatKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (kind_names), NULL);
  return kind_names[kind];
}

const char *
as_head_pattern_to_string (AsHeadPattern pattern)
{
  g_return_val_if_fail ((guint) pattern < G_N_ELEMENTS (pattern_names), NULL);
  return pattern_names[pattern];
}

/* Normalised entropy of ROW [N_VISIBLE] (N_VISIBLE >= 2). */
static double
row_entropy (const float *row, int n_visible)
{
  double h = 0;
  for (int j = 0; j < n_visible; j++)
    if (row[j] > 0)
      h -= (double) row[j] * log ((double) row[j]);
  return h / log ((double) n_visible);
}

static double
mean_or_nan (double sum, int count)
{
  return count > 0 ? sum / count : NAN;
}

gboolean
as_head_stat_kind_applies (AsHeadStatKind kind, gboolean bidirectional)
{
  return kind <= AS_HEAD_STAT_SELF || bidirectional;
}

/* Running sums of one head's statistics over its rows, taken in order (a block of rows at a
 * time, or all at once: the same sums in the same order, so the same bits). */
typedef struct
{
  double entropy, previous, first, self, next, cls, sep;
  int n_entropy, n_self, cls_rows, sep_rows;
} RowSums;

/* Σ_{j marked} ROW[j] into *SUM for a row that is not a [CLS] position (one more of *ROWS). */
static void
add_marked (double *sum, int *rows, const float *row, int n_tokens, const gboolean *marked,
            gboolean is_cls_row)
{
  if (is_cls_row)
    return;
  for (int j = 0; j < n_tokens; j++)
    if (marked[j])
      *sum += row[j];
  (*rows)++;
}

/* Rows ROW0 .. ROW0+N_ROWS−1 of a head, ATTN [N_ROWS][T], into S. */
static void
row_sums_add (RowSums *s, const float *attn, int row0, int n_rows, int n_tokens, gboolean causal,
              const gboolean *is_cls, const gboolean *is_sep)
{
  for (int r = 0; r < n_rows; r++)
    {
      int i = row0 + r;
      const float *row = attn + (gsize) r * n_tokens;
      int n_visible = causal ? i + 1 : n_tokens;
      if (n_visible >= 2)
        {
          s->entropy += row_entropy (row, n_visible);
          s->n_entropy++;
        }
      if (i >= 1)
        {
          s->previous += row[i - 1];
          s->first += row[0];
        }
      if (i + 1 < n_tokens)
        s->next += row[i + 1];
      if (i >= 1 || !causal)
        {
          s->self += row[i];
          s->n_self++;
        }
      if (!causal && is_cls != NULL)
        add_marked (&s->cls, &s->cls_rows, row, n_tokens, is_cls, is_cls[i]);
      if (!causal && is_sep != NULL)
        add_marked (&s->sep, &s->sep_rows, row, n_tokens, is_sep, is_cls != NULL && is_cls[i]);
    }
}

static gboolean
any_marked (const gboolean *marked, int n_tokens)
{
  for (int j = 0; marked != NULL && j < n_tokens; j++)
    if (marked[j])
      return TRUE;
  return FALSE;
}

/* The statistics of S over a head of N_TOKENS rows: means, NaN where undefined (a share of
 * marked keys with no position marked: NaN). */
static void
row_sums_finish (double *out, const RowSums *s, int n_tokens, gboolean causal,
                 const gboolean *is_cls, const gboolean *is_sep)
{
  out[AS_HEAD_STAT_ENTROPY] = mean_or_nan (s->entropy, s->n_entropy);
  out[AS_HEAD_STAT_PREVIOUS] = mean_or_nan (s->previous, n_tokens - 1);
  out[AS_HEAD_STAT_FIRST] = mean_or_nan (s->first, n_tokens - 1);
  out[AS_HEAD_STAT_SELF] = mean_or_nan (s->self, s->n_self);
  out[AS_HEAD_STAT_NEXT] = causal ? NAN : mean_or_nan (s->next, n_tokens - 1);
  out[AS_HEAD_STAT_CLS]
      = causal || !any_marked (is_cls, n_tokens) ? NAN : mean_or_nan (s->cls, s->cls_rows);
  out[AS_HEAD_STAT_SEP]
      = causal || !any_marked (is_sep, n_tokens) ? NAN : mean_or_nan (s->sep, s->sep_rows);
}

void
as_head_stats_of_matrix (double *out, const float *attn, int n_tokens, gboolean causal,
                         const gboolean *is_cls, const gboolean *is_sep)
{
  /* attn [T][T] */
  RowSums s = { 0 };
  row_sums_add (&s, attn, 0, n_tokens, n_tokens, causal, is_cls, is_sep);
  row_sums_finish (out, &s, n_tokens, causal, is_cls, is_sep);
}

/* Rows per tile when a trace's head is read a block at a time. */
#define STATS_ROWS 256

/* OUT = the statistics of head HEAD of LAYER of TRACE, read STATS_ROWS rows at a time (TILE
 * [STATS_ROWS][T]): never the whole [T][T], the same bits as as_head_stats_of_matrix. */
static void
head_stats_of_trace (double *out, float *tile, const AsTrace *t, int layer, int head,
                     const gboolean *is_cls, const gboolean *is_sep)
{
  int T = t->n_tokens;
  RowSums s = { 0 };
  for (int r0 = 0; r0 < T; r0 += STATS_ROWS)
    {
      int rows = MIN (STATS_ROWS, T - r0);
      as_trace_attention_tile (t, layer, head, r0, rows, 0, T, tile, T);
      row_sums_add (&s, tile, r0, rows, T, t->causal, is_cls, is_sep);
    }
  row_sums_finish (out, &s, T, t->causal, is_cls, is_sep);
}

AsHeadPattern
as_head_pattern_classify (const double *values, gboolean bidirectional)
{
  typedef struct
  {
    AsHeadStatKind kind;
    AsHeadPattern pattern;
  } Share;
  static const Share causal_shares[] = {
    { AS_HEAD_STAT_PREVIOUS, AS_HEAD_PATTERN_PREVIOUS },
    { AS_HEAD_STAT_FIRST, AS_HEAD_PATTERN_FIRST },
    { AS_HEAD_STAT_SELF, AS_HEAD_PATTERN_SELF },
  };
  static const Share bidirectional_shares[] = {
    { AS_HEAD_STAT_PREVIOUS, AS_HEAD_PATTERN_PREVIOUS },
    { AS_HEAD_STAT_CLS, AS_HEAD_PATTERN_CLS },
    { AS_HEAD_STAT_FIRST, AS_HEAD_PATTERN_FIRST },
    { AS_HEAD_STAT_SELF, AS_HEAD_PATTERN_SELF },
    { AS_HEAD_STAT_NEXT, AS_HEAD_PATTERN_NEXT },
    { AS_HEAD_STAT_SEP, AS_HEAD_PATTERN_SEP },
  };
  const Share *shares = bidirectional ? bidirectional_shares : causal_shares;
  gsize n_shares
      = bidirectional ? G_N_ELEMENTS (bidirectional_shares) : G_N_ELEMENTS (causal_shares);
  AsHeadPattern best = AS_HEAD_PATTERN_MIXED;
  double best_value = 0.5;
  for (gsize s = 0; s < n_shares; s++)
    {
      double v = values[shares[s].kind];
      /* NaN compares false: an undefined share never labels a head */
      if (v >= best_value && (best == AS_HEAD_PATTERN_MIXED || v > best_value))
        {
          best = shares[s].pattern;
          best_value = v;
        }
    }
  if (best == AS_HEAD_PATTERN_MIXED && bidirectional
      && values[AS_HEAD_STAT_ENTROPY] >= AS_HEAD_BROAD_ENTROPY)
    return AS_HEAD_PATTERN_BROAD;
  return best;
}

static AsHeadStats *
head_stats_new (int n_layer, int n_head)
{
  AsHeadStats *stats = g_new0 (AsHeadStats, 1);
  stats->n_layer = n_layer;
  stats->n_head = n_head;
  stats->values = g_new0 (double, (gsize) n_layer *n_head *AS_HEAD_STAT_COUNT);
  stats->patterns = g_new0 (AsHeadPattern, (gsize) n_layer * n_head);
  return stats;
}

static void
head_stats_label (AsHeadStats *stats)
{
  for (int e = 0; e < stats->n_layer * stats->n_head; e++)
    stats->patterns[e] = as_head_pattern_classify (stats->values + (gsize) e * AS_HEAD_STAT_COUNT,
                                                   stats->bidirectional);
}

static gboolean accumulate (AsHeadStatsAccumulator *acc, const AsTrace *trace,
                            GCancellable *cancellable, GError **error);

AsHeadStats *
as_head_stats_compute_cancellable (const AsTrace *trace, GCancellable *cancellable)
{
  g_autoptr (AsHeadStatsAccumulator) acc = as_head_stats_accumulator_new ();
  /* neither can fail: one trace always matches itself and makes the accumulator non-empty */
  if (!accumulate (acc, trace, cancellable, NULL))
    return NULL;
  return as_head_stats_accumulator_finish (acc, NULL);
}

AsHeadStats *
as_head_stats_compute (const AsTrace *trace)
{
  return as_head_stats_compute_cancellable (trace, NULL);
}

void
as_head_stats_free (AsHeadStats *stats)
{
  if (stats == NULL)
    return;
  g_free (stats->values);
  g_free (stats->patterns);
  g_free (stats);
}

int *
as_head_stats_rank (const AsHeadStats *stats, AsHeadStatKind kind)
{
  int n = stats->n_layer * stats->n_head;
  g_autofree double *values = g_new (double, MAX (n, 1)); /* [L·H] */
  for (int e = 0; e < n; e++)
    values[e] = stats->values[(gsize) e * AS_HEAD_STAT_COUNT + kind];
  return as_rank_descending (values, n);
}

struct _AsHeadStatsAccumulator
{
  int n_layer, n_head;
  int n_traces;
  gboolean bidirectional;
  /* [L][H][AS_HEAD_STAT_COUNT] exact sums of the defined per-sentence values (as-shard-sum.h:
   * the same bits in any order, so shards of a corpus merge to the single-process result) */
  AsShardSum *sums;
  int *counts; /* [L][H][AS_HEAD_STAT_COUNT] sentences where the value is defined */
  double *one; /* [AS_HEAD_STAT_COUNT] scratch */
};

AsHeadStatsAccumulator *
as_head_stats_accumulator_new (void)
{
  AsHeadStatsAccumulator *acc = g_new0 (AsHeadStatsAccumulator, 1);
  acc->one = g_new0 (double, AS_HEAD_STAT_COUNT);
  return acc;
}

void
as_head_stats_accumulator_free (AsHeadStatsAccumulator *acc)
{
  if (acc == NULL)
    return;
  g_free (acc->sums);
  g_free (acc->counts);
  g_free (acc->one);
  g_free (acc);
}

/* Sizes the empty ACC for L × H heads. */
static void
accumulator_shape (AsHeadStatsAccumulator *acc, int n_layer, int n_head)
{
  gsize n = (gsize) n_layer * n_head * AS_HEAD_STAT_COUNT;
  acc->n_layer = n_layer;
  acc->n_head = n_head;
  g_free (acc->sums);
  g_free (acc->counts);
  acc->sums = g_new0 (AsShardSum, MAX (n, 1));
  acc->counts = g_new0 (int, MAX (n, 1));
}

gboolean
as_head_stats_accumulate (AsHeadStatsAccumulator *acc, const AsTrace *trace, GError **error)
{
  return accumulate (acc, trace, NULL, error);
}

/* as_head_stats_accumulate, checking CANCELLABLE before each head (FALSE, nothing counted, when
 * it was cancelled). */
static gboolean
accumulate (AsHeadStatsAccumulator *acc, const AsTrace *trace, GCancellable *cancellable,
            GError **error)
{
  if (acc->n_traces == 0)
    accumulator_shape (acc, trace->n_layer, trace->n_head);
  else if (trace->n_layer != acc->n_layer || trace->n_head != acc->n_head)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "head statistics: trace %d has %d layers × %d heads, expected %d × %d like "
                   "the first trace",
                   acc->n_traces, trace->n_layer, trace->n_head, acc->n_layer, acc->n_head);
      return FALSE;
    }
  else if ((!trace->causal) != acc->bidirectional)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "head statistics: trace %d is %s but the first trace was %s", acc->n_traces,
                   trace->causal ? "causal" : "bidirectional",
                   trace->causal ? "bidirectional" : "causal");
      return FALSE;
    }
  acc->bidirectional = !trace->causal;
  int T = trace->n_tokens;
  g_autofree gboolean *is_cls = g_new (gboolean, T); /* [T] */
  g_autofree gboolean *is_sep = g_new (gboolean, T); /* [T] */
  for (int i = 0; i < T; i++)
    {
      is_cls[i] = trace->ids[i] == trace->special_ids[AS_SPECIAL_CLS];
      is_sep[i] = trace->ids[i] == trace->special_ids[AS_SPECIAL_SEP];
    }
  g_autofree float *tile = g_new (float, (gsize) MIN (STATS_ROWS, T) * T); /* [256][T] */
  int n = trace->n_layer * trace->n_head;
  g_autofree double *one = g_new (double, (gsize) n *AS_HEAD_STAT_COUNT); /* [L·H][K] */
  for (int e = 0; e < n; e++)
    {
      if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
        return FALSE;
      head_stats_of_trace (acc->one, tile, trace, e / trace->n_head, e % trace->n_head, is_cls,
                           is_sep);
      memcpy (one + (gsize) e * AS_HEAD_STAT_COUNT, acc->one, sizeof (double) * AS_HEAD_STAT_COUNT);
    }
  /* counted only once every head is in: a cancelled trace leaves the accumulator as it was */
  for (int e = 0; e < n; e++)
    {
      memcpy (acc->one, one + (gsize) e * AS_HEAD_STAT_COUNT, sizeof (double) * AS_HEAD_STAT_COUNT);
      for (int k = 0; k < AS_HEAD_STAT_COUNT; k++)
        if (!isnan (acc->one[k]))
          {
            as_shard_sum_add (&acc->sums[(gsize) e * AS_HEAD_STAT_COUNT + k], acc->one[k]);
            acc->counts[(gsize) e * AS_HEAD_STAT_COUNT + k]++;
          }
    }
  acc->n_traces++;
  return TRUE;
}

AsHeadStats *
as_head_stats_accumulator_finish (const AsHeadStatsAccumulator *acc, GError **error)
{
  if (acc->n_traces == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "head statistics: no sentences to aggregate");
      return NULL;
    }
  AsHeadStats *stats = head_stats_new (acc->n_layer, acc->n_head);
  stats->n_traces = acc->n_traces;
  stats->bidirectional = acc->bidirectional;
  gsize n = (gsize) acc->n_layer * acc->n_head * AS_HEAD_STAT_COUNT;
  for (gsize e = 0; e < n; e++)
    stats->values[e] = mean_or_nan (as_shard_sum_value (&acc->sums[e]), acc->counts[e]);
  head_stats_label (stats);
  return stats;
}

AsHeadStats *
as_head_stats_aggregate (AsTrace *const *traces, int n_traces, GError **error)
{
  g_autoptr (AsHeadStatsAccumulator) acc = as_head_stats_accumulator_new ();
  for (int i = 0; i < n_traces; i++)
    if (!as_head_stats_accumulate (acc, traces[i], error))
      return NULL;
  return as_head_stats_accumulator_finish (acc, error);
}

JsonNode *
as_head_stats_accumulator_to_json (const AsHeadStatsAccumulator *acc)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "sentences");
  json_builder_add_int_value (b, acc->n_traces);
  json_builder_set_member_name (b, "n_layer");
  json_builder_add_int_value (b, acc->n_layer);
  json_builder_set_member_name (b, "n_head");
  json_builder_add_int_value (b, acc->n_head);
  json_builder_set_member_name (b, "bidirectional");
  json_builder_add_boolean_value (b, acc->bidirectional);
  gsize n = acc->n_traces > 0 ? (gsize) acc->n_layer * acc->n_head * AS_HEAD_STAT_COUNT : 0;
  json_builder_set_member_name (b, "sums");
  json_builder_begin_array (b);
  for (gsize e = 0; e < n; e++)
    as_shard_sum_to_json (b, &acc->sums[e]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "counts");
  json_builder_begin_array (b);
  for (gsize e = 0; e < n; e++)
    json_builder_add_int_value (b, acc->counts[e]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gboolean
part_int (JsonObject *o, const char *member, gint64 *out, const char *what, GError **error)
{
  JsonNode *node = json_object_get_member (o, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64 || json_node_get_int (node) < 0
      || json_node_get_int (node) > G_MAXINT)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the head statistics' \"%s\" is missing or not a count", what, member);
      return FALSE;
    }
  *out = json_node_get_int (node);
  return TRUE;
}

/* The array MEMBER of O with exactly N elements, or NULL with ERROR. */
static JsonArray *
part_array (JsonObject *o, const char *member, gsize n, const char *what, GError **error)
{
  JsonNode *node = json_object_get_member (o, member);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node)
      || json_array_get_length (json_node_get_array (node)) != n)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the head statistics' \"%s\" is missing or does not hold %" G_GSIZE_FORMAT
                   " values",
                   what, member, n);
      return NULL;
    }
  return json_node_get_array (node);
}

/* Adds the non-empty part O of L × H heads (read from WHAT) to ACC. */
static gboolean
merge_counts_and_sums (AsHeadStatsAccumulator *acc, JsonObject *o, gsize n, const char *what,
                       GError **error)
{
  JsonArray *sums = part_array (o, "sums", n, what, error);
  JsonArray *counts = sums != NULL ? part_array (o, "counts", n, what, error) : NULL;
  if (counts == NULL)
    return FALSE;
  for (gsize e = 0; e < n; e++)
    {
      AsShardSum sum;
      g_autofree char *label
          = g_strdup_printf ("%s: head statistics sum %" G_GSIZE_FORMAT, what, e);
      if (!as_shard_sum_from_json (&sum, json_array_get_element (sums, e), label, error))
        return FALSE;
      JsonNode *count = json_array_get_element (counts, e);
      if (!JSON_NODE_HOLDS_VALUE (count) || json_node_get_value_type (count) != G_TYPE_INT64
          || json_node_get_int (count) < 0 || json_node_get_int (count) > G_MAXINT - acc->counts[e])
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: head statistics count %" G_GSIZE_FORMAT " is not a count", what, e);
          return FALSE;
        }
      as_shard_sum_merge (&acc->sums[e], &sum);
      acc->counts[e] += (int) json_node_get_int (count);
    }
  return TRUE;
}

gboolean
as_head_stats_accumulator_merge_json (AsHeadStatsAccumulator *acc, JsonNode *node, const char *what,
                                      GError **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: the head statistics are not an object",
                   what);
      return FALSE;
    }
  JsonObject *o = json_node_get_object (node);
  gint64 sentences, n_layer, n_head;
  if (!part_int (o, "sentences", &sentences, what, error)
      || !part_int (o, "n_layer", &n_layer, what, error)
      || !part_int (o, "n_head", &n_head, what, error))
    return FALSE;
  if (sentences == 0)
    return TRUE; /* an empty shard adds nothing */
  gboolean bidirectional = json_object_get_boolean_member_with_default (o, "bidirectional", FALSE);
  if (acc->n_traces == 0)
    {
      accumulator_shape (acc, (int) n_layer, (int) n_head);
      acc->bidirectional = bidirectional;
    }
  else if (n_layer != acc->n_layer || n_head != acc->n_head || bidirectional != acc->bidirectional)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: head statistics of %d × %d %s heads, expected %d × %d %s like the first",
                   what, (int) n_layer, (int) n_head, bidirectional ? "bidirectional" : "causal",
                   acc->n_layer, acc->n_head, acc->bidirectional ? "bidirectional" : "causal");
      return FALSE;
    }
  if (sentences > G_MAXINT - acc->n_traces
      || !merge_counts_and_sums (acc, o, (gsize) n_layer * n_head * AS_HEAD_STAT_COUNT, what,
                                 error))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: too many sentences", what);
      return FALSE;
    }
  acc->n_traces += (int) sentences;
  return TRUE;
}

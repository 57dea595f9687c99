/* test-head-stats.c — head statistics on traces with constructed patterns (previous-token,
 * first-token, self and uniform heads; for encoders next-token, [CLS], [SEP] and broad heads on a
 * "[CLS] A [SEP] B [SEP]" input), labels, rankings, aggregation over sentences, and random
 * attention against the numpy reference. */
#include <math.h>
#include <string.h>

#include "analysis-fixtures.h"
#include "as-error.h"
#include "as-head-stats.h"
#include "check-close.h"

enum
{
  PATTERN_PREVIOUS,
  PATTERN_FIRST,
  PATTERN_SELF,
  PATTERN_UNIFORM,
};

/* Writes the [T][T] attention of PATTERN (causal: only j <= i visible; row 0 of the previous and
 * first heads puts its weight on token 0, the only key it sees). */
static void
fill_pattern (float *p, int n_tokens, int pattern, gboolean causal)
{
  memset (p, 0, sizeof (float) * n_tokens * n_tokens);
  for (int i = 0; i < n_tokens; i++)
    {
      float *row = p + i * n_tokens;
      int n_visible = causal ? i + 1 : n_tokens;
      switch (pattern)
        {
        case PATTERN_PREVIOUS:
          row[MAX (i - 1, 0)] = 1;
          break;
        case PATTERN_FIRST:
          row[0] = 1;
          break;
        case PATTERN_SELF:
          row[i] = 1;
          break;
        default:
          for (int j = 0; j < n_visible; j++)
            row[j] = 1.0f / n_visible;
        }
    }
}

/* L = 2, H = 2: (0,0) previous, (0,1) first, (1,0) self, (1,1) uniform. */
static AsTrace *
pattern_trace_new (int n_tokens, gboolean causal)
{
  AsTrace *t = fixture_trace_new (2, 2, n_tokens, 4, 2, NULL, causal);
  for (int e = 0; e < 4; e++)
    fill_pattern (as_trace_attn_matrices (t, e / 2, e % 2), n_tokens, e, causal);
  return t;
}

static void
assert_stats (const AsHeadStats *s, int layer, int head, double entropy, double previous,
              double first, double self, const char *label)
{
  g_test_message ("head %d.%d: entropy %.9g previous %.9g first %.9g self %.9g label %s", layer,
                  head, as_head_stats_get (s, layer, head, AS_HEAD_STAT_ENTROPY),
                  as_head_stats_get (s, layer, head, AS_HEAD_STAT_PREVIOUS),
                  as_head_stats_get (s, layer, head, AS_HEAD_STAT_FIRST),
                  as_head_stats_get (s, layer, head, AS_HEAD_STAT_SELF),
                  as_head_pattern_to_string (s->patterns[layer * s->n_head + head]));
  g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, layer, head, AS_HEAD_STAT_ENTROPY), entropy,
                                  1e-6);
  g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, layer, head, AS_HEAD_STAT_PREVIOUS),
                                  previous, 1e-7);
  g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, layer, head, AS_HEAD_STAT_FIRST), first,
                                  1e-7);
  g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, layer, head, AS_HEAD_STAT_SELF), self,
                                  1e-7);
  g_assert_cmpstr (as_head_pattern_to_string (s->patterns[layer * s->n_head + head]), ==, label);
}

static void
assert_ranking (const AsHeadStats *s, AsHeadStatKind kind, const int *expected)
{
  g_autofree int *order = as_head_stats_rank (s, kind);
  for (int e = 0; e < s->n_layer * s->n_head; e++)
    g_assert_cmpint (order[e], ==, expected[e]);
}

static void
test_causal_patterns (void)
{
  g_autoptr (AsTrace) t = pattern_trace_new (5, TRUE);
  g_autoptr (AsHeadStats) s = as_head_stats_compute (t);
  g_assert_cmpint (s->n_traces, ==, 1);
  /* rows 1..4 are one-hot: entropy exactly 0. Row 1's previous token is also the first token,
   * so the previous head has first = 1/4 and the first head previous = 1/4. */
  assert_stats (s, 0, 0, 0, 1, 0.25, 0, "previous");
  assert_stats (s, 0, 1, 0, 0.25, 1, 0, "first");
  assert_stats (s, 1, 0, 0, 0, 0, 1, "self");
  /* uniform over i+1 keys: every share is the mean over i = 1..4 of 1/(i+1) = 77/240 */
  assert_stats (s, 1, 1, 1, 77.0 / 240, 77.0 / 240, 77.0 / 240, "mixed");

  assert_ranking (s, AS_HEAD_STAT_ENTROPY, (const int[]){ 3, 0, 1, 2 });
  assert_ranking (s, AS_HEAD_STAT_PREVIOUS, (const int[]){ 0, 3, 1, 2 });
  assert_ranking (s, AS_HEAD_STAT_FIRST, (const int[]){ 1, 3, 0, 2 });
  assert_ranking (s, AS_HEAD_STAT_SELF, (const int[]){ 2, 3, 0, 1 });
}

static void
test_bidirectional_patterns (void)
{
  g_autoptr (AsTrace) t = pattern_trace_new (4, FALSE);
  g_autoptr (AsHeadStats) s = as_head_stats_compute (t);
  /* bidirectional: row 0 counts for self (P[0][0] of the previous/first heads is 1) */
  assert_stats (s, 0, 0, 0, 1, 1.0 / 3, 0.25, "previous");
  assert_stats (s, 0, 1, 0, 1.0 / 3, 1, 0.25, "first");
  assert_stats (s, 1, 0, 0, 0, 0, 1, "self");
  /* uniform over all keys: entropy 1, so an encoder calls it broad */
  assert_stats (s, 1, 1, 1, 0.25, 0.25, 0.25, "broad");
  g_assert_true (s->bidirectional);
  /* next: rows 0..2 of P[i][i+1]; none for the previous, first and self heads */
  const double next[] = { 0, 0, 0, 0.25 };
  for (int e = 0; e < 4; e++)
    {
      g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, e / 2, e % 2, AS_HEAD_STAT_NEXT),
                                      next[e], 1e-7);
      /* the fixture's ids are 0..T-1 and it has no special tokens: no [CLS]/[SEP] share */
      g_assert_true (isnan (as_head_stats_get (s, e / 2, e % 2, AS_HEAD_STAT_CLS)));
      g_assert_true (isnan (as_head_stats_get (s, e / 2, e % 2, AS_HEAD_STAT_SEP)));
    }
}

/* "[CLS] a b [SEP] c d [SEP]" (ids 101 5 6 102 7 8 102) with four encoder heads: (0,0) next
 * token (the last row on itself), (0,1) every row on [CLS], (1,0) every row on the [SEP] that
 * ends its text, (1,1) uniform. */
static void
test_encoder_patterns (void)
{
  const int T = 7;
  const int32_t ids[] = { 101, 5, 6, 102, 7, 8, 102 };
  g_autoptr (AsTrace) t = fixture_trace_new (2, 2, T, 4, 2, NULL, FALSE);
  memcpy (t->ids, ids, sizeof ids);
  t->special_ids[AS_SPECIAL_CLS] = 101;
  t->special_ids[AS_SPECIAL_SEP] = 102;
  for (int i = 0; i < T; i++)
    {
      as_trace_attn_matrices (t, 0, 0)[i * T + MIN (i + 1, T - 1)] = 1;
      as_trace_attn_matrices (t, 0, 1)[i * T] = 1;
      as_trace_attn_matrices (t, 1, 0)[i * T + (i <= 3 ? 3 : 6)] = 1;
      for (int j = 0; j < T; j++)
        as_trace_attn_matrices (t, 1, 1)[i * T + j] = 1.0f / T;
    }
  g_autoptr (AsHeadStats) s = as_head_stats_compute (t);
  /* rows 1..6 count for cls and sep (row 0 is the [CLS] itself) */
  const struct
  {
    double next, cls, sep, first;
    const char *label;
  } want[] = {
    { 1, 0, 3.0 / 6, 0, "next" }, /* rows 2, 5 (next) and 6 (itself) attend to a [SEP] */
    { 0, 1, 0, 1, "cls" },        /* a tie with first: cls comes first */
    { 2.0 / 6, 0, 1, 0, "sep" },  /* rows 2 and 5: the next token is their [SEP] */
    { 1.0 / T, 1.0 / T, 2.0 / T, 1.0 / T, "broad" },
  };
  for (int e = 0; e < 4; e++)
    {
      int l = e / 2, h = e % 2;
      g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, l, h, AS_HEAD_STAT_NEXT), want[e].next,
                                      1e-7);
      g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, l, h, AS_HEAD_STAT_CLS), want[e].cls,
                                      1e-7);
      g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, l, h, AS_HEAD_STAT_SEP), want[e].sep,
                                      1e-7);
      g_assert_cmpfloat_with_epsilon (as_head_stats_get (s, l, h, AS_HEAD_STAT_FIRST),
                                      want[e].first, 1e-7);
      g_assert_cmpstr (as_head_pattern_to_string (s->patterns[e]), ==, want[e].label);
    }

  /* a causal trace cannot join bidirectional ones */
  g_autoptr (AsHeadStatsAccumulator) acc = as_head_stats_accumulator_new ();
  g_autoptr (AsTrace) causal = fixture_trace_new (2, 2, T, 4, 2, NULL, TRUE);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_head_stats_accumulate (acc, t, &error));
  g_assert_false (as_head_stats_accumulate (acc, causal, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "trace 1 is causal but the first trace was "
                                            "bidirectional"));
}

static void
test_labels (void)
{
  const struct
  {
    double values[AS_HEAD_STAT_COUNT];
    AsHeadPattern pattern;
  } cases[] = {
    { { 0, 0.5, 0, 0 }, AS_HEAD_PATTERN_PREVIOUS }, /* >= 0.5 counts */
    { { 0, 0.4999, 0.3, 0.2 }, AS_HEAD_PATTERN_MIXED },
    { { 0, 0.6, 0.6, 0.1 }, AS_HEAD_PATTERN_PREVIOUS }, /* exact tie: earlier wins */
    { { 0, 0.5, 0.7, 0.7 }, AS_HEAD_PATTERN_FIRST },
    { { 0, 0.55, 0.6, 0.65 }, AS_HEAD_PATTERN_SELF }, /* the largest of several */
    { { 0, NAN, NAN, NAN }, AS_HEAD_PATTERN_MIXED },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (as_head_pattern_classify (cases[i].values, FALSE), ==, cases[i].pattern);
  g_assert_cmpstr (as_head_stat_kind_to_string (AS_HEAD_STAT_SELF), ==, "self");

  /* bidirectional: entropy previous first self next cls sep */
  const struct
  {
    double values[AS_HEAD_STAT_COUNT];
    AsHeadPattern pattern;
  } encoder[] = {
    { { 0.3, 0.1, 0.6, 0.1, 0.1, 0.6, 0.1 }, AS_HEAD_PATTERN_CLS }, /* tie: cls before first */
    { { 0.3, 0.1, 0.1, 0.1, 0.7, 0.0, 0.2 }, AS_HEAD_PATTERN_NEXT },
    { { 0.3, 0.1, 0.1, 0.1, 0.2, 0.1, 0.55 }, AS_HEAD_PATTERN_SEP },
    { { 0.3, 0.5, 0.1, 0.1, 0.5, 0.1, 0.1 }, AS_HEAD_PATTERN_PREVIOUS },
    { { 0.95, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 }, AS_HEAD_PATTERN_BROAD },
    { { 0.9, 0.1, 0.1, 0.1, 0.1, NAN, NAN }, AS_HEAD_PATTERN_BROAD }, /* >= 0.9 counts */
    { { 0.85, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 }, AS_HEAD_PATTERN_MIXED },
    { { 0.95, 0.1, 0.1, 0.6, 0.1, 0.1, 0.1 }, AS_HEAD_PATTERN_SELF },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (encoder); i++)
    g_assert_cmpint (as_head_pattern_classify (encoder[i].values, TRUE), ==, encoder[i].pattern);
  /* a decoder never gets the encoder labels: a high entropy is still "mixed", next is ignored */
  g_assert_cmpint (as_head_pattern_classify (encoder[4].values, FALSE), ==, AS_HEAD_PATTERN_MIXED);
  g_assert_cmpint (as_head_pattern_classify (encoder[1].values, FALSE), ==, AS_HEAD_PATTERN_MIXED);
  g_assert_cmpstr (as_head_pattern_to_string (AS_HEAD_PATTERN_BROAD), ==, "broad");
  g_assert_cmpstr (as_head_stat_kind_to_string (AS_HEAD_STAT_SEP), ==, "sep");
}

static void
test_one_token (void)
{
  g_autoptr (AsTrace) t = pattern_trace_new (1, TRUE);
  g_autoptr (AsHeadStats) s = as_head_stats_compute (t);
  for (int k = 0; k < AS_HEAD_STAT_COUNT; k++)
    g_assert_true (isnan (as_head_stats_get (s, 0, 0, k)));
  g_assert_cmpint (s->patterns[0], ==, AS_HEAD_PATTERN_MIXED);
}

static void
test_aggregate (void)
{
  g_autoptr (AsTrace) five = pattern_trace_new (5, TRUE);
  g_autoptr (AsTrace) three = fixture_trace_new (2, 2, 3, 4, 2, NULL, TRUE);
  for (int e = 0; e < 4; e++)
    fill_pattern (as_trace_attn_matrices (three, e / 2, e % 2), 3, PATTERN_UNIFORM, TRUE);
  g_autoptr (AsTrace) one = pattern_trace_new (1, TRUE);
  g_autoptr (GError) error = NULL;

  /* the 3-token uniform trace: entropy 1, each share (1/2 + 1/3) / 2 = 5/12; the 1-token trace
   * defines no statistic and so does not move the means */
  AsTrace *traces[] = { five, three, one };
  g_autoptr (AsHeadStats) s = as_head_stats_aggregate (traces, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpint (s->n_traces, ==, 3);
  const double u5 = 77.0 / 240, u3 = 5.0 / 12;
  assert_stats (s, 0, 0, 0.5, (1 + u3) / 2, (0.25 + u3) / 2, u3 / 2, "previous");
  assert_stats (s, 0, 1, 0.5, (0.25 + u3) / 2, (1 + u3) / 2, u3 / 2, "first");
  assert_stats (s, 1, 0, 0.5, u3 / 2, u3 / 2, (1 + u3) / 2, "self");
  assert_stats (s, 1, 1, 1, (u5 + u3) / 2, (u5 + u3) / 2, (u5 + u3) / 2, "mixed");

  /* the accumulator gives the same, and refuses a trace of another shape */
  g_autoptr (AsHeadStatsAccumulator) acc = as_head_stats_accumulator_new ();
  g_assert_null (as_head_stats_accumulator_finish (acc, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
  g_assert_true (as_head_stats_accumulate (acc, five, &error));
  g_assert_true (as_head_stats_accumulate (acc, three, &error));
  g_autoptr (AsTrace) other = fixture_trace_new (3, 2, 3, 4, 2, NULL, TRUE);
  g_assert_false (as_head_stats_accumulate (acc, other, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "3 layers × 2 heads"));
  g_assert_nonnull (strstr (error->message, "expected 2 × 2"));
  g_clear_error (&error);
  g_autoptr (AsHeadStats) s2 = as_head_stats_accumulator_finish (acc, &error);
  g_assert_no_error (error);
  g_assert_cmpint (s2->n_traces, ==, 2);
  for (int e = 0; e < 4 * AS_HEAD_STAT_COUNT; e++)
    if (as_head_stat_kind_applies (e % AS_HEAD_STAT_COUNT, FALSE))
      g_assert_cmpfloat_with_epsilon (s2->values[e], s->values[e], 1e-12);
    else
      g_assert_true (isnan (s2->values[e]) && isnan (s->values[e]));
}

/* Random attention against the numpy reference; the bidirectional trace reads "[CLS] … [SEP] …
 * [SEP]" (positions 0; 4 and 8). */
static void
test_reference_random (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  const int L = 3, H = 4, T = 9, K = AS_HEAD_STAT_COUNT;
  for (int causal = 0; causal < 2; causal++)
    {
      g_autoptr (AsTrace) t = fixture_trace_new (L, H, T, 8, 2, NULL, causal);
      fixture_random_attention (t->attn, L * H, T, causal, rand);
      t->ids[4] = t->ids[8] = 100;
      t->special_ids[AS_SPECIAL_CLS] = 0;
      t->special_ids[AS_SPECIAL_SEP] = 100;
      g_autoptr (AsHeadStats) s = as_head_stats_compute (t);
      g_autofree char *shape = g_strdup_printf ("%d,%d,%d,%d", L, H, T, causal);
      g_autofree float *expected = fixture_reference_run_args (
          "headstats", t->attn, (gsize) L * H * T * T, shape, "0", "4,8", (gsize) L * H * K);
      if (expected == NULL)
        return;
      /* the kinds that apply, in both; the others must be NaN in both */
      g_autofree float *actual = g_new (float, L *H *K);
      g_autofree float *wanted = g_new (float, L *H *K);
      int n = 0;
      for (int e = 0; e < L * H * K; e++)
        if (as_head_stat_kind_applies (e % K, !causal))
          {
            actual[n] = (float) s->values[e];
            wanted[n++] = expected[e];
          }
        else
          g_assert_true (isnan (s->values[e]) && isnan (expected[e]));
      g_assert_cmpint (n, ==, L * H * (causal ? 4 : K));
      check_close (causal ? "head stats causal vs numpy" : "head stats bidirectional vs numpy",
                   actual, wanted, n, 1e-6, 0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/head-stats/causal-patterns", test_causal_patterns);
  g_test_add_func ("/core/head-stats/bidirectional-patterns", test_bidirectional_patterns);
  g_test_add_func ("/core/head-stats/encoder-patterns", test_encoder_patterns);
  g_test_add_func ("/core/head-stats/labels", test_labels);
  g_test_add_func ("/core/head-stats/one-token", test_one_token);
  g_test_add_func ("/core/head-stats/aggregate", test_aggregate);
  g_test_add_func ("/core/head-stats/reference-random", test_reference_random);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

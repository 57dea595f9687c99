/* test-long-analysis.c — head statistics and the comparison of two texts read a trace a block of
 * rows at a time (never a whole [T][T] of a trace on demand, never [L][H][T][T] of differences)
 * and give the same bits as from the matrices.
 *
 * - Head statistics of GPT-2 (attnscope-mini, causal, 128 tokens) and BERT on a pair
 *   (bidirectional: next, [CLS] and [SEP] shares): the same values on demand as with the
 *   matrices, and as as_head_stats_of_matrix of every whole head.
 * - The comparison of two GPT-2 texts of 128 tokens (positions and tokens aligned): head and
 *   layer changes the same bits on demand; no differences kept on demand; a head's difference
 *   computed when asked equals the kept one. */
#include <math.h>
#include <string.h>

#include "as-compare.h"
#include "as-forward.h"
#include "as-head-stats.h"
#include "as-model.h"

static AsTrace *
run_ids (AsModel *model, int T, int seed, AsAttentionStorage storage)
{
  g_autofree int32_t *ids = g_new (int32_t, T);
  for (int t = 0; t < T; t++)
    ids[t] = (t % 9 == 0 ? t * 37 + seed : t * 37 + 11) % as_model_get_config (model)->vocab_size;
  AsForwardOptions options = { .attention = storage };
  g_autoptr (GError) error = NULL;
  AsTrace *trace = as_forward (model, ids, T, &options, &error);
  g_assert_no_error (error);
  return trace;
}

static void
assert_same_doubles (const double *a, const double *b, gsize n, const char *what)
{
  for (gsize i = 0; i < n; i++)
    if (!(isnan (a[i]) && isnan (b[i])) && memcmp (a + i, b + i, sizeof (double)) != 0)
      g_error ("%s: entry %" G_GSIZE_FORMAT ": %.17g against %.17g", what, i, a[i], b[i]);
}

static void
check_stats (AsTrace *held, AsTrace *on, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsHeadStats) s_held = as_head_stats_aggregate (&held, 1, &error);
  g_assert_no_error (error);
  g_autoptr (AsHeadStats) s_on = as_head_stats_aggregate (&on, 1, &error);
  g_assert_no_error (error);
  gsize n = (gsize) held->n_layer * held->n_head * AS_HEAD_STAT_COUNT;
  assert_same_doubles (s_held->values, s_on->values, n, what);
  /* and as the whole matrix gives them */
  int T = held->n_tokens;
  g_autofree gboolean *is_cls = g_new (gboolean, T), *is_sep = g_new (gboolean, T);
  for (int i = 0; i < T; i++)
    {
      is_cls[i] = held->ids[i] == held->special_ids[AS_SPECIAL_CLS];
      is_sep[i] = held->ids[i] == held->special_ids[AS_SPECIAL_SEP];
    }
  int defined = 0;
  for (int e = 0; e < held->n_layer * held->n_head; e++)
    {
      double one[AS_HEAD_STAT_COUNT];
      as_head_stats_of_matrix (one,
                               as_trace_attn_matrices (held, e / held->n_head, e % held->n_head), T,
                               held->causal, is_cls, is_sep);
      for (int k = 0; k < AS_HEAD_STAT_COUNT; k++)
        {
          double v = s_on->values[(gsize) e * AS_HEAD_STAT_COUNT + k];
          g_assert_true (isnan (one[k]) == isnan (v));
          if (!isnan (v))
            {
              g_assert_cmpfloat (fabs (v - one[k]), <=, 1e-12 * MAX (1.0, fabs (v)));
              defined++;
            }
        }
    }
  g_test_message ("%s: %d statistics the same on demand", what, defined);
  g_assert_cmpint (defined, >, 0);
}

static void
test_head_stats (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) gpt2 = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) held = run_ids (gpt2, 128, 5, AS_ATTENTION_MATRICES);
  g_autoptr (AsTrace) on = run_ids (gpt2, 128, 5, AS_ATTENTION_ON_DEMAND);
  check_stats (held, on, "attnscope-mini, 128 tokens");

  g_autoptr (AsModel) bert = as_model_load ("attnscope-mini-bert", &error);
  g_assert_no_error (error);
  AsForwardOptions m = { .attention = AS_ATTENTION_MATRICES };
  AsForwardOptions d = { .attention = AS_ATTENTION_ON_DEMAND };
  const char *x = "the cat sat on the mat .", *y = "a dog ran in the park all day .";
  g_autoptr (AsTrace) bh = as_forward_pair (bert, x, y, FALSE, &m, &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) bo = as_forward_pair (bert, x, y, FALSE, &d, &error);
  g_assert_no_error (error);
  g_assert_false (as_trace_attention_held (bo));
  check_stats (bh, bo, "attnscope-mini-bert, a pair");
}

static void
test_compare (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) gpt2 = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) ha = run_ids (gpt2, 128, 5, AS_ATTENTION_MATRICES);
  g_autoptr (AsTrace) hb = run_ids (gpt2, 128, 7, AS_ATTENTION_MATRICES);
  g_autoptr (AsTrace) oa = run_ids (gpt2, 128, 5, AS_ATTENTION_ON_DEMAND);
  g_autoptr (AsTrace) ob = run_ids (gpt2, 128, 7, AS_ATTENTION_ON_DEMAND);
  g_autoptr (AsComparison) ch = as_compare_traces (ha, hb, &error);
  g_assert_no_error (error);
  g_autoptr (AsComparison) co = as_compare_traces (oa, ob, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ch->attention_diff);
  g_assert_null (co->attention_diff);
  g_assert_true (co->attention_available);
  int L = ch->n_layer, n = L * ch->n_head, T = 128;
  g_assert_cmpint (co->n_pairs, ==, ch->n_pairs);
  g_assert_cmpint (co->n_pairs, >, 64);
  assert_same_doubles (ch->head_change, co->head_change, n, "head change");
  assert_same_doubles (ch->layer_change, co->layer_change, L, "layer change");
  assert_same_doubles (ch->aligned_head_change, co->aligned_head_change, n, "aligned head change");
  assert_same_doubles (ch->aligned_layer_change, co->aligned_layer_change, L,
                       "aligned layer change");
  g_assert_cmpfloat (ch->head_change[0], >, 0.0);
  g_autofree float *dh = g_new (float, T *T), *dd = g_new (float, T *T);
  for (int align = AS_ALIGN_TOKENS; align <= AS_ALIGN_POSITIONS; align++)
    {
      g_assert_true (as_comparison_head_difference (dh, ch, ha, hb, 2, 3, align));
      g_assert_true (as_comparison_head_difference (dd, co, oa, ob, 2, 3, align));
      g_assert_cmpmem (dh, T * T * sizeof (float), dd, T * T * sizeof (float));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/long-analysis/head-stats", test_head_stats);
  g_test_add_func ("/long-analysis/compare", test_compare);
  return g_test_run ();
}

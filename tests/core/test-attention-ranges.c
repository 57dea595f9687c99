/* test-attention-ranges.c — the value ranges of a trace's attention (as-attention-ranges.h) and
 * the mean over heads of its cross-attention (as-rollout.h), on hand-built traces: a causal
 * model counts only the cells on and below the diagonal of the rows after the first, a
 * bidirectional one every cell; cross-attention counts every cell and skips a NaN; the cross mean
 * is the self-attention mean's own function (bit-identical on the same numbers). */
#include <math.h>
#include <string.h>

#include "analysis-fixtures.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-attention-ranges.h"
#include "as-rollout.h"
#include "check-close.h"

/* L = 1, H = 2, T = 3: two causal softmax heads. */
static const float causal_attn[18] = {
  1, 0, 0, 0.3f, 0.7f, 0, 0.2f,  0.5f,  0.3f, /* head 0 */
  1, 0, 0, 0.9f, 0.1f, 0, 0.05f, 0.05f, 0.9f, /* head 1 */
};

static AsTrace *
causal_trace (gboolean causal)
{
  AsTrace *t = fixture_trace_new (1, 2, 3, 4, 2, NULL, causal);
  memcpy (t->attn, causal_attn, sizeof causal_attn);
  return t;
}

static void
check_ranges (const double *r, const double *expected, int n)
{
  for (int i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (r[i], expected[i], 1e-7);
}

static void
test_self_attention (void)
{
  /* causal: the first row (1 on itself) and the zeros above the diagonal do not count;
   * bidirectional: every cell counts */
  const double expected[2][6] = { { 0.05, 0.9, 0.2, 0.7, 0.05, 0.9 }, { 0, 1, 0, 1, 0, 1 } };
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (AsTrace) t = causal_trace (k == 0);
      g_autofree double *r = as_trace_attention_ranges (t);
      check_ranges (r, expected[k], 6);
    }
}

/* A decoder trace of L = 1, H = 2, T = 2 target tokens over S = 3 source tokens. */
static AsTrace *
cross_trace (const float *cross /* [1][2][2][3] */)
{
  AsTrace *t = fixture_trace_new (1, 2, 2, 4, 2, NULL, TRUE);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_trace_set_source (t, fixture_trace_new (1, 2, 3, 4, 2, NULL, FALSE), &error));
  g_assert_no_error (error);
  memcpy (t->cross_attn, cross, sizeof (float) * 12);
  return t;
}

static void
test_cross (void)
{
  const float cross[12] = {
    0.5f, 0.25f, 0.25f, 0.1f, 0.1f, 0.8f, /* head 0 */
    0.6f, NAN,   0.4f,  0.3f, 0.3f, 0.4f, /* head 1, one NaN */
  };
  g_autoptr (AsTrace) t = cross_trace (cross);
  g_autofree double *r = as_trace_cross_attention_ranges (t);
  const double expected[6] = { 0.1, 0.8, 0.1, 0.8, 0.3, 0.6 };
  check_ranges (r, expected, 6);

  g_autofree float *mean = as_trace_cross_mean_heads (t); /* [1][2][3] */
  /* a NaN weight makes its cell's mean NaN (compared apart) */
  const float expected_mean[6] = { 0.55f, 0, 0.325f, 0.2f, 0.2f, 0.6f };
  g_assert_true (isnan (mean[1]));
  mean[1] = 0;
  check_close ("cross mean over heads", mean, expected_mean, 6, 1e-7, 0);
}

static void
test_cross_mean_is_the_mean (void)
{
  /* T = S = 3 and the cross-attention a copy of the self-attention: the two means agree bit for
   * bit, as one function computes both. */
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autoptr (AsTrace) t = fixture_trace_new (2, 3, 3, 4, 2, NULL, TRUE);
  fixture_random_attention (t->attn, 6, 3, TRUE, rand);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_trace_set_source (t, fixture_trace_new (2, 3, 3, 4, 2, NULL, FALSE), &error));
  memcpy (t->cross_attn, t->attn, sizeof (float) * 2 * 3 * 9);
  g_autofree float *self = as_trace_mean_heads (t);
  g_autofree float *cross = as_trace_cross_mean_heads (t);
  g_assert_cmpmem (self, sizeof (float) * 18, cross, sizeof (float) * 18);
}

/* A trace that computes attention on demand: its ranges read 64 query rows at a time (of a
 * causal stack only the keys up to the block) are the held matrices' to the bit — GPT-2
 * (causal) and BERT (bidirectional), a text of two blocks. */
static void
test_on_demand (void)
{
  const char *models[] = { "attnscope-mini", "attnscope-mini-bert" };
  GString *text = g_string_new (NULL);
  for (int i = 0; i < 7; i++)
    g_string_append (text, "The man hit the car, and then the car hit the man. ");
  for (gsize m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AsModel) model = as_model_load (models[m], &error);
      g_assert_no_error (error);
      AsForwardOptions held_options = { .attention = AS_ATTENTION_MATRICES };
      AsForwardOptions on_options = { .attention = AS_ATTENTION_ON_DEMAND };
      g_autoptr (AsTrace) held = as_forward_text (model, text->str, TRUE, &held_options, &error);
      g_assert_no_error (error);
      g_autoptr (AsTrace) on = as_forward_text (model, text->str, TRUE, &on_options, &error);
      g_assert_no_error (error);
      g_assert_true (as_trace_attention_held (held));
      g_assert_false (as_trace_attention_held (on));
      g_assert_cmpint (on->n_tokens, >, 64);
      g_autofree double *a = as_trace_attention_ranges (held);
      g_autofree double *b = as_trace_attention_ranges (on);
      gsize n = 2 + 2 * (gsize) held->n_layer * held->n_head;
      for (gsize i = 0; i < n; i++)
        g_assert_cmpfloat (a[i], ==, b[i]);
      g_test_message ("%s, %d tokens: %" G_GSIZE_FORMAT " ranges equal, all heads %g to %g",
                      models[m], on->n_tokens, n, b[0], b[1]);
    }
  g_string_free (text, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/attention-ranges/self-attention", test_self_attention);
  g_test_add_func ("/core/attention-ranges/cross", test_cross);
  g_test_add_func ("/core/attention-ranges/cross-mean-is-the-mean", test_cross_mean_is_the_mean);
  g_test_add_func ("/core/attention-ranges/on-demand", test_on_demand);
  return g_test_run ();
}

/* test-perplexity.c — per-token log-probabilities and perplexity (core/as-perplexity.h) on
 * traces whose logits are set by hand, so every expected value is computed here in closed form:
 * log softmax of (0, log 2, log 5) is log of (1/8, 2/8, 5/8). */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-perplexity.h"
#include "check-close.h"

/* A causal trace of T tokens over a vocabulary of 3 with the given ids and, at every position,
 * the logits (0, log 2, log 5) + SHIFT·t (a shift must not change the probabilities). */
static AsTrace *
make_trace (const int32_t *ids, int n_tokens, gboolean all_logits, double shift)
{
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_trace_new (1, 1, n_tokens, 2, 2, 3, all_logits, &error);
  g_assert_no_error (error);
  t->causal = TRUE;
  for (int i = 0; i < n_tokens; i++)
    t->ids[i] = ids[i];
  for (int r = 0; r < t->logits_rows; r++)
    {
      float *row = t->logits + (gsize) r * 3; /* [V] */
      row[0] = (float) (0.0 + shift * r);
      row[1] = (float) (log (2.0) + shift * r);
      row[2] = (float) (log (5.0) + shift * r);
    }
  return t;
}

static void
test_known_values (void)
{
  const int32_t ids[] = { 1, 2, 0, 1 };
  g_autoptr (AsTrace) t = make_trace (ids, 4, TRUE, 100.0);
  double logprob[3]; /* [T-1] */
  g_autoptr (GError) error = NULL;
  g_assert_true (as_token_logprobs (logprob, t, &error));
  g_assert_no_error (error);
  /* predicted: ids 2, 0, 1 -> 5/8, 1/8, 2/8; the logits near 100·t are float32, rounded by up
   * to 1e-5 */
  g_assert_cmpfloat_with_epsilon (logprob[0], log (5.0 / 8), 3e-5);
  g_assert_cmpfloat_with_epsilon (logprob[1], log (1.0 / 8), 3e-5);
  g_assert_cmpfloat_with_epsilon (logprob[2], log (2.0 / 8), 3e-5);

  AsPerplexity acc = { 0 };
  g_assert_true (as_perplexity_add (&acc, t, &error));
  g_assert_cmpint (acc.n_predicted, ==, 3);
  g_assert_cmpint (acc.n_texts, ==, 1);
  double nll = -(log (5.0 / 8) + log (1.0 / 8) + log (2.0 / 8));
  g_assert_cmpfloat_with_epsilon (acc.nll, -(logprob[0] + logprob[1] + logprob[2]), 1e-12);
  g_assert_cmpfloat_with_epsilon (acc.nll, nll, 1e-4);
  g_assert_cmpfloat_with_epsilon (as_perplexity_mean_nll (&acc), acc.nll / 3, 1e-12);
  g_assert_cmpfloat_with_epsilon (as_perplexity_value (&acc), exp (acc.nll / 3), 1e-12);
}

/* Over two texts the perplexity pools tokens: exp(total NLL / total predictions), not the mean
 * of the two texts' perplexities; a one-token text predicts nothing but counts as a text. */
static void
test_pooled_over_texts (void)
{
  const int32_t a[] = { 0, 2, 2 }; /* 5/8, 5/8 */
  const int32_t b[] = { 2, 0 };    /* 1/8 */
  const int32_t c[] = { 1 };       /* nothing */
  g_autoptr (AsTrace) ta = make_trace (a, 3, TRUE, 0.0);
  g_autoptr (AsTrace) tb = make_trace (b, 2, TRUE, -3.0);
  g_autoptr (AsTrace) tc = make_trace (c, 1, TRUE, 0.0);
  AsPerplexity acc = { 0 };
  g_assert_cmpfloat (isnan (as_perplexity_value (&acc)), ==, TRUE);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_perplexity_add (&acc, ta, &error));
  g_assert_true (as_perplexity_add (&acc, tb, &error));
  g_assert_true (as_perplexity_add (&acc, tc, &error));
  g_assert_cmpint (acc.n_predicted, ==, 3);
  g_assert_cmpint (acc.n_texts, ==, 3);
  double pooled = exp (-(2 * log (5.0 / 8) + log (1.0 / 8)) / 3);
  g_assert_cmpfloat_with_epsilon (as_perplexity_value (&acc), pooled, 1e-5);
  /* the mean of the per-text perplexities would be different */
  g_assert_cmpfloat (fabs (pooled - (8.0 / 5 + 8.0) / 2), >, 1.0);
}

static void
test_needs_all_logits (void)
{
  const int32_t ids[] = { 0, 1 };
  g_autoptr (AsTrace) t = make_trace (ids, 2, FALSE, 0.0);
  double logprob[1];
  g_autoptr (GError) error = NULL;
  g_assert_false (as_token_logprobs (logprob, t, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "all 2 positions"));
  g_clear_error (&error);
  AsPerplexity acc = { 0 };
  g_assert_false (as_perplexity_add (&acc, t, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_cmpint (acc.n_texts, ==, 0);
}

static void
test_needs_causal (void)
{
  const int32_t ids[] = { 0, 1 };
  g_autoptr (AsTrace) t = make_trace (ids, 2, TRUE, 0.0);
  t->causal = FALSE;
  double logprob[1];
  g_autoptr (GError) error = NULL;
  g_assert_false (as_token_logprobs (logprob, t, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "causal"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/perplexity/known-values", test_known_values);
  g_test_add_func ("/core/perplexity/pooled-over-texts", test_pooled_over_texts);
  g_test_add_func ("/core/perplexity/needs-all-logits", test_needs_all_logits);
  g_test_add_func ("/core/perplexity/needs-causal", test_needs_causal);
  return g_test_run ();
}

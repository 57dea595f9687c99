/* test-rollout.c — mean over heads and attention rollout: hand-computed 2×2 cases (order of the
 * product, identity mixing, row renormalisation) and random attention against numpy. */
#include <math.h>

#include "analysis-fixtures.h"
#include "as-rollout.h"
#include "check-close.h"

static void
test_mean_heads (void)
{
  /* H = 2, T = 2 */
  const float attn[8] = { 1, 0, 0.2f, 0.8f, 0, 1, 0.6f, 0.4f };
  float mean[4];
  as_attention_mean_heads (mean, attn, 2, 2);
  const float expected[4] = { 0.5f, 0.5f, 0.4f, 0.6f };
  check_close ("mean heads", mean, expected, 4, 1e-7, 0);
}

static void
test_hand_product (void)
{
  /* L = 2, H = 1, T = 2, causal.
   * P_0 = [[1,0],[.5,.5]] -> A_0 = [[1,0],[.25,.75]]
   * P_1 = [[1,0],[1,0]]   -> A_1 = [[1,0],[.5,.5]]
   * R_1 = A_1 · A_0 = [[1,0],[.625,.375]]   (A_0 · A_1 would give [[1,0],[.625,.375]] too, so
   * the next case checks the order) */
  const float attn[8] = { 1, 0, 0.5f, 0.5f, 1, 0, 1, 0 };
  float out[8];
  as_attention_rollout (out, attn, 2, 1, 2);
  const float expected[8] = { 1, 0, 0.25f, 0.75f, 1, 0, 0.625f, 0.375f };
  check_close ("rollout 2x2", out, expected, 8, 1e-7, 0);
}

static void
test_order (void)
{
  /* bidirectional, L = 2, H = 1, T = 2:
   * P_0 = [[0,1],[0,1]] -> A_0 = [[.5,.5],[0,1]]
   * P_1 = [[1,0],[1,0]] -> A_1 = [[1,0],[.5,.5]]
   * A_1 · A_0 = [[.5,.5],[.25,.75]] while A_0 · A_1 = [[.75,.25],[.5,.5]] */
  const float attn[8] = { 0, 1, 0, 1, 1, 0, 1, 0 };
  float out[8];
  as_attention_rollout (out, attn, 2, 1, 2);
  const float expected[8] = { 0.5f, 0.5f, 0, 1, 0.5f, 0.5f, 0.25f, 0.75f };
  check_close ("rollout order A_1·A_0", out, expected, 8, 1e-7, 0);
}

static void
test_renormalise (void)
{
  /* rows that do not sum to 1: P = [[.2,.2],[0,0]] -> 0.5P + 0.5I = [[.6,.1],[0,.5]]
   * -> rows divided by .7 and .5 */
  const float attn[4] = { 0.2f, 0.2f, 0, 0 };
  float out[4];
  as_attention_rollout (out, attn, 1, 1, 2);
  const float expected[4] = { 6.0f / 7, 1.0f / 7, 0, 1 };
  check_close ("rollout renormalised", out, expected, 4, 1e-7, 0);
}

static void
test_trace_reference (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (99);
  const int L = 4, H = 3, T = 11;
  for (int causal = 0; causal < 2; causal++)
    {
      g_autoptr (AsTrace) t = fixture_trace_new (L, H, T, 6, 2, NULL, causal);
      fixture_random_attention (t->attn, L * H, T, causal, rand);
      gsize n_in = (gsize) L * H * T * T, n_out = (gsize) L * T * T;
      g_autofree float *rollout = as_trace_rollout (t);
      g_autofree float *mean = as_trace_mean_heads (t);

      /* every row of every R_l sums to 1; causal rollouts stay lower-triangular */
      for (int r = 0; r < L * T; r++)
        {
          double sum = 0;
          for (int j = 0; j < T; j++)
            {
              sum += rollout[(gsize) r * T + j];
              if (causal && j > r % T)
                g_assert_cmpfloat (rollout[(gsize) r * T + j], ==, 0.0f);
            }
          g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-6);
        }

      g_autofree char *shape = g_strdup_printf ("%d,%d,%d", L, H, T);
      g_autofree float *expected = fixture_reference_run ("rollout", t->attn, n_in, shape, n_out);
      if (expected == NULL)
        return;
      check_close ("rollout vs numpy", rollout, expected, n_out, 1e-6, 0);
      g_autofree float *expected_mean
          = fixture_reference_run ("meanheads", t->attn, n_in, shape, n_out);
      check_close ("mean heads vs numpy", mean, expected_mean, n_out, 1e-6, 0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/rollout/mean-heads", test_mean_heads);
  g_test_add_func ("/core/rollout/hand-product", test_hand_product);
  g_test_add_func ("/core/rollout/order", test_order);
  g_test_add_func ("/core/rollout/renormalise", test_renormalise);
  g_test_add_func ("/core/rollout/trace-reference", test_trace_reference);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

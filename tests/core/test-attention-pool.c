/* test-attention-pool.c — a head's attention pooled in blocks of K × K (as-attention-pool.h)
 * equals the maximum and the mean of the entries each block covers, computed here directly from
 * the same pass's matrices.
 *
 * - GPT-2 (causal) over 127 tokens (its context: 128) and BERT on a pair (bidirectional), kept
 *   on demand: every head of two layers pooled with K = 1, 3, 7, 64 and 300 (one block), maximum
 *   and mean; the maximum to the bit, the mean within 1e-7 (a sum in double, rounded once).
 * - The pooling does not depend on the number of threads (1 and 3: the same bits), and its rows
 *   taken a part at a time equal the whole.
 * - A matrix in memory (as_matrix_pool) pools the same way; as_pool_factor keeps a side within
 *   its cells. */
#include <math.h>
#include <string.h>

#include "as-attention-pool.h"
#include "as-forward.h"
#include "as-model.h"

/* The maximum or mean of the entries of M [T][T] in block (PI, PJ) of side K, directly. */
static double
direct (const float *m, int T, int k, AsPool pool, int pi, int pj)
{
  double best = 0, sum = 0;
  int n = 0;
  for (int i = pi * k; i < MIN (T, (pi + 1) * k); i++)
    for (int j = pj * k; j < MIN (T, (pj + 1) * k); j++)
      {
        best = MAX (best, m[(gsize) i * T + j]);
        sum += m[(gsize) i * T + j];
        n++;
      }
  return pool == AS_POOL_MAX ? best : sum / n;
}

static AsTrace *
run (AsModel *model, const int32_t *ids, int n_ids, const char *text, const char *second,
     AsAttentionStorage storage)
{
  AsForwardOptions options = { .attention = storage };
  g_autoptr (GError) error = NULL;
  AsTrace *t = ids != NULL ? as_forward (model, ids, n_ids, &options, &error)
                           : as_forward_pair (model, text, second, FALSE, &options, &error);
  g_assert_no_error (error);
  return t;
}

static void
check_pooling (const AsTrace *held, const AsTrace *on)
{
  static const int ks[] = { 1, 3, 7, 64, 300 };
  int T = held->n_tokens;
  g_assert_false (as_trace_attention_held (on));
  for (int l = 0; l < held->n_layer && l < 2; l++)
    for (int h = 0; h < held->n_head; h++)
      {
        const float *m = as_trace_attn_matrices (held, l, h); /* [T][T] */
        for (guint ki = 0; ki < G_N_ELEMENTS (ks); ki++)
          for (AsPool pool = AS_POOL_MAX; pool <= AS_POOL_MEAN; pool++)
            {
              int k = ks[ki], P = as_pool_size (T, k);
              g_autofree float *one = g_new (float, (gsize) P *P);
              g_autofree float *three = g_new (float, (gsize) P *P);
              g_autofree float *held_pool = g_new (float, (gsize) P *P);
              g_autofree float *matrix_pool = g_new (float, (gsize) P *P);
              g_assert_true (as_trace_attention_pool (one, on, l, h, k, pool, 1, NULL));
              g_assert_true (as_trace_attention_pool (three, on, l, h, k, pool, 3, NULL));
              g_assert_true (as_trace_attention_pool (held_pool, held, l, h, k, pool, 2, NULL));
              as_matrix_pool (matrix_pool, m, T, T, k, pool);
              g_assert_cmpmem (one, sizeof (float) * P * P, three, sizeof (float) * P * P);
              g_assert_cmpmem (one, sizeof (float) * P * P, held_pool, sizeof (float) * P * P);
              for (int pi = 0; pi < P; pi++)
                for (int pj = 0; pj < P; pj++)
                  {
                    double want = direct (m, T, k, pool, pi, pj);
                    float got = one[(gsize) pi * P + pj];
                    if (pool == AS_POOL_MAX)
                      g_assert_cmpfloat (got, ==, (float) want);
                    else
                      g_assert_cmpfloat_with_epsilon (got, want, 1e-7);
                    g_assert_cmpfloat_with_epsilon (matrix_pool[(gsize) pi * P + pj], got, 1e-7);
                  }
              /* pooled rows a part at a time: the same bits */
              if (P > 2)
                {
                  g_autofree float *part = g_new (float, (gsize) (P - 2) * P);
                  as_trace_attention_pool_rows (part, on, l, h, k, pool, 1, P - 2);
                  g_assert_cmpmem (part, sizeof (float) * (P - 2) * P, one + P,
                                   sizeof (float) * (P - 2) * P);
                }
            }
      }
}

static void
test_gpt2 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  enum
  {
    T = 127 /* prime: blocks of 3, 7 and 64 leave a part; two of the pass's blocks of 64 rows */
  };
  int32_t ids[T];
  for (int t = 0; t < T; t++)
    ids[t] = (t * 37 + 11) % 300;
  g_autoptr (AsTrace) held = run (model, ids, T, NULL, NULL, AS_ATTENTION_MATRICES);
  g_autoptr (AsTrace) on = run (model, ids, T, NULL, NULL, AS_ATTENTION_ON_DEMAND);
  g_assert_true (held->causal);
  check_pooling (held, on);
}

static void
test_bert (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("attnscope-mini-bert", &error);
  g_assert_no_error (error);
  const char *a = "the cat sat on the [MASK] .", *b = "a dog ran in the park all day.";
  g_autoptr (AsTrace) held = run (model, NULL, 0, a, b, AS_ATTENTION_MATRICES);
  g_autoptr (AsTrace) on = run (model, NULL, 0, a, b, AS_ATTENTION_ON_DEMAND);
  g_assert_false (held->causal);
  check_pooling (held, on);
}

static void
test_factor (void)
{
  g_assert_cmpint (as_pool_factor (5, 1024), ==, 1);
  g_assert_cmpint (as_pool_factor (1024, 1024), ==, 1);
  g_assert_cmpint (as_pool_factor (1025, 1024), ==, 2);
  g_assert_cmpint (as_pool_factor (8192, 1024), ==, 8);
  g_assert_cmpint (as_pool_factor (8193, 1024), ==, 9);
  for (int n = 1; n < 3000; n += 37)
    for (int cells = 1; cells < 300; cells += 13)
      {
        int k = as_pool_factor (n, cells);
        g_assert_cmpint (as_pool_size (n, k), <=, cells);
        g_assert_true (k == 1 || as_pool_size (n, k - 1) > cells);
      }
  /* a matrix of known values: 4 × 5 in blocks of 2 */
  const float m[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
  float out[2 * 3];
  as_matrix_pool (out, m, 4, 5, 2, AS_POOL_MAX);
  const float max[] = { 7, 9, 10, 17, 19, 20 };
  g_assert_cmpmem (out, sizeof out, max, sizeof max);
  as_matrix_pool (out, m, 4, 5, 2, AS_POOL_MEAN);
  const float mean[] = { 4, 6, 7.5f, 14, 16, 17.5f };
  g_assert_cmpmem (out, sizeof out, mean, sizeof mean);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("ATTNSCOPE_ATTENTION");
  g_test_add_func ("/attention-pool/factor", test_factor);
  g_test_add_func ("/attention-pool/gpt2", test_gpt2);
  g_test_add_func ("/attention-pool/bert", test_bert);
  return g_test_run ();
}

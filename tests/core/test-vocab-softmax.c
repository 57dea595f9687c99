/* test-vocab-softmax.c — the softmax over a vocabulary that predictions and the logit lens read:
 * the vectorised normaliser (as_sum_exp_shifted) and largest value (as_max_f32) against plain
 * double-precision loops, and the top K (as_predict_top_k_ids) against a full sort, on rows of
 * awkward lengths (tails shorter than a vector), ties and a real vocabulary's size. */
#include <math.h>
#include <stdlib.h>

#include "as-predict.h"
#include "kernels-private.h"

/* A row of N logits spread like a model's (a few large, most small), with ties when TIES. */
static float *
make_row (int n, guint32 seed, gboolean ties)
{
  GRand *rand = g_rand_new_with_seed (seed);
  float *row = g_new (float, n);
  for (int i = 0; i < n; i++)
    {
      double v = g_rand_double_range (rand, -12.0, 8.0);
      row[i] = (float) (ties ? round (v) : v);
    }
  g_rand_free (rand);
  return row;
}

static double
plain_sum_exp (const float *x, int n, float shift)
{
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    sum += exp ((double) x[i] - shift);
  return sum;
}

static void
test_sum_and_max (void)
{
  const int lengths[] = { 1, 2, 15, 16, 17, 31, 33, 1000, 50257, 262144 };
  for (gsize c = 0; c < G_N_ELEMENTS (lengths); c++)
    {
      int n = lengths[c];
      g_autofree float *row = make_row (n, 11 + c, FALSE);
      float plain_max = row[0];
      for (int i = 1; i < n; i++)
        plain_max = fmaxf (plain_max, row[i]);
      g_assert_cmpfloat (as_max_f32 (row, n), ==, plain_max);
      double expected = plain_sum_exp (row, n, plain_max);
      double got = as_sum_exp_shifted (row, n, plain_max);
      g_test_message ("n %d: sum %.9g, plain %.9g", n, got, expected);
      g_assert_cmpfloat (fabs (got - expected), <=, 1e-6 * expected);
      /* the same row gives the same bits */
      g_assert_cmpfloat (as_sum_exp_shifted (row, n, plain_max), ==, got);
    }
}

typedef struct
{
  float logit;
  int32_t id;
} Entry;

static int
by_rank (const void *a, const void *b)
{
  const Entry *x = a, *y = b;
  if (x->logit != y->logit)
    return x->logit > y->logit ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static void
check_top_k (int n, int k, gboolean ties)
{
  g_autofree float *row = make_row (n, (guint32) (n * 7 + k), ties);
  g_autofree Entry *sorted = g_new (Entry, n);
  for (int i = 0; i < n; i++)
    sorted[i] = (Entry){ row[i], i };
  qsort (sorted, n, sizeof (Entry), by_rank);
  float max = sorted[0].logit;
  double sum = plain_sum_exp (row, n, max);
  g_autofree int32_t *ids = g_new (int32_t, k);
  g_autofree float *probabilities = g_new (float, k);
  int got = as_predict_top_k_ids (row, n, k, ids, probabilities);
  g_assert_cmpint (got, ==, MIN (k, n));
  for (int i = 0; i < got; i++)
    {
      g_assert_cmpint (ids[i], ==, sorted[i].id);
      double expected = exp ((double) sorted[i].logit - max) / sum;
      g_assert_cmpfloat (fabs (probabilities[i] - expected), <=, 1e-6 * expected);
    }
  /* the target's rank and probability agree with the sorted order */
  int32_t target = sorted[MIN (n - 1, 3)].id;
  int rank = -1;
  float probability = 0.0f;
  as_predict_rank (row, n, target, &rank, &probability);
  g_assert_cmpint (rank, ==, MIN (n - 1, 3));
  double expected = exp ((double) row[target] - max) / sum;
  g_assert_cmpfloat (fabs (probability - expected), <=, 1e-6 * expected);
  /* the decoded predictions carry the same ids and probabilities */
  int n_top = 0;
  AsPrediction *top = as_predict_top_k_row (row, n, NULL, k, &n_top);
  g_assert_cmpint (n_top, ==, got);
  for (int i = 0; i < n_top; i++)
    {
      g_assert_cmpint (top[i].id, ==, ids[i]);
      g_assert_cmpfloat (top[i].probability, ==, probabilities[i]);
      g_assert_cmpfloat (top[i].logit, ==, row[ids[i]]);
    }
  as_predictions_free (top, n_top);
}

static void
test_top_k (void)
{
  check_top_k (1, 5, FALSE);
  check_top_k (3, 5, FALSE);
  check_top_k (17, 5, TRUE);
  check_top_k (1000, 10, TRUE);
  check_top_k (50257, 5, FALSE);
  check_top_k (50257, 20, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/vocab-softmax/sum-and-max", test_sum_and_max);
  g_test_add_func ("/core/vocab-softmax/top-k", test_top_k);
  return g_test_run ();
}

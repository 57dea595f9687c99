/* test-compare.c — sentence comparison: the pairing rule on "The man hit the car" against "The car
 * hit the man" and on repeated/unmatched tokens, hidden-state similarity and change per layer,
 * attention differences and their rankings, attention aligned by token, unequal lengths, and
 * mismatched models. */
#include <math.h>
#include <string.h>

#include "analysis-fixtures.h"
#include "as-compare.h"
#include "as-error.h"
#include "check-close.h"

static void
assert_ints (const int *actual, const int *expected, int n)
{
  for (int i = 0; i < n; i++)
    g_assert_cmpint (actual[i], ==, expected[i]);
}

static void
assert_pairing (const char *const *a, int n_a, const char *const *b, int n_b,
                const int *expected_pairs, int n_pairs, const int *expected_ua, int n_ua,
                const int *expected_ub, int n_ub)
{
  int np = 0, nua = 0, nub = 0;
  g_autofree int *ua = NULL, *ub = NULL;
  g_autofree AsTokenPair *pairs = as_compare_pair_tokens ((char *const *) a, n_a, (char *const *) b,
                                                          n_b, &np, &ua, &nua, &ub, &nub);
  g_assert_cmpint (np, ==, n_pairs);
  for (int p = 0; p < np; p++)
    {
      g_assert_cmpint (pairs[p].a, ==, expected_pairs[2 * p]);
      g_assert_cmpint (pairs[p].b, ==, expected_pairs[2 * p + 1]);
    }
  g_assert_cmpint (nua, ==, n_ua);
  assert_ints (ua, expected_ua, n_ua);
  g_assert_cmpint (nub, ==, n_ub);
  assert_ints (ub, expected_ub, n_ub);
}

static const char *const man_car[] = { "The", "Ġman", "Ġhit", "Ġthe", "Ġcar" };
static const char *const car_man[] = { "The", "Ġcar", "Ġhit", "Ġthe", "Ġman" };

static void
test_pairing (void)
{
  assert_pairing (man_car, 5, car_man, 5, (const int[]){ 0, 0, 1, 4, 2, 2, 3, 3, 4, 1 }, 5, NULL, 0,
                  NULL, 0);

  /* k-th occurrence with k-th occurrence; extra and foreign tokens unmatched */
  const char *const a[] = { "a", "b", "a", "c", "a" };
  const char *const b[] = { "a", "a", "d", "b" };
  assert_pairing (a, 5, b, 4, (const int[]){ 0, 0, 1, 3, 2, 1 }, 3, (const int[]){ 3, 4 }, 2,
                  (const int[]){ 2 }, 1);

  /* strings are compared exactly: "The" is not "Ġthe" */
  const char *const c[] = { "The", "Ġx" };
  const char *const d[] = { "Ġthe", "Ġx" };
  assert_pairing (c, 2, d, 2, (const int[]){ 1, 1 }, 1, (const int[]){ 0 }, 1, (const int[]){ 0 },
                  1);
}

/* L = 2, H = 2, D = 2. hidden[0] row i = (1, 0) for every token (position-free embeddings);
 * hidden[1] row i = (1, i); hidden[2] row i = (i, 1). Attention all zero (set by the tests). */
static AsTrace *
sentence_trace_new (const char *const *tokens, int n_tokens)
{
  AsTrace *t = fixture_trace_new (2, 2, n_tokens, 2, 1, tokens, TRUE);
  for (int i = 0; i < n_tokens; i++)
    {
      float *h0 = as_trace_hidden (t, 0) + 2 * i, *h1 = as_trace_hidden (t, 1) + 2 * i;
      float *h2 = as_trace_hidden (t, 2) + 2 * i;
      h0[0] = 1;
      h0[1] = 0;
      h1[0] = 1;
      h1[1] = i;
      h2[0] = i;
      h2[1] = 1;
    }
  return t;
}

static void
test_man_car (void)
{
  g_autoptr (AsTrace) a = sentence_trace_new (man_car, 5);
  g_autoptr (AsTrace) b = sentence_trace_new (car_man, 5);
  /* B's head (0,0) differs in one entry by 0.3, head (0,1) by 0.5 and 0.5, head (1,0) by 0.1 */
  as_trace_attn_matrices (b, 0, 0)[7] = 0.3f;
  as_trace_attn_matrices (b, 0, 1)[0] = 0.5f;
  as_trace_attn_matrices (b, 0, 1)[24] = -0.5f;
  as_trace_attn_matrices (b, 1, 0)[3] = 0.1f;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsComparison) c = as_compare_traces (a, b, &error);
  g_assert_no_error (error);
  g_assert_cmpint (c->n_pairs, ==, 5);
  g_assert_cmpint (c->n_unmatched_a + c->n_unmatched_b, ==, 0);

  /* pairs (0,0) (1,4) (2,2) (3,3) (4,1): layer 0 identical; layer 1 pairs (1,4) and (4,1) compare
   * (1,1) with (1,4): cos = 5/sqrt(34); layer 2 (1,1) with (4,1): the same */
  const double c14 = 5 / sqrt (34);
  const float sim1[5] = { 1, (float) c14, 1, 1, (float) c14 };
  check_close ("layer 0 similarity", c->hidden_similarity, (const float[]){ 1, 1, 1, 1, 1 }, 5,
               1e-7, 0);
  check_close ("layer 1 similarity", c->hidden_similarity + 5, sim1, 5, 1e-7, 0);
  check_close ("layer 2 similarity", c->hidden_similarity + 10, sim1, 5, 1e-7, 0);
  g_assert_cmpfloat_with_epsilon (c->hidden_mean_similarity[0], 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (c->hidden_mean_similarity[1], (3 + 2 * c14) / 5, 1e-12);
  /* change: sqrt(3² + 3²) on layers 1 and 2, 0 on layer 0 */
  g_assert_cmpfloat (c->hidden_change[0], ==, 0);
  g_assert_cmpfloat_with_epsilon (c->hidden_change[1], sqrt (18), 1e-12);
  g_assert_cmpfloat_with_epsilon (c->hidden_change[2], sqrt (18), 1e-12);
  assert_ints (c->hidden_ranking, (const int[]){ 1, 2, 0 }, 3);

  g_assert_true (c->attention_available);
  g_assert_cmpfloat (c->attention_diff[7], ==, 0.3f);
  g_assert_cmpfloat (c->attention_diff[25 + 24], ==, -0.5f);
  g_assert_cmpfloat (c->attention_diff[8], ==, 0.0f);
  const double heads[4] = { 0.3, sqrt (0.5), 0.1, 0 };
  for (int e = 0; e < 4; e++)
    g_assert_cmpfloat_with_epsilon (c->head_change[e], heads[e], 1e-7);
  assert_ints (c->head_ranking, (const int[]){ 1, 0, 2, 3 }, 4);
  g_assert_cmpfloat_with_epsilon (c->layer_change[0], sqrt (0.09 + 0.5), 1e-7);
  g_assert_cmpfloat_with_epsilon (c->layer_change[1], 0.1, 1e-7);
  assert_ints (c->layer_ranking, (const int[]){ 0, 1 }, 2);
}

static void
test_self (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  g_autoptr (AsTrace) a = fixture_trace_new (3, 2, 6, 8, 4, NULL, TRUE);
  fixture_random_attention (a->attn, 6, 6, TRUE, rand);
  fixture_random_floats (a->hidden, 4 * 6 * 8, rand);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsComparison) c = as_compare_traces (a, a, &error);
  g_assert_no_error (error);
  g_assert_cmpint (c->n_pairs, ==, 6);
  for (int e = 0; e < 4 * 6; e++)
    g_assert_cmpfloat_with_epsilon (c->hidden_similarity[e], 1, 1e-6);
  for (int l = 0; l < 4; l++)
    g_assert_cmpfloat (c->hidden_change[l], ==, 0);
  for (int e = 0; e < 6; e++)
    g_assert_cmpfloat (c->head_change[e], ==, 0);
  /* all equal: rankings keep the index order */
  assert_ints (c->head_ranking, (const int[]){ 0, 1, 2, 3, 4, 5 }, 6);
}

static void
test_unequal_lengths (void)
{
  const char *const a_tokens[] = { "The", "Ġman", "Ġhit", "Ġthe", "Ġcar" };
  const char *const b_tokens[] = { "The", "Ġcar", "Ġwas", "Ġhit" };
  g_autoptr (AsTrace) a = sentence_trace_new (a_tokens, 5);
  g_autoptr (AsTrace) b = sentence_trace_new (b_tokens, 4);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsComparison) c = as_compare_traces (a, b, &error);
  g_assert_no_error (error);
  g_assert_false (c->attention_available);
  g_assert_null (c->attention_diff);
  g_assert_null (c->head_change);
  g_assert_null (c->head_ranking);
  g_assert_null (c->layer_change);
  /* pairs The (0,0), Ġhit (2,3), Ġcar (4,1); unmatched Ġman, Ġthe in A and Ġwas in B */
  g_assert_cmpint (c->n_pairs, ==, 3);
  g_assert_cmpint (c->pairs[1].a, ==, 2);
  g_assert_cmpint (c->pairs[1].b, ==, 3);
  assert_ints (c->unmatched_a, (const int[]){ 1, 3 }, 2);
  g_assert_cmpint (c->n_unmatched_a, ==, 2);
  g_assert_cmpint (c->n_unmatched_b, ==, 1);
  g_assert_cmpint (c->unmatched_b[0], ==, 2);
  /* layer 1: (1,0)·(1,0) = 1, (1,2) vs (1,3), (1,4) vs (1,1) */
  const float sim1[3] = { 1, (float) (7 / sqrt (50)), (float) (5 / sqrt (34)) };
  check_close ("unequal layer 1 similarity", c->hidden_similarity + 3, sim1, 3, 1e-7, 0);
  g_assert_cmpfloat_with_epsilon (c->hidden_change[1], sqrt (0 + 1 + 9), 1e-12);

  /* nothing in common: NaN means, zero changes */
  const char *const x[] = { "Ġx" };
  g_autoptr (AsTrace) tx = sentence_trace_new (x, 1);
  g_autoptr (AsComparison) none = as_compare_traces (a, tx, &error);
  g_assert_no_error (error);
  g_assert_cmpint (none->n_pairs, ==, 0);
  g_assert_true (isnan (none->hidden_mean_similarity[2]));
  g_assert_cmpfloat (none->hidden_change[2], ==, 0);
}

/* "The man hit the car" (*A) against "The car hit the man" (*B), random causal attention from
 * RAND, compared; the pairing is p = (0, 4, 2, 3, 1). */
static AsComparison *
man_car_comparison (GRand *rand, AsTrace **a, AsTrace **b)
{
  *a = sentence_trace_new (man_car, 5);
  *b = sentence_trace_new (car_man, 5);
  fixture_random_attention ((*a)->attn, 4, 5, TRUE, rand);
  fixture_random_attention ((*b)->attn, 4, 5, TRUE, rand);
  g_autoptr (GError) error = NULL;
  AsComparison *c = as_compare_traces (*a, *b, &error);
  g_assert_no_error (error);
  return c;
}

/* "The man hit the car" against "The car hit the man": B's weights put in A's order by token are
 * B's weights permuted by the pairing p = (0, 4, 2, 3, 1), value for value; B made from A by that
 * permutation aligns back to A exactly (difference 0, aligned change 0); unmatched tokens give
 * NaN rows and columns. */
static void
test_token_alignment (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autoptr (AsTrace) a = NULL, b = NULL;
  g_autoptr (AsComparison) c = man_car_comparison (rand, &a, &b);
  g_autoptr (GError) error = NULL;
  const int p[5] = { 0, 4, 2, 3, 1 };
  assert_ints (c->partner_a, p, 5);
  float aligned[25]; /* [T][T] */
  for (int e = 0; e < 4; e++)
    {
      const float *pb = b->attn + e * 25;
      as_compare_align (aligned, c, pb);
      for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
          g_assert_cmpfloat (aligned[i * 5 + j], ==, pb[p[i] * 5 + p[j]]);
    }
  /* "the man" attends to "The" in A; in B the same token " man" is the last one: row 1 of the
   * aligned matrix is B's row 4, and its entry for " car" (A's column 4) is B's [4][1]. */
  as_compare_align (aligned, c, b->attn);
  g_assert_cmpfloat (aligned[1 * 5 + 4], ==, b->attn[4 * 5 + 1]);
  g_assert_cmpfloat (aligned[1 * 5 + 4], >, 0);

  /* B = A permuted into B's order: aligned back, it is A exactly. */
  g_autoptr (AsTrace) permuted = sentence_trace_new (car_man, 5);
  for (int e = 0; e < 4; e++)
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 5; j++)
        permuted->attn[e * 25 + p[i] * 5 + p[j]] = a->attn[e * 25 + i * 5 + j];
  g_autoptr (AsComparison) same = as_compare_traces (a, permuted, &error);
  g_assert_no_error (error);
  for (int e = 0; e < 4; e++)
    {
      as_compare_align (aligned, same, permuted->attn + e * 25);
      for (int k = 0; k < 25; k++)
        g_assert_cmpfloat (aligned[k] - a->attn[e * 25 + k], ==, 0.0f);
      g_assert_cmpfloat (same->aligned_head_change[e], ==, 0);
    }
  /* ... while position by position they differ. */
  g_assert_cmpfloat (same->head_change[0], >, 0.1);
  /* B itself differs from A aligned by token, and the heads are ranked by how much. */
  double largest = 0;
  for (int e = 0; e < 4; e++)
    largest = MAX (largest, c->aligned_head_change[e]);
  g_assert_cmpfloat (c->aligned_head_change[c->aligned_head_ranking[0]], ==, largest);
  g_assert_cmpfloat (largest, >, 0);

  /* Unequal lengths: A's unmatched tokens (" man", " the") have no values. */
  const char *const b_tokens[] = { "The", "Ġcar", "Ġwas", "Ġhit" };
  g_autoptr (AsTrace) shorter = sentence_trace_new (b_tokens, 4);
  fixture_random_attention (shorter->attn, 4, 4, TRUE, rand);
  g_autoptr (AsComparison) u = as_compare_traces (a, shorter, &error);
  g_assert_no_error (error);
  assert_ints (u->partner_a, (const int[]){ 0, -1, 3, -1, 1 }, 5);
  as_compare_align (aligned, u, shorter->attn);
  g_assert_true (isnan (aligned[1 * 5 + 0]));
  g_assert_true (isnan (aligned[0 * 5 + 3]));
  g_assert_cmpfloat (aligned[4 * 5 + 2], ==, shorter->attn[1 * 4 + 3]);
  g_assert_cmpfloat (aligned[2 * 5 + 0], ==, shorter->attn[3 * 4 + 0]);
}

/* The two alignments through one API (what `attnscope compare --align` and the window's Compare
 * page read): names both ways; by token on a permutation pair the head difference is B̃ − A cell
 * for cell and the layer's change the norm of its heads'; by position it is P_B − P_A; texts of
 * different lengths rank by token only, with NaN where A's token has no partner. */
static void
test_alignments (void)
{
  AsAlign align = AS_ALIGN_POSITIONS;
  g_assert_cmpstr (as_align_to_string (AS_ALIGN_TOKENS), ==, "tokens");
  g_assert_cmpstr (as_align_to_string (AS_ALIGN_POSITIONS), ==, "positions");
  g_assert_true (as_align_from_string ("tokens", &align));
  g_assert_cmpint (align, ==, AS_ALIGN_TOKENS);
  g_assert_false (as_align_from_string ("words", &align));

  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  g_autoptr (AsTrace) a = NULL, b = NULL;
  g_autoptr (AsComparison) c = man_car_comparison (rand, &a, &b);
  g_autoptr (GError) error = NULL;
  const int p[5] = { 0, 4, 2, 3, 1 };

  AsAttentionChange tokens, positions;
  g_assert_true (as_comparison_attention_change (c, AS_ALIGN_TOKENS, &tokens));
  g_assert_true (as_comparison_attention_change (c, AS_ALIGN_POSITIONS, &positions));
  g_assert_true (tokens.head_ranking == c->aligned_head_ranking);
  g_assert_true (positions.head_ranking == c->head_ranking);
  float d[25]; /* [T][T] */
  for (int layer = 0; layer < 2; layer++)
    {
      double layer_sq = 0;
      for (int head = 0; head < 2; head++)
        {
          const float *pa = as_trace_attn_matrices (a, layer, head),
                      *pb = as_trace_attn_matrices (b, layer, head);
          g_assert_true (as_comparison_head_difference (d, c, a, b, layer, head, AS_ALIGN_TOKENS));
          double sq = 0;
          for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
              {
                float want = pb[p[i] * 5 + p[j]] - pa[i * 5 + j];
                g_assert_cmpfloat (d[i * 5 + j], ==, want);
                sq += (double) want * want;
              }
          g_assert_cmpfloat_with_epsilon (tokens.head_change[layer * 2 + head], sqrt (sq), 1e-6);
          layer_sq += sq;
          g_assert_true (
              as_comparison_head_difference (d, c, a, b, layer, head, AS_ALIGN_POSITIONS));
          for (int k = 0; k < 25; k++)
            g_assert_cmpfloat (d[k], ==, pb[k] - pa[k]);
        }
      g_assert_cmpfloat_with_epsilon (tokens.layer_change[layer], sqrt (layer_sq), 1e-6);
    }
  int top = tokens.layer_change[1] > tokens.layer_change[0];
  g_assert_cmpint (tokens.layer_ranking[0], ==, top);

  /* different lengths: by position nothing, by token NaN for A's unmatched " man" and " the" */
  const char *const b_tokens[] = { "The", "Ġcar", "Ġwas", "Ġhit" };
  g_autoptr (AsTrace) shorter = sentence_trace_new (b_tokens, 4);
  fixture_random_attention (shorter->attn, 4, 4, TRUE, rand);
  g_autoptr (AsComparison) u = as_compare_traces (a, shorter, &error);
  g_assert_no_error (error);
  g_assert_false (as_comparison_attention_change (u, AS_ALIGN_POSITIONS, &positions));
  g_assert_false (as_comparison_head_difference (d, u, a, shorter, 0, 0, AS_ALIGN_POSITIONS));
  g_assert_true (as_comparison_attention_change (u, AS_ALIGN_TOKENS, &tokens));
  g_assert_true (as_comparison_head_difference (d, u, a, shorter, 1, 1, AS_ALIGN_TOKENS));
  g_assert_true (isnan (d[1 * 5 + 0]) && isnan (d[0 * 5 + 3]));
  g_assert_cmpfloat (d[4 * 5 + 2], ==,
                     as_trace_attn_matrices (shorter, 1, 1)[1 * 4 + 3]
                         - as_trace_attn_matrices (a, 1, 1)[22]);
}

static void
test_other_model (void)
{
  g_autoptr (AsTrace) a = fixture_trace_new (2, 2, 3, 4, 2, NULL, TRUE);
  g_autoptr (AsTrace) b = fixture_trace_new (2, 4, 3, 4, 1, NULL, TRUE);
  g_autoptr (GError) error = NULL;
  g_assert_null (as_compare_traces (a, b, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "A: 2 layers, 2 heads"));
  g_assert_nonnull (strstr (error->message, "B: 2 layers, 4 heads"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/compare/pairing", test_pairing);
  g_test_add_func ("/core/compare/man-car", test_man_car);
  g_test_add_func ("/core/compare/self", test_self);
  g_test_add_func ("/core/compare/unequal-lengths", test_unequal_lengths);
  g_test_add_func ("/core/compare/token-alignment", test_token_alignment);
  g_test_add_func ("/core/compare/alignments", test_alignments);
  g_test_add_func ("/core/compare/other-model", test_other_model);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

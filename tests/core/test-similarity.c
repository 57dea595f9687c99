/* test-similarity.c — cosine similarity, vector-set selection and the seed's comparison table.
 *
 * Checks hand-computed values, the seed's single-head table (tests/README.md, "Published values")
 * on a hand-built trace, the errors for bad layers/heads/tokens, and random inputs against the
 * numpy reference. */
#include <math.h>
#include <string.h>

#include "analysis-fixtures.h"
#include "as-error.h"
#include "as-similarity.h"
#include "check-close.h"

static void
test_known_values (void)
{
  /* rows: (1,0) (1,1) (0,0) (-1,0) (3,4) */
  const float v[] = { 1, 0, 1, 1, 0, 0, -1, 0, 3, 4 }; /* [5][2] */
  float sim[25];                                       /* [5][5] */
  as_cosine_similarity_matrix (sim, v, 5, 2);
  const float expected[25] = {
    1,
    (float) M_SQRT1_2,
    0,
    -1,
    0.6f,
    (float) M_SQRT1_2,
    1,
    0,
    (float) -M_SQRT1_2,
    (float) (7 / (M_SQRT2 * 5)),
    0,
    0,
    0,
    0,
    0, /* the zero vector: similarity 0, even with itself */
    -1,
    (float) -M_SQRT1_2,
    0,
    1,
    -0.6f,
    0.6f,
    (float) (7 / (M_SQRT2 * 5)),
    0,
    -0.6f,
    1,
  };
  check_close ("cosine 5x5", sim, expected, 25, 1e-7, 0);
  g_assert_cmpfloat_with_epsilon (as_cosine_similarity (v + 2, v + 8, 2), 7 / (M_SQRT2 * 5), 1e-12);
  g_assert_cmpfloat (as_cosine_similarity (v, v + 4, 2), ==, 0.0);
}

/* The seed's single-head example (tests/README.md, "Published values"): Q = K = V = E, P =
 * softmax(E·Eᵀ), ctx = P·E.
 */
static const float seed_embeddings[6][10] = {
  { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 },
  { 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1 },
  { 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.1, 0.2, 0.3, 0.4 },
  { 0.2, 0.4, 0.6, 0.8, 1.0, 0.1, 0.3, 0.5, 0.7, 0.9 },
  { 0.9, 0.7, 0.5, 0.3, 0.1, 1.0, 0.8, 0.6, 0.4, 0.2 },
  { 0.3, 0.1, 0.9, 0.7, 0.5, 0.2, 1.0, 0.8, 0.6, 0.4 },
};

static AsTrace *
seed_trace_new (void)
{
  const char *words[] = { "May", "the", "force", "be", "with", "you" };
  AsTrace *t = fixture_trace_new (1, 1, 6, 10, 10, words, FALSE);
  memcpy (t->hidden, seed_embeddings, sizeof seed_embeddings);
  float *p = as_trace_attn_matrices (t, 0, 0);
  for (int i = 0; i < 6; i++)
    {
      double s[6], sum = 0;
      for (int j = 0; j < 6; j++)
        {
          s[j] = 0;
          for (int d = 0; d < 10; d++)
            s[j] += (double) seed_embeddings[i][d] * seed_embeddings[j][d];
          s[j] = exp (s[j]);
          sum += s[j];
        }
      for (int j = 0; j < 6; j++)
        p[i * 6 + j] = (float) (s[j] / sum);
    }
  float *ctx = as_trace_head_vectors (t, t->ctx, 0, 0);
  for (int i = 0; i < 6; i++)
    for (int d = 0; d < 10; d++)
      {
        double c = 0;
        for (int j = 0; j < 6; j++)
          c += (double) p[i * 6 + j] * seed_embeddings[j][d];
        ctx[i * 10 + d] = (float) c;
      }
  return t;
}

static void
test_seed_table (void)
{
  g_autoptr (AsTrace) t = seed_trace_new ();
  g_autoptr (GError) error = NULL;
  g_autofree float *sim = as_trace_similarity (t, AS_VECTORS_CONTEXTS, 0, 0, &error);
  g_assert_no_error (error);
  float attn[36];
  g_assert_true (as_trace_vectors_attention (attn, t, AS_VECTORS_CONTEXTS, 0, 0, &error));
  g_assert_no_error (error);

  /* "Comparison for 'May'" and "for 'the'" exactly as the seed prints them (%.4f) */
  const char *const expected[2][5][2] = {
    { { "0.9387", "0.0651" },
      { "0.9561", "0.1020" },
      { "0.9919", "0.1955" },
      { "0.9491", "0.1128" },
      { "0.9933", "0.1859" } },
    { { "0.9387", "0.0622" },
      { "0.9944", "0.2064" },
      { "0.9542", "0.1077" },
      { "0.9913", "0.1867" },
      { "0.9596", "0.1133" } },
  };
  const int index[2][5] = { { 1, 2, 3, 4, 5 }, { 0, 2, 3, 4, 5 } };
  for (int token = 0; token < 2; token++)
    {
      int n = 0;
      g_autofree AsSimilarityRow *rows = as_similarity_table (sim, attn, 6, token, &n);
      g_assert_cmpint (n, ==, 5);
      for (int r = 0; r < 5; r++)
        {
          g_autofree char *s = g_strdup_printf ("%.4f", rows[r].similarity);
          g_autofree char *a = g_strdup_printf ("%.4f", rows[r].attention);
          g_assert_cmpint (rows[r].index, ==, index[token][r]);
          g_assert_cmpstr (s, ==, expected[token][r][0]);
          g_assert_cmpstr (a, ==, expected[token][r][1]);
        }
    }
  g_assert_false (as_similarity_check_token (6, 6, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "token index 6"));
  g_assert_nonnull (strstr (error->message, "0..5"));
  g_clear_error (&error);
  g_assert_false (as_similarity_check_token (-1, 6, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_true (as_similarity_check_token (5, 6, NULL));
}

/* Fills every vector set of T with distinct values: element e of set s is s·1000 + e. */
static void
fill_distinct (AsTrace *t)
{
  gsize n_ctx = (gsize) t->n_layer * t->n_head * t->n_tokens * t->head_dim;
  gsize n_out = (gsize) t->n_layer * t->n_tokens * t->d_model;
  gsize n_hidden = (gsize) (t->n_layer + 1) * t->n_tokens * t->d_model;
  for (gsize e = 0; e < n_ctx; e++)
    t->ctx[e] = 1000 + e;
  for (gsize e = 0; e < n_out; e++)
    t->attn_out[e] = 2000 + e;
  for (gsize e = 0; e < n_hidden; e++)
    t->hidden[e] = 3000 + e;
}

static void
test_vector_sets (void)
{
  /* L = 2, H = 3, T = 4, D = 6, hd = 2 */
  g_autoptr (AsTrace) t = fixture_trace_new (2, 3, 4, 6, 2, NULL, TRUE);
  fill_distinct (t);
  g_autoptr (GError) error = NULL;
  int n = 0, dim = 0;
  const float *v = as_trace_vectors_get (t, AS_VECTORS_EMBEDDINGS, 99, -1, &n, &dim, &error);
  g_assert_no_error (error);
  g_assert_true (v == t->hidden);
  g_assert_cmpint (n, ==, 4);
  g_assert_cmpint (dim, ==, 6);
  v = as_trace_vectors_get (t, AS_VECTORS_CONTEXTS, 1, 2, &n, &dim, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dim, ==, 2);
  g_assert_cmpfloat (v[0], ==, 1000 + (1 * 3 + 2) * 4 * 2);
  v = as_trace_vectors_get (t, AS_VECTORS_ATTN_OUT, 1, -1, &n, &dim, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dim, ==, 6);
  g_assert_cmpfloat (v[0], ==, 2000 + 1 * 4 * 6);
  v = as_trace_vectors_get (t, AS_VECTORS_HIDDEN, 2, -1, &n, &dim, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (v[0], ==, 3000 + 2 * 4 * 6);

  const struct
  {
    AsVectorSource source;
    int layer, head;
    const char *message[2];
  } bad[] = {
    { AS_VECTORS_CONTEXTS, 2, 0, { "layer 2", "0..1" } },
    { AS_VECTORS_CONTEXTS, 0, 3, { "head 3", "0..2" } },
    { AS_VECTORS_CONTEXTS, 0, -1, { "head -1", "0..2" } },
    { AS_VECTORS_ATTN_OUT, -1, 0, { "layer -1", "0..1" } },
    { AS_VECTORS_HIDDEN, 3, 0, { "layer 3", "0..2" } },
    { AS_VECTORS_HIDDEN, 2, 3, { "head 3", "0..2" } },
    { AS_VECTORS_EMBEDDINGS, 0, 5, { "head 5", "0..2" } },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      v = as_trace_vectors_get (t, bad[i].source, bad[i].layer, bad[i].head, &n, &dim, &error);
      g_assert_null (v);
      g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, bad[i].message[0]));
      g_assert_nonnull (strstr (error->message, bad[i].message[1]));
      g_clear_error (&error);
    }

  AsVectorSource source;
  g_assert_true (as_vector_source_from_string ("attn_out", &source, NULL));
  g_assert_cmpint (source, ==, AS_VECTORS_ATTN_OUT);
  g_assert_cmpstr (as_vector_source_to_string (AS_VECTORS_HIDDEN), ==, "hidden");
  g_assert_false (as_vector_source_from_string ("keys", &source, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "'keys'"));
  g_assert_nonnull (strstr (error->message, "embeddings, contexts, attn_out or hidden"));
}

static void
test_vectors_attention (void)
{
  /* L = 2, H = 2, T = 3: P[l][h] filled with the constant 10·l + h + 1 to see which one came out */
  g_autoptr (AsTrace) t = fixture_trace_new (2, 2, 3, 4, 2, NULL, TRUE);
  for (int l = 0; l < 2; l++)
    for (int h = 0; h < 2; h++)
      for (int e = 0; e < 9; e++)
        as_trace_attn_matrices (t, l, h)[e] = 10 * l + h + 1;
  const struct
  {
    AsVectorSource source;
    int layer, head;
    float value;
  } cases[] = {
    { AS_VECTORS_CONTEXTS, 1, 0, 11 },  { AS_VECTORS_ATTN_OUT, 1, -1, 11.5 },
    { AS_VECTORS_ATTN_OUT, 0, 1, 2 },   { AS_VECTORS_HIDDEN, 0, -1, 1.5 },
    { AS_VECTORS_HIDDEN, 1, -1, 1.5 },  { AS_VECTORS_HIDDEN, 2, 1, 12 },
    { AS_VECTORS_EMBEDDINGS, 7, 0, 1 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      float out[9];
      g_autoptr (GError) error = NULL;
      g_assert_true (as_trace_vectors_attention (out, t, cases[i].source, cases[i].layer,
                                                 cases[i].head, &error));
      g_assert_no_error (error);
      for (int e = 0; e < 9; e++)
        g_assert_cmpfloat (out[e], ==, cases[i].value);
    }
  float out[9];
  g_autoptr (GError) error = NULL;
  g_assert_false (as_trace_vectors_attention (out, t, AS_VECTORS_HIDDEN, 1, 2, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "head 2"));
}

static void
test_reference_random (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20240501);
  const int n = 37, dim = 23;
  g_autofree float *x = g_new (float, n *dim); /* [N][dim] */
  fixture_random_floats (x, (gsize) n * dim, rand);
  for (int d = 0; d < dim; d++)
    x[5 * dim + d] = 0; /* one zero vector */
  for (int d = 0; d < dim; d++)
    x[9 * dim + d] = 1e-3f * x[8 * dim + d]; /* a tiny vector parallel to another */
  g_autofree float *sim = g_new (float, n *n);
  as_cosine_similarity_matrix (sim, x, n, dim);
  g_autofree char *shape = g_strdup_printf ("%d,%d", n, dim);
  g_autofree float *expected
      = fixture_reference_run ("cosine", x, (gsize) n * dim, shape, (gsize) n * n);
  if (expected == NULL)
    return;
  check_close ("cosine vs numpy", sim, expected, (gsize) n * n, 1e-6, 0);
  g_assert_cmpfloat_with_epsilon (sim[8 * n + 9], 1.0, 1e-6);
  for (int i = 0; i < n; i++)
    {
      g_assert_cmpfloat (sim[5 * n + i], ==, 0.0f);
      if (i != 5)
        g_assert_cmpfloat_with_epsilon (sim[i * n + i], 1.0, 1e-6);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/similarity/known-values", test_known_values);
  g_test_add_func ("/core/similarity/seed-table", test_seed_table);
  g_test_add_func ("/core/similarity/vector-sets", test_vector_sets);
  g_test_add_func ("/core/similarity/vectors-attention", test_vectors_attention);
  g_test_add_func ("/core/similarity/reference-random", test_reference_random);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

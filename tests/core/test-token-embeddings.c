/* test-token-embeddings.c — static and contextual vectors of one token (a lecture's "spring" in
 * three senses).
 *
 * With the shipped GPT-2 attnscope-mini, " spring" (vocabulary entry "Ġspring") in "My favorite
 * season is spring", "The water of the spring is very clean" and "Last night I broke one spring
 * in my bed" (the season, a source, a coil; the lecture's first sentence, "Spring is my favorite
 * season", starts with "Spring", which this vocabulary splits into "Sp" + "ring", so the season
 * sentence is rephrased to hold the same token " spring"):
 *   - the token embeddings (the trace's token_embeddings, before positions are added) of the
 *     three occurrences are the same vector bit for bit — the row of wte read from tf_model.h5
 *     independently of the model loader;
 *   - hidden[0] is that row plus wpe at the token's position, so it differs between the texts;
 *   - the hidden states of every block after it differ between the three senses.
 * Also: the vector set "token-embeddings" of as-trace-vectors.h needs no layer, and a trace
 * without token embeddings is refused with a message. */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-matrix-h5.h"
#include "as-model.h"
#include "as-trace-vectors.h"
#include "check-close.h"

#define WEIGHTS_ROOT "/transformer/tfgp_t2lm_head_model/transformer/"

static const char *const senses[3] = {
  "My favorite season is spring",
  "The water of the spring is very clean",
  "Last night I broke one spring in my bed",
};

static double
cosine (const float *a, const float *b, int d)
{
  double dot = 0, na = 0, nb = 0;
  for (int j = 0; j < d; j++)
    {
      dot += (double) a[j] * b[j];
      na += (double) a[j] * a[j];
      nb += (double) b[j] * b[j];
    }
  return dot / sqrt (na * nb);
}

static void
test_spring (void)
{
  g_autofree char *dir = test_source_path ("data/models/attnscope-mini");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  int32_t spring = as_tokenizer_lookup (tokenizer, "Ġspring");
  g_assert_cmpint (spring, >=, 0);
  g_assert_cmpint (as_tokenizer_lookup (tokenizer, "Spring"), ==, -1);

  g_autofree char *weights = g_build_filename (dir, "tf_model.h5", NULL);
  int V = 0, D = 0, P = 0, D2 = 0;
  g_autofree float *wte = as_matrix_h5_read (weights, WEIGHTS_ROOT "wte/weight:0", &V, &D, &error);
  g_assert_no_error (error);
  g_autofree float *wpe
      = as_matrix_h5_read (weights, WEIGHTS_ROOT "wpe/embeddings:0", &P, &D2, &error);
  g_assert_no_error (error);
  g_assert_cmpint (D, ==, D2);

  AsTrace *traces[3];
  int position[3];
  for (int s = 0; s < 3; s++)
    {
      traces[s] = as_forward_text (model, senses[s], FALSE, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (traces[s]->d_model, ==, D);
      position[s] = -1;
      for (int t = 0; t < traces[s]->n_tokens; t++)
        if (traces[s]->ids[t] == spring)
          {
            g_assert_cmpint (position[s], ==, -1); /* once per sentence */
            position[s] = t;
          }
      g_assert_cmpint (position[s], >=, 0);
      g_test_message ("\"%s\": \" spring\" (id %d) at position %d", senses[s], spring, position[s]);
    }

  const float *row = wte + (gsize) spring * D;
  for (int s = 0; s < 3; s++)
    {
      const AsTrace *t = traces[s];
      const float *static_vector = t->token_embeddings + (gsize) position[s] * D;
      g_assert_cmpmem (static_vector, D * sizeof (float), row, D * sizeof (float));
      /* hidden[0] = token embedding + position embedding */
      const float *h0 = as_trace_hidden (t, 0) + (gsize) position[s] * D;
      const float *pe = wpe + (gsize) position[s] * D;
      for (int j = 0; j < D; j++)
        g_assert_cmpfloat (h0[j], ==, row[j] + pe[j]);
      /* the vector set returns the same rows */
      int rows = 0, dim = 0;
      const float *v
          = as_trace_vectors_get (t, AS_VECTORS_TOKEN_EMBEDDINGS, 99, -1, &rows, &dim, &error);
      g_assert_no_error (error);
      g_assert_true (v == t->token_embeddings);
      g_assert_cmpint (rows, ==, t->n_tokens);
      g_assert_cmpint (dim, ==, D);
    }

  /* the contextual vectors differ between the senses, from hidden[0] (positions) to the last */
  for (int layer = 0; layer <= traces[0]->n_layer; layer++)
    for (int s = 0; s < 3; s++)
      {
        int o = (s + 1) % 3;
        const float *a = as_trace_hidden (traces[s], layer) + (gsize) position[s] * D;
        const float *b = as_trace_hidden (traces[o], layer) + (gsize) position[o] * D;
        double c = cosine (a, b, D);
        g_test_message ("hidden[%d]: cosine of \" spring\" in sentences %d and %d: %.4f", layer,
                        s + 1, o + 1, c);
        g_assert_cmpfloat (c, <, 0.95); /* measured: 0.59 .. 0.91 */
      }
  for (int s = 0; s < 3; s++)
    as_trace_unref (traces[s]);
}

static void
test_vector_set (void)
{
  AsVectorSource source = AS_VECTORS_HIDDEN;
  g_autoptr (GError) error = NULL;
  g_assert_true (as_vector_source_from_string ("token-embeddings", &source, &error));
  g_assert_cmpint (source, ==, AS_VECTORS_TOKEN_EMBEDDINGS);
  g_assert_cmpstr (as_vector_source_to_string (source), ==, "token-embeddings");
  g_assert_false (as_vector_source_needs_layer (source));
  g_assert_false (as_vector_source_needs_head (source));
  g_assert_true (as_vector_source_needs_layer (AS_VECTORS_HIDDEN));
  g_assert_false (as_vector_source_needs_layer (AS_VECTORS_EMBEDDINGS));
  g_assert_false (as_vector_source_from_string ("tokens", &source, &error));
  g_assert_nonnull (strstr (error->message, "token-embeddings"));
  g_clear_error (&error);

  /* a trace whose family provides no token embeddings */
  g_autoptr (AsTrace) t = as_trace_new (1, 1, 3, 4, 4, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_null (t->token_embeddings);
  int rows = 0, dim = 0;
  g_assert_null (as_trace_vectors_get (t, AS_VECTORS_TOKEN_EMBEDDINGS, 0, -1, &rows, &dim, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "provides no token embeddings"));
  g_clear_error (&error);

  /* with them set: rows of the table, the attention of block 0 goes with them */
  const float table[3 * 4] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  const int32_t ids[3] = { 2, 0, 2 };
  as_trace_set_tokens (t, NULL, ids);
  g_assert_true (as_trace_set_token_embeddings (t, table, &error));
  g_assert_no_error (error);
  const float expected[3 * 4] = { 9, 10, 11, 12, 1, 2, 3, 4, 9, 10, 11, 12 };
  g_assert_cmpmem (t->token_embeddings, sizeof expected, expected, sizeof expected);
  float attn[9];
  g_assert_true (as_trace_vectors_attention (attn, t, AS_VECTORS_TOKEN_EMBEDDINGS, 0, -1, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/token-embeddings/spring", test_spring);
  g_test_add_func ("/core/token-embeddings/vector-set", test_vector_set);
  return g_test_run ();
}

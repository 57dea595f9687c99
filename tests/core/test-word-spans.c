/* test-word-spans.c — words as runs of tokens and pooling to words (as-word-spans.h), and which
 * models read sentence pairs (as-sentence-pairs.h).
 *
 * attnscope-mini's byte-level BPE splits "Spring is my favorite season" into "Sp" "ring" "Ġis"
 * "Ġmy" "Ġfavor" "ite" "Ġseason": five words, two of them split. attnscope-mini-bert's WordPiece
 * splits "favourite" into "fa" "##v" "##our" "##ite", and [CLS] and [SEP] are words of their own.
 * Pooled attention is checked by hand on a synthetic matrix and on the model's own: each word's
 * row sums to 1 and a causal model's future words are exactly 0. Word similarity is the cosine of
 * the words' mean hidden states, computed here in double. */
#include <math.h>

#include "as-forward.h"
#include "as-model.h"
#include "as-sentence-pairs.h"
#include "as-word-spans.h"
#include "check-close.h"

/* The words of TEXT (N_TOKENS tokens) in the shipped model MODEL_NAME; *TRACE its trace. */
static AsWordSpans *
spans_of (const char *model_name, const char *text, int n_tokens, AsTrace **trace)
{
  g_autoptr (AsModel) model = test_load_shipped_model (model_name);
  g_autoptr (GError) error = NULL;
  *trace = as_forward_text (model, text, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint ((*trace)->n_tokens, ==, n_tokens);
  return as_word_spans_from_trace (*trace);
}

static void
assert_first (const AsWordSpans *spans, const int *expected, int n_words)
{
  g_assert_cmpint (spans->n_words, ==, n_words);
  for (int w = 0; w <= n_words; w++)
    g_assert_cmpint (spans->first[w], ==, expected[w]);
}

static void
test_bpe_words (void)
{
  g_autoptr (AsTrace) t = NULL;
  g_autoptr (AsWordSpans) spans
      = spans_of ("attnscope-mini", "Spring is my favorite season", 7, &t);
  const int first[] = { 0, 2, 3, 4, 6, 7 };
  assert_first (spans, first, 5);
  const int word_of[] = { 0, 0, 1, 2, 3, 3, 4 };
  for (int i = 0; i < 7; i++)
    g_assert_cmpint (as_word_spans_word_of (spans, i), ==, word_of[i]);

  /* P[i][j] = (7i + j) / 100: word 0 (tokens 0, 1) to word 3 (tokens 4, 5) is the mean over the
   * two query tokens of their summed weights: ((4 + 5) + (11 + 12)) / 100 / 2. */
  float p[49], w[25];
  for (int e = 0; e < 49; e++)
    p[e] = e / 100.0f;
  as_word_pool_attention (w, p, spans);
  g_assert_cmpfloat_with_epsilon (w[0 * 5 + 3], 0.16, 1e-6);
  /* word 3 to word 0: ((28 + 29) + (35 + 36)) / 100 / 2 */
  g_assert_cmpfloat_with_epsilon (w[3 * 5 + 0], 0.64, 1e-6);
  /* word 4 (token 6 alone) to word 2 (token 3 alone): P[6][3] */
  g_assert_cmpfloat_with_epsilon (w[4 * 5 + 2], 0.45, 1e-6);

  /* the model's attention: rows of words sum to 1, future words are 0 */
  as_word_pool_attention (w, as_trace_attn_matrices (t, 1, 2), spans);
  for (int a = 0; a < 5; a++)
    {
      double sum = 0;
      for (int b = 0; b < 5; b++)
        sum += w[a * 5 + b];
      g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-5);
      for (int b = a + 1; b < 5; b++)
        g_assert_cmpfloat (w[a * 5 + b], ==, 0);
    }
}

static void
test_wordpiece_words (void)
{
  g_autoptr (AsTrace) t = NULL;
  g_autoptr (AsWordSpans) spans
      = spans_of ("attnscope-mini-bert", "Spring is my favourite season", 10, &t);
  const int first[] = { 0, 1, 2, 3, 4, 8, 9, 10 };
  assert_first (spans, first, 7);
}

static void
test_word_similarity (void)
{
  g_autoptr (AsTrace) t = NULL;
  g_autoptr (AsWordSpans) spans
      = spans_of ("attnscope-mini", "Spring is my favorite season", 7, &t);
  g_autoptr (GError) error = NULL;
  g_autofree float *s = as_word_similarity (t, AS_VECTORS_HIDDEN, 2, -1, spans, &error);
  g_assert_no_error (error);
  int d = t->d_model, n = spans->n_words;
  const float *h = t->hidden + (gsize) 2 * t->n_tokens * d; /* [T][D] after layer 1 */
  g_autofree double *mean = g_new0 (double, (gsize) n *d);
  for (int w = 0; w < n; w++)
    for (int i = spans->first[w]; i < spans->first[w + 1]; i++)
      for (int k = 0; k < d; k++)
        mean[(gsize) w * d + k] += h[(gsize) i * d + k] / (spans->first[w + 1] - spans->first[w]);
  g_autofree float *expected = g_new (float, (gsize) n *n);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++)
      {
        double dot = 0, na = 0, nb = 0;
        for (int k = 0; k < d; k++)
          {
            double x = mean[(gsize) a * d + k], y = mean[(gsize) b * d + k];
            dot += x * y, na += x * x, nb += y * y;
          }
        expected[a * n + b] = (float) (dot / sqrt (na * nb));
      }
  check_close ("word similarity", s, expected, (gsize) n * n, 1e-5, 0);
  for (int a = 0; a < n; a++)
    g_assert_cmpfloat_with_epsilon (s[a * n + a], 1.0, 1e-5);
  /* "Spring" against "is", as numpy gives it from `attnscope run --dump`'s hidden_states[2] */
  g_assert_cmpfloat_with_epsilon (s[1], 0.51985, 1e-4);
}

static void
test_takes_pairs (void)
{
  const struct
  {
    const char *model;
    gboolean pairs;
  } cases[] = {
    { "attnscope-mini-bert", TRUE },   /* an encoder with [SEP] */
    { "attnscope-mini", FALSE },       /* a causal LM */
    { "attnscope-mini-en-de", FALSE }, /* an encoder–decoder */
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (AsModel) model = test_load_shipped_model (cases[c].model);
      g_assert_cmpint (as_model_takes_pairs (model), ==, cases[c].pairs);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/word-spans/bpe-words-and-pooling", test_bpe_words);
  g_test_add_func ("/core/word-spans/wordpiece-words", test_wordpiece_words);
  g_test_add_func ("/core/word-spans/word-similarity", test_word_similarity);
  g_test_add_func ("/core/sentence-pairs/takes-pairs", test_takes_pairs);
  return g_test_run ();
}

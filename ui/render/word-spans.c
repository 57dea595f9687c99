/* word-spans.c — words as runs of tokens, and pooling to words (see word-spans.h). */
#include "word-spans.h"

#include <string.h>

#include "as-similarity.h"

/* A special token: a vocabulary string in angle or square brackets ("<|endoftext|>", "[CLS]"). */
static gboolean
is_special (const char *token)
{
  gsize n = token != NULL ? strlen (token) : 0;
  return n >= 3
         && ((token[0] == '<' && token[n - 1] == '>') || (token[0] == '[' && token[n - 1] == ']'));
}

static gboolean
starts_with_space (const char *text)
{
  if (text == NULL || *text == '\0')
    return FALSE;
  gunichar c = g_utf8_get_char_validated (text, -1);
  return c == 0x2581 || (c != (gunichar) -1 && c != (gunichar) -2 && g_unichar_isspace (c))
         || (guchar) text[0] == ' ';
}

static gboolean
ends_with_space (const char *text)
{
  gsize n = text != NULL ? strlen (text) : 0;
  return n > 0 && g_ascii_isspace (text[n - 1]);
}

/* Whether token I of TRACE starts a word; WORDPIECE: the vocabulary marks continuations with
 * "##". */
static gboolean
starts_word (const AsTrace *trace, int i, gboolean wordpiece)
{
  if (i == 0 || is_special (trace->tokens[i]) || is_special (trace->tokens[i - 1]))
    return TRUE;
  if (wordpiece)
    return !g_str_has_prefix (trace->tokens[i], "##");
  const char *text = trace->token_texts[i];
  return starts_with_space (text) || g_str_has_prefix (trace->tokens[i], "\u0120")
         || ends_with_space (trace->token_texts[i - 1]);
}

ArWordSpans *
ar_word_spans_from_trace (const AsTrace *trace, ArTokenLabelFlags flags)
{
  int t = trace->n_tokens;
  gboolean wordpiece = FALSE;
  for (int i = 0; i < t && !wordpiece; i++)
    wordpiece = g_str_has_prefix (trace->tokens[i], "##");
  ArWordSpans *spans = g_new0 (ArWordSpans, 1);
  spans->first = g_new (int, t + 1);
  for (int i = 0; i < t; i++)
    if (starts_word (trace, i, wordpiece))
      spans->first[spans->n_words++] = i;
  spans->first[spans->n_words] = t;
  /* A word's label is the label of its tokens' texts (and vocabulary strings) joined, so the
   * pieces of a split character come back together. */
  spans->labels = g_new0 (char *, spans->n_words + 1);
  for (int w = 0; w < spans->n_words; w++)
    {
      g_autoptr (GString) text = g_string_new (NULL), vocab = g_string_new (NULL);
      for (int i = spans->first[w]; i < spans->first[w + 1]; i++)
        {
          if (trace->token_texts[i] != NULL)
            g_string_append (text, trace->token_texts[i]);
          g_string_append (vocab, trace->tokens[i]);
        }
      const char *tokens[] = { vocab->str }, *texts[] = { text->str };
      g_auto (GStrv) label = ar_token_labels (tokens, texts, 1, flags);
      spans->labels[w] = g_strdup (label[0]);
    }
  return spans;
}

void
ar_word_spans_free (ArWordSpans *spans)
{
  if (spans == NULL)
    return;
  g_free (spans->first);
  g_strfreev (spans->labels);
  g_free (spans);
}

int
ar_word_spans_word_of (const ArWordSpans *spans, int i)
{
  int lo = 0, hi = spans->n_words - 1;
  while (lo < hi)
    {
      int mid = (lo + hi + 1) / 2;
      if (spans->first[mid] <= i)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

void
ar_word_pool_attention (float *out, const float *p, const ArWordSpans *spans)
{
  int t = spans->first[spans->n_words], n = spans->n_words;
  for (int a = 0; a < n; a++)
    {
      int qa = spans->first[a], qb = spans->first[a + 1];
      for (int b = 0; b < n; b++)
        {
          int ka = spans->first[b], kb = spans->first[b + 1];
          double sum = 0;
          for (int i = qa; i < qb; i++)
            for (int j = ka; j < kb; j++)
              sum += p[(gsize) i * t + j];
          out[(gsize) a * n + b] = (float) (sum / (qb - qa));
        }
    }
}

void
ar_word_pool_vectors (float *out, const float *x, int dim, const ArWordSpans *spans)
{
  for (int w = 0; w < spans->n_words; w++)
    {
      int a = spans->first[w], b = spans->first[w + 1];
      for (int d = 0; d < dim; d++)
        {
          double sum = 0;
          for (int i = a; i < b; i++)
            sum += x[(gsize) i * dim + d];
          out[(gsize) w * dim + d] = (float) (sum / (b - a));
        }
    }
}

float *
ar_word_similarity (const AsTrace *trace, AsVectorSource source, int layer, int head,
                    const ArWordSpans *spans, GError **error)
{
  int n = 0, dim = 0;
  const float *x = as_trace_vectors_get (trace, source, layer, head, &n, &dim, error);
  if (x == NULL)
    return NULL;
  g_autofree float *words = g_new (float, (gsize) spans->n_words *dim); /* [W][dim] */
  ar_word_pool_vectors (words, x, dim, spans);
  float *similarity = g_new (float, (gsize) spans->n_words * spans->n_words); /* [W][W] */
  as_cosine_similarity_matrix (similarity, words, spans->n_words, dim);
  return similarity;
}

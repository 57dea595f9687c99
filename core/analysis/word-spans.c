/* word-spans.c — words as runs of tokens, and pooling to words (see as-word-spans.h). */
#include "as-word-spans.h"

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

AsWordSpans *
as_word_spans_from_trace (const AsTrace *trace)
{
  int t = trace->n_tokens;
  gboolean wordpiece = FALSE;
  for (int i = 0; i < t && !wordpiece; i++)
    wordpiece = g_str_has_prefix (trace->tokens[i], "##");
  AsWordSpans *spans = g_new0 (AsWordSpans, 1);
  spans->first = g_new (int, t + 1);
  for (int i = 0; i < t; i++)
    if (starts_word (trace, i, wordpiece))
      spans->first[spans->n_words++] = i;
  spans->first[spans->n_words] = t;
  return spans;
}

void
as_word_spans_free (AsWordSpans *spans)
{
  if (spans == NULL)
    return;
  g_free (spans->first);
  g_free (spans);
}

int
as_word_spans_word_of (const AsWordSpans *spans, int i)
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
as_word_pool_attention (float *out, const float *p, const AsWordSpans *spans)
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
as_word_pool_vectors (float *out, const float *x, int dim, const AsWordSpans *spans)
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
as_word_similarity (const AsTrace *trace, AsVectorSource source, int layer, int head,
                    const AsWordSpans *spans, GError **error)
{
  int n = 0, dim = 0;
  const float *x = as_trace_vectors_get (trace, source, layer, head, &n, &dim, error);
  if (x == NULL)
    return NULL;
  g_autofree float *words = g_new (float, (gsize) spans->n_words *dim); /* [W][dim] */
  as_word_pool_vectors (words, x, dim, spans);
  float *similarity = g_new (float, (gsize) spans->n_words * spans->n_words); /* [W][W] */
  as_cosine_similarity_matrix (similarity, words, spans->n_words, dim);
  return similarity;
}

/* word-labels.c — labels of words (see word-labels.h). */
#include "word-labels.h"

char **
ar_word_labels (const AsTrace *trace, const AsWordSpans *spans, ArTokenLabelFlags flags)
{
  char **labels = g_new0 (char *, spans->n_words + 1);
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
      labels[w] = g_strdup (label[0]);
    }
  return labels;
}

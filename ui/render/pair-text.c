/* pair-text.c — sentence pairs' texts (see pair-text.h). */
#include "pair-text.h"

#include "as-word-marks.h"

char *
ar_pair_text_join (const char *text, const char *pair)
{
  if (pair == NULL || *pair == '\0')
    return g_strdup (text);
  return g_strconcat (text, " ‖ ", pair, NULL);
}

char *
ar_shown_text (const AsTrace *trace, const char *text, const char *pair, gboolean truncated)
{
  if (!truncated || (pair != NULL && *pair != '\0') || trace->n_tokens == 0)
    return ar_pair_text_join (text, pair);
  int n = trace->n_tokens;
  g_autofree int *begin = g_new (int, n);
  g_autofree int *end = g_new (int, n);
  as_token_spans (begin, end, trace, text);
  int last = 0;
  for (int t = 0; t < n; t++)
    last = MAX (last, end[t]);
  return g_strndup (text, last);
}

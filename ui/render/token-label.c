/* token-label.c — token labels: the readable tokens of core (as-readable-tokens.h), or the
 * vocabulary strings as they are (see token-label.h). */
#include "token-label.h"

#include "as-readable-tokens.h"

char *
ar_token_label (const char *token, const char *text, gboolean raw)
{
  const char *tokens[] = { token };
  const char *texts[] = { text };
  g_auto (GStrv) labels
      = ar_token_labels (tokens, texts, 1, raw ? AR_TOKEN_LABEL_RAW : AR_TOKEN_LABEL_DEFAULT);
  return g_strdup (labels[0]);
}

char **
ar_token_labels (const char *const *tokens, const char *const *texts, int n,
                 ArTokenLabelFlags flags)
{
  if (!(flags & AR_TOKEN_LABEL_RAW))
    return as_readable_tokens (tokens, texts, n,
                               flags & AR_TOKEN_LABEL_NO_SPACE_MARKS ? AS_READABLE_NO_SPACE_MARKS
                                                                     : AS_READABLE_DEFAULT);
  char **labels = g_new0 (char *, n + 1);
  for (int i = 0; i < n; i++)
    labels[i] = g_strdup (tokens[i] != NULL ? tokens[i] : "");
  return labels;
}

char **
ar_token_labels_from_trace (const AsTrace *trace, ArTokenLabelFlags flags)
{
  return ar_token_labels ((const char *const *) trace->tokens,
                          (const char *const *) trace->token_texts, trace->n_tokens, flags);
}

/* pair-text.c — sentence pairs' texts (see pair-text.h). */
#include "pair-text.h"

char *
ar_pair_text_join (const char *text, const char *pair)
{
  if (pair == NULL || *pair == '\0')
    return g_strdup (text);
  return g_strconcat (text, " ‖ ", pair, NULL);
}

/* token-label.c — token texts with their whitespace made visible (see token-label.h). */
#include "token-label.h"

static void
append_visible (GString *out, gunichar c)
{
  if (c == ' ')
    g_string_append (out, "\u2423");
  else if (c == '\n')
    g_string_append (out, "\u21b5");
  else if (c == '\t')
    g_string_append (out, "\u21e5");
  else if (c < 0x20)
    g_string_append_unichar (out, 0x2400 + c);
  else if (c == 0x7f)
    g_string_append (out, "\u2421");
  else
    g_string_append_unichar (out, c);
}

char *
ar_token_label (const char *token, const char *text, gboolean raw)
{
  if (token == NULL)
    return g_strdup ("");
  if (raw || text == NULL || !g_utf8_validate (text, -1, NULL))
    return g_strdup (token);
  GString *out = g_string_new (NULL);
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    append_visible (out, g_utf8_get_char (p));
  return g_string_free (out, FALSE);
}

char **
ar_token_labels_from_trace (const AsTrace *trace, gboolean raw)
{
  char **labels = g_new0 (char *, trace->n_tokens + 1);
  for (int i = 0; i < trace->n_tokens; i++)
    labels[i] = ar_token_label (trace->tokens[i], trace->token_texts[i], raw);
  return labels;
}

/* token-label.c — GPT-2 byte-level tokens decoded, with whitespace made visible. */
#include "token-label.h"

#include "byte-unicode.h"

/* The bytes TOKEN stands for, or NULL when a character is outside the byte table. */
static GByteArray *
token_bytes (const char *token)
{
  GByteArray *bytes = g_byte_array_new ();
  for (const char *p = token; *p != '\0'; p = g_utf8_next_char (p))
    {
      int b = byte_unicode_to_byte (g_utf8_get_char (p));
      if (b < 0)
        {
          g_byte_array_unref (bytes);
          return NULL;
        }
      guint8 byte = (guint8) b;
      g_byte_array_append (bytes, &byte, 1);
    }
  return bytes;
}

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
as_token_label (const char *token, gboolean raw)
{
  if (token == NULL)
    return g_strdup ("");
  if (raw || !g_utf8_validate (token, -1, NULL))
    return g_strdup (token);
  g_autoptr (GByteArray) bytes = token_bytes (token);
  if (bytes == NULL || !g_utf8_validate ((const char *) bytes->data, bytes->len, NULL))
    return g_strdup (token);
  GString *out = g_string_new (NULL);
  const char *text = (const char *) bytes->data;
  for (const char *p = text; p < text + bytes->len; p = g_utf8_next_char (p))
    append_visible (out, g_utf8_get_char (p));
  return g_string_free (out, FALSE);
}

char **
as_token_labels_from_trace (const AsTrace *trace, gboolean raw)
{
  char **labels = g_new0 (char *, trace->n_tokens + 1);
  for (int i = 0; i < trace->n_tokens; i++)
    labels[i] = as_token_label (trace->tokens[i], raw);
  return labels;
}

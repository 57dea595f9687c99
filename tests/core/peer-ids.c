/* peer-ids.c — see peer-ids.h. */
#include "peer-ids.h"

#include <stdint.h>
#include <string.h>

GArray *
peer_json_ids (JsonObject *row, const char *name)
{
  JsonArray *array = json_object_get_array_member (row, name);
  g_assert_nonnull (array);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      int32_t id = (int32_t) json_array_get_int_element (array, i);
      g_array_append_val (ids, id);
    }
  return ids;
}

gboolean
peer_ids_equal (const GArray *a, const GArray *b)
{
  return a->len == b->len
         && (a->len == 0 || memcmp (a->data, b->data, a->len * sizeof (int32_t)) == 0);
}

char *
peer_escape_text (const char *text)
{
  GString *s = g_string_new (NULL);
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (c == '\n')
        g_string_append (s, "\\n");
      else if (c == '\t')
        g_string_append (s, "\\t");
      else if (c == '\\' || c == '"')
        g_string_append_printf (s, "\\%c", (char) c);
      else if (c >= 0x20 && c < 0x7F)
        g_string_append_c (s, (char) c);
      else
        g_string_append_printf (s, "\\u{%04X}", c);
    }
  return g_string_free (s, FALSE);
}

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

char *
peer_ids_string (const GArray *ids)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < ids->len && i < 40; i++)
    g_string_append_printf (s, "%s%d", i ? " " : "", g_array_index (ids, int32_t, i));
  if (ids->len > 40)
    g_string_append (s, " ...");
  return g_string_free (s, FALSE);
}

void
peer_report_mismatch (guint *mismatches, const char *name, guint line, const char *what,
                      const char *text, const char *got, const char *want)
{
  if ((*mismatches)++ < 8)
    {
      g_autofree char *escaped = peer_escape_text (text);
      g_test_message ("%s line %u (%s): \"%s\"\n  ours: %s\n  HF:   %s", name, line, what, escaped,
                      got, want);
    }
}

void
peer_compare_ids (guint *mismatches, const char *name, guint line, const char *what,
                  const char *text, const GArray *ours, const GArray *theirs)
{
  if (peer_ids_equal (ours, theirs))
    return;
  g_autofree char *a = peer_ids_string (ours), *b = peer_ids_string (theirs);
  peer_report_mismatch (mismatches, name, line, what, text, a, b);
}

guint
peer_check_decode_and_pair (AsTokenizer *tokenizer, guint *mismatches, const char *name, guint line,
                            const char *text, const char *next, JsonObject *row,
                            const GArray *hf_plain)
{
  g_autofree char *decoded
      = as_tokenizer_decode (tokenizer, (const int32_t *) hf_plain->data, hf_plain->len);
  const char *hf_text = json_object_get_string_member (row, "text");
  if (g_strcmp0 (decoded, hf_text) != 0)
    {
      g_autofree char *a = peer_escape_text (decoded), *b = peer_escape_text (hf_text);
      peer_report_mismatch (mismatches, name, line, "decode", text, a, b);
    }
  if (!json_object_has_member (row, "pair_ids"))
    return 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsEncoding) pair
      = as_tokenizer_encode_full (tokenizer, text, -1, next, -1, AS_ENCODE_DEFAULT, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) hf_pair = peer_json_ids (row, "pair_ids");
  g_autoptr (GArray) hf_types = peer_json_ids (row, "pair_types");
  peer_compare_ids (mismatches, name, line, "pair", text, pair->ids, hf_pair);
  peer_compare_ids (mismatches, name, line, "pair type ids", text, pair->type_ids, hf_types);
  return 1;
}

/* hf-wordpiece.c — tokenizer.json's WordPiece and WordLevel models.
 *
 * WordPiece (src/models/wordpiece/mod.rs): a piece of more than max_input_chars_per_word
 * characters is the unknown token; otherwise greedy longest-match-first from the left, every
 * match but the first looked up with continuing_subword_prefix ("##"); when some position has
 * no match the whole piece is one unknown token. WordLevel (src/models/wordlevel/mod.rs): the
 * piece's id, or the unknown token. Both need their unknown token in the vocabulary ("[UNK]"
 * and "<unk>" by default); attnscope checks that at load, HF when it is first needed. */
#include "hf-model-private.h"

#include <string.h>

gboolean
as_hf_wordpiece_read (AsHfModel *model, const AsHfJson *json, GError **error)
{
  const char *prefix;
  if (!as_hf_json_string (json, "continuing_subword_prefix", "##", &prefix, error)
      || !as_hf_json_int (json, "max_input_chars_per_word", 100, 0, G_MAXINT32,
                          &model->max_input_chars_per_word, error)
      || !as_hf_model_read_vocab (model, json, error))
    return FALSE;
  model->continuing_subword_prefix = g_strdup (prefix);
  return as_hf_model_read_unk (model, json, "[UNK]", error);
}

gboolean
as_hf_wordlevel_read (AsHfModel *model, const AsHfJson *json, GError **error)
{
  return as_hf_model_read_vocab (model, json, error)
         && as_hf_model_read_unk (model, json, "<unk>", error);
}

void
as_hf_wordpiece_tokenize (const AsHfModel *model, const char *piece, gsize length, GArray *ids)
{
  if (g_utf8_strlen (piece, (gssize) length) > model->max_input_chars_per_word
      || memchr (piece, '\0', length) != NULL)
    {
      g_array_append_val (ids, model->unk_id);
      return;
    }
  guint first = ids->len;
  g_autoptr (GString) key = g_string_new (NULL);
  gsize start = 0;
  while (start < length)
    {
      gsize end = length;
      int32_t found = -1;
      while (start < end)
        {
          g_string_truncate (key, 0);
          if (start > 0)
            g_string_append (key, model->continuing_subword_prefix);
          g_string_append_len (key, piece + start, (gssize) (end - start));
          found = as_hf_model_lookup (model, key->str, key->len);
          if (found >= 0)
            break;
          end = (gsize) (g_utf8_prev_char (piece + end) - piece);
        }
      if (found < 0)
        {
          g_array_set_size (ids, first);
          g_array_append_val (ids, model->unk_id);
          return;
        }
      g_array_append_val (ids, found);
      start = end;
    }
}

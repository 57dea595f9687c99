/* hf-wordpiece.c — tokenizer.json's WordPiece and WordLevel models.
 *
 * WordPiece (src/models/wordpiece/mod.rs): a piece of more than max_input_chars_per_word
 * characters is the unknown token; otherwise greedy longest-match-first from the left, every
 * match but the first looked up with continuing_subword_prefix ("##"); when some position has
 * no match the whole piece is one unknown token. WordLevel (src/models/wordlevel/mod.rs): the
 * piece's id, or the unknown token. Both need their unknown token in the vocabulary ("[UNK]"
 * and "<unk>" by default); attnscope checks that at load, HF when it is first needed. */
#include "hf-wordpiece-private.h"

#include <string.h>

#include "as-error.h"

static gboolean
wordpiece_read (AsHfModel *model, const AsHfJson *json, GError **error)
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

static gboolean
wordlevel_read (AsHfModel *model, const AsHfJson *json, GError **error)
{
  return as_hf_model_read_vocab (model, json, error)
         && as_hf_model_read_unk (model, json, "<unk>", error);
}

static gboolean
wordpiece_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids, GError **error)
{
  if (g_utf8_strlen (piece, (gssize) length) > model->max_input_chars_per_word
      || memchr (piece, '\0', length) != NULL)
    {
      g_array_append_val (ids, model->unk_id);
      return TRUE;
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
          return TRUE;
        }
      g_array_append_val (ids, found);
      start = end;
    }
  return TRUE;
}

/* The tokenize of both: WordLevel's is a lookup. */
static gboolean
wordlevel_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids, GError **error)
{
  int32_t id = as_hf_model_lookup (model, piece, length);
  id = id >= 0 ? id : model->unk_id;
  g_array_append_val (ids, id);
  return TRUE;
}

const AsHfModelClass as_hf_model_wordpiece = {
  .type = "WordPiece",
  .marker = "continuing_subword_prefix",
  .read = wordpiece_read,
  .tokenize = wordpiece_tokenize,
};

const AsHfModelClass as_hf_model_wordlevel = {
  .type = "WordLevel",
  .marker = "unk_token",
  .read = wordlevel_read,
  .tokenize = wordlevel_tokenize,
};

AsHfModel *
as_hf_wordpiece_new_vocab (GPtrArray *vocab, const char *unk_token, const char *source,
                           GError **error)
{
  g_autoptr (AsHfModel) model = as_hf_model_new (&as_hf_model_wordpiece);
  AsHfJson json = { NULL, source, "vocab" };
  for (guint i = 0; i < vocab->len; i++)
    {
      const char *token = g_ptr_array_index (vocab, i);
      if (g_hash_table_contains (model->token_to_id, token))
        {
          /* vocab.txt: a repeated line keeps the later id (HF's BertTokenizer dict) */
          g_ptr_array_set_size (model->id_to_token, i + 1);
          char *copy = g_strdup (token);
          g_ptr_array_index (model->id_to_token, i) = copy;
          g_hash_table_replace (model->token_to_id, copy, GINT_TO_POINTER ((int32_t) i));
          continue;
        }
      if (!as_hf_model_add_token (model, token, i, &json, error))
        return NULL;
    }
  model->continuing_subword_prefix = g_strdup ("##");
  model->max_input_chars_per_word = 100;
  model->unk_id = as_hf_model_lookup (model, unk_token, strlen (unk_token));
  if (model->unk_id < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the unknown token \"%s\" is not in the vocabulary", source, unk_token);
      return NULL;
    }
  return g_steal_pointer (&model);
}

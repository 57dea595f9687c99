/* hf-vocab.c — the vocabulary every tokenizer.json model has (hf-vocab-private.h). */
#include "hf-vocab-private.h"

#include <string.h>

#include "as-error.h"

#define VOCAB_MAX_ID (1 << 24)

void
as_hf_model_free (AsHfModel *model)
{
  if (model == NULL)
    return;
  g_clear_pointer (&model->token_to_id, g_hash_table_unref);
  g_clear_pointer (&model->id_to_token, g_ptr_array_unref);
  g_clear_pointer (&model->cache, as_word_cache_free);
  g_clear_pointer (&model->merges, as_bpe_merges_free);
  g_clear_pointer (&model->trie, as_byte_trie_free);
  g_free (model->continuing_subword_prefix);
  g_free (model->end_of_word_suffix);
  g_free (model->scores);
  g_free (model);
}

AsHfModel *
as_hf_model_new (const AsHfModelClass *klass)
{
  AsHfModel *model = g_new0 (AsHfModel, 1);
  model->klass = klass;
  model->id_to_token = g_ptr_array_new_with_free_func (g_free);
  model->token_to_id = g_hash_table_new (g_str_hash, g_str_equal);
  model->cache = as_word_cache_new ();
  model->unk_id = -1;
  for (guint b = 0; b < 256; b++)
    model->byte_ids[b] = -1;
  return model;
}

/* A vocabulary string's cost: its bytes and NUL, its malloc header, a slot of id_to_token and an
 * entry of token_to_id (key, value, hash). */
#define TOKEN_OVERHEAD 48

guint64
as_hf_model_bytes (const AsHfModel *model)
{
  guint64 bytes = sizeof *model;
  for (guint i = 0; i < model->id_to_token->len; i++)
    {
      const char *token = g_ptr_array_index (model->id_to_token, i);
      bytes += sizeof (gpointer) + (token != NULL ? strlen (token) + 1 + TOKEN_OVERHEAD : 0);
    }
  if (model->merges != NULL)
    bytes += as_bpe_merges_bytes (model->merges);
  if (model->trie != NULL)
    bytes += as_byte_trie_bytes (model->trie);
  if (model->scores != NULL)
    bytes += model->id_to_token->len * sizeof (double);
  return bytes;
}

gboolean
as_hf_model_add_token (AsHfModel *model, const char *token, gint64 id, const AsHfJson *json,
                       GError **error)
{
  if (id < 0 || id >= VOCAB_MAX_ID)
    return as_hf_json_fail (json, error,
                            "token \"%s\" has id %" G_GINT64_FORMAT ", expected 0 <= id < %d",
                            token, id, VOCAB_MAX_ID);
  if ((guint) id >= model->id_to_token->len)
    g_ptr_array_set_size (model->id_to_token, (guint) id + 1);
  const char *other = g_ptr_array_index (model->id_to_token, id);
  if (other != NULL)
    return as_hf_json_fail (json, error, "tokens \"%s\" and \"%s\" both have id %" G_GINT64_FORMAT,
                            other, token, id);
  char *copy = g_strdup (token);
  g_ptr_array_index (model->id_to_token, id) = copy;
  g_hash_table_replace (model->token_to_id, copy, GINT_TO_POINTER ((int32_t) id));
  return TRUE;
}

int32_t
as_hf_model_lookup (const AsHfModel *model, const char *token, gsize length)
{
  char stack[128];
  g_autofree char *heap = length < sizeof stack ? NULL : g_malloc (length + 1);
  char *key = heap != NULL ? heap : stack;
  memcpy (key, token, length);
  key[length] = '\0';
  gpointer value;
  if (!g_hash_table_lookup_extended (model->token_to_id, key, NULL, &value))
    return -1;
  return GPOINTER_TO_INT (value);
}

void
as_hf_model_find_byte_tokens (AsHfModel *model)
{
  for (guint b = 0; b < 256; b++)
    {
      char name[8];
      g_snprintf (name, sizeof name, "<0x%02X>", b);
      model->byte_ids[b] = as_hf_model_lookup (model, name, strlen (name));
    }
}

gboolean
as_hf_model_read_vocab (AsHfModel *model, const AsHfJson *json, GError **error)
{
  JsonNode *vocab = as_hf_json_member (json, "vocab");
  g_autofree char *path = as_hf_json_child_path (json, "vocab", -1);
  AsHfJson sub = { vocab, json->file, path };
  if (vocab == NULL || !JSON_NODE_HOLDS_OBJECT (vocab))
    return as_hf_json_fail (json, error, "\"vocab\" must be an object of token: id");
  JsonObject *object = json_node_get_object (vocab);
  JsonObjectIter iter;
  const char *token;
  JsonNode *value;
  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &token, &value))
    {
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_INT64)
        return as_hf_json_fail (&sub, error, "the id of \"%s\" is not an integer", token);
      if (!as_hf_model_add_token (model, token, json_node_get_int (value), &sub, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
as_hf_model_read_unk (AsHfModel *model, const AsHfJson *json, const char *fallback, GError **error)
{
  const char *unk;
  if (!as_hf_json_string (json, "unk_token", fallback, &unk, error))
    return FALSE;
  if (unk == NULL)
    return TRUE;
  model->unk_id = as_hf_model_lookup (model, unk, strlen (unk));
  if (model->unk_id < 0)
    return as_hf_json_fail (json, error, "unk_token \"%s\" is not in the vocabulary", unk);
  return TRUE;
}

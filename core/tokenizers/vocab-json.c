/* vocab-json.c — reading vocab.json, the token → id map of Hugging Face tokenizers.
 *
 * The file is one JSON object whose members map token strings to integer ids. Ids must be
 * distinct and lie in 0 ≤ id < 2^24; the vocabulary size is the largest id + 1, and ids nobody
 * uses stay holes (as_tokenizer_get_token returns NULL for them). */
#include "vocab-json-private.h"

#include <json-glib/json-glib.h>

#include "as-error.h"
#include "file-read-private.h"
#include "json-file-private.h"

#define VOCAB_MAX_ID (1 << 24)

/* Checks one member and returns its id, or -1 with ERROR set. */
static int32_t
vocab_member_id (const char *path, JsonObject *object, const char *token, GError **error)
{
  JsonNode *node = json_object_get_member (object, token);
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the value of token \"%s\" is not an integer id", path, token);
      return -1;
    }
  gint64 id = json_node_get_int (node);
  if (id < 0 || id >= VOCAB_MAX_ID)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: token \"%s\" has id %" G_GINT64_FORMAT ", expected 0 <= id < %d", path,
                   token, id, VOCAB_MAX_ID);
      return -1;
    }
  return (int32_t) id;
}

gboolean
as_tokenizer_load_vocab_json (AsTokenizer *tokenizer, const char *path, GError **error)
{
  g_free (tokenizer->source);
  tokenizer->source = g_strdup (path);
  g_autoptr (JsonNode) root = as_json_load_file (path, AS_LIMIT_VOCABULARY_BYTES, error);
  if (root == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: expected a JSON object mapping tokens to ids", path);
      return FALSE;
    }
  JsonObject *object = json_node_get_object (root);
  g_autoptr (GList) members = json_object_get_members (object);
  if (members == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: the vocabulary is empty", path);
      return FALSE;
    }

  g_autoptr (GPtrArray) id_to_token = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) token_to_id = g_hash_table_new (g_str_hash, g_str_equal);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *token = l->data;
      int32_t id = vocab_member_id (path, object, token, error);
      if (id < 0)
        return FALSE;
      if ((guint) id >= id_to_token->len)
        g_ptr_array_set_size (id_to_token, id + 1);
      if (g_ptr_array_index (id_to_token, id) != NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: tokens \"%s\" and \"%s\" both have id %d; ids must be distinct", path,
                       (const char *) g_ptr_array_index (id_to_token, id), token, id);
          return FALSE;
        }
      char *copy = g_strdup (token);
      g_ptr_array_index (id_to_token, id) = copy;
      g_hash_table_insert (token_to_id, copy, GINT_TO_POINTER (id));
    }

  tokenizer->id_to_token = g_steal_pointer (&id_to_token);
  tokenizer->token_to_id = g_steal_pointer (&token_to_id);
  return TRUE;
}

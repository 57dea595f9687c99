/* tokenizer-config.c — tokenizer_config.json and special_tokens_map.json
 * (tokenizer-config-private.h).
 *
 * A special token is a string or an object with "content" (transformers' AddedToken), looked up
 * in tokenizer_config.json first, then in special_tokens_map.json. transformers' Llama, Code
 * Llama, Gemma and GPT-NeoX fast tokenizers rebuild their post-processor from add_bos_token /
 * add_eos_token (tokenization_llama_fast.py, update_post_processor), so those two flags are read
 * for these tokenizer classes only. */
#include "tokenizer-config-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "file-read-private.h"
#include "json-file-private.h"

/* "bos_token", "eos_token", ... in AsTokenizerRole order. */
static const char *const role_names[AS_TOKENIZER_N_ROLES] = {
  "bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token",
};

/* A token string from a config value: "tok" or {"content": "tok", ...}. Borrowed. */
static const char *
config_token (JsonObject *config, const char *key)
{
  JsonNode *n = config != NULL ? json_object_get_member (config, key) : NULL;
  if (n == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    return json_node_get_string (n);
  if (JSON_NODE_HOLDS_OBJECT (n))
    {
      JsonNode *c = json_object_get_member (json_node_get_object (n), "content");
      if (c != NULL && JSON_NODE_HOLDS_VALUE (c) && json_node_get_value_type (c) == G_TYPE_STRING)
        return json_node_get_string (c);
    }
  return NULL;
}

/* -1 absent, else the boolean value of KEY. */
static int
config_flag (JsonObject *config, const char *key)
{
  JsonNode *n = config != NULL ? json_object_get_member (config, key) : NULL;
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return -1;
  return json_node_get_boolean (n) ? 1 : 0;
}

/* Reads FOLDER/NAME as an object when it exists (NULL otherwise, or with ERROR when broken). */
static JsonNode *
load_optional_object (const char *folder, const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  return as_json_load_object_file (path, AS_LIMIT_CONFIG_BYTES, error);
}

void
as_tokenizer_config_clear (AsTokenizerConfig *config)
{
  for (guint i = 0; i < AS_TOKENIZER_N_ROLES; i++)
    g_clear_pointer (&config->role_tokens[i], g_free);
}

gboolean
as_tokenizer_config_read (AsTokenizerConfig *config, const char *folder, GError **error)
{
  *config = (AsTokenizerConfig){ -1, -1, -1, -1, -1, { NULL } };
  GError *local = NULL;
  g_autoptr (JsonNode) config_node = load_optional_object (folder, "tokenizer_config.json", &local);
  if (local == NULL && config_node == NULL)
    return TRUE;
  g_autoptr (JsonNode) map_node
      = local == NULL ? load_optional_object (folder, "special_tokens_map.json", &local) : NULL;
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  JsonObject *object = json_node_get_object (config_node);
  JsonObject *map = map_node != NULL ? json_node_get_object (map_node) : NULL;
  config->lowercase = config_flag (object, "do_lower_case");
  config->strip_accents = config_flag (object, "strip_accents");
  config->chinese = config_flag (object, "tokenize_chinese_chars");
  for (guint i = 0; i < AS_TOKENIZER_N_ROLES; i++)
    {
      const char *t = config_token (object, role_names[i]);
      if (t == NULL)
        t = config_token (map, role_names[i]);
      config->role_tokens[i] = g_strdup (t);
    }
  JsonNode *cls = json_object_get_member (object, "tokenizer_class");
  const char *klass = cls != NULL && JSON_NODE_HOLDS_VALUE (cls)
                              && json_node_get_value_type (cls) == G_TYPE_STRING
                          ? json_node_get_string (cls)
                          : "";
  static const char *const rebuilders[]
      = { "LlamaTokenizer", "LlamaTokenizerFast", "CodeLlamaTokenizer", "CodeLlamaTokenizerFast",
          "GemmaTokenizer", "GemmaTokenizerFast", "GPTNeoXTokenizer",   "GPTNeoXTokenizerFast" };
  for (guint i = 0; i < G_N_ELEMENTS (rebuilders); i++)
    if (strcmp (klass, rebuilders[i]) == 0)
      {
        config->add_bos = config_flag (object, "add_bos_token");
        config->add_eos = config_flag (object, "add_eos_token");
      }
  return TRUE;
}

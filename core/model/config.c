/* config.c — reads and validates a Hugging Face config.json (as-config.h).
 *
 * model_type picks the model family (model/family-private.h), which reads the keys its
 * architecture needs through config-reader-private.h. Every value is checked before anything is
 * allocated from it: sizes must be positive and sane, eps positive and finite; the weights the
 * sizes imply are counted, and must fit in memory before a model's weights are read
 * (as_config_check_memory). Errors name the file and the key. */
#include "as-config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "as-error.h"
#include "as-trace.h"
#include "family-private.h"
#include "file-read-private.h"
#include "json-file-private.h"

/* Bytes per weight the checkpoint declares (torch_dtype, transformers 5: dtype): 2 for bfloat16
 * and float16, whose weights stay 16-bit in memory; else 4. */
static guint64
config_weight_bytes (const AsConfigReader *r)
{
  const char *keys[] = { "torch_dtype", "dtype" };
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      JsonNode *node = as_config_reader_member (r, keys[i]);
      if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
          || json_node_get_value_type (node) != G_TYPE_STRING)
        continue;
      const char *dtype = json_node_get_string (node);
      return g_str_equal (dtype, "bfloat16") || g_str_equal (dtype, "float16") ? 2 : 4;
    }
  return 4;
}

gboolean
as_config_check_memory (const AsConfig *c, const char *path, GError **error)
{
  guint64 budget = as_memory_budget ();
  if (c->weight_bytes <= budget)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
               "%s: n_layer %d, n_embd %d, n_inner %d, vocab_size %d, n_positions %d imply %.1f GB "
               "of weights, more than the %.1f GB of memory available",
               path, c->n_layer, c->n_embd, c->n_inner, c->vocab_size, c->n_positions,
               c->weight_bytes / 1e9, budget / 1e9);
  return FALSE;
}

/* bos_token_id and eos_token_id; Llama 3 chat models list several end tokens: the first counts. */
static gboolean
config_load_token_ids (const AsConfigReader *r, AsConfig *c, GError **error)
{
  int max_id = c->vocab_size - 1;
  JsonNode *eos = as_config_reader_member (r, "eos_token_id");
  if (eos != NULL && JSON_NODE_HOLDS_ARRAY (eos))
    {
      JsonArray *list = json_node_get_array (eos);
      JsonObject *first = json_object_new ();
      if (json_array_get_length (list) > 0)
        json_object_set_member (first, "eos_token_id",
                                json_node_copy (json_array_get_element (list, 0)));
      AsConfigReader one = { r->path, first };
      gboolean ok = as_config_reader_int (&one, "eos_token_id", TRUE, -1, 0, max_id,
                                          &c->eos_token_id, error);
      json_object_unref (first);
      if (!ok)
        return FALSE;
    }
  else if (!as_config_reader_int (r, "eos_token_id", TRUE, -1, 0, max_id, &c->eos_token_id, error))
    return FALSE;
  return as_config_reader_int (r, "bos_token_id", TRUE, -1, 0, max_id, &c->bos_token_id, error);
}

gboolean
as_config_load (AsConfig *config, const char *path, GError **error)
{
  memset (config, 0, sizeof *config);
  g_autoptr (JsonNode) root = as_json_load_object_file (path, AS_LIMIT_CONFIG_BYTES, error);
  if (root == NULL)
    return FALSE;
  AsConfigReader r = { .path = path, .obj = json_node_get_object (root) };

  const char *model_type = NULL;
  if (!as_config_reader_string (&r, "model_type", &model_type, error))
    return FALSE;
  const AsFamily *family = model_type != NULL ? as_family_find (model_type) : NULL;
  if (family == NULL)
    {
      g_autofree char *supported = as_family_dup_supported ();
      if (model_type == NULL)
        g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                     "%s: missing key 'model_type' (supported: %s)", path, supported);
      else
        g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                     "%s: model_type \"%s\" is not supported (supported: %s)", path, model_type,
                     supported);
      return FALSE;
    }
  AsConfig c = { .ops = family, .family = family->name };
  if (!family->read_config (&c, &r, error) || !config_load_token_ids (&r, &c, error))
    {
      as_config_clear (&c);
      return FALSE;
    }
  c.weight_bytes = c.ops->count_weights (&c) * config_weight_bytes (&r);
  if (c.n_kv_head == 0)
    c.n_kv_head = c.n_head;
  c.model_type = g_strdup (model_type);
  *config = c;
  return TRUE;
}

char **
as_config_dup_settings (const AsConfig *config)
{
  GPtrArray *settings = g_ptr_array_new ();
  if (config->ops != NULL && config->ops->describe != NULL)
    config->ops->describe (config, settings);
  g_ptr_array_add (settings, NULL);
  return (char **) g_ptr_array_free (settings, FALSE);
}

void
as_config_clear (AsConfig *config)
{
  g_clear_pointer (&config->model_type, g_free);
  if (config->settings != NULL && config->ops != NULL && config->ops->free_settings != NULL)
    config->ops->free_settings (config->settings);
  config->settings = NULL;
}

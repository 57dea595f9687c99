/* safetensors-index.c — a sharded safetensors checkpoint into one tensor store.
 *
 * Hugging Face's save_pretrained splits large models into model-0000k-of-0000n.safetensors and
 * writes model.safetensors.index.json, {"metadata": {...}, "weight_map": {tensor: shard file}}
 * (core/io/README.md, "Weight files"). Every shard the map names is opened and validated
 * (safetensors-reader.c) before anything is copied, and every tensor the map names must be in
 * the shard it names; a missing shard, a tensor absent from its shard, a tensor in two shards or
 * a file name that leaves the folder is an error, and nothing stays loaded. Tensors a shard
 * holds beyond the map are loaded too, as transformers does (it loads whole shards). */
#include "safetensors-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "as-error.h"
#include "file-read-private.h"
#include "json-file-private.h"

/* An index lists every tensor name once: far below this even for the largest models. */
#define AS_LIMIT_INDEX_BYTES (64u << 20)

/* A shard file name must stay in the folder: a plain name ending in .safetensors. */
static gboolean
index_shard_name_ok (const char *file)
{
  return *file != '\0' && file[0] != '.' && strchr (file, '/') == NULL
         && strchr (file, '\\') == NULL && g_str_has_suffix (file, ".safetensors");
}

/* The weight map of INDEX_PATH's ROOT, checked: a non-empty object of file-name strings. */
static JsonObject *
index_weight_map (const char *index_path, JsonNode *root, GError **error)
{
  JsonNode *node = json_object_get_member (json_node_get_object (root), "weight_map");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node)
      || json_object_get_size (json_node_get_object (node)) == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: no \"weight_map\" object naming the shard of each tensor", index_path);
      return NULL;
    }
  JsonObject *map = json_node_get_object (node);
  g_autoptr (GList) names = json_object_get_members (map);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *file = json_object_get_member (map, l->data);
      const char *name
          = JSON_NODE_HOLDS_VALUE (file) && json_node_get_value_type (file) == G_TYPE_STRING
                ? json_node_get_string (file)
                : NULL;
      if (name == NULL || !index_shard_name_ok (name))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: weight_map gives tensor '%s' a shard that is not a file name ending "
                       "in .safetensors in the same folder",
                       index_path, (const char *) l->data);
          return NULL;
        }
    }
  return map;
}

/* Opens every shard MAP names (in order of first mention) into STORE; appends them to SHARDS. */
static gboolean
index_open_shards (AsTensorStore *store, const char *index_path, JsonObject *map, GPtrArray *shards,
                   GHashTable *by_name, GError **error)
{
  g_autofree char *folder = g_path_get_dirname (index_path);
  g_autoptr (GList) names = json_object_get_members (map);
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *file = json_object_get_string_member (map, l->data);
      if (g_hash_table_contains (by_name, file))
        continue;
      g_autofree char *path = g_build_filename (folder, file, NULL);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                       "%s names the shard %s (for tensor '%s'), but %s does not exist "
                       "(incomplete download?)",
                       index_path, file, (const char *) l->data, path);
          return FALSE;
        }
      AsSafetensorsFile *shard = as_safetensors_open (store, path, error);
      if (shard == NULL)
        return FALSE;
      g_ptr_array_add (shards, shard);
      g_hash_table_insert (by_name, (gpointer) file, shard);
    }
  return TRUE;
}

/* Every tensor of MAP is listed by the shard MAP names for it. */
static gboolean
index_check_listed (const char *index_path, JsonObject *map, GHashTable *by_name, GError **error)
{
  g_autoptr (GList) names = json_object_get_members (map);
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *file = json_object_get_string_member (map, l->data);
      if (!as_safetensors_has (g_hash_table_lookup (by_name, file), l->data))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s says tensor '%s' is in %s, but %s does not hold it", index_path,
                       (const char *) l->data, file, file);
          return FALSE;
        }
    }
  return TRUE;
}

AsTensorStore *
as_tensor_store_load_safetensors_index (const char *index_path, GError **error)
{
  g_autoptr (JsonNode) root = as_json_load_object_file (index_path, AS_LIMIT_INDEX_BYTES, error);
  if (root == NULL)
    return NULL;
  JsonObject *map = index_weight_map (index_path, root, error);
  if (map == NULL)
    return NULL;

  g_autoptr (AsTensorStore) store = as_tensor_store_new (index_path);
  /* declared after the store, so the shards are closed before the store is freed */
  g_autoptr (GPtrArray) shards
      = g_ptr_array_new_with_free_func ((GDestroyNotify) as_safetensors_close);
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  if (!index_open_shards (store, index_path, map, shards, by_name, error)
      || !index_check_listed (index_path, map, by_name, error)
      || !as_tensor_store_allocate (store, error))
    return NULL;
  for (guint i = 0; i < shards->len; i++)
    if (!as_safetensors_fill (shards->pdata[i], error))
      return NULL;
  return g_steal_pointer (&store);
}

/* hub-select.c — which files of a hub repository a download fetches: what the model loader
 * reads (core/README.md, "Model folders") and nothing else. A repository often holds the same
 * weights three or four times (safetensors, a PyTorch pickle, TensorFlow, Flax, ONNX); attnscope
 * takes one format — safetensors first, single or sharded, else tf_model.h5 — and never a
 * pickle, which it would refuse to load anyway. */
#include "hub-private.h"

#include <string.h>

#include "file-read-private.h"
#include "json-file-private.h"

/* Fetched when present, after config.json: the generation settings and every tokenizer file a
 * family's tokenizer may read. */
static const char *const optional_files[] = {
  "generation_config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "special_tokens_map.json",
  "added_tokens.json",
  "vocab.json",
  "merges.txt",
  "vocab.txt",
  "source.spm",
  "target.spm",
  "tokenizer.model",
  "spiece.model",
  "sentencepiece.bpe.model",
};

#define SAFETENSORS_SINGLE "model.safetensors"
#define SAFETENSORS_INDEX "model.safetensors.index.json"
#define KERAS_H5 "tf_model.h5"

void
as_hub_selection_free (AsHubSelection *selection)
{
  if (selection == NULL)
    return;
  g_ptr_array_unref (selection->files);
  g_free (selection->index);
  g_free (selection->weights);
  g_free (selection);
}

static gboolean
has (const char *const *siblings, const char *name)
{
  return g_strv_contains (siblings, name);
}

/* Weight files attnscope does not read, to name in the message when nothing else is there. */
static char *
other_weights (const char *const *siblings)
{
  static const char *const suffixes[]
      = { ".bin", ".pt", ".pth", ".ckpt", ".msgpack", ".onnx", ".gguf", ".safetensors", ".h5" };
  GString *out = g_string_new (NULL);
  guint n = 0;
  for (guint i = 0; siblings[i] != NULL; i++)
    for (gsize s = 0; s < G_N_ELEMENTS (suffixes); s++)
      if (g_str_has_suffix (siblings[i], suffixes[s]))
        {
          if (n++ < 4)
            g_string_append_printf (out, "%s%s", out->len > 0 ? ", " : "", siblings[i]);
          break;
        }
  if (n > 4)
    g_string_append_printf (out, " and %u more", n - 4);
  return g_string_free (out, n == 0);
}

AsHubSelection *
as_hub_select_files (const char *repo_id, const char *const *siblings, GError **error)
{
  if (!has (siblings, "config.json"))
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE,
                   "%s has no config.json: it is not a transformers model attnscope can open",
                   repo_id);
      return NULL;
    }
  const char *weights = has (siblings, SAFETENSORS_SINGLE)  ? SAFETENSORS_SINGLE
                        : has (siblings, SAFETENSORS_INDEX) ? SAFETENSORS_INDEX
                        : has (siblings, KERAS_H5)          ? KERAS_H5
                                                            : NULL;
  if (weights == NULL)
    {
      g_autofree char *others = other_weights (siblings);
      gboolean pickle = others != NULL && strstr (others, ".bin") != NULL;
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE,
                   "%s has no weights attnscope reads (model.safetensors, "
                   "model.safetensors.index.json with its shards, or tf_model.h5)%s%s%s",
                   repo_id, others != NULL ? "; it has " : "", others != NULL ? others : "",
                   pickle ? " (PyTorch pickles, which attnscope never loads: unpickling can run "
                            "any code)"
                          : "");
      return NULL;
    }
  AsHubSelection *selection = g_new0 (AsHubSelection, 1);
  selection->files = g_ptr_array_new_with_free_func (g_free);
  selection->weights = g_strdup (weights);
  g_ptr_array_add (selection->files, g_strdup ("config.json"));
  for (gsize i = 0; i < G_N_ELEMENTS (optional_files); i++)
    if (has (siblings, optional_files[i]))
      g_ptr_array_add (selection->files, g_strdup (optional_files[i]));
  g_ptr_array_add (selection->files, g_strdup (weights));
  if (g_str_equal (weights, SAFETENSORS_INDEX))
    selection->index = g_strdup (weights);
  return selection;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
as_hub_read_shard_names (const char *path, const char *const *siblings, GError **error)
{
  g_autoptr (JsonNode) root = as_json_load_object_file (path, AS_LIMIT_VOCABULARY_BYTES, error);
  if (root == NULL)
    return NULL;
  JsonObject *object = json_node_get_object (root);
  JsonNode *map_node = json_object_get_member (object, "weight_map");
  if (map_node == NULL || !JSON_NODE_HOLDS_OBJECT (map_node))
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE,
                   "%s has no \"weight_map\" object naming the shards", SAFETENSORS_INDEX);
      return NULL;
    }
  g_autoptr (GPtrArray) shards = g_ptr_array_new_with_free_func (g_free);
  JsonObjectIter iter;
  const char *tensor;
  JsonNode *value;
  json_object_iter_init (&iter, json_node_get_object (map_node));
  while (json_object_iter_next (&iter, &tensor, &value))
    {
      const char *shard = JSON_NODE_HOLDS_VALUE (value) ? json_node_get_string (value) : NULL;
      if (shard == NULL || !as_hub_check_filename (shard, error))
        {
          if (shard == NULL)
            g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE,
                         "%s: the shard of tensor \"%s\" is not a file name", SAFETENSORS_INDEX,
                         tensor);
          return NULL;
        }
      if (siblings != NULL && !has (siblings, shard))
        {
          g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE,
                       "%s names the shard %s (tensor \"%s\"), which the repository does not have",
                       SAFETENSORS_INDEX, shard, tensor);
          return NULL;
        }
      if (!g_ptr_array_find_with_equal_func (shards, shard, g_str_equal, NULL))
        g_ptr_array_add (shards, g_strdup (shard));
    }
  if (shards->len == 0)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE, "%s names no shard",
                   SAFETENSORS_INDEX);
      return NULL;
    }
  g_ptr_array_sort (shards, compare_strings);
  return g_steal_pointer (&shards);
}

char *
as_hub_read_model_type (const char *path, GError **error)
{
  g_autoptr (JsonNode) root = as_json_load_object_file (path, AS_LIMIT_CONFIG_BYTES, error);
  if (root == NULL)
    return NULL;
  JsonNode *node = json_object_get_member (json_node_get_object (root), "model_type");
  const char *type = node != NULL && JSON_NODE_HOLDS_VALUE (node)
                             && json_node_get_value_type (node) == G_TYPE_STRING
                         ? json_node_get_string (node)
                         : NULL;
  if (type == NULL)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE,
                   "config.json names no model_type, so no family of attnscope reads it");
      return NULL;
    }
  return g_strdup (type);
}

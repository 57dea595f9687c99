/* safetensors-reader.c — reads a model.safetensors weight file into a tensor store.
 *
 * Format (core/README.md, "Weight files"): an 8-byte little-endian header length N, N bytes of JSON
 * mapping each tensor name to {dtype, shape, data_offsets [begin, end)} (plus an optional
 * "__metadata__"), then the raw little-endian buffer, offsets relative to its start. Only F32
 * tensors are supported. The file is mapped; tensors at 4-byte aligned places are used in place,
 * the others (offsets need not be aligned) are memcpy'd into the store's block. GPT-2's
 * attention-mask buffers (h.N.attn.bias, h.N.attn.masked_bias) and the int64 position-id buffer of
 * BERT-like checkpoints saved before transformers 4.31 (embeddings.position_ids) are not weights
 * and are skipped whatever their dtype. */
#include "tensor-store-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "as-error.h"

#define SAFETENSORS_MAX_HEADER (100 * 1024 * 1024)

typedef struct
{
  AsTensor *tensor;
  guint64 begin; /* byte offset in the data buffer */
} SafetensorsEntry;

/* Buffers that PyTorch checkpoints carry next to the weights. */
static gboolean
safetensors_is_buffer (const char *name)
{
  return as_tensor_name_has_suffix (name, "attn.bias")
         || as_tensor_name_has_suffix (name, "attn.masked_bias")
         || as_tensor_name_has_suffix (name, "embeddings.position_ids");
}

static gboolean
safetensors_get_offset (JsonArray *array, guint i, guint64 *out)
{
  JsonNode *node = json_array_get_element (array, i);
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64
      || json_node_get_int (node) < 0)
    return FALSE;
  *out = (guint64) json_node_get_int (node);
  return TRUE;
}

/* Declares one header entry; fills ENTRY. */
static gboolean
safetensors_declare (AsTensorStore *store, const char *name, JsonNode *node, guint64 data_size,
                     SafetensorsEntry *entry, GError **error)
{
  const char *path = store->path;
  JsonObject *obj = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  JsonNode *dtype_node = obj ? json_object_get_member (obj, "dtype") : NULL;
  JsonNode *shape_node = obj ? json_object_get_member (obj, "shape") : NULL;
  JsonNode *offsets_node = obj ? json_object_get_member (obj, "data_offsets") : NULL;
  if (dtype_node == NULL || json_node_get_value_type (dtype_node) != G_TYPE_STRING
      || shape_node == NULL || !JSON_NODE_HOLDS_ARRAY (shape_node) || offsets_node == NULL
      || !JSON_NODE_HOLDS_ARRAY (offsets_node))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: header entry '%s' lacks dtype, shape or data_offsets", path, name);
      return FALSE;
    }
  const char *dtype = json_node_get_string (dtype_node);
  if (g_strcmp0 (dtype, "F32") != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: tensor '%s' has dtype %s; only F32 (float32) weights are supported", path,
                   name, dtype);
      return FALSE;
    }

  JsonArray *shape_array = json_node_get_array (shape_node);
  int ndim = (int) json_array_get_length (shape_array);
  int64_t shape[AS_TENSOR_MAX_DIMS] = { 0 };
  for (int i = 0; i < ndim && i < AS_TENSOR_MAX_DIMS; i++)
    {
      JsonNode *dim = json_array_get_element (shape_array, i);
      shape[i] = JSON_NODE_HOLDS_VALUE (dim) && json_node_get_value_type (dim) == G_TYPE_INT64
                     ? json_node_get_int (dim)
                     : -1;
    }
  AsTensor *tensor = as_tensor_store_add (store, name, ndim, shape, error);
  if (tensor == NULL)
    return FALSE;

  JsonArray *offsets = json_node_get_array (offsets_node);
  guint64 begin = 0, end = 0;
  if (json_array_get_length (offsets) != 2 || !safetensors_get_offset (offsets, 0, &begin)
      || !safetensors_get_offset (offsets, 1, &end) || begin > end || end > data_size)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: tensor '%s' has data_offsets outside the %" G_GUINT64_FORMAT
                   "-byte data buffer (truncated file?)",
                   path, name, data_size);
      return FALSE;
    }
  if (end - begin != (guint64) tensor->n_elements * 4)
    {
      g_autofree char *s = as_tensor_shape_to_string (ndim, shape);
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: tensor '%s' of shape %s F32 needs %" G_GUINT64_FORMAT
                   " bytes but its data_offsets span %" G_GUINT64_FORMAT,
                   path, name, s, (guint64) tensor->n_elements * 4, end - begin);
      return FALSE;
    }
  entry->tensor = tensor;
  entry->begin = begin;
  return TRUE;
}

static JsonNode *
safetensors_parse_header (const char *path, const char *contents, gsize size, guint64 *header_len,
                          GError **error)
{
  if (size < 8)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s is not a safetensors file (only %" G_GSIZE_FORMAT " bytes)", path, size);
      return NULL;
    }
  guint64 n;
  memcpy (&n, contents, 8);
  n = GUINT64_FROM_LE (n);
  if (n > size - 8 || n > SAFETENSORS_MAX_HEADER)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the safetensors header length %" G_GUINT64_FORMAT
                   " does not fit in the %" G_GSIZE_FORMAT
                   "-byte file (truncated or not safetensors)",
                   path, n, size);
      return NULL;
    }
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) json_error = NULL;
  if (!json_parser_load_from_data (parser, contents + 8, (gssize) n, &json_error))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: the safetensors header is not JSON: %s",
                   path, json_error->message);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the safetensors header is not a JSON object", path);
      return NULL;
    }
  *header_len = n;
  return json_node_copy (root);
}

static gint
safetensors_entry_compare (gconstpointer a, gconstpointer b)
{
  const SafetensorsEntry *x = a, *y = b;
  return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Points tensors stored at 4-byte aligned places of the mapping into it, copies the others. */
static void
safetensors_fill (AsTensorStore *store, GArray *entries, const char *data)
{
  /* In file order, so the copies stream through the file. */
  g_array_sort (entries, safetensors_entry_compare);
  for (guint i = 0; i < entries->len; i++)
    {
      SafetensorsEntry *e = &g_array_index (entries, SafetensorsEntry, i);
      if (as_tensor_store_is_mapped (store, e->tensor))
        continue;
      memcpy (e->tensor->data, data + e->begin, (gsize) e->tensor->n_elements * 4);
#if G_BYTE_ORDER == G_BIG_ENDIAN
      guint32 *words = (guint32 *) e->tensor->data;
      for (int64_t j = 0; j < e->tensor->n_elements; j++)
        words[j] = GUINT32_FROM_LE (words[j]);
#endif
    }
}

AsTensorStore *
as_tensor_store_load_safetensors (const char *path, GError **error)
{
  g_autoptr (AsTensorStore) store = as_tensor_store_new (path);
  const char *contents = as_tensor_store_map (store);
  gsize size = store->map_bytes;
  g_autofree char *copy = NULL; /* the file read into memory when it cannot be mapped */
  if (contents == NULL)
    {
      g_autoptr (GError) io_error = NULL;
      if (!g_file_get_contents (path, &copy, &size, &io_error))
        {
          gboolean missing = g_error_matches (io_error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
          g_set_error (error, AS_ERROR, missing ? AS_ERROR_NOT_FOUND : AS_ERROR_IO, "%s: %s", path,
                       missing ? "no such file" : io_error->message);
          return NULL;
        }
      contents = copy;
    }
  guint64 header_len = 0;
  g_autoptr (JsonNode) root = safetensors_parse_header (path, contents, size, &header_len, error);
  if (root == NULL)
    return NULL;

  const char *data = contents + 8 + header_len;
  guint64 data_size = size - 8 - header_len;
  gboolean in_place = copy == NULL && G_BYTE_ORDER == G_LITTLE_ENDIAN;
  g_autoptr (GArray) entries = g_array_new (FALSE, FALSE, sizeof (SafetensorsEntry));
  JsonObject *obj = json_node_get_object (root);
  g_autoptr (GList) names = json_object_get_members (obj);
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *name = l->data;
      if (strcmp (name, "__metadata__") == 0 || safetensors_is_buffer (name))
        continue;
      SafetensorsEntry entry;
      if (!safetensors_declare (store, name, json_object_get_member (obj, name), data_size, &entry,
                                error))
        return NULL;
      const char *where = data + entry.begin;
      if (in_place && entry.tensor->n_elements > 0 && (guintptr) where % 4 == 0)
        entry.tensor->data = (float *) where;
      g_array_append_val (entries, entry);
    }
  if (!as_tensor_store_allocate (store, error))
    return NULL;
  safetensors_fill (store, entries, data);
  return g_steal_pointer (&store);
}

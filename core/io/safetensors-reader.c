/* safetensors-reader.c — reads a safetensors weight file into a tensor store.
 *
 * Format (core/io/README.md, "Weight files"): an 8-byte little-endian header length N, N bytes of
 * JSON mapping each tensor name to {dtype, shape, data_offsets [begin, end)} (plus an optional
 * "__metadata__" object), then the raw little-endian buffer, offsets relative to its start.
 * Weights may be F32, BF16 or F16; 16-bit tensors stay 16-bit in the store
 * (tensor-store-private.h). The buffers PyTorch saves beside the weights (GPT-2's and NeoX's
 * attention masks, NeoX's rotary_emb.inv_freq, the int64 position ids of BERT-like checkpoints
 * saved before transformers 4.31: embeddings.position_ids) are not weights: they are validated like
 * every entry but not declared, whatever their dtype.
 *
 * The file comes from a stranger, so before anything is declared: only a regular file is opened;
 * the header length must fit in the file and be at most AS_SAFETENSORS_MAX_HEADER; the header is
 * parsed with as_json_parse (nesting bounded); every entry must have a known dtype, a shape of
 * non-negative integers and data_offsets inside the data buffer whose length equals
 * dtype size × element count; no two tensors may share a byte. The order of the ranges is free
 * (JSON objects are unordered) and so are gaps between them (the bytes in a gap are ignored).
 * The file is mapped; tensors at offsets aligned for their dtype are used in place, the others
 * (offsets need not be aligned) are copied into the store's block; without a mapping they are
 * read with pread, so a file is never held twice in memory. */
#include "safetensors-private.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "as-error.h"
#include "file-read-private.h"
#include "json-file-private.h"

typedef struct
{
  const char *name;
  guint64 begin, end; /* byte range in the data buffer */
  AsTensor *tensor;   /* NULL for a skipped buffer */
} SafetensorsEntry;

struct _AsSafetensorsFile
{
  AsTensorStore *store;
  const char *path; /* interned in the store */
  int fd;
  const char *map;    /* the whole file, or NULL */
  guint64 data_start; /* 8 + N */
  guint64 data_size;  /* bytes after the header */
  JsonNode *header;   /* owns the names the entries point to */
  GArray *entries;    /* of SafetensorsEntry */
  GHashTable *listed; /* every entry name */
};

/* The dtypes safetensors defines: their sizes, and which of them are weights we read. */
static const struct
{
  const char *name;
  guint size;
  gboolean weight;
  AsDType dtype;
} safetensors_dtypes[] = {
  { "F32", 4, TRUE, AS_DTYPE_F32 },
  { "BF16", 2, TRUE, AS_DTYPE_BF16 },
  { "F16", 2, TRUE, AS_DTYPE_F16 },
  { "F64", 8, FALSE, 0 },
  { "I64", 8, FALSE, 0 },
  { "U64", 8, FALSE, 0 },
  { "I32", 4, FALSE, 0 },
  { "U32", 4, FALSE, 0 },
  { "I16", 2, FALSE, 0 },
  { "U16", 2, FALSE, 0 },
  { "I8", 1, FALSE, 0 },
  { "U8", 1, FALSE, 0 },
  { "BOOL", 1, FALSE, 0 },
  { "F8_E4M3", 1, FALSE, 0 },
  { "F8_E5M2", 1, FALSE, 0 },
};

/* Buffers that PyTorch checkpoints carry next to the weights: GPT-2's and GPT-NeoX's causal
 * masks (the latter BOOL) and older NeoX files' rotary frequencies, which are recomputed. */
static gboolean
safetensors_is_buffer (const char *name)
{
  const char *buffers[] = { "attn.bias",           "attn.masked_bias",
                            "attention.bias",      "attention.masked_bias",
                            "rotary_emb.inv_freq", "embeddings.position_ids" };
  for (gsize i = 0; i < G_N_ELEMENTS (buffers); i++)
    if (as_tensor_name_has_suffix (name, buffers[i]))
      return TRUE;
  return FALSE;
}

static gboolean
safetensors_uint (JsonNode *node, guint64 *out)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64 || json_node_get_int (node) < 0)
    return FALSE;
  *out = (guint64) json_node_get_int (node);
  return TRUE;
}

/* Fills SHAPE and *N_ELEMENTS from the JSON array NODE; FALSE when it is not an array of at most
 * AS_TENSOR_MAX_DIMS non-negative integers whose product stays below 2^58. */
static gboolean
safetensors_shape (JsonNode *node, int *ndim, int64_t *shape, guint64 *n_elements)
{
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  JsonArray *array = json_node_get_array (node);
  guint n = json_array_get_length (array);
  if (n > AS_TENSOR_MAX_DIMS)
    return FALSE;
  guint64 count = 1;
  for (guint i = 0; i < n; i++)
    {
      guint64 dim;
      if (!safetensors_uint (json_array_get_element (array, i), &dim) || dim >= (1ull << 58))
        return FALSE;
      shape[i] = (int64_t) dim;
      if (dim > 0 && count > (1ull << 58) / dim)
        return FALSE;
      count *= dim;
    }
  *ndim = (int) n;
  *n_elements = count;
  return TRUE;
}

/* Validates header entry NAME and, for a weight, declares it in the store. */
static gboolean
safetensors_entry (AsSafetensorsFile *f, const char *name, JsonNode *node, GError **error)
{
  JsonObject *obj = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  JsonNode *dtype_node = obj ? json_object_get_member (obj, "dtype") : NULL;
  JsonNode *offsets_node = obj ? json_object_get_member (obj, "data_offsets") : NULL;
  const char *dtype = dtype_node != NULL && JSON_NODE_HOLDS_VALUE (dtype_node)
                              && json_node_get_value_type (dtype_node) == G_TYPE_STRING
                          ? json_node_get_string (dtype_node)
                          : NULL;
  int ndim = 0;
  int64_t shape[AS_TENSOR_MAX_DIMS] = { 0 };
  guint64 n = 0;
  if (dtype == NULL || offsets_node == NULL || !JSON_NODE_HOLDS_ARRAY (offsets_node))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: header entry '%s' lacks dtype, shape or data_offsets", f->path, name);
      return FALSE;
    }
  if (!safetensors_shape (obj ? json_object_get_member (obj, "shape") : NULL, &ndim, shape, &n))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: tensor '%s' has no valid shape (an array of at most %d non-negative "
                   "integers of a sane product)",
                   f->path, name, AS_TENSOR_MAX_DIMS);
      return FALSE;
    }
  gint known = -1;
  for (guint i = 0; i < G_N_ELEMENTS (safetensors_dtypes); i++)
    if (g_str_equal (dtype, safetensors_dtypes[i].name))
      known = (gint) i;
  gboolean buffer = safetensors_is_buffer (name);
  if (!buffer && (known < 0 || !safetensors_dtypes[known].weight))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: tensor '%s' has dtype %s; supported weight dtypes: F32, BF16, F16", f->path,
                   name, dtype);
      return FALSE;
    }

  JsonArray *offsets = json_node_get_array (offsets_node);
  guint64 begin = 0, end = 0;
  if (json_array_get_length (offsets) != 2
      || !safetensors_uint (json_array_get_element (offsets, 0), &begin)
      || !safetensors_uint (json_array_get_element (offsets, 1), &end) || begin > end
      || end > f->data_size)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: tensor '%s' has data_offsets that are not a range inside the "
                   "%" G_GUINT64_FORMAT "-byte data buffer (truncated file?)",
                   f->path, name, f->data_size);
      return FALSE;
    }
  if (known >= 0 && end - begin != n * safetensors_dtypes[known].size)
    {
      g_autofree char *s = as_tensor_shape_to_string (ndim, shape);
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: tensor '%s' of shape %s %s needs %" G_GUINT64_FORMAT
                   " bytes but its data_offsets span %" G_GUINT64_FORMAT,
                   f->path, name, s, dtype, n * safetensors_dtypes[known].size, end - begin);
      return FALSE;
    }
  SafetensorsEntry e = { name, begin, end, NULL };
  if (!buffer)
    {
      e.tensor = as_tensor_store_add (f->store, name, ndim, shape, safetensors_dtypes[known].dtype,
                                      f->path, error);
      if (e.tensor == NULL)
        return FALSE;
    }
  g_array_append_val (f->entries, e);
  g_hash_table_add (f->listed, (gpointer) name);
  return TRUE;
}

static gint
safetensors_entry_compare (gconstpointer a, gconstpointer b)
{
  const SafetensorsEntry *x = a, *y = b;
  if (x->begin != y->begin)
    return x->begin < y->begin ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

/* Sorts the entries by offset (so copies stream through the file) and refuses shared bytes. */
static gboolean
safetensors_check_overlaps (AsSafetensorsFile *f, GError **error)
{
  g_array_sort (f->entries, safetensors_entry_compare);
  const SafetensorsEntry *prev = NULL;
  for (guint i = 0; i < f->entries->len; i++)
    {
      const SafetensorsEntry *e = &g_array_index (f->entries, SafetensorsEntry, i);
      if (e->begin == e->end)
        continue;
      if (prev != NULL && e->begin < prev->end)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: tensors '%s' [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                       ") and '%s' [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                       ") share bytes of the data buffer",
                       f->path, prev->name, prev->begin, prev->end, e->name, e->begin, e->end);
          return FALSE;
        }
      prev = e;
    }
  return TRUE;
}

/* Reads exactly N bytes at OFFSET of F's file into BUF. */
static gboolean
safetensors_pread (AsSafetensorsFile *f, void *buf, gsize n, guint64 offset, GError **error)
{
  gsize done = 0;
  while (done < n)
    {
      ssize_t got = pread (f->fd, (char *) buf + done, n - done, (off_t) (offset + done));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        {
          g_set_error (error, AS_ERROR, got < 0 ? AS_ERROR_IO : AS_ERROR_FORMAT,
                       "%s: could not read %" G_GSIZE_FORMAT " bytes at offset %" G_GUINT64_FORMAT
                       " (%s)",
                       f->path, n, offset, got < 0 ? g_strerror (errno) : "truncated file?");
          return FALSE;
        }
      done += (gsize) got;
    }
  return TRUE;
}

/* " (a symbolic link to TARGET)" when PATH is one, else "" (owned). */
static char *
link_note (const char *path)
{
  g_autofree char *target = g_file_read_link (path, NULL);
  return target != NULL ? g_strdup_printf (" (a symbolic link to %s)", target) : g_strdup ("");
}

/* The error for a file whose first 8 bytes HEAD, read as the header length N, do not fit: text
 * where the length belongs (a link to the wrong file, an LFS pointer) is named as such. */
static void
set_bad_length (AsSafetensorsFile *f, const guint8 *head, guint64 n, guint64 size, GError **error)
{
  g_autofree char *note = link_note (f->path);
  gboolean text = TRUE;
  for (int i = 0; i < 8; i++)
    text = text && head[i] >= 0x09 && head[i] < 0x7F
           && (head[i] >= 0x20 || g_ascii_isspace (head[i]));
  if (text)
    {
      char shown[9];
      for (int i = 0; i < 8; i++)
        shown[i] = g_ascii_isprint (head[i]) ? (char) head[i] : ' ';
      shown[8] = '\0';
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s%s is not a safetensors file: it begins with text (\"%s\") where the "
                   "8-byte header length belongs",
                   f->path, note, shown);
      return;
    }
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
               "%s%s: the safetensors header length %" G_GUINT64_FORMAT
               " does not fit in the %" G_GUINT64_FORMAT
               "-byte file or exceeds %d bytes (truncated or not safetensors)",
               f->path, note, n, size, AS_SAFETENSORS_MAX_HEADER);
}

/* Reads the header length and the header, and parses it into F->header. */
static gboolean
safetensors_read_header (AsSafetensorsFile *f, guint64 size, GError **error)
{
  if (size < 8)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s is not a safetensors file (only %" G_GUINT64_FORMAT " bytes)", f->path,
                   size);
      return FALSE;
    }
  guint8 head[8];
  if (!safetensors_pread (f, head, 8, 0, error))
    return FALSE;
  guint64 n = 0;
  for (int i = 7; i >= 0; i--)
    n = n << 8 | head[i];
  if (n > size - 8 || n > AS_SAFETENSORS_MAX_HEADER)
    {
      set_bad_length (f, head, n, size, error);
      return FALSE;
    }
  g_autofree char *text = g_malloc (n + 1);
  if (!safetensors_pread (f, text, n, 8, error))
    return FALSE;
  text[n] = '\0';
  g_autofree char *what = g_strdup_printf ("%s (the safetensors header)", f->path);
  f->header = as_json_parse (what, text, n, error);
  if (f->header == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (f->header))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the safetensors header is not a JSON object", f->path);
      return FALSE;
    }
  f->data_start = 8 + n;
  f->data_size = size - 8 - n;
  return TRUE;
}

AsSafetensorsFile *
as_safetensors_open (AsTensorStore *store, const char *path, GError **error)
{
  g_autoptr (AsSafetensorsFile) f = g_new0 (AsSafetensorsFile, 1);
  f->store = store;
  f->path = as_tensor_store_intern_file (store, path);
  f->entries = g_array_new (FALSE, FALSE, sizeof (SafetensorsEntry));
  f->listed = g_hash_table_new (g_str_hash, g_str_equal);
  goffset size = 0;
  f->fd = as_file_open_regular (path, &size, error);
  if (f->fd < 0 || !safetensors_read_header (f, (guint64) size, error))
    return NULL;

  JsonObject *obj = json_node_get_object (f->header);
  g_autoptr (GList) names = json_object_get_members (obj);
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *node = json_object_get_member (obj, name);
      if (strcmp (name, "__metadata__") == 0)
        {
          if (!JSON_NODE_HOLDS_OBJECT (node))
            {
              g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                           "%s: the header's __metadata__ is not a JSON object", f->path);
              return NULL;
            }
          continue;
        }
      if (!safetensors_entry (f, name, node, error))
        return NULL;
    }
  if (!safetensors_check_overlaps (f, error))
    return NULL;

  f->map = as_tensor_store_map_fd (store, f->fd, (guint64) size);
  gboolean in_place = f->map != NULL && G_BYTE_ORDER == G_LITTLE_ENDIAN;
  for (guint i = 0; in_place && i < f->entries->len; i++)
    {
      SafetensorsEntry *e = &g_array_index (f->entries, SafetensorsEntry, i);
      const char *where = f->map + f->data_start + e->begin;
      if (e->tensor != NULL && e->tensor->n_elements > 0
          && (guintptr) where % as_dtype_size (e->tensor->dtype) == 0)
        e->tensor->raw = where;
    }
  return g_steal_pointer (&f);
}

gboolean
as_safetensors_has (const AsSafetensorsFile *file, const char *name)
{
  return g_hash_table_contains (file->listed, name);
}

gboolean
as_safetensors_fill (AsSafetensorsFile *f, GError **error)
{
  for (guint i = 0; i < f->entries->len; i++)
    {
      const SafetensorsEntry *e = &g_array_index (f->entries, SafetensorsEntry, i);
      if (e->tensor == NULL || as_tensor_store_is_mapped (f->store, e->tensor))
        continue;
      void *dest = (void *) e->tensor->raw; /* the store's block: ours to fill */
      gsize bytes = (gsize) (e->end - e->begin);
      if (f->map != NULL)
        memcpy (dest, f->map + f->data_start + e->begin, bytes);
      else if (!safetensors_pread (f, dest, bytes, f->data_start + e->begin, error))
        return FALSE;
#if G_BYTE_ORDER == G_BIG_ENDIAN
      if (e->tensor->dtype == AS_DTYPE_F32)
        for (gsize j = 0; j < bytes / 4; j++)
          ((guint32 *) dest)[j] = GUINT32_FROM_LE (((guint32 *) dest)[j]);
      else
        for (gsize j = 0; j < bytes / 2; j++)
          ((guint16 *) dest)[j] = GUINT16_FROM_LE (((guint16 *) dest)[j]);
#endif
    }
  return TRUE;
}

void
as_safetensors_close (AsSafetensorsFile *f)
{
  if (f == NULL)
    return;
  if (f->fd >= 0)
    close (f->fd);
  g_array_unref (f->entries);
  g_hash_table_unref (f->listed);
  if (f->header != NULL)
    json_node_unref (f->header);
  g_free (f);
}

AsTensorStore *
as_tensor_store_load_safetensors (const char *path, GError **error)
{
  g_autoptr (AsTensorStore) store = as_tensor_store_new (path);
  g_autoptr (AsSafetensorsFile) file = as_safetensors_open (store, path, error);
  if (file == NULL || !as_tensor_store_allocate (store, error)
      || !as_safetensors_fill (file, error))
    return NULL;
  return g_steal_pointer (&store);
}

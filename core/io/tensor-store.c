/* tensor-store.c — named tensors: the mapped weight files plus allocated memory.
 *
 * The weight-file readers (keras-h5-reader.c, safetensors-reader.c, safetensors-index.c) declare
 * tensors, point the ones stored raw into the file mappings, and allocate memory for the rest (one
 * block, or tensor by tensor when a lazy source fetches them on first use) and copy into it.
 * Everything the store holds — mappings, copies, float32 copies of 16-bit tensors — counts against
 * the memory budget (memory-private.h). Lookups match names by suffix, as Hugging Face does, so the
 * Keras class scope or a "transformer." prefix does not matter. The finite check runs over every
 * weight at load time with an integer test that the compiler vectorises, so it costs about one pass
 * over memory. */
#include "tensor-store-private.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>

#include "as-error.h"
#include "as-trace.h"
#include "file-read-private.h"
#include "memory-private.h"

#define AS_TENSOR_ALIGN_BYTES 64

static void
as_tensor_free (gpointer data)
{
  AsTensor *tensor = data;
  if (tensor->data != NULL && (const void *) tensor->data != tensor->raw)
    free (tensor->data); /* the float32 copy of a 16-bit tensor */
  g_free (tensor->name);
  g_free (tensor);
}

AsTensorStore *
as_tensor_store_new (const char *path)
{
  AsTensorStore *store = g_new0 (AsTensorStore, 1);
  store->path = g_strdup (path);
  store->tensors = g_ptr_array_new_with_free_func (as_tensor_free);
  store->names = g_hash_table_new (g_str_hash, g_str_equal);
  store->files = g_ptr_array_new_with_free_func (g_free);
  store->maps = g_array_new (FALSE, FALSE, sizeof (AsMappedFile));
  store->buffers = g_ptr_array_new_with_free_func (free);
  g_mutex_init (&store->lock);
  return store;
}

void
as_tensor_store_free (AsTensorStore *store)
{
  if (store == NULL)
    return;
  as_tensor_store_close_source (store);
  as_memory_release (store->held);
  g_hash_table_unref (store->names);
  g_ptr_array_unref (store->tensors);
  g_ptr_array_unref (store->files);
  g_ptr_array_unref (store->buffers);
  free (store->block);
  for (guint i = 0; i < store->maps->len; i++)
    {
      AsMappedFile *m = &g_array_index (store->maps, AsMappedFile, i);
      munmap (m->data, m->bytes);
    }
  g_array_unref (store->maps);
  g_mutex_clear (&store->lock);
  g_free (store->path);
  g_free (store);
}

const char *
as_tensor_store_intern_file (AsTensorStore *store, const char *file)
{
  for (guint i = 0; i < store->files->len; i++)
    if (g_str_equal (store->files->pdata[i], file))
      return store->files->pdata[i];
  g_ptr_array_add (store->files, g_strdup (file));
  return store->files->pdata[store->files->len - 1];
}

char *
as_tensor_shape_to_string (int ndim, const int64_t *shape)
{
  GString *s = g_string_new ("(");
  for (int i = 0; i < ndim; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", shape[i]);
  if (ndim == 1)
    g_string_append_c (s, ',');
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

AsTensor *
as_tensor_store_add (AsTensorStore *store, const char *name, int ndim, const int64_t *shape,
                     AsDType dtype, const char *file, GError **error)
{
  if (file == NULL)
    file = as_tensor_store_intern_file (store, store->path);
  if (ndim < 0 || ndim > AS_TENSOR_MAX_DIMS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: tensor '%s' has %d dimensions; at most %d are supported", file, name, ndim,
                   AS_TENSOR_MAX_DIMS);
      return NULL;
    }
  AsTensor *before = g_hash_table_lookup (store->names, name);
  if (before != NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: tensor '%s' appears twice (also in %s)",
                   file, name, before->file);
      return NULL;
    }
  /* Reject sizes whose byte count would overflow; 2^60 bytes is far beyond any real machine. */
  const int64_t limit = G_GINT64_CONSTANT (1) << 58;
  int64_t n = 1;
  for (int i = 0; i < ndim; i++)
    {
      if (shape[i] < 0 || (shape[i] > 0 && n > limit / shape[i]))
        {
          g_autofree char *s = as_tensor_shape_to_string (ndim, shape);
          g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                       "%s: tensor '%s' has an impossible shape %s", file, name, s);
          return NULL;
        }
      n *= shape[i];
    }

  AsTensor *tensor = g_new0 (AsTensor, 1);
  tensor->name = g_strdup (name);
  tensor->ndim = ndim;
  for (int i = 0; i < ndim; i++)
    tensor->shape[i] = shape[i];
  tensor->n_elements = n;
  tensor->dtype = dtype;
  tensor->file = file;
  g_ptr_array_add (store->tensors, tensor);
  g_hash_table_insert (store->names, tensor->name, tensor);
  return tensor;
}

guint64
as_tensor_stored_bytes (const AsTensor *tensor)
{
  return (guint64) tensor->n_elements * as_dtype_size (tensor->dtype);
}

const char *
as_tensor_store_map_fd (AsTensorStore *store, int fd, guint64 size)
{
  const char *off = g_getenv ("ATTNSCOPE_NO_MMAP");
  if (off != NULL && *off != '\0' && !g_str_equal (off, "0"))
    return NULL;
  if (size == 0 || size > G_MAXSIZE)
    return NULL;
  int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
  flags |= MAP_POPULATE; /* map the page-cache pages now, not one fault at a time */
#endif
  /* Read-only: populating a writable private mapping would copy every page. */
  void *map = mmap (NULL, (gsize) size, PROT_READ, flags, fd, 0);
  if (map == MAP_FAILED)
    return NULL;
  AsMappedFile m = { map, (gsize) size };
  g_array_append_val (store->maps, m);
  /* Populated pages are resident: they count against the budget like copied weights. */
  store->held += size;
  as_memory_hold (size);
  return map;
}

const char *
as_tensor_store_map (AsTensorStore *store)
{
  goffset size = 0;
  int fd = as_file_open_regular (store->path, &size, NULL);
  if (fd < 0)
    return NULL;
  const char *map = as_tensor_store_map_fd (store, fd, (guint64) size);
  close (fd);
  return map;
}

void
as_tensor_store_set_source (AsTensorStore *store, const AsTensorSourceFuncs *funcs, gpointer source)
{
  g_assert (store->source == NULL);
  store->source_funcs = funcs;
  store->source = source;
}

void
as_tensor_store_close_source (AsTensorStore *store)
{
  if (store->source != NULL)
    store->source_funcs->close (store->source);
  store->source = NULL;
}

gboolean
as_tensor_store_fetch_all (AsTensorStore *store, GError **error)
{
  for (guint i = 0; i < store->tensors->len; i++)
    if (as_tensor_store_get_floats (store, g_ptr_array_index (store->tensors, i), error) == NULL)
      return FALSE;
  return TRUE;
}

float *
as_tensor_store_alloc_tensor (AsTensorStore *store, AsTensor *tensor, GError **error)
{
  g_assert (tensor->dtype == AS_DTYPE_F32);
  guint64 bytes = MAX ((guint64) tensor->n_elements * sizeof (float), AS_TENSOR_ALIGN_BYTES);
  g_autofree char *what
      = g_strdup_printf ("%s '%s' of %s", as_tensor_store_noun (store), tensor->name, store->path);
  void *data = NULL;
  if (!as_memory_check (bytes, what, error))
    return NULL;
  if (bytes > G_MAXSIZE || posix_memalign (&data, AS_TENSOR_ALIGN_BYTES, (gsize) bytes) != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate %" G_GUINT64_FORMAT " bytes for %s", bytes, what);
      return NULL;
    }
  g_ptr_array_add (store->buffers, data);
  store->held += bytes;
  as_memory_hold (bytes);
  tensor->raw = data;
  tensor->data = data;
  return data;
}

gboolean
as_tensor_store_is_mapped (const AsTensorStore *store, const AsTensor *tensor)
{
  const char *p = tensor->raw;
  for (guint i = 0; p != NULL && i < store->maps->len; i++)
    {
      const AsMappedFile *m = &g_array_index (store->maps, AsMappedFile, i);
      if (p >= m->data && p < m->data + m->bytes)
        return TRUE;
    }
  return FALSE;
}

guint64
as_tensor_store_get_mapped_bytes (const AsTensorStore *store)
{
  guint64 total = 0;
  for (guint i = 0; i < store->maps->len; i++)
    total += g_array_index (store->maps, AsMappedFile, i).bytes;
  return total;
}

/* Bytes the tensor takes in the block: 0 when it lives in a mapping. */
static guint64
as_tensor_padded_bytes (const AsTensor *tensor)
{
  if (tensor->raw != NULL)
    return 0;
  guint64 bytes = as_tensor_stored_bytes (tensor);
  return (bytes + AS_TENSOR_ALIGN_BYTES - 1) / AS_TENSOR_ALIGN_BYTES * AS_TENSOR_ALIGN_BYTES;
}

gboolean
as_tensor_store_allocate (AsTensorStore *store, GError **error)
{
  g_assert (store->block == NULL);

  guint64 total = 0;
  for (guint i = 0; i < store->tensors->len; i++)
    total += as_tensor_padded_bytes (g_ptr_array_index (store->tensors, i));
  if (total == 0)
    total = AS_TENSOR_ALIGN_BYTES;

  g_autofree char *what = g_strdup_printf ("the weights of %s", store->path);
  if (!as_memory_check (total, what, error))
    return FALSE;

  void *block = NULL;
  if (total > G_MAXSIZE || posix_memalign (&block, AS_TENSOR_ALIGN_BYTES, (gsize) total) != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "%s: could not allocate %" G_GUINT64_FORMAT " bytes for the weights",
                   store->path, total);
      return FALSE;
    }
  store->block = block;
  store->block_bytes = (gsize) total;
  store->held += total;
  as_memory_hold (total);

  char *cursor = block;
  for (guint i = 0; i < store->tensors->len; i++)
    {
      AsTensor *tensor = g_ptr_array_index (store->tensors, i);
      guint64 bytes = as_tensor_padded_bytes (tensor);
      if (tensor->raw == NULL)
        tensor->raw = cursor;
      cursor += bytes;
      if (tensor->dtype == AS_DTYPE_F32)
        tensor->data = (float *) tensor->raw;
    }
  return TRUE;
}

const char *
as_tensor_store_get_path (const AsTensorStore *store)
{
  return store->path;
}

guint
as_tensor_store_get_n_tensors (const AsTensorStore *store)
{
  return store->tensors->len;
}

const AsTensor *
as_tensor_store_get_nth (const AsTensorStore *store, guint i)
{
  g_return_val_if_fail (i < store->tensors->len, NULL);
  return g_ptr_array_index (store->tensors, i);
}

const char *
as_tensor_store_noun (const AsTensorStore *store)
{
  return g_str_has_suffix (store->path, ".h5") ? "dataset" : "tensor";
}

gboolean
as_tensor_name_has_suffix (const char *name, const char *suffix)
{
  gsize n = strlen (name), s = strlen (suffix);
  if (s == 0 || s > n || strcmp (name + n - s, suffix) != 0)
    return FALSE;
  if (s == n)
    return TRUE;
  char before = name[n - s - 1];
  return before == '/' || before == '.';
}

const AsTensor *
as_tensor_store_find_suffix (const AsTensorStore *store, const char *suffix)
{
  const AsTensor *exact = g_hash_table_lookup (store->names, suffix);
  if (exact != NULL)
    return exact; /* no other name can be shorter */
  const AsTensor *best = NULL;
  gsize best_len = 0;
  for (guint i = 0; i < store->tensors->len; i++)
    {
      const AsTensor *tensor = g_ptr_array_index (store->tensors, i);
      if (!as_tensor_name_has_suffix (tensor->name, suffix))
        continue;
      gsize len = strlen (tensor->name);
      if (best == NULL || len < best_len)
        {
          best = tensor;
          best_len = len;
        }
    }
  return best;
}

const AsTensor *
as_tensor_store_require_tensor (const AsTensorStore *store, const char *suffix, int ndim,
                                const int64_t *shape, GError **error)
{
  const AsTensor *tensor = as_tensor_store_find_suffix (store, suffix);
  if (tensor == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s: no weight whose name ends with '%s' (the file holds %u tensors; "
                   "is it a model of the type config.json names?)",
                   store->path, suffix, store->tensors->len);
      return NULL;
    }
  int64_t n = 1;
  for (int i = 0; i < ndim; i++)
    n *= shape[i];
  if (tensor->n_elements != n)
    {
      g_autofree char *got = as_tensor_shape_to_string (tensor->ndim, tensor->shape);
      g_autofree char *want = as_tensor_shape_to_string (ndim, shape);
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: %s '%s' has shape %s, expected %s from config.json", tensor->file,
                   as_tensor_store_noun (store), tensor->name, got, want);
      return NULL;
    }
  return tensor;
}

/* Fetches TENSOR from the store's lazy source (during loading, one thread). */
static gboolean
as_tensor_store_fetch (const AsTensorStore *store, const AsTensor *tensor, GError **error)
{
  if (store->source == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s: %s '%s' was not read while the model was loaded", store->path,
                   as_tensor_store_noun (store), tensor->name);
      return FALSE;
    }
  /* Fetching fills in the store: the store stays logically constant, so it is reached through a
   * cast. */
  AsTensorStore *mutable_store = (AsTensorStore *) store;
  if (!store->source_funcs->fetch (store->source, mutable_store, (AsTensor *) tensor, error))
    return FALSE;
  g_assert (tensor->raw != NULL);
  return TRUE;
}

/* Marks TENSOR as used: its data was taken (during loading, one thread; the store stays logically
 * constant). */
static void
mark_used (const AsTensor *tensor)
{
  ((AsTensor *) tensor)->used = TRUE;
}

const void *
as_tensor_store_get_raw (const AsTensorStore *store, const AsTensor *tensor, GError **error)
{
  mark_used (tensor);
  if (tensor->raw == NULL && !as_tensor_store_fetch (store, tensor, error))
    return NULL;
  return tensor->raw;
}

const float *
as_tensor_store_get_floats (const AsTensorStore *store, const AsTensor *tensor, GError **error)
{
  mark_used (tensor);
  if (tensor->data != NULL)
    return tensor->data;
  if (tensor->raw == NULL && !as_tensor_store_fetch (store, tensor, error))
    return NULL;
  if (tensor->dtype == AS_DTYPE_F32 || tensor->n_elements == 0)
    return tensor->raw;
  /* The copy is a cache: the store stays logically constant, so the lock, the store and the
   * tensor are reached through casts. */
  AsTensorStore *s = (AsTensorStore *) store;
  AsTensor *t = (AsTensor *) tensor;
  g_mutex_lock (&s->lock);
  if (t->data == NULL)
    {
      guint64 bytes = (guint64) t->n_elements * sizeof (float);
      g_autofree char *what = g_strdup_printf ("a float32 copy of %s", t->name);
      void *copy = NULL;
      if (!as_memory_check (bytes, what, error))
        ;
      else if (bytes > G_MAXSIZE || posix_memalign (&copy, AS_TENSOR_ALIGN_BYTES, (gsize) bytes))
        g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                     "could not allocate %" G_GUINT64_FORMAT " bytes for %s", bytes, what);
      else
        {
          as_dtype_widen (copy, t->raw, t->dtype, (gsize) t->n_elements);
          t->data = copy;
          s->held += bytes;
          as_memory_hold (bytes);
        }
    }
  const float *data = t->data;
  g_mutex_unlock (&s->lock);
  return data;
}

const float *
as_tensor_store_require (const AsTensorStore *store, const char *suffix, int ndim,
                         const int64_t *shape, GError **error)
{
  const AsTensor *tensor = as_tensor_store_require_tensor (store, suffix, ndim, shape, error);
  return tensor != NULL ? as_tensor_store_get_floats (store, tensor, error) : NULL;
}

gboolean
as_tensor_store_check_finite (const AsTensorStore *store, GError **error)
{
  for (guint t = 0; t < store->tensors->len; t++)
    {
      const AsTensor *tensor = g_ptr_array_index (store->tensors, t);
      gsize i = 0;
      if (tensor->raw == NULL) /* never fetched, never used */
        continue;
      if (!as_dtype_find_nonfinite (tensor->raw, tensor->dtype, (gsize) tensor->n_elements, &i))
        continue;
      float x = 0;
      as_dtype_widen (&x, (const char *) tensor->raw + i * as_dtype_size (tensor->dtype),
                      tensor->dtype, 1);
      g_set_error (error, AS_ERROR, AS_ERROR_VALUE,
                   "%s: %s '%s' holds %s at element %" G_GSIZE_FORMAT " (weights must be finite)",
                   tensor->file, as_tensor_store_noun (store), tensor->name,
                   isnan (x) ? "NaN" : (x > 0 ? "+Inf" : "-Inf"), i);
      return FALSE;
    }
  return TRUE;
}

char *
as_tensor_store_dup_dtype_summary (const AsTensorStore *store)
{
  guint64 count[3] = { 0 };
  for (guint t = 0; t < store->tensors->len; t++)
    {
      const AsTensor *tensor = g_ptr_array_index (store->tensors, t);
      count[tensor->dtype] += (guint64) tensor->n_elements;
    }
  GString *s = g_string_new (NULL);
  for (;;)
    {
      int best = -1;
      for (int d = 0; d < 3; d++)
        if (count[d] > 0 && (best < 0 || count[d] > count[best]))
          best = d;
      if (best < 0)
        break;
      g_string_append_printf (s, "%s%s", s->len > 0 ? "+" : "", as_dtype_name (best));
      count[best] = 0;
    }
  return g_string_free (s, FALSE);
}

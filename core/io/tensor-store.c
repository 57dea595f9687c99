/* tensor-store.c — named float32 tensors: one mapped weight file plus allocated memory.
 *
 * The weight-file readers (keras-h5-reader.c, safetensors-reader.c) declare tensors, point the
 * ones stored as raw float32 into the file mapping, and allocate memory for the rest (one block,
 * or tensor by tensor when a lazy source fetches them on first use) and copy into it. Everything
 * the store holds counts against the memory budget (memory-private.h). Lookups match names by
 * suffix, as Hugging Face does, so the Keras class scope or a "transformer." prefix does not
 * matter. The finite check runs over every weight at load time with an integer test that the
 * compiler vectorises, so it costs about one pass over memory. */
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
  g_free (tensor->name);
  g_free (tensor);
}

AsTensorStore *
as_tensor_store_new (const char *path)
{
  AsTensorStore *store = g_new0 (AsTensorStore, 1);
  store->path = g_strdup (path);
  store->tensors = g_ptr_array_new_with_free_func (as_tensor_free);
  store->buffers = g_ptr_array_new_with_free_func (free);
  return store;
}

void
as_tensor_store_free (AsTensorStore *store)
{
  if (store == NULL)
    return;
  as_tensor_store_close_source (store);
  as_memory_release (store->held);
  g_ptr_array_unref (store->tensors);
  g_ptr_array_unref (store->buffers);
  free (store->block);
  if (store->map != NULL)
    munmap (store->map, store->map_bytes);
  g_free (store->path);
  g_free (store);
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
                     GError **error)
{
  if (ndim < 0 || ndim > AS_TENSOR_MAX_DIMS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: tensor '%s' has %d dimensions; at most %d are supported", store->path, name,
                   ndim, AS_TENSOR_MAX_DIMS);
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
                       "%s: tensor '%s' has an impossible shape %s", store->path, name, s);
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
  g_ptr_array_add (store->tensors, tensor);
  return tensor;
}

const char *
as_tensor_store_map_fd (AsTensorStore *store, int fd, guint64 size)
{
  if (store->map != NULL)
    return store->map;
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
  store->map = map;
  store->map_bytes = (gsize) size;
  /* Populated pages are resident: they count against the budget like copied weights. */
  store->held += size;
  as_memory_hold (size);
  return store->map;
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

const float *
as_tensor_store_get_floats (const AsTensorStore *store, const AsTensor *tensor, GError **error)
{
  if (tensor->data != NULL)
    return tensor->data;
  if (store->source == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s: %s '%s' was not read while the model was loaded", store->path,
                   as_tensor_store_noun (store), tensor->name);
      return NULL;
    }
  /* Fetching fills in the store: it happens while the model is loaded, in one thread. */
  AsTensorStore *mutable_store = (AsTensorStore *) store;
  if (!store->source_funcs->fetch (store->source, mutable_store, (AsTensor *) tensor, error))
    return NULL;
  g_assert (tensor->data != NULL);
  return tensor->data;
}

float *
as_tensor_store_alloc_tensor (AsTensorStore *store, AsTensor *tensor, GError **error)
{
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
  tensor->data = data;
  return data;
}

gboolean
as_tensor_store_is_mapped (const AsTensorStore *store, const AsTensor *tensor)
{
  const char *p = (const char *) tensor->data;
  return store->map != NULL && p != NULL && p >= store->map && p < store->map + store->map_bytes;
}

/* Bytes the tensor takes in the block: 0 when it lives in the mapping. */
static gsize
as_tensor_padded_bytes (const AsTensor *tensor)
{
  if (tensor->data != NULL)
    return 0;
  gsize bytes = (gsize) tensor->n_elements * sizeof (float);
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
      gsize bytes = as_tensor_padded_bytes (tensor);
      if (tensor->data == NULL)
        tensor->data = (float *) cursor;
      cursor += bytes;
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
  return g_str_has_suffix (store->path, ".safetensors") ? "tensor" : "dataset";
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
                   "%s: %s '%s' has shape %s, expected %s from config.json", store->path,
                   as_tensor_store_noun (store), tensor->name, got, want);
      return NULL;
    }
  return tensor;
}

const float *
as_tensor_store_require (const AsTensorStore *store, const char *suffix, int ndim,
                         const int64_t *shape, GError **error)
{
  const AsTensor *tensor = as_tensor_store_require_tensor (store, suffix, ndim, shape, error);
  return tensor != NULL ? as_tensor_store_get_floats (store, tensor, error) : NULL;
}

/* TRUE when one of DATA[0..N-1] is a NaN or an infinity: their exponent bits are all ones.
 * Adding 1 to the 8-bit exponent field carries into bit 31 exactly then. Integer-only, so the
 * loop vectorises without -ffast-math. */
static gboolean
as_floats_have_nonfinite (const float *data, gsize n)
{
  const guint32 *bits = (const guint32 *) data;
  guint32 acc = 0;
  gsize i = 0;
  for (; i + 64 <= n; i += 64)
    {
      guint32 block = 0;
      for (gsize j = 0; j < 64; j++)
        block |= ((bits[i + j] & 0x7f800000u) + 0x00800000u) & 0x80000000u;
      acc |= block;
      if (acc != 0)
        return TRUE;
    }
  for (; i < n; i++)
    acc |= ((bits[i] & 0x7f800000u) + 0x00800000u) & 0x80000000u;
  return acc != 0;
}

gboolean
as_tensor_store_check_finite (const AsTensorStore *store, GError **error)
{
  for (guint t = 0; t < store->tensors->len; t++)
    {
      const AsTensor *tensor = g_ptr_array_index (store->tensors, t);
      if (tensor->data == NULL
          || !as_floats_have_nonfinite (tensor->data, (gsize) tensor->n_elements))
        continue;
      for (int64_t i = 0; i < tensor->n_elements; i++)
        {
          float x = tensor->data[i];
          if (isfinite (x))
            continue;
          g_set_error (error, AS_ERROR, AS_ERROR_VALUE,
                       "%s: %s '%s' holds %s at element %" G_GINT64_FORMAT
                       " (weights must be finite)",
                       store->path, as_tensor_store_noun (store), tensor->name,
                       isnan (x) ? "NaN" : (x > 0 ? "+Inf" : "-Inf"), i);
          return FALSE;
        }
    }
  return TRUE;
}

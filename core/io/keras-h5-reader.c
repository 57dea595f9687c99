/* keras-h5-reader.c — reads the Keras-HDF5 weight file (tf_model.h5) into a tensor store.
 *
 * Layout (core/io/README.md, "Weight files"): the root attribute layer_names lists the top-level
 * layer groups; each group's attribute weight_names (split by Keras into weight_names0,
 * weight_names1,
 * ... when large) lists full variable names; each weight is a float32 dataset at
 * /<layer_name>/<weight_name>.
 *
 * libhdf5 never runs in this process on a model file: a forked child (keras-h5-probe.c, through
 * h5-child-private.h) lists the weights and describes each dataset; this side declares them in a
 * lazy store and fetches a tensor only when the model's family binds it with the shape config.json
 * implies. Before anything is allocated for a tensor its storage is checked against the file: a
 * contiguous dataset must lie inside the file and store exactly its bytes; a chunked one must have
 * every chunk written. A contiguous native-float32 dataset (what Keras writes) is then used in
 * place in the store's mapping of the file (or read with pread() when mapping is off); any other
 * one is read by the child and sent over. */
#include "tensor-store-private.h"

#include <errno.h>
#include <unistd.h>

#include "as-error.h"
#include "file-read-private.h"
#include "keras-h5-probe-private.h"

typedef struct
{
  char *path;
  int fd;
  guint64 file_size;
  guint64 userblock;
  AsH5Child *child; /* NULL once no dataset needs libhdf5 */
  const char *map;  /* the file's mapping in the store, once asked for (NULL: copy) */
  gboolean map_tried;
  GArray *infos;        /* AsH5DatasetInfo, parallel to the store's tensors */
  GHashTable *index_of; /* AsTensor * -> its index + 1 */
} KerasSource;

static void
keras_source_close (gpointer data)
{
  KerasSource *source = data;
  g_clear_pointer (&source->child, as_h5_child_free);
  if (source->fd >= 0)
    close (source->fd);
  g_array_unref (source->infos);
  g_hash_table_unref (source->index_of);
  g_free (source->path);
  g_free (source);
}

/* TRUE when the dataset's bytes can be taken from the file as they are. */
static gboolean
keras_is_raw (const KerasSource *source, const AsH5DatasetInfo *info)
{
  return info->layout == AS_H5_LAYOUT_CONTIGUOUS && info->is_native_float32 && info->n_filters == 0
         && source->userblock == 0 && info->offset % 4 == 0;
}

/* Checks the dataset's type and storage against its shape and the file before anything is
 * allocated for it. */
static gboolean
keras_check_storage (const KerasSource *source, const AsH5DatasetInfo *info, const AsTensor *tensor,
                     GError **error)
{
  if (info->type_class != AS_H5_CLASS_FLOAT || info->type_size != 4)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' has dtype %s, expected float32", source->path, tensor->name,
                   info->dtype);
      return FALSE;
    }
  return as_h5_dataset_check_storage (source->path, tensor->name, info, source->file_size, error);
}

/* Copies the contiguous bytes of TENSOR at OFFSET of the file (when mapping is off). */
static gboolean
keras_pread (KerasSource *source, AsTensor *tensor, guint64 offset, GError **error)
{
  char *out = (char *) tensor->data;
  gsize bytes = (gsize) tensor->n_elements * 4, done = 0;
  while (done < bytes)
    {
      ssize_t n = pread (source->fd, out + done, bytes - done, (off_t) (offset + done));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: could not read dataset '%s': %s",
                       source->path, tensor->name,
                       n < 0 ? g_strerror (errno) : "the file ended early");
          return FALSE;
        }
      done += (gsize) n;
    }
  return TRUE;
}

/* Asks the child for dataset INDEX, converted to native float32 by libhdf5. */
static gboolean
keras_read_from_child (KerasSource *source, guint32 index, AsTensor *tensor, GError **error)
{
  g_assert (source->child != NULL);
  return as_h5_child_send (source->child, AS_KERAS_MSG_READ, &index, sizeof index, error)
         && as_h5_dataset_receive_floats (source->child, source->path, tensor->name, tensor->data,
                                          (guint64) tensor->n_elements, error);
}

static gboolean
keras_fetch (gpointer data, AsTensorStore *store, AsTensor *tensor, GError **error)
{
  KerasSource *source = data;
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (source->index_of, tensor));
  g_assert (index > 0);
  index--;
  const AsH5DatasetInfo *info = &g_array_index (source->infos, AsH5DatasetInfo, index);
  if (!keras_check_storage (source, info, tensor, error))
    return FALSE;
  if (tensor->n_elements > 0 && keras_is_raw (source, info))
    {
      if (!source->map_tried)
        source->map = as_tensor_store_map_fd (store, source->fd, source->file_size);
      source->map_tried = TRUE;
      if (source->map != NULL)
        {
          tensor->raw = source->map + info->offset;
          tensor->data = (float *) tensor->raw;
          return TRUE;
        }
      return as_tensor_store_alloc_tensor (store, tensor, error) != NULL
             && keras_pread (source, tensor, info->offset, error);
    }
  if (as_tensor_store_alloc_tensor (store, tensor, error) == NULL)
    return FALSE;
  return tensor->n_elements == 0 || keras_read_from_child (source, index, tensor, error);
}

static const AsTensorSourceFuncs keras_source_funcs = {
  .fetch = keras_fetch,
  .close = keras_source_close,
};

/* Receives one dataset record from the child and declares its tensor. */
static gboolean
keras_declare (KerasSource *source, AsTensorStore *store, guint32 length, GError **error)
{
  AsH5DatasetInfo info;
  char name[AS_H5_DATASET_MAX_NAME + 1];
  if (length < sizeof info || length - sizeof info > AS_H5_DATASET_MAX_NAME
      || source->infos->len >= AS_KERAS_MAX_DATASETS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s is damaged: the HDF5 reader sent a malformed weight record", source->path);
      return FALSE;
    }
  if (!as_h5_child_receive_payload (source->child, &info, sizeof info, error)
      || !as_h5_child_receive_payload (source->child, name, length - sizeof info, error))
    return FALSE;
  name[length - sizeof info] = '\0';
  if (info.name_length != length - sizeof info || !g_utf8_validate (name, -1, NULL))
    {
      g_autofree char *shown = g_utf8_make_valid (name, -1);
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the weight name '%s' is not valid UTF-8 (damaged file?)", source->path,
                   shown);
      return FALSE;
    }
  if (info.ndim < 0 || info.ndim > AS_TENSOR_MAX_DIMS || info.ndim > AS_H5_DATASET_MAX_DIMS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' has %d dimensions; expected 1 to %d", source->path, name,
                   info.ndim, AS_TENSOR_MAX_DIMS);
      return FALSE;
    }
  int64_t shape[AS_TENSOR_MAX_DIMS];
  for (int i = 0; i < info.ndim; i++)
    shape[i] = info.dims[i] > G_MAXINT64 ? -1 : (int64_t) info.dims[i];
  AsTensor *tensor = as_tensor_store_add (store, name, info.ndim, shape, AS_DTYPE_F32, NULL, error);
  if (tensor == NULL)
    return FALSE;
  g_array_append_val (source->infos, info);
  g_hash_table_insert (source->index_of, tensor, GUINT_TO_POINTER (source->infos->len));
  return TRUE;
}

/* Receives the child's list of weights; TRUE once it is complete. */
static gboolean
keras_receive_list (KerasSource *source, AsTensorStore *store, GError **error)
{
  for (;;)
    {
      AsH5MessageHeader header;
      if (!as_h5_child_receive (source->child, &header, error))
        return FALSE;
      if (header.type == AS_KERAS_MSG_END && header.length == sizeof source->userblock)
        return as_h5_child_receive_payload (source->child, &source->userblock,
                                            sizeof source->userblock, error);
      if (header.type != AS_KERAS_MSG_DATASET)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s is damaged: the HDF5 reader sent an unexpected message", source->path);
          return FALSE;
        }
      if (!keras_declare (source, store, header.length, error))
        return FALSE;
    }
}

AsTensorStore *
as_tensor_store_open_keras_h5 (const char *path, GError **error)
{
  goffset size = 0;
  int fd = as_file_open_regular (path, &size, error);
  if (fd < 0)
    return NULL;
  g_autoptr (AsTensorStore) store = as_tensor_store_new (path);
  KerasSource *source = g_new0 (KerasSource, 1);
  source->path = g_strdup (path);
  source->fd = fd;
  source->file_size = (guint64) size;
  source->infos = g_array_new (FALSE, FALSE, sizeof (AsH5DatasetInfo));
  source->index_of = g_hash_table_new (NULL, NULL);
  as_tensor_store_set_source (store, &keras_source_funcs, source);
  source->child = as_h5_child_spawn (path, fd, as_keras_h5_probe_main, NULL, error);
  if (source->child == NULL || !keras_receive_list (source, store, error))
    return NULL;

  /* Keras files are all contiguous native float32: then the child is not needed any more. */
  gboolean child_needed = FALSE;
  for (guint i = 0; i < source->infos->len; i++)
    child_needed |= !keras_is_raw (source, &g_array_index (source->infos, AsH5DatasetInfo, i));
  if (!child_needed)
    g_clear_pointer (&source->child, as_h5_child_free);
  return g_steal_pointer (&store);
}

AsTensorStore *
as_tensor_store_load_keras_h5 (const char *path, GError **error)
{
  g_autoptr (AsTensorStore) store = as_tensor_store_open_keras_h5 (path, error);
  if (store == NULL || !as_tensor_store_fetch_all (store, error))
    return NULL;
  as_tensor_store_close_source (store);
  return g_steal_pointer (&store);
}

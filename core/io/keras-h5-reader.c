/* keras-h5-reader.c — reads the Keras-HDF5 weight file (tf_model.h5) into a tensor store.
 *
 * Layout (core/README.md, "Weight files"): the root attribute layer_names lists the top-level layer
 * groups; each group's attribute weight_names (split by Keras into weight_names0, weight_names1,
 * ... when large) lists full variable names; each weight is a float32 dataset at
 * /<layer_name>/<weight_name>. Attributes may hold fixed- or variable-length strings.
 *
 * The reader declares every dataset first, checking dtype, shape and that its bytes lie inside
 * the file. A contiguous, unfiltered native-float32 dataset (what Keras writes) is used in place
 * in the store's mapping of the file; any other one is read with one H5Dread into the store's
 * block, converted by HDF5 where needed. */
#include "tensor-store-private.h"

#include <glib/gstdio.h>
#include <hdf5.h>

#include "as-error.h"

typedef struct
{
  const char *path;
  hid_t file;
  guint64 file_size;
  const char *map;  /* the file mapped by the store, or NULL (then every dataset is read) */
  GArray *datasets; /* of hid_t, parallel to the store's tensors */
} KerasReader;

/* The most specific message on HDF5's error stack, e.g. "truncated file: eof = ...". */
static herr_t
h5_error_walk (unsigned n, const H5E_error2_t *err, void *data)
{
  char **detail = data;
  if (n == 0 && err->desc != NULL && *detail == NULL)
    *detail = g_strdup (err->desc);
  return 0;
}

static char *
h5_error_detail (void)
{
  char *detail = NULL;
  H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, h5_error_walk, &detail);
  if (detail == NULL)
    return g_strdup ("no detail from HDF5");
  return detail;
}

/* Appends the strings of attribute NAME of OBJ (fixed- or variable-length) to OUT. */
static gboolean
h5_read_string_attr (hid_t obj, const char *name, const char *path, const char *where,
                     GPtrArray *out, GError **error)
{
  gboolean ok = FALSE;
  hid_t attr = H5Aopen (obj, name, H5P_DEFAULT);
  hid_t type = attr >= 0 ? H5Aget_type (attr) : H5I_INVALID_HID;
  hid_t space = attr >= 0 ? H5Aget_space (attr) : H5I_INVALID_HID;
  hid_t mem = H5I_INVALID_HID;
  if (attr < 0 || type < 0 || space < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: could not read attribute '%s' of %s",
                   path, name, where);
      goto out;
    }
  if (H5Tget_class (type) != H5T_STRING)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: attribute '%s' of %s is not a list of strings (not a Keras weight file?)",
                   path, name, where);
      goto out;
    }
  hssize_t n = H5Sget_simple_extent_npoints (space);
  size_t size = H5Tget_size (type);
  htri_t vlen = H5Tis_variable_str (type);
  mem = H5Tcopy (H5T_C_S1);
  if (n < 0 || size == 0 || vlen < 0 || mem < 0 || H5Tset_size (mem, vlen ? H5T_VARIABLE : size) < 0
      || H5Tset_cset (mem, H5Tget_cset (type)) < 0
      /* read fixed-length strings byte for byte: a NULLTERM memory type would replace the last
       * character of h5py's NULLPAD strings with the terminator */
      || (!vlen && H5Tset_strpad (mem, H5T_STR_NULLPAD) < 0))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: attribute '%s' of %s has an unreadable string type", path, name, where);
      goto out;
    }
  if (n == 0)
    {
      ok = TRUE;
      goto out;
    }
  if (vlen)
    {
      g_autofree char **strings = g_new0 (char *, n);
      if (H5Aread (attr, mem, strings) < 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: could not read attribute '%s' of %s",
                       path, name, where);
          goto out;
        }
      for (hssize_t i = 0; i < n; i++)
        g_ptr_array_add (out, g_strdup (strings[i] != NULL ? strings[i] : ""));
      H5Dvlen_reclaim (mem, space, H5P_DEFAULT, strings);
    }
  else
    {
      g_autofree char *buffer = g_malloc0 ((gsize) n * size);
      if (H5Aread (attr, mem, buffer) < 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: could not read attribute '%s' of %s",
                       path, name, where);
          goto out;
        }
      for (hssize_t i = 0; i < n; i++)
        g_ptr_array_add (out, g_strndup (buffer + (gsize) i * size, size));
    }
  ok = TRUE;
out:
  if (mem >= 0)
    H5Tclose (mem);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  if (attr >= 0)
    H5Aclose (attr);
  return ok;
}

/* The layer's weight_names, or the concatenation of weight_names0, weight_names1, ... */
static gboolean
keras_read_weight_names (KerasReader *reader, hid_t group, const char *layer, GPtrArray *out,
                         GError **error)
{
  g_autofree char *where = g_strdup_printf ("group '/%s'", layer);
  if (H5Aexists (group, "weight_names") > 0)
    return h5_read_string_attr (group, "weight_names", reader->path, where, out, error);
  guint parts = 0;
  for (;; parts++)
    {
      g_autofree char *name = g_strdup_printf ("weight_names%u", parts);
      if (H5Aexists (group, name) <= 0)
        break;
      if (!h5_read_string_attr (group, name, reader->path, where, out, error))
        return FALSE;
    }
  if (parts == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: %s has no attribute 'weight_names' (not a Keras weight file?)",
                   reader->path, where);
      return FALSE;
    }
  return TRUE;
}

/* "float64", "int32", ... for error messages. */
static char *
h5_type_to_string (hid_t type)
{
  size_t bits = H5Tget_size (type) * 8;
  switch (H5Tget_class (type))
    {
    case H5T_FLOAT:
      return g_strdup_printf ("float%zu", bits);
    case H5T_INTEGER:
      return g_strdup_printf ("%sint%zu", H5Tget_sign (type) == H5T_SGN_NONE ? "u" : "", bits);
    case H5T_STRING:
      return g_strdup ("string");
    default:
      return g_strdup_printf ("HDF5 type class %d", (int) H5Tget_class (type));
    }
}

/* TRUE when the dataset's BYTES bytes sit in the file as native float32, contiguous, without
 * filters or external storage: then the file mapping can be used as is. */
static gboolean
keras_dataset_is_raw (hid_t dset, guint64 bytes)
{
  hid_t type = H5Dget_type (dset);
  hid_t dcpl = H5Dget_create_plist (dset);
  gboolean raw = type >= 0 && dcpl >= 0 && H5Tequal (type, H5T_NATIVE_FLOAT) > 0
                 && H5Pget_layout (dcpl) == H5D_CONTIGUOUS && H5Pget_nfilters (dcpl) == 0
                 && H5Pget_external_count (dcpl) == 0 && H5Dget_storage_size (dset) == bytes;
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (type >= 0)
    H5Tclose (type);
  return raw;
}

/* Opens dataset NAME, checks that it is float32 and lies inside the file, declares it. */
static gboolean
keras_declare_dataset (KerasReader *reader, AsTensorStore *store, const char *name, GError **error)
{
  hid_t dset = H5Dopen2 (reader->file, name, H5P_DEFAULT);
  if (dset < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: weight '%s' is listed in weight_names but there is no such dataset",
                   reader->path, name);
      return FALSE;
    }
  g_array_append_val (reader->datasets, dset);

  hid_t type = H5Dget_type (dset);
  gboolean is_f32 = type >= 0 && H5Tget_class (type) == H5T_FLOAT && H5Tget_size (type) == 4;
  if (!is_f32)
    {
      g_autofree char *dtype = type >= 0 ? h5_type_to_string (type) : g_strdup ("unreadable");
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' has dtype %s, expected float32", reader->path, name, dtype);
    }
  if (type >= 0)
    H5Tclose (type);
  if (!is_f32)
    return FALSE;

  hid_t space = H5Dget_space (dset);
  int ndim = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
  hsize_t dims[AS_TENSOR_MAX_DIMS] = { 0 };
  if (ndim > AS_TENSOR_MAX_DIMS || ndim < 0
      || (ndim > 0 && H5Sget_simple_extent_dims (space, dims, NULL) < 0))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' has %d dimensions; expected 1 to %d", reader->path, name, ndim,
                   AS_TENSOR_MAX_DIMS);
      if (space >= 0)
        H5Sclose (space);
      return FALSE;
    }
  H5Sclose (space);

  int64_t shape[AS_TENSOR_MAX_DIMS];
  for (int i = 0; i < ndim; i++)
    shape[i] = dims[i] > G_MAXINT64 ? -1 : (int64_t) dims[i];
  AsTensor *tensor = as_tensor_store_add (store, name, ndim, shape, AS_DTYPE_F32, NULL, error);
  if (tensor == NULL)
    return FALSE;

  /* A contiguous dataset whose bytes would end past the end of the file: the file was cut. */
  haddr_t offset = H5Dget_offset (dset);
  guint64 bytes = (guint64) tensor->n_elements * 4;
  if (offset != HADDR_UNDEF && (offset > reader->file_size || bytes > reader->file_size - offset))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: dataset '%s' ends at byte %" G_GUINT64_FORMAT
                   " but the file has only %" G_GUINT64_FORMAT " bytes (truncated file?)",
                   reader->path, name, (guint64) offset + bytes, reader->file_size);
      return FALSE;
    }
  if (reader->map != NULL && offset != HADDR_UNDEF && offset % 4 == 0 && bytes > 0
      && keras_dataset_is_raw (dset, bytes))
    tensor->raw = reader->map + offset;
  return TRUE;
}

static gboolean
keras_declare_layer (KerasReader *reader, AsTensorStore *store, const char *layer, GError **error)
{
  hid_t group = H5Gopen2 (reader->file, layer, H5P_DEFAULT);
  if (group < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: layer '%s' is listed in layer_names but there is no such group",
                   reader->path, layer);
      return FALSE;
    }
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = keras_read_weight_names (reader, group, layer, names, error);
  H5Gclose (group);
  for (guint i = 0; ok && i < names->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s/%s", layer, (char *) names->pdata[i]);
      ok = keras_declare_dataset (reader, store, name, error);
    }
  return ok;
}

static gboolean
keras_read_all (KerasReader *reader, AsTensorStore *store, GError **error)
{
  for (guint i = 0; i < store->tensors->len; i++)
    {
      AsTensor *tensor = g_ptr_array_index (store->tensors, i);
      hid_t dset = g_array_index (reader->datasets, hid_t, i);
      if (tensor->n_elements == 0 || as_tensor_store_is_mapped (store, tensor))
        continue;
      if (H5Dread (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor->data) < 0)
        {
          g_autofree char *detail = h5_error_detail ();
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: could not read dataset '%s' (truncated or damaged file: %s)",
                       reader->path, tensor->name, detail);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
keras_open (KerasReader *reader, AsTensorStore *store, GError **error)
{
  GStatBuf st;
  if (g_stat (reader->path, &st) != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND, "%s: no such file", reader->path);
      return FALSE;
    }
  reader->file_size = (guint64) st.st_size;
  htri_t is_h5 = H5Fis_hdf5 (reader->path);
  if (is_h5 < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: could not be read", reader->path);
      return FALSE;
    }
  if (is_h5 == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s is not an HDF5 file", reader->path);
      return FALSE;
    }
  reader->file = H5Fopen (reader->path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (reader->file < 0)
    {
      g_autofree char *detail = h5_error_detail ();
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the HDF5 file could not be opened; it is truncated or damaged (%s)",
                   reader->path, detail);
      return FALSE;
    }

  /* Dataset addresses are file offsets unless a user block shifts them: map only then. */
  hid_t fcpl = H5Fget_create_plist (reader->file);
  hsize_t userblock = 1;
  if (fcpl >= 0 && H5Pget_userblock (fcpl, &userblock) >= 0 && userblock == 0)
    reader->map = as_tensor_store_map (store);
  if (fcpl >= 0)
    H5Pclose (fcpl);
  return TRUE;
}

AsTensorStore *
as_tensor_store_load_keras_h5 (const char *path, GError **error)
{
  /* Thread-local in thread-safe HDF5 builds, so set it on every entry. */
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);

  KerasReader reader = { .path = path, .file = H5I_INVALID_HID };
  reader.datasets = g_array_new (FALSE, FALSE, sizeof (hid_t));
  g_autoptr (AsTensorStore) store = as_tensor_store_new (path);
  g_autoptr (GPtrArray) layers = g_ptr_array_new_with_free_func (g_free);

  gboolean ok = keras_open (&reader, store, error);
  if (ok && H5Aexists (reader.file, "layer_names") <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: HDF5 file without the root attribute 'layer_names' "
                   "(not a Keras weight file such as tf_model.h5)",
                   path);
      ok = FALSE;
    }
  if (ok)
    ok = h5_read_string_attr (reader.file, "layer_names", path, "the root group", layers, error);
  for (guint i = 0; ok && i < layers->len; i++)
    ok = keras_declare_layer (&reader, store, layers->pdata[i], error);
  if (ok)
    ok = as_tensor_store_allocate (store, error);
  if (ok)
    ok = keras_read_all (&reader, store, error);

  for (guint i = 0; i < reader.datasets->len; i++)
    H5Dclose (g_array_index (reader.datasets, hid_t, i));
  g_array_unref (reader.datasets);
  if (reader.file >= 0)
    H5Fclose (reader.file);
  return ok ? g_steal_pointer (&store) : NULL;
}

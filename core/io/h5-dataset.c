/* h5-dataset.c — describing, checking and reading one dataset of an untrusted HDF5 file
 * (h5-dataset-private.h). The as_h5_dataset_check_links/describe/send_floats half runs in the
 * HDF5 child only (plain C and libhdf5, no GLib locks); the other half in the parent. */
#include "h5-dataset-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "as-error.h"

static gboolean
dataset_fail (int channel, const char *path, const char *name, const char *why)
{
  as_h5_channel_send_error (channel, AS_ERROR_FORMAT, "%s: dataset '%s' %s", path, name, why);
  return FALSE;
}

/* The length of the longest '/'-bounded prefix NAME shares with CHECKED ("a/b/c", "a/b/d": 3). */
static gsize
shared_groups (const char *name, const char *checked)
{
  gsize shared = 0;
  for (gsize i = 0; checked != NULL && name[i] != '\0' && name[i] == checked[i]; i++)
    if (name[i] == '/')
      shared = i;
  return shared;
}

gboolean
as_h5_dataset_check_links (int channel, const char *path, hid_t file, const char *name,
                           const char *checked, const char *kind, const char *missing)
{
  char prefix[AS_H5_DATASET_MAX_NAME + 1];
  gsize n = strlen (name);
  if (n > AS_H5_DATASET_MAX_NAME)
    return dataset_fail (channel, path, name, "has too long a name");
  for (gsize end = MAX (1, shared_groups (name, checked)); end <= n; end++)
    {
      if (end < n && name[end] != '/')
        continue;
      memcpy (prefix, name, end);
      prefix[end] = '\0';
      H5L_info_t info;
      if (H5Lexists (file, prefix, H5P_DEFAULT) <= 0
          || H5Lget_info (file, prefix, &info, H5P_DEFAULT) < 0)
        {
          as_h5_channel_send_error (channel, AS_ERROR_NOT_FOUND, "%s: %s '%s' %s", path, kind, name,
                                    missing);
          return FALSE;
        }
      if (info.type == H5L_TYPE_HARD)
        continue;
      char target[1024] = "";
      if (info.type == H5L_TYPE_EXTERNAL && info.u.val_size < sizeof target)
        {
          char value[1024];
          const char *other = NULL, *object = NULL;
          unsigned flags = 0;
          if (H5Lget_val (file, prefix, value, sizeof value, H5P_DEFAULT) >= 0
              && H5Lunpack_elink_val (value, info.u.val_size, &flags, &other, &object) >= 0)
            snprintf (target, sizeof target, " (%s:%s)", other, object);
        }
      as_h5_channel_send_error (channel, AS_ERROR_FORMAT,
                                "%s: '%s' is %s%s; attnscope reads only data stored in the file "
                                "itself (Keras never writes links)",
                                path, prefix,
                                info.type == H5L_TYPE_EXTERNAL ? "an external link to another file"
                                : info.type == H5L_TYPE_SOFT   ? "a soft link"
                                                               : "a user-defined link",
                                target);
      return FALSE;
    }
  return TRUE;
}

static void
dataset_type_name (hid_t type, char *out, gsize size)
{
  size_t bits = H5Tget_size (type) * 8;
  switch (H5Tget_class (type))
    {
    case H5T_FLOAT:
      snprintf (out, size, "float%zu", bits);
      break;
    case H5T_INTEGER:
      snprintf (out, size, "%sint%zu", H5Tget_sign (type) == H5T_SGN_NONE ? "u" : "", bits);
      break;
    case H5T_STRING:
      snprintf (out, size, "string");
      break;
    default:
      snprintf (out, size, "HDF5 type class %d", (int) H5Tget_class (type));
    }
}

/* Chunks a dataset of DIMS needs with chunks of CHUNK; G_MAXUINT64 on overflow. */
static guint64
dataset_chunks_needed (int ndim, const hsize_t *dims, const hsize_t *chunk)
{
  guint64 n = 1;
  for (int i = 0; i < ndim; i++)
    {
      if (chunk[i] == 0)
        return G_MAXUINT64;
      guint64 k = dims[i] / chunk[i] + (dims[i] % chunk[i] != 0);
      if (k != 0 && n > G_MAXUINT64 / k)
        return G_MAXUINT64;
      n *= k;
    }
  return n;
}

/* Fills INFO from the open dataset's creation properties, type and dataspace. */
static gboolean
dataset_fill (int channel, const char *path, const char *name, hid_t dset, hid_t dcpl, hid_t type,
              hid_t space, AsH5DatasetInfo *info)
{
  H5D_layout_t layout = H5Pget_layout (dcpl);
  if (layout == H5D_VIRTUAL)
    return dataset_fail (channel, path, name,
                         "is a virtual dataset (its data lives in other datasets or files); "
                         "attnscope reads only data stored in the file itself");
  int n_external = H5Pget_external_count (dcpl);
  if (n_external != 0)
    {
      char file[1024] = "?";
      off_t offset = 0;
      hsize_t bytes = 0;
      if (n_external > 0)
        H5Pget_external (dcpl, 0, sizeof file, file, &offset, &bytes);
      file[sizeof file - 1] = '\0';
      as_h5_channel_send_error (channel, AS_ERROR_FORMAT,
                                "%s: dataset '%s' keeps its data in the external file '%s'; "
                                "attnscope reads only data stored in the file itself",
                                path, name, file);
      return FALSE;
    }
  if (layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED && layout != H5D_COMPACT)
    return dataset_fail (channel, path, name, "has an unknown storage layout (damaged file?)");
  info->layout = layout == H5D_CONTIGUOUS ? AS_H5_LAYOUT_CONTIGUOUS
                 : layout == H5D_CHUNKED  ? AS_H5_LAYOUT_CHUNKED
                                          : AS_H5_LAYOUT_COMPACT;
  H5T_class_t klass = H5Tget_class (type);
  info->type_class = klass == H5T_FLOAT     ? AS_H5_CLASS_FLOAT
                     : klass == H5T_INTEGER ? AS_H5_CLASS_INTEGER
                                            : AS_H5_CLASS_OTHER;
  info->type_size = (guint32) H5Tget_size (type);
  info->is_native_float32 = H5Tequal (type, H5T_NATIVE_FLOAT) > 0;
  dataset_type_name (type, info->dtype, sizeof info->dtype);

  int ndim = H5Sget_simple_extent_ndims (space);
  hsize_t dims[H5S_MAX_RANK] = { 0 };
  if (H5Sget_simple_extent_type (space) == H5S_NULL || ndim < 0 || ndim > H5S_MAX_RANK
      || H5Sget_simple_extent_dims (space, dims, NULL) < 0)
    return dataset_fail (channel, path, name, "has no shape of elements (damaged file?)");
  info->ndim = ndim;
  for (int i = 0; i < ndim && i < AS_H5_DATASET_MAX_DIMS; i++)
    info->dims[i] = dims[i];
  info->n_filters = (guint32) MAX (0, H5Pget_nfilters (dcpl));
  info->storage_bytes = H5Dget_storage_size (dset);
  if (layout == H5D_CONTIGUOUS)
    {
      haddr_t offset = H5Dget_offset (dset);
      info->offset = offset == HADDR_UNDEF ? G_MAXUINT64 : (guint64) offset;
    }
  if (layout == H5D_CHUNKED)
    {
      hsize_t chunk[H5S_MAX_RANK] = { 0 };
      hsize_t stored = 0;
      if (H5Pget_chunk (dcpl, ndim, chunk) != ndim || H5Dget_num_chunks (dset, space, &stored) < 0)
        return dataset_fail (channel, path, name, "has an unreadable chunk index (damaged file?)");
      info->chunks_stored = stored;
      info->chunks_needed = dataset_chunks_needed (ndim, dims, chunk);
    }
  return TRUE;
}

gboolean
as_h5_dataset_describe (int channel, const char *path, hid_t file, const char *name,
                        AsH5DatasetInfo *info)
{
  memset (info, 0, sizeof *info);
  info->offset = G_MAXUINT64;
  H5O_info_t object;
  if (H5Oget_info_by_name2 (file, name, &object, H5O_INFO_BASIC, H5P_DEFAULT) < 0
      || object.type != H5O_TYPE_DATASET)
    {
      as_h5_channel_send_error (channel, AS_ERROR_NOT_FOUND, "%s: '%s' is not a dataset", path,
                                name);
      return FALSE;
    }
  hid_t dset = H5Dopen2 (file, name, H5P_DEFAULT);
  hid_t dcpl = dset >= 0 ? H5Dget_create_plist (dset) : H5I_INVALID_HID;
  hid_t type = dset >= 0 ? H5Dget_type (dset) : H5I_INVALID_HID;
  hid_t space = dset >= 0 ? H5Dget_space (dset) : H5I_INVALID_HID;
  gboolean ok = dcpl >= 0 && type >= 0 && space >= 0;
  if (!ok)
    dataset_fail (channel, path, name, "could not be opened (damaged file?)");
  else
    ok = dataset_fill (channel, path, name, dset, dcpl, type, space, info);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (dset >= 0)
    H5Dclose (dset);
  return ok;
}

/* Reads the rows [FIRST, FIRST + COUNT) of the open dataset (of NDIM DIMS) into BUFFER. */
static gboolean
dataset_read_rows (hid_t dset, hid_t space, int ndim, const hsize_t *dims, guint64 first,
                   guint64 count, float *buffer)
{
  if (ndim == 0) /* a scalar is read whole */
    return H5Dread (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer) >= 0;
  hsize_t start[H5S_MAX_RANK] = { first }, size[H5S_MAX_RANK];
  for (int i = 0; i < ndim; i++)
    size[i] = i == 0 ? count : dims[i];
  hid_t mem = H5Screate_simple (ndim, size, NULL);
  gboolean ok = mem >= 0
                && H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, size, NULL) >= 0
                && H5Dread (dset, H5T_NATIVE_FLOAT, mem, space, H5P_DEFAULT, buffer) >= 0;
  if (mem >= 0)
    H5Sclose (mem);
  return ok;
}

gboolean
as_h5_dataset_send_floats (int channel, const char *path, hid_t file, const char *name)
{
  hid_t dset = H5Dopen2 (file, name, H5P_DEFAULT);
  hid_t space = dset >= 0 ? H5Dget_space (dset) : H5I_INVALID_HID;
  int ndim = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
  hsize_t dims[H5S_MAX_RANK] = { 0 };
  gboolean ok
      = ndim >= 0 && ndim <= H5S_MAX_RANK && H5Sget_simple_extent_dims (space, dims, NULL) >= 0;
  gboolean parent_gone = FALSE;
  guint64 row = 1, rows = ndim > 0 ? dims[0] : 1;
  for (int i = 1; ok && i < ndim; i++)
    row = dims[i] != 0 && row > G_MAXUINT32 / dims[i] ? G_MAXUINT32 : row * dims[i];
  float *buffer = NULL;
  if (ok && row > 0 && rows > 0)
    {
      guint64 per_slab = MAX (1, (AS_H5_DATA_PIECE / 4) / row);
      ok = row * 4 < G_MAXUINT32 && (buffer = malloc (per_slab * row * 4)) != NULL;
      for (guint64 r = 0; ok && r < rows; r += per_slab)
        {
          guint64 count = MIN (per_slab, rows - r);
          ok = dataset_read_rows (dset, space, ndim, dims, r, count, buffer);
          if (ok && !as_h5_channel_send (channel, AS_H5_MSG_DATA, buffer, count * row * 4))
            ok = FALSE, parent_gone = TRUE;
        }
    }
  free (buffer);
  if (!ok && !parent_gone)
    {
      char detail[512];
      as_h5_error_detail (detail, sizeof detail);
      as_h5_channel_send_error (channel, AS_ERROR_FORMAT,
                                "%s: could not read dataset '%s' (truncated or damaged file: %s)",
                                path, name, detail);
    }
  if (space >= 0)
    H5Sclose (space);
  if (dset >= 0)
    H5Dclose (dset);
  return !parent_gone;
}

/* ---- the parent's side ---- */

gint64
as_h5_dataset_n_elements (const AsH5DatasetInfo *info)
{
  gint64 n = 1;
  for (int i = 0; i < info->ndim && i < AS_H5_DATASET_MAX_DIMS; i++)
    {
      if (info->dims[i] > G_MAXINT64
          || (info->dims[i] > 0 && n > G_MAXINT64 / (gint64) info->dims[i]))
        return -1;
      n *= (gint64) info->dims[i];
    }
  return n;
}

gboolean
as_h5_dataset_check_storage (const char *path, const char *name, const AsH5DatasetInfo *info,
                             guint64 file_size, GError **error)
{
  gint64 n = as_h5_dataset_n_elements (info);
  if (n < 0 || (guint64) n > G_MAXUINT64 / MAX (info->type_size, 1))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: dataset '%s' has an impossible shape",
                   path, name);
      return FALSE;
    }
  guint64 bytes = (guint64) n * info->type_size;
  g_autofree char *size = g_format_size_full (bytes, G_FORMAT_SIZE_LONG_FORMAT);
  if (info->layout == AS_H5_LAYOUT_CHUNKED)
    {
      if (info->chunks_stored < info->chunks_needed
          || (info->n_filters == 0 && info->storage_bytes < bytes))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: dataset '%s' declares %s but only %" G_GUINT64_FORMAT
                       " of its %" G_GUINT64_FORMAT " chunks are stored (damaged file)",
                       path, name, size, info->chunks_stored, info->chunks_needed);
          return FALSE;
        }
      return TRUE;
    }
  if (info->layout == AS_H5_LAYOUT_CONTIGUOUS && info->offset == G_MAXUINT64 && bytes > 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: dataset '%s' declares %s but none of it is stored (damaged file)", path,
                   name, size);
      return FALSE;
    }
  if (info->storage_bytes != bytes)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: dataset '%s' declares %s but stores %" G_GUINT64_FORMAT
                   " bytes (damaged file)",
                   path, name, size, info->storage_bytes);
      return FALSE;
    }
  if (info->layout == AS_H5_LAYOUT_CONTIGUOUS && bytes > 0
      && (info->offset > file_size || bytes > file_size - info->offset))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: dataset '%s' ends at byte %" G_GUINT64_FORMAT
                   " but the file has only %" G_GUINT64_FORMAT " bytes (truncated file?)",
                   path, name, info->offset + bytes, file_size);
      return FALSE;
    }
  return TRUE;
}

gboolean
as_h5_dataset_receive_floats (AsH5Child *child, const char *path, const char *name, float *out,
                              guint64 n, GError **error)
{
  char *bytes_out = (char *) out;
  guint64 bytes = n * 4, done = 0;
  while (done < bytes)
    {
      AsH5MessageHeader header;
      if (!as_h5_child_receive (child, &header, error))
        return FALSE;
      if (header.type != AS_H5_MSG_DATA || header.length == 0 || header.length > bytes - done)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s is damaged: the HDF5 reader sent %u bytes of dataset '%s' where "
                       "%" G_GUINT64_FORMAT " were due",
                       path, header.length, name, bytes - done);
          return FALSE;
        }
      if (!as_h5_child_receive_payload (child, bytes_out + done, header.length, error))
        return FALSE;
      done += header.length;
    }
  return TRUE;
}

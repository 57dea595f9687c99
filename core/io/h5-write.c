/* h5-write.c — see h5-write-private.h. */
#include "h5-write-private.h"

#include "as-error.h"

gboolean
as_h5_atomic_begin (AsH5Atomic *atomic, const char *path, AsOutputFlags flags, GError **error)
{
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  atomic->file = H5I_INVALID_HID;
  atomic->output = as_output_file_new (path, flags, error);
  if (atomic->output == NULL)
    return FALSE;
  atomic->path = g_strdup (path);
  atomic->file = H5Fcreate (as_output_file_get_temp_path (atomic->output), H5F_ACC_TRUNC,
                            H5P_DEFAULT, H5P_DEFAULT);
  if (atomic->file < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: cannot create the output file", path);
      g_clear_pointer (&atomic->output, as_output_file_free);
      g_clear_pointer (&atomic->path, g_free);
      return FALSE;
    }
  return TRUE;
}

gboolean
as_h5_atomic_end (AsH5Atomic *atomic, gboolean ok, GError **error)
{
  if (H5Fclose (atomic->file) < 0 && ok)
    {
      ok = FALSE;
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: could not finish writing", atomic->path);
    }
  if (ok)
    ok = as_output_file_commit (atomic->output, error);
  g_clear_pointer (&atomic->output, as_output_file_free); /* removes the file unless committed */
  g_clear_pointer (&atomic->path, g_free);
  atomic->file = H5I_INVALID_HID;
  return ok;
}

gboolean
as_h5_write_dataset (hid_t file, const char *name, hid_t type, const void *data, int rank,
                     const hsize_t *dims, GError **error)
{
  hsize_t n = 1;
  for (int i = 0; i < rank; i++)
    n *= dims[i];
  hid_t space = H5Screate_simple (rank, dims, NULL);
  hid_t dset = space < 0
                   ? H5I_INVALID_HID
                   : H5Dcreate2 (file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t status = dset < 0 ? -1 : 0;
  if (status >= 0 && n > 0)
    {
      hid_t memory_type = H5Tget_native_type (type, H5T_DIR_ASCEND);
      status = memory_type < 0 ? -1
                               : H5Dwrite (dset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
      if (memory_type >= 0)
        H5Tclose (memory_type);
    }
  if (dset >= 0)
    H5Dclose (dset);
  if (space >= 0)
    H5Sclose (space);
  if (status < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "could not write dataset '%s'", name);
      return FALSE;
    }
  return TRUE;
}

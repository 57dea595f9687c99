/* matrix-h5.c — reading and writing one 2-D float matrix as an HDF5 dataset.
 *
 * Used by `attnscope project --input FILE.h5 --dataset NAME` and by the tests and benchmarks that
 * exchange matrices with scikit-learn. HDF5 converts any integer or float dataset to float32 on
 * reading; strings, compounds and other classes are refused with the dataset's name. */
#include "as-matrix-h5.h"

#include <hdf5.h>

#include "as-error.h"
#include "h5-write-private.h"

static gboolean
open_file (const char *path, hid_t *file, GError **error)
{
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND, "%s: no such file", path);
      return FALSE;
    }
  if (H5Fis_hdf5 (path) <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s is not an HDF5 file", path);
      return FALSE;
    }
  *file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (*file < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the HDF5 file could not be opened; it is truncated or damaged", path);
      return FALSE;
    }
  return TRUE;
}

/* Checks that DSET is a non-empty 2-D numeric dataset; sets DIMS. */
static gboolean
check_shape (hid_t dset, const char *path, const char *dataset, hsize_t *dims, GError **error)
{
  hid_t type = H5Dget_type (dset);
  H5T_class_t klass = type >= 0 ? H5Tget_class (type) : H5T_NO_CLASS;
  if (type >= 0)
    H5Tclose (type);
  if (klass != H5T_FLOAT && klass != H5T_INTEGER)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' does not hold numbers (expected a float or integer matrix)",
                   path, dataset);
      return FALSE;
    }
  hid_t space = H5Dget_space (dset);
  int rank = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
  if (rank == 2 && H5Sget_simple_extent_dims (space, dims, NULL) < 0)
    rank = -1;
  if (space >= 0)
    H5Sclose (space);
  if (rank != 2)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' has rank %d; expected a 2-D matrix [n][d]", path, dataset,
                   rank);
      return FALSE;
    }
  if (dims[0] == 0 || dims[1] == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' is an empty matrix (%llu x %llu)", path, dataset,
                   (unsigned long long) dims[0], (unsigned long long) dims[1]);
      return FALSE;
    }
  if (dims[0] > G_MAXINT || dims[1] > G_MAXINT || dims[0] * dims[1] > G_MAXSIZE / sizeof (float))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "%s: dataset '%s' is too large (%llu x %llu)",
                   path, dataset, (unsigned long long) dims[0], (unsigned long long) dims[1]);
      return FALSE;
    }
  return TRUE;
}

float *
as_matrix_h5_read (const char *path, const char *dataset, int *n_rows, int *n_cols, GError **error)
{
  g_return_val_if_fail (path != NULL && dataset != NULL, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);

  hid_t file = H5I_INVALID_HID;
  if (!open_file (path, &file, error))
    return NULL;

  float *data = NULL;
  hid_t dset = H5I_INVALID_HID;
  if (H5Lexists (file, dataset, H5P_DEFAULT) <= 0
      || (dset = H5Dopen2 (file, dataset, H5P_DEFAULT)) < 0)
    g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND, "%s: no dataset '%s'", path, dataset);
  else
    {
      hsize_t dims[2] = { 0, 0 };
      if (check_shape (dset, path, dataset, dims, error))
        {
          data = g_try_malloc ((gsize) dims[0] * dims[1] * sizeof (float)); /* [n][d] */
          if (data == NULL)
            g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                         "%s: dataset '%s' (%llu x %llu floats) does not fit in memory", path,
                         dataset, (unsigned long long) dims[0], (unsigned long long) dims[1]);
          else if (H5Dread (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
            {
              g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                           "%s: dataset '%s' could not be read as float32", path, dataset);
              g_clear_pointer (&data, g_free);
            }
          else
            {
              *n_rows = (int) dims[0];
              *n_cols = (int) dims[1];
            }
        }
      H5Dclose (dset);
    }
  H5Fclose (file);
  return data;
}

gboolean
as_matrix_h5_write (const char *path, const char *dataset, const float *data, int n_rows,
                    int n_cols, GError **error)
{
  g_return_val_if_fail (path != NULL && dataset != NULL && n_rows >= 0 && n_cols >= 0, FALSE);
  AsH5Atomic atomic;
  if (!as_h5_atomic_begin (&atomic, path, error))
    return FALSE;
  hsize_t dims[2] = { (hsize_t) n_rows, (hsize_t) n_cols };
  GError *local = NULL;
  gboolean ok = as_h5_write_dataset (atomic.file, dataset, H5T_IEEE_F32LE, data, 2, dims, &local);
  if (!as_h5_atomic_end (&atomic, ok, ok ? error : NULL) || !ok)
    {
      if (local != NULL)
        g_propagate_prefixed_error (error, local, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}

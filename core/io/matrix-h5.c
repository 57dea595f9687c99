/* matrix-h5.c — reading and writing one 2-D float matrix as an HDF5 dataset.
 *
 * Used by `attnscope project --input FILE.h5 --dataset NAME` and by the tests and benchmarks that
 * exchange matrices with scikit-learn. The file may come from anyone, so libhdf5 reads it in the
 * HDF5 child (h5-child-private.h, h5-dataset-private.h): links, virtual datasets and external
 * storage are refused, and the dataset's size is checked against the memory budget and against
 * what the file stores before anything is allocated. HDF5 converts any integer or float dataset
 * to float32; strings, compounds and other classes are refused with the dataset's name. */
#include "as-matrix-h5.h"

#include <hdf5.h>

#include <unistd.h>

#include "as-error.h"
#include "as-trace.h"
#include "file-read-private.h"
#include "h5-dataset-private.h"
#include "h5-write-private.h"

enum
{
  MATRIX_MSG_INFO = AS_H5_MSG_USER, /* child: the dataset's AsH5DatasetInfo */
  MATRIX_MSG_READ,                  /* parent: send the elements (h5-dataset-private.h) */
};

/* The HDF5 child (h5-child-private.h): describes dataset DATA of the file, then sends its
 * elements when asked. */
static int
matrix_probe_main (int channel, const char *path, const char *file_path, gpointer data)
{
  const char *dataset = data;
  htri_t is_h5 = H5Fis_hdf5 (file_path);
  if (is_h5 <= 0)
    {
      as_h5_channel_send_error (channel, AS_ERROR_FORMAT, "%s is not an HDF5 file", path);
      return 0;
    }
  hid_t file = H5Fopen (file_path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    {
      as_h5_channel_send_error (channel, AS_ERROR_FORMAT,
                                "%s: the HDF5 file could not be opened; it is truncated or damaged",
                                path);
      return 0;
    }
  AsH5DatasetInfo info;
  AsH5MessageHeader header;
  if (as_h5_dataset_check_links (channel, path, file, dataset, NULL, "dataset",
                                 "is not in the file")
      && as_h5_dataset_describe (channel, path, file, dataset, &info)
      && as_h5_channel_send (channel, MATRIX_MSG_INFO, &info, sizeof info)
      && as_h5_channel_receive (channel, &header, NULL, 0) && header.type == MATRIX_MSG_READ)
    as_h5_dataset_send_floats (channel, path, file, dataset);
  return 0;
}

/* Checks that INFO describes a non-empty 2-D numeric matrix that fits in memory and is stored
 * whole in the FILE_SIZE bytes of PATH. */
static gboolean
check_matrix (const AsH5DatasetInfo *info, const char *path, const char *dataset, guint64 file_size,
              GError **error)
{
  if (info->type_class == AS_H5_CLASS_OTHER)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' holds %s, not numbers (expected a float or integer matrix)",
                   path, dataset, info->dtype);
      return FALSE;
    }
  if (info->ndim != 2)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' has rank %d; expected a 2-D matrix [n][d]", path, dataset,
                   info->ndim);
      return FALSE;
    }
  guint64 n = info->dims[0], d = info->dims[1];
  if (n == 0 || d == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: dataset '%s' is an empty matrix (%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
                   ")",
                   path, dataset, n, d);
      return FALSE;
    }
  if (n > G_MAXINT || d > G_MAXINT || n * d > G_MAXSIZE / sizeof (float))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "%s: dataset '%s' is too large (%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT ")",
                   path, dataset, n, d);
      return FALSE;
    }
  g_autofree char *what
      = g_strdup_printf ("%s: dataset '%s' (%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " floats)",
                         path, dataset, n, d);
  return as_memory_check (n * d * sizeof (float), what, error)
         && as_h5_dataset_check_storage (path, dataset, info, file_size, error);
}

float *
as_matrix_h5_read (const char *path, const char *dataset, int *n_rows, int *n_cols, GError **error)
{
  g_return_val_if_fail (path != NULL && dataset != NULL, NULL);
  goffset file_size = 0;
  int fd = as_file_open_regular (path, &file_size, error);
  if (fd < 0)
    return NULL;
  g_autoptr (AsH5Child) child
      = as_h5_child_spawn (path, fd, matrix_probe_main, (gpointer) dataset, error);
  close (fd); /* the child has its own copy */
  AsH5DatasetInfo info;
  AsH5MessageHeader header;
  if (child == NULL || !as_h5_child_receive (child, &header, error))
    return NULL;
  if (header.type != MATRIX_MSG_INFO || header.length != sizeof info)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s is damaged: the HDF5 reader sent an unexpected message", path);
      return NULL;
    }
  if (!as_h5_child_receive_payload (child, &info, sizeof info, error)
      || !check_matrix (&info, path, dataset, (guint64) file_size, error))
    return NULL;
  guint64 n = info.dims[0] * info.dims[1];
  g_autofree float *data = g_try_malloc (n * sizeof (float)); /* [n][d] */
  if (data == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "%s: dataset '%s' (%" G_GUINT64_FORMAT " floats) does not fit in memory", path,
                   dataset, n);
      return NULL;
    }
  if (!as_h5_child_send (child, MATRIX_MSG_READ, NULL, 0, error)
      || !as_h5_dataset_receive_floats (child, path, dataset, data, n, error))
    return NULL;
  *n_rows = (int) info.dims[0];
  *n_cols = (int) info.dims[1];
  return g_steal_pointer (&data);
}

gboolean
as_matrix_h5_write (const char *path, const char *dataset, const float *data, int n_rows,
                    int n_cols, GError **error)
{
  g_return_val_if_fail (path != NULL && dataset != NULL && n_rows >= 0 && n_cols >= 0, FALSE);
  AsH5Atomic atomic;
  if (!as_h5_atomic_begin (&atomic, path, AS_OUTPUT_DEFAULT, error))
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

/* as-matrix-h5.h — one 2-D float matrix in an HDF5 file.
 *
 * The projections (PCA, t-SNE) take any [n][d] matrix; users bring theirs as an HDF5 dataset
 * (`attnscope project --input FILE.h5 --dataset NAME`), and the tests exchange matrices with the
 * scikit-learn references the same way. Any numeric dataset type is converted to float32 by
 * HDF5 on reading; writing always stores float32. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Reads DATASET of the HDF5 file PATH, which must be 2-D, into a new float array
 * [*n_rows][*n_cols] (row-major; free with g_free). Fails naming the file and dataset:
 * AS_ERROR_NOT_FOUND (no such file or dataset), AS_ERROR_FORMAT (not an HDF5 file),
 * AS_ERROR_SHAPE (not 2-D, not numeric, or a dimension is 0), AS_ERROR_MEMORY. */
float *as_matrix_h5_read (const char *path, const char *dataset, int *n_rows, int *n_cols,
                          GError **error);

/* Writes DATA [n_rows][n_cols] as the float32 dataset DATASET of a new HDF5 file PATH
 * (replacing it). The file appears whole or not at all: a temporary file is renamed. */
gboolean as_matrix_h5_write (const char *path, const char *dataset, const float *data, int n_rows,
                             int n_cols, GError **error);

G_END_DECLS

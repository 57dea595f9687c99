/* fuzz-matrix-h5.c — the HDF5 matrix reader behind `project --input` (matrix-h5.c, through the
 * HDF5 child): any bytes give a matrix of the declared size or one error. */
#include "fuzz-support.h"

#include "as-matrix-h5.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write_input (0, data, size);
  GError *error = NULL;
  int n = 0, d = 0;
  float *x = as_matrix_h5_read (path, "x", &n, &d, &error);
  fuzz_check_error (x != NULL, error);
  if (x != NULL)
    {
      if (n < 1 || d < 1)
        fuzz_fail ("a matrix of %d x %d", n, d);
      fuzz_touch_floats (x, (gsize) n * (gsize) d);
      g_free (x);
    }
  g_clear_error (&error);
  return 0;
}

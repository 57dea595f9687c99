/* umap-support.c — what the UMAP tests share (umap-support.h). */
#include "umap-support.h"

#include <math.h>

#include "as-matrix-h5.h"
#include "check-close.h"
#include "sklearn-reference.h"

float *
umap_test_mixture (int n, int d, int clusters, double separation, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  g_autofree double *centres = g_new (double, (gsize) clusters *d); /* [clusters][d] */
  for (gsize k = 0; k < (gsize) clusters * d; k++)
    centres[k] = g_rand_double_range (rand, -separation, separation);
  float *x = g_new (float, (gsize) n *d); /* [n][d] */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < d; j++)
      x[(gsize) i * d + j]
          = (float) (centres[(gsize) (i % clusters) * d + j] + g_rand_double_range (rand, -1, 1));
  g_rand_free (rand);
  return x;
}

char *
umap_test_reference (const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  char *out = reference_script_run_valist ("tests/reference/umap_reference.py", first, ap);
  va_end (ap);
  return out;
}

char *
umap_test_write_matrix (const char *name, const float *x, int n, int d)
{
  char *path = sklearn_reference_tmp (name);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_matrix_h5_write (path, "x", x, n, d, &error));
  g_assert_no_error (error);
  return path;
}

float *
umap_test_read_matrix (const char *path, const char *dataset, int rows, int cols)
{
  int r = 0, c = 0;
  g_autoptr (GError) error = NULL;
  float *m = as_matrix_h5_read (path, dataset, &r, &c, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r, ==, rows);
  g_assert_cmpint (c, ==, cols);
  return m;
}

void
umap_test_run (float *y, AsUmapInfo *info, const float *x, int n, int d, const AsUmapOptions *o)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (as_umap_run (y, info, x, n, d, o, &error));
  g_assert_no_error (error);
  for (gsize k = 0; k < 2 * (gsize) n; k++)
    g_assert_true (isfinite (y[k]));
}

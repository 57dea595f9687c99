/* eigen-dense.c — LAPACK's dsyevr for the top eigenpairs (eigen-private.h). */
#include "eigen-private.h"

#include <lapacke.h>
#include <math.h>

#include "as-error.h"
#include "blas-threads-private.h"

gboolean
as_eigen_top_dense (double *values, double *vectors, double *s, int m, int k, const char *what,
                    GError **error)
{
  g_return_val_if_fail (k >= 1 && k <= m, FALSE);
  as_blas_single_threaded ();
  g_autofree double *w = g_new (double, m);            /* [m] eigenvalues, ascending */
  g_autofree double *z = g_new (double, (gsize) m *k); /* [m][k] eigenvectors, ascending */
  g_autofree lapack_int *isuppz = g_new (lapack_int, 2 * (gsize) m);
  lapack_int found = 0;
  lapack_int info = LAPACKE_dsyevr (LAPACK_ROW_MAJOR, 'V', 'I', 'U', m, s, m, 0.0, 0.0, m - k + 1,
                                    m, 0.0, &found, w, z, k, isuppz);
  if (info != 0 || found != k)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_VALUE,
                   "%s: the eigenvalue solver (LAPACK dsyevr) failed (info %d) on a %d×%d "
                   "matrix",
                   what, (int) info, m, m);
      return FALSE;
    }
  for (int c = 0; c < k; c++)
    {
      values[c] = w[k - 1 - c];
      for (int r = 0; r < m; r++)
        vectors[(gsize) r * k + c] = z[(gsize) r * k + (k - 1 - c)];
    }
  return TRUE;
}

void
as_eigen_fix_signs (double *vectors, int m, int k)
{
  for (int c = 0; c < k; c++)
    {
      int best = 0;
      for (int i = 1; i < m; i++)
        if (fabs (vectors[(gsize) i * k + c]) > fabs (vectors[(gsize) best * k + c]))
          best = i;
      if (vectors[(gsize) best * k + c] < 0)
        for (int i = 0; i < m; i++)
          vectors[(gsize) i * k + c] = -vectors[(gsize) i * k + c];
    }
}

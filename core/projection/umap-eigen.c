/* umap-eigen.c — the eigenvectors behind UMAP's spectral initialisation.
 *
 * umap-learn takes the eigenvectors of the normalised Laplacian L = I − D^-½·W·D^-½ with the
 * smallest eigenvalues (scipy's eigsh, tolerance 1e-4) and drops the first, which is √deg. The
 * same vectors are the eigenvectors of A = D^-½·W·D^-½ with the largest eigenvalues, which
 * Lanczos finds quickly since they sit at the top of A's spectrum in [−1, 1]. The known first
 * one is projected out of every Lanczos vector (deflation), so the iteration only has to find
 * the next two. Full reorthogonalisation (twice, classical Gram-Schmidt) keeps the basis
 * orthonormal; the tridiagonal matrix is diagonalised by LAPACK's dstev every 10 steps and the
 * search stops when both Ritz pairs have residuals |A·v − θ·v| = |β·s_last| <= 1e-4. Small
 * graphs take LAPACK's dense dsyevr instead. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "eigen-private.h"
#include "rng-private.h"
#include "umap-private.h"

#define TOLERANCE 1e-4
#define CHECK_EVERY 10
#define BASIS_BYTES (256u << 20)

/* OUT [m] = A·V with A = D^-½·W·D^-½ (DINV [m] = 1/√deg). */
static void
normalised_product (double *out, const AsSparseGraph *g, const double *dinv, const double *v)
{
  for (int i = 0; i < g->n; i++)
    {
      double sum = 0.0;
      for (int64_t e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++)
        sum += (double) g->val[e] * dinv[g->col[e]] * v[g->col[e]];
      out[i] = sum * dinv[i];
    }
}

static double
dot (const double *a, const double *b, int m)
{
  double s = 0.0;
  for (int i = 0; i < m; i++)
    s += a[i] * b[i];
  return s;
}

static void
axpy (double *y, double alpha, const double *x, int m)
{
  for (int i = 0; i < m; i++)
    y[i] += alpha * x[i];
}

/* W minus its components along U [m] and the first COUNT rows of Q [count][m], twice. */
static void
orthogonalise (double *w, const double *u, const double *q, int count, int m)
{
  for (int pass = 0; pass < 2; pass++)
    {
      axpy (w, -dot (u, w, m), u, m);
      for (int j = 0; j < count; j++)
        axpy (w, -dot (q + (gsize) j * m, w, m), q + (gsize) j * m, m);
    }
}

/* The two largest eigenpairs of the tridiagonal T (ALPHA [j], BETA [j − 1]): THETA [2] (largest
 * first) and the residual bounds |β_last · s_last| of their Ritz vectors; S [j][2] the
 * eigenvectors of T (column-major pairs). FALSE when LAPACK fails. */
static gboolean
ritz_pairs (double *theta, double *residual, double *s, const double *alpha, const double *beta,
            int j, double beta_last)
{
  g_autofree double *d = g_memdup2 (alpha, sizeof (double) * j);
  g_autofree double *e = g_memdup2 (beta, sizeof (double) * MAX (j - 1, 1));
  g_autofree double *z = g_new (double, (gsize) j *j); /* [j][j] column-major */
  if (LAPACKE_dstev (LAPACK_COL_MAJOR, 'V', j, d, e, z, j) != 0)
    return FALSE;
  for (int c = 0; c < 2; c++)
    {
      int col = j - 1 - c; /* ascending eigenvalues: the largest last */
      theta[c] = d[col];
      residual[c] = fabs (beta_last * z[(gsize) col * j + (j - 1)]);
      for (int r = 0; r < j; r++)
        s[(gsize) r * 2 + c] = z[(gsize) col * j + r];
    }
  return TRUE;
}

static gboolean
lanczos_top2 (double *vectors, double *values, const AsSparseGraph *g, const double *dinv,
              const double *u, guint64 *rng)
{
  int m = g->n;
  int max_steps = (int) MIN ((gsize) m - 1, MAX (BASIS_BYTES / (sizeof (double) * (gsize) m), 8));
  double *q = g_try_malloc ((gsize) max_steps * m * sizeof (double)); /* [max_steps][m] basis */
  if (q == NULL)
    return FALSE;
  g_autofree double *alpha = g_new (double, max_steps);
  g_autofree double *beta = g_new (double, max_steps);
  g_autofree double *w = g_new (double, m);
  g_autofree double *s = g_new (double, 2 * (gsize) max_steps);
  double theta[2], residual[2];

  for (int i = 0; i < m; i += 2)
    {
      double z0, z1;
      as_rng_normal_pair (rng, &z0, &z1);
      q[i] = z0;
      if (i + 1 < m)
        q[i + 1] = z1;
    }
  orthogonalise (q, u, NULL, 0, m);
  double norm = sqrt (dot (q, q, m));
  for (int i = 0; i < m; i++)
    q[i] /= norm;

  gboolean converged = FALSE;
  int steps = 0;
  for (int j = 0; j < max_steps && !converged; j++)
    {
      const double *qj = q + (gsize) j * m;
      normalised_product (w, g, dinv, qj);
      alpha[j] = dot (qj, w, m);
      orthogonalise (w, u, q, j + 1, m);
      beta[j] = sqrt (dot (w, w, m));
      steps = j + 1;
      gboolean exhausted = beta[j] <= 1e-10 || steps == max_steps;
      if (steps >= 2 && (steps % CHECK_EVERY == 0 || exhausted))
        {
          if (!ritz_pairs (theta, residual, s, alpha, beta, steps, beta[j]))
            break;
          converged = residual[0] <= TOLERANCE && residual[1] <= TOLERANCE;
        }
      if (exhausted)
        break;
      double *next = q + (gsize) (j + 1) * m;
      for (int i = 0; i < m; i++)
        next[i] = w[i] / beta[j];
    }
  if (converged)
    {
      memset (vectors, 0, sizeof (double) * 2 * m);
      for (int c = 0; c < 2; c++)
        {
          values[c] = theta[c];
          for (int r = 0; r < steps; r++)
            for (int i = 0; i < m; i++)
              vectors[(gsize) i * 2 + c] += s[(gsize) r * 2 + c] * q[(gsize) r * m + i];
        }
      for (int c = 0; c < 2; c++)
        {
          double sq = 0.0;
          for (int i = 0; i < m; i++)
            sq += vectors[(gsize) i * 2 + c] * vectors[(gsize) i * 2 + c];
          for (int i = 0; i < m; i++)
            vectors[(gsize) i * 2 + c] /= sqrt (sq);
        }
      as_eigen_fix_signs (vectors, m, 2);
    }
  g_free (q);
  return converged;
}

gboolean
as_umap_eigen_top2 (double *vectors, double *values, const AsSparseGraph *g, const double *deg,
                    gboolean force_lanczos, guint64 *rng)
{
  int m = g->n;
  g_return_val_if_fail (m >= 4, FALSE);
  g_autofree double *dinv = g_new (double, m); /* [m] 1/√deg */
  g_autofree double *u = g_new (double, m);    /* [m] √deg / |√deg|, the known first vector */
  double total = 0.0;
  for (int i = 0; i < m; i++)
    {
      dinv[i] = 1.0 / sqrt (deg[i]);
      total += deg[i];
    }
  for (int i = 0; i < m; i++)
    u[i] = sqrt (deg[i] / total);

  if (force_lanczos || m > UMAP_EIGEN_DENSE_MAX)
    return lanczos_top2 (vectors, values, g, dinv, u, rng);

  g_autofree double *a = g_new0 (double, (gsize) m *m); /* [m][m] */
  for (int i = 0; i < m; i++)
    for (int64_t e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++)
      a[(gsize) i * m + g->col[e]] = g->val[e] * dinv[i] * dinv[g->col[e]];
  double top_values[3];
  g_autofree double *three = g_new (double, (gsize) m * 3); /* [m][3] */
  if (!as_eigen_top_dense (top_values, three, a, m, 3, "UMAP", NULL))
    return FALSE;
  for (int i = 0; i < m; i++)
    {
      vectors[(gsize) i * 2] = three[(gsize) i * 3 + 1];
      vectors[(gsize) i * 2 + 1] = three[(gsize) i * 3 + 2];
    }
  values[0] = top_values[1];
  values[1] = top_values[2];
  return TRUE;
}

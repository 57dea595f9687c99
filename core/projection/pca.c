/* pca.c — principal component analysis with LAPACK's dsyevr.
 *
 * X [n][d] is centred in double precision. The top k eigenpairs come from the smaller of the two
 * symmetric problems: the scatter matrix Xcᵀ·Xc [d][d] when n >= d (its eigenvectors are the
 * components), or the Gram matrix Xc·Xcᵀ [n][n] when n < d (its eigenvectors u are the
 * normalised coordinates; the component is Xcᵀ·u / sqrt(λ)). Both have the same non-zero
 * eigenvalues λ; the explained variance is λ / (n - 1) as in scikit-learn. */
#include "as-pca.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>

#include "as-error.h"
#include "blas-threads-private.h"
#include "eigen-private.h"

#define OVERSAMPLE 8
#define SUBSPACE_MIN_M 128
#define SUBSPACE_MAX_STEPS 60

gboolean
as_matrix_check_finite (const float *x, int n, int d, const char *what, GError **error)
{
  for (gsize i = 0; i < (gsize) n * d; i++)
    if (!isfinite (x[i]))
      {
        g_set_error (error, AS_ERROR, AS_ERROR_VALUE,
                     "%s holds %s at row %" G_GSIZE_FORMAT ", column %" G_GSIZE_FORMAT
                     " (rows and columns from 0); every value must be finite",
                     what, isnan (x[i]) ? "NaN" : "an infinity", i / d, i % d);
        return FALSE;
      }
  return TRUE;
}

void
as_pca_free (AsPca *pca)
{
  if (pca == NULL)
    return;
  g_free (pca->mean);
  g_free (pca->components);
  g_free (pca->explained_variance);
  g_free (pca->explained_variance_ratio);
  g_free (pca->coords);
  g_free (pca);
}

static gboolean
check_args (const float *x, int n, int d, int k, GError **error)
{
  if (n < 2)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "PCA needs at least 2 rows (samples); the input has %d", n);
      return FALSE;
    }
  if (d < 1)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "PCA needs at least 1 column (feature); the input has %d", d);
      return FALSE;
    }
  if (k < 1 || k > MIN (n, d))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "PCA n_components %d is out of range: expected 1..%d (min of %d rows, %d "
                   "columns)",
                   k, MIN (n, d), n, d);
      return FALSE;
    }
  return as_matrix_check_finite (x, n, d, "the PCA input", error);
}

/* Orthonormalises the columns of V [m][b] in place (Householder QR). */
static gboolean
orthonormalise (double *v, int m, int b)
{
  g_autofree double *tau = g_new (double, b);
  return LAPACKE_dgeqrf (LAPACK_ROW_MAJOR, m, b, v, b, tau) == 0
         && LAPACKE_dorgqr (LAPACK_ROW_MAJOR, m, b, b, v, b, tau) == 0;
}

/* Subspace iteration with Rayleigh-Ritz on a block of B = k + OVERSAMPLE vectors: converges at
 * the rate λ_{B+1} / λ_k per step, so a few dozen steps of O(m²·B) replace the O(m³)
 * tridiagonalisation when only a few components are wanted. Succeeds when every wanted Ritz pair
 * has a residual |S·v − θ·v| <= 1e-11 · θ_1; FALSE (fall back to LAPACK) otherwise. S is full. */
static gboolean
top_eigen_subspace (double *values, double *vectors, const double *s, int m, int k)
{
  int b = MIN (m, k + OVERSAMPLE);
  g_autofree double *v = g_new (double, (gsize) m *b);    /* [m][b] orthonormal basis */
  g_autofree double *sv = g_new (double, (gsize) m *b);   /* [m][b] S·V */
  g_autofree double *t = g_new (double, (gsize) b *b);    /* [b][b] Vᵀ·S·V, then its vectors */
  g_autofree double *ritz = g_new (double, (gsize) m *b); /* [m][b] V·U */
  g_autofree double *theta = g_new (double, b);           /* [b] ascending */
  guint32 state = 12345u;
  for (gsize i = 0; i < (gsize) m * b; i++)
    {
      state = state * 1664525u + 1013904223u; /* fixed start: PCA is deterministic */
      v[i] = (double) (state >> 8) / 16777216.0 - 0.5;
    }
  if (!orthonormalise (v, m, b))
    return FALSE;
  for (int it = 0; it < SUBSPACE_MAX_STEPS; it++)
    {
      cblas_dsymm (CblasRowMajor, CblasLeft, CblasUpper, m, b, 1.0, s, m, v, b, 0.0, sv, b);
      cblas_dgemm (CblasRowMajor, CblasTrans, CblasNoTrans, b, b, m, 1.0, v, b, sv, b, 0.0, t, b);
      if (LAPACKE_dsyev (LAPACK_ROW_MAJOR, 'V', 'U', b, t, b, theta) != 0)
        return FALSE;
      /* Ritz vectors V·U and the residual of the wanted ones: S·V·U − V·U·Θ */
      cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, m, b, b, 1.0, v, b, t, b, 0.0, ritz,
                   b);
      cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, m, b, b, 1.0, sv, b, t, b, 0.0, v, b);
      double worst = 0.0, top = fabs (theta[b - 1]);
      for (int c = b - k; c < b; c++)
        {
          double r = 0.0;
          for (int i = 0; i < m; i++)
            {
              double e = v[(gsize) i * b + c] - theta[c] * ritz[(gsize) i * b + c];
              r += e * e;
            }
          worst = fmax (worst, sqrt (r));
        }
      if (worst <= 1e-11 * top)
        {
          for (int c = 0; c < k; c++)
            {
              values[c] = theta[b - 1 - c];
              for (int i = 0; i < m; i++)
                vectors[(gsize) i * k + c] = ritz[(gsize) i * b + (b - 1 - c)];
            }
          return TRUE;
        }
      if (!orthonormalise (v, m, b)) /* V ← orth(S·V·U) */
        return FALSE;
    }
  return FALSE;
}

/* The top K eigenpairs of the symmetric S [m][m] (upper triangle filled; destroyed), largest
 * first: VALUES [k], VECTORS [m][k] (column c is the c-th eigenvector). */
static gboolean
top_eigen (double *values, double *vectors, double *s, int m, int k, GError **error)
{
  if (m >= SUBSPACE_MIN_M && k + OVERSAMPLE <= m / 4
      && top_eigen_subspace (values, vectors, s, m, k))
    return TRUE;
  return as_eigen_top_dense (values, vectors, s, m, k, "PCA", error);
}

/* n >= d: eigenvectors of Xcᵀ·Xc are the components; coords = Xc·V. */
static gboolean
fit_scatter (AsPca *pca, const double *xc /* [n][d] */, double *lambda /* [k] */, GError **error)
{
  int n = pca->n_samples, d = pca->n_features, k = pca->n_components;
  g_autofree double *s = g_new0 (double, (gsize) d *d); /* [d][d] scatter, upper */
  g_autofree double *v = g_new (double, (gsize) d *k);  /* [d][k] */
  cblas_dsyrk (CblasRowMajor, CblasUpper, CblasTrans, d, n, 1.0, xc, d, 0.0, s, d);
  if (!top_eigen (lambda, v, s, d, k, error))
    return FALSE;
  for (int c = 0; c < k; c++)
    for (int j = 0; j < d; j++)
      pca->components[(gsize) c * d + j] = v[(gsize) j * k + c];
  return TRUE;
}

/* n < d: eigenvectors u of Xc·Xcᵀ; component = Xcᵀ·u / sqrt(λ). */
static gboolean
fit_gram (AsPca *pca, const double *xc /* [n][d] */, double *lambda /* [k] */, GError **error)
{
  int n = pca->n_samples, d = pca->n_features, k = pca->n_components;
  g_autofree double *g = g_new0 (double, (gsize) n *n); /* [n][n] Gram, upper */
  g_autofree double *u = g_new (double, (gsize) n *k);  /* [n][k] */
  cblas_dsyrk (CblasRowMajor, CblasUpper, CblasNoTrans, n, d, 1.0, xc, d, 0.0, g, n);
  if (!top_eigen (lambda, u, g, n, k, error))
    return FALSE;
  /* components [k][d] = uᵀ [k][n] · Xc [n][d], then each row divided by sqrt(λ). */
  cblas_dgemm (CblasRowMajor, CblasTrans, CblasNoTrans, k, d, n, 1.0, u, k, xc, d, 0.0,
               pca->components, d);
  for (int c = 0; c < k; c++)
    {
      double scale = lambda[c] > 0 ? 1.0 / sqrt (lambda[c]) : 0.0;
      cblas_dscal (d, scale, pca->components + (gsize) c * d, 1);
    }
  return TRUE;
}

/* Zeroes components beyond the rank, flips signs so that the largest loading is positive. */
static void
normalise_components (AsPca *pca, double *lambda /* [k] */)
{
  int d = pca->n_features, k = pca->n_components;
  double largest = fmax (lambda[0], 0.0);
  for (int c = 0; c < k; c++)
    {
      double *row = pca->components + (gsize) c * d; /* [d] */
      if (!(lambda[c] > 1e-12 * largest))
        {
          lambda[c] = 0.0;
          for (int j = 0; j < d; j++)
            row[j] = 0.0;
          continue;
        }
      int arg = 0;
      for (int j = 1; j < d; j++)
        if (fabs (row[j]) > fabs (row[arg]))
          arg = j;
      if (row[arg] < 0)
        for (int j = 0; j < d; j++)
          row[j] = -row[j];
    }
}

static double *
centre_rows (AsPca *pca, const float *x /* [n][d] */)
{
  int n = pca->n_samples, d = pca->n_features;
  double *xc = g_try_malloc ((gsize) n * d * sizeof (double)); /* [n][d] */
  if (xc == NULL)
    return NULL;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < d; j++)
      pca->mean[j] += x[(gsize) i * d + j];
  for (int j = 0; j < d; j++)
    pca->mean[j] /= n;
  double total = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < d; j++)
      {
        double v = x[(gsize) i * d + j] - pca->mean[j];
        xc[(gsize) i * d + j] = v;
        total += v * v;
      }
  pca->total_variance = total / (n - 1);
  return xc;
}

AsPca *
as_pca_fit (const float *x, int n, int d, int n_components, GError **error)
{
  g_return_val_if_fail (x != NULL || (gsize) n * d == 0, NULL);
  as_blas_single_threaded ();
  if (!check_args (x, n, d, n_components, error))
    return NULL;

  int k = n_components;
  g_autoptr (AsPca) pca = g_new0 (AsPca, 1);
  pca->n_samples = n;
  pca->n_features = d;
  pca->n_components = k;
  pca->mean = g_new0 (double, d);
  pca->components = g_try_malloc0 ((gsize) k * d * sizeof (double));
  pca->explained_variance = g_new0 (double, k);
  pca->explained_variance_ratio = g_new0 (double, k);
  pca->coords = g_try_malloc0 ((gsize) n * k * sizeof (double));
  g_autofree double *xc = centre_rows (pca, x);
  gsize problem = MIN ((gsize) n, (gsize) d);
  if (xc == NULL || pca->components == NULL || pca->coords == NULL
      || problem * problem > G_MAXSIZE / 16)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "PCA of a %d×%d matrix does not fit in memory",
                   n, d);
      return NULL;
    }

  g_autofree double *lambda = g_new0 (double, k); /* [k] */
  gboolean ok = n >= d ? fit_scatter (pca, xc, lambda, error) : fit_gram (pca, xc, lambda, error);
  if (!ok)
    return NULL;
  normalise_components (pca, lambda);

  /* coords [n][k] = Xc [n][d] · componentsᵀ [d][k] */
  cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasTrans, n, k, d, 1.0, xc, d, pca->components, d,
               0.0, pca->coords, k);
  for (int c = 0; c < k; c++)
    {
      pca->explained_variance[c] = lambda[c] / (n - 1);
      pca->explained_variance_ratio[c]
          = pca->total_variance > 0 ? pca->explained_variance[c] / pca->total_variance : 0.0;
    }
  return g_steal_pointer (&pca);
}

/* as-pca.h — principal component analysis of an [n][d] float matrix.
 *
 * The rows are centred and the top k eigenvectors of the covariance are found with LAPACK
 * (dsyevr, in double precision): on the d×d covariance when n >= d, on the n×n Gram matrix of the
 * centred rows when n < d (same components, smaller problem). Results match
 * sklearn.decomposition.PCA(n_components=k, svd_solver="full") up to the sign of each component.
 *
 * Sign convention (deterministic, independent of LAPACK): in every component the loading with
 * the largest magnitude is positive (on a tie, the first such index). Components beyond the rank
 * of the centred data (eigenvalue <= 1e-12 × the largest) are zero vectors with zero variance.
 *
 * All results are double precision. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  int n_samples;                    /* n */
  int n_features;                   /* d */
  int n_components;                 /* k */
  double *mean;                     /* [d] mean of the rows */
  double *components;               /* [k][d] unit principal axes, by decreasing variance */
  double *explained_variance;       /* [k] eigenvalues of the covariance (divisor n - 1) */
  double *explained_variance_ratio; /* [k] explained_variance / total variance */
  double total_variance;            /* sum of the variances of all d features */
  double *coords;                   /* [n][k] projections of the centred rows on components */
} AsPca;

/* Fits a PCA with N_COMPONENTS components to X [n][d] (row-major). Fails with AS_ERROR_INPUT
 * when n < 2, d < 1 or n_components is outside 1..min(n, d); with AS_ERROR_VALUE naming the row
 * and column of the first NaN or infinity; with AS_ERROR_MEMORY when the matrices do not fit;
 * AS_ERROR_VALUE when LAPACK fails to converge. */
AsPca *as_pca_fit (const float *x, int n, int d, int n_components, GError **error);

void as_pca_free (AsPca *pca);

/* Fails with AS_ERROR_VALUE naming the row and column of the first non-finite value of
 * X [n][d]; WHAT names the matrix in the message ("the input"). Shared with t-SNE. */
gboolean as_matrix_check_finite (const float *x, int n, int d, const char *what, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsPca, as_pca_free)

G_END_DECLS

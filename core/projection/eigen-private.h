/* eigen-private.h — the largest eigenpairs of a dense symmetric matrix, shared by PCA and UMAP's
 * spectral initialisation. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The K largest eigenpairs of the symmetric S [m][m] (upper triangle used, destroyed) by LAPACK's
 * dsyevr, largest first: VALUES [k], VECTORS [m][k] (column c is the c-th eigenvector, unit
 * length, sign as LAPACK gives it). Fails with AS_ERROR_VALUE naming WHAT ("PCA") when LAPACK
 * does. */
gboolean as_eigen_top_dense (double *values, double *vectors, double *s, int m, int k,
                             const char *what, GError **error);

/* Flips each column of VECTORS [m][k] so that its entry of largest magnitude (the first such) is
 * positive. */
void as_eigen_fix_signs (double *vectors, int m, int k);

G_END_DECLS

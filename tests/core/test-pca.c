/* test-pca.c — principal component analysis.
 *
 * A hand-checkable case (both the scatter-matrix and the Gram-matrix paths), the eigen-equation
 * and orthonormality on larger random matrices (the subspace-iteration path), coordinates,
 * components and ratios against sklearn.decomposition.PCA (equal up to the sign of each
 * component within 1e-4), the sign convention, and the errors. */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-matrix-h5.h"
#include "as-pca.h"
#include "check-close.h"
#include "sklearn-reference.h"

/* Rows t·u + s·e3 with u = (−0.6, 0.8, 0), (t, s) = (3, 1), (−3, 1), (1, −1), (−1, −1): mean 0,
 * variance 20/3 along u and 4/3 along e3, so ratios 5/6 and 1/6 and coordinates (t, s). The
 * largest loading of u is 0.8, so u keeps its sign. PAD extra zero columns (d = 3 + pad). */
static void
check_hand_case (int pad)
{
  const double ts[4][2] = { { 3, 1 }, { -3, 1 }, { 1, -1 }, { -1, -1 } };
  int d = 3 + pad;
  g_autofree float *x = g_new0 (float, 4 * d); /* [4][d] */
  for (int i = 0; i < 4; i++)
    {
      x[i * d + 0] = (float) (-0.6 * ts[i][0]);
      x[i * d + 1] = (float) (0.8 * ts[i][0]);
      x[i * d + 2] = (float) ts[i][1];
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (AsPca) pca = as_pca_fit (x, 4, d, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pca->n_components, ==, 2);
  g_assert_cmpfloat_with_epsilon (pca->explained_variance[0], 20.0 / 3, 1e-6);
  g_assert_cmpfloat_with_epsilon (pca->explained_variance[1], 4.0 / 3, 1e-6);
  g_assert_cmpfloat_with_epsilon (pca->explained_variance_ratio[0], 5.0 / 6, 1e-7);
  g_assert_cmpfloat_with_epsilon (pca->explained_variance_ratio[1], 1.0 / 6, 1e-7);
  g_assert_cmpfloat_with_epsilon (pca->total_variance, 8.0, 1e-6);
  for (int j = 0; j < d; j++)
    {
      double u[] = { -0.6, 0.8, 0.0 }, e3[] = { 0, 0, 1 };
      g_assert_cmpfloat_with_epsilon (pca->mean[j], 0.0, 1e-7);
      g_assert_cmpfloat_with_epsilon (pca->components[j], j < 3 ? u[j] : 0.0, 1e-7);
      g_assert_cmpfloat_with_epsilon (pca->components[d + j], j < 3 ? e3[j] : 0.0, 1e-7);
    }
  for (int i = 0; i < 4; i++)
    {
      g_assert_cmpfloat_with_epsilon (pca->coords[2 * i], ts[i][0], 1e-6);
      g_assert_cmpfloat_with_epsilon (pca->coords[2 * i + 1], ts[i][1], 1e-6);
    }
}

static void
test_hand_scatter (void)
{
  check_hand_case (0); /* n = 4 >= d = 3: eigenvectors of the 3×3 scatter matrix */
}

static void
test_hand_gram (void)
{
  check_hand_case (3); /* n = 4 < d = 6: eigenvectors of the 4×4 Gram matrix */
}

/* Deterministic pseudo-random data with a few strong directions: x = A·z + noise. */
static float *
structured_matrix (int n, int d, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  float *x = g_new (float, (gsize) n *d); /* [n][d] */
  double scales[4] = { 9.0, 5.0, 3.0, 2.0 };
  g_autofree double *dirs = g_new (double, 4 * (gsize) d); /* [4][d] */
  for (gsize k = 0; k < 4 * (gsize) d; k++)
    dirs[k] = g_rand_double_range (rand, -1, 1);
  for (int i = 0; i < n; i++)
    {
      double z[4];
      for (int c = 0; c < 4; c++)
        z[c] = g_rand_double_range (rand, -1, 1) * scales[c];
      for (int j = 0; j < d; j++)
        {
          double v = g_rand_double_range (rand, -0.5, 0.5) + 3.0;
          for (int c = 0; c < 4; c++)
            v += z[c] * dirs[(gsize) c * d + j];
          x[(gsize) i * d + j] = (float) v;
        }
    }
  g_rand_free (rand);
  return x;
}

/* Checks C·v = λ·v (C the covariance), orthonormal components, coords = (x − mean)·v and the
 * sign convention, for a PCA of X [n][d]. */
static void
check_eigen_equation (const AsPca *pca, const float *x, int n, int d)
{
  int k = pca->n_components;
  g_autofree double *xv = g_new (double, n); /* [n] (x_i − mean)·v */
  for (int c = 0; c < k; c++)
    {
      const double *v = pca->components + (gsize) c * d;
      double lambda = pca->explained_variance[c], resid = 0.0, largest = 0.0;
      for (int i = 0; i < n; i++)
        {
          xv[i] = 0.0;
          for (int j = 0; j < d; j++)
            xv[i] += (x[(gsize) i * d + j] - pca->mean[j]) * v[j];
          g_assert_cmpfloat (fabs (xv[i] - pca->coords[(gsize) i * k + c]), <,
                             1e-8 * (1 + fabs (xv[i])));
        }
      for (int j = 0; j < d; j++)
        {
          double cv = 0.0; /* (C·v)_j = Σ_i (x_ij − mean_j)·xv_i / (n − 1) */
          for (int i = 0; i < n; i++)
            cv += (x[(gsize) i * d + j] - pca->mean[j]) * xv[i];
          cv /= n - 1;
          resid = fmax (resid, fabs (cv - lambda * v[j]));
          if (fabs (v[j]) > fabs (largest))
            largest = v[j];
        }
      g_test_message ("component %d: λ = %.6g, max |C·v − λ·v| = %.3g", c, lambda, resid);
      g_assert_cmpfloat (resid, <, 1e-7 * pca->explained_variance[0]);
      g_assert_cmpfloat (largest, >, 0.0);
      for (int e = 0; e <= c; e++)
        {
          double dot = 0.0;
          for (int j = 0; j < d; j++)
            dot += v[j] * pca->components[(gsize) e * d + j];
          g_assert_cmpfloat_with_epsilon (dot, e == c ? 1.0 : 0.0, 1e-9);
        }
      if (c > 0)
        g_assert_cmpfloat (pca->explained_variance[c], <=, pca->explained_variance[c - 1]);
    }
}

static void
test_eigen_large (void)
{
  /* (n, d): scatter path with subspace iteration, Gram path with subspace iteration, a case
   * small enough for LAPACK directly, and k close to min(n, d) (LAPACK fallback). */
  const int shapes[][3] = { { 400, 200, 3 }, { 150, 500, 2 }, { 60, 30, 4 }, { 140, 130, 40 } };
  for (gsize s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      int n = shapes[s][0], d = shapes[s][1], k = shapes[s][2];
      g_autofree float *x = structured_matrix (n, d, 7 + s);
      g_autoptr (GError) error = NULL;
      g_autoptr (AsPca) pca = as_pca_fit (x, n, d, k, &error);
      g_assert_no_error (error);
      check_eigen_equation (pca, x, n, d);
    }
}

/* Our PCA against sklearn's on the Gaussian mixture of N points in D dimensions. */
static void
compare_with_sklearn (int n, int d, int k)
{
  g_autofree char *input = sklearn_reference_mixture (n, d, 3);
  if (input == NULL)
    return;
  g_autofree char *ref = sklearn_reference_tmp ("pca-ref.h5");
  g_autofree char *k_arg = g_strdup_printf ("%d", k);
  g_autofree char *out
      = sklearn_reference_run ("pca", "--input", input, "--out", ref, "--k", k_arg, NULL);
  if (out == NULL)
    return;

  g_autoptr (GError) error = NULL;
  int rn = 0, rd = 0, cn = 0, cd = 0, qn = 0, qd = 0;
  g_autofree float *x = as_matrix_h5_read (input, "x", &rn, &rd, &error);
  g_assert_no_error (error);
  g_autofree float *coords = as_matrix_h5_read (ref, "coords", &cn, &cd, &error);
  g_assert_no_error (error);
  g_autofree float *components = as_matrix_h5_read (ref, "components", &qn, &qd, &error);
  g_assert_no_error (error);
  g_autofree float *ratio = as_matrix_h5_read (ref, "ratio", &qn, &qd, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rn, ==, n);
  g_assert_cmpint (cd, ==, k);

  g_autoptr (AsPca) pca = as_pca_fit (x, n, d, k, &error);
  g_assert_no_error (error);
  g_autofree float *ours = g_new (float, MAX (n, d));
  g_autofree float *theirs = g_new (float, MAX (n, d));
  for (int c = 0; c < k; c++)
    {
      /* sklearn flips signs by the coordinates; ours by the loadings: align on the component */
      double dot = 0.0;
      for (int j = 0; j < d; j++)
        dot += pca->components[(gsize) c * d + j] * components[(gsize) c * d + j];
      double sign = dot < 0 ? -1.0 : 1.0;
      g_assert_cmpfloat (fabs (dot), >, 1.0 - 1e-6);
      for (int i = 0; i < n; i++)
        {
          ours[i] = (float) (sign * pca->coords[(gsize) i * k + c]);
          theirs[i] = coords[(gsize) i * k + c];
        }
      g_autofree char *what = g_strdup_printf ("PCA %d×%d coordinate %d", n, d, c);
      check_close (what, ours, theirs, n, 1e-4, 0);
      for (int j = 0; j < d; j++)
        {
          ours[j] = (float) (sign * pca->components[(gsize) c * d + j]);
          theirs[j] = components[(gsize) c * d + j];
        }
      check_close ("component loadings", ours, theirs, d, 1e-6, 0);
      g_assert_cmpfloat_with_epsilon (pca->explained_variance_ratio[c], ratio[c], 1e-6);
    }
  check_eigen_equation (pca, x, n, d);
}

static void
test_sklearn_scatter (void)
{
  if (sklearn_reference_available ())
    compare_with_sklearn (600, 50, 3);
}

static void
test_sklearn_gram (void)
{
  if (sklearn_reference_available ())
    compare_with_sklearn (200, 768, 2);
}

static void
test_sklearn_768 (void)
{
  if (sklearn_reference_available ())
    compare_with_sklearn (1000, 768, 2);
}

static void
expect_error (const float *x, int n, int d, int k, int code, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsPca) pca = as_pca_fit (x, n, d, k, &error);
  g_assert_null (pca);
  g_assert_error (error, AS_ERROR, code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, fragment));
}

static void
test_errors (void)
{
  float x[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13 }; /* [4][3] */
  expect_error (x, 1, 3, 1, AS_ERROR_INPUT, "at least 2 rows");
  expect_error (x, 4, 0, 1, AS_ERROR_INPUT, "at least 1 column");
  expect_error (x, 4, 3, 4, AS_ERROR_INPUT, "expected 1..3");
  expect_error (x, 4, 3, 0, AS_ERROR_INPUT, "n_components 0");
  x[5] = NAN;
  expect_error (x, 4, 3, 2, AS_ERROR_VALUE, "NaN at row 1, column 2");
  x[5] = INFINITY;
  expect_error (x, 4, 3, 2, AS_ERROR_VALUE, "infinity at row 1, column 2");
}

static void
test_rank_deficient (void)
{
  /* Three points on a line in 3-D: one non-zero component; the second is zero with ratio 0. */
  const float x[9] = { 0, 0, 0, 1, 2, 2, 2, 4, 4 }; /* [3][3] */
  g_autoptr (GError) error = NULL;
  g_autoptr (AsPca) pca = as_pca_fit (x, 3, 3, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (pca->explained_variance_ratio[0], 1.0, 1e-12);
  g_assert_cmpfloat (pca->explained_variance_ratio[1], ==, 0.0);
  g_assert_cmpfloat_with_epsilon (pca->components[0], 1.0 / 3, 1e-9);
  g_assert_cmpfloat_with_epsilon (pca->components[1], 2.0 / 3, 1e-9);
  for (int j = 0; j < 3; j++)
    g_assert_cmpfloat (pca->components[3 + j], ==, 0.0);
  g_assert_cmpfloat_with_epsilon (pca->coords[0], -3.0, 1e-9); /* (0,0,0) − mean (1,2,2) */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/pca/hand/scatter", test_hand_scatter);
  g_test_add_func ("/core/pca/hand/gram", test_hand_gram);
  g_test_add_func ("/core/pca/eigen-equation", test_eigen_large);
  g_test_add_func ("/core/pca/rank-deficient", test_rank_deficient);
  g_test_add_func ("/core/pca/errors", test_errors);
  g_test_add_func ("/core/pca/sklearn/600x50", test_sklearn_scatter);
  g_test_add_func ("/core/pca/sklearn/200x768", test_sklearn_gram);
  g_test_add_func ("/core/pca/sklearn/1000x768", test_sklearn_768);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

/* test-projection.c — the 2-D projection every caller shares (as-projection.h): the method names
 * both ways; PCA of points on a line by hand (coordinates along the line from the mean, ratios
 * 1 and 0) with a repeated row counted once in "distinct" but projected; t-SNE and UMAP give
 * every copy of a row the point of its row and project the distinct rows once; fitted options
 * lower the perplexity to (m − 1) / 3 and the neighbours to m, given ones fail with the count of
 * distinct points in the message; PCA of one point is refused. */
#include <math.h>

#include "as-error.h"
#include "as-projection.h"
#include "check-close.h"

static void
test_method_names (void)
{
  const char *names[] = { "pca", "tsne", "umap" };
  for (int m = 0; m < 3; m++)
    {
      AsProjectionMethod method = AS_PROJECTION_UMAP + 1;
      g_assert_cmpstr (as_projection_method_to_string ((AsProjectionMethod) m), ==, names[m]);
      g_assert_true (as_projection_method_from_string (names[m], &method));
      g_assert_cmpint (method, ==, m);
    }
  AsProjectionMethod method = AS_PROJECTION_TSNE;
  g_assert_false (as_projection_method_from_string ("mds", &method));
  g_assert_false (as_projection_method_from_string (NULL, &method));
  g_assert_cmpint (method, ==, AS_PROJECTION_TSNE);
}

static void
test_pca_line (void)
{
  /* [4][2] on the line y = x, the last row twice: mean (1.25, 1.25), the component (1, 1)/√2
   * (its largest loading positive), coordinates (x − 1.25)·√2; rank 1: second column 0. */
  const float x[] = { 0, 0, 1, 1, 2, 2, 2, 2 };
  AsProjectionOptions options;
  as_projection_options_init (&options, AS_PROJECTION_PCA);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsProjection) p = as_projection_run (x, 4, 2, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpint (p->method, ==, AS_PROJECTION_PCA);
  g_assert_cmpint (p->n, ==, 4);
  g_assert_cmpint (p->distinct, ==, 3);
  const float r2 = (float) G_SQRT2;
  const float expected[] = { -1.25f * r2, 0, -0.25f * r2, 0, 0.75f * r2, 0, 0.75f * r2, 0 };
  check_close ("PCA of a line", p->xy, expected, 8, 1e-5, 0);
  g_assert_cmpfloat_with_epsilon (p->ratio[0], 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (p->ratio[1], 0.0, 1e-9);
  g_assert_true (isnan (p->kl) && isnan (p->perplexity));
  g_assert_cmpint (p->n_neighbors, ==, 0);
}

/* [10][3]: three distinct rows, each repeated (rows 0..9 are copies of row i % 3). */
static void
repeated_rows (float *x)
{
  const float rows[3][3] = { { 0, 0, 0 }, { 1, 0, 2 }, { -3, 1, 0.5f } };
  for (int i = 0; i < 10; i++)
    for (int d = 0; d < 3; d++)
      x[i * 3 + d] = rows[i % 3][d];
}

static void
assert_copies_share_points (const AsProjection *p)
{
  g_assert_cmpint (p->distinct, ==, 3);
  for (int i = 3; i < p->n; i++)
    {
      g_assert_cmpfloat (p->xy[2 * i], ==, p->xy[2 * (i % 3)]);
      g_assert_cmpfloat (p->xy[2 * i + 1], ==, p->xy[2 * (i % 3) + 1]);
    }
  /* the distinct rows are distinct points */
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++)
      g_assert_true (p->xy[2 * a] != p->xy[2 * b] || p->xy[2 * a + 1] != p->xy[2 * b + 1]);
}

static void
count_progress (int done, int total, gpointer user_data)
{
  int *calls = user_data;
  g_assert_cmpint (done, >, 0);
  g_assert_cmpint (done, <=, total);
  (*calls)++;
}

static void
test_tsne_fitted (void)
{
  /* With fitted options 3 distinct points take the perplexity (3 − 1) / 3 instead of 30. */
  float x[30];
  repeated_rows (x);
  AsProjectionOptions options;
  as_projection_options_init (&options, AS_PROJECTION_TSNE);
  int calls = 0;
  options.progress = count_progress;
  options.user_data = &calls;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsProjection) p = as_projection_run (x, 10, 3, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (p->perplexity, 2.0 / 3.0, 1e-12);
  g_assert_true (isfinite (p->kl) && isnan (p->ratio[0]));
  g_assert_cmpint (calls, >, 0);
  assert_copies_share_points (p);
}

static void
test_umap_fitted (void)
{
  float x[30];
  repeated_rows (x);
  AsProjectionOptions options;
  as_projection_options_init (&options, AS_PROJECTION_UMAP);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsProjection) p = as_projection_run (x, 10, 3, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpint (p->n_neighbors, ==, 3);
  g_assert_cmpint (p->umap.n_epochs, ==, 500);
  g_assert_true (isnan (p->kl) && isnan (p->perplexity));
  assert_copies_share_points (p);
}

static void
test_given_options_fail (void)
{
  /* `attnscope project` takes its options as given: 15 neighbours cannot fit 3 distinct points,
   * and the message says how many of the points are distinct. */
  float x[30];
  repeated_rows (x);
  AsProjectionOptions options;
  as_projection_options_init (&options, AS_PROJECTION_UMAP);
  options.fit_to_points = FALSE;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsProjection) p = as_projection_run (x, 10, 3, &options, &error);
  g_assert_null (p);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_true (g_str_has_prefix (error->message,
                                   "3 of the 10 points are distinct (identical vectors are "
                                   "projected once): UMAP"));
}

static void
test_pca_one_point (void)
{
  const float x[] = { 1, 2, 3 };
  AsProjectionOptions options;
  as_projection_options_init (&options, AS_PROJECTION_PCA);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsProjection) p = as_projection_run (x, 1, 3, &options, &error);
  g_assert_null (p);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_cmpstr (error->message, ==, "PCA needs at least 2 points; the input has 1");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/projection/method-names", test_method_names);
  g_test_add_func ("/core/projection/pca-line", test_pca_line);
  g_test_add_func ("/core/projection/tsne-fitted-copies", test_tsne_fitted);
  g_test_add_func ("/core/projection/umap-fitted-copies", test_umap_fitted);
  g_test_add_func ("/core/projection/given-options-fail", test_given_options_fail);
  g_test_add_func ("/core/projection/pca-one-point", test_pca_one_point);
  return g_test_run ();
}

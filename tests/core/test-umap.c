/* test-umap.c — UMAP: every step against its formula or an independent reference.
 *
 * Steps: the curve's a, b equal scipy's curve_fit (tests/reference/umap_reference.py ab, a
 * transcription of umap-learn's find_ab_params) and umap-learn's published defaults; σ, ρ and
 * the pruned fuzzy union equal the numpy transcription of umap-learn's smooth_knn_dist,
 * compute_membership_strengths and fuzzy union (umap_reference.py graph) on the same points,
 * euclidean and cosine; the Lanczos eigenvectors equal LAPACK's dense ones and numpy's eigh.
 * Driver: the same seed gives the same bytes for 1, 2 and 3 threads, also in the blocked descent
 * (n >= AS_UMAP_BLOCKED_MIN_N); another seed gives another layout; progress, cancellation, tiny
 * inputs, well separated clusters (several graph components), every error with its message;
 * as_unique_rows (which the command line applies before t-SNE and UMAP).
 * The whole run against umap-js is test-umap-peer.c's. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-matrix-h5.h"
#include "as-umap.h"
#include "as-unique-rows.h"
#include "check-close.h"
#include "real-vectors.h"
#include "sklearn-reference.h"
#include "umap-private.h"
#include "umap-support.h"

/* ---- the curve ---- */

static void
test_curve (void)
{
  double a = 0, b = 0;
  g_autoptr (GError) error = NULL;
  /* umap-learn's values for its defaults (also the constants umap-js starts from) */
  g_assert_true (as_umap_find_ab (1.0, 0.1, &a, &b, &error));
  g_assert_no_error (error);
  g_test_message ("spread 1, min_dist 0.1: a = %.10f, b = %.10f", a, b);
  g_assert_cmpfloat_with_epsilon (a, 1.5769434603113077, 1e-5 * a);
  g_assert_cmpfloat_with_epsilon (b, 0.8950608779109733, 1e-5 * b);

  g_assert_false (as_umap_find_ab (1.0, 1.5, &a, &b, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "min_dist must be in [0, spread] = [0, 1]"));
  g_clear_error (&error);
  g_assert_false (as_umap_find_ab (0.0, 0.0, &a, &b, &error));
  g_assert_nonnull (strstr (error->message, "spread must be a positive number"));
  g_clear_error (&error);

  if (!sklearn_reference_available ())
    return;
  const double cases[][2]
      = { { 1, 0.1 }, { 1, 0 }, { 1, 0.5 }, { 1, 1 }, { 2, 0.1 }, { 0.5, 0.25 } };
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *spread = g_strdup_printf ("%g", cases[c][0]);
      g_autofree char *min_dist = g_strdup_printf ("%g", cases[c][1]);
      g_autofree char *out
          = umap_test_reference ("ab", "--spread", spread, "--min-dist", min_dist, NULL);
      if (out == NULL)
        return;
      double ra = sklearn_reference_json_number (out, "a");
      double rb = sklearn_reference_json_number (out, "b");
      g_assert_true (as_umap_find_ab (cases[c][0], cases[c][1], &a, &b, &error));
      g_assert_no_error (error);
      g_test_message ("spread %s, min_dist %s: a %.8f (scipy %.8f), b %.8f (scipy %.8f)", spread,
                      min_dist, a, ra, b, rb);
      g_assert_cmpfloat_with_epsilon (a, ra, 1e-5 * ra);
      g_assert_cmpfloat_with_epsilon (b, rb, 1e-5 * rb);
    }
}

/* ---- the graph ---- */

/* Dense copy [n][n] of G. */
static float *
densify (const AsSparseGraph *g)
{
  float *dense = g_new0 (float, (gsize) g->n * g->n);
  for (int i = 0; i < g->n; i++)
    for (int64_t e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++)
      dense[(gsize) i * g->n + g->col[e]] = g->val[e];
  return dense;
}

static void
build_graph (AsSparseGraph *g, float *sigma, float *rho, const float *x, int n, int d, int k,
             AsUmapMetric metric, int n_epochs)
{
  AsUmapKnn knn = { 0 };
  g_autoptr (GError) error = NULL;
  g_assert_true (as_umap_knn (&knn, x, n, d, k, metric, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (knn.k, ==, k - 1);
  g_autofree float *w = g_new (float, (gsize) n *knn.k);
  as_umap_smooth_distances (sigma, rho, knn.dist, n, knn.k);
  as_umap_memberships (w, knn.dist, sigma, rho, n, knn.k);

  /* σ solves Σ_j exp(−max(0, d_ij − ρ_i)/σ_i) = log2(k) wherever it is not at its floor */
  for (int i = 0; i < n; i++)
    {
      double sum = 0.0;
      for (int c = 0; c < knn.k; c++)
        sum += w[(gsize) i * knn.k + c];
      if (sigma[i] > 2e-3 * knn.dist[(gsize) i * knn.k + knn.k - 1])
        g_assert_cmpfloat_with_epsilon (sum, log2 (k), 2e-5 * log2 (k));
      g_assert_cmpfloat (w[(gsize) i * knn.k], ==, 1.0f); /* the nearest is at ρ */
    }
  as_umap_fuzzy_graph (g, knn.nn, w, n, knn.k, n_epochs);
  as_umap_knn_clear (&knn);
}

static void
compare_graph (AsUmapMetric metric, const char *metric_name)
{
  const int n = 240, d = 12, k = 15, n_epochs = 200;
  g_autofree float *x = umap_test_mixture (n, d, 4, 2.0, 3);
  for (int j = 0; j < d; j++) /* a duplicate point: distance exactly 0 */
    x[(gsize) 7 * d + j] = x[(gsize) 3 * d + j];
  if (metric == AS_UMAP_METRIC_COSINE)
    for (int j = 0; j < d; j++) /* and, for cosine, a zero vector */
      x[(gsize) 11 * d + j] = 0.0f;
  AsSparseGraph g = { 0 };
  g_autofree float *sigma = g_new (float, n), *rho = g_new (float, n);
  build_graph (&g, sigma, rho, x, n, d, k, metric, n_epochs);
  g_autofree float *ours = densify (&g);
  for (int i = 0; i < n; i++) /* symmetric, no self loops */
    {
      g_assert_cmpfloat (ours[(gsize) i * n + i], ==, 0.0f);
      for (int j = 0; j < i; j++)
        g_assert_cmpfloat (ours[(gsize) i * n + j], ==, ours[(gsize) j * n + i]);
    }
  /* ρ is the nearest non-zero distance, so the duplicate (at 0) has membership 1 */
  g_assert_cmpfloat (rho[3], >, 0.0f);
  g_assert_cmpfloat (ours[(gsize) 3 * n + 7], ==, 1.0f);

  if (!sklearn_reference_available ())
    {
      as_sparse_graph_clear (&g);
      return;
    }
  g_autofree char *input = umap_test_write_matrix ("graph-x.h5", x, n, d);
  g_autofree char *out_path = sklearn_reference_tmp ("graph-ref.h5");
  g_autofree char *epochs = g_strdup_printf ("%d", n_epochs);
  g_autofree char *out
      = umap_test_reference ("graph", "--input", input, "--out", out_path, "--n-neighbors", "15",
                             "--metric", metric_name, "--n-epochs", epochs, NULL);
  if (out != NULL)
    {
      g_autofree float *ref = umap_test_read_matrix (out_path, "graph", n, n);
      g_autofree float *ref_sigma = umap_test_read_matrix (out_path, "sigma", 1, n);
      g_autofree float *ref_rho = umap_test_read_matrix (out_path, "rho", 1, n);
      check_close ("rho", rho, ref_rho, n, 1e-6, 1e-5);
      check_close ("sigma", sigma, ref_sigma, n, 1e-7, 1e-4);
      check_close ("fuzzy graph", ours, ref, (gsize) n * n, 2e-5, 1e-4);
    }
  as_sparse_graph_clear (&g);
}

static void
test_graph_euclidean (void)
{
  compare_graph (AS_UMAP_METRIC_EUCLIDEAN, "euclidean");
}

static void
test_graph_cosine (void)
{
  compare_graph (AS_UMAP_METRIC_COSINE, "cosine");
}

/* ---- the eigenvectors ---- */

static double
abs_cosine (const double *a, const float *b, int n, int stride_a, int stride_b)
{
  double dot = 0, na = 0, nb = 0;
  for (int i = 0; i < n; i++)
    {
      dot += a[(gsize) i * stride_a] * b[(gsize) i * stride_b];
      na += a[(gsize) i * stride_a] * a[(gsize) i * stride_a];
      nb += (double) b[(gsize) i * stride_b] * b[(gsize) i * stride_b];
    }
  return fabs (dot) / sqrt (na * nb);
}

static void
test_eigen (void)
{
  /* one elongated cloud: a connected graph with distinct leading eigenvalues */
  const int n = 400, d = 3, k = 15;
  GRand *rand = g_rand_new_with_seed (8);
  g_autofree float *x = g_new (float, n *d);
  for (int i = 0; i < n; i++)
    {
      x[i * d] = (float) g_rand_double_range (rand, 0, 10);
      x[i * d + 1] = (float) g_rand_double_range (rand, 0, 3);
      x[i * d + 2] = (float) g_rand_double_range (rand, 0, 0.5);
    }
  g_rand_free (rand);
  AsSparseGraph g = { 0 };
  g_autofree float *sigma = g_new (float, n), *rho = g_new (float, n);
  build_graph (&g, sigma, rho, x, n, d, k, AS_UMAP_METRIC_EUCLIDEAN, 500);
  g_autofree int *label = g_new (int, n);
  g_assert_cmpint (as_umap_graph_components (label, &g), ==, 1);

  g_autofree double *deg = g_new0 (double, n);
  for (int i = 0; i < n; i++)
    for (int64_t e = g.row_ptr[i]; e < g.row_ptr[i + 1]; e++)
      deg[i] += g.val[e];
  g_autofree double *dense = g_new (double, 2 * n), *lanczos = g_new (double, 2 * n);
  double dense_values[2], lanczos_values[2];
  guint64 rng = 5;
  g_assert_true (as_umap_eigen_top2 (dense, dense_values, &g, deg, FALSE, &rng));
  g_assert_true (as_umap_eigen_top2 (lanczos, lanczos_values, &g, deg, TRUE, &rng));
  g_test_message ("eigenvalues of D^-1/2 W D^-1/2: dense %.8f %.8f, Lanczos %.8f %.8f",
                  dense_values[0], dense_values[1], lanczos_values[0], lanczos_values[1]);
  for (int c = 0; c < 2; c++)
    {
      g_assert_cmpfloat_with_epsilon (lanczos_values[c], dense_values[c], 1e-7);
      g_assert_cmpfloat (dense_values[c], <, 1.0);
      double dot = 0;
      for (int i = 0; i < n; i++)
        dot += dense[2 * i + c] * lanczos[2 * i + c];
      g_assert_cmpfloat (dot, >, 1.0 - 1e-6); /* same vector, same sign */
    }
  if (!sklearn_reference_available ())
    {
      as_sparse_graph_clear (&g);
      return;
    }
  g_autofree char *input = umap_test_write_matrix ("eigen-x.h5", x, n, d);
  g_autofree char *out_path = sklearn_reference_tmp ("eigen-ref.h5");
  g_autofree char *out = umap_test_reference ("graph", "--input", input, "--out", out_path, NULL);
  if (out != NULL)
    {
      g_autofree float *vectors = umap_test_read_matrix (out_path, "eigenvectors", n, 2);
      g_autofree float *values = umap_test_read_matrix (out_path, "eigenvalues", 1, 2);
      for (int c = 0; c < 2; c++)
        {
          g_assert_cmpfloat_with_epsilon (dense_values[c], values[c], 1e-5);
          double cos = abs_cosine (dense + c, vectors + c, n, 2, 2);
          g_test_message ("eigenvector %d: |cos| with numpy's %.8f", c + 2, cos);
          g_assert_cmpfloat (cos, >, 1.0 - 1e-4);
        }
    }
  as_sparse_graph_clear (&g);
}

/* ---- the driver ---- */

static void
check_deterministic (int n, int d, int n_epochs)
{
  g_autofree float *x = umap_test_mixture (n, d, 6, 3.0, 21);
  g_autofree float *a = g_new (float, 2 * n), *b = g_new (float, 2 * n), *c = g_new (float, 2 * n);
  AsUmapOptions o;
  as_umap_options_init (&o);
  o.n_epochs = n_epochs;
  o.seed = 7;
  AsUmapInfo ia, ib, ic;
  o.n_threads = 1;
  umap_test_run (a, &ia, x, n, d, &o);
  o.n_threads = 2;
  umap_test_run (b, &ib, x, n, d, &o);
  o.n_threads = 3;
  umap_test_run (c, &ic, x, n, d, &o);
  g_test_message ("n = %d: %" G_GINT64_FORMAT " edges, %d components, %d epochs", n, ia.n_edges,
                  ia.n_graph_components, ia.n_epochs);
  g_assert_cmpmem (a, 2 * n * sizeof (float), b, 2 * n * sizeof (float));
  g_assert_cmpmem (a, 2 * n * sizeof (float), c, 2 * n * sizeof (float));
  g_assert_cmpint (ia.n_epochs, ==, n_epochs);
  g_assert_cmpint (ia.n_edges, ==, ib.n_edges);
  o.seed = 8;
  umap_test_run (c, &ic, x, n, d, &o);
  g_assert_true (memcmp (a, c, 2 * n * sizeof (float)) != 0);
}

static void
test_deterministic (void)
{
  check_deterministic (700, 10, 100);
}

static void
test_deterministic_blocked (void)
{
  check_deterministic (AS_UMAP_BLOCKED_MIN_N + 500, 8, 30);
}

typedef struct
{
  int calls, last_epoch, cancel_at;
  GCancellable *cancellable;
} Progress;

static void
on_progress (int epoch, int n_epochs, const float *y, int n, gpointer user_data)
{
  Progress *p = user_data;
  p->calls++;
  g_assert_cmpint (epoch, >, p->last_epoch);
  g_assert_cmpint (n_epochs, ==, 55);
  g_assert_cmpint (n, ==, 80);
  g_assert_true (isfinite (y[0]) && isfinite (y[2 * n - 1]));
  p->last_epoch = epoch;
  if (p->cancel_at > 0 && epoch >= p->cancel_at)
    g_cancellable_cancel (p->cancellable);
}

static void
test_progress_and_cancel (void)
{
  const int n = 80, d = 5;
  g_autofree float *x = umap_test_mixture (n, d, 3, 3.0, 31);
  g_autofree float *y = g_new (float, 2 * n);
  AsUmapOptions o;
  as_umap_options_init (&o);
  o.n_epochs = 55;
  o.progress = on_progress;
  Progress p = { 0 };
  o.user_data = &p;
  AsUmapInfo info;
  umap_test_run (y, &info, x, n, d, &o);
  g_assert_cmpint (p.calls, ==, 6); /* 10, 20, ..., 50, 55 */
  g_assert_cmpint (p.last_epoch, ==, 55);

  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  Progress q = { .cancel_at = 20, .cancellable = cancellable };
  o.user_data = &q;
  o.cancellable = cancellable;
  for (int k = 0; k < 2 * n; k++)
    y[k] = 42.0f;
  g_autoptr (GError) error = NULL;
  g_assert_false (as_umap_run (y, NULL, x, n, d, &o, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
  g_assert_nonnull (strstr (error->message, "epoch 20 of 55"));
  g_assert_cmpint (q.last_epoch, ==, 20);
  g_assert_cmpfloat (y[0], ==, 42.0f); /* the output is untouched */
  g_clear_error (&error);
  /* cancelled before it starts: fails in the neighbour search */
  o.progress = NULL;
  g_assert_false (as_umap_run (y, NULL, x, n, d, &o, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
}

static void
expect_error (const float *x, int n, int d, const AsUmapOptions *o, int code, const char *fragment)
{
  float y[64] = { 0 };
  g_autoptr (GError) error = NULL;
  g_assert_false (as_umap_run (y, NULL, x, n, d, o, &error));
  g_assert_error (error, AS_ERROR, code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, fragment));
}

static void
test_errors (void)
{
  g_autofree float *x = umap_test_mixture (30, 4, 2, 3.0, 41);
  AsUmapOptions o;
  as_umap_options_init (&o);
  expect_error (x, 10, 4, &o, AS_ERROR_INPUT,
                "n_neighbors = 15 needs at least 15 points (each point is its own first "
                "neighbour); the input has 10, so n_neighbors can be at most 10");
  expect_error (x, 0, 4, &o, AS_ERROR_INPUT, "empty matrix (0 rows, 4 columns)");
  expect_error (x, 30, 0, &o, AS_ERROR_INPUT, "empty matrix (30 rows, 0 columns)");
  expect_error (x, 1, 4, &o, AS_ERROR_INPUT, "at least 2 points are needed; the input has 1");
  o.n_neighbors = 1;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "n_neighbors must be in 2..200 (got 1)");
  o.n_neighbors = 201;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "n_neighbors must be in 2..200 (got 201)");
  o.n_neighbors = 15;
  o.min_dist = 1.5;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "min_dist must be in [0, spread] = [0, 1] (got 1.5)");
  o.min_dist = -0.1;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "min_dist must be in [0, spread]");
  o.min_dist = 0.1;
  o.spread = 0;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "spread must be a positive number (got 0)");
  o.spread = 1;
  o.n_epochs = -3;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "n_epochs must be 0 (auto) or in 1..100000 (got -3)");
  o.n_epochs = 0;
  o.learning_rate = 0;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "learning rate must be a positive number (got 0)");
  o.learning_rate = 1;
  o.negative_sample_rate = -1;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "negative_sample_rate must be in 0..100 (got -1)");
  o.negative_sample_rate = 5;
  o.repulsion_strength = NAN;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "repulsion_strength must be a finite number >= 0");
  o.repulsion_strength = 1;
  o.n_components = 3;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "n_components must be 2 (got 3)");
  o.n_components = 2;
  o.metric = (AsUmapMetric) 7;
  expect_error (x, 30, 4, &o, AS_ERROR_INPUT, "unknown metric 7");
  o.metric = AS_UMAP_METRIC_EUCLIDEAN;
  x[4 * 7 + 3] = NAN;
  expect_error (x, 30, 4, &o, AS_ERROR_VALUE, "NaN at row 7, column 3");
  x[4 * 7 + 3] = INFINITY;
  expect_error (x, 30, 4, &o, AS_ERROR_VALUE, "infinity at row 7, column 3");
}

static void
test_small_inputs (void)
{
  /* as few points as neighbours, d = 1, duplicates; all points equal; zero vectors (cosine) */
  const float line[5] = { 0, 0, 1, 5, 5.5f };
  float a[10], b[10];
  AsUmapOptions o;
  as_umap_options_init (&o);
  o.n_neighbors = 5;
  AsUmapInfo info;
  umap_test_run (a, &info, line, 5, 1, &o);
  umap_test_run (b, &info, line, 5, 1, &o);
  g_assert_cmpmem (a, sizeof a, b, sizeof b);
  /* the two far points stay nearer each other than to the duplicates */
  double d34 = hypot (a[6] - a[8], a[7] - a[9]), d03 = hypot (a[0] - a[6], a[1] - a[7]);
  g_assert_cmpfloat (d34, <, d03);

  const float same[12] = { 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3 };
  o.n_neighbors = 2;
  umap_test_run (a, &info, same, 4, 3, &o);

  const float zeros[15] = { 0, 0, 0, 0, 0, 0, 1, 0, 0, 0.9f, 0.1f, 0, 0, 0, 2 };
  o.metric = AS_UMAP_METRIC_COSINE;
  o.n_neighbors = 3;
  umap_test_run (a, &info, zeros, 5, 3, &o);
  /* two points, random initialisation */
  o.init = AS_UMAP_INIT_RANDOM;
  o.n_neighbors = 2;
  umap_test_run (a, &info, line, 2, 1, &o);
  g_assert_cmpint (info.init, ==, AS_UMAP_INIT_RANDOM);
}

static void
test_separated_clusters (void)
{
  /* clusters far apart have no edges between them: the spectral layout places each component
   * (2 or 3 of them: ±e_i; 7: the centroid layout) and every point ends nearer the points of its
   * own cluster than any other cluster's */
  const int counts[] = { 2, 3, 7 };
  for (gsize t = 0; t < G_N_ELEMENTS (counts); t++)
    {
      int c = counts[t], n = 60 * c, d = 6;
      g_autofree float *x = umap_test_mixture (n, d, c, 60.0, 51 + t);
      g_autofree float *y = g_new (float, 2 * n);
      AsUmapOptions o;
      as_umap_options_init (&o);
      o.n_epochs = 200;
      AsUmapInfo info;
      umap_test_run (y, &info, x, n, d, &o);
      g_test_message ("%d clusters: %d graph components, init %s", c, info.n_graph_components,
                      info.init == AS_UMAP_INIT_SPECTRAL ? "spectral" : "random");
      g_assert_cmpint (info.n_graph_components, ==, c);
      g_assert_cmpint (info.init, ==, AS_UMAP_INIT_SPECTRAL);
      int wrong = 0;
      for (int i = 0; i < n; i++)
        {
          double best = INFINITY;
          int best_j = -1;
          for (int j = 0; j < n; j++)
            if (j != i)
              {
                double dist = hypot (y[2 * i] - y[2 * j], y[2 * i + 1] - y[2 * j + 1]);
                if (dist < best)
                  best = dist, best_j = j;
              }
          wrong += best_j % c != i % c;
        }
      g_assert_cmpint (wrong, ==, 0);
    }
}

static void
test_unique_rows (void)
{
  /* rows 0 = 2 = 5 and 1 = 4; 3 differs from 1 only by the sign of a zero */
  const float x[6 * 2] = { 1, 2, 3, 0, 1, 2, 3, -0.0f, 3, 0, 1, 2 };
  int inverse[6], m = 0;
  g_autofree float *u = as_unique_rows (x, 6, 2, inverse, &m);
  g_assert_cmpint (m, ==, 3);
  const int expected_inverse[6] = { 0, 1, 0, 2, 1, 0 };
  const float expected[3 * 2] = { 1, 2, 3, 0, 3, -0.0f };
  g_assert_cmpmem (inverse, sizeof inverse, expected_inverse, sizeof expected_inverse);
  g_assert_cmpmem (u, sizeof expected, expected, sizeof expected);
  g_autofree float *none = as_unique_rows (x, 0, 2, inverse, &m);
  g_assert_cmpint (m, ==, 0);
}

static void
test_defaults (void)
{
  AsUmapOptions o;
  as_umap_options_init (&o);
  g_assert_cmpint (o.n_neighbors, ==, 15);
  g_assert_cmpfloat (o.min_dist, ==, 0.1);
  g_assert_cmpfloat (o.spread, ==, 1.0);
  g_assert_cmpfloat (o.learning_rate, ==, 1.0);
  g_assert_cmpint (o.negative_sample_rate, ==, 5);
  g_assert_cmpint (o.metric, ==, AS_UMAP_METRIC_EUCLIDEAN);
  g_assert_cmpint (o.init, ==, AS_UMAP_INIT_SPECTRAL);
  g_assert_cmpint (as_umap_epochs_for (0, AS_UMAP_SMALL_N), ==, 500);
  g_assert_cmpint (as_umap_epochs_for (0, AS_UMAP_SMALL_N + 1), ==, 200);
  g_assert_cmpint (as_umap_epochs_for (37, 5), ==, 37);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/umap/defaults", test_defaults);
  g_test_add_func ("/core/umap/curve", test_curve);
  g_test_add_func ("/core/umap/unique-rows", test_unique_rows);
  g_test_add_func ("/core/umap/graph/euclidean", test_graph_euclidean);
  g_test_add_func ("/core/umap/graph/cosine", test_graph_cosine);
  g_test_add_func ("/core/umap/eigen", test_eigen);
  g_test_add_func ("/core/umap/deterministic", test_deterministic);
  g_test_add_func ("/core/umap/deterministic-blocked", test_deterministic_blocked);
  g_test_add_func ("/core/umap/progress-and-cancel", test_progress_and_cancel);
  g_test_add_func ("/core/umap/errors", test_errors);
  g_test_add_func ("/core/umap/small-inputs", test_small_inputs);
  g_test_add_func ("/core/umap/separated-clusters", test_separated_clusters);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

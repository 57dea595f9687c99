/* umap.c — the UMAP driver: checks, the graph, the curve, the initialisation and the descent
 * (as-umap.h; every step is in umap-private.h).
 *
 * The initial layout is made as umap-learn's simplicial_set_embedding makes it: the spectral
 * layout scaled so that its largest coordinate is 10 with N(0, 1e-4²) noise added
 * (noisy_scale_coords), or uniform random coordinates in [−10, 10]; then every coordinate is
 * rescaled to [0, 10] before the descent. */
#include "as-umap.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "as-error.h"
#include "as-pca.h"
#include "rng-private.h"
#include "umap-private.h"

/* Below this many points the neighbour search runs on the calling thread. */
#define THREADED_MIN_N 512
#define NEGATIVE_RATE_MAX 100

void
as_umap_options_init (AsUmapOptions *options)
{
  *options = (AsUmapOptions){
    .n_components = 2,
    .n_neighbors = 15,
    .min_dist = 0.1,
    .spread = 1.0,
    .n_epochs = 0,
    .learning_rate = 1.0,
    .negative_sample_rate = 5,
    .repulsion_strength = 1.0,
    .metric = AS_UMAP_METRIC_EUCLIDEAN,
    .init = AS_UMAP_INIT_SPECTRAL,
    .seed = 0,
    .n_threads = 0,
  };
}

int
as_umap_epochs_for (int n_epochs, int n)
{
  if (n_epochs > 0)
    return n_epochs;
  return n <= AS_UMAP_SMALL_N ? 500 : 200;
}

static gboolean fail (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "UMAP: %s", message);
  return FALSE;
}

static gboolean
check_options (const AsUmapOptions *o, GError **error)
{
  if (o->n_components != 2)
    return fail (error, "n_components must be 2 (got %d)", o->n_components);
  if (o->n_neighbors < AS_UMAP_NEIGHBORS_MIN || o->n_neighbors > AS_UMAP_NEIGHBORS_MAX)
    return fail (error, "n_neighbors must be in %d..%d (got %d)", AS_UMAP_NEIGHBORS_MIN,
                 AS_UMAP_NEIGHBORS_MAX, o->n_neighbors);
  if (!(o->spread > 0) || !isfinite (o->spread))
    return fail (error, "spread must be a positive number (got %g)", o->spread);
  if (!(o->min_dist >= 0 && o->min_dist <= o->spread))
    return fail (error, "min_dist must be in [0, spread] = [0, %g] (got %g)", o->spread,
                 o->min_dist);
  if (o->n_epochs < 0 || o->n_epochs > AS_UMAP_EPOCHS_MAX)
    return fail (error, "n_epochs must be 0 (auto) or in 1..%d (got %d)", AS_UMAP_EPOCHS_MAX,
                 o->n_epochs);
  if (!(o->learning_rate > 0) || !isfinite (o->learning_rate))
    return fail (error, "the learning rate must be a positive number (got %g)", o->learning_rate);
  if (o->negative_sample_rate < 0 || o->negative_sample_rate > NEGATIVE_RATE_MAX)
    return fail (error, "negative_sample_rate must be in 0..%d (got %d)", NEGATIVE_RATE_MAX,
                 o->negative_sample_rate);
  if (!(o->repulsion_strength >= 0) || !isfinite (o->repulsion_strength))
    return fail (error, "repulsion_strength must be a finite number >= 0 (got %g)",
                 o->repulsion_strength);
  if (o->metric != AS_UMAP_METRIC_EUCLIDEAN && o->metric != AS_UMAP_METRIC_COSINE)
    return fail (error, "unknown metric %d", (int) o->metric);
  if (o->init != AS_UMAP_INIT_SPECTRAL && o->init != AS_UMAP_INIT_RANDOM)
    return fail (error, "unknown initialisation %d", (int) o->init);
  return TRUE;
}

static gboolean
check_input (const float *x, int n, int d, const AsUmapOptions *o, GError **error)
{
  if (n <= 0 || d <= 0)
    return fail (error, "the input is an empty matrix (%d rows, %d columns)", MAX (n, 0),
                 MAX (d, 0));
  if (!check_options (o, error))
    return FALSE;
  if (n < AS_UMAP_NEIGHBORS_MIN)
    return fail (error, "at least %d points are needed; the input has %d", AS_UMAP_NEIGHBORS_MIN,
                 n);
  if (n < o->n_neighbors)
    return fail (error,
                 "n_neighbors = %d needs at least %d points (each point is its own first "
                 "neighbour); the input has %d, so n_neighbors can be at most %d",
                 o->n_neighbors, o->n_neighbors, n, n);
  return as_matrix_check_finite (x, n, d, "the UMAP input", error);
}

/* umap-learn's noisy_scale_coords: Y scaled so that its largest |coordinate| is 10, plus
 * N(0, 1e-4²) noise. */
static void
noisy_scale (float *y, int n, guint64 *rng)
{
  double max = 0.0;
  for (gsize k = 0; k < 2 * (gsize) n; k++)
    max = fmax (max, fabs (y[k]));
  double expansion = max > 0 ? 10.0 / max : 1.0;
  for (gsize i = 0; i < (gsize) n; i++)
    {
      double z0, z1;
      as_rng_normal_pair (rng, &z0, &z1);
      y[2 * i] = (float) (y[2 * i] * expansion) + (float) (1e-4 * z0);
      y[2 * i + 1] = (float) (y[2 * i + 1] * expansion) + (float) (1e-4 * z1);
    }
}

/* Every coordinate of Y [n][2] mapped linearly onto [0, 10]. */
static void
rescale (float *y, int n)
{
  for (int c = 0; c < 2; c++)
    {
      float lo = INFINITY, hi = -INFINITY;
      for (int i = 0; i < n; i++)
        {
          lo = fminf (lo, y[2 * i + c]);
          hi = fmaxf (hi, y[2 * i + c]);
        }
      for (int i = 0; i < n; i++)
        y[2 * i + c] = hi > lo ? 10.0f * (y[2 * i + c] - lo) / (hi - lo) : 0.0f;
    }
}

static void
initialise (float *y, AsUmapInfo *info, const AsSparseGraph *g, const float *x, int d,
            const AsUmapOptions *o)
{
  int n = g->n;
  guint64 rng = as_rng_hash (o->seed ^ 0x756d61702d696e69ull); /* "umap-ini" */
  if (o->init == AS_UMAP_INIT_SPECTRAL)
    {
      gboolean ok
          = as_umap_spectral_layout (y, &info->n_graph_components, g, x, d, o->metric, &rng);
      info->init = ok ? AS_UMAP_INIT_SPECTRAL : AS_UMAP_INIT_RANDOM;
      noisy_scale (y, n, &rng);
    }
  else
    {
      g_autofree int *label = g_new (int, n);
      info->n_graph_components = as_umap_graph_components (label, g);
      info->init = AS_UMAP_INIT_RANDOM;
      for (gsize k = 0; k < 2 * (gsize) n; k++)
        y[k] = (float) (-10.0 + 20.0 * as_rng_uniform (&rng));
    }
  rescale (y, n);
}

/* The graph of X: neighbours, memberships, fuzzy union, pruning. */
static gboolean
build_graph (AsSparseGraph *g, const float *x, int n, int d, int n_epochs, const AsUmapOptions *o,
             AsWorkerTeam *team, GError **error)
{
  AsUmapKnn knn = { 0 };
  if (!as_umap_knn (&knn, x, n, d, o->n_neighbors, o->metric, team, o->cancellable, error))
    return FALSE;
  int k = knn.k;
  g_autofree float *sigma = g_new (float, n);
  g_autofree float *rho = g_new (float, n);
  g_autofree float *w = g_try_malloc ((gsize) n * k * sizeof (float)); /* [n][k] */
  if (w == NULL)
    {
      as_umap_knn_clear (&knn);
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "UMAP: the memberships of %d points do not fit in memory", n);
      return FALSE;
    }
  as_umap_smooth_distances (sigma, rho, knn.dist, n, k);
  as_umap_memberships (w, knn.dist, sigma, rho, n, k);
  as_umap_fuzzy_graph (g, knn.nn, w, n, k, n_epochs);
  as_umap_knn_clear (&knn);
  return TRUE;
}

gboolean
as_umap_run (float *y_out, AsUmapInfo *info_out, const float *x, int n, int d,
             const AsUmapOptions *options, GError **error)
{
  AsUmapOptions defaults;
  as_umap_options_init (&defaults);
  const AsUmapOptions *o = options != NULL ? options : &defaults;
  g_return_val_if_fail (y_out != NULL, FALSE);
  if (!check_input (x, n, d, o, error))
    return FALSE;
  AsUmapInfo info = { .n_epochs = as_umap_epochs_for (o->n_epochs, n) };
  if (!as_umap_find_ab (o->spread, o->min_dist, &info.a, &info.b, error))
    return FALSE;

  int n_threads = o->n_threads > 0 ? o->n_threads : (int) MIN (g_get_num_processors (), 8);
  g_autoptr (AsWorkerTeam) team
      = n >= THREADED_MIN_N && n_threads > 1 ? as_worker_team_new (n_threads) : NULL;
  AsSparseGraph g = { 0 };
  if (!build_graph (&g, x, n, d, info.n_epochs, o, team, error))
    return FALSE;
  info.n_edges = g.row_ptr[n];

  g_autofree float *y = g_new (float, 2 * (gsize) n); /* [n][2] */
  initialise (y, &info, &g, x, d, o);
  gboolean ok = as_umap_optimize (y, &g, info.n_epochs, info.a, info.b, o, team, error);
  as_sparse_graph_clear (&g);
  if (!ok)
    return FALSE;
  memcpy (y_out, y, sizeof (float) * 2 * n);
  if (info_out != NULL)
    *info_out = info;
  return TRUE;
}

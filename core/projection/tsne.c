/* tsne.c — the t-SNE driver: checks, affinities, initialisation and gradient descent.
 *
 * The schedule is sklearn 1.2's (see as-tsne.h): two calls of the same descent, 250 iterations
 * with momentum 0.5 on exaggerated P, then the rest with momentum 0.8; per-parameter gains grow
 * by 0.2 while the update keeps its direction against the gradient and shrink by 0.8 otherwise;
 * every 50 iterations the divergence is evaluated, reported, and used for the stopping rules.
 * Each call starts from no momentum and unit gains, as every call of sklearn's _gradient_descent
 * does: the gains learnt on the exaggerated P do not fit the plain one (carried over, they left
 * the divergence 2-4 % higher and trustworthiness up to 0.004 lower on hidden states;
 * core/projection/README.md, "Projections of real vectors").
 * The objective (exact or Barnes-Hut, tsne-private.h) supplies gradients and divergences. */
#include "as-tsne.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-pca.h"
#include "rng-private.h"
#include "tsne-private.h"

#define EXPLORATION_ITER 250
#define CHECK_EVERY 50
#define N_ITER_WITHOUT_PROGRESS 300
#define MIN_GAIN 0.01
#define MIN_GRAD_NORM 1e-7
/* The seed's perturbation of the PCA initialisation: 1e-4 of its scale (core/README.md,
 * "Projections"). */
#define INIT_NOISE 1e-8

void
as_tsne_options_init (AsTsneOptions *options)
{
  *options = (AsTsneOptions){
    .n_components = 2,
    .perplexity = 30.0,
    .early_exaggeration = 12.0,
    .n_iter = 1000,
    .learning_rate = 0.0,
    .seed = 0,
    .method = AS_TSNE_METHOD_AUTO,
    .init = AS_TSNE_INIT_PCA,
    .theta = 0.5,
    .n_threads = 0,
  };
}

AsTsneMethod
as_tsne_method_for (AsTsneMethod method, int n)
{
  (void) n;
  return method != AS_TSNE_METHOD_AUTO ? method : AS_TSNE_METHOD_BARNES_HUT;
}

double
as_tsne_max_perplexity (int n)
{
  return n < 2 ? 0.0 : (n - 1) / 3.0;
}

static gboolean
check_options (const AsTsneOptions *o, int n, GError **error)
{
  const char *bad = NULL;
  if (o->n_components != 2)
    bad = "n_components must be 2";
  else if (!(o->early_exaggeration >= 1.0) || !isfinite (o->early_exaggeration))
    bad = "early exaggeration must be a finite number >= 1";
  else if (o->n_iter < EXPLORATION_ITER)
    bad = "the number of iterations must be at least 250 (the early exaggeration phase)";
  else if (!(o->theta >= 0.0 && o->theta <= 1.0))
    bad = "theta (the Barnes-Hut angle) must be in [0, 1]";
  else if (isnan (o->learning_rate) || isinf (o->learning_rate))
    bad = "the learning rate must be finite (<= 0 for \"auto\")";
  else if (o->method < AS_TSNE_METHOD_AUTO || o->method > AS_TSNE_METHOD_BARNES_HUT)
    bad = "unknown method";
  else if (o->init != AS_TSNE_INIT_PCA && o->init != AS_TSNE_INIT_RANDOM)
    bad = "unknown initialisation";
  if (bad != NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "t-SNE: %s", bad);
      return FALSE;
    }
  if (!(o->perplexity > 0.0) || !isfinite (o->perplexity))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "t-SNE: the perplexity must be a positive number (got %g)", o->perplexity);
      return FALSE;
    }
  if (3.0 * o->perplexity > n - 1)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "t-SNE: perplexity %g is too large for %d points: it needs at least "
                   "3·perplexity + 1 = %.0f points (with %d points use a perplexity of at most "
                   "%.4g)",
                   o->perplexity, n, ceil (3.0 * o->perplexity) + 1, n, as_tsne_max_perplexity (n));
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_input (const float *x, int n, int d, const AsTsneOptions *o, GError **error)
{
  if (n <= 0 || d <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "t-SNE: the input is an empty matrix (%d rows, %d columns)", MAX (n, 0),
                   MAX (d, 0));
      return FALSE;
    }
  if (n < 2)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "t-SNE needs at least 2 points; got %d", n);
      return FALSE;
    }
  return as_matrix_check_finite (x, n, d, "the t-SNE input", error) && check_options (o, n, error);
}

static void
init_random (float *y /* [n][2] */, int n, guint64 seed)
{
  guint64 state = seed;
  for (int i = 0; i < 2 * n; i += 2)
    {
      double z0, z1;
      as_rng_normal_pair (&state, &z0, &z1);
      y[i] = (float) (1e-4 * z0);
      y[i + 1] = (float) (1e-4 * z1);
    }
}

/* sklearn's init="pca": the first two principal coordinates, divided by the standard deviation of
 * the first and multiplied by 1e-4; then N(0, INIT_NOISE²) from SEED added to every coordinate.
 * FALSE when PCA does not give two usable coordinates. */
static gboolean
init_pca (float *y /* [n][2] */, const float *x, int n, int d, guint64 seed)
{
  if (d < 2)
    return FALSE;
  g_autoptr (AsPca) pca = as_pca_fit (x, n, d, 2, NULL);
  if (pca == NULL)
    return FALSE;
  double mean = 0.0, var = 0.0;
  for (int i = 0; i < n; i++)
    mean += pca->coords[2 * i];
  mean /= n;
  for (int i = 0; i < n; i++)
    var += (pca->coords[2 * i] - mean) * (pca->coords[2 * i] - mean);
  double sd = sqrt (var / n);
  if (!(sd > 0.0) || !isfinite (sd))
    return FALSE;
  guint64 state = as_rng_hash (seed ^ 0x74736e652d706361ull); /* "tsne-pca" */
  for (gsize i = 0; i < 2 * (gsize) n; i += 2)
    {
      double z0, z1;
      as_rng_normal_pair (&state, &z0, &z1);
      y[i] = (float) (pca->coords[i] / sd * 1e-4 + INIT_NOISE * z0);
      y[i + 1] = (float) (pca->coords[i + 1] / sd * 1e-4 + INIT_NOISE * z1);
    }
  return TRUE;
}

typedef struct
{
  const AsTsneOptions *o;
  AsTsneObjective *objective;
  int n;
  double learning_rate;
  float *y, *update, *gains, *grad; /* [n][2] each */
} Descent;

/* One gradient step with momentum and gains (sklearn's _gradient_descent body). Returns the
 * norm of the gain-scaled gradient. */
static double
step (Descent *s, double momentum)
{
  double norm = 0.0;
  for (gsize k = 0; k < 2 * (gsize) s->n; k++)
    {
      float g = s->grad[k];
      if (s->update[k] * g < 0.0f)
        s->gains[k] += 0.2f;
      else
        s->gains[k] *= 0.8f;
      s->gains[k] = fmaxf (s->gains[k], (float) MIN_GAIN);
      g *= s->gains[k];
      norm += (double) g * g;
      s->update[k] = (float) (momentum * s->update[k] - s->learning_rate * g);
      s->y[k] += s->update[k];
    }
  return sqrt (norm);
}

/* Iterations [first, end) of one phase, from no momentum and unit gains. *LAST receives the
 * last iteration run. */
static gboolean
descend (Descent *s, int first, int end, double momentum, double exag, int without_progress,
         int *last, GError **error)
{
  const AsTsneOptions *o = s->o;
  double best = DBL_MAX;
  int best_iter = first, it = first;
  for (gsize k = 0; k < 2 * (gsize) s->n; k++)
    {
      s->update[k] = 0.0f;
      s->gains[k] = 1.0f;
    }
  for (; it < end; it++)
    {
      if (g_cancellable_is_cancelled (o->cancellable))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED,
                       "t-SNE was cancelled at iteration %d of %d", it, o->n_iter);
          return FALSE;
        }
      gboolean check = (it + 1) % CHECK_EVERY == 0 || it == end - 1;
      double kl = s->objective->gradient (s->objective, s->grad, s->y, exag, check);
      double norm = step (s, momentum);
      if (!check)
        continue;
      if (o->progress != NULL)
        o->progress (it + 1, o->n_iter, kl, s->y, s->n, o->user_data);
      if (kl < best)
        {
          best = kl;
          best_iter = it;
        }
      else if (it - best_iter > without_progress)
        break;
      if (norm <= MIN_GRAD_NORM)
        break;
    }
  *last = MIN (it, end - 1);
  return TRUE;
}

static AsTsneObjective *
make_objective (float **p_dense, AsSparseGraph *p_sparse, const float *x, int n, int d,
                const AsTsneOptions *o, AsWorkerTeam *team, GError **error)
{
  if (as_tsne_method_for (o->method, n) == AS_TSNE_METHOD_EXACT)
    {
      *p_dense = g_try_malloc ((gsize) n * n * sizeof (float)); /* [n][n] */
      if (*p_dense == NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                       "exact t-SNE of %d points needs %.2f GB for P; use Barnes-Hut", n,
                       (double) n * n * sizeof (float) / 1e9);
          return NULL;
        }
      if (!as_tsne_affinities_dense (*p_dense, x, n, d, o->perplexity, team, o->cancellable, error))
        return NULL;
      return as_tsne_exact_new (*p_dense, n, team);
    }
  int k = MIN (n - 1, (int) (3.0 * o->perplexity + 1));
  if (!as_tsne_affinities_sparse (p_sparse, x, n, d, o->perplexity, k, team, o->cancellable, error))
    return NULL;
  return as_tsne_barnes_hut_new (p_sparse, o->theta, team);
}

static gboolean
optimise (Descent *s, GError **error)
{
  const AsTsneOptions *o = s->o;
  int last = 0;
  if (!descend (s, 0, EXPLORATION_ITER, 0.5, o->early_exaggeration, EXPLORATION_ITER, &last, error))
    return FALSE;
  if (last + 1 < o->n_iter
      && !descend (s, last + 1, o->n_iter, 0.8, 1.0, N_ITER_WITHOUT_PROGRESS, &last, error))
    return FALSE;
  return TRUE;
}

gboolean
as_tsne_run (float *y_out, double *kl_out, const float *x, int n, int d,
             const AsTsneOptions *options, GError **error)
{
  AsTsneOptions defaults;
  as_tsne_options_init (&defaults);
  const AsTsneOptions *o = options != NULL ? options : &defaults;
  g_return_val_if_fail (y_out != NULL, FALSE);
  if (!check_input (x, n, d, o, error))
    return FALSE;

  int n_threads = o->n_threads > 0 ? o->n_threads : MIN (as_forward_threads (), 8);
  g_autoptr (AsWorkerTeam) team
      = n >= TSNE_THREADED_MIN_N && n_threads > 1 ? as_worker_team_new (n_threads) : NULL;
  g_autofree float *p_dense = NULL;
  AsSparseGraph p_sparse = { 0 };
  AsTsneObjective *objective = make_objective (&p_dense, &p_sparse, x, n, d, o, team, error);
  if (objective == NULL)
    {
      as_sparse_graph_clear (&p_sparse);
      return FALSE;
    }

  gsize size = 2 * (gsize) n;
  Descent s = { o,
                objective,
                n,
                0,
                g_new (float, size),
                g_new (float, size),
                g_new (float, size),
                g_new (float, size) };
  s.learning_rate
      = o->learning_rate > 0 ? o->learning_rate : fmax (n / o->early_exaggeration / 4.0, 50.0);
  if (o->init == AS_TSNE_INIT_RANDOM || !init_pca (s.y, x, n, d, o->seed))
    init_random (s.y, n, o->seed);

  gboolean ok = optimise (&s, error);
  if (ok)
    {
      double kl = objective->final_kl (objective, s.y);
      if (kl_out != NULL)
        *kl_out = kl;
      memcpy (y_out, s.y, size * sizeof (float));
    }
  objective->free (objective);
  as_sparse_graph_clear (&p_sparse);
  g_free (s.y);
  g_free (s.update);
  g_free (s.gains);
  g_free (s.grad);
  return ok;
}

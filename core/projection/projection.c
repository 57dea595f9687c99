/* projection.c — PCA, t-SNE or UMAP of a matrix's distinct rows, every copy given the point of
 * its row (see as-projection.h). */
#include "as-projection.h"

#include <math.h>

#include "as-error.h"
#include "as-pca.h"
#include "as-unique-rows.h"

static const char *const method_names[] = { "pca", "tsne", "umap" };

const char *
as_projection_method_to_string (AsProjectionMethod method)
{
  return method_names[CLAMP ((int) method, 0, (int) G_N_ELEMENTS (method_names) - 1)];
}

gboolean
as_projection_method_from_string (const char *name, AsProjectionMethod *method)
{
  for (guint m = 0; m < G_N_ELEMENTS (method_names); m++)
    if (g_strcmp0 (name, method_names[m]) == 0)
      {
        *method = (AsProjectionMethod) m;
        return TRUE;
      }
  return FALSE;
}

void
as_projection_options_init (AsProjectionOptions *options, AsProjectionMethod method)
{
  *options = (AsProjectionOptions){ .method = method, .fit_to_points = TRUE };
  as_tsne_options_init (&options->tsne);
  as_umap_options_init (&options->umap);
}

static gboolean
pca (AsProjection *p, const float *x, int n, int dim, GError **error)
{
  if (n < 2)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "PCA needs at least 2 points; the input has %d",
                   n);
      return FALSE;
    }
  int k = MIN (2, MIN (n, dim)); /* one column: the second coordinate stays 0 */
  g_autoptr (AsPca) fit = as_pca_fit (x, n, dim, k, error);
  if (fit == NULL)
    return FALSE;
  for (int i = 0; i < n; i++)
    for (int c = 0; c < k; c++)
      p->xy[i * 2 + c] = (float) fit->coords[(gsize) i * k + c];
  for (int c = 0; c < 2; c++)
    p->ratio[c] = c < k ? fit->explained_variance_ratio[c] : 0;
  return TRUE;
}

static void
tsne_progress (int iteration, int n_iter, double kl, const float *y, int n, gpointer user_data)
{
  const AsProjectionOptions *o = user_data;
  o->progress (iteration, n_iter, o->user_data);
}

static void
umap_progress (int epoch, int n_epochs, const float *y, int n, gpointer user_data)
{
  const AsProjectionOptions *o = user_data;
  o->progress (epoch, n_epochs, o->user_data);
}

/* t-SNE or UMAP of the M distinct rows UNIQUE [m][dim] into XY [m][2]. */
static gboolean
embed_distinct (AsProjection *p, float *xy, const float *unique, int m, int dim,
                const AsProjectionOptions *o, GError **error)
{
  if (o->method == AS_PROJECTION_TSNE)
    {
      AsTsneOptions tsne = o->tsne;
      if (o->fit_to_points)
        tsne.perplexity = MIN (tsne.perplexity, as_tsne_max_perplexity (m));
      tsne.progress = o->progress != NULL ? tsne_progress : NULL;
      tsne.user_data = (gpointer) o;
      tsne.cancellable = o->cancellable;
      p->perplexity = tsne.perplexity;
      return as_tsne_run (xy, &p->kl, unique, m, dim, &tsne, error);
    }
  AsUmapOptions umap = o->umap;
  if (o->fit_to_points)
    umap.n_neighbors = CLAMP (m, AS_UMAP_NEIGHBORS_MIN, umap.n_neighbors);
  umap.progress = o->progress != NULL ? umap_progress : NULL;
  umap.user_data = (gpointer) o;
  umap.cancellable = o->cancellable;
  p->n_neighbors = umap.n_neighbors;
  return as_umap_run (xy, &p->umap, unique, m, dim, &umap, error);
}

AsProjection *
as_projection_run (const float *x, int n, int dim, const AsProjectionOptions *options,
                   GError **error)
{
  g_autoptr (AsProjection) p = g_new0 (AsProjection, 1);
  p->method = options->method;
  p->n = n;
  p->xy = g_new0 (float, (gsize) MAX (n, 1) * 2); /* [n][2] */
  p->ratio[0] = p->ratio[1] = p->kl = p->perplexity = NAN;
  g_autofree int *inverse = g_new (int, MAX (n, 1));                            /* [n] */
  g_autofree float *unique = as_unique_rows (x, n, dim, inverse, &p->distinct); /* [m][dim] */
  if (options->method == AS_PROJECTION_PCA)
    return pca (p, x, n, dim, error) ? g_steal_pointer (&p) : NULL;
  int m = p->distinct;
  g_autofree float *xy = g_new0 (float, (gsize) MAX (m, 1) * 2); /* [m][2] */
  if (!embed_distinct (p, xy, unique, m, dim, options, error))
    {
      if (m < n && error != NULL && *error != NULL
          && !g_error_matches (*error, AS_ERROR, AS_ERROR_CANCELLED))
        g_prefix_error (error,
                        "%d of the %d points are distinct (identical vectors are projected "
                        "once): ",
                        m, n);
      return NULL;
    }
  for (int i = 0; i < n; i++)
    {
      p->xy[2 * i] = xy[2 * inverse[i]];
      p->xy[2 * i + 1] = xy[2 * inverse[i] + 1];
    }
  return g_steal_pointer (&p);
}

void
as_projection_free (AsProjection *projection)
{
  if (projection == NULL)
    return;
  g_free (projection->xy);
  g_free (projection);
}

/* projection-figure.c — the vectors, the projection and the scatter figure of the embeddings view
 * (see projection-figure.h). */
#include "projection-figure.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-pca.h"
#include "similarity-figure.h"
#include "token-label.h"

float *
ar_projection_vectors (const AsTrace *a, const AsTrace *b, AsVectorSource source, int layer,
                       int head, int *n, int *dim, GError **error)
{
  int n_a, d_a, n_b = 0, d_b = 0;
  const float *va = as_trace_vectors_get (a, source, layer, head, &n_a, &d_a, error);
  if (va == NULL)
    return NULL;
  const float *vb = NULL;
  if (b != NULL && (vb = as_trace_vectors_get (b, source, layer, head, &n_b, &d_b, error)) == NULL)
    return NULL;
  float *x = g_new (float, (gsize) (n_a + n_b) * d_a); /* [n_a + n_b][dim] */
  memcpy (x, va, sizeof (float) * n_a * d_a);
  if (vb != NULL)
    memcpy (x + (gsize) n_a * d_a, vb, sizeof (float) * n_b * d_b);
  *n = n_a + n_b;
  *dim = d_a;
  return x;
}

void
ar_projection_tsne_options (AsTsneOptions *options, int n)
{
  as_tsne_options_init (options);
  options->perplexity = MIN (options->perplexity, as_tsne_max_perplexity (n));
}

static gboolean
pca (ArProjection *p, const float *x, int n, int dim, GError **error)
{
  int k = MIN (2, MIN (n, dim));
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

ArProjection *
ar_projection_compute (const float *x, int n, int dim, ArProjectionMethod method,
                       AsTsneProgressFunc progress, gpointer user_data, GCancellable *cancellable,
                       GError **error)
{
  g_autoptr (ArProjection) p = g_new0 (ArProjection, 1);
  p->method = method;
  p->n = n;
  p->xy = g_new0 (float, (gsize) n * 2); /* [n][2] */
  p->ratio[0] = p->ratio[1] = NAN;
  if (method == AR_PROJECTION_PCA)
    return pca (p, x, n, dim, error) ? g_steal_pointer (&p) : NULL;
  AsTsneOptions options;
  ar_projection_tsne_options (&options, n);
  options.progress = progress;
  options.user_data = user_data;
  options.cancellable = cancellable;
  if (!as_tsne_run (p->xy, NULL, x, n, dim, &options, error))
    return NULL;
  return g_steal_pointer (&p);
}

void
ar_projection_free (ArProjection *projection)
{
  if (projection == NULL)
    return;
  g_free (projection->xy);
  g_free (projection);
}

static char *
projection_title (ArProjectionMethod method, AsVectorSource source, int layer, int head)
{
  g_autofree char *description = ar_vectors_description (source, layer, head);
  /* Translators: "PCA of the embeddings", "t-SNE of the hidden states after layer 2". */
  return g_strdup_printf (_ ("%s of the %s"), method == AR_PROJECTION_TSNE ? "t-SNE" : "PCA",
                          description);
}

/* Labels of A's tokens then B's, and which text each point is from. */
static void
point_labels (ArBuiltFigure *built, ArScatterFigure *fig, const AsTrace *a, const AsTrace *b,
              ArTokenLabelFlags flags)
{
  g_autoptr (GStrvBuilder) labels = g_strv_builder_new ();
  g_auto (GStrv) la = ar_token_labels_from_trace (a, flags);
  g_strv_builder_addv (labels, (const char **) la);
  int *groups = ar_built_figure_take (built, g_new0 (int, fig->n_points));
  if (b != NULL)
    {
      g_auto (GStrv) lb = ar_token_labels_from_trace (b, flags);
      g_strv_builder_addv (labels, (const char **) lb);
      for (int i = a->n_tokens; i < fig->n_points; i++)
        groups[i] = 1;
    }
  fig->labels = ar_built_figure_take_strv (built, g_strv_builder_end (labels));
  fig->groups = groups;
}

ArBuiltFigure *
ar_build_projection_figure (const ArProjection *projection, const AsTrace *a, const AsTrace *b,
                            AsVectorSource source, int layer, int head, gboolean show_labels,
                            const ArViewSelection *view, const ArFigureTexts *texts)
{
  g_return_val_if_fail (projection->n == a->n_tokens + (b != NULL ? b->n_tokens : 0), NULL);
  ArBuiltFigure *built = ar_built_figure_new ();
  ArScatterFigure *fig = &ar_built_figure_edit (built)->scatter;
  ar_scatter_figure_init (fig);
  fig->title
      = ar_built_figure_take (built, projection_title (projection->method, source, layer, head));
  fig->subtitle = ar_built_figure_take (
      built, ar_figure_subtitle (texts->model_name, b == NULL ? texts->text : NULL));
  fig->n_points = projection->n;
  fig->xy = ar_built_figure_take (
      built, g_memdup2 (projection->xy, sizeof (float) * 2 * (gsize) projection->n));
  point_labels (built, fig, a, b, ar_view_selection_label_flags (view));
  fig->label_mode = view->labels;
  fig->n_groups = b != NULL ? 2 : 1;
  if (b != NULL)
    {
      g_autofree char *qa = ar_quote_text (texts->text), *qb = ar_quote_text (texts->compare_text);
      char **names = g_new0 (char *, 3);
      names[0] = g_strdup_printf ("A: %s", qa);
      names[1] = g_strdup_printf ("B: %s", qb);
      fig->group_names = ar_built_figure_take_strv (built, names);
    }
  if (projection->method == AR_PROJECTION_PCA)
    {
      fig->x_axis = ar_built_figure_take (
          built, g_strdup_printf (_ ("PC 1 (%.0f %%)"), 100 * projection->ratio[0]));
      fig->y_axis = ar_built_figure_take (
          built, g_strdup_printf (_ ("PC 2 (%.0f %%)"), 100 * projection->ratio[1]));
    }
  else
    {
      fig->x_axis = _ ("t-SNE 1");
      fig->y_axis = _ ("t-SNE 2");
    }
  fig->show_labels = show_labels;
  fig->highlight_point = view->selected_token < a->n_tokens ? view->selected_token : -1;
  ar_built_figure_edit (built)->figure = ar_figure_from_scatter (fig);
  return built;
}

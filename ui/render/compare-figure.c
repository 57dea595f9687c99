/* compare-figure.c — the comparison figure (see compare-figure.h). */
#include "compare-figure.h"

#include <glib/gi18n-lib.h>

#include "token-label.h"

/* A heatmap panel of ATTENTION's MATRIX [T][T] (copied) titled TITLE. */
static void
panel (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace, const float *matrix,
       const ArViewSelection *view, char *title)
{
  gsize tt = (gsize) trace->n_tokens * trace->n_tokens;
  ar_heatmap_figure_init (fig);
  fig->title = ar_built_figure_take (built, title);
  fig->n_rows = fig->n_cols = trace->n_tokens;
  fig->values = ar_built_figure_take (built, g_memdup2 (matrix, tt * sizeof (float)));
  fig->row_labels = fig->col_labels
      = ar_built_figure_take_strv (built, ar_token_labels_from_trace (trace, view->raw_tokens));
  fig->row_axis = _ ("Queries");
  fig->col_axis = _ ("Keys");
  fig->colormap = view->colormap;
  fig->annotate = view->annotate;
  fig->mask_upper = trace->causal;
  fig->colorbar_label = _ ("Attention weight");
  ar_sequential_range (fig->values, tt, view->autoscale, &fig->vmin, &fig->vmax);
}

static char *
side_title (const char *side, const char *text)
{
  g_autofree char *quoted = ar_quote_text (text);
  return g_strdup_printf ("%s: %s", side, quoted);
}

static int
partner (const AsComparison *c, int token_a)
{
  for (int i = 0; i < c->n_pairs; i++)
    if (c->pairs[i].a == token_a)
      return c->pairs[i].b;
  return -1;
}

/* The chart: the mean similarity over the pairs, then up to AR_COMPARE_MAX_TOKENS pairs, labelled
 * with A's token labels LABELS_A. */
static void
chart (ArBuiltFigure *built, ArLineFigure *fig, const AsComparison *c, const char *const *labels_a)
{
  int n_tokens = MIN (c->n_pairs, AR_COMPARE_MAX_TOKENS), n_x = c->n_layer + 1;
  int n_series = 1 + n_tokens;
  double *values
      = ar_built_figure_take (built, g_new (double, (gsize) n_series *n_x)); /* [S][L+1] */
  char **names = g_new0 (char *, n_series + 1);
  char **x_labels = g_new0 (char *, n_x + 1);
  names[0] = g_strdup (_ ("mean over shared tokens"));
  for (int x = 0; x < n_x; x++)
    {
      values[x] = c->hidden_mean_similarity[x];
      x_labels[x] = g_strdup_printf ("%d", x);
    }
  for (int s = 1; s < n_series; s++)
    {
      const AsTokenPair *pair = &c->pairs[s - 1];
      names[s] = g_strdup_printf ("%s (%d → %d)", labels_a[pair->a], pair->a, pair->b);
      for (int x = 0; x < n_x; x++)
        values[(gsize) s * n_x + x] = c->hidden_similarity[(gsize) x * c->n_pairs + (s - 1)];
    }
  ar_line_figure_init (fig);
  fig->title = c->n_pairs > n_tokens ? ar_built_figure_take (
                   built, g_strdup_printf (_ ("Hidden-state similarity of shared tokens "
                                              "(first %d of %d)"),
                                           n_tokens, c->n_pairs))
                                     : _ ("Hidden-state similarity of shared tokens");
  fig->n_series = n_series;
  fig->n_x = n_x;
  fig->values = values;
  fig->series_names = ar_built_figure_take_strv (built, names);
  fig->x_labels = ar_built_figure_take_strv (built, x_labels);
  fig->x_axis = _ ("Hidden state (0 = embeddings)");
  fig->y_axis = _ ("Cosine similarity");
}

/* The difference panel B − A of the panels A and B (same size). */
static void
difference (ArBuiltFigure *built, ArHeatmapFigure *fig, const ArHeatmapFigure *pa,
            const ArHeatmapFigure *pb)
{
  gsize tt = (gsize) pa->n_rows * pa->n_cols;
  float *diff = ar_built_figure_take (built, g_new (float, tt)); /* [T][T] */
  for (gsize i = 0; i < tt; i++)
    diff[i] = pb->values[i] - pa->values[i];
  double range = ar_difference_range (diff, tt);
  *fig = *pa;
  fig->values = diff;
  fig->title = _ ("Difference B − A");
  fig->colormap = AR_COLORMAP_RDBU_R;
  fig->vmin = -range;
  fig->vmax = range;
  fig->colorbar = TRUE;
  fig->colorbar_label = _ ("B − A");
  fig->highlight_row = fig->highlight_col = -1;
}

ArBuiltFigure *
ar_build_compare_figure (const ArAttention *a, const ArAttention *b, const AsComparison *comparison,
                         const ArViewSelection *view, const ArFigureTexts *texts)
{
  const float *ma = ar_attention_matrix (a, view), *mb = ar_attention_matrix (b, view);
  if (ma == NULL || mb == NULL)
    return NULL;
  const AsTrace *ta = a->trace, *tb = b->trace;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArFigureParts *parts = ar_built_figure_edit (built);
  ArHeatmapFigure *pa = &parts->heatmap, *pb = &parts->panel_b;
  panel (built, pa, ta, ma, view, side_title ("A", texts->text));
  panel (built, pb, tb, mb, view, side_title ("B", texts->compare_text));
  if (view->autoscale)
    {
      pa->vmin = pb->vmin = MIN (pa->vmin, pb->vmin);
      pa->vmax = pb->vmax = MAX (pa->vmax, pb->vmax);
    }
  pa->colorbar = FALSE; /* one colour bar for both, beside B */
  int selected = view->selected_token < ta->n_tokens ? view->selected_token : -1;
  pa->highlight_row = pa->highlight_col = selected;
  pb->highlight_row = pb->highlight_col = selected >= 0 ? partner (comparison, selected) : -1;

  ArCompareFigure *fig = &parts->compare;
  *fig = (ArCompareFigure){ .a = pa, .b = pb };
  fig->title = ar_built_figure_take (built, ar_attention_title (view, ta->n_head, ta->n_kv_head));
  fig->subtitle = ar_built_figure_take (built, g_strdup (texts->model_name));
  if (comparison->attention_available)
    {
      difference (built, &parts->panel_diff, pa, pb);
      fig->diff = &parts->panel_diff;
    }
  else
    fig->note = ar_built_figure_take (
        built, g_strdup_printf (_ ("No difference panel: the texts have %d and %d tokens; a "
                                   "difference needs equal token counts."),
                                ta->n_tokens, tb->n_tokens));
  if (comparison->n_pairs > 0)
    {
      chart (built, &parts->lines, comparison, pa->row_labels);
      fig->chart = &parts->lines;
    }
  parts->figure = ar_figure_from_compare (fig);
  return built;
}

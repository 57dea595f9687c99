/* compare-figure.c — the comparison figure (see compare-figure.h). */
#include "compare-figure.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "render-text.h"
#include "token-axes.h"

/* The common part of a panel: attention of TRACE's tokens in VIEW's map, titled TITLE. */
static void
panel_init (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace,
            const ArViewSelection *view, char *title)
{
  ar_heatmap_figure_init (fig);
  fig->title = ar_built_figure_take (built, title);
  ar_token_axes_set (built, fig, trace, view);
  fig->row_axis = _ ("Queries");
  fig->col_axis = _ ("Keys");
  fig->colormap = view->colormap;
  fig->log_colors = view->log_colors;
  fig->annotate = view->annotate;
  fig->colorbar_label
      = view->normalize_rows ? _ ("Attention weight ÷ row maximum") : _ ("Attention weight");
}

/* VALUES [N][N] (owned by BUILT) divided by their row maxima when VIEW asks; NaN stay NaN. */
static void
normalize (float *values, int n, const ArViewSelection *view)
{
  if (!view->normalize_rows)
    return;
  for (int i = 0; i < n; i++)
    {
      float *row = values + (gsize) i * n, top = 0;
      for (int j = 0; j < n; j++)
        if (row[j] > top)
          top = row[j];
      for (int j = 0; j < n; j++)
        if (!isnan (row[j]))
          row[j] = top > 0 ? row[j] / top : 0;
    }
}

/* Panel B aligned by token: B's weights in A's order, its cells masked where B's model could not
 * attend and where a token has no partner. */
static void
panel_b_aligned (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *ta, const AsTrace *tb,
                 const AsComparison *c, const float *mb, const ArViewSelection *view,
                 const ArFigureTexts *texts)
{
  int n = ta->n_tokens;
  panel_init (built, fig, ta, view,
              ar_figure_side_title ("B", texts->compare_text, texts->n_compare_tokens,
                                    _ ("in A's token order")));
  float *values = ar_built_figure_take (built, g_new (float, (gsize) n *n)); /* [T_A][T_A] */
  as_compare_align (values, c, mb);
  guint8 *mask = ar_built_figure_take (built, g_new0 (guint8, (gsize) n * n)); /* [T_A][T_A] */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      {
        int pi = c->partner_a[i], pj = c->partner_a[j];
        mask[(gsize) i * n + j] = pi < 0 || pj < 0        ? AR_CELL_NO_PARTNER
                                  : tb->causal && pj > pi ? AR_CELL_MASKED
                                                          : AR_CELL_VALUE;
      }
  normalize (values, n, view);
  fig->values = values;
  fig->cell_mask = mask;
}

/* The difference B − A of panels PA and PB laid out alike; cells without a value in either stay
 * empty, cells masked in both too. The range is printed in the colour bar's label. */
static void
difference (ArBuiltFigure *built, ArHeatmapFigure *fig, const ArHeatmapFigure *pa,
            const ArHeatmapFigure *pb)
{
  gsize nn = (gsize) pa->n_rows * pa->n_cols;
  float *diff = ar_built_figure_take (built, g_new (float, nn)); /* [T][T] */
  guint8 *mask = ar_built_figure_take (built, g_new0 (guint8, nn));
  for (int i = 0; i < pa->n_rows; i++)
    for (int j = 0; j < pa->n_cols; j++)
      {
        gsize k = (gsize) i * pa->n_cols + j;
        ArCellState sa = ar_heatmap_cell_state (pa, i, j), sb = ar_heatmap_cell_state (pb, i, j);
        diff[k] = pb->values[k] - pa->values[k];
        if (sa == AR_CELL_NO_PARTNER || sb == AR_CELL_NO_PARTNER)
          mask[k] = AR_CELL_NO_PARTNER, diff[k] = NAN;
        else if (sa == AR_CELL_MASKED && sb == AR_CELL_MASKED)
          mask[k] = AR_CELL_MASKED;
        /* A cell masked in one text only holds weight 0 there: its difference is the other's. */
        else if (sa == AR_CELL_MASKED)
          diff[k] = pb->values[k];
        else if (sb == AR_CELL_MASKED)
          diff[k] = -pa->values[k];
      }
  double range = ar_difference_range (diff, nn);
  *fig = *pa;
  fig->values = diff;
  fig->cell_mask = mask;
  fig->mask_upper = FALSE;
  fig->title = _ ("Difference B − A");
  fig->colormap = AR_COLORMAP_RDBU_R;
  fig->log_colors = FALSE;
  fig->vmin = -range;
  fig->vmax = range;
  /* Enough decimals to tell the largest differences apart. */
  fig->decimals = MAX (2, (int) (1 - floor (log10 (range))));
  g_autofree char *r = ar_format_number (range, fig->decimals);
  /* Translators: the colour bar of a difference; %s is its range, e.g. "0.047". */
  fig->colorbar_label = ar_built_figure_take (built, g_strdup_printf (_ ("B − A (±%s)"), r));
  fig->colorbar = TRUE;
  fig->highlight_row = fig->highlight_col = -1;
}

/* Row labels for a difference by position: "a" where A and B have the same token there, "a / b"
 * where they differ. */
static const char *const *
position_labels (ArBuiltFigure *built, const ArHeatmapFigure *pa, const ArHeatmapFigure *pb)
{
  char **labels = g_new0 (char *, pa->n_rows + 1);
  for (int i = 0; i < pa->n_rows; i++)
    labels[i] = g_strcmp0 (pa->row_labels[i], pb->row_labels[i]) == 0
                    ? g_strdup (pa->row_labels[i])
                    : g_strdup_printf ("%s / %s", pa->row_labels[i], pb->row_labels[i]);
  return ar_built_figure_take_strv (built, labels);
}

static int
partner (const AsComparison *c, int token_a)
{
  return token_a >= 0 && token_a < c->n_tokens_a ? c->partner_a[token_a] : -1;
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

/* Colour ranges: one for both panels, or (autoscale_each) each its own. */
static void
panel_ranges (ArHeatmapFigure *pa, ArHeatmapFigure *pb, const ArViewSelection *view)
{
  ArHeatmapFigure *panels[2] = { pa, pb };
  for (int k = 0; k < 2; k++)
    {
      ArHeatmapFigure *p = panels[k];
      ar_heatmap_view_range (view, p, &p->vmin, &p->vmax);
    }
  if (view->autoscale && !view->autoscale_each)
    {
      pa->vmin = pb->vmin = MIN (pa->vmin, pb->vmin);
      pa->vmax = pb->vmax = MAX (pa->vmax, pb->vmax);
    }
  /* One colour bar for both, beside B, unless their ranges differ. */
  pa->colorbar = pa->vmin != pb->vmin || pa->vmax != pb->vmax;
  pa->clipped = ar_heatmap_find_clipped (pa);
  pb->clipped = ar_heatmap_find_clipped (pb);
  if (!pa->colorbar)
    pb->clipped = pb->clipped || pa->clipped;
}

ArBuiltFigure *
ar_build_compare_figure (const ArAttention *a, const ArAttention *b, const AsComparison *comparison,
                         const ArViewSelection *view, const ArFigureTexts *texts)
{
  g_autofree float *owned_a = NULL, *owned_b = NULL;
  const float *ma = ar_attention_matrix (a, view, &owned_a); /* [T_A][T_A] */
  const float *mb = ar_attention_matrix (b, view, &owned_b); /* [T_B][T_B] */
  if (ma == NULL || mb == NULL)
    return NULL;
  const AsTrace *ta = a->trace, *tb = b->trace;
  gboolean by_token = view->alignment == AS_ALIGN_TOKENS;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArFigureParts *parts = ar_built_figure_edit (built);
  ArHeatmapFigure *pa = &parts->heatmap, *pb = &parts->panel_b;
  panel_init (built, pa, ta, view, ar_figure_side_title ("A", texts->text, texts->n_tokens, NULL));
  float *va = ar_built_figure_take (
      built, g_memdup2 (ma, sizeof (float) * ta->n_tokens * (gsize) ta->n_tokens));
  normalize (va, ta->n_tokens, view);
  pa->values = va;
  pa->mask_upper = ta->causal;
  int selected = view->selected_token < ta->n_tokens ? view->selected_token : -1;
  pa->highlight_row = pa->highlight_col = selected;
  if (by_token)
    {
      panel_b_aligned (built, pb, ta, tb, comparison, mb, view, texts);
      pb->highlight_row = pb->highlight_col = selected;
    }
  else
    {
      panel_init (built, pb, tb, view,
                  ar_figure_side_title ("B", texts->compare_text, texts->n_compare_tokens, NULL));
      float *vb = ar_built_figure_take (
          built, g_memdup2 (mb, sizeof (float) * tb->n_tokens * (gsize) tb->n_tokens));
      normalize (vb, tb->n_tokens, view);
      pb->values = vb;
      pb->mask_upper = tb->causal;
      pb->highlight_row = pb->highlight_col = partner (comparison, selected);
    }
  panel_ranges (pa, pb, view);

  ArCompareFigure *fig = &parts->compare;
  *fig = (ArCompareFigure){ .a = pa, .b = pb };
  fig->title = ar_built_figure_take (built, ar_attention_title (view, ta->n_head, ta->n_kv_head));
  fig->subtitle = ar_built_figure_take (built, g_strdup (texts->model_name));
  if (by_token || comparison->attention_available)
    {
      difference (built, &parts->panel_diff, pa, pb);
      if (!by_token)
        parts->panel_diff.row_labels = parts->panel_diff.col_labels
            = position_labels (built, pa, pb);
      fig->diff = &parts->panel_diff;
    }
  if (by_token)
    fig->note = comparison->n_unmatched_a + comparison->n_unmatched_b == 0
                    ? _ ("Aligned by token: B's weights in A's order, the k-th occurrence of a "
                         "token with the k-th.")
                    : ar_built_figure_take (
                        built, g_strdup_printf (_ ("Aligned by token: B's weights in A's order; "
                                                   "%d of A's %d tokens have a partner in B."),
                                                comparison->n_pairs, ta->n_tokens));
  else
    fig->note = comparison->attention_available
                    ? _ ("Aligned by position: row i of A against row i of B.")
                    : ar_built_figure_take (
                        built, g_strdup_printf (_ ("Aligned by position: no difference panel, "
                                                   "the texts have %d and %d tokens."),
                                                ta->n_tokens, tb->n_tokens));
  if (comparison->n_pairs > 0)
    {
      chart (built, &parts->lines, comparison, pa->row_labels);
      fig->chart = &parts->lines;
    }
  parts->figure = ar_figure_from_compare (fig);
  return built;
}

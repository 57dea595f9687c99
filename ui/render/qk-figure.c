/* qk-figure.c — the query–key view's heatmap (see qk-figure.h). */
#include "qk-figure.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "render-text.h"
#include "token-label.h"

/* Row labels: each seen key's index, token and softmax weight (owned strv); KEYS [n] the key
 * indices, TOKENS [T] the tokens' labels. */
static char **
key_labels (const AsQk *qk, char **tokens, const int *keys, int n)
{
  char **out = g_new0 (char *, n + 1);
  for (int r = 0; r < n; r++)
    {
      g_autofree char *p = ar_format_number (qk->probs[keys[r]], 2);
      out[r] = g_strdup_printf ("%d %s · %s", keys[r], tokens[keys[r]], p);
    }
  return out;
}

static char **
dim_labels (const AsQk *qk, int n_dims)
{
  char **out = g_new0 (char *, n_dims + 2);
  for (int c = 0; c < n_dims; c++)
    out[c] = g_strdup_printf ("d%d", qk->top_dims[c]);
  out[n_dims] = g_strdup (_ ("score"));
  return out;
}

ArBuiltFigure *
ar_build_qk_figure (const AsQk *qk, const AsTrace *trace, const ArFigureTexts *texts,
                    const ArViewSelection *view)
{
  int S = qk->n_keys, hd = qk->head_dim, D = MIN (hd, AR_QK_FIGURE_DIMS), C = D + 1;
  g_autofree int *keys = g_new (int, S); /* [n] the keys the query sees */
  int n = 0;
  for (int j = 0; j < S; j++)
    if (isfinite (qk->scores[j]))
      keys[n++] = j;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  float *values = ar_built_figure_take (built, g_new (float, (gsize) MAX (n, 1) * C)); /* [n][C] */
  double largest = 0.0;
  for (int r = 0; r < n; r++)
    {
      const float *products = qk->products + (gsize) keys[r] * hd;
      for (int c = 0; c < D; c++)
        values[r * C + c] = products[qk->top_dims[c]] * qk->scale;
      values[r * C + D] = qk->scores[keys[r]];
      for (int c = 0; c < C; c++)
        largest = MAX (largest, fabs (values[r * C + c]));
    }
  if (largest == 0.0)
    largest = 1.0;
  fig->n_rows = n;
  fig->n_cols = C;
  fig->values = values;
  g_auto (GStrv) tokens
      = ar_token_labels_from_trace (trace, ar_view_selection_label_flags (view)); /* [T] */
  fig->row_labels = ar_built_figure_take_strv (built, key_labels (qk, tokens, keys, n));
  fig->col_labels = ar_built_figure_take_strv (built, dim_labels (qk, D));
  fig->row_axis = _ ("Key · softmax weight");
  fig->col_axis = _ ("Dimension (largest first)");
  fig->colormap = AR_COLORMAP_RDBU_R;
  fig->vmin = -largest;
  fig->vmax = largest;
  fig->annotate = view->annotate;
  fig->label_mode = AR_LABELS_ALL;
  fig->highlight_row = -1;
  fig->highlight_col = -1;
  fig->colorbar_label = _ ("Added to the score");
  const char *label = tokens[qk->query];
  fig->title = ar_built_figure_take (
      built, g_strdup_printf (_ ("Query–key view · layer %d, head %d · query %d “%s”"), qk->layer,
                              qk->head, qk->query, label));
  g_autofree char *texts_line = ar_figure_texts_subtitle (texts, AR_SUBTITLE_TEXT);
  g_autofree char *how
      = qk->kv_head != qk->head
            ? g_strdup_printf (_ ("key/value head %d · cell: q_d·k_d·scale (scale %.4g); "
                                  "colours ±%.3f"),
                               qk->kv_head, qk->scale, largest)
            : g_strdup_printf (_ ("cell: q_d·k_d·scale (scale %.4g); colours ±%.3f"), qk->scale,
                               largest);
  fig->subtitle = ar_built_figure_take (built, g_strdup_printf ("%s\n%s", texts_line, how));
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

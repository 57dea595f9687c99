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

/* The query as the figure shows it: before RoPE when VIEW asks and the model rotates, else as the
 * scores use it ([hd], QK's). */
static const float *
shown_q (const AsQk *qk, const ArViewSelection *view)
{
  return view->qk_before_rope && qk->q_before_rope != NULL ? qk->q_before_rope : qk->q;
}

/* Column labels: each dimension with the query's value there, "d12 · q 0.53", and the score. */
static char **
dim_labels (const AsQk *qk, const float *q, int n_dims)
{
  char **out = g_new0 (char *, n_dims + 2);
  for (int c = 0; c < n_dims; c++)
    {
      g_autofree char *value = ar_format_number (q[qk->top_dims[c]], 2);
      out[c] = g_strdup_printf ("d%d · q %s", qk->top_dims[c], value);
    }
  out[n_dims] = g_strdup (_ ("score"));
  return out;
}

/* "q after RoPE: ‖q‖ 3.21 = (0.12, −0.5, …)" — the query the columns show, its norm and its first
 * dimensions in order. Newly allocated. */
static char *
q_summary (const AsQk *qk, const float *q)
{
  double norm = 0.0;
  for (int d = 0; d < qk->head_dim; d++)
    norm += (double) q[d] * q[d];
  GString *first = g_string_new (NULL);
  int shown = MIN (qk->head_dim, 6);
  for (int d = 0; d < shown; d++)
    {
      g_autofree char *v = ar_format_number (q[d], 2);
      g_string_append_printf (first, "%s%s", d > 0 ? ", " : "", v);
    }
  if (shown < qk->head_dim)
    g_string_append (first, ", …");
  g_autofree char *values = g_string_free (first, FALSE);
  g_autofree char *n = ar_format_number (norm > 0.0 ? sqrt (norm) : 0.0, 2);
  const char *which = qk->q_before_rope == NULL ? _ ("q")
                      : q == qk->q_before_rope  ? _ ("q before RoPE")
                                                : _ ("q after RoPE");
  /* Translators: the query–key view's query: "q after RoPE: ‖q‖ 3.2 = (0.12, −0.5, …)". */
  return g_strdup_printf (_ ("%s: ‖q‖ %s = (%s)"), which, n, values);
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
  const float *q = shown_q (qk, view);
  fig->col_labels = ar_built_figure_take_strv (built, dim_labels (qk, q, D));
  fig->row_axis = _ ("Key · softmax weight");
  fig->col_axis = _ ("Dimension (largest first) · the query's value there");
  fig->colormap = AR_COLORMAP_RDBU_R;
  fig->vmin = -largest;
  fig->vmax = largest;
  fig->annotate = view->annotate;
  fig->label_mode = AR_LABELS_ALL;
  fig->highlight_row = -1;
  fig->highlight_col = -1;
  fig->colorbar_label = _ ("Added to the score");
  const char *label = tokens[qk->query];
  g_autofree char *title
      = g_strdup_printf (_ ("Query–key view · layer %d, head %d · query %d “%s”"), qk->layer,
                         qk->head, qk->query, label);
  if (qk->kv_head != qk->head)
    {
      /* Translators: the query–key view's title and the key/value head grouped-query attention
       * shares. */
      char *kv = g_strdup_printf (_ ("%s · key/value head %d"), title, qk->kv_head);
      g_free (title);
      title = kv;
    }
  fig->title = ar_built_figure_take (built, g_steal_pointer (&title));
  g_autofree char *texts_line = ar_figure_texts_subtitle (texts, AR_SUBTITLE_TEXT);
  g_autofree char *q_line = q_summary (qk, q);
  g_autofree char *how
      = qk->kv_head != qk->head
            ? g_strdup_printf (_ ("key/value head %d · cell: q_d·k_d·scale (scale %.4g); "
                                  "colours ±%.3f"),
                               qk->kv_head, qk->scale, largest)
            : g_strdup_printf (_ ("cell: q_d·k_d·scale (scale %.4g); colours ±%.3f"), qk->scale,
                               largest);
  fig->subtitle
      = ar_built_figure_take (built, g_strdup_printf ("%s\n%s · %s", texts_line, q_line, how));
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

/* lens-figure.c — the logit lens's table and chart (see lens-figure.h). */
#include "lens-figure.h"

#include <glib/gi18n-lib.h>

#include "token-axes.h"
#include "token-label.h"

/* "0 (embeddings)", "1", ..., "L (output)": the hidden states, as HF numbers them. */
static char **
hidden_labels (int n_hidden)
{
  char **labels = g_new0 (char *, n_hidden + 1);
  for (int i = 0; i < n_hidden; i++)
    labels[i] = i == 0              ? g_strdup (_ ("0 embeddings"))
                : i == n_hidden - 1 ? g_strdup_printf (_ ("%d output"), i)
                                    : g_strdup_printf ("%d", i);
  return labels;
}

ArBuiltFigure *
ar_build_lens_figure (const AsLens *lens, const AsTrace *trace, const ArViewSelection *view,
                      const ArFigureTexts *texts)
{
  g_return_val_if_fail (lens->n_positions == trace->n_tokens, NULL);
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  ArViewSelection tokens = *view;
  tokens.pool_words = FALSE;
  ar_token_axes_set (built, fig, trace, &tokens);
  if (fig->label_mode == AR_LABELS_WORDS)
    fig->label_mode = AR_LABELS_THINNED;
  int R = lens->n_hidden, T = lens->n_positions;
  fig->n_rows = R;
  fig->row_labels = ar_built_figure_take_strv (built, hidden_labels (R));
  fig->highlight_row = -1;
  fig->highlight_col = view->selected_token < T ? view->selected_token : -1;
  float *values = ar_built_figure_take (built, g_new (float, (gsize) R *T)); /* [R][T] */
  char **cells = g_new0 (char *, (gsize) R *T + 1);                          /* [R][T] */
  for (int i = 0; i < R; i++)
    for (int p = 0; p < T; p++)
      {
        const AsLensCell *cell = as_lens_cell (lens, i, p);
        values[(gsize) i * T + p] = cell->n_top > 0 ? cell->top[0].probability : 0.0f;
        cells[(gsize) i * T + p]
            = cell->n_top > 0
                  ? ar_token_label (cell->top[0].token, cell->top[0].token, view->raw_tokens)
                  : g_strdup ("");
      }
  fig->values = values;
  fig->cell_labels = ar_built_figure_take_strv (built, cells);
  fig->title = _ ("Logit lens: the top token of every hidden state");
  fig->subtitle = ar_built_figure_take (
      built, ar_figure_texts_subtitle (texts, trace->source != NULL ? AR_SUBTITLE_TARGET
                                                                    : AR_SUBTITLE_TEXT));
  fig->row_axis = _ ("Hidden state");
  fig->col_axis = _ ("Position");
  fig->colorbar_label = _ ("Probability of the top token");
  fig->vmin = 0.0;
  fig->vmax = 1.0;
  fig->colormap = view->colormap;
  fig->annotate = view->annotate;
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

ArBuiltFigure *
ar_build_lens_chart_figure (const AsLens *lens, const AsTrace *trace, const char *token,
                            const ArFigureTexts *texts)
{
  g_return_val_if_fail (lens->n_positions == 1 && lens->target_id >= 0, NULL);
  ArBuiltFigure *built = ar_built_figure_new ();
  ArLineFigure *fig = &ar_built_figure_edit (built)->lines;
  ar_line_figure_init (fig);
  int R = lens->n_hidden;
  double *values = ar_built_figure_take (built, g_new (double, R)); /* [1][R] */
  char **x_labels = g_new0 (char *, R + 1);
  for (int i = 0; i < R; i++)
    {
      const AsLensCell *cell = as_lens_cell (lens, i, 0);
      values[i] = cell->target_probability;
      /* "3:#12": hidden state 3, rank 12 counted from 1 for the reader (#1 = the top token) */
      x_labels[i] = g_strdup_printf ("%d:#%d", i, cell->target_rank + 1);
    }
  g_autofree char *label = ar_token_label (token, token, FALSE);
  int position = lens->positions[0];
  g_autofree char *at
      = ar_token_label (trace->tokens[position],
                        trace->token_texts != NULL ? trace->token_texts[position] : NULL, FALSE);
  fig->title = ar_built_figure_take (
      built,
      g_strdup_printf (_ ("Logit lens: “%s” at position %d (“%s”) through the hidden states"),
                       label, position, at));
  fig->subtitle = ar_built_figure_take (
      built, ar_figure_texts_subtitle (texts, trace->source != NULL ? AR_SUBTITLE_TARGET
                                                                    : AR_SUBTITLE_TEXT));
  fig->n_series = 1;
  fig->n_x = R;
  fig->values = values;
  char **names = g_new0 (char *, 2);
  names[0] = g_strdup_printf ("“%s”", label);
  fig->series_names = ar_built_figure_take_strv (built, names);
  fig->x_labels = ar_built_figure_take_strv (built, x_labels);
  fig->x_axis = _ ("Hidden state:#rank");
  fig->y_axis = _ ("Probability");
  fig->ymin = 0.0;
  fig->ymax = 1.0;
  ar_built_figure_edit (built)->figure = ar_figure_from_lines (fig);
  return built;
}

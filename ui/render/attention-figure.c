/* attention-figure.c — the attention heatmap and the heads grid (see attention-figure.h). */
#include "attention-figure.h"

#include <glib/gi18n-lib.h>

#include "token-label.h"

ArBuiltFigure *
ar_build_attention_figure (const ArAttention *attention, const ArViewSelection *view,
                           const ArFigureTexts *texts)
{
  const AsTrace *t = attention->trace;
  const float *matrix = ar_attention_matrix (attention, view); /* [T][T] */
  if (matrix == NULL)
    return NULL;
  gsize tt = (gsize) t->n_tokens * t->n_tokens;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  if (view->aggregate == AR_AGGREGATE_HEAD)
    {
      /* The head's matrix is the trace's own: borrowed, not copied. */
      ar_built_figure_keep_trace (built, t);
      fig->values = matrix;
    }
  else
    fig->values = ar_built_figure_take (built, g_memdup2 (matrix, tt * sizeof (float)));
  fig->n_rows = fig->n_cols = t->n_tokens;
  fig->row_labels = fig->col_labels
      = ar_built_figure_take_strv (built, ar_token_labels_from_trace (t, view->raw_tokens));
  fig->row_axis = _ ("Queries");
  fig->col_axis = _ ("Keys");
  fig->title = ar_built_figure_take (built, ar_attention_title (view, t->n_head, t->n_kv_head));
  fig->subtitle = ar_built_figure_take (built, ar_figure_subtitle (texts->model_name, texts->text));
  fig->colormap = view->colormap;
  ar_sequential_range (fig->values, tt, view->autoscale, &fig->vmin, &fig->vmax);
  fig->annotate = view->annotate;
  fig->mask_upper = t->causal;
  fig->highlight_row = fig->highlight_col
      = view->selected_token < t->n_tokens ? view->selected_token : -1;
  fig->colorbar_label
      = view->aggregate == AR_AGGREGATE_ROLLOUT ? _ ("Rollout weight") : _ ("Attention weight");
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

ArBuiltFigure *
ar_build_grid_figure (const ArAttention *attention, const AsHeadStats *stats,
                      const ArViewSelection *view, const ArFigureTexts *texts)
{
  const AsTrace *trace = attention->trace;
  g_return_val_if_fail (stats->n_layer == trace->n_layer && stats->n_head == trace->n_head, NULL);
  if (view->autoscale && attention->range == NULL)
    return NULL;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArGridFigure *fig = &ar_built_figure_edit (built)->grid;
  ar_grid_figure_init (fig);
  ar_built_figure_keep_trace (built, trace);
  gsize n_heads = (gsize) trace->n_layer * trace->n_head;
  fig->title = _ ("All heads");
  fig->subtitle = ar_built_figure_take (built, ar_figure_subtitle (texts->model_name, texts->text));
  fig->n_layers = trace->n_layer;
  fig->n_heads = trace->n_head;
  fig->n_kv_heads = trace->n_kv_head;
  fig->n_tokens = trace->n_tokens;
  fig->attn = trace->attn;
  fig->patterns
      = ar_built_figure_take (built, g_memdup2 (stats->patterns, n_heads * sizeof (AsHeadPattern)));
  fig->colormap = view->colormap;
  fig->vmin = 0, fig->vmax = 1;
  if (view->autoscale && attention->range[1] > attention->range[0])
    fig->vmin = attention->range[0], fig->vmax = attention->range[1];
  fig->mask_upper = trace->causal;
  gboolean one_head = view->aggregate == AR_AGGREGATE_HEAD;
  fig->highlight_layer = one_head ? view->layer : -1;
  fig->highlight_head = one_head ? view->head : -1;
  fig->colorbar_label = _ ("Attention weight");
  ar_built_figure_edit (built)->figure = ar_figure_from_grid (fig);
  return built;
}

/* cross-figure.c — the cross-attention heatmap, its heads grid and the alignment figure (see
 * cross-figure.h). */
#include "cross-figure.h"

#include <glib/gi18n-lib.h>

#include "attention-figure.h"
#include "token-label.h"

const float *
ar_cross_matrix (const ArCrossAttention *cross, const ArViewSelection *view)
{
  const AsTrace *t = cross->trace;
  g_return_val_if_fail (t->cross_attn != NULL, NULL);
  g_return_val_if_fail (view->layer >= 0 && view->layer < t->n_layer, NULL);
  switch (view->aggregate)
    {
    case AR_AGGREGATE_MEAN:
      return cross->mean_heads != NULL
                 ? cross->mean_heads + (gsize) view->layer * t->n_tokens * t->source->n_tokens
                 : NULL;
    case AR_AGGREGATE_ROLLOUT:
      return NULL;
    case AR_AGGREGATE_HEAD:
    default:
      g_return_val_if_fail (view->head >= 0 && view->head < t->n_head, NULL);
      return as_trace_cross_attn (t, view->layer, view->head);
    }
}

ArBuiltFigure *
ar_build_cross_attention_figure (const ArCrossAttention *cross, const ArViewSelection *view,
                                 const ArFigureTexts *texts)
{
  const AsTrace *t = cross->trace;
  const float *matrix = ar_cross_matrix (cross, view); /* [T][S] */
  if (matrix == NULL)
    return NULL;
  int T = t->n_tokens, S = t->source->n_tokens;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  ar_built_figure_keep_trace (built, t);
  if (view->aggregate == AR_AGGREGATE_HEAD && !view->normalize_rows)
    fig->values = matrix; /* the trace's own */
  else
    fig->values = ar_built_figure_take (built, g_memdup2 (matrix, (gsize) T * S * sizeof (float)));
  if (view->normalize_rows)
    ar_normalize_rows ((float *) fig->values, fig->values, T, S);
  ArTokenLabelFlags flags = ar_view_selection_label_flags (view);
  fig->n_rows = T;
  fig->n_cols = S;
  fig->row_labels = ar_built_figure_take_strv (built, ar_token_labels_from_trace (t, flags));
  fig->col_labels
      = ar_built_figure_take_strv (built, ar_token_labels_from_trace (t->source, flags));
  /* words need the same tokens on both axes */
  fig->label_mode = view->labels == AR_LABELS_ALL ? AR_LABELS_ALL : AR_LABELS_THINNED;
  fig->highlight_row
      = view->selected_token >= 0 && view->selected_token < T ? view->selected_token : -1;
  fig->row_axis = _ ("Target tokens (queries)");
  fig->col_axis = _ ("Source tokens (keys)");
  ArViewSelection cross_view = *view;
  cross_view.kind = AR_ATTENTION_CROSS;
  fig->title
      = ar_built_figure_take (built, ar_attention_kind_title (&cross_view, t->n_head, 0, TRUE));
  fig->subtitle = ar_built_figure_take (built, ar_figure_texts_subtitle (texts, AR_SUBTITLE_TEXT));
  fig->colormap = view->colormap;
  ar_heatmap_view_range (view, fig, &fig->vmin, &fig->vmax);
  fig->clipped = ar_heatmap_find_clipped (fig);
  fig->log_colors = view->log_colors;
  fig->annotate = view->annotate;
  fig->colorbar_label
      = view->normalize_rows ? _ ("Attention weight ÷ row maximum") : _ ("Attention weight");
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

ArBuiltFigure *
ar_build_cross_grid_figure (const ArCrossAttention *cross, const AsCrossStats *stats,
                            const ArViewSelection *view, const ArFigureTexts *texts)
{
  const AsTrace *t = cross->trace;
  g_return_val_if_fail (stats->n_layer == t->n_layer && stats->n_head == t->n_head, NULL);
  ArViewSelection cross_view = *view;
  cross_view.kind = AR_ATTENTION_CROSS;
  ArHeadsGridSource source = {
    .trace = t,
    .attn = t->cross_attn,
    .n_keys = t->source->n_tokens,
    .n_kv_heads = t->n_head,
    .causal = FALSE,
    .range = cross->range,
    .head_ranges = cross->head_ranges,
    .title = ar_all_heads_title (&cross_view, TRUE),
  };
  ArBuiltFigure *built = ar_build_heads_grid (&source, view, texts);
  if (built == NULL)
    return NULL;
  ArGridFigure *fig = &ar_built_figure_edit (built)->grid;
  gsize n_heads = (gsize) t->n_layer * t->n_head;
  fig->pattern_labels = ar_built_figure_take (
      built, g_memdup2 (stats->labels, n_heads * sizeof (const char *))); /* static strings */
  ar_built_figure_edit (built)->figure = ar_figure_from_grid (fig);
  return built;
}

ArBuiltFigure *
ar_build_alignment_figure (const ArCrossAttention *cross, const ArViewSelection *view,
                           const ArFigureTexts *texts)
{
  const AsTrace *t = cross->trace;
  const float *matrix = ar_cross_matrix (cross, view); /* [T][S] */
  if (matrix == NULL)
    return NULL;
  int T = t->n_tokens, S = t->source->n_tokens;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArAlignmentFigure *fig = &ar_built_figure_edit (built)->alignment;
  ar_alignment_figure_init (fig);
  if (view->aggregate == AR_AGGREGATE_HEAD)
    {
      ar_built_figure_keep_trace (built, t);
      fig->weights = matrix;
    }
  else
    fig->weights = ar_built_figure_take (built, g_memdup2 (matrix, (gsize) T * S * sizeof (float)));
  ArTokenLabelFlags flags = ar_view_selection_label_flags (view);
  fig->n_source = S;
  fig->n_target = T;
  fig->source_labels
      = ar_built_figure_take_strv (built, ar_token_labels_from_trace (t->source, flags));
  fig->target_labels = ar_built_figure_take_strv (built, ar_token_labels_from_trace (t, flags));
  fig->vmax = 1;
  if (view->autoscale)
    {
      double lo = 0, hi = 1;
      ar_sequential_range (matrix, (gsize) T * S, TRUE, &lo, &hi);
      fig->vmax = hi > 0 ? hi : 1;
    }
  fig->source_caption = _ ("Source");
  fig->target_caption = _ ("Target");
  fig->highlight_target
      = view->selected_token >= 0 && view->selected_token < T ? view->selected_token : -1;
  ArViewSelection cross_view = *view;
  cross_view.kind = AR_ATTENTION_CROSS;
  g_autofree char *title = ar_attention_kind_title (&cross_view, t->n_head, 0, TRUE);
  /* Translators: the alignment figure's title: "Cross-attention · layer 1 · head 2 · alignment" */
  fig->title = ar_built_figure_take (built, g_strdup_printf (_ ("%s · alignment"), title));
  fig->subtitle = ar_built_figure_take (built, ar_figure_texts_subtitle (texts, AR_SUBTITLE_TEXT));
  ar_built_figure_edit (built)->figure = ar_figure_from_alignment (fig);
  return built;
}

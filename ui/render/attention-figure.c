/* attention-figure.c — the attention heatmap and the heads grid (see attention-figure.h). */
#include "attention-figure.h"

#include <glib/gi18n-lib.h>

#include "token-axes.h"

/* The colour bar's label for VIEW's attention. */
static const char *
attention_colorbar_label (const ArViewSelection *view)
{
  if (view->normalize_rows)
    return view->aggregate == AR_AGGREGATE_ROLLOUT ? _ ("Rollout weight ÷ row maximum")
                                                   : _ ("Attention weight ÷ row maximum");
  return view->aggregate == AR_AGGREGATE_ROLLOUT ? _ ("Rollout weight") : _ ("Attention weight");
}

const char *
ar_all_heads_title (const ArViewSelection *view, gboolean translation)
{
  if (view->kind == AR_ATTENTION_ENCODER)
    return _ ("Encoder self-attention · all heads");
  if (view->kind == AR_ATTENTION_CROSS)
    return _ ("Cross-attention · all heads");
  return translation ? _ ("Decoder self-attention · all heads") : _ ("All heads");
}

ArBuiltFigure *
ar_build_attention_figure (const ArAttention *attention, const ArViewSelection *view,
                           const ArFigureTexts *texts)
{
  const AsTrace *t = attention->trace;
  const float *matrix = ar_attention_matrix (attention, view); /* [T][T] */
  if (matrix == NULL)
    return NULL;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  if (view->pool_words)
    {
      g_autoptr (ArWordSpans) spans
          = ar_word_spans_from_trace (t, ar_view_selection_label_flags (view));
      float *pooled = ar_built_figure_take (
          built, g_new (float, (gsize) spans->n_words * spans->n_words)); /* [W][W] */
      ar_word_pool_attention (pooled, matrix, spans);
      fig->values = pooled;
      ar_token_axes_set_words (built, fig, t, spans, view);
    }
  else
    {
      if (view->aggregate == AR_AGGREGATE_HEAD && !view->normalize_rows)
        {
          /* The head's matrix is the trace's own: borrowed, not copied. */
          ar_built_figure_keep_trace (built, t);
          fig->values = matrix;
        }
      else
        fig->values = ar_built_figure_take (
            built, g_memdup2 (matrix, (gsize) t->n_tokens * t->n_tokens * sizeof (float)));
      ar_token_axes_set (built, fig, t, view);
      /* the selection is a target token: the encoder's tokens are the source's */
      fig->highlight_row = fig->highlight_col
          = view->selected_token < t->n_tokens && view->kind != AR_ATTENTION_ENCODER
                ? view->selected_token
                : -1;
    }
  if (view->normalize_rows)
    ar_normalize_rows ((float *) fig->values, fig->values, fig->n_rows, fig->n_cols);
  fig->row_axis = _ ("Queries");
  fig->col_axis = _ ("Keys");
  gboolean translation = t->source != NULL || texts->target_text != NULL;
  g_autofree char *title = ar_attention_kind_title (view, t->n_head, t->n_kv_head, translation);
  fig->title
      = ar_built_figure_take (built, view->pool_words ? g_strdup_printf (_ ("%s · words"), title)
                                                      : g_steal_pointer (&title));
  fig->subtitle = ar_built_figure_take (built, ar_figure_texts_subtitle (texts));
  fig->colormap = view->colormap;
  ar_view_range (view, fig->values, (gsize) fig->n_rows * fig->n_cols, &fig->vmin, &fig->vmax);
  fig->log_colors = view->log_colors;
  fig->annotate = view->annotate;
  fig->mask_upper = t->causal;
  fig->colorbar_label = attention_colorbar_label (view);
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

ArBuiltFigure *
ar_build_grid_figure (const ArAttention *attention, const AsHeadStats *stats,
                      const ArViewSelection *view, const ArFigureTexts *texts)
{
  const AsTrace *trace = attention->trace;
  g_return_val_if_fail (stats->n_layer == trace->n_layer && stats->n_head == trace->n_head, NULL);
  gboolean each = view->autoscale && view->autoscale_each;
  if ((view->autoscale && attention->range == NULL) || (each && attention->head_ranges == NULL))
    return NULL;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArGridFigure *fig = &ar_built_figure_edit (built)->grid;
  ar_grid_figure_init (fig);
  ar_built_figure_keep_trace (built, trace);
  gsize n_heads = (gsize) trace->n_layer * trace->n_head;
  fig->title = ar_all_heads_title (view, trace->source != NULL || texts->target_text != NULL);
  fig->subtitle = ar_built_figure_take (built, ar_figure_texts_subtitle (texts));
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
  fig->log_colors = view->log_colors;
  if (view->log_colors)
    fig->vmin = MAX (view->autoscale ? fig->vmin : 0, (view->autoscale ? 1e-4 : 1e-3) * fig->vmax);
  if (each)
    {
      fig->head_ranges = ar_built_figure_take (
          built, g_memdup2 (attention->head_ranges, 2 * n_heads * sizeof (double)));
      /* Translators: the ends of a colour bar whose range differs from head to head. */
      fig->colorbar_low = _ ("min");
      fig->colorbar_high = _ ("max");
    }
  fig->mask_upper = trace->causal;
  gboolean one_head = view->aggregate == AR_AGGREGATE_HEAD;
  fig->highlight_layer = one_head ? view->layer : -1;
  fig->highlight_head = one_head ? view->head : -1;
  fig->colorbar_label
      = each ? _ ("Attention weight (each head its own range)") : _ ("Attention weight");
  ar_built_figure_edit (built)->figure = ar_figure_from_grid (fig);
  return built;
}

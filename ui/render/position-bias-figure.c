/* position-bias-figure.c — the position-bias heatmap (see position-bias-figure.h). */
#include "position-bias-figure.h"

#include <glib/gi18n-lib.h>

#include "token-axes.h"

ArBuiltFigure *
ar_build_position_bias_figure (const AsTrace *trace, int head, const ArViewSelection *view,
                               const ArFigureTexts *texts)
{
  g_return_val_if_fail (as_trace_has_position_bias (trace), NULL);
  g_return_val_if_fail (head >= 0 && head < trace->n_head, NULL);
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  ar_token_axes_set (built, fig, trace, view);
  fig->highlight_row = fig->highlight_col
      = view->selected_token < trace->n_tokens ? view->selected_token : -1;
  gsize T = trace->n_tokens, nn = T * T;
  /* umT5 keeps a block per layer: the view's layer's (T5's every layer reads the one block) */
  int layer = CLAMP (view->layer, 0, trace->n_layer - 1);
  if (trace->n_position_bias > 1)
    fig->title = ar_built_figure_take (
        built,
        trace->causal
            ? g_strdup_printf (_ ("Position bias of decoder layer %d head %d"), layer, head)
            : g_strdup_printf (_ ("Position bias of encoder layer %d head %d"), layer, head));
  else
    fig->title = ar_built_figure_take (
        built, trace->causal
                   ? g_strdup_printf (_ ("Position bias of decoder head %d (every layer)"), head)
                   : g_strdup_printf (_ ("Position bias of encoder head %d (every layer)"), head));
  fig->subtitle = ar_built_figure_take (
      built, ar_figure_texts_subtitle (texts, trace->source != NULL ? AR_SUBTITLE_TARGET
                                              : trace->causal       ? AR_SUBTITLE_TEXT
                                                                    : AR_SUBTITLE_SOURCE));
  /* [T][T] expanded from the trace's compact [2T−1] */
  fig->values = ar_built_figure_take (built, as_trace_position_bias_head (trace, layer, head));
  fig->colorbar_label = _ ("Added to the score");
  fig->mask_upper = trace->causal;
  gboolean diverging;
  ar_signed_range (fig->values, nn, view->autoscale, &fig->vmin, &fig->vmax, &diverging);
  fig->colormap = diverging ? AR_COLORMAP_RDBU_R : view->colormap;
  fig->annotate = view->annotate;
  fig->decimals = 2;
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

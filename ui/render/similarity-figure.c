/* similarity-figure.c — the similarity heatmap (see similarity-figure.h). */
#include "similarity-figure.h"

#include <glib/gi18n-lib.h>

#include "as-attention-ranges.h"
#include "token-axes.h"

char *
ar_vectors_description (AsVectorSource source, int layer, int head)
{
  switch (source)
    {
    case AS_VECTORS_CONTEXTS:
      return g_strdup_printf (_ ("contexts of layer %d, head %d"), layer, head);
    case AS_VECTORS_ATTN_OUT:
      return g_strdup_printf (_ ("attention outputs of layer %d"), layer);
    case AS_VECTORS_HIDDEN:
      if (layer > 0)
        return g_strdup_printf (_ ("hidden states after layer %d"), layer - 1);
      return g_strdup (_ ("hidden states before layer 0"));
    case AS_VECTORS_TOKEN_EMBEDDINGS:
      return g_strdup (_ ("token embeddings"));
    case AS_VECTORS_EMBEDDINGS:
    default:
      return g_strdup (_ ("embeddings"));
    }
}

ArBuiltFigure *
ar_build_similarity_figure (const AsTrace *trace, GBytes *similarity, const double *finite_range,
                            AsVectorSource source, int layer, int head, const ArViewSelection *view,
                            const ArFigureTexts *texts)
{
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  if (view->pool_words)
    {
      g_autoptr (AsWordSpans) spans = as_word_spans_from_trace (trace);
      ar_token_axes_set_words (built, fig, trace, spans, view);
    }
  else
    {
      ar_token_axes_set (built, fig, trace, view);
      fig->highlight_row = fig->highlight_col
          = view->selected_token < trace->n_tokens ? view->selected_token : -1;
    }
  gsize nn = (gsize) fig->n_rows * fig->n_cols;
  g_autofree char *description = ar_vectors_description (source, layer, head);
  g_autofree char *title = g_strdup_printf (_ ("Cosine similarity of the %s"), description);
  fig->title
      = ar_built_figure_take (built, view->pool_words ? g_strdup_printf (_ ("%s · words"), title)
                                                      : g_steal_pointer (&title));
  fig->subtitle = ar_built_figure_take (
      built, ar_figure_texts_subtitle (texts, trace->source != NULL ? AR_SUBTITLE_TARGET
                                                                    : AR_SUBTITLE_TEXT));
  g_return_val_if_fail (g_bytes_get_size (similarity) == nn * sizeof (float), built);
  fig->values = ar_built_figure_keep_bytes (built, similarity);
  fig->row_axis = fig->col_axis = view->pool_words ? _ ("Words") : _ ("Tokens");
  fig->colorbar_label = _ ("Cosine similarity");
  gboolean diverging;
  double range[2];
  if (finite_range == NULL)
    as_finite_range (fig->values, nn, &range[0], &range[1]);
  ar_signed_range_of (finite_range != NULL ? finite_range : range, view->autoscale, &fig->vmin,
                      &fig->vmax, &diverging);
  fig->colormap = diverging ? AR_COLORMAP_RDBU_R : view->colormap;
  fig->annotate = view->annotate;
  fig->decimals = 3;
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

/* similarity-figure.c — the similarity heatmap (see similarity-figure.h). */
#include "similarity-figure.h"

#include <glib/gi18n-lib.h>

#include "token-label.h"

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
    case AS_VECTORS_EMBEDDINGS:
    default:
      return g_strdup (_ ("embeddings"));
    }
}

ArBuiltFigure *
ar_build_similarity_figure (const AsTrace *trace, const float *similarity, AsVectorSource source,
                            int layer, int head, const ArViewSelection *view,
                            const ArFigureTexts *texts)
{
  int t = trace->n_tokens;
  gsize tt = (gsize) t * t;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  g_autofree char *description = ar_vectors_description (source, layer, head);
  fig->title = ar_built_figure_take (
      built, g_strdup_printf (_ ("Cosine similarity of the %s"), description));
  fig->subtitle = ar_built_figure_take (built, ar_figure_subtitle (texts->model_name, texts->text));
  fig->n_rows = fig->n_cols = t;
  fig->values = ar_built_figure_take (built, g_memdup2 (similarity, tt * sizeof (float)));
  fig->row_labels = fig->col_labels
      = ar_built_figure_take_strv (built, ar_token_labels_from_trace (trace, view->raw_tokens));
  fig->row_axis = fig->col_axis = _ ("Tokens");
  fig->colorbar_label = _ ("Cosine similarity");
  gboolean diverging;
  ar_signed_range (fig->values, tt, view->autoscale, &fig->vmin, &fig->vmax, &diverging);
  fig->colormap = diverging ? AR_COLORMAP_RDBU_R : view->colormap;
  fig->annotate = view->annotate;
  fig->decimals = 3;
  fig->highlight_row = fig->highlight_col = view->selected_token < t ? view->selected_token : -1;
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

/* attention-overview.c — a long text's head pooled in blocks (see attention-overview.h). */
#include "attention-overview.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "as-attention-pool.h"
#include "segments.h"
#include "token-label.h"

int
ar_attention_overview_factor (const AsTrace *trace, const ArViewSelection *view)
{
  int r0, nr, c0, nc;
  if (as_trace_attention_held (trace) || trace->n_tokens <= AR_OVERVIEW_CELLS
      || view->aggregate != AR_AGGREGATE_HEAD || view->pool_words
      || ar_segments_block (trace, view->segments, &r0, &nr, &c0, &nc))
    return 1;
  return as_pool_factor (trace->n_tokens, AR_OVERVIEW_CELLS);
}

void
ar_attention_overview_set (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace,
                           const ArViewSelection *view, int k)
{
  ar_attention_overview_set_pooled (built, fig, trace, view, k, NULL);
}

void
ar_attention_overview_set_pooled (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace,
                                  const ArViewSelection *view, int k, const float *pooled)
{
  int T = trace->n_tokens, P = as_pool_size (T, k);
  float *values = ar_built_figure_take (built, g_new (float, (gsize) P *P)); /* [P][P] */
  if (pooled != NULL)
    memcpy (values, pooled, (gsize) P * P * sizeof (float));
  else
    as_trace_attention_pool (values, trace, view->layer, view->head, k,
                             view->pool_mean ? AS_POOL_MEAN : AS_POOL_MAX, 0, NULL);
  g_auto (GStrv) tokens = ar_token_labels_from_trace (trace, ar_view_selection_label_flags (view));
  char **labels = g_new0 (char *, P + 1);
  for (int i = 0; i < P; i++)
    labels[i] = g_strdup (tokens[i * k]);
  fig->values = values;
  fig->n_rows = fig->n_cols = P;
  fig->row_labels = fig->col_labels = ar_built_figure_take_strv (built, labels);
  fig->label_mode = AR_LABELS_THINNED;
  ar_built_figure_keep_trace (built, trace);
  fig->pool = k;
  fig->pool_trace = trace;
  fig->pool_layer = view->layer, fig->pool_head = view->head;
  int selected = view->selected_token;
  fig->highlight_row = fig->highlight_col = selected >= 0 && selected < T ? selected / k : -1;
  fig->colorbar_label = ar_built_figure_take (
      built, view->pool_mean
                 /* Translators: the colour bar of a long text's attention pooled in blocks */
                 ? g_strdup_printf (_ ("Attention weight · mean over %d×%d"), k, k)
                 : g_strdup_printf (_ ("Attention weight · max over %d×%d"), k, k));
}

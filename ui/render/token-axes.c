/* token-axes.c — token and word axes of the heatmap figures (see token-axes.h). */
#include "token-axes.h"

#include "word-labels.h"

void
ar_token_axes_set (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace,
                   const ArViewSelection *view)
{
  ArTokenLabelFlags flags = ar_view_selection_label_flags (view);
  fig->n_rows = fig->n_cols = trace->n_tokens;
  fig->row_labels = fig->col_labels
      = ar_built_figure_take_strv (built, ar_token_labels_from_trace (trace, flags));
  fig->label_mode = view->labels;
  if (view->labels != AR_LABELS_WORDS)
    return;
  AsWordSpans *spans = as_word_spans_from_trace (trace);
  fig->n_words = spans->n_words;
  fig->word_labels = ar_built_figure_take_strv (built, ar_word_labels (trace, spans, flags));
  fig->word_first = ar_built_figure_take (built, g_steal_pointer (&spans->first));
  as_word_spans_free (spans);
}

void
ar_token_axes_set_words (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace,
                         const AsWordSpans *spans, const ArViewSelection *view)
{
  fig->n_rows = fig->n_cols = spans->n_words;
  fig->row_labels = fig->col_labels = ar_built_figure_take_strv (
      built, ar_word_labels (trace, spans, ar_view_selection_label_flags (view)));
  fig->label_mode = view->labels == AR_LABELS_ALL ? AR_LABELS_ALL : AR_LABELS_THINNED;
  int selected = view->selected_token;
  fig->highlight_row = fig->highlight_col
      = selected >= 0 && selected < trace->n_tokens ? as_word_spans_word_of (spans, selected) : -1;
}

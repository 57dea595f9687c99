/* token-axes.h — the token (or word) axes of the heatmap figures, shared by the attention,
 * similarity and comparison builders: tick labels made by token-label.h with the view's flags,
 * the view's label mode, and for AR_LABELS_WORDS the words of as-word-spans.h labelled by
 * word-labels.h; or, when the view pools words, the words as labels of a [W][W] matrix. */
#pragma once

#include "built-figure.h"
#include "view-selection.h"
#include "as-word-spans.h"

G_BEGIN_DECLS

/* Sets FIG's labels, n_rows = n_cols = T and label mode for TRACE's tokens under VIEW (the
 * strings are kept alive by BUILT). */
void ar_token_axes_set (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace,
                        const ArViewSelection *view);

/* Sets FIG's labels (the words), n_rows = n_cols = W, the highlight (the word of the selected
 * token) and thinned label mode for the words SPANS of TRACE; the values are the caller's. */
void ar_token_axes_set_words (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace,
                              const AsWordSpans *spans, const ArViewSelection *view);

G_END_DECLS

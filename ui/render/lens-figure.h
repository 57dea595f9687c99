/* lens-figure.h — the figures of the logit lens (as-lens.h), shared by the Lens page and
 * `attnscope export --lens`: the table of hidden states × positions (each cell the top token,
 * coloured by its probability) and the line chart of one token's probability through the hidden
 * states, its rank written under each hidden state. */
#pragma once

#include "as-lens.h"
#include "built-figure.h"
#include "figure-subtitle.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The table of LENS (read at every position of TRACE, in order) under VIEW (colour map, labels,
 * annotation, the selected token's column outlined): rows = hidden states 0..L, columns =
 * positions. */
ArBuiltFigure *ar_build_lens_figure (const AsLens *lens, const AsTrace *trace,
                                     const ArViewSelection *view, const ArFigureTexts *texts);

/* The chart of LENS's target (a lens with a target, read at one position of TRACE): its
 * probability at hidden states 0..L, its rank (0 = the most likely) under each. TOKEN is the
 * target's text as the vocabulary decodes it. */
ArBuiltFigure *ar_build_lens_chart_figure (const AsLens *lens, const AsTrace *trace,
                                           const char *token, const ArFigureTexts *texts);

G_END_DECLS

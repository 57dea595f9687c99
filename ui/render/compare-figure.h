/* compare-figure.h — the builder of the comparison figure: two texts in the same view side by
 * side (the compare page, `attnscope export --compare`).
 *
 * Panels A and B show the view's matrix of each text in one colour range (the sequential rule of
 * view-selection.h over both); when the texts have the same number of tokens the difference
 * B − A follows in RdBu_r on ±max|B − A| (rounded up to 2 decimals), otherwise a note under the
 * title says why there is none. Underneath, a chart of the per-layer cosine similarity of the
 * tokens both texts share (core/include/as-compare.h): their mean, then the first
 * AR_COMPARE_MAX_TOKENS shared tokens. The selected token of A and its partner in B are
 * outlined. */
#pragma once

#include "as-compare.h"
#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* Shared tokens with their own line in the chart (the mean takes one more of the palette's 10
 * colours). */
#define AR_COMPARE_MAX_TOKENS 8

/* The comparison of A and B (COMPARISON = as_compare_traces of their traces) in VIEW; TEXTS names
 * both texts. NULL when an aggregate VIEW needs is missing in A or B. */
ArBuiltFigure *ar_build_compare_figure (const ArAttention *a, const ArAttention *b,
                                        const AsComparison *comparison, const ArViewSelection *view,
                                        const ArFigureTexts *texts);

G_END_DECLS

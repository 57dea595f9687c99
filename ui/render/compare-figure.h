/* compare-figure.h — the builder of the comparison figure: two texts in the same view side by
 * side (the compare page, `attnscope export --compare`).
 *
 * The view's alignment decides how B lines up with A (core/include/as-compare.h):
 * - by token (the default): panel B shows B's weights in A's token order — row i and column j of
 *   A's tokens hold B's weight between their partners, so for "The man hit the car" / "The car
 *   hit the man" B's panel is B permuted into A's order; cells of tokens without a partner are
 *   empty, cells B's causal mask hides are grey — and the difference B − A is taken in that
 *   alignment, whatever the text lengths;
 * - by position: B with its own tokens, and the difference position by position when both texts
 *   have as many tokens (its rows and columns labelled "a / b" where the tokens differ).
 * A note under the title says which alignment is shown (or why there is no difference). A and B
 * share one colour range (the sequential rule of view-selection.h over both; with autoscale_each
 * each its own); the difference is drawn in RdBu_r on the symmetric ±max|B − A| (2 significant
 * digits) with that range printed in its colour bar's label and as many decimals as it needs.
 * Underneath, a chart of the per-layer cosine similarity of the tokens both texts share: their
 * mean, then the first AR_COMPARE_MAX_TOKENS shared tokens. The selected token of A and its
 * partner in B are outlined. Word pooling does not apply to comparisons. */
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

/* similarity-figure.h — the builder of the cosine-similarity figure: the [T][T] similarity of one
 * vector set of a trace as a heatmap (the similarity page's matrix, `attnscope export
 * --similarity`), and the words that name a vector set in titles.
 *
 * The similarity matrix comes computed (core/include/as-similarity.h); layers are the core's
 * (as-trace-vectors.h: hidden states 0..L, hidden[l + 1] after layer l). */
#pragma once

#include "as-trace-vectors.h"
#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* "embeddings", "contexts of layer 1, head 0", "attention outputs of layer 1", "hidden states
 * after layer 1" (hidden[2]). Newly allocated. */
char *ar_vectors_description (AsVectorSource source, int layer, int head);

/* SIMILARITY [T][T] of TRACE's vectors SOURCE at LAYER/HEAD: tokens on both axes, 3 decimals
 * (similarities of context vectors crowd near 1), the selected token outlined, colours by the
 * signed-range rule (view-selection.h) in the view's map or, with a negative value, RdBu_r. With
 * VIEW's pool_words SIMILARITY is the [W][W] similarity of the words (as_word_similarity) and the
 * words label the axes. (Log colours do not apply: similarities may be negative.) The figure
 * keeps SIMILARITY (float32) without copying it; FINITE_RANGE, when not NULL, is its smallest and
 * largest finite value (as_finite_range), computed once by the caller instead of at every build. */
ArBuiltFigure *ar_build_similarity_figure (const AsTrace *trace, GBytes *similarity,
                                           const double *finite_range, AsVectorSource source,
                                           int layer, int head, const ArViewSelection *view,
                                           const ArFigureTexts *texts);

G_END_DECLS

/* cross-figure.h — the figures of a translation model's cross-attention (the decoder's attention
 * to the source): one layer's cross-attention as a heatmap (target tokens as rows, source tokens
 * as columns: the attention page with the kind "cross", `attnscope export --kind cross`), every
 * cross-attention head as a grid labelled with as-cross-stats.h's patterns (the heads page,
 * `export --kind cross --grid`), and the alignment of source and target tokens
 * (alignment-render.h: the alignment page, `export --alignment`).
 *
 * As the other builders (attention-figure.h), they take what is already computed — the mean over
 * heads and the ranges of ArCrossAttention, the cross statistics — and arrange it; titles and
 * colour ranges follow view-selection.h. The cross-attention has no rollout: a view asking for
 * one gets NULL (ar_cross_matrix). */
#pragma once

#include "as-cross-stats.h"
#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The cross-attention of one decoder trace (trace->cross_attn set) and what core computed from it
 * (NULL until computed): as_trace_cross_mean_heads (as-rollout.h) and
 * as_trace_cross_attention_ranges (as-attention-ranges.h: RANGE its first two values,
 * HEAD_RANGES the rest). */
typedef struct
{
  const AsTrace *trace;
  const float *mean_heads;   /* [L][T][S] the mean over each layer's heads */
  const double *range;       /* [2] min and max of every cross-attention weight */
  const double *head_ranges; /* [L][H][2] of each head's */
} ArCrossAttention;

/* The [T][S] matrix VIEW names: head (layer, head), or the layer's mean over heads; NULL for
 * rollout or a mean not computed yet. Borrowed. */
const float *ar_cross_matrix (const ArCrossAttention *cross, const ArViewSelection *view);

/* The heatmap of VIEW's layer of the cross-attention: target tokens as rows (the selected token's
 * row outlined), source tokens as columns, titled "Cross-attention · layer L · head H" (or "· mean
 * over N heads"), the subtitle naming source and target. NULL when ar_cross_matrix is. */
ArBuiltFigure *ar_build_cross_attention_figure (const ArCrossAttention *cross,
                                                const ArViewSelection *view,
                                                const ArFigureTexts *texts);

/* Every cross-attention head as a thumbnail [T][S] labelled with STATS' label ("eos",
 * "diagonal", "focused", "broad", "mixed"), ranges as ar_build_grid_figure. NULL when autoscale
 * needs ranges CROSS lacks. */
ArBuiltFigure *ar_build_cross_grid_figure (const ArCrossAttention *cross, const AsCrossStats *stats,
                                           const ArViewSelection *view, const ArFigureTexts *texts);

/* The alignment of VIEW's layer (one head, or the mean over heads): source tokens above, target
 * tokens below, linked with the cross-attention weights (full strength at 1, or with autoscale
 * at the matrix's largest weight), the selected (target) token's links highlighted. NULL when
 * ar_cross_matrix is. */
ArBuiltFigure *ar_build_alignment_figure (const ArCrossAttention *cross,
                                          const ArViewSelection *view, const ArFigureTexts *texts);

G_END_DECLS

/* attention-overview.h — one head of a long text at a glance: when a trace computes its attention
 * on demand and holds more than AR_OVERVIEW_CELLS tokens, the attention heatmap shows the head
 * pooled in blocks of K × K tokens (as-attention-pool.h) instead of its T × T matrix: at most
 * AR_OVERVIEW_CELLS blocks a side, each the largest weight it covers (a sharp one-token pattern
 * stays visible) or, with the view's pool_mean, their mean. The colour bar says which ("max over
 * 8×8"); each block is labelled with its first token. The blocks are computed from tiles, never
 * from the whole matrix (ui/README.md, "Attention at long lengths"). */
#pragma once

#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

#define AR_OVERVIEW_CELLS 1024

/* The block side K of VIEW's figure of TRACE: > 1 when it is a pooled overview (on demand, more
 * than AR_OVERVIEW_CELLS tokens, one head, tokens not words, no sentence filter); else 1. */
int ar_attention_overview_factor (const AsTrace *trace, const ArViewSelection *view);

/* Sets FIG's values (the pooled head), n_rows = n_cols = ⌈T/K⌉, block labels, the selected token's
 * block outlined and the colour-bar label for VIEW's head of TRACE in blocks of K × K. */
void ar_attention_overview_set (ArBuiltFigure *built, ArHeatmapFigure *fig, const AsTrace *trace,
                                const ArViewSelection *view, int k);

/* The same from POOLED [⌈T/K⌉][⌈T/K⌉], the head already pooled (a copy is taken); NULL: pooled
 * here. */
void ar_attention_overview_set_pooled (ArBuiltFigure *built, ArHeatmapFigure *fig,
                                       const AsTrace *trace, const ArViewSelection *view, int k,
                                       const float *pooled);

G_END_DECLS

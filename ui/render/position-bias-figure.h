/* position-bias-figure.h — the builder of the position-bias figure: what one head adds to its
 * scores before the softmax, by query and key position (the trace's position bias, kept compact
 * and expanded to [T][T] by as_trace_position_bias_head: T5's relative position bias, the same in
 * every layer; umT5's per layer) — what the head prefers before it reads a word. `attnscope
 * export --position-bias H` draws it, and the Attention page's "Position Bias" button. */
#pragma once

#include "as-trace.h"
#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* Head HEAD's bias [T][T] of TRACE (which has a position bias; umT5's per-layer blocks: the view's
 * layer's, the layer named in the title): queries as rows, keys as columns,
 * 2 decimals, colours by the signed-range rule in RdBu_r when the bias has both signs (else the
 * view's map), a causal trace's future masked. The selected token's row and column outlined. */
ArBuiltFigure *ar_build_position_bias_figure (const AsTrace *trace, int head,
                                              const ArViewSelection *view,
                                              const ArFigureTexts *texts);

G_END_DECLS

/* as-attention-ranges.h — the value ranges of a trace's attention: the smallest and largest
 * weight of every head and of all heads together, which the colour scales of the heatmaps, the
 * heads grid and their exports use (one range for all panels, or each head its own).
 *
 * Only the weights that say something count: of a causal model's self-attention the cells on and
 * below the diagonal of the rows after the first (the first token can only attend to itself, with
 * weight 1; the cells above the diagonal are 0 by construction). Non-finite values are skipped. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* *LO and *HI = the smallest and largest finite value of VALUES [N] (+inf and -inf when there is
 * none): the colour ranges of every figure start from it. */
void as_finite_range (const float *values, gsize n, double *lo, double *hi);

/* [2 + 2·L·H]: the min and max of every self-attention weight of TRACE, then of each head's
 * ([L][H][2]). A head without a counted weight has +inf and -inf. Newly allocated. */
double *as_trace_attention_ranges (const AsTrace *trace);

/* The same for a decoder trace's cross-attention ([L][H][T][S], every cell counts). */
double *as_trace_cross_attention_ranges (const AsTrace *trace);

G_END_DECLS

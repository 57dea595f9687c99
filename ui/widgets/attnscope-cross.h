/* attnscope-cross.h — what the window computes from a translation trace's cross-attention along
 * with the forward pass, in the pass's thread: the mean over each layer's heads, the ranges of the
 * weights, and the statistics of every cross-attention head (as-cross-stats.h). Immutable once
 * made and reference counted, so the pages read it on the UI thread while the next pass runs. */
#pragma once

#include <glib-object.h>

#include "as-cross-stats.h"
#include "cross-figure.h"

G_BEGIN_DECLS

typedef struct _AttnscopeCross AttnscopeCross;

/* Computes the results of TRACE (with cross-attention); slow for long texts: call it off the UI
 * thread. */
AttnscopeCross *attnscope_cross_new (AsTrace *trace);
AttnscopeCross *attnscope_cross_ref (AttnscopeCross *cross);
void attnscope_cross_unref (AttnscopeCross *cross);

AsTrace *attnscope_cross_get_trace (const AttnscopeCross *cross);
/* The trace's cross-attention with its mean over heads and ranges, as the builders take it. */
void attnscope_cross_get_attention (const AttnscopeCross *cross, ArCrossAttention *attention);
const AsCrossStats *attnscope_cross_get_stats (const AttnscopeCross *cross);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AttnscopeCross, attnscope_cross_unref)

G_END_DECLS

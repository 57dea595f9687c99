/* attnscope-attention-page.h — the attention view: the selected layer and head as a large heatmap
 * (queries as rows, keys as columns), or the mean over the layer's heads, or the attention
 * rollout up to the layer; layer/head spin buttons, colour map, annotation, autoscaled colours,
 * and the head's pattern from the head statistics. */
#pragma once

#include "attnscope-heatmap-view.h"
#include "attnscope-page.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_ATTENTION_PAGE (attnscope_attention_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeAttentionPage, attnscope_attention_page, ATTNSCOPE, ATTENTION_PAGE,
                      AttnscopePage)

/* The heatmap widget (tests read its size and values). */
AttnscopeHeatmapView *attnscope_attention_page_get_heatmap (AttnscopeAttentionPage *self);

/* Whether the sentence filter shows (the trace is a sentence pair). */
gboolean attnscope_attention_page_get_segments_visible (AttnscopeAttentionPage *self);

G_END_DECLS

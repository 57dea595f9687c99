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

/* The Norms button: attention weighted by the norms of what each key writes, ‖α·f(x)‖
 * (as-attention-norms.h; computed in the background, the figure on screen kept meanwhile). */
void attnscope_attention_page_set_norm_weighted (AttnscopeAttentionPage *self, gboolean weighted);
gboolean attnscope_attention_page_get_norm_weighted (AttnscopeAttentionPage *self);

/* The one line that says why the page shows no figure or not the one asked for (the norms of a
 * model they do not apply to), or NULL. */
const char *attnscope_attention_page_get_notice (AttnscopeAttentionPage *self);

G_END_DECLS

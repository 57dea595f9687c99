/* attnscope-attribution-page.h — the Attribution page: direct logit attribution of the run
 * (core/include/as-attribution.h). A token's logit at one position (the predicted token at the
 * last position by default; optionally minus a second token's) split into the direct effect of
 * every head — an L × H heatmap in diverging colours over a symmetric range (printed) with each
 * layer's MLP in the last column — and a list of the largest parts (heads, MLPs, the embeddings,
 * the attention biases, the final norm's bias). Activating a head (its cell or its row) opens it
 * on the Attention page. "Query–key" shows instead the query–key view of the view's head and
 * selected token (attnscope-qk-panel.h).
 *
 * The attribution is computed off the UI thread; the page keeps its last figure meanwhile
 * (busy). A model it does not apply to (post-norm encoders and translation models, a model
 * without an output head) gets one line saying why. */
#pragma once

#include "as-attribution.h"
#include "attnscope-heatmap-view.h"
#include "attnscope-page.h"
#include "attnscope-qk-panel.h"

G_BEGIN_DECLS

/* Rows in the list of the largest parts. */
#define ATTRIBUTION_PAGE_PARTS 12

#define ATTNSCOPE_TYPE_ATTRIBUTION_PAGE (attnscope_attribution_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeAttributionPage, attnscope_attribution_page, ATTNSCOPE,
                      ATTRIBUTION_PAGE, AttnscopePage)

AttnscopeHeatmapView *attnscope_attribution_page_get_heatmap (AttnscopeAttributionPage *self);
/* A translation model's cross-attention heads beside the heads (hidden for other models):
 * ar_build_attribution_cross_figure, its cells opening the head on the cross-attention view. */
AttnscopeHeatmapView *attnscope_attribution_page_get_cross_heatmap (AttnscopeAttributionPage *self);
GtkListBox *attnscope_attribution_page_get_parts (AttnscopeAttributionPage *self);
/* The line of text above the figure: what is split, or why there is nothing to show. */
const char *attnscope_attribution_page_get_status (AttnscopeAttributionPage *self);
/* The attribution on screen (borrowed), or NULL. */
const AsAttribution *attnscope_attribution_page_get_attribution (AttnscopeAttributionPage *self);

/* Splits the logit of TOKEN (one token of the vocabulary; NULL or "": the predicted token),
 * minus VS's when VS is neither NULL nor "", as typing them in the entries does. */
void attnscope_attribution_page_set_tokens (AttnscopeAttributionPage *self, const char *token,
                                            const char *vs);
/* Splits the prediction at POSITION (-1: the last token). */
void attnscope_attribution_page_set_position (AttnscopeAttributionPage *self, int position);

/* Shows the query–key view (TRUE) or the parts (FALSE). */
void attnscope_attribution_page_show_qk (AttnscopeAttributionPage *self, gboolean qk);
AttnscopeQkPanel *attnscope_attribution_page_get_qk_panel (AttnscopeAttributionPage *self);

G_END_DECLS

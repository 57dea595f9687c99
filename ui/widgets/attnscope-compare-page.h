/* attnscope-compare-page.h — the compare view: a second sentence, both sentences' attention for
 * the same head (or mean, or rollout) side by side, their difference when the token counts
 * match, and the per-layer similarity of the tokens they share (core/as-compare.h). */
#pragma once

#include "attnscope-compare-view.h"
#include "attnscope-page.h"
#include "attnscope-patch-panel.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_COMPARE_PAGE (attnscope_compare_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeComparePage, attnscope_compare_page, ATTNSCOPE, COMPARE_PAGE,
                      AttnscopePage)

AttnscopeCompareView *attnscope_compare_page_get_view (AttnscopeComparePage *self);
/* With "No positions": why the two texts still differ (a causal model: the mask) or that they
 * do not (an encoder), else NULL. */
const char *attnscope_compare_page_get_positions_note (AttnscopeComparePage *self);
/* The activation patching panel under the comparison (attnscope-patch-panel.h). */
AttnscopePatchPanel *attnscope_compare_page_get_patch_panel (AttnscopeComparePage *self);

G_END_DECLS

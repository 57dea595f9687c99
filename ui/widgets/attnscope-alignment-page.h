/* attnscope-alignment-page.h — a translation model's alignment view: the source tokens above,
 * the target tokens below, linked by the cross-attention of one head or the mean over a layer's
 * heads (ar_build_alignment_figure). Hovering a token highlights its links; a click on a source
 * token keeps them highlighted, a click on a target token selects it (its links stay highlighted,
 * and every view outlines it). Other models have no cross-attention: the page says so (the window
 * hides it). */
#pragma once

#include "attnscope-alignment-view.h"
#include "attnscope-page.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_ALIGNMENT_PAGE (attnscope_alignment_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeAlignmentPage, attnscope_alignment_page, ATTNSCOPE, ALIGNMENT_PAGE,
                      AttnscopePage)

AttnscopeAlignmentView *attnscope_alignment_page_get_view (AttnscopeAlignmentPage *self);

G_END_DECLS

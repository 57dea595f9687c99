/* attnscope-heads-page.h — the model view: all heads of the model at once, each labelled with
 * its pattern (previous token, first token, self, mixed; for an encoder [CLS], [SEP], next,
 * previous, self, broad) with the shares of `attnscope stats` in its tooltip; a click opens a head
 * in the attention view. Its figure is what "Export All Heads" writes. */
#pragma once

#include "attnscope-head-grid-view.h"
#include "attnscope-page.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_HEADS_PAGE (attnscope_heads_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeHeadsPage, attnscope_heads_page, ATTNSCOPE, HEADS_PAGE,
                      AttnscopePage)

AttnscopeHeadGridView *attnscope_heads_page_get_grid (AttnscopeHeadsPage *self);
/* The line above the grid: layers × heads and how many heads have each pattern. */
const char *attnscope_heads_page_get_summary (AttnscopeHeadsPage *self);

G_END_DECLS

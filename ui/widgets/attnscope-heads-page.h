/* attnscope-heads-page.h — the model view: all heads of the model at once, each labelled with
 * its pattern (previous token, first token, self, mixed; for an encoder [CLS], [SEP], next,
 * previous, self, broad) with the shares of `attnscope stats` in its tooltip; a click opens a head
 * in the attention view. With the keyboard on the grid, arrows move to the head above, below, left
 * or right (as Alt+arrows do anywhere in the window) and Return or space opens it. Its figure is
 * what "Export All Heads" writes. */
#pragma once

#include "attnscope-head-grid-view.h"
#include "attnscope-page.h"
#include "attnscope-thumbnail-stream.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_HEADS_PAGE (attnscope_heads_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeHeadsPage, attnscope_heads_page, ATTNSCOPE, HEADS_PAGE,
                      AttnscopePage)

AttnscopeHeadGridView *attnscope_heads_page_get_grid (AttnscopeHeadsPage *self);
/* A long text's thumbnails being computed for the grid (attnscope-thumbnail-stream.h), or NULL. */
AttnscopeThumbnailStream *attnscope_heads_page_get_thumbnail_stream (AttnscopeHeadsPage *self);
/* The line above the grid: layers × heads and how many heads have each pattern. */
const char *attnscope_heads_page_get_summary (AttnscopeHeadsPage *self);

G_END_DECLS

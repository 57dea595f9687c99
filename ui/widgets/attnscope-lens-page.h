/* attnscope-lens-page.h — the Lens page: the logit lens of the run (core/include/as-lens.h). A
 * table of hidden states (0 = the embeddings … L = the output) × positions, each cell the top
 * token read from that hidden state through the model's final norm and output head, coloured by
 * its probability (hover: the top five); clicking a cell follows its token at its position, and
 * the Chart shows that token's probability and rank through the hidden states.
 *
 * The lens is computed off the UI thread, a new one cancelling the one before; the page keeps its
 * last figure meanwhile (busy). Long texts show about LENS_PAGE_COLUMNS positions at a time (the
 * heatmap's zoom; scroll to pan, zoom out for all). A model without an output head gets one line
 * saying why. */
#pragma once

#include "attnscope-heatmap-view.h"
#include "attnscope-lines-view.h"
#include "attnscope-page.h"

G_BEGIN_DECLS

/* Positions in view when a text has more than this many tokens. */
#define LENS_PAGE_COLUMNS 24

#define ATTNSCOPE_TYPE_LENS_PAGE (attnscope_lens_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeLensPage, attnscope_lens_page, ATTNSCOPE, LENS_PAGE, AttnscopePage)

AttnscopeHeatmapView *attnscope_lens_page_get_heatmap (AttnscopeLensPage *self);
AttnscopeLinesView *attnscope_lens_page_get_chart (AttnscopeLensPage *self);
/* The line of text above the figure: a hint, what is followed, or why there is no lens. */
const char *attnscope_lens_page_get_status (AttnscopeLensPage *self);

/* Follows token ID at POSITION (what a click on a cell does) and shows the chart. */
void attnscope_lens_page_follow (AttnscopeLensPage *self, int position, int32_t id);
/* Shows the table (FALSE) or the chart (TRUE); the chart only once a token is followed. */
void attnscope_lens_page_show_chart (AttnscopeLensPage *self, gboolean chart);

G_END_DECLS

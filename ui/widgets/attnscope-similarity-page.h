/* attnscope-similarity-page.h — the similarity view: the seed's table for the selected token
 * (token 0, or the last token of a causal model, when none is selected: every other token, the
 * cosine similarity of their vectors, the attention weight the selected token gives it) and the
 * full similarity matrix as a heatmap. The vectors are the embeddings, the head's contexts, the
 * attention outputs or the hidden states of the view state's layer. */
#pragma once

#include "attnscope-heatmap-view.h"
#include "attnscope-page.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_SIMILARITY_PAGE (attnscope_similarity_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeSimilarityPage, attnscope_similarity_page, ATTNSCOPE,
                      SIMILARITY_PAGE, AttnscopePage)

void attnscope_similarity_page_set_source (AttnscopeSimilarityPage *self, AsVectorSource source);
AsVectorSource attnscope_similarity_page_get_source (AttnscopeSimilarityPage *self);

/* The table's rows (AttnscopeSimilarityRow, in token order) and the matrix view. */
GListModel *attnscope_similarity_page_get_rows (AttnscopeSimilarityPage *self);
AttnscopeHeatmapView *attnscope_similarity_page_get_heatmap (AttnscopeSimilarityPage *self);

G_END_DECLS

/* attnscope-embeddings-page.h — the embeddings view: the token vectors of the chosen kind and
 * layer projected to 2-D by PCA or t-SNE and drawn as a labelled scatter plot; with "Both
 * sentences" the comparison text's vectors join in their own colour. Projections run in a
 * background task; t-SNE shows its progress and can be cancelled. */
#pragma once

#include "attnscope-page.h"
#include "attnscope-scatter-view.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_EMBEDDINGS_PAGE (attnscope_embeddings_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeEmbeddingsPage, attnscope_embeddings_page, ATTNSCOPE,
                      EMBEDDINGS_PAGE, AttnscopePage)

void attnscope_embeddings_page_set_method (AttnscopeEmbeddingsPage *self,
                                           AttnscopeProjection method);
void attnscope_embeddings_page_set_source (AttnscopeEmbeddingsPage *self, AsVectorSource source);
/* Also projects the comparison sentence (when there is one), in its own colour. */
void attnscope_embeddings_page_set_both_sentences (AttnscopeEmbeddingsPage *self, gboolean both);
/* TRUE while a projection runs. */
gboolean attnscope_embeddings_page_get_busy (AttnscopeEmbeddingsPage *self);
/* Cancels the projection in flight (t-SNE's Cancel button). */
void attnscope_embeddings_page_cancel (AttnscopeEmbeddingsPage *self);
AttnscopeScatterView *attnscope_embeddings_page_get_scatter (AttnscopeEmbeddingsPage *self);

G_END_DECLS

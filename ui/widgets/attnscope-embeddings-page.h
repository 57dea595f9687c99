/* attnscope-embeddings-page.h — the embeddings view: the token vectors of the chosen kind and
 * layer of any number of sentences projected to 2-D by PCA, t-SNE or UMAP and drawn as a
 * labelled scatter plot (projection-figure.h).
 *
 * The sentences are the window's text A followed by a list the page keeps
 * (attnscope-sentences.h: add, remove, edit, load a file with one sentence per line); every
 * sentence runs through the model in the background. "Static beside" draws the token embeddings
 * before positions (one static vector per token) beside the chosen vectors; "Highlight a word"
 * marks every occurrence of a word in every sentence and greys the rest. Projections run in a
 * background task; t-SNE and UMAP show their progress and can be cancelled. A sentence the model
 * cannot take is named in a message and the previous figure stays. */
#pragma once

#include "attnscope-page.h"
#include "attnscope-scatter-view.h"
#include "attnscope-sentences.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_EMBEDDINGS_PAGE (attnscope_embeddings_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeEmbeddingsPage, attnscope_embeddings_page, ATTNSCOPE,
                      EMBEDDINGS_PAGE, AttnscopePage)

void attnscope_embeddings_page_set_method (AttnscopeEmbeddingsPage *self,
                                           AttnscopeProjection method);
void attnscope_embeddings_page_set_source (AttnscopeEmbeddingsPage *self, AsVectorSource source);
/* Draws the token embeddings (before positions) beside the chosen vectors. */
void attnscope_embeddings_page_set_static_beside (AttnscopeEmbeddingsPage *self, gboolean beside);
/* The word whose tokens are highlighted in every sentence (NULL or "": none). */
void attnscope_embeddings_page_set_highlight (AttnscopeEmbeddingsPage *self, const char *word);
/* The sentences after text A. */
AttnscopeSentences *attnscope_embeddings_page_get_sentences (AttnscopeEmbeddingsPage *self);
/* The message naming a sentence the model could not take (NULL: none). */
const char *attnscope_embeddings_page_get_sentence_error (AttnscopeEmbeddingsPage *self);
/* TRUE while a projection runs or a sentence is run through the model. */
gboolean attnscope_embeddings_page_get_busy (AttnscopeEmbeddingsPage *self);
/* Cancels the projection in flight (the Cancel button). */
void attnscope_embeddings_page_cancel (AttnscopeEmbeddingsPage *self);
AttnscopeScatterView *attnscope_embeddings_page_get_scatter (AttnscopeEmbeddingsPage *self);

G_END_DECLS

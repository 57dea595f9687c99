/* attnscope-similarity-row.h — one row of the similarity table: another token, the cosine
 * similarity of its vector to the selected token's, and the attention the selected token gives
 * it (core/as-similarity.h, as in the seed's "Comparison for 'May'"), or that it could not
 * ("masked": a causal model's later token, whose weight is 0 by the mask, not by the head). */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_SIMILARITY_ROW (attnscope_similarity_row_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeSimilarityRow, attnscope_similarity_row, ATTNSCOPE, SIMILARITY_ROW,
                      GObject)

AttnscopeSimilarityRow *attnscope_similarity_row_new (int index, const char *token,
                                                      double similarity, double attention,
                                                      gboolean masked);
/* Gives the row other values, notifying the properties that change (a table reuses its rows
 * when the selected token changes). */
void attnscope_similarity_row_set (AttnscopeSimilarityRow *self, int index, const char *token,
                                   double similarity, double attention, gboolean masked);
int attnscope_similarity_row_get_index (AttnscopeSimilarityRow *self);
const char *attnscope_similarity_row_get_token (AttnscopeSimilarityRow *self);
double attnscope_similarity_row_get_similarity (AttnscopeSimilarityRow *self);
double attnscope_similarity_row_get_attention (AttnscopeSimilarityRow *self);
gboolean attnscope_similarity_row_get_masked (AttnscopeSimilarityRow *self);

G_END_DECLS

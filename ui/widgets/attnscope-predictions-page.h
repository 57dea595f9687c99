/* attnscope-predictions-page.h — the predictions view: the ten most likely next tokens after the
 * text with their probability bars and logits (core/as-predict.h); "Append" adds a token to the
 * text, so clicking it repeatedly is the seed's greedy generation loop. */
#pragma once

#include "attnscope-page.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_PREDICTIONS_PAGE (attnscope_predictions_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopePredictionsPage, attnscope_predictions_page, ATTNSCOPE,
                      PREDICTIONS_PAGE, AttnscopePage)

/* The predictions shown (0 for a model without logits) and the text of prediction I. */
int attnscope_predictions_page_get_n_predictions (AttnscopePredictionsPage *self);
const char *attnscope_predictions_page_get_token (AttnscopePredictionsPage *self, int i);
double attnscope_predictions_page_get_probability (AttnscopePredictionsPage *self, int i);

/* Appends prediction I's text to the text it was predicted for, in the main run (the Append
 * buttons). */
void attnscope_predictions_page_append (AttnscopePredictionsPage *self, int i);

G_END_DECLS

/* attnscope-predictions-page.h — the predictions view: for a next-token model the ten most likely
 * next tokens after the text with their probability bars and logits (core/as-predict.h); "Append"
 * adds a token — its id, attnscope_run_append_id — so clicking it repeatedly is the greedy
 * generation loop of `attnscope predict --steps N --append-ids` (Hugging Face's generate()). For a
 * masked-LM encoder (BERT, RoBERTa, DistilBERT) the ten most likely tokens at every mask token of
 * the text or pair (as_predict_masked, computed by the analysis); "Fill" puts one in place of its
 * mask. A text without a mask gets "Type [MASK] …" (the model's own mask token); a model without
 * an output head says so. */
#pragma once

#include "attnscope-page.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_PREDICTIONS_PAGE (attnscope_predictions_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopePredictionsPage, attnscope_predictions_page, ATTNSCOPE,
                      PREDICTIONS_PAGE, AttnscopePage)

/* The predictions shown (0 for a model without logits) and the text and id of prediction I. */
int attnscope_predictions_page_get_n_predictions (AttnscopePredictionsPage *self);
const char *attnscope_predictions_page_get_token (AttnscopePredictionsPage *self, int i);
int32_t attnscope_predictions_page_get_id (AttnscopePredictionsPage *self, int i);
/* The value of the bar of the I-th row of the list (0..1: the probability), or -1. */
double attnscope_predictions_page_get_bar (AttnscopePredictionsPage *self, int i);
double attnscope_predictions_page_get_probability (AttnscopePredictionsPage *self, int i);

/* Masked-LM encoders: the masks listed (0 while there are none) and mask M's predictions. */
int attnscope_predictions_page_get_n_masks (AttnscopePredictionsPage *self);
const AsMaskedPrediction *attnscope_predictions_page_get_mask (AttnscopePredictionsPage *self,
                                                               int m);
/* The status message shown instead of a list (no mask, no head), or NULL while a list shows. */
const char *attnscope_predictions_page_get_message (AttnscopePredictionsPage *self);
/* Replaces mask M of the text (or of the pair's second text) with its prediction I's token and
 * runs the model again (the Fill buttons). */
void attnscope_predictions_page_fill (AttnscopePredictionsPage *self, int m, int i);

/* Continues the trace it was predicted for by prediction I's id, in the main run (the Append
 * buttons); the entry shows the ids decoded. */
void attnscope_predictions_page_append (AttnscopePredictionsPage *self, int i);

G_END_DECLS

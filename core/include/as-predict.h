/* as-predict.h — next-token predictions and greedy generation; for a masked-LM encoder, the
 * predictions at every [MASK] position. */
#pragma once

#include <gio/gio.h>

#include "as-model.h"
#include "as-trace.h"

G_BEGIN_DECLS

typedef struct
{
  int32_t id;
  char *token; /* decoded text of the single token, e.g. " on" (owned) */
  float logit;
  float probability; /* softmax over the whole vocabulary */
} AsPrediction;

/* The K most likely next tokens after the trace's last position, sorted by logit (ties: lower
 * id first). Returns an array of K AsPrediction (fewer when V < K); free with
 * as_predictions_free. */
AsPrediction *as_predict_top_k (const AsTrace *trace, const AsTokenizer *tokenizer, int k,
                                int *n_out);
void as_predictions_free (AsPrediction *predictions, int n);

/* The same for one row of logits, LOGITS [V] (a position, a hidden state read out). */
AsPrediction *as_predict_top_k_row (const float *logits, int V, const AsTokenizer *tokenizer, int k,
                                    int *n_out);

/* The K (or V, when smaller) best ids of LOGITS [V] into BEST [K], best first as
 * as_predict_top_k sorts them, and their softmax probabilities into PROBABILITIES [K]; returns
 * how many. Decodes nothing, so it may run on several rows in parallel. */
int as_predict_top_k_ids (const float *logits, int V, int k, int32_t *best, float *probabilities);

/* The N predictions of IDS with their PROBABILITIES (as_predict_top_k_ids gave them for LOGITS),
 * decoded by TOKENIZER (or "<id>" when NULL). Free with as_predictions_free. */
AsPrediction *as_predict_from_ids (const float *logits, const int32_t *ids,
                                   const float *probabilities, int n, const AsTokenizer *tokenizer);

/* The same from the ids' own LOGITS [N] (a reader that kept no row of logits). */
AsPrediction *as_predict_from_top (const int32_t *ids, const float *logits,
                                   const float *probabilities, int n, const AsTokenizer *tokenizer);

/* Token ID's place in LOGITS [V] (*RANK: how many tokens rank before it as as_predict_top_k
 * sorts them, 0 = the most likely) and its softmax probability. */
void as_predict_rank (const float *logits, int V, int32_t id, int *rank, float *probability);

/* The text IDS[0..N_IDS-1] stand for: decoded by TOKENIZER, or "<id>" per token when TOKENIZER
 * is NULL (a model that runs on ids only). Owned. */
char *as_predict_dup_ids_text (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids);

/* The predictions at one masked position of the input. */
typedef struct
{
  int position;      /* token index in the trace */
  AsPrediction *top; /* [n_top] sorted as as_predict_top_k */
  int n_top;
} AsMaskedPrediction;

/* The K most likely tokens at every position of TRACE whose id is the model's mask token
 * (trace->special_ids[AS_SPECIAL_MASK]: [MASK], RoBERTa's <mask>), in order of position, with
 * probabilities from the softmax over that position's logits. TRACE must come from a masked-LM
 * model run with logits for every position (AsForwardOptions.all_logits). Fails with
 * AS_ERROR_INPUT when the model has no masked-LM head, its vocabulary has no mask token, or the
 * input holds no mask token (the message names the token and its id). */
AsMaskedPrediction *as_predict_masked (const AsTrace *trace, const AsTokenizer *tokenizer, int k,
                                       int *n_masks, GError **error);
void as_masked_predictions_free (AsMaskedPrediction *masks, int n_masks);

/* One greedy step as printed by the seed: the text so far and the top-K of that step. */
typedef struct
{
  char *text;        /* prompt + all chosen tokens so far, decoded */
  AsPrediction *top; /* [n_top] */
  int n_top;
} AsGreedyStep;

typedef enum
{
  AS_GREEDY_RETOKENIZE, /* append the top token's text and tokenize the whole text again, as the
                         * seed's loop does (a lone byte token becomes U+FFFD and is re-encoded) */
  AS_GREEDY_APPEND_IDS, /* append the top token's id, as HF generate() does */
} AsGreedyMode;

/* Greedy generation for N_STEPS from PROMPT: at each step runs the model, records the top-K and
 * appends the top token. Returns N_STEPS steps or NULL with ERROR (empty prompt, context
 * exceeded, cancelled, a model without a tokenizer). */
AsGreedyStep *as_generate_greedy (AsModel *model, const char *prompt, int n_steps, int k,
                                  AsGreedyMode mode, GCancellable *cancellable, GError **error);
/* The same from token IDS[0..N_IDS-1], appending ids (AS_GREEDY_APPEND_IDS); the steps' texts
 * are decoded, or "<id>" per token for a model without a tokenizer. */
AsGreedyStep *as_generate_greedy_ids (AsModel *model, const int32_t *ids, int n_ids, int n_steps,
                                      int k, GCancellable *cancellable, GError **error);
void as_greedy_steps_free (AsGreedyStep *steps, int n_steps);

G_END_DECLS

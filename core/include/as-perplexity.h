/* as-perplexity.h — how well a causal language model predicts a text: per-token
 * log-probabilities of one trace, and perplexity accumulated over many texts.
 *
 * Definitions. For a trace of T tokens x[0..T-1] computed with logits for every position
 * (AsForwardOptions.all_logits), the log-probability of token t+1 is
 *   logprob[t] = log softmax(logits[t])[x[t+1]],  t = 0..T-2,
 * evaluated in double with the max-shifted log-sum-exp. The first token is not predicted (no
 * BOS is added), so a text of T tokens contributes T-1 predictions. Over many texts, each
 * starting fresh at position 0:
 *   perplexity = exp(sum of -logprob over all texts / number of predicted tokens). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "as-shard-sum.h"
#include "as-trace.h"

G_BEGIN_DECLS

/* OUT [T-1] as defined above. Fails with AS_ERROR_INPUT when TRACE is not from a causal model or
 * holds only the last position's logits. */
gboolean as_token_logprobs (double *out, const AsTrace *trace, GError **error);

typedef struct
{
  double nll;         /* sum of -logprob over every predicted token (nll_sum's value) */
  AsShardSum nll_sum; /* the same sum held exactly: any order or sharding gives the same nll */
  gint64 n_predicted; /* predicted tokens */
  int n_texts;        /* texts added */
} AsPerplexity;

/* Adds TRACE's predictions to ACC (zero-initialise ACC first). Same failures as above. */
gboolean as_perplexity_add (AsPerplexity *acc, const AsTrace *trace, GError **error);

/* ACC as a shard's partial result (as-shard.h): {"texts": n, "predicted_tokens": n, "nll": exact
 * sum (as-shard-sum.h)}. */
JsonNode *as_perplexity_to_json (const AsPerplexity *acc);

/* Adds the partial result NODE to ACC exactly; fails with AS_ERROR_FORMAT naming WHAT. */
gboolean as_perplexity_merge_json (AsPerplexity *acc, JsonNode *node, const char *what,
                                   GError **error);

/* nll / n_predicted, or NaN when nothing was predicted. */
double as_perplexity_mean_nll (const AsPerplexity *acc);

/* exp(mean NLL), or NaN when nothing was predicted. */
double as_perplexity_value (const AsPerplexity *acc);

G_END_DECLS

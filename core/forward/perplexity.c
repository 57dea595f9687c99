/* perplexity.c — per-token log-probabilities and perplexity (definitions in as-perplexity.h).
 * log-softmax runs in double so that summing thousands of tokens keeps the 1e-9 relative
 * precision the README's perplexity is compared with. */
#include "as-perplexity.h"

#include <math.h>

#include "as-error.h"

/* log softmax(logits)[target], LOGITS [V], in double. */
static double
log_softmax_at (const float *logits, int vocab_size, int target)
{
  double max = logits[0];
  for (int v = 1; v < vocab_size; v++)
    if (logits[v] > max)
      max = logits[v];
  double sum = 0;
  for (int v = 0; v < vocab_size; v++)
    sum += exp ((double) logits[v] - max);
  return (double) logits[target] - max - log (sum);
}

gboolean
as_token_logprobs (double *out, const AsTrace *trace, GError **error)
{
  g_return_val_if_fail (trace != NULL, FALSE);
  if (!trace->causal)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "perplexity needs a causal language model; this trace is bidirectional");
      return FALSE;
    }
  if (trace->logits == NULL || trace->logits_rows != trace->n_tokens)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "perplexity needs the logits of all %d positions, the trace holds %d "
                   "(run the forward pass with all_logits)",
                   trace->n_tokens, trace->logits_rows);
      return FALSE;
    }
  for (int t = 0; t + 1 < trace->n_tokens; t++)
    {
      const float *row = trace->logits + (gsize) t * trace->vocab_size; /* [V] */
      out[t] = log_softmax_at (row, trace->vocab_size, trace->ids[t + 1]);
    }
  return TRUE;
}

gboolean
as_perplexity_add (AsPerplexity *acc, const AsTrace *trace, GError **error)
{
  g_return_val_if_fail (acc != NULL && trace != NULL, FALSE);
  int n = MAX (trace->n_tokens - 1, 0);
  g_autofree double *logprob = g_new0 (double, MAX (n, 1)); /* [T-1] */
  if (!as_token_logprobs (logprob, trace, error))
    return FALSE;
  for (int t = 0; t < n; t++)
    acc->nll -= logprob[t];
  acc->n_predicted += n;
  acc->n_texts++;
  return TRUE;
}

double
as_perplexity_mean_nll (const AsPerplexity *acc)
{
  g_return_val_if_fail (acc != NULL, NAN);
  if (acc->n_predicted == 0)
    return NAN;
  return acc->nll / (double) acc->n_predicted;
}

double
as_perplexity_value (const AsPerplexity *acc)
{
  return exp (as_perplexity_mean_nll (acc));
}

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
    as_shard_sum_add (&acc->nll_sum, -logprob[t]);
  acc->nll = as_shard_sum_value (&acc->nll_sum);
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

JsonNode *
as_perplexity_to_json (const AsPerplexity *acc)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "texts");
  json_builder_add_int_value (b, acc->n_texts);
  json_builder_set_member_name (b, "predicted_tokens");
  json_builder_add_int_value (b, acc->n_predicted);
  json_builder_set_member_name (b, "nll");
  as_shard_sum_to_json (b, &acc->nll_sum);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gboolean
count_member (JsonObject *o, const char *member, gint64 max, gint64 *out, const char *what,
              GError **error)
{
  JsonNode *node = json_object_get_member (o, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64 || json_node_get_int (node) < 0
      || json_node_get_int (node) > max)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the perplexity's \"%s\" is missing or not a count", what, member);
      return FALSE;
    }
  *out = json_node_get_int (node);
  return TRUE;
}

gboolean
as_perplexity_merge_json (AsPerplexity *acc, JsonNode *node, const char *what, GError **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: the perplexity is not an object", what);
      return FALSE;
    }
  JsonObject *o = json_node_get_object (node);
  gint64 texts, predicted;
  AsShardSum nll;
  g_autofree char *label = g_strdup_printf ("%s: the perplexity's \"nll\"", what);
  if (!count_member (o, "texts", G_MAXINT - acc->n_texts, &texts, what, error)
      || !count_member (o, "predicted_tokens", G_MAXINT64 - acc->n_predicted, &predicted, what,
                        error)
      || !as_shard_sum_from_json (&nll, json_object_get_member (o, "nll"), label, error))
    return FALSE;
  acc->n_texts += (int) texts;
  acc->n_predicted += predicted;
  as_shard_sum_merge (&acc->nll_sum, &nll);
  acc->nll = as_shard_sum_value (&acc->nll_sum);
  return TRUE;
}

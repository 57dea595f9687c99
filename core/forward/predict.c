/* predict.c — next-token top-K and greedy generation, as the seed 000 text prints them, and the
 * top-K at the masked positions of an encoder's input. */
#include "as-predict.h"

#include <math.h>

#include "as-error.h"
#include "as-forward.h"
#include "kernels-private.h"
#include "predict-private.h"
#include "simd-private.h"

/* Puts ID (logit L) into the sorted list BEST [*N] of at most K when it ranks there. */
static inline void
top_k_consider (const float *logits, int32_t id, int k, int32_t *best, int *n)
{
  float l = logits[id];
  if (*n == k && !as_predict_ranks_before (l, id, logits[best[k - 1]], best[k - 1]))
    return;
  int pos = *n < k ? (*n)++ : k - 1;
  while (pos > 0 && as_predict_ranks_before (l, id, logits[best[pos - 1]], best[pos - 1]))
    {
      best[pos] = best[pos - 1];
      pos--;
    }
  best[pos] = id;
}

/* Logits compared at once against the K-th best: a group whose largest logit is not larger is
 * skipped (later ids lose ties, so only a strictly larger logit can enter). The group's largest
 * is found in TOP_K_LANES lanes, which vectorises. */
#define TOP_K_GROUP 256
#define TOP_K_LANES 16

static inline float
group_max (const float *x)
{
  float lanes[TOP_K_LANES];
  for (int j = 0; j < TOP_K_LANES; j++)
    lanes[j] = x[j];
  for (int i = TOP_K_LANES; i < TOP_K_GROUP; i += TOP_K_LANES)
    for (int j = 0; j < TOP_K_LANES; j++)
      lanes[j] = x[i + j] > lanes[j] ? x[i + j] : lanes[j];
  float max = lanes[0];
  for (int j = 1; j < TOP_K_LANES; j++)
    max = lanes[j] > max ? lanes[j] : max;
  return max;
}

/* The K (or V, when smaller) best ids of LOGITS [V] into BEST [K], best first; returns how many. */
static inline int
best_ids (const float *logits, int V, int k, int32_t *best)
{
  k = MIN (k, V);
  /* insertion into a sorted list of K: K is small (≤ 100 in practice) */
  int n = 0;
  int32_t id = 0;
  for (; id < V && n < k; id++)
    top_k_consider (logits, id, k, best, &n);
  for (; id + TOP_K_GROUP <= V; id += TOP_K_GROUP)
    if (group_max (logits + id) > logits[best[k - 1]])
      for (int j = 0; j < TOP_K_GROUP; j++)
        top_k_consider (logits, id + j, k, best, &n);
  for (; id < V; id++)
    top_k_consider (logits, id, k, best, &n);
  return n;
}

AS_CLONES int
as_predict_top_k_ids (const float *logits, int V, int k, int32_t *best, float *probabilities)
{
  int n = best_ids (logits, V, k, best);
  float max = as_max_f32 (logits, V);
  double sum = as_sum_exp_shifted (logits, V, max);
  for (int i = 0; i < n; i++)
    probabilities[i] = (float) (exp ((double) logits[best[i]] - max) / sum);
  return n;
}

AsPrediction *
as_predict_from_top (const int32_t *ids, const float *logits, const float *probabilities, int n,
                     const AsTokenizer *tokenizer)
{
  AsPrediction *out = g_new0 (AsPrediction, n);
  for (int i = 0; i < n; i++)
    {
      out[i].id = ids[i];
      out[i].logit = logits[i];
      out[i].probability = probabilities[i];
      out[i].token = tokenizer != NULL ? as_tokenizer_decode (tokenizer, &ids[i], 1)
                                       : g_strdup_printf ("<%d>", ids[i]);
    }
  return out;
}

AsPrediction *
as_predict_from_ids (const float *logits, const int32_t *ids, const float *probabilities, int n,
                     const AsTokenizer *tokenizer)
{
  g_autofree float *id_logits = g_new (float, MAX (n, 1));
  for (int i = 0; i < n; i++)
    id_logits[i] = logits[ids[i]];
  return as_predict_from_top (ids, id_logits, probabilities, n, tokenizer);
}

AsPrediction *
as_predict_top_k_row (const float *logits, int V, const AsTokenizer *tokenizer, int k, int *n_out)
{
  k = MIN (k, V);
  g_autofree int32_t *best = g_new (int32_t, k);
  g_autofree float *probabilities = g_new (float, k);
  int n = as_predict_top_k_ids (logits, V, k, best, probabilities);
  *n_out = n;
  return as_predict_from_ids (logits, best, probabilities, n, tokenizer);
}

void
as_predict_rank (const float *logits, int V, int32_t id, int *rank, float *probability)
{
  g_return_if_fail (id >= 0 && id < V);
  int before = 0;
  for (int32_t j = 0; j < V; j++)
    before += as_predict_ranks_before (logits[j], j, logits[id], id);
  float max = as_max_f32 (logits, V);
  double sum = as_sum_exp_shifted (logits, V, max);
  *rank = before;
  *probability = (float) (exp ((double) logits[id] - max) / sum);
}

AsPrediction *
as_predict_top_k (const AsTrace *trace, const AsTokenizer *tokenizer, int k, int *n_out)
{
  g_return_val_if_fail (trace != NULL && trace->logits_rows > 0 && k > 0, NULL);
  return as_predict_top_k_row (as_trace_last_logits (trace), trace->vocab_size, tokenizer, k,
                               n_out);
}

AsMaskedPrediction *
as_predict_masked (const AsTrace *trace, const AsTokenizer *tokenizer, int k, int *n_masks,
                   GError **error)
{
  g_return_val_if_fail (trace != NULL && k > 0 && n_masks != NULL, NULL);
  int32_t mask = trace->special_ids[AS_SPECIAL_MASK];
  if (trace->vocab_size == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the model has no masked-LM head: it loads for attention only");
      return NULL;
    }
  if (mask < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the model's vocabulary has no mask token to predict at");
      return NULL;
    }
  g_return_val_if_fail (trace->logits_rows == trace->n_tokens, NULL);
  const char *name = tokenizer != NULL ? as_tokenizer_get_token (tokenizer, mask) : NULL;
  int n = 0;
  for (int i = 0; i < trace->n_tokens; i++)
    n += trace->ids[i] == mask;
  if (n == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the input has no mask token %s (id %d): put one where a word should be "
                   "predicted",
                   name != NULL ? name : "", mask);
      return NULL;
    }
  AsMaskedPrediction *out = g_new0 (AsMaskedPrediction, n);
  for (int i = 0, m = 0; i < trace->n_tokens; i++)
    if (trace->ids[i] == mask)
      {
        const float *row = trace->logits + (gsize) i * trace->vocab_size; /* [V] */
        out[m].position = i;
        out[m].top = as_predict_top_k_row (row, trace->vocab_size, tokenizer, k, &out[m].n_top);
        m++;
      }
  *n_masks = n;
  return out;
}

void
as_masked_predictions_free (AsMaskedPrediction *masks, int n_masks)
{
  if (masks == NULL)
    return;
  for (int i = 0; i < n_masks; i++)
    as_predictions_free (masks[i].top, masks[i].n_top);
  g_free (masks);
}

void
as_predictions_free (AsPrediction *predictions, int n)
{
  if (predictions == NULL)
    return;
  for (int i = 0; i < n; i++)
    g_free (predictions[i].token);
  g_free (predictions);
}

void
as_greedy_steps_free (AsGreedyStep *steps, int n_steps)
{
  if (steps == NULL)
    return;
  for (int i = 0; i < n_steps; i++)
    {
      g_free (steps[i].text);
      as_predictions_free (steps[i].top, steps[i].n_top);
    }
  g_free (steps);
}

char *
as_predict_dup_ids_text (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids)
{
  if (tokenizer != NULL)
    return as_tokenizer_decode (tokenizer, ids, n_ids);
  GString *text = g_string_new (NULL);
  for (gsize i = 0; i < n_ids; i++)
    g_string_append_printf (text, "<%d>", ids[i]);
  return g_string_free (text, FALSE);
}

/* The greedy loop from IDS (consumed); PROMPT is the text to extend in RETOKENIZE mode. */
static AsGreedyStep *
greedy_loop (AsModel *model, GArray *ids, const char *prompt, int n_steps, int k, AsGreedyMode mode,
             GCancellable *cancellable, GError **error)
{
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  AsForwardOptions options = { .all_logits = FALSE, .cancellable = cancellable };
  GString *text = g_string_new (prompt);
  AsGreedyStep *steps = g_new0 (AsGreedyStep, n_steps);
  for (int s = 0; s < n_steps; s++)
    {
      g_autoptr (AsTrace) trace
          = as_forward (model, &g_array_index (ids, int32_t, 0), (int) ids->len, &options, error);
      if (trace == NULL)
        {
          g_prefix_error (error, "step %d: ", s + 1);
          as_greedy_steps_free (steps, s);
          g_string_free (text, TRUE);
          g_array_unref (ids);
          return NULL;
        }
      steps[s].top = as_predict_top_k (trace, tokenizer, k, &steps[s].n_top);
      int32_t next = steps[s].top[0].id;
      if (mode == AS_GREEDY_RETOKENIZE)
        {
          g_string_append (text, steps[s].top[0].token);
          g_array_unref (ids);
          ids = as_tokenizer_encode (tokenizer, text->str, (gssize) text->len, error);
          g_assert (ids != NULL); /* decoded text is valid UTF-8 by construction */
        }
      else
        {
          g_array_append_val (ids, next);
          g_string_free (text, TRUE);
          text = g_string_new (NULL);
          g_autofree char *decoded
              = as_predict_dup_ids_text (tokenizer, (const int32_t *) ids->data, ids->len);
          g_string_append (text, decoded);
        }
      steps[s].text = g_strdup (text->str);
    }
  g_string_free (text, TRUE);
  g_array_unref (ids);
  return steps;
}

AsGreedyStep *
as_generate_greedy (AsModel *model, const char *prompt, int n_steps, int k, AsGreedyMode mode,
                    GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (model != NULL && prompt != NULL && n_steps > 0 && k > 0, NULL);
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  if (tokenizer == NULL)
    return NULL;
  GArray *ids = as_tokenizer_encode (tokenizer, prompt, -1, error);
  if (ids == NULL)
    return NULL;
  if (ids->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the prompt is empty");
      g_array_unref (ids);
      return NULL;
    }
  return greedy_loop (model, ids, prompt, n_steps, k, mode, cancellable, error);
}

AsGreedyStep *
as_generate_greedy_ids (AsModel *model, const int32_t *ids, int n_ids, int n_steps, int k,
                        GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (model != NULL && n_steps > 0 && k > 0, NULL);
  if (n_ids <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the prompt is empty");
      return NULL;
    }
  GArray *list = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), n_ids);
  g_array_append_vals (list, ids, n_ids);
  return greedy_loop (model, list, NULL, n_steps, k, AS_GREEDY_APPEND_IDS, cancellable, error);
}

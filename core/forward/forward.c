/* forward.c — the entry points of a forward pass: validate the input, size the memory, and run
 * the model family's forward (model/family-private.h). */
#include "as-forward.h"

#include "as-error.h"
#include "family-private.h"

int
as_forward_threads (void)
{
  const char *env = g_getenv ("ATTNSCOPE_THREADS");
  gint64 n = 0;
  if (env != NULL && g_ascii_string_to_signed (env, 10, 1, 256, &n, NULL))
    return (int) n;
  return MAX (1, (int) g_get_num_processors ());
}

/* The model's special-token ids [AS_N_SPECIAL]. */
static void
model_special_ids (const AsModel *model, int32_t *out)
{
  for (int i = 0; i < AS_N_SPECIAL; i++)
    out[i] = as_model_get_special_id (model, i);
}

static gboolean
check_ids (const AsModel *model, const int32_t *ids, int n_ids, const int32_t *type_ids,
           GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  if (n_ids <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "no tokens to run: the input is empty");
      return FALSE;
    }
  int b
      = as_segment_b_start (ids, type_ids, n_ids, as_model_get_special_id (model, AS_SPECIAL_SEP));
  if (n_ids > c->n_positions && b >= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the pair has %d tokens (%d in the first text and %d in the second, special "
                   "tokens included) but the model's context length is %d tokens; shorten the "
                   "texts or use --truncate to drop tokens from the longer text first",
                   n_ids, b, n_ids - b, c->n_positions);
      return FALSE;
    }
  if (n_ids > c->n_positions)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the input has %d tokens but the model's context length is %d tokens; "
                   "shorten the text or use --truncate to keep the first %d",
                   n_ids, c->n_positions, c->n_positions);
      return FALSE;
    }
  /* a model without token types takes 0/1 as the segment marks of a pair */
  int n_types = c->type_vocab_size > 0 ? c->type_vocab_size : 2;
  for (int i = 0; type_ids != NULL && i < n_ids; i++)
    if (type_ids[i] < 0 || type_ids[i] >= n_types)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "token type %d at position %d is outside the model's token types (0..%d)",
                     type_ids[i], i, n_types - 1);
        return FALSE;
      }
  for (int i = 0; i < n_ids; i++)
    if (ids[i] < 0 || ids[i] >= c->vocab_size)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "token id %d at position %d is outside the vocabulary (0..%d)", ids[i], i,
                     c->vocab_size - 1);
        return FALSE;
      }
  return TRUE;
}

AsTrace *
as_forward (AsModel *model, const int32_t *ids, int n_ids, const AsForwardOptions *options,
            GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  const int32_t *type_ids = options != NULL ? options->type_ids : NULL;
  if (!check_ids (model, ids, n_ids, type_ids, error))
    return NULL;

  gboolean all_logits = options != NULL && options->all_logits;
  guint64 bytes = as_trace_bytes (c->n_layer, c->n_head, n_ids, c->n_embd, c->head_dim,
                                  c->vocab_size, all_logits)
                  + c->ops->scratch_bytes (c, n_ids);
  g_autofree char *what = g_strdup_printf ("A forward pass over %d tokens", n_ids);
  if (!as_memory_check (bytes, what, error))
    return NULL;
  AsTrace *trace = c->ops->forward (model, ids, n_ids, options, error);
  if (trace == NULL)
    return NULL;
  int32_t special[AS_N_SPECIAL];
  model_special_ids (model, special);
  as_trace_set_segments (trace, type_ids, c->type_vocab_size > 0, special);
  return trace;
}

AsTrace *
as_forward_pair (AsModel *model, const char *text, const char *pair, gboolean truncate,
                 const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (model != NULL && text != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  if (*text == '\0' || (pair != NULL && *pair == '\0'))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the %s is empty",
                   *text == '\0' ? "text" : "pair's second text");
      return NULL;
    }
  g_autoptr (AsEncoding) enc = as_tokenizer_encode_full (as_model_get_tokenizer (model), text, -1,
                                                         pair, -1, AS_ENCODE_DEFAULT, error);
  if (enc == NULL)
    return NULL;
  if (enc->ids->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the text gives no tokens");
      return NULL;
    }
  /* a single text keeps the caller's type ids; a pair's come from the tokenizer */
  GArray *types = pair != NULL ? enc->type_ids : NULL;
  if (truncate && !as_truncate_input (model, enc->ids, types, c->n_positions, error))
    return NULL;
  AsForwardOptions with_types = { 0 };
  if (options != NULL)
    with_types = *options;
  if (types != NULL)
    with_types.type_ids = &g_array_index (types, int32_t, 0);
  return as_forward (model, &g_array_index (enc->ids, int32_t, 0), (int) enc->ids->len, &with_types,
                     error);
}

AsTrace *
as_forward_text (AsModel *model, const char *text, gboolean truncate,
                 const AsForwardOptions *options, GError **error)
{
  return as_forward_pair (model, text, NULL, truncate, options, error);
}

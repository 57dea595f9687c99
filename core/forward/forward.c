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

static gboolean
check_ids (const AsConfig *c, const int32_t *ids, int n_ids, GError **error)
{
  if (n_ids <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "no tokens to run: the input is empty");
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
  if (!check_ids (c, ids, n_ids, error))
    return NULL;

  gboolean all_logits = options != NULL && options->all_logits;
  guint64 bytes = as_trace_bytes (c->n_layer, c->n_head, n_ids, c->n_embd, c->head_dim,
                                  c->vocab_size, all_logits)
                  + c->ops->scratch_bytes (c, n_ids);
  g_autofree char *what = g_strdup_printf ("A forward pass over %d tokens", n_ids);
  if (!as_memory_check (bytes, what, error))
    return NULL;
  return c->ops->forward (model, ids, n_ids, options, error);
}

AsTrace *
as_forward_text (AsModel *model, const char *text, gboolean truncate,
                 const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (model != NULL && text != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  if (*text == '\0')
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the text is empty");
      return NULL;
    }
  g_autoptr (GArray) ids = as_tokenizer_encode (as_model_get_tokenizer (model), text, -1, error);
  if (ids == NULL)
    return NULL;
  if (ids->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the text gives no tokens");
      return NULL;
    }
  int n = (int) ids->len;
  if (truncate && n > c->n_positions)
    n = c->n_positions;
  return as_forward (model, &g_array_index (ids, int32_t, 0), n, options, error);
}

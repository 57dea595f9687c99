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

/* Fails unless 1 ≤ N_IDS ≤ the model's positions and every id is in the vocabulary. WHAT names
 * the ids in messages ("the input", "the source"); TRUNCATE_HINT says --truncate would help. */
static gboolean
check_ids (const AsConfig *c, const int32_t *ids, int n_ids, const char *what,
           gboolean truncate_hint, GError **error)
{
  if (n_ids <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "no tokens to run: %s is empty", what);
      return FALSE;
    }
  if (n_ids > c->n_positions)
    {
      if (truncate_hint)
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "%s has %d tokens but the model's context length is %d tokens; "
                     "shorten the text or use --truncate to keep the first %d",
                     what, n_ids, c->n_positions, c->n_positions);
      else
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "%s has %d tokens but the model has %d positions; shorten it", what, n_ids,
                     c->n_positions);
      return FALSE;
    }
  for (int i = 0; i < n_ids; i++)
    if (ids[i] < 0 || ids[i] >= c->vocab_size)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "%s: token id %d at position %d is outside the vocabulary (0..%d)", what,
                     ids[i], i, c->vocab_size - 1);
        return FALSE;
      }
  return TRUE;
}

/* Fails for an encoder–decoder model, which needs a source and a target (as_forward_pair). */
static gboolean
check_single_stack (const AsModel *model, GError **error)
{
  if (!as_model_get_config (model)->encoder_decoder)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "%s is an encoder–decoder (translation) model: it runs on a source text and a "
               "target text (run --text SRC --target TGT, or translate --text SRC)",
               as_model_get_name (model));
  return FALSE;
}

AsTrace *
as_forward (AsModel *model, const int32_t *ids, int n_ids, const AsForwardOptions *options,
            GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  if (!check_single_stack (model, error) || !check_ids (c, ids, n_ids, "the input", TRUE, error))
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

/* Tokenizes TEXT (naming it WHAT in messages) with the source or, for TARGET, the target side. */
static GArray *
encode_text (AsModel *model, const char *text, const char *what, gboolean target, GError **error)
{
  if (*text == '\0')
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s is empty", what);
      return NULL;
    }
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  g_autoptr (GArray) ids = target ? as_tokenizer_encode_target (tokenizer, text, -1, error)
                                  : as_tokenizer_encode (tokenizer, text, -1, error);
  if (ids == NULL)
    return NULL;
  if (ids->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s gives no tokens", what);
      return NULL;
    }
  return g_steal_pointer (&ids);
}

AsTrace *
as_forward_text (AsModel *model, const char *text, gboolean truncate,
                 const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (model != NULL && text != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  if (!check_single_stack (model, error))
    return NULL;
  g_autoptr (GArray) ids = encode_text (model, text, "the text", FALSE, error);
  if (ids == NULL)
    return NULL;
  int n = (int) ids->len;
  if (truncate && n > c->n_positions)
    n = c->n_positions;
  return as_forward (model, &g_array_index (ids, int32_t, 0), n, options, error);
}

AsTrace *
as_forward_pair (AsModel *model, const int32_t *src, int n_src, const int32_t *tgt, int n_tgt,
                 const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  if (!c->encoder_decoder)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s is not an encoder–decoder model: it takes one text, not a source and a "
                   "target",
                   as_model_get_name (model));
      return NULL;
    }
  if (!check_ids (c, src, n_src, "the source", FALSE, error)
      || !check_ids (c, tgt, n_tgt, "the decoder input", FALSE, error))
    return NULL;

  gboolean all_logits = options != NULL && options->all_logits;
  int he = c->n_encoder_head;
  guint64 bytes
      = as_trace_bytes (c->n_layer, c->n_head, n_tgt, c->n_embd, c->head_dim, c->vocab_size,
                        all_logits)
        + as_trace_bytes (c->n_encoder_layer, he, n_src, c->n_embd, c->n_embd / he, 0, FALSE)
        + (guint64) c->n_layer * c->n_head * n_tgt * n_src * sizeof (float)
        + c->ops->scratch_bytes (c, MAX (n_src, n_tgt));
  g_autofree char *what
      = g_strdup_printf ("A forward pass over %d source and %d target tokens", n_src, n_tgt);
  if (!as_memory_check (bytes, what, error))
    return NULL;
  return c->ops->forward_pair (model, src, n_src, tgt, n_tgt, options, error);
}

AsTrace *
as_forward_pair_text (AsModel *model, const char *source, const char *target,
                      const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (model != NULL && source != NULL && target != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  g_autoptr (GArray) src = encode_text (model, source, "the source text", FALSE, error);
  if (src == NULL)
    return NULL;
  g_autoptr (GArray) tgt = encode_text (model, target, "the target text", TRUE, error);
  if (tgt == NULL)
    return NULL;
  if (c->decoder_start_token_id < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: config.json has no decoder_start_token_id to start the target with",
                   as_model_get_name (model));
      return NULL;
    }
  int32_t start = c->decoder_start_token_id;
  g_array_prepend_val (tgt, start);
  return as_forward_pair (model, &g_array_index (src, int32_t, 0), (int) src->len,
                          &g_array_index (tgt, int32_t, 0), (int) tgt->len, options, error);
}

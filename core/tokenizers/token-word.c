/* token-word.c — the one token a word stands for, for the commands and pages that follow a
 * chosen token's logit (lens, attribution, ablation scans, patching).
 *
 * A user names the token by the text it adds: " car" after "The man hit the" is GPT-2's
 * "Ġcar", "car" at the start of a SentencePiece text is "▁car". The word is encoded as the
 * tokenizer encodes any text (without the special tokens a post-processor adds); it must come
 * out as exactly one id. A word the vocabulary splits is refused with its pieces, so the user
 * sees why and what to choose instead. */
#include "as-error.h"
#include "as-tokenizer.h"

static char *
describe_pieces (const AsTokenizer *tokenizer, const GArray *ids)
{
  GString *pieces = g_string_new (NULL);
  for (guint i = 0; i < ids->len; i++)
    {
      int32_t id = g_array_index (ids, int32_t, i);
      g_autofree char *text = as_tokenizer_dup_token_text (tokenizer, id);
      g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);
      g_string_append_printf (pieces, "%s“%s” (%d)", i > 0 ? " + " : "", valid, id);
    }
  return g_string_free (pieces, FALSE);
}

gboolean
as_tokenizer_word_id (AsTokenizer *tokenizer, const char *word, int32_t *id, GError **error)
{
  g_return_val_if_fail (tokenizer != NULL && word != NULL && id != NULL, FALSE);

  if (*word == '\0')
    {
      g_set_error_literal (error, AS_ERROR, AS_ERROR_INPUT,
                           "the token is empty: give the text of one token, e.g. \" car\"");
      return FALSE;
    }
  g_autoptr (AsEncoding) encoding
      = as_tokenizer_encode_full (tokenizer, word, -1, NULL, 0, AS_ENCODE_NO_SPECIAL, error);
  if (encoding == NULL)
    return FALSE;
  /* a word is no special token; Marian's tokenizer appends its </s> to every text */
  for (guint i = encoding->ids->len; i-- > 0;)
    if (as_tokenizer_is_special (tokenizer, g_array_index (encoding->ids, int32_t, i)))
      g_array_remove_index (encoding->ids, i);
  if (encoding->ids->len != 1)
    {
      g_autofree char *valid = g_utf8_make_valid (word, -1);
      if (encoding->ids->len == 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "“%s” gives no token in this vocabulary (%s)", valid,
                       as_tokenizer_get_source (tokenizer));
          return FALSE;
        }
      g_autofree char *pieces = describe_pieces (tokenizer, encoding->ids);
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "“%s” is not one token in this vocabulary: it is %u tokens, %s; give a word "
                   "that is one token, or the token's id",
                   valid, encoding->ids->len, pieces);
      return FALSE;
    }
  *id = g_array_index (encoding->ids, int32_t, 0);
  return TRUE;
}

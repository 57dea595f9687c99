/* tokenizer.c — what every tokenizer kind shares: vocabulary queries, freeing, the UTF-8 check,
 * and the dispatch of encode/decode on the kind (see tokenizer-private.h). */
#include "tokenizer-private.h"

#include "as-error.h"
#include "byte-unicode-private.h"
#include "tokenizer-marian-private.h"
#include "utf8-replace-private.h"

#include <string.h>

void
as_tokenizer_free (AsTokenizer *tokenizer)
{
  if (tokenizer == NULL)
    return;
  if (tokenizer->kind == AS_TOKENIZER_BPE)
    as_tokenizer_bpe_clear (tokenizer);
  if (tokenizer->kind == AS_TOKENIZER_MARIAN)
    as_tokenizer_marian_clear (tokenizer);
  g_clear_pointer (&tokenizer->source, g_free);
  g_clear_pointer (&tokenizer->token_to_id, g_hash_table_unref);
  g_clear_pointer (&tokenizer->id_to_token, g_ptr_array_unref);
  g_free (tokenizer);
}

gboolean
as_tokenizer_check_utf8 (const char *text, gsize length, GError **error)
{
  gsize valid = as_utf8_valid_prefix (text, length);
  if (valid == length)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "text is not valid UTF-8: byte 0x%02X at byte offset %zu does not start or "
               "continue a character",
               (guint8) text[valid], (size_t) valid);
  return FALSE;
}

/* TEXT's ids; the target side of a translation model's tokenizer when TARGET. */
static GArray *
encode_side (AsTokenizer *tokenizer, const char *text, gssize length, gboolean target,
             GError **error)
{
  g_return_val_if_fail (tokenizer != NULL, NULL);
  g_return_val_if_fail (text != NULL || length == 0, NULL);

  gsize n = length < 0 ? strlen (text) : (gsize) length;
  if (!as_tokenizer_check_utf8 (text, n, error))
    return NULL;

  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  gboolean ok = FALSE;
  switch (tokenizer->kind)
    {
    case AS_TOKENIZER_BPE:
      ok = as_tokenizer_bpe_encode (tokenizer, text, n, ids, error);
      break;
    case AS_TOKENIZER_WORDS:
      ok = as_tokenizer_words_encode (tokenizer, text, n, ids, error);
      break;
    case AS_TOKENIZER_MARIAN:
      ok = as_tokenizer_marian_encode (tokenizer, text, n, target, ids, error);
      break;
    }
  return ok ? g_steal_pointer (&ids) : NULL;
}

GArray *
as_tokenizer_encode (AsTokenizer *tokenizer, const char *text, gssize length, GError **error)
{
  return encode_side (tokenizer, text, length, FALSE, error);
}

GArray *
as_tokenizer_encode_target (AsTokenizer *tokenizer, const char *text, gssize length, GError **error)
{
  return encode_side (tokenizer, text, length, TRUE, error);
}

char *
as_tokenizer_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids)
{
  g_return_val_if_fail (tokenizer != NULL, NULL);
  g_return_val_if_fail (ids != NULL || n_ids == 0, NULL);

  switch (tokenizer->kind)
    {
    case AS_TOKENIZER_BPE:
      return as_tokenizer_bpe_decode (tokenizer, ids, n_ids);
    case AS_TOKENIZER_WORDS:
      return as_tokenizer_words_decode (tokenizer, ids, n_ids);
    case AS_TOKENIZER_MARIAN:
      return as_tokenizer_marian_decode (tokenizer, ids, n_ids);
    }
  g_assert_not_reached ();
}

const char *
as_tokenizer_get_token (const AsTokenizer *tokenizer, int32_t id)
{
  g_return_val_if_fail (tokenizer != NULL, NULL);
  if (id < 0 || (guint) id >= tokenizer->id_to_token->len)
    return NULL;
  return g_ptr_array_index (tokenizer->id_to_token, id);
}

char *
as_tokenizer_dup_token_text (const AsTokenizer *tokenizer, int32_t id)
{
  const char *token = as_tokenizer_get_token (tokenizer, id);
  if (token == NULL)
    return NULL;
  char *text = tokenizer->kind == AS_TOKENIZER_BPE ? as_byte_level_token_text (token)
               : tokenizer->kind == AS_TOKENIZER_MARIAN
                   ? as_tokenizer_marian_token_text (tokenizer, id)
                   : NULL;
  return text != NULL ? text : g_strdup (token);
}

gboolean
as_tokenizer_is_special (const AsTokenizer *tokenizer, int32_t id)
{
  g_return_val_if_fail (tokenizer != NULL, FALSE);
  if (tokenizer->kind == AS_TOKENIZER_MARIAN)
    return as_tokenizer_marian_is_special (tokenizer, id);
  return tokenizer->kind == AS_TOKENIZER_BPE && id >= 0 && id == tokenizer->end_of_text_id;
}

int32_t
as_tokenizer_lookup (const AsTokenizer *tokenizer, const char *token)
{
  g_return_val_if_fail (tokenizer != NULL, -1);
  g_return_val_if_fail (token != NULL, -1);
  gpointer value;
  if (!g_hash_table_lookup_extended (tokenizer->token_to_id, token, NULL, &value))
    return -1;
  return GPOINTER_TO_INT (value);
}

int32_t
as_tokenizer_lookup_len (const AsTokenizer *tokenizer, const char *token, gsize length)
{
  char stack[128];
  if (length < sizeof stack)
    {
      memcpy (stack, token, length);
      stack[length] = '\0';
      return as_tokenizer_lookup (tokenizer, stack);
    }
  g_autofree char *copy = g_strndup (token, length);
  return as_tokenizer_lookup (tokenizer, copy);
}

const char *
as_tokenizer_get_source (const AsTokenizer *tokenizer)
{
  g_return_val_if_fail (tokenizer != NULL, NULL);
  return tokenizer->source;
}

int
as_tokenizer_get_vocab_size (const AsTokenizer *tokenizer)
{
  g_return_val_if_fail (tokenizer != NULL, 0);
  return (int) tokenizer->id_to_token->len;
}

/* tokenizer.c — what every tokenizer kind shares: vocabulary queries, freeing, the UTF-8 check,
 * the encode entry points and the dispatch of encode/decode on the kind (tokenizer-private.h). */
#include "tokenizer-private.h"

#include "as-error.h"
#include "byte-unicode-private.h"
#include "tokenizer-marian-private.h"
#include "utf8-replace-private.h"

#include <string.h>

const char *const as_tokenizer_role_names[AS_TOKENIZER_N_ROLES] = {
  "bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token",
};

AsTokenizer *
as_tokenizer_new_kind (AsTokenizerKind kind, const char *source)
{
  AsTokenizer *tokenizer = g_new0 (AsTokenizer, 1);
  tokenizer->kind = kind;
  tokenizer->source = g_strdup (source);
  tokenizer->end_of_text_id = -1;
  tokenizer->config_add_bos = tokenizer->config_add_eos = -1;
  tokenizer->config_lowercase = tokenizer->config_strip_accents = tokenizer->config_chinese = -1;
  return tokenizer;
}

void
as_tokenizer_free (AsTokenizer *tokenizer)
{
  if (tokenizer == NULL)
    return;
  if (tokenizer->kind == AS_TOKENIZER_BPE)
    as_tokenizer_bpe_clear (tokenizer);
  if (tokenizer->kind == AS_TOKENIZER_MARIAN)
    as_tokenizer_marian_clear (tokenizer);
  g_clear_pointer (&tokenizer->hf, as_hf_tokenizer_free);
  for (guint i = 0; i < AS_TOKENIZER_N_ROLES; i++)
    g_free (tokenizer->role_tokens[i]);
  g_clear_pointer (&tokenizer->source, g_free);
  g_clear_pointer (&tokenizer->token_to_id, g_hash_table_unref);
  g_clear_pointer (&tokenizer->id_to_token, g_ptr_array_unref);
  g_clear_pointer (&tokenizer->extra_names, g_ptr_array_unref);
  g_free (tokenizer);
}

void
as_encoding_free (AsEncoding *encoding)
{
  if (encoding == NULL)
    return;
  g_clear_pointer (&encoding->ids, g_array_unref);
  g_clear_pointer (&encoding->type_ids, g_array_unref);
  g_clear_pointer (&encoding->special_mask, g_array_unref);
  g_free (encoding);
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

/* The ids of one sequence, without special tokens added around it (a Marian tokenizer appends
 * its </s> itself), on a translation model's target side when TARGET. */
static gboolean
encode_side (AsTokenizer *tokenizer, const char *text, gsize n, gboolean target, GArray *ids,
             GError **error)
{
  if (!as_tokenizer_check_utf8 (text, n, error))
    return FALSE;
  switch (tokenizer->kind)
    {
    case AS_TOKENIZER_BPE:
      return as_tokenizer_bpe_encode (tokenizer, text, n, ids, error);
    case AS_TOKENIZER_WORDS:
      return as_tokenizer_words_encode (tokenizer, text, n, ids, error);
    case AS_TOKENIZER_HF:
      return as_hf_tokenizer_encode_sequence (tokenizer->hf, text, n, ids, error);
    case AS_TOKENIZER_MARIAN:
      return as_tokenizer_marian_encode (tokenizer, text, n, target, ids, error);
    }
  g_assert_not_reached ();
}

static gboolean
encode_sequence (AsTokenizer *tokenizer, const char *text, gsize n, GArray *ids, GError **error)
{
  return encode_side (tokenizer, text, n, FALSE, ids, error);
}

AsEncoding *
as_tokenizer_encode_full (AsTokenizer *tokenizer, const char *text, gssize length, const char *pair,
                          gssize pair_length, AsEncodeFlags flags, GError **error)
{
  g_return_val_if_fail (tokenizer != NULL, NULL);
  g_return_val_if_fail (text != NULL || length == 0, NULL);

  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (int32_t));
  g_autoptr (GArray) b = NULL;
  gsize n = length < 0 ? strlen (text) : (gsize) length;
  if (!encode_sequence (tokenizer, text, n, a, error))
    return NULL;
  if (pair != NULL)
    {
      b = g_array_new (FALSE, FALSE, sizeof (int32_t));
      gsize m = pair_length < 0 ? strlen (pair) : (gsize) pair_length;
      if (!encode_sequence (tokenizer, pair, m, b, error))
        {
          g_prefix_error (error, "the pair's second text: ");
          return NULL;
        }
    }

  g_autoptr (AsEncoding) encoding = g_new0 (AsEncoding, 1);
  encoding->ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  encoding->type_ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  encoding->special_mask = g_array_new (FALSE, FALSE, sizeof (guint8));
  const AsHfPostProcessor *post
      = tokenizer->kind == AS_TOKENIZER_HF ? tokenizer->hf->postprocessor : NULL;
  as_hf_postprocessor_apply (post, a, b, (flags & AS_ENCODE_NO_SPECIAL) == 0, encoding->ids,
                             encoding->type_ids, encoding->special_mask);
  return g_steal_pointer (&encoding);
}

GArray *
as_tokenizer_encode (AsTokenizer *tokenizer, const char *text, gssize length, GError **error)
{
  AsEncoding *encoding
      = as_tokenizer_encode_full (tokenizer, text, length, NULL, 0, AS_ENCODE_DEFAULT, error);
  if (encoding == NULL)
    return NULL;
  GArray *ids = g_steal_pointer (&encoding->ids);
  as_encoding_free (encoding);
  return ids;
}

GArray *
as_tokenizer_encode_target (AsTokenizer *tokenizer, const char *text, gssize length, GError **error)
{
  g_return_val_if_fail (tokenizer != NULL, NULL);
  g_return_val_if_fail (text != NULL || length == 0, NULL);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  gsize n = length < 0 ? strlen (text) : (gsize) length;
  if (!encode_side (tokenizer, text, n, TRUE, ids, error))
    return NULL;
  return g_steal_pointer (&ids);
}

/* HF's decode: each id's token (skipping unknown ids) through the decoder. */
static char *
hf_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids)
{
  g_autoptr (GPtrArray) tokens = g_ptr_array_new ();
  for (gsize i = 0; i < n_ids; i++)
    {
      const char *token = as_tokenizer_get_token (tokenizer, ids[i]);
      if (token != NULL)
        g_ptr_array_add (tokens, (gpointer) token);
    }
  gsize length;
  return as_hf_decoder_decode (tokenizer->hf->decoder, tokens, FALSE, &length);
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
    case AS_TOKENIZER_HF:
      return hf_decode (tokenizer, ids, n_ids);
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

gboolean
as_tokenizer_is_special (const AsTokenizer *tokenizer, int32_t id)
{
  g_return_val_if_fail (tokenizer != NULL, FALSE);
  if (tokenizer->kind == AS_TOKENIZER_HF)
    {
      const AsHfAddedToken *t = as_hf_added_find_id (tokenizer->hf->added, id);
      return t != NULL && t->special;
    }
  if (tokenizer->kind == AS_TOKENIZER_MARIAN)
    return as_tokenizer_marian_is_special (tokenizer, id);
  return tokenizer->kind == AS_TOKENIZER_BPE && id >= 0 && id == tokenizer->end_of_text_id;
}

char *
as_tokenizer_dup_token_text (const AsTokenizer *tokenizer, int32_t id)
{
  const char *token = as_tokenizer_get_token (tokenizer, id);
  if (token == NULL)
    return NULL;
  char *text = NULL;
  if (tokenizer->kind == AS_TOKENIZER_BPE)
    text = as_byte_level_token_text (token);
  else if (tokenizer->kind == AS_TOKENIZER_MARIAN)
    text = as_tokenizer_marian_token_text (tokenizer, id);
  else if (tokenizer->kind == AS_TOKENIZER_HF && as_tokenizer_is_special (tokenizer, id))
    return g_strdup (as_hf_added_find_id (tokenizer->hf->added, id)->content);
  else if (tokenizer->kind == AS_TOKENIZER_HF)
    {
      GPtrArray one = { (gpointer *) &token, 1 };
      gsize length;
      text = as_hf_decoder_decode (tokenizer->hf->decoder, &one, TRUE, &length);
      if (strlen (text) != length || length == 0)
        g_clear_pointer (&text, g_free); /* holds byte 0, or stands for nothing */
    }
  return text != NULL ? text : g_strdup (token);
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

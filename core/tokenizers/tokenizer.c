/* tokenizer.c — what every tokenizer kind shares: vocabulary queries, freeing, the UTF-8 check and
 * the encode entry points. A kind is reached only through its class (tokenizer-private.h). */
#include "tokenizer-private.h"

#include <string.h>

#include "as-error.h"
#include "memory-private.h"
#include "utf8-replace-private.h"

AsTokenizer *
as_tokenizer_new (const AsTokenizerClass *klass, const char *source)
{
  g_assert (klass->encode != NULL && klass->decode != NULL);
  AsTokenizer *tokenizer = g_new0 (AsTokenizer, 1);
  tokenizer->klass = klass;
  tokenizer->source = g_strdup (source);
  return tokenizer;
}

void
as_tokenizer_init_vocabulary (AsTokenizer *tokenizer)
{
  g_assert (tokenizer->id_to_token == NULL && tokenizer->token_to_id == NULL);
  tokenizer->id_to_token = g_ptr_array_new_with_free_func (g_free);
  tokenizer->token_to_id = g_hash_table_new (g_str_hash, g_str_equal);
}

void
as_tokenizer_free (AsTokenizer *tokenizer)
{
  if (tokenizer == NULL)
    return;
  if (tokenizer->data != NULL && tokenizer->klass->clear != NULL)
    tokenizer->klass->clear (tokenizer->data);
  as_memory_release (tokenizer->held);
  g_clear_pointer (&tokenizer->source, g_free);
  g_clear_pointer (&tokenizer->token_to_id, g_hash_table_unref);
  g_clear_pointer (&tokenizer->id_to_token, g_ptr_array_unref);
  g_clear_pointer (&tokenizer->extra_names, g_ptr_array_unref);
  g_free (tokenizer);
}

/* A vocabulary string's cost: its bytes and NUL, its malloc header, a slot of id_to_token and an
 * entry of token_to_id (key, value, hash). */
#define TOKEN_OVERHEAD 48

static guint64
vocabulary_bytes (const AsTokenizer *tokenizer)
{
  guint64 bytes = sizeof *tokenizer;
  for (guint i = 0; i < tokenizer->id_to_token->len; i++)
    {
      const char *token = g_ptr_array_index (tokenizer->id_to_token, i);
      bytes += sizeof (gpointer) + (token != NULL ? strlen (token) + 1 + TOKEN_OVERHEAD : 0);
    }
  for (guint i = 0; tokenizer->extra_names != NULL && i < tokenizer->extra_names->len; i++)
    bytes += strlen (g_ptr_array_index (tokenizer->extra_names, i)) + 1 + TOKEN_OVERHEAD;
  return bytes;
}

AsTokenizer *
as_tokenizer_finish (AsTokenizer *tokenizer, GError **error)
{
  guint64 bytes = vocabulary_bytes (tokenizer);
  if (tokenizer->klass->data_bytes != NULL)
    bytes += tokenizer->klass->data_bytes (tokenizer);
  g_autofree char *what = g_strdup_printf ("the tokenizer of %s", tokenizer->source);
  if (!as_memory_check_advice (bytes, what, "free memory or raise ATTNSCOPE_MEMORY_LIMIT", error))
    {
      as_tokenizer_free (tokenizer);
      return NULL;
    }
  as_memory_hold (bytes);
  tokenizer->held = bytes;
  return tokenizer;
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

/* Sets an AS_ERROR_INPUT error and returns FALSE when TEXT is not valid UTF-8. */
static gboolean
check_utf8 (const char *text, gsize length, GError **error)
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

/* The ids of one sequence, without the special tokens the post-processor adds (a Marian
 * tokenizer appends its </s> itself), on a translation model's target side when TARGET. */
static gboolean
encode_side (AsTokenizer *tokenizer, const char *text, gsize n, gboolean target, GArray *ids,
             GError **error)
{
  return check_utf8 (text, n, error)
         && tokenizer->klass->encode (tokenizer, text, n, target, ids, error);
}

/* The default post-processing: the sequences one after the other, nothing added. */
static void
concatenate (const GArray *a, const GArray *b, AsEncoding *encoding)
{
  for (int side = 0; side < 2; side++)
    {
      const GArray *ids = side == 0 ? a : b;
      if (ids == NULL)
        continue;
      int32_t type = side;
      guint8 special = 0;
      g_array_append_vals (encoding->ids, ids->data, ids->len);
      for (guint i = 0; i < ids->len; i++)
        {
          g_array_append_val (encoding->type_ids, type);
          g_array_append_val (encoding->special_mask, special);
        }
    }
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
  if (!encode_side (tokenizer, text, n, FALSE, a, error))
    return NULL;
  if (pair != NULL)
    {
      b = g_array_new (FALSE, FALSE, sizeof (int32_t));
      gsize m = pair_length < 0 ? strlen (pair) : (gsize) pair_length;
      if (!encode_side (tokenizer, pair, m, FALSE, b, error))
        {
          g_prefix_error (error, "the pair's second text: ");
          return NULL;
        }
    }

  g_autoptr (AsEncoding) encoding = g_new0 (AsEncoding, 1);
  encoding->ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  encoding->type_ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  encoding->special_mask = g_array_new (FALSE, FALSE, sizeof (guint8));
  gboolean add_special = (flags & AS_ENCODE_NO_SPECIAL) == 0;
  if (tokenizer->klass->post_process != NULL)
    tokenizer->klass->post_process (tokenizer, a, b, add_special, encoding);
  else
    concatenate (a, b, encoding);
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
  if (tokenizer->klass->post_process == NULL)
    return g_steal_pointer (&ids);
  /* text_target adds the special tokens as text does (T5's </s>, BART's <s> … </s>, Marian's
   * </s>): the same post-processor on the target side's ids */
  g_autoptr (AsEncoding) encoding = g_new0 (AsEncoding, 1);
  encoding->ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  encoding->type_ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  encoding->special_mask = g_array_new (FALSE, FALSE, sizeof (guint8));
  tokenizer->klass->post_process (tokenizer, ids, NULL, TRUE, encoding);
  return g_steal_pointer (&encoding->ids);
}

char *
as_tokenizer_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids)
{
  g_return_val_if_fail (tokenizer != NULL, NULL);
  g_return_val_if_fail (ids != NULL || n_ids == 0, NULL);
  /* ids out of range are skipped, as documented: the kinds see only ids with a token */
  g_autofree int32_t *known = g_new (int32_t, MAX (n_ids, 1));
  gsize n_known = 0;
  for (gsize i = 0; i < n_ids; i++)
    if (as_tokenizer_get_token (tokenizer, ids[i]) != NULL)
      known[n_known++] = ids[i];
  return tokenizer->klass->decode (tokenizer, known, n_known);
}

/* A prefix of TEXT at least AT bytes long that ends where white space begins (the first such
 * end at or after AT, or at a character boundary when none follows within as many bytes again);
 * LENGTH when none is shorter than the text. */
static gsize
cut_at (const char *text, gsize length, gsize at)
{
  if (at >= length)
    return length;
  const char *p = g_utf8_find_next_char (text + at - 1, text + length);
  const char *limit = text + MIN (length, 2 * at);
  for (const char *q = p; q != NULL && q < limit; q = g_utf8_find_next_char (q, text + length))
    if (g_unichar_isspace (g_utf8_get_char (q))
        && !g_unichar_isspace (g_utf8_get_char (g_utf8_prev_char (q))))
      return (gsize) (q - text);
  return p != NULL ? (gsize) (p - text) : length;
}

/* The ids of TEXT[0, LENGTH) as one sequence. */
static GArray *
encode_prefix (AsTokenizer *tokenizer, const char *text, gsize length, GError **error)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  if (!encode_side (tokenizer, text, length, FALSE, ids, error))
    return NULL;
  return g_steal_pointer (&ids);
}

/* Ids past the ones compared: the cut can change the last few tokens of a prefix. */
#define PREFIX_MARGIN 32

gboolean
as_tokenizer_prefix_for (AsTokenizer *tokenizer, const char *text, gsize length, int max_ids,
                         gsize *prefix, GError **error)
{
  g_return_val_if_fail (tokenizer != NULL && max_ids >= 0, FALSE);
  guint want = (guint) max_ids + 1 + PREFIX_MARGIN;
  /* most tokens are a few bytes: the first window usually suffices */
  gsize window = MAX (4096, 16 * (gsize) want);
  *prefix = length;
  for (;;)
    {
      gsize first = cut_at (text, length, window);
      if (first >= length)
        return TRUE; /* as long as the text: the caller encodes it all */
      g_autoptr (GArray) a = encode_prefix (tokenizer, text, first, error);
      if (a == NULL)
        return FALSE;
      if (a->len < want)
        {
          window = 2 * first;
          continue;
        }
      gsize second = cut_at (text, length, first + first / 2);
      if (second >= length)
        return TRUE;
      g_autoptr (GArray) b = encode_prefix (tokenizer, text, second, error);
      if (b == NULL)
        return FALSE;
      if (b->len > (guint) max_ids
          && memcmp (a->data, b->data, ((gsize) max_ids + 1) * sizeof (int32_t)) == 0)
        {
          *prefix = first;
          return TRUE;
        }
      window = 2 * second;
    }
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
  if (as_tokenizer_get_token (tokenizer, id) == NULL || tokenizer->klass->is_special == NULL)
    return FALSE;
  return tokenizer->klass->is_special (tokenizer, id);
}

char *
as_tokenizer_dup_token_text (const AsTokenizer *tokenizer, int32_t id)
{
  const char *token = as_tokenizer_get_token (tokenizer, id);
  if (token == NULL)
    return NULL;
  char *text = NULL;
  if (tokenizer->klass->token_text != NULL)
    text = tokenizer->klass->token_text (tokenizer, id);
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

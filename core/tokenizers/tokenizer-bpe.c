/* tokenizer-bpe.c — GPT-2's byte-level BPE tokenizer, identical to Hugging Face's id for id.
 *
 * Encoding (core/tokenizers/README.md, "Tokenizers"): the text is split around each
 * "<|endoftext|>", which becomes its own id; the rest is cut into pieces by GPT-2's regex
 * (pretokenize-gpt2.c); each piece's UTF-8 bytes become one-byte symbols, which the merge table
 * (bpe-merges.c) merges; the resulting symbols are vocabulary tokens. A symbol outside the
 * vocabulary (impossible with GPT-2's files) becomes <|endoftext|>, Hugging Face's unknown token
 * for GPT-2. Like HF we cache the ids of each piece (word-cache-private.h). Decoding maps token
 * characters back to bytes (byte-unicode.h) and turns bytes that do not form UTF-8 into U+FFFD
 * exactly as Python does (utf8-replace.h). */
#include "tokenizer-private.h"

#include <string.h>

#include "as-error.h"
#include "bpe-merges-private.h"
#include "byte-unicode-private.h"
#include "pretokenize-gpt2-private.h"
#include "utf8-replace-private.h"
#include "vocab-json-private.h"
#include "word-cache-private.h"
#include "tokenizer-work-private.h"

#define END_OF_TEXT "<|endoftext|>"

/* The kind's state (AsTokenizer.data). */
typedef struct
{
  AsGpt2Pretokenizer *pretokenizer;
  AsBpeMerges *merges;
  int32_t end_of_text_id; /* id of <|endoftext|>, or -1 when the vocabulary lacks it */
  AsWordCache *cache;
} Gpt2Bpe;

static void
gpt2_bpe_clear (gpointer data)
{
  Gpt2Bpe *bpe = data;
  g_clear_pointer (&bpe->pretokenizer, as_gpt2_pretokenizer_free);
  g_clear_pointer (&bpe->merges, as_bpe_merges_free);
  g_clear_pointer (&bpe->cache, as_word_cache_free);
  g_free (bpe);
}

static const AsTokenizerClass gpt2_bpe_class;

AsTokenizer *
as_tokenizer_load_bpe (const char *vocab_json_path, const char *merges_txt_path, GError **error)
{
  g_return_val_if_fail (vocab_json_path != NULL && merges_txt_path != NULL, NULL);

  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_new (&gpt2_bpe_class, vocab_json_path);
  Gpt2Bpe *bpe = tokenizer->data = g_new0 (Gpt2Bpe, 1);
  bpe->cache = as_word_cache_new ();

  if (!as_tokenizer_load_vocab_json (tokenizer, vocab_json_path, error))
    return NULL;
  bpe->end_of_text_id = as_tokenizer_lookup (tokenizer, END_OF_TEXT);
  bpe->merges = as_bpe_merges_load (merges_txt_path, tokenizer->token_to_id,
                                    tokenizer->id_to_token->len, error);
  if (bpe->merges == NULL)
    return NULL;

  const char *unknown = as_bpe_merges_first_unknown (bpe->merges);
  if (unknown != NULL && bpe->end_of_text_id < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: symbol \"%s\" (a byte or a merge result in %s) is not in the vocabulary, "
                   "and there is no \"" END_OF_TEXT "\" token to stand for unknown symbols",
                   vocab_json_path, unknown, merges_txt_path);
      return NULL;
    }

  bpe->pretokenizer = as_gpt2_pretokenizer_new (error);
  if (bpe->pretokenizer == NULL)
    return NULL;
  return as_tokenizer_finish (g_steal_pointer (&tokenizer), error);
}

/* Runs BPE on one piece (LENGTH > 0 bytes) and appends its ids to IDS. SYMBOLS is scratch. */
static void
bpe_piece (const AsTokenizer *tokenizer, const char *piece, gsize length, GArray *symbols,
           GArray *ids)
{
  const Gpt2Bpe *bpe = tokenizer->data;
  g_array_set_size (symbols, (guint) length);
  int32_t *sym = (int32_t *) symbols->data; /* [length] one symbol per byte */
  for (gsize i = 0; i < length; i++)
    sym[i] = as_bpe_merges_byte_symbol (bpe->merges, (guint8) piece[i]);
  as_bpe_merges_apply (bpe->merges, symbols);

  int32_t vocab_size = (int32_t) tokenizer->id_to_token->len;
  for (guint i = 0; i < symbols->len; i++)
    {
      int32_t s = g_array_index (symbols, int32_t, i);
      int32_t id = s < vocab_size ? s : bpe->end_of_text_id;
      g_array_append_val (ids, id);
    }
}

/* Appends the ids of one piece, through the cache. */
static void
encode_piece (AsTokenizer *tokenizer, const char *piece, gsize length, GArray *symbols, GArray *ids)
{
  as_tokenizer_work_add (length);
  AsWordCache *cache = ((Gpt2Bpe *) tokenizer->data)->cache;
  if (as_word_cache_lookup (cache, piece, length, ids))
    return;
  guint before = ids->len;
  bpe_piece (tokenizer, piece, length, symbols, ids);
  as_word_cache_insert (cache, piece, length, &g_array_index (ids, int32_t, before),
                        ids->len - before);
}

/* Encodes TEXT, which holds no special token. */
static gboolean
encode_ordinary (AsTokenizer *tokenizer, const char *text, gsize length, GArray *ids,
                 GError **error)
{
  g_autoptr (GArray) pieces = g_array_new (FALSE, FALSE, sizeof (AsGpt2Piece));
  const Gpt2Bpe *bpe = tokenizer->data;
  if (!as_gpt2_pretokenize (bpe->pretokenizer, text, length, pieces, error))
    return FALSE;
  g_autoptr (GArray) symbols = g_array_new (FALSE, FALSE, sizeof (int32_t));
  for (guint i = 0; i < pieces->len; i++)
    {
      const AsGpt2Piece *p = &g_array_index (pieces, AsGpt2Piece, i);
      encode_piece (tokenizer, text + p->offset, p->length, symbols, ids);
    }
  return TRUE;
}

/* The first occurrence of NEEDLE (NEEDLE_LEN > 0 bytes) in HAYSTACK, or NULL. */
static const char *
find_bytes (const char *haystack, gsize length, const char *needle, gsize needle_len)
{
  const char *end = haystack + length;
  const char *p = haystack;
  while ((gsize) (end - p) >= needle_len)
    {
      p = memchr (p, needle[0], (gsize) (end - p) - needle_len + 1);
      if (p == NULL)
        return NULL;
      if (memcmp (p, needle, needle_len) == 0)
        return p;
      p++;
    }
  return NULL;
}

static gboolean
gpt2_bpe_encode (AsTokenizer *tokenizer, const char *text, gsize length, gboolean target,
                 GArray *ids, GError **error)
{
  const Gpt2Bpe *bpe = tokenizer->data;
  const gsize special_len = strlen (END_OF_TEXT);
  gsize pos = 0;
  while (pos < length)
    {
      const char *hit = NULL;
      if (bpe->end_of_text_id >= 0)
        hit = find_bytes (text + pos, length - pos, END_OF_TEXT, special_len);
      gsize end = hit != NULL ? (gsize) (hit - text) : length;
      if (end > pos && !encode_ordinary (tokenizer, text + pos, end - pos, ids, error))
        return FALSE;
      if (hit == NULL)
        break;
      g_array_append_val (ids, bpe->end_of_text_id);
      pos = end + special_len;
    }
  return TRUE;
}

static char *
gpt2_bpe_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids)
{
  g_autoptr (GString) bytes = g_string_new (NULL);
  for (gsize i = 0; i < n_ids; i++)
    {
      const char *token = as_tokenizer_get_token (tokenizer, ids[i]);
      for (const char *p = token; *p != '\0'; p = g_utf8_next_char (p))
        {
          gunichar ch = g_utf8_get_char (p);
          int b = as_byte_unicode_to_byte (ch);
          if (b >= 0)
            g_string_append_c (bytes, (char) b);
          else
            g_string_append_unichar (bytes, ch); /* not a table character: keep it as text */
        }
    }
  return as_utf8_replace_invalid (bytes->str, bytes->len);
}

/* "Ġthe" stands for the bytes " the". */
static char *
gpt2_bpe_token_text (const AsTokenizer *tokenizer, int32_t id)
{
  return as_byte_level_token_text (as_tokenizer_get_token (tokenizer, id));
}

static gboolean
gpt2_bpe_is_special (const AsTokenizer *tokenizer, int32_t id)
{
  return id == ((const Gpt2Bpe *) tokenizer->data)->end_of_text_id;
}

static guint64
gpt2_bpe_data_bytes (const AsTokenizer *tokenizer)
{
  return sizeof (Gpt2Bpe) + as_bpe_merges_bytes (((const Gpt2Bpe *) tokenizer->data)->merges);
}

static const AsTokenizerClass gpt2_bpe_class = {
  .name = "GPT-2 BPE",
  .encode = gpt2_bpe_encode,
  .decode = gpt2_bpe_decode,
  .token_text = gpt2_bpe_token_text,
  .is_special = gpt2_bpe_is_special,
  .data_bytes = gpt2_bpe_data_bytes,
  .clear = gpt2_bpe_clear,
};

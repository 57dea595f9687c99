/* tokenizer-words.c — the word-level tokenizer of the toy models.
 *
 * vocab.json maps whole words to ids. Encoding splits the text on Unicode white space
 * (g_unichar_isspace) and looks each word up; a word that is not in the vocabulary is an input
 * error naming it. Decoding joins the words with single spaces. */
#include "tokenizer-private.h"

#include "as-error.h"
#include "vocab-json-private.h"
#include "tokenizer-work-private.h"

static const AsTokenizerClass words_class;

AsTokenizer *
as_tokenizer_load_words (const char *vocab_json_path, GError **error)
{
  g_return_val_if_fail (vocab_json_path != NULL, NULL);

  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_new (&words_class, vocab_json_path);
  if (!as_tokenizer_load_vocab_json (tokenizer, vocab_json_path, error))
    return NULL;
  return as_tokenizer_finish (g_steal_pointer (&tokenizer), error);
}

static gboolean
words_encode (AsTokenizer *tokenizer, const char *text, gsize length, gboolean target, GArray *ids,
              GError **error)
{
  const char *end = text + length;
  const char *p = text;
  as_tokenizer_work_add (length);
  while (p < end)
    {
      while (p < end && g_unichar_isspace (g_utf8_get_char (p)))
        p = g_utf8_next_char (p);
      if (p == end)
        break;
      const char *word = p;
      while (p < end && !g_unichar_isspace (g_utf8_get_char (p)))
        p = g_utf8_next_char (p);
      int32_t id = as_tokenizer_lookup_len (tokenizer, word, (gsize) (p - word));
      if (id < 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "the word \"%.*s\" is not in the model's vocabulary", (int) (p - word),
                       word);
          return FALSE;
        }
      g_array_append_val (ids, id);
    }
  return TRUE;
}

static char *
words_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids)
{
  g_autoptr (GString) text = g_string_new (NULL);
  for (gsize i = 0; i < n_ids; i++)
    {
      const char *word = as_tokenizer_get_token (tokenizer, ids[i]);
      if (text->len > 0)
        g_string_append_c (text, ' ');
      g_string_append (text, word);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static const AsTokenizerClass words_class = {
  .name = "word-level vocabulary",
  .encode = words_encode,
  .decode = words_decode,
};

/* fuzz-vocab-merges.c — a GPT-2 tokenizer from arbitrary vocab.json and merges.txt (the input is
 * vocab.json, a NUL byte, then merges.txt). A tokenizer that loads must encode and decode a
 * fixed text without crashing. */
#include "fuzz-support.h"

#include <string.h>

#include "as-tokenizer.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const uint8_t *nul = memchr (data, '\0', size);
  size_t vocab_size = nul != NULL ? (size_t) (nul - data) : size;
  const uint8_t *merges = nul != NULL ? nul + 1 : data + size;
  const char *vocab_path = fuzz_write_input (0, data, vocab_size);
  const char *merges_path = fuzz_write_input (1, merges, (size_t) (data + size - merges));
  GError *error = NULL;
  AsTokenizer *tokenizer = as_tokenizer_load_bpe (vocab_path, merges_path, &error);
  fuzz_check_error (tokenizer != NULL, error);
  if (tokenizer != NULL)
    {
      const char *text = "May the force be with you. <|endoftext|> Größe 123  \n\t!";
      GArray *ids = as_tokenizer_encode (tokenizer, text, -1, &error);
      fuzz_check_error (ids != NULL, error);
      if (ids != NULL)
        {
          for (guint i = 0; i < ids->len; i++)
            (void) as_tokenizer_get_token (tokenizer, g_array_index (ids, int32_t, i));
          g_free (as_tokenizer_decode (tokenizer, (const int32_t *) ids->data, ids->len));
          g_array_unref (ids);
        }
      as_tokenizer_free (tokenizer);
    }
  g_clear_error (&error);
  return 0;
}

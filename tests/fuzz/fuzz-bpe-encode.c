/* fuzz-bpe-encode.c — GPT-2's real byte-level BPE (tests/fixtures/gpt2-tokenizer) on arbitrary
 * bytes. Valid UTF-8 (U+0000 included) must encode into ids of the vocabulary, and decode back to
 * exactly the same bytes (byte-level BPE loses nothing: every byte has a symbol; the check is
 * skipped for texts with a NUL byte, which the C string of the decoder cannot hold); anything else
 * must be refused with an error. */
#include "fuzz-support.h"

#include <stdlib.h>
#include <string.h>

#include "as-tokenizer.h"

static AsTokenizer *tokenizer;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  const char *source = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_autofree char *dir = g_build_filename (source != NULL ? source : FUZZ_SOURCE_DIR, "tests",
                                           "fixtures", "gpt2-tokenizer", NULL);
  g_autofree char *vocab = g_build_filename (dir, "vocab.json", NULL);
  g_autofree char *merges = g_build_filename (dir, "merges.txt", NULL);
  g_autoptr (GError) error = NULL;
  tokenizer = as_tokenizer_load_bpe (vocab, merges, &error);
  if (tokenizer == NULL)
    fuzz_fail ("cannot load the GPT-2 tokenizer: %s", error->message);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (tokenizer == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  const char *text = (const char *) data;
  /* well-formed UTF-8 by GLib's check, NUL bytes allowed (GLib refuses them) */
  gboolean valid = TRUE;
  for (const char *p = text, *end = text + size; valid && p < end;)
    {
      const char *stop = NULL;
      valid = g_utf8_validate (p, end - p, &stop) || (stop < end && *stop == '\0');
      p = stop != NULL && stop < end ? stop + 1 : end;
    }
  GError *error = NULL;
  GArray *ids = as_tokenizer_encode (tokenizer, text, (gssize) size, &error);
  fuzz_check_error (ids != NULL, error);
  if (valid != (ids != NULL))
    fuzz_fail ("valid UTF-8 %d but encoded %d", valid, ids != NULL);
  for (guint i = 0; ids != NULL && i < ids->len; i++)
    if (as_tokenizer_get_token (tokenizer, g_array_index (ids, int32_t, i)) == NULL)
      fuzz_fail ("id %d is not in the vocabulary", g_array_index (ids, int32_t, i));
  if (ids != NULL && memchr (data, '\0', size) == NULL)
    {
      char *decoded = as_tokenizer_decode (tokenizer, (const int32_t *) ids->data, ids->len);
      if (strlen (decoded) != size || memcmp (decoded, data, size) != 0)
        fuzz_fail ("the round trip changed the text (%zu bytes in, %zu out)", size,
                   strlen (decoded));
      g_free (decoded);
    }
  if (ids != NULL)
    g_array_unref (ids);
  g_clear_error (&error);
  return 0;
}

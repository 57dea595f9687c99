/* fuzz-hf-encode.c — three tokenizer.json files on arbitrary bytes: gpt-neox (byte-level BPE
 * with NFC) and llama-spm (SentencePiece BPE: Prepend("▁") + Replace(" " → "▁"), byte fallback;
 * tests/fixtures/tokenizers), and a SentencePiece Unigram with a real NFKC Precompiled charsmap
 * and Metaspace (tests/fuzz/data/spm-unigram, tests/README.md says how it was made). Valid UTF-8
 * (U+0000 included) must encode, without special tokens, into ids of the vocabulary; anything else
 * must be refused with an error. Round trip decode(encode(x)) == x where Hugging Face's tokenizers
 * guarantees it:
 * - gpt-neox: for x already in NFC (the normalizer changes nothing then, and byte-level BPE
 *   loses no byte);
 * - llama-spm: for x without "▁" (the decoder turns it into a space) and without the added tokens
 *   "<unk>", "<s>", "</s>" (decoded as their normalized names "▁<s>", ...); the decoder's
 *   Strip removes the one space Prepend added.
 * - spm-unigram: none (NFKC, runs of spaces folded, pieces it cannot spell become <unk>).
 * Texts with a NUL byte are not decoded (the decoded C string cannot hold it). */
#include "fuzz-support.h"

#include <string.h>

#include "as-tokenizer.h"

static AsTokenizer *neox, *llama, *unigram;

/* SOURCE_DIR/tests/FOLDER/NAME/tokenizer.json */
static AsTokenizer *
load_fixture (const char *folder, const char *name)
{
  const char *source = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_autofree char *path = g_build_filename (source != NULL ? source : FUZZ_SOURCE_DIR, "tests",
                                            folder, name, "tokenizer.json", NULL);
  g_autoptr (GError) error = NULL;
  AsTokenizer *t = as_tokenizer_load_json (path, &error);
  if (t == NULL)
    fuzz_fail ("cannot load %s: %s", path, error->message);
  return t;
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  neox = load_fixture ("fixtures/tokenizers", "gpt-neox");
  llama = load_fixture ("fixtures/tokenizers", "llama-spm");
  unigram = load_fixture ("fuzz/data", "spm-unigram");
  return 0;
}

/* Well-formed UTF-8 by GLib's check, NUL bytes allowed (GLib refuses them). */
static gboolean
valid_with_nul (const char *text, size_t size)
{
  gboolean valid = TRUE;
  for (const char *p = text, *end = text + size; valid && p < end;)
    {
      const char *stop = NULL;
      valid = g_utf8_validate (p, end - p, &stop) || (stop < end && *stop == '\0');
      p = stop != NULL && stop < end ? stop + 1 : end;
    }
  return valid;
}

/* Encodes TEXT with T; checks the ids and, when ROUND_TRIP, decode(ids) == TEXT. */
static void
check (AsTokenizer *t, const char *name, const char *text, size_t size, gboolean valid,
       gboolean round_trip)
{
  GError *error = NULL;
  AsEncoding *e
      = as_tokenizer_encode_full (t, text, (gssize) size, NULL, 0, AS_ENCODE_NO_SPECIAL, &error);
  fuzz_check_error (e != NULL, error);
  g_clear_error (&error);
  if (valid != (e != NULL))
    fuzz_fail ("%s: valid UTF-8 %d but encoded %d", name, valid, e != NULL);
  if (e == NULL)
    return;
  for (guint i = 0; i < e->ids->len; i++)
    if (as_tokenizer_get_token (t, g_array_index (e->ids, int32_t, i)) == NULL)
      fuzz_fail ("%s: id %d is not in the vocabulary", name, g_array_index (e->ids, int32_t, i));
  if (round_trip)
    {
      char *decoded = as_tokenizer_decode (t, (const int32_t *) e->ids->data, e->ids->len);
      if (strlen (decoded) != size || memcmp (decoded, text, size) != 0)
        fuzz_fail ("%s: the round trip changed the text (%zu bytes in, %zu out)", name, size,
                   strlen (decoded));
      g_free (decoded);
    }
  as_encoding_free (e);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (neox == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  /* a NUL-terminated copy, for the string searches below */
  g_autofree char *text = g_strndup ((const char *) data, size);
  gboolean valid = valid_with_nul ((const char *) data, size);
  gboolean decodable = valid && memchr (data, '\0', size) == NULL;
  gboolean nfc = FALSE;
  if (decodable)
    {
      g_autofree char *normalized = g_utf8_normalize (text, (gssize) size, G_NORMALIZE_NFC);
      nfc = normalized != NULL && strcmp (normalized, text) == 0;
    }
  check (neox, "gpt-neox", (const char *) data, size, valid, nfc);
  gboolean plain = decodable && strstr (text, "\xe2\x96\x81") == NULL
                   && strstr (text, "<unk>") == NULL && strstr (text, "<s>") == NULL
                   && strstr (text, "</s>") == NULL;
  check (llama, "llama-spm", (const char *) data, size, valid, plain);
  check (unigram, "spm-unigram", (const char *) data, size, valid, FALSE);
  return 0;
}

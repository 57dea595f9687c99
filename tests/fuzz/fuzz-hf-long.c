/* fuzz-hf-long.c — the tokenizer.json pipeline on long texts: every stage must cost time linear
 * in its input, and the prefix that decides a text's first ids must give exactly those ids.
 *
 * The input (cut to 256 bytes, and to valid UTF-8) is repeated to at least 1 KB (X1), and X1 ten
 * times (X10); gpt-neox, llama-spm and bert-bge (tests/fixtures/tokenizers) and the SentencePiece
 * Unigram of tests/fuzz/data/spm-unigram encode both. The stages count their inner-loop steps
 * (tokenizer-work-private.h), so the property needs no clock: X10 may cost at most 15 times the
 * steps of X1 (plus 64). Each size has its own instance of each tokenizer, so that neither
 * profits from the other's word caches. Both sizes encode or both are refused. Then
 * as_tokenizer_prefix_for (X10, 50 ids): when it cuts, the prefix's first 51 ids are X10's. */
#include "fuzz-support.h"

#include <string.h>

#include "as-tokenizer.h"
#include "tokenizer-work-private.h"

#define N_TOKENIZERS 4
#define PREFIX_IDS 50

static AsTokenizer *small[N_TOKENIZERS], *large[N_TOKENIZERS];
static const char *const names[N_TOKENIZERS]
    = { "fixtures/tokenizers/gpt-neox", "fixtures/tokenizers/llama-spm",
        "fixtures/tokenizers/bert-bge", "fuzz/data/spm-unigram" };

static AsTokenizer *
load (const char *name)
{
  const char *source = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_autofree char *path = g_build_filename (source != NULL ? source : FUZZ_SOURCE_DIR, "tests",
                                            name, "tokenizer.json", NULL);
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
  for (int i = 0; i < N_TOKENIZERS; i++)
    {
      small[i] = load (names[i]);
      large[i] = load (names[i]);
    }
  return 0;
}

/* The ids of TEXT with T and the steps they took into *STEPS; NULL when T refuses TEXT. */
static GArray *
encode (AsTokenizer *t, const char *text, gsize length, guint64 *steps)
{
  GError *error = NULL;
  guint64 before = as_tokenizer_work ();
  AsEncoding *e
      = as_tokenizer_encode_full (t, text, (gssize) length, NULL, 0, AS_ENCODE_NO_SPECIAL, &error);
  *steps = as_tokenizer_work () - before;
  fuzz_check_error (e != NULL, error);
  g_clear_error (&error);
  if (e == NULL)
    return NULL;
  GArray *ids = g_steal_pointer (&e->ids);
  as_encoding_free (e);
  return ids;
}

static void
check_prefix (AsTokenizer *t, const char *name, const char *text, gsize length, const GArray *ids)
{
  gsize prefix = 0;
  GError *error = NULL;
  gboolean ok = as_tokenizer_prefix_for (t, text, length, PREFIX_IDS, &prefix, &error);
  fuzz_check_error (ok, error);
  g_clear_error (&error);
  if (!ok || prefix == length)
    {
      if (ok && ids->len > PREFIX_IDS && prefix != length)
        fuzz_fail ("%s: no prefix for a text of %u ids", name, ids->len);
      return;
    }
  guint64 steps;
  g_autoptr (GArray) cut = encode (t, text, prefix, &steps);
  if (cut == NULL || cut->len <= PREFIX_IDS || ids->len <= PREFIX_IDS
      || memcmp (cut->data, ids->data, (PREFIX_IDS + 1) * sizeof (int32_t)) != 0)
    fuzz_fail ("%s: the prefix of %zu of %zu bytes does not give the text's first %d ids", name,
               prefix, length, PREFIX_IDS + 1);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (small[0] == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  const char *end = NULL;
  g_utf8_validate ((const char *) data, (gssize) MIN (size, 256), &end);
  gsize unit = (gsize) (end - (const char *) data);
  if (unit == 0)
    return 0;
  GString *x1 = g_string_new (NULL);
  while (x1->len < 1024)
    g_string_append_len (x1, (const char *) data, (gssize) unit);
  GString *x10 = g_string_new (NULL);
  for (int i = 0; i < 10; i++)
    g_string_append_len (x10, x1->str, (gssize) x1->len);
  for (int i = 0; i < N_TOKENIZERS; i++)
    {
      guint64 s1, s10;
      g_autoptr (GArray) a = encode (small[i], x1->str, x1->len, &s1);
      g_autoptr (GArray) b = encode (large[i], x10->str, x10->len, &s10);
      if ((a == NULL) != (b == NULL))
        fuzz_fail ("%s: %zu bytes %s but %zu bytes %s", names[i], x1->len,
                   a != NULL ? "encode" : "are refused", x10->len,
                   b != NULL ? "encode" : "are refused");
      if (s10 > 15 * s1 + 64)
        fuzz_fail ("%s: %zu bytes took %" G_GUINT64_FORMAT
                   " steps, ten times as many %" G_GUINT64_FORMAT,
                   names[i], x1->len, s1, s10);
      if (b != NULL)
        check_prefix (large[i], names[i], x10->str, x10->len, b);
    }
  g_string_free (x1, TRUE);
  g_string_free (x10, TRUE);
  return 0;
}

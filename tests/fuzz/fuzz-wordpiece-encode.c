/* fuzz-wordpiece-encode.c — BERT's WordPiece (tests/fixtures/tokenizers/bert-bge: bge-small's
 * bert-base-uncased vocabulary) on arbitrary bytes, read twice: from its tokenizer.json and from
 * the same vocabulary written as a vocab.txt (BertTokenizer's defaults: lower case, accents
 * stripped, CJK split — what that tokenizer.json says too).
 *
 * Properties: valid UTF-8 (U+0000 included) encodes into ids of the vocabulary, anything else is
 * refused with an error; both readers give the same ids and the same decoded text. There is no
 * round trip: BERT's pipeline loses case, accents, control characters and the spacing around
 * punctuation, and a word it cannot spell becomes [UNK] (decode(encode("Größe!")) is
 * "grosse !"). */
#include "fuzz-support.h"

#include <glib/gstdio.h>
#include <string.h>

#include "as-tokenizer.h"

static AsTokenizer *from_json, *from_txt;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  const char *source = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_autofree char *path
      = g_build_filename (source != NULL ? source : FUZZ_SOURCE_DIR, "tests", "fixtures",
                          "tokenizers", "bert-bge", "tokenizer.json", NULL);
  g_autoptr (GError) error = NULL;
  from_json = as_tokenizer_load_json (path, &error);
  if (from_json == NULL)
    fuzz_fail ("cannot load %s: %s", path, error->message);

  g_autoptr (GString) lines = g_string_new (NULL);
  for (int id = 0; id < as_tokenizer_get_vocab_size (from_json); id++)
    g_string_append_printf (lines, "%s\n", as_tokenizer_get_token (from_json, id));
  g_autofree char *folder = g_dir_make_tmp ("attnscope-fuzz-wordpiece-XXXXXX", &error);
  if (folder == NULL)
    fuzz_fail ("cannot create a temporary folder: %s", error->message);
  g_autofree char *vocab = g_build_filename (folder, "vocab.txt", NULL);
  if (!g_file_set_contents (vocab, lines->str, (gssize) lines->len, &error))
    fuzz_fail ("cannot write %s: %s", vocab, error->message);
  from_txt = as_tokenizer_load_vocab_txt (folder, &error);
  if (from_txt == NULL)
    fuzz_fail ("cannot load %s: %s", vocab, error->message);
  g_unlink (vocab);
  g_rmdir (folder);
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

static GArray *
encode (AsTokenizer *t, const char *name, const uint8_t *data, size_t size, gboolean valid)
{
  GError *error = NULL;
  GArray *ids = as_tokenizer_encode (t, (const char *) data, (gssize) size, &error);
  fuzz_check_error (ids != NULL, error);
  g_clear_error (&error);
  if (valid != (ids != NULL))
    fuzz_fail ("%s: valid UTF-8 %d but encoded %d", name, valid, ids != NULL);
  for (guint i = 0; ids != NULL && i < ids->len; i++)
    if (as_tokenizer_get_token (t, g_array_index (ids, int32_t, i)) == NULL)
      fuzz_fail ("%s: id %d is not in the vocabulary", name, g_array_index (ids, int32_t, i));
  return ids;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (from_json == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  gboolean valid = valid_with_nul ((const char *) data, size);
  GArray *a = encode (from_json, "tokenizer.json", data, size, valid);
  GArray *b = encode (from_txt, "vocab.txt", data, size, valid);
  if (a == NULL)
    return 0;
  if (a->len != b->len || memcmp (a->data, b->data, a->len * sizeof (int32_t)) != 0)
    fuzz_fail ("tokenizer.json gave %u ids, vocab.txt %u, not the same", a->len, b->len);
  char *da = as_tokenizer_decode (from_json, (const int32_t *) a->data, a->len);
  char *db = as_tokenizer_decode (from_txt, (const int32_t *) b->data, b->len);
  if (strcmp (da, db) != 0)
    fuzz_fail ("the two decoded texts differ: \"%s\" and \"%s\"", da, db);
  g_free (da);
  g_free (db);
  g_array_unref (a);
  g_array_unref (b);
  return 0;
}

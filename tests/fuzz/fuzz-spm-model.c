/* fuzz-spm-model.c — SentencePiece model files (a Marian model's source.spm and target.spm)
 * through the loader of spm-processor-private.h, which checks their character maps
 * (spm-charsmap-private.h) before libsentencepiece reads them.
 *
 * An input that starts with 0x0A (the first byte of a ModelProto) is a whole model file; any
 * other is a precompiled_charsmap (the bytes after the first) put into tests/fuzz/data/
 * spm-small.model as its normalizer_spec's map, or, when the first byte is even, as its
 * denormalizer_spec's too (protobuf merges a repeated message field, and the last map wins). A
 * model either loads or is refused with an error; one that loads encodes fixed texts — the
 * compatibility characters its map may rewrite, runs of spaces, a long run of one letter (the key
 * a deep trie would follow), user-defined symbols — and decodes the pieces back, without a crash
 * or a sanitizer report. tests/fuzz/make-spm-seeds.py writes the seeds. */
#include "fuzz-support.h"

#include <string.h>

#include "spm-processor-private.h"

static GByteArray *base_model;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  const char *source = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_autofree char *path = g_build_filename (source != NULL ? source : FUZZ_SOURCE_DIR, "tests",
                                            "fuzz", "data", "spm-small.model", NULL);
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_get_contents (path, &contents, &length, NULL))
    fuzz_fail ("cannot read %s", path);
  base_model = g_byte_array_new ();
  g_byte_array_append (base_model, (const guint8 *) contents, (guint) length);
  return 0;
}

/* Appends the protobuf key and length of a length-delimited FIELD of SIZE bytes to OUT. */
static void
append_field_header (GByteArray *out, guint field, gsize size)
{
  guint8 key = (guint8) (field << 3 | 2);
  g_byte_array_append (out, &key, 1);
  for (guint64 v = size;;)
    {
      guint8 b = (guint8) (v & 0x7F);
      v >>= 7;
      if (v != 0)
        b |= 0x80;
      g_byte_array_append (out, &b, 1);
      if (v == 0)
        break;
    }
}

/* The base model with CHARSMAP as the map of its NormalizerSpec field SPEC (3 or 5). */
static void
append_charsmap (GByteArray *model, guint spec, const guint8 *charsmap, gsize size)
{
  g_autoptr (GByteArray) inner = g_byte_array_new ();
  append_field_header (inner, 2, size);
  g_byte_array_append (inner, charsmap, (guint) size);
  append_field_header (model, spec, inner->len);
  g_byte_array_append (model, inner->data, inner->len);
}

static void
exercise (const AsSpmProcessor *spm)
{
  static const char *const texts[] = {
    "\xef\xac\x81\xef\xbc\xa1\xef\xbc\xa2\xef\xbc\xa3\xe2\x91\xa0 caf\xc3\xa9 \xc2\xbd",
    "  the   cat\tsat \xe3\x80\x80 on  ",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "<sep> x <cls>y\xe6\x97\xa5\xe6\x9c\xac",
    "",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr (GPtrArray) pieces = g_ptr_array_new_with_free_func (g_free);
      GError *error = NULL;
      gboolean ok = as_spm_processor_encode (spm, texts[i], strlen (texts[i]), pieces, &error);
      fuzz_check_error (ok, error);
      g_clear_error (&error);
      if (!ok)
        continue;
      g_autofree char *text
          = as_spm_processor_decode (spm, (const char *const *) pieces->pdata, pieces->len, &error);
      fuzz_check_error (text != NULL, error);
      g_clear_error (&error);
    }
  for (int i = 0; i < as_spm_processor_get_size (spm); i++)
    if (as_spm_processor_get_piece (spm, i) == NULL)
      fuzz_fail ("piece %d has no string", i);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (base_model == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  g_autoptr (GByteArray) model = g_byte_array_new ();
  if (size > 0 && data[0] == 0x0A)
    g_byte_array_append (model, data, (guint) size);
  else
    {
      g_byte_array_append (model, base_model->data, base_model->len);
      const guint8 *charsmap = size > 0 ? data + 1 : data;
      gsize charsmap_size = size > 0 ? size - 1 : 0;
      append_charsmap (model, 3, charsmap, charsmap_size);
      if (size > 0 && data[0] % 2 == 0)
        append_charsmap (model, 5, charsmap, charsmap_size);
    }
  const char *path = fuzz_write_input (0, model->data, model->len);
  GError *error = NULL;
  AsSpmProcessor *spm = as_spm_processor_load (path, &error);
  fuzz_check_error (spm != NULL, error);
  g_clear_error (&error);
  if (spm != NULL)
    exercise (spm);
  as_spm_processor_free (spm);
  return 0;
}

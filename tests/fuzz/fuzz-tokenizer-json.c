/* fuzz-tokenizer-json.c — a tokenizer from an arbitrary tokenizer.json (the input is
 * tokenizer.json, then, after a NUL byte, tokenizer_config.json). Anything may be refused, with
 * one error message; a tokenizer that loads must encode a few fixed texts (alone and as a pair)
 * into ids it can name, or refuse them with an error, and decode what it gave. */
#include "fuzz-support.h"

#include <glib/gstdio.h>
#include <string.h>

#include "as-tokenizer.h"

static char *folder;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  /* a folder of its own: tokenizer.json's folder is where tokenizer_config.json is looked for */
  folder = g_dir_make_tmp ("attnscope-fuzz-tokenizer-XXXXXX", NULL);
  if (folder == NULL)
    fuzz_fail ("cannot create a temporary folder");
  return 0;
}

static void
write_or_remove (const char *name, const uint8_t *data, size_t size, gboolean present)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);
  if (!present)
    {
      g_unlink (path);
      return;
    }
  g_autoptr (GError) error = NULL;
  if (!g_file_set_contents (path, (const char *) data, (gssize) size, &error))
    fuzz_fail ("cannot write %s: %s", path, error->message);
}

static void
encode_and_decode (AsTokenizer *tokenizer, const char *text, const char *pair)
{
  GError *error = NULL;
  AsEncoding *e
      = as_tokenizer_encode_full (tokenizer, text, -1, pair, -1, AS_ENCODE_DEFAULT, &error);
  fuzz_check_error (e != NULL, error);
  g_clear_error (&error);
  if (e == NULL)
    return;
  if (e->type_ids->len != e->ids->len || e->special_mask->len != e->ids->len)
    fuzz_fail ("%u ids but %u type ids and %u special marks", e->ids->len, e->type_ids->len,
               e->special_mask->len);
  int vocab = as_tokenizer_get_vocab_size (tokenizer);
  for (guint i = 0; i < e->ids->len; i++)
    {
      int32_t id = g_array_index (e->ids, int32_t, i);
      if (id < 0 || id >= vocab)
        fuzz_fail ("id %d is outside the vocabulary of %d", id, vocab);
      g_free (as_tokenizer_dup_token_text (tokenizer, id));
    }
  g_free (as_tokenizer_decode (tokenizer, (const int32_t *) e->ids->data, e->ids->len));
  as_encoding_free (e);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (folder == NULL)
    LLVMFuzzerInitialize (NULL, NULL);
  const uint8_t *nul = memchr (data, '\0', size);
  size_t json_size = nul != NULL ? (size_t) (nul - data) : size;
  write_or_remove ("tokenizer.json", data, json_size, TRUE);
  const uint8_t *config = nul != NULL ? nul + 1 : data + size;
  write_or_remove ("tokenizer_config.json", config, (size_t) (data + size - config), nul != NULL);
  g_autofree char *path = g_build_filename (folder, "tokenizer.json", NULL);
  GError *error = NULL;
  AsTokenizer *tokenizer = as_tokenizer_load_json (path, &error);
  fuzz_check_error (tokenizer != NULL, error);
  g_clear_error (&error);
  if (tokenizer == NULL)
    return 0;
  encode_and_decode (tokenizer, "May the force be with you. <s> [CLS] Größe 123  \n\t! 你好 ▁x",
                     NULL);
  encode_and_decode (tokenizer, "", NULL);
  encode_and_decode (tokenizer, "a b", "c  d\r\n");
  as_tokenizer_free (tokenizer);
  return 0;
}

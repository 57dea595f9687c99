/* tokenizer-folder.c — the tokenizer a Hugging Face model folder carries (as-tokenizer.h):
 * tokenizer.json wins, as in HF's fast tokenizers; else GPT-2's vocab.json + merges.txt; else
 * BERT's vocab.txt. */
#include "tokenizer-private.h"

#include "as-error.h"

/* FOLDER/NAME when it exists, else NULL (owned). Whatever it is: the readers refuse anything
 * but a regular file, saying what it is (a FIFO, a folder, ...). */
static char *
folder_file (const char *folder, const char *name)
{
  char *path = g_build_filename (folder, name, NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  g_free (path);
  return NULL;
}

AsTokenizer *
as_tokenizer_load_folder (const char *folder, GError **error)
{
  g_autofree char *json = folder_file (folder, "tokenizer.json");
  if (json != NULL)
    return as_tokenizer_load_json (json, error);
  g_autofree char *vocab = folder_file (folder, "vocab.json");
  g_autofree char *merges = folder_file (folder, "merges.txt");
  if (vocab != NULL && merges != NULL)
    return as_tokenizer_load_bpe (vocab, merges, error);
  g_autofree char *vocab_txt = folder_file (folder, "vocab.txt");
  if (vocab_txt != NULL)
    return as_tokenizer_load_vocab_txt (folder, error);
  g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
               "%s has no tokenizer: looked for tokenizer.json, vocab.json + merges.txt (%s "
               "missing) and vocab.txt",
               folder, vocab == NULL ? "vocab.json" : "merges.txt");
  return NULL;
}

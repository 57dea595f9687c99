/* tokenizer-folder.c — the tokenizer a Hugging Face model folder carries (as-tokenizer.h). */
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
  g_autofree char *vocab = folder_file (folder, "vocab.json");
  g_autofree char *merges = folder_file (folder, "merges.txt");
  if (vocab == NULL || merges == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s has no %s (the GPT-2 tokenizer needs vocab.json and merges.txt)", folder,
                   vocab == NULL ? "vocab.json" : "merges.txt");
      return NULL;
    }
  return as_tokenizer_load_bpe (vocab, merges, error);
}

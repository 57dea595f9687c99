/* encoder-models.c — reference encoders made once per build folder (encoder-models.h). */
#include "encoder-models.h"

#include <glib/gstdio.h>
#include <string.h>

#include "check-close.h"
#include "reference-cache.h"

#define SMALL                                                                                      \
  "--layers", "2", "--heads", "4", "--hidden", "32", "--intermediate", "48", "--vocab", "300",     \
      "--positions", "40", "--format", "both"

const char *const encoder_bert_mlm[] = { "--family", "bert", SMALL, "--bpe-tokenizer", NULL };
const char *const encoder_distilbert_mlm[]
    = { "--family", "distilbert", SMALL, "--bpe-tokenizer", "--seed", "1", NULL };
const char *const encoder_roberta_mlm[] = { "--family", "roberta", SMALL, "--seed", "2", NULL };

static const char *const reference_sources[] = {
  "tests/reference/encoder_reference.py",
  "tests/reference/encoder_layout.py",
  "tests/reference/hf_layout.py",
  "tests/reference/safetensors_io.py",
  NULL,
};

static const ReferenceCache cache = {
  .folder = "encoder-models",
  .script = "tests/reference/encoder_reference.py",
  .sources = reference_sources,
};

/* Size and modification time of DIR's config and weight files, so that a cached copy or
 * expected file follows a changed folder (the shipped model) (owned). */
static char *
folder_stamp (const char *dir)
{
  const char *files[] = { "config.json", "tf_model.h5", "model.safetensors" };
  GString *stamp = g_string_new (NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i], NULL);
      GStatBuf st;
      if (g_stat (path, &st) == 0)
        g_string_append_printf (stamp, "\x1f%s:%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, files[i],
                                (gint64) st.st_size, (gint64) st.st_mtime);
    }
  return g_string_free (stamp, FALSE);
}

char *
encoder_model (const char *name, const char *const *args)
{
  g_autofree char *what = g_strjoinv ("\x1f", (char **) args);
  char *model = reference_cache_path (&cache, name, what);
  if (g_file_test (model, G_FILE_TEST_IS_DIR))
    return model;
  const char *python = test_python_with ("numpy, h5py");
  if (python == NULL)
    {
      g_free (model);
      return NULL;
    }
  g_autofree char *tmp = reference_cache_temporary (model, "");
  g_autoptr (GPtrArray) make = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (make, g_strdup ("make-model"));
  g_ptr_array_add (make, g_strdup (tmp));
  for (const char *const *a = args; *a != NULL; a++)
    g_ptr_array_add (make, g_strdup (*a));
  reference_cache_run (&cache, python, make);
  reference_cache_publish (tmp, model);
  return model;
}

char *
encoder_model_copy (const char *name, const char *source_dir, const char *const *files)
{
  g_autofree char *list = g_strjoinv ("\x1f", (char **) files);
  g_autofree char *stamp = folder_stamp (source_dir);
  g_autofree char *what = g_strdup_printf ("copy\x1f%s\x1f%s%s", source_dir, list, stamp);
  char *model = reference_cache_path (&cache, name, what);
  if (g_file_test (model, G_FILE_TEST_IS_DIR))
    return model;
  g_autofree char *tmp = reference_cache_temporary (model, "");
  g_assert_cmpint (g_mkdir_with_parents (tmp, 0755), ==, 0);
  for (const char *const *f = files; *f != NULL; f++)
    {
      g_autofree char *from = g_build_filename (source_dir, *f, NULL);
      g_autofree char *to = g_build_filename (tmp, *f, NULL);
      reference_cache_copy_file (from, to);
    }
  const char *tokenizer[] = { "vocab.json", "merges.txt" };
  for (gsize i = 0; i < G_N_ELEMENTS (tokenizer); i++)
    {
      g_autofree char *rel = g_build_filename ("tests/fixtures/tiny-gpt2", tokenizer[i], NULL);
      g_autofree char *from = test_source_path (rel);
      g_autofree char *to = g_build_filename (tmp, tokenizer[i], NULL);
      reference_cache_copy_file (from, to);
    }
  reference_cache_publish (tmp, model);
  return model;
}

char *
encoder_expected (const char *model_dir, const char *const *seqs, const char *prefer)
{
  g_autoptr (GPtrArray) exp = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (exp, g_strdup ("expected"));
  g_ptr_array_add (exp, g_strdup (model_dir));
  g_ptr_array_add (exp, NULL); /* the output, below */
  g_ptr_array_add (exp, g_strdup ("--prefer"));
  g_ptr_array_add (exp, g_strdup (prefer));
  gboolean any_types = FALSE;
  for (const char *const *s = seqs; *s != NULL; s++)
    any_types = any_types || strchr (*s, '|') != NULL;
  for (const char *const *s = seqs; *s != NULL; s++)
    {
      g_auto (GStrv) parts = g_strsplit (*s, "|", 2);
      g_ptr_array_add (exp, g_strdup ("--ids"));
      g_ptr_array_add (exp, g_strdup (parts[0]));
      if (!any_types)
        continue;
      /* the reference takes --type-ids for every sequence or for none: zeros where not given */
      GString *types = g_string_new (parts[1]);
      for (const char *c = parts[0]; parts[1] == NULL && *c != '\0'; c++)
        if (c == parts[0] || *c == ',')
          g_string_append (types, c == parts[0] ? "0" : ",0");
      g_ptr_array_add (exp, g_strdup ("--type-ids"));
      g_ptr_array_add (exp, g_string_free (types, FALSE));
    }
  g_autofree char *joined = g_strjoinv ("\x1f", (char **) seqs);
  g_autofree char *stamp = folder_stamp (model_dir);
  g_autofree char *what
      = g_strdup_printf ("expected\x1f%s\x1f%s\x1f%s%s", model_dir, prefer, joined, stamp);
  g_autofree char *name = g_path_get_basename (model_dir);
  g_autofree char *base = g_strconcat (name, "-expected", NULL);
  g_autofree char *stem = reference_cache_path (&cache, base, what);
  char *path = g_strconcat (stem, ".h5", NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  const char *python = test_python_with ("torch, numpy, h5py");
  if (python == NULL)
    {
      g_free (path);
      return NULL;
    }
  g_autofree char *tmp = reference_cache_temporary (path, "");
  exp->pdata[2] = g_strdup (tmp);
  reference_cache_run (&cache, python, exp);
  reference_cache_publish (tmp, path);
  return path;
}

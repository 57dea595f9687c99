/* encoder-models.c — reference encoders made once per build folder (encoder-models.h). */
#include "encoder-models.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "check-close.h"

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
};

/* $ATTNSCOPE_BUILD_DIR/tests/encoder-models (created), or the test's temporary folder. */
static char *
cache_dir (void)
{
  const char *build = g_getenv ("ATTNSCOPE_BUILD_DIR");
  char *dir = build != NULL && *build != '\0'
                  ? g_build_filename (build, "tests", "encoder-models", NULL)
                  : g_build_filename (test_tmpdir (), "encoder-models", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  return dir;
}

/* NAME-<hash of WHAT and the reference's sources> in the cache (owned). */
static char *
cache_path (const char *name, const char *what)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (sum, (const guchar *) what, -1);
  for (gsize i = 0; i < G_N_ELEMENTS (reference_sources); i++)
    {
      g_autofree char *path = test_source_path (reference_sources[i]);
      g_autofree char *text = NULL;
      gsize length = 0;
      g_assert_true (g_file_get_contents (path, &text, &length, NULL));
      g_checksum_update (sum, (const guchar *) text, (gssize) length);
    }
  g_autofree char *dir = cache_dir ();
  g_autofree char *base = g_strdup_printf ("%s-%.16s", name, g_checksum_get_string (sum));
  return g_build_filename (dir, base, NULL);
}

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

/* PATH with ".tmp-<pid>" appended (owned): where a result is made before its rename. */
static char *
temporary_path (const char *path)
{
  return g_strdup_printf ("%s.tmp-%d", path, (int) getpid ());
}

/* Renames TMP to PATH; when another program made PATH meanwhile, keeps that one. */
static void
publish (const char *tmp, const char *path)
{
  if (g_rename (tmp, path) == 0)
    return;
  const char *rm[] = { "rm", "-rf", tmp, NULL };
  g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Runs encoder_reference.py with ARGS (args[0] the subcommand). */
static void
run_reference (const char *python, GPtrArray *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (python));
  g_ptr_array_add (argv, test_source_path ("tests/reference/encoder_reference.py"));
  for (guint i = 0; i < args->len; i++)
    g_ptr_array_add (argv, g_strdup (args->pdata[i]));
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  if (status != 0)
    g_test_message ("encoder_reference.py %s failed (%d): %s", (char *) args->pdata[0], status,
                    err ? err : "");
  g_assert_cmpint (status, ==, 0);
}

char *
encoder_model (const char *name, const char *const *args)
{
  g_autofree char *what = g_strjoinv ("\x1f", (char **) args);
  char *model = cache_path (name, what);
  if (g_file_test (model, G_FILE_TEST_IS_DIR))
    return model;
  const char *python = test_python_with ("numpy, h5py");
  if (python == NULL)
    {
      g_free (model);
      return NULL;
    }
  g_autofree char *tmp = temporary_path (model);
  g_autoptr (GPtrArray) make = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (make, g_strdup ("make-model"));
  g_ptr_array_add (make, g_strdup (tmp));
  for (const char *const *a = args; *a != NULL; a++)
    g_ptr_array_add (make, g_strdup (*a));
  run_reference (python, make);
  publish (tmp, model);
  return model;
}

static void
copy_file (const char *from, const char *to)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (from, &text, &length, NULL));
  g_assert_true (g_file_set_contents (to, text, (gssize) length, NULL));
}

char *
encoder_model_copy (const char *name, const char *source_dir, const char *const *files)
{
  g_autofree char *list = g_strjoinv ("\x1f", (char **) files);
  g_autofree char *stamp = folder_stamp (source_dir);
  g_autofree char *what = g_strdup_printf ("copy\x1f%s\x1f%s%s", source_dir, list, stamp);
  char *model = cache_path (name, what);
  if (g_file_test (model, G_FILE_TEST_IS_DIR))
    return model;
  g_autofree char *tmp = temporary_path (model);
  g_assert_cmpint (g_mkdir_with_parents (tmp, 0755), ==, 0);
  for (const char *const *f = files; *f != NULL; f++)
    {
      g_autofree char *from = g_build_filename (source_dir, *f, NULL);
      g_autofree char *to = g_build_filename (tmp, *f, NULL);
      copy_file (from, to);
    }
  const char *tokenizer[] = { "vocab.json", "merges.txt" };
  for (gsize i = 0; i < G_N_ELEMENTS (tokenizer); i++)
    {
      g_autofree char *rel = g_build_filename ("tests/fixtures/tiny-gpt2", tokenizer[i], NULL);
      g_autofree char *from = test_source_path (rel);
      g_autofree char *to = g_build_filename (tmp, tokenizer[i], NULL);
      copy_file (from, to);
    }
  publish (tmp, model);
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
  g_autofree char *stem = cache_path (base, what);
  char *path = g_strconcat (stem, ".h5", NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  const char *python = test_python_with ("torch, numpy, h5py");
  if (python == NULL)
    {
      g_free (path);
      return NULL;
    }
  g_autofree char *tmp = temporary_path (path);
  exp->pdata[2] = g_strdup (tmp);
  run_reference (python, exp);
  publish (tmp, path);
  return path;
}

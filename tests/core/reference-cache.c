/* reference-cache.c — reference results made once per build folder (reference-cache.h). */
#include "reference-cache.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "check-close.h"

char *
reference_cache_path (const ReferenceCache *cache, const char *name, const char *what)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (sum, (const guchar *) what, -1);
  for (const char *const *s = cache->sources; *s != NULL; s++)
    {
      g_autofree char *path = test_source_path (*s);
      g_autofree char *text = NULL;
      gsize length = 0;
      g_assert_true (g_file_get_contents (path, &text, &length, NULL));
      g_checksum_update (sum, (const guchar *) text, (gssize) length);
    }
  /* $ATTNSCOPE_REFERENCE_CACHE lets two build folders share one cache (.ci/run points the
   * sanitizer build at the normal build's): the files depend on the sources hashed above only. */
  const char *shared = g_getenv ("ATTNSCOPE_REFERENCE_CACHE");
  const char *build = g_getenv ("ATTNSCOPE_BUILD_DIR");
  g_autofree char *dir
      = shared != NULL && *shared != '\0' ? g_build_filename (shared, cache->folder, NULL)
        : build != NULL && *build != '\0' ? g_build_filename (build, "tests", cache->folder, NULL)
                                          : g_build_filename (test_tmpdir (), cache->folder, NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_autofree char *base = g_strdup_printf ("%s-%.16s", name, g_checksum_get_string (sum));
  return g_build_filename (dir, base, NULL);
}

char *
reference_cache_temporary (const char *path, const char *suffix)
{
  return g_strdup_printf ("%s.tmp-%d%s", path, (int) getpid (), suffix);
}

void
reference_cache_publish (const char *tmp, const char *path)
{
  if (g_rename (tmp, path) == 0)
    return;
  const char *rm[] = { "rm", "-rf", tmp, NULL };
  g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
}

void
reference_cache_run (const ReferenceCache *cache, const char *python, GPtrArray *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (python));
  g_ptr_array_add (argv, test_source_path (cache->script));
  for (guint i = 0; i < args->len; i++)
    g_ptr_array_add (argv, g_strdup (args->pdata[i]));
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  if (status != 0)
    g_test_message ("%s %s failed (%d): %s", cache->script, (char *) args->pdata[0], status,
                    err ? err : "");
  g_assert_cmpint (status, ==, 0);
}

void
reference_cache_copy_file (const char *from, const char *to)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (from, &text, &length, NULL));
  g_assert_true (g_file_set_contents (to, text, (gssize) length, NULL));
}

char *
reference_cache_model (const ReferenceCache *cache, const char *name, const char *const *args)
{
  g_autofree char *what = g_strjoinv ("\x1f", (char **) args);
  char *model = reference_cache_path (cache, name, what);
  if (g_file_test (model, G_FILE_TEST_IS_DIR))
    return model;
  const char *python = test_python_with ("numpy");
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
  reference_cache_run (cache, python, make);
  reference_cache_publish (tmp, model);
  return model;
}

char *
reference_cache_output (const ReferenceCache *cache, const char *model_dir, const char *kind,
                        const char *what, GPtrArray *args, guint out_index, const char *suffix)
{
  g_autofree char *base = g_path_get_basename (model_dir);
  g_autofree char *name = g_strconcat (base, "-", kind, NULL);
  g_autofree char *keyed = g_strconcat (model_dir, "\x1f", what, NULL);
  g_autofree char *stem = reference_cache_path (cache, name, keyed);
  char *out = g_strconcat (stem, suffix, NULL);
  if (g_file_test (out, G_FILE_TEST_EXISTS))
    return out;
  const char *python = test_python_with ("torch, h5py, numpy");
  if (python == NULL)
    {
      g_free (out);
      return NULL;
    }
  g_autofree char *tmp = reference_cache_temporary (out, suffix);
  g_free (args->pdata[out_index]);
  args->pdata[out_index] = g_strdup (tmp);
  reference_cache_run (cache, python, args);
  reference_cache_publish (tmp, out);
  return out;
}

char *
reference_cache_expected (const ReferenceCache *cache, const char *model_dir,
                          const char *const *src, const char *const *tgt, int n)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup ("expected"));
  g_ptr_array_add (args, g_strdup (model_dir));
  g_ptr_array_add (args, g_strdup ("")); /* the output */
  GString *what = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    {
      g_ptr_array_add (args, g_strdup ("--src-ids"));
      g_ptr_array_add (args, g_strdup (src[i]));
      g_ptr_array_add (args, g_strdup ("--tgt-ids"));
      g_ptr_array_add (args, g_strdup (tgt[i]));
      g_string_append_printf (what, "%s\x1e%s\x1f", src[i], tgt[i]);
    }
  char *out = reference_cache_output (cache, model_dir, "expected", what->str, args, 2, ".h5");
  g_string_free (what, TRUE);
  return out;
}

char *
reference_cache_generated (const ReferenceCache *cache, const char *model_dir, const char *src,
                           int beams, int max_length)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup ("generate"));
  g_ptr_array_add (args, g_strdup (model_dir));
  g_ptr_array_add (args, g_strdup ("--src-ids"));
  g_ptr_array_add (args, g_strdup (src));
  if (beams > 0)
    {
      g_ptr_array_add (args, g_strdup ("--beams"));
      g_ptr_array_add (args, g_strdup_printf ("%d", beams));
    }
  if (max_length > 0)
    {
      g_ptr_array_add (args, g_strdup ("--max-length"));
      g_ptr_array_add (args, g_strdup_printf ("%d", max_length));
    }
  g_ptr_array_add (args, g_strdup ("--out"));
  g_ptr_array_add (args, g_strdup (""));
  g_autofree char *what = g_strdup_printf ("%s\x1f%d\x1f%d", src, beams, max_length);
  return reference_cache_output (cache, model_dir, "generate", what, args, args->len - 1, ".json");
}

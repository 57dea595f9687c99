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

/* check-close.c — numeric comparison, paths and process helpers for the tests. */
#include "check-close.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "as-error.h"
#include "as-model.h"

void
check_error_stats (const float *actual, const float *expected, gsize n, double *max_abs,
                   double *max_rel)
{
  double ma = 0, mr = 0;
  for (gsize i = 0; i < n; i++)
    {
      double d = fabs ((double) actual[i] - (double) expected[i]);
      double r = d / fmax (fabs ((double) expected[i]), 1e-30);
      if (isnan (d))
        d = r = INFINITY;
      ma = fmax (ma, d);
      mr = fmax (mr, r);
    }
  *max_abs = ma;
  *max_rel = mr;
}

gboolean
check_close (const char *what, const float *actual, const float *expected, gsize n, double atol,
             double rtol)
{
  double max_abs, max_rel;
  check_error_stats (actual, expected, n, &max_abs, &max_rel);
  for (gsize i = 0; i < n; i++)
    {
      double e = expected[i];
      double d = fabs ((double) actual[i] - e);
      if (!(d <= atol + rtol * fabs (e)))
        {
          g_test_message ("%s: mismatch at index %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                          ": actual %.9g expected %.9g; max abs err %.3g, max rel err %.3g "
                          "(atol %.1g, rtol %.1g)",
                          what, i, n, actual[i], expected[i], max_abs, max_rel, atol, rtol);
          g_test_fail ();
          return FALSE;
        }
    }
  g_test_message ("%s: %" G_GSIZE_FORMAT " values close: max abs err %.3g, max rel err %.3g", what,
                  n, max_abs, max_rel);
  return TRUE;
}

char *
test_source_path (const char *relative)
{
  const char *root = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  if (root == NULL)
    {
      g_test_message ("ATTNSCOPE_SOURCE_DIR is not set; run the tests with meson test");
      g_test_fail ();
      root = ".";
    }
  return g_build_filename (root, relative, NULL);
}

static char *tmpdir;

AsModel *
test_load_shipped_model (const char *name)
{
  g_autofree char *relative = g_build_filename ("data/models", name, NULL);
  g_autofree char *dir = test_source_path (relative);
  g_autoptr (GError) error = NULL;
  AsModel *model = as_model_load (dir, &error);
  g_assert_no_error (error);
  return model;
}

const char *
test_tmpdir (void)
{
  if (tmpdir == NULL)
    {
      GError *error = NULL;
      tmpdir = g_dir_make_tmp ("attnscope-test-XXXXXX", &error);
      g_assert_no_error (error);
    }
  return tmpdir;
}

void
test_tmpdir_cleanup (void)
{
  if (tmpdir == NULL)
    return;
  const char *argv[] = { "rm", "-rf", tmpdir, NULL };
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                NULL);
  g_clear_pointer (&tmpdir, g_free);
}

int
test_spawn (const char *const *argv, char **out, char **err)
{
  int status = 0;
  GError *error = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status,
                     &error))
    {
      g_test_message ("could not start %s: %s", argv[0], error->message);
      g_error_free (error);
      return -1;
    }
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  return 128 + WTERMSIG (status);
}

gboolean
test_sanitized (void)
{
  const char *sanitized = g_getenv ("ATTNSCOPE_SANITIZED");
  return sanitized != NULL && *sanitized != '\0';
}

gboolean
test_left_to_normal_build (const char *what)
{
  if (!test_sanitized ())
    return FALSE;
  g_autofree char *why
      = g_strdup_printf ("sanitizer build: %s is left to the normal build's run", what);
  g_test_skip (why);
  return TRUE;
}

/* The interpreter's answer for MODULES, asked once per test program: a program asks before every
 * reference it makes, and each question imports torch again (about 1.5 s). */
G_LOCK_DEFINE_STATIC (python_checked);
static GHashTable *python_checked; /* modules → "" (importable) or the reason */

static const char *
python_check (const char *python, const char *modules)
{
  G_LOCK (python_checked);
  if (python_checked == NULL)
    python_checked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *why = g_hash_table_lookup (python_checked, modules);
  G_UNLOCK (python_checked);
  if (why != NULL)
    return why;
  g_autofree char *import = g_strdup_printf ("import %s", modules);
  const char *argv[] = { python, "-c", import, NULL };
  g_autofree char *out = NULL, *err = NULL;
  char *answer
      = test_spawn (argv, &out, &err) == 0
            ? g_strdup ("")
            : g_strdup_printf ("%s cannot import %s (install Debian's python3-* packages for them)",
                               python, modules);
  G_LOCK (python_checked);
  g_hash_table_replace (python_checked, g_strdup (modules), answer);
  G_UNLOCK (python_checked);
  return answer;
}

const char *
test_python_with (const char *modules)
{
  const char *python = g_getenv ("ATTNSCOPE_PYTHON");
  if (python == NULL || *python == '\0')
    {
      g_test_skip ("ATTNSCOPE_PYTHON is not set: the Python reference cannot run (run the tests "
                   "with meson test; .ci/install-deps installs Debian's python3 packages)");
      return NULL;
    }
  const char *why = python_check (python, modules);
  if (*why != '\0')
    {
      g_test_skip (why);
      return NULL;
    }
  return python;
}

void
assert_load_fails (const char *spec, int code, const char *const *needles)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (spec, &error);
  g_assert_null (model);
  g_assert_nonnull (error);
  g_test_message ("error: %s", error->message);
  g_assert_error (error, AS_ERROR, code);
  for (const char *const *n = needles; *n != NULL; n++)
    if (strstr (error->message, *n) == NULL)
      {
        g_test_message ("the message lacks \"%s\"", *n);
        g_test_fail ();
      }
}

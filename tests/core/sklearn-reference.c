/* sklearn-reference.c — spawning the Python reference scripts and reading their JSON. */
#include "sklearn-reference.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdarg.h>

#include "check-close.h"

gboolean
sklearn_reference_available (void)
{
  return test_python_with ("sklearn, h5py, numpy") != NULL;
}

char *
reference_script_run_valist (const char *script_relative, const char *first, va_list ap)
{
  g_autofree char *script = test_source_path (script_relative);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) g_getenv ("ATTNSCOPE_PYTHON"));
  g_ptr_array_add (argv, script);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  g_ptr_array_add (argv, NULL);

  char *out = NULL;
  g_autofree char *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  if (status != 0)
    {
      g_test_message ("%s %s exited with %d: %s", script_relative, first, status, err ? err : "");
      g_test_fail ();
      g_free (out);
      return NULL;
    }
  return out;
}

char *
sklearn_reference_run (const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  char *out = reference_script_run_valist ("tests/reference/sklearn_reference.py", first, ap);
  va_end (ap);
  return out;
}

double
sklearn_reference_json_number (const char *text, const char *key)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (text == NULL || !json_parser_load_from_data (parser, text, -1, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_test_message ("the reference printed no JSON object: %s", text ? text : "(nothing)");
      g_test_fail ();
      return NAN;
    }
  JsonObject *object = json_node_get_object (json_parser_get_root (parser));
  if (!json_object_has_member (object, key))
    {
      g_test_message ("the reference's JSON has no \"%s\": %s", key, text);
      g_test_fail ();
      return NAN;
    }
  return json_object_get_double_member (object, key);
}

char *
sklearn_reference_tmp (const char *name)
{
  return g_build_filename (test_tmpdir (), name, NULL);
}

char *
sklearn_reference_mixture (int n, int d, int seed)
{
  g_autofree char *name = g_strdup_printf ("mixture-%d-%d-%d.h5", n, d, seed);
  char *path = sklearn_reference_tmp (name);
  g_autofree char *n_arg = g_strdup_printf ("%d", n);
  g_autofree char *d_arg = g_strdup_printf ("%d", d);
  g_autofree char *seed_arg = g_strdup_printf ("%d", seed);
  g_autofree char *out = sklearn_reference_run ("gen", "--out", path, "--n", n_arg, "--d", d_arg,
                                                "--seed", seed_arg, NULL);
  if (out == NULL)
    g_clear_pointer (&path, g_free);
  return path;
}

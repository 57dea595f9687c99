/* cli-support.c — see cli-support.h. */
#include "cli-support.h"

#include <string.h>

#include "check-close.h"

void
run_clear (Run *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

Run
run_cli_argv (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) g_getenv ("ATTNSCOPE_BIN"));
  for (int i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  Run r = { 0 };
  r.status = test_spawn ((const char *const *) argv->pdata, &r.out, &r.err);
  if (r.status != 0)
    g_test_message ("exit %d, stderr: %s", r.status, r.err);
  return r;
}

Run
run_cli_valist (const char *const *prefix, const char *first, va_list ap)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (int i = 0; prefix != NULL && prefix[i] != NULL; i++)
    g_ptr_array_add (args, (char *) prefix[i]);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) a);
  g_ptr_array_add (args, NULL);
  return run_cli_argv ((const char *const *) args->pdata);
}

Run
run_cli (const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  Run r = run_cli_valist (NULL, first, ap);
  va_end (ap);
  return r;
}

void
assert_error (const Run *r, int status, const char *needle)
{
  g_assert_cmpint (r->status, ==, status);
  if (status == 1)
    {
      g_assert_true (g_str_has_prefix (r->err, "attnscope: error: "));
      g_assert_true (strchr (r->err, '\n') == r->err + strlen (r->err) - 1);
    }
  else
    g_assert_true (g_str_has_prefix (r->err, "attnscope: usage error: "));
  if (needle != NULL)
    g_assert_nonnull (strstr (r->err, needle));
  g_assert_cmpstr (r->out, ==, "");
}

JsonNode *
parse_json (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

JsonNode *
read_json_file (const char *path)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return parse_json (contents);
}

double
json_table_get (JsonObject *o, const char *member, int row, int col)
{
  JsonArray *rows = json_object_get_array_member (o, member);
  return json_array_get_double_element (json_array_get_array_element (rows, row), col);
}

gboolean
reference_left_to_normal_build (const char *what)
{
  if (!test_sanitized ())
    return FALSE;
  g_test_message ("sanitizer build: %s not compared with the reference here (the normal build "
                  "does)",
                  what);
  return TRUE;
}

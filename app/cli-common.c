/* cli-common.c — what every subcommand shares: option parsing with the exit-code contract,
 * error lines, model loading, input checks and atomic file writes. */
#include "cli.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "as-error.h"

int
cli_fail (GError *error)
{
  fprintf (stderr, "attnscope: error: %s\n", error != NULL ? error->message : "unknown error");
  g_clear_error (&error);
  return CLI_EXIT_FAILURE;
}

int
cli_fail_printf (const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "attnscope: error: %s\n", message);
  return CLI_EXIT_FAILURE;
}

int
cli_usage_printf (const char *command, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "attnscope: usage error: %s\nRun 'attnscope %s --help' for the options.\n",
           message, command);
  return CLI_EXIT_USAGE;
}

gboolean
cli_parse_options (const char *command, const char *parameter_string, const char *summary,
                   const GOptionEntry *entries, int *argc, char ***argv, int *exit_code)
{
  /* the help's usage line reads "attnscope COMMAND [OPTION…] PARAMETERS" */
  g_autofree char *program = g_strdup_printf ("attnscope %s", command);
  g_set_prgname (program);
  g_autoptr (GOptionContext) context = g_option_context_new (parameter_string);
  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_help_enabled (context, TRUE);

  for (int i = 1; i < *argc; i++)
    if (strcmp ((*argv)[i], "--help") == 0 || strcmp ((*argv)[i], "-h") == 0)
      {
        g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
        fputs (help, stdout);
        *exit_code = CLI_EXIT_OK;
        return FALSE;
      }

  GError *error = NULL;
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      *exit_code = cli_usage_printf (command, "%s", error->message);
      g_error_free (error);
      return FALSE;
    }
  return TRUE;
}

AsModel *
cli_load_model (const char *spec, GError **error)
{
  return as_model_load (spec != NULL ? spec : as_model_default_name (), error);
}

gboolean
cli_check_text (const char *text, const char *argument, GError **error)
{
  const char *end = NULL;
  if (text == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s is missing", argument);
      return FALSE;
    }
  if (!g_utf8_validate (text, -1, &end))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s is not valid UTF-8 (invalid byte 0x%02x at offset %ld)", argument,
                   (unsigned char) *end, (long) (end - text));
      return FALSE;
    }
  if (*text == '\0')
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s is empty", argument);
      return FALSE;
    }
  return TRUE;
}

GArray *
cli_parse_ids (const char *list, const char *argument, GError **error)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  g_auto (GStrv) parts = g_strsplit (list, ",", -1);
  for (int i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *part = g_strstrip (g_strdup (parts[i]));
      gint64 value = 0;
      if (!g_ascii_string_to_signed (part, 10, 0, G_MAXINT32, &value, NULL))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "%s: '%s' (item %d) is not a non-negative token id", argument, part, i + 1);
          return NULL;
        }
      int32_t id = (int32_t) value;
      g_array_append_val (ids, id);
    }
  if (ids->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s is empty", argument);
      return NULL;
    }
  return g_steal_pointer (&ids);
}

GArray *
cli_parse_type_ids (const char *list, const GArray *ids, GError **error)
{
  g_autoptr (GArray) types = cli_parse_ids (list, "--type-ids", error);
  if (types == NULL)
    return NULL;
  if (types->len != ids->len)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--type-ids has %u values but --ids has %u; give one token type per id",
                   types->len, ids->len);
      return NULL;
    }
  return g_steal_pointer (&types);
}

gboolean
cli_foreach_text_line (const char *path, CliLineFunc func, gpointer user_data, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  GError *local = NULL;
  if (!g_file_get_contents (path, &contents, &length, &local))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "--lines: %s", local->message);
      g_error_free (local);
      return FALSE;
    }
  const char *nul = memchr (contents, '\0', length);
  if (nul != NULL)
    {
      int line = 1;
      for (const char *p = contents; p < nul; p++)
        line += *p == '\n';
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--lines: %s line %d holds a NUL byte (at byte %ld of the file); the file must "
                   "be text",
                   path, line, (long) (nul - contents));
      return FALSE;
    }
  g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
  int n_texts = 0;
  for (int i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      gsize len = strlen (line);
      if (len > 0 && line[len - 1] == '\r')
        line[len - 1] = '\0';
      g_autofree char *stripped = g_strstrip (g_strdup (line));
      if (*stripped == '\0')
        continue;
      if (!func (line, user_data, &local))
        {
          g_propagate_prefixed_error (error, local, "--lines: %s line %d: ", path, i + 1);
          return FALSE;
        }
      n_texts++;
    }
  if (n_texts == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--lines: %s has no text (every line is empty or blank)", path);
      return FALSE;
    }
  return TRUE;
}

gboolean
cli_write_file_atomic (const char *path, const char *contents, gssize length, GError **error)
{
  GError *local = NULL;
  if (!g_file_set_contents_full (path, contents, length, G_FILE_SET_CONTENTS_CONSISTENT, 0644,
                                 &local))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

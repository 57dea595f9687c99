/* cli-common.c — what every subcommand shares: option parsing with the exit-code contract,
 * error lines, model loading, input checks, reading --lines files and the final check of
 * standard output. */
#include "cli-common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>

#include "as-error.h"
#include "as-input-file.h"
#include "as-tokenizer.h"
#include "cli-intervene.h"

gboolean cli_strict = FALSE;

/* Prints PREFIX and MESSAGE as one line: a line break or other control character that came into
 * MESSAGE from a file (a weight name, a JSON key) is shown escaped, as in C. */
static void
print_line (const char *prefix, const char *message)
{
  GString *line = g_string_new (prefix);
  for (const unsigned char *p = (const unsigned char *) message; *p != '\0'; p++)
    if (*p == '\n')
      g_string_append (line, "\\n");
    else if (*p == '\r')
      g_string_append (line, "\\r");
    else if (*p == '\t')
      g_string_append (line, "\\t");
    else if (*p < 0x20 || *p == 0x7f)
      g_string_append_printf (line, "\\x%02x", *p);
    else
      g_string_append_c (line, (char) *p);
  g_string_append_c (line, '\n');
  fputs (line->str, stderr);
  g_string_free (line, TRUE);
}

/* Prints "attnscope: error: MESSAGE" as one line (print_line). */
static void
print_error_line (const char *message)
{
  print_line ("attnscope: error: ", message);
}

int
cli_fail (GError *error)
{
  print_error_line (error != NULL ? error->message : "unknown error");
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
  print_error_line (message);
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

/* Fails naming ARGUMENT unless TEXT is valid UTF-8. */
static gboolean
check_utf8 (const char *text, const char *argument, GError **error)
{
  const char *end = NULL;
  if (g_utf8_validate (text, -1, &end))
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "%s is not valid UTF-8 (invalid byte 0x%02x at offset %ld)", argument,
               (unsigned char) *end, (long) (end - text));
  return FALSE;
}

/* Checks that the values of the text options (those ENTRIES declares as strings, parsed as
 * file names so that GLib does not convert them) are valid UTF-8, naming the option. */
static gboolean
check_text_options (const GOptionEntry *entries, GError **error)
{
  for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
    {
      g_autofree char *name = g_strdup_printf ("--%s", e->long_name);
      if (e->arg == G_OPTION_ARG_STRING && *(char **) e->arg_data != NULL
          && !check_utf8 (*(char **) e->arg_data, name, error))
        return FALSE;
      char **values = e->arg == G_OPTION_ARG_STRING_ARRAY ? *(char ***) e->arg_data : NULL;
      for (int i = 0; values != NULL && values[i] != NULL; i++)
        {
          g_autofree char *nth = g_strdup_printf ("%s #%d", name, i + 1);
          if (!check_utf8 (values[i], values[1] != NULL ? nth : name, error))
            return FALSE;
        }
    }
  return TRUE;
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
  /* Text options are taken byte for byte and checked below: GLib's own conversion fails with
   * "Invalid byte sequence in conversion input", naming neither the option nor the byte. */
  gsize n_entries = 0;
  while (entries[n_entries].long_name != NULL)
    n_entries++;
  g_autofree GOptionEntry *raw = g_memdup2 (entries, (n_entries + 1) * sizeof *entries);
  for (gsize i = 0; i < n_entries; i++)
    if (raw[i].arg == G_OPTION_ARG_STRING)
      raw[i].arg = G_OPTION_ARG_FILENAME;
    else if (raw[i].arg == G_OPTION_ARG_STRING_ARRAY)
      raw[i].arg = G_OPTION_ARG_FILENAME_ARRAY;
  g_option_context_add_main_entries (context, raw, NULL);
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
  if (!check_text_options (entries, &error))
    {
      *exit_code = cli_fail (error);
      return FALSE;
    }
  return TRUE;
}

AsModel *
cli_load_model (const char *spec, GError **error)
{
  AsModel *model
      = as_model_load_with (spec != NULL ? spec : as_model_default_name (),
                            cli_strict ? AS_MODEL_LOAD_STRICT : AS_MODEL_LOAD_DEFAULT, error);
  if (model != NULL && as_model_get_warning (model) != NULL)
    print_line ("attnscope: warning: ", as_model_get_warning (model));
  if (model != NULL && !cli_intervene_prepare (model, error))
    g_clear_pointer (&model, as_model_unref);
  return model;
}

gboolean
cli_check_text (const char *text, const char *argument, GError **error)
{
  if (text == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s is missing", argument);
      return FALSE;
    }
  if (!check_utf8 (text, argument, error))
    return FALSE;
  if (*text == '\0')
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s is empty", argument);
      return FALSE;
    }
  return TRUE;
}

int
cli_check_output_name (const char *command, const char *option, const char *path)
{
  if (path == NULL || (*path != '\0' && !g_str_has_suffix (path, "/")))
    return -1;
  return cli_usage_printf (command, "%s '%s' names no file (expected a file name)", option, path);
}

int
cli_check_type_ids_model (const char *command, AsModel *model)
{
  const AsConfig *c = as_model_get_config (model);
  /* an encoder without token type embeddings (DistilBERT) takes them as a pair's segment marks */
  if (c->type_vocab_size > 0 || (!c->causal_lm && !c->encoder_decoder))
    return -1;
  return cli_usage_printf (command,
                           "%s has no token types: --type-ids needs an encoder that takes "
                           "sentence pairs, such as BERT",
                           as_model_get_name (model));
}

/* TEXT, or (in *CUT, owned) its prefix that decides its first MAX_IDS tokens; NULL on error. */
static const char *
fit_text (AsTokenizer *tokenizer, const char *text, int max_ids, char **cut, GError **error)
{
  gsize length = strlen (text), prefix = length;
  if (!as_tokenizer_prefix_for (tokenizer, text, length, max_ids, &prefix, error))
    return NULL;
  if (prefix == length)
    return text;
  *cut = g_strndup (text, prefix);
  return *cut;
}

AsTrace *
cli_forward_text (AsModel *model, const char *text, const char *pair, gboolean truncate,
                  const AsForwardOptions *given, GError **error)
{
  AsForwardOptions changed = given != NULL ? *given : (AsForwardOptions){ 0 };
  cli_intervene_apply (&changed);
  const AsForwardOptions *options = &changed;
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  const AsConfig *c = as_model_get_config (model);
  if (tokenizer == NULL || c->encoder_decoder || text == NULL)
    return as_forward_pair (model, text, pair, truncate, options, error);
  /* up to 4 × context the counts in as_forward_pair's messages stay exact */
  int max_ids = c->n_positions < G_MAXINT / 4 ? 4 * c->n_positions : G_MAXINT - 1;
  g_autofree char *text_cut = NULL, *pair_cut = NULL;
  const char *a = fit_text (tokenizer, text, max_ids, &text_cut, error);
  const char *b
      = a != NULL && pair != NULL ? fit_text (tokenizer, pair, max_ids, &pair_cut, error) : pair;
  if (a == NULL || (pair != NULL && b == NULL))
    return NULL;
  if ((text_cut != NULL || pair_cut != NULL) && !truncate)
    {
      if (pair != NULL)
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "the pair has more than %d tokens (its %s text alone) but the model's "
                     "context length is %d tokens; shorten the texts or use --truncate to drop "
                     "tokens from the longer text first",
                     max_ids, text_cut != NULL ? "first" : "second", c->n_positions);
      else
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "the input has more than %d tokens but the model's context length is %d "
                     "tokens; shorten the text or use --truncate to keep the first %d",
                     max_ids, c->n_positions, c->n_positions);
      return NULL;
    }
  return as_forward_pair (model, a, b, truncate, options, error);
}

AsTrace *
cli_forward_text_or_ids (AsModel *model, const char *text, const char *ids, gboolean truncate,
                         const AsForwardOptions *options, GError **error)
{
  if (text != NULL)
    return cli_forward_text (model, text, NULL, truncate, options, error);
  g_autoptr (GArray) parsed = cli_parse_ids (ids, "--ids", error);
  if (parsed == NULL)
    return NULL;
  return as_forward (model, &g_array_index (parsed, int32_t, 0), (int) parsed->len, options, error);
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

char *
cli_read_lines_file (const char *path, gsize *length, GError **error)
{
  char *contents = NULL;
  if (!as_input_file_read_text (path, CLI_LINES_MAX_BYTES, &contents, length, error))
    {
      g_prefix_error (error, "--lines: ");
      return NULL;
    }
  return contents;
}

gboolean
cli_foreach_text_line (const char *path, CliLineFunc func, gpointer user_data, GError **error)
{
  return cli_foreach_text_line_named ("--lines", path, func, user_data, error);
}

gboolean
cli_foreach_text_line_named (const char *option, const char *path, CliLineFunc func,
                             gpointer user_data, GError **error)
{
  gsize length = 0;
  g_autofree char *contents = cli_read_lines_file (path, &length, error);
  if (contents == NULL)
    return FALSE;
  g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
  int n_texts = 0;
  GError *local = NULL;
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
          g_propagate_prefixed_error (error, local, "%s: %s line %d: ", option, path, i + 1);
          return FALSE;
        }
      n_texts++;
    }
  if (n_texts == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s: %s has no text (every line is empty or blank)", option, path);
      return FALSE;
    }
  return TRUE;
}

/* gnulib's close_stream: a stream that fails to close, or had failed before, is an error —
 * except a stream the caller closed before that nothing was written to (EBADF). */
static gboolean
close_stream (FILE *stream)
{
  gboolean pending = __fpending (stream) != 0;
  gboolean failed_before = ferror (stream) != 0;
  gboolean failed = fclose (stream) != 0;
  if (failed_before || (failed && (pending || errno != EBADF)))
    {
      if (!failed)
        errno = 0;
      return FALSE;
    }
  return TRUE;
}

int
cli_finish (int status)
{
  if (!close_stream (stdout))
    {
      int e = errno;
      if (status == CLI_EXIT_OK)
        {
          fprintf (stderr, "attnscope: error: writing to standard output failed%s%s\n",
                   e != 0 ? ": " : "", e != 0 ? g_strerror (e) : "");
          status = CLI_EXIT_FAILURE;
        }
    }
  /* Nothing is left to report an error of stderr on; the exit status says it. */
  if (!close_stream (stderr) && status == CLI_EXIT_OK)
    status = CLI_EXIT_FAILURE;
  return status;
}

/* cli-tokenize.c — `attnscope tokenize`: text to token ids and token strings, one text or one
 * JSON object per line of a file. */
#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "cli-json.h"
#include "cli.h"

/* Appends {"ids":[...],"tokens":[...]} for IDS as one line. */
static void
append_tokens_json (GString *out, const AsTokenizer *tokenizer, GArray *ids)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "ids");
  json_builder_begin_array (builder);
  for (guint i = 0; i < ids->len; i++)
    json_builder_add_int_value (builder, g_array_index (ids, int32_t, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "tokens");
  json_builder_begin_array (builder);
  for (guint i = 0; i < ids->len; i++)
    json_builder_add_string_value (
        builder, as_tokenizer_get_token (tokenizer, g_array_index (ids, int32_t, i)));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  g_autofree char *line = cli_json_to_line (builder);
  g_string_append (out, line);
}

static void
append_tokens_text (GString *out, const AsTokenizer *tokenizer, const char *text, GArray *ids)
{
  g_string_append_printf (out, "Input: %s\nTokens: [", text);
  for (guint i = 0; i < ids->len; i++)
    {
      g_autofree char *quoted
          = cli_json_quote (as_tokenizer_get_token (tokenizer, g_array_index (ids, int32_t, i)));
      g_string_append_printf (out, "%s%s", i ? ", " : "", quoted);
    }
  g_string_append (out, "]\nToken IDs: [");
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (out, "%s%d", i ? ", " : "", g_array_index (ids, int32_t, i));
  g_string_append (out, "]\n");
}

static int
tokenize_lines (AsTokenizer *tokenizer, const char *path)
{
  GError *error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_get_contents (path, &contents, &length, &error))
    {
      g_prefix_error (&error, "--lines: ");
      return cli_fail (error);
    }
  g_autoptr (GString) out = g_string_new (NULL);
  char *line = contents, *end = contents + length;
  int number = 1;
  while (line < end)
    {
      char *newline = memchr (line, '\n', end - line);
      gsize n = newline ? (gsize) (newline - line) : (gsize) (end - line);
      if (n > 0 && line[n - 1] == '\r')
        n--;
      g_autoptr (GArray) ids = as_tokenizer_encode (tokenizer, line, n, &error);
      if (ids == NULL)
        {
          g_prefix_error (&error, "%s:%d: ", path, number);
          return cli_fail (error);
        }
      append_tokens_json (out, tokenizer, ids);
      line = newline ? newline + 1 : end;
      number++;
    }
  fwrite (out->str, 1, out->len, stdout);
  return CLI_EXIT_OK;
}

int
cli_tokenize (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *lines = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print {\"ids\":[...],\"tokens\":[...]}", NULL },
    { "lines", 0, 0, G_OPTION_ARG_FILENAME, &lines, "Tokenize each line of FILE (JSON lines)",
      "FILE" },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("tokenize", "[TEXT]", "Split text into tokens.", entries, &argc, &argv,
                          &code))
    return code;
  if (lines != NULL && argc > 1)
    return cli_usage_printf ("tokenize", "give either TEXT or --lines FILE, not both");
  if (lines == NULL && argc != 2)
    return cli_usage_printf ("tokenize", "expected one TEXT argument (quote it) or --lines FILE");

  GError *error = NULL;
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  if (lines != NULL)
    return tokenize_lines (tokenizer, lines);

  if (!cli_check_text (argv[1], "TEXT", &error))
    return cli_fail (error);
  g_autoptr (GArray) ids = as_tokenizer_encode (tokenizer, argv[1], -1, &error);
  if (ids == NULL)
    return cli_fail (error);
  g_autoptr (GString) out = g_string_new (NULL);
  if (json)
    append_tokens_json (out, tokenizer, ids);
  else
    append_tokens_text (out, tokenizer, argv[1], ids);
  fwrite (out->str, 1, out->len, stdout);
  return CLI_EXIT_OK;
}

/* cli-tokenize.c — `attnscope tokenize`: text to token ids and token strings, one text or one
 * JSON object per line of a file.
 *
 * Only the model's tokenizer files are read (as_model_load_tokenizer): a folder with a
 * tokenizer.json and no weights works, whatever architecture its config.json names. The ids are
 * HF's tokenizer(text) ids — the model's special tokens added unless --no-special; --pair
 * encodes a sentence pair (and --json then prints the type ids). Tokens print as vocabulary
 * strings, or with --readable as the token strip and the figures show them (as-readable-tokens.h:
 * the text each stands for with its whitespace made visible, "▁the" → "␣the", "<0x0A>" → "↵"; a
 * character split over several byte tokens shown once on its first token, "…" on the others). */
#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "as-readable-tokens.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"

typedef struct
{
  AsTokenizer *tokenizer;
  AsEncodeFlags flags;
  gboolean readable;
  gboolean json;
  const char *pair; /* NULL: one text */
  GString *out;
} TokenizeRun;

/* The strings shown for the tokens IDS (valid UTF-8; free with g_strfreev): the vocabulary
 * strings, or with --readable the readable tokens of the whole text. */
static char **
token_strings (const TokenizeRun *run, GArray *ids)
{
  const int32_t *v = (const int32_t *) ids->data;
  if (run->readable)
    return as_readable_tokens_of_ids (run->tokenizer, v, (int) ids->len, AS_READABLE_DEFAULT);
  char **strings = g_new0 (char *, ids->len + 1);
  for (guint i = 0; i < ids->len; i++)
    strings[i] = g_strdup (as_tokenizer_get_token (run->tokenizer, v[i]));
  return strings;
}

static void
append_ids (GString *out, GArray *ids, const char *sep)
{
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (out, "%s%d", i ? sep : "", g_array_index (ids, int32_t, i));
}

static void
append_tokens (const TokenizeRun *run, GArray *ids, const char *sep)
{
  g_auto (GStrv) strings = token_strings (run, ids);
  for (guint i = 0; i < ids->len; i++)
    {
      if (i)
        g_string_append (run->out, sep);
      g_autofree char *quoted = cli_json_quote (strings[i]);
      g_string_append (run->out, quoted);
    }
}

static void
set_int_array (JsonBuilder *builder, const char *member, GArray *values)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint i = 0; i < values->len; i++)
    json_builder_add_int_value (builder, g_array_index (values, int32_t, i));
  json_builder_end_array (builder);
}

/* {"ids":[...],"tokens":[...]} (and "type_ids" for a pair) for E, as one line. */
static void
append_json (const TokenizeRun *run, const AsEncoding *e)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  json_builder_begin_object (builder);
  set_int_array (builder, "ids", e->ids);
  json_builder_set_member_name (builder, "tokens");
  json_builder_begin_array (builder);
  g_auto (GStrv) strings = token_strings (run, e->ids);
  for (guint i = 0; i < e->ids->len; i++)
    json_builder_add_string_value (builder, strings[i]);
  json_builder_end_array (builder);
  if (run->pair != NULL)
    set_int_array (builder, "type_ids", e->type_ids);
  json_builder_end_object (builder);
  g_autofree char *line = cli_json_to_line (builder);
  g_string_append (run->out, line);
}

static void
append_text (const TokenizeRun *run, const char *text, const AsEncoding *e)
{
  g_string_append_printf (run->out, "Input: %s\n", text);
  if (run->pair != NULL)
    g_string_append_printf (run->out, "Pair: %s\n", run->pair);
  g_string_append (run->out, "Tokens: [");
  append_tokens (run, e->ids, ", ");
  g_string_append (run->out, "]\nToken IDs: [");
  append_ids (run->out, e->ids, ", ");
  g_string_append (run->out, "]\n");
  if (run->pair != NULL)
    {
      g_string_append (run->out, "Type IDs: [");
      append_ids (run->out, e->type_ids, ", ");
      g_string_append (run->out, "]\n");
    }
}

static AsEncoding *
encode (const TokenizeRun *run, const char *text, gssize length, GError **error)
{
  return as_tokenizer_encode_full (run->tokenizer, text, length, run->pair, -1, run->flags, error);
}

static int
tokenize_lines (TokenizeRun *run, const char *path)
{
  GError *error = NULL;
  gsize length = 0;
  g_autofree char *contents = cli_read_lines_file (path, &length, &error);
  if (contents == NULL)
    return cli_fail (error);
  char *line = contents, *end = contents + length;
  int number = 1;
  while (line < end)
    {
      char *newline = memchr (line, '\n', end - line);
      gsize n = newline ? (gsize) (newline - line) : (gsize) (end - line);
      if (n > 0 && line[n - 1] == '\r')
        n--;
      g_autoptr (AsEncoding) e = encode (run, line, (gssize) n, &error);
      if (e == NULL)
        {
          g_prefix_error (&error, "%s:%d: ", path, number);
          return cli_fail (error);
        }
      append_json (run, e);
      line = newline ? newline + 1 : end;
      number++;
    }
  fwrite (run->out->str, 1, run->out->len, stdout);
  return CLI_EXIT_OK;
}

int
cli_tokenize (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *lines = NULL, *pair = NULL;
  gboolean json = FALSE, no_special = FALSE, readable = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec,
      "Model folder (only its tokenizer files are read), shipped name or hub id", "M" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Print {\"ids\":[...],\"tokens\":[...]} (and \"type_ids\" with --pair)", NULL },
    { "lines", 0, 0, G_OPTION_ARG_FILENAME, &lines, "Tokenize each line of FILE (JSON lines)",
      "FILE" },
    { "no-special", 0, 0, G_OPTION_ARG_NONE, &no_special,
      "Add no special tokens (HF's add_special_tokens=False)", NULL },
    /* raw bytes (no locale conversion), so that bad UTF-8 is reported as for TEXT */
    { "pair", 0, 0, G_OPTION_ARG_FILENAME, &pair, "Encode TEXT and TEXT2 as a sentence pair",
      "TEXT2" },
    { "readable", 0, 0, G_OPTION_ARG_NONE, &readable,
      "Print each token as the window shows it: the text it stands for, spaces as ␣, a "
      "character split over several tokens once, … on the rest",
      NULL },
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
  if (lines != NULL && pair != NULL)
    return cli_usage_printf ("tokenize", "--pair goes with one TEXT, not with --lines");

  GError *error = NULL;
  if (pair != NULL && !cli_check_text (pair, "--pair", &error))
    return cli_fail (error);
  g_autoptr (AsTokenizer) tokenizer = as_model_load_tokenizer (model_spec, &error);
  if (tokenizer == NULL)
    return cli_fail (error);
  g_autoptr (GString) out = g_string_new (NULL);
  TokenizeRun run
      = { tokenizer, no_special ? AS_ENCODE_NO_SPECIAL : AS_ENCODE_DEFAULT, readable, json, pair,
          out };
  if (lines != NULL)
    return tokenize_lines (&run, lines);

  if (!cli_check_text (argv[1], "TEXT", &error))
    return cli_fail (error);
  g_autoptr (AsEncoding) e = encode (&run, argv[1], -1, &error);
  if (e == NULL)
    return cli_fail (error);
  if (json)
    append_json (&run, e);
  else
    append_text (&run, argv[1], e);
  fwrite (out->str, 1, out->len, stdout);
  return CLI_EXIT_OK;
}

/* cli-translate.c — `attnscope translate`: greedy or beam-search translation with an
 * encoder–decoder model, as Hugging Face's generate() does with the model's generation settings
 * (core/include/as-translate.h). Prints the translation, or with --json the source and target ids,
 * tokens, text, score and the settings used. */
#include <math.h>
#include <stdio.h>

#include "as-translate.h"
#include "cli-analysis.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"

static void
add_ids (JsonBuilder *out, const char *member, const GArray *ids)
{
  json_builder_set_member_name (out, member);
  json_builder_begin_array (out);
  for (guint i = 0; i < ids->len; i++)
    json_builder_add_int_value (out, g_array_index (ids, int32_t, i));
  json_builder_end_array (out);
}

static void
add_tokens (JsonBuilder *out, const char *member, const AsTokenizer *tokenizer, const GArray *ids)
{
  json_builder_set_member_name (out, member);
  json_builder_begin_array (out);
  for (guint i = 0; i < ids->len; i++)
    {
      const char *token = as_tokenizer_get_token (tokenizer, g_array_index (ids, int32_t, i));
      json_builder_add_string_value (out, token != NULL ? token : "");
    }
  json_builder_end_array (out);
}

static void
print_json (const AsTranslation *t, AsModel *model, const char *text)
{
  const AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_string (out, "model", as_model_get_name (model));
  if (text != NULL)
    cli_json_set_string (out, "text", text);
  add_ids (out, "source_ids", t->source_ids);
  if (tokenizer != NULL)
    add_tokens (out, "source_tokens", tokenizer, t->source_ids);
  add_ids (out, "ids", t->ids);
  if (tokenizer != NULL)
    add_tokens (out, "tokens", tokenizer, t->ids);
  cli_json_set_string (out, "translation", t->text != NULL ? t->text : "");
  cli_json_set_int (out, "beams", t->num_beams);
  cli_json_set_int (out, "max_length", t->max_length);
  cli_json_set_number (out, "score", t->score); /* NaN (greedy) is written as null */
  json_builder_end_object (out);
  cli_json_print (out);
}

int
cli_translate (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *text = NULL, *ids_list = NULL;
  int beams = 0, max_length = 0;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    CLI_STRICT_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING, &text, "Source text", "T" },
    { "ids", 0, 0, G_OPTION_ARG_STRING, &ids_list,
      "Source token ids, comma separated, exactly as given (</s> last as the tokenizer puts it)",
      "1,2,3" },
    { "beams", 'k', 0, G_OPTION_ARG_INT, &beams,
      "Beams (1: greedy search; default: the model's num_beams)", "K" },
    { "max-length", 0, 0, G_OPTION_ARG_INT, &max_length,
      "Longest target in tokens, start token included (default: the model's max_length)", "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    CLI_NO_POSITIONS_OPTION,
    { NULL },
  };
  int code;
  if (!cli_parse_options ("translate", "",
                          "Translate with an encoder–decoder model (greedy or beam search as "
                          "Hugging Face's generate).",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("translate", "unexpected argument '%s'", argv[1]);
  if ((text == NULL) == (ids_list == NULL))
    return cli_usage_printf ("translate", "give exactly one of --text T or --ids 1,2,3");
  if (beams < 0 || beams > 64)
    return cli_usage_printf ("translate", "--beams is %d; give 1 to 64", beams);
  if (max_length < 0 || max_length > 4096)
    return cli_usage_printf ("translate", "--max-length is %d; give 2 to 4096", max_length);

  GError *error = NULL;
  if (text != NULL && !cli_check_text (text, "--text", &error))
    return cli_fail (error);
  g_autoptr (GArray) ids = NULL;
  if (ids_list != NULL && (ids = cli_parse_ids (ids_list, "--ids", &error)) == NULL)
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);

  AsTranslateOptions options = { .num_beams = beams,
                                 .max_length = max_length,
                                 .no_positions = cli_intervene_args.no_positions };
  g_autoptr (AsTranslation) translation
      = text != NULL ? as_translate_text (model, text, &options, &error)
                     : as_translate (model, &g_array_index (ids, int32_t, 0), (int) ids->len,
                                     &options, &error);
  if (translation == NULL)
    return cli_fail (error);
  if (json)
    print_json (translation, model, text);
  else
    {
      g_autoptr (GString) out = g_string_new (translation->text);
      g_string_append_c (out, '\n');
      cli_print (out);
    }
  return CLI_EXIT_OK;
}

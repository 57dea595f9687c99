/* cli-info.c — `attnscope info`: what a model is (architecture, sizes, parameters; for a model
 * without a next-token head, its token types and whether it has a masked-LM head). */
#include <stdio.h>

#include "cli-json.h"
#include "cli.h"

/* What a model without a next-token head outputs, for `info`. */
static const char *
output_head (const AsConfig *c, gboolean json)
{
  if (c->masked_lm)
    return json ? "masked-lm" : "masked-LM head (predict fills [MASK] tokens)";
  return json ? "none" : "none: the weights have no output head, the model runs for attention only";
}

int
cli_info (int argc, char **argv)
{
  g_autofree char *model_spec = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("info", "", "Summarise a model.", entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("info", "unexpected argument '%s'", argv[1]);

  GError *error = NULL;
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  const AsConfig *c = as_model_get_config (model);
  g_autofree char *weights = g_path_get_basename (as_model_get_weights_path (model));

  if (json)
    {
      g_autoptr (JsonBuilder) out = json_builder_new ();
      json_builder_begin_object (out);
      cli_json_set_string (out, "model", as_model_get_name (model));
      cli_json_set_string (out, "path", as_model_get_path (model));
      cli_json_set_string (out, "architecture", c->family);
      cli_json_set_int (out, "n_layer", c->n_layer);
      cli_json_set_int (out, "n_head", c->n_head);
      cli_json_set_int (out, "n_embd", c->n_embd);
      cli_json_set_int (out, "head_dim", c->head_dim);
      cli_json_set_int (out, "n_inner", c->n_inner);
      cli_json_set_int (out, "vocab_size", c->vocab_size);
      cli_json_set_int (out, "n_positions", c->n_positions);
      cli_json_set_int (out, "n_params", as_model_get_n_params (model));
      cli_json_set_string (out, "weights", weights);
      if (!c->causal_lm)
        {
          cli_json_set_int (out, "type_vocab_size", c->type_vocab_size);
          cli_json_set_string (out, "head", output_head (c, TRUE));
        }
      json_builder_end_object (out);
      cli_json_print (out);
      return CLI_EXIT_OK;
    }
  printf ("model:         %s\n", as_model_get_name (model));
  printf ("folder:        %s\n", as_model_get_path (model));
  printf ("architecture:  %s\n", c->family);
  printf ("layers:        %d\n", c->n_layer);
  printf ("heads:         %d per layer\n", c->n_head);
  printf ("width:         %d (head width %d, MLP width %d)\n", c->n_embd, c->head_dim, c->n_inner);
  printf ("vocabulary:    %d tokens\n", c->vocab_size);
  printf ("context:       %d tokens\n", c->n_positions);
  printf ("parameters:    %" G_GINT64_FORMAT "\n", as_model_get_n_params (model));
  printf ("weights:       %s\n", weights);
  if (!c->causal_lm)
    {
      printf ("token types:   %d\n", c->type_vocab_size);
      printf ("output:        %s\n", output_head (c, FALSE));
    }
  return CLI_EXIT_OK;
}

/* cli-run.c — `attnscope run`: one forward pass, the whole trace dumped to HDF5. A translation
 * (encoder–decoder) model runs on a source and a target: --text with --target (the decoder input
 * is decoder_start_token_id followed by the target's tokens) or --ids with --target-ids (the
 * decoder input exactly as given). */
#include <stdio.h>

#include "as-forward.h"
#include "as-forward-dump.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-dump-select.h"
#include "cli-intervene.h"
#include "cli-progress.h"

int
cli_run (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *text = NULL, *pair = NULL, *ids_list = NULL;
  g_autofree char *types_list = NULL, *dump = NULL, *target = NULL, *target_list = NULL;
  g_autofree char *layers_list = NULL, *heads_list = NULL;
  gboolean truncate = FALSE, force = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    CLI_STRICT_OPTION,
    CLI_ABLATION_OPTIONS,
    CLI_QUIET_OPTION,
    CLI_NO_POSITIONS_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING, &text, "Input text", "T" },
    { "pair", 0, 0, G_OPTION_ARG_STRING, &pair,
      "With --text: the pair's second text (token types from the tokenizer)", "T2" },
    { "ids", 0, 0, G_OPTION_ARG_STRING, &ids_list, "Input token ids, comma separated", "1,2,3" },
    { "type-ids", 0, 0, G_OPTION_ARG_STRING, &types_list,
      "With --ids: the token type (segment) of each id, e.g. 0,0,0,1,1 for a pair", "0,0,1" },
    { "target", 0, 0, G_OPTION_ARG_STRING, &target,
      "With --text, for a translation model: the target text (decoder input = start token + its "
      "tokens)",
      "TGT" },
    { "target-ids", 0, 0, G_OPTION_ARG_STRING, &target_list,
      "With --ids, for a translation model: the decoder input ids exactly as given", "1,2,3" },
    { "dump", 'o', 0, G_OPTION_ARG_FILENAME, &dump, "Write the trace to this HDF5 file", "OUT.h5" },
    { "layers", 0, 0, G_OPTION_ARG_STRING, &layers_list,
      "Write the attention and contexts of these layers only (e.g. 3,7 or 0-3)", "LIST" },
    { "heads", 0, 0, G_OPTION_ARG_STRING, &heads_list,
      "Write the attention and contexts of these heads only (e.g. 0-3)", "LIST" },
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &truncate,
      "Fit a longer input into the context: a text keeps its first tokens, a pair loses tokens "
      "from its longer text first",
      NULL },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Replace OUT.h5 even when it is read-only",
      NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("run", "", "Run one forward pass and dump every layer and head.", entries,
                          &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("run", "unexpected argument '%s'", argv[1]);
  if ((text == NULL) == (ids_list == NULL))
    return cli_usage_printf ("run", "give exactly one of --text T or --ids 1,2,3");
  if (dump == NULL)
    return cli_usage_printf ("run", "--dump OUT.h5 is required");
  if ((code = cli_check_output_name ("run", "--dump", dump)) >= 0)
    return code;
  if (types_list != NULL && ids_list == NULL)
    return cli_usage_printf ("run", "--type-ids goes with --ids");
  if (pair != NULL && text == NULL)
    return cli_usage_printf ("run", "--pair goes with --text");
  if (target != NULL && text == NULL)
    return cli_usage_printf ("run", "--target goes with --text");
  if (target_list != NULL && ids_list == NULL)
    return cli_usage_printf ("run", "--target-ids goes with --ids");
  if ((target != NULL || target_list != NULL) && (pair != NULL || types_list != NULL))
    return cli_usage_printf ("run", "a translation's target does not go with --pair or --type-ids");

  GError *error = NULL;
  if (text != NULL && !cli_check_text (text, "--text", &error))
    return cli_fail (error);
  if (pair != NULL && !cli_check_text (pair, "--pair", &error))
    return cli_fail (error);
  if (target != NULL && !cli_check_text (target, "--target", &error))
    return cli_fail (error);
  g_autoptr (GArray) ids = NULL, types = NULL, target_ids = NULL, layers = NULL, heads = NULL;
  if (layers_list != NULL
      && (layers = cli_dump_select_parse (layers_list, "--layers", &error)) == NULL)
    return cli_fail (error);
  if (heads_list != NULL && (heads = cli_dump_select_parse (heads_list, "--heads", &error)) == NULL)
    return cli_fail (error);
  if (ids_list != NULL && (ids = cli_parse_ids (ids_list, "--ids", &error)) == NULL)
    return cli_fail (error);
  if (target_list != NULL
      && (target_ids = cli_parse_ids (target_list, "--target-ids", &error)) == NULL)
    return cli_fail (error);
  if (types_list != NULL && (types = cli_parse_type_ids (types_list, ids, &error)) == NULL)
    return cli_fail (error);
  AsOutputFlags flags = force ? AS_OUTPUT_FORCE : AS_OUTPUT_DEFAULT;
  if (!as_output_file_check (dump, flags, &error))
    return cli_fail (error);

  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);

  if (types != NULL && (code = cli_check_type_ids_model ("run", model)) >= 0)
    return code;
  AsTraceDumpSelection selection;
  if (!cli_dump_select_check (&selection, model, layers, heads, &error))
    return cli_fail (error);
  /* the logits of every position are computed while the dump is written (as_forward_dump_h5) */
  AsForwardOptions options = { .all_logits = FALSE };
  cli_intervene_apply (&options);
  cli_progress_apply (&options);
  g_autoptr (AsTrace) trace = NULL;
  gboolean translation = as_model_get_config (model)->encoder_decoder;
  if (translation && target == NULL && target_ids == NULL)
    return cli_usage_printf ("run",
                             "%s is a translation model: give the target too (--text with "
                             "--target TGT, or --ids with --target-ids)",
                             as_model_get_name (model));
  if (!translation && (target != NULL || target_ids != NULL))
    return cli_usage_printf ("run", "%s is not a translation model: --target%s needs one",
                             as_model_get_name (model), target != NULL ? "" : "-ids");
  if (target != NULL)
    trace = as_forward_translation_text (model, text, target, &options, &error);
  else if (target_ids != NULL)
    trace = as_forward_translation (model, &g_array_index (ids, int32_t, 0), (int) ids->len,
                                    &g_array_index (target_ids, int32_t, 0), (int) target_ids->len,
                                    &options, &error);
  else if (text != NULL)
    trace = cli_forward_text (model, text, pair, truncate, &options, &error);
  else if (!truncate
           || as_truncate_input (model, ids, types, as_model_get_config (model)->n_positions,
                                 &error))
    {
      options.type_ids = types != NULL ? &g_array_index (types, int32_t, 0) : NULL;
      trace
          = as_forward (model, &g_array_index (ids, int32_t, 0), (int) ids->len, &options, &error);
    }
  if (trace == NULL)
    return cli_fail (error);

  if (!as_forward_dump_h5 (model, trace, &selection, dump, flags, &error))
    return cli_fail (error);
  if (trace->source != NULL)
    printf ("wrote %s: %d source and %d target tokens, %d encoder and %d decoder layers x %d "
            "heads\n",
            dump, trace->source->n_tokens, trace->n_tokens, trace->source->n_layer, trace->n_layer,
            trace->n_head);
  else
    printf ("wrote %s: %d tokens, %d layers x %d heads\n", dump, trace->n_tokens, trace->n_layer,
            trace->n_head);
  return CLI_EXIT_OK;
}

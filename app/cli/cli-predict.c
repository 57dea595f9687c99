/* cli-predict.c — `attnscope predict`: the top-K next tokens, and with --steps the greedy loop
 * of the seed text ("May the force be on" / - " on": -64.0309 ...); on a masked-LM encoder the
 * top-K at every [MASK] (<mask>) position of the input. */
#include <stdio.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-predict.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "cli-progress.h"

#define PREDICT_MAX_TOP 1000
#define PREDICT_MAX_STEPS 100000

static void
add_predictions_json (JsonBuilder *out, const char *member, const AsPrediction *top, int n)
{
  json_builder_set_member_name (out, member);
  json_builder_begin_array (out);
  for (int i = 0; i < n; i++)
    {
      json_builder_begin_object (out);
      cli_json_set_string (out, "token", top[i].token);
      cli_json_set_int (out, "id", top[i].id);
      cli_json_set_number (out, "logit", top[i].logit);
      cli_json_set_number (out, "probability", top[i].probability);
      json_builder_end_object (out);
    }
  json_builder_end_array (out);
}

/* The input of a prediction: TEXT (and PAIR, may be NULL), or IDS with TYPES (may be NULL). */
typedef struct
{
  const char *text, *pair;
  GArray *ids, *types;
  gboolean truncate;
} PredictInput;

static AsTrace *
forward_input (AsModel *model, const PredictInput *in, gboolean all_logits, GError **error)
{
  AsForwardOptions options = { .all_logits = all_logits };
  cli_intervene_apply (&options);
  cli_progress_apply (&options);
  if (in->text != NULL)
    return cli_forward_text (model, in->text, in->pair, in->truncate, &options, error);
  if (in->truncate
      && !as_truncate_input (model, in->ids, in->types, as_model_get_config (model)->n_positions,
                             error))
    return NULL;
  options.type_ids = in->types != NULL ? &g_array_index (in->types, int32_t, 0) : NULL;
  return as_forward (model, &g_array_index (in->ids, int32_t, 0), (int) in->ids->len, &options,
                     error);
}

static int
predict_once (AsModel *model, const PredictInput *in, int k, gboolean json)
{
  GError *error = NULL;
  g_autoptr (AsTrace) trace = forward_input (model, in, FALSE, &error);
  if (trace == NULL)
    return cli_fail (error);
  g_autofree char *text
      = in->text != NULL
            ? g_strdup (in->text)
            : as_predict_dup_ids_text (as_model_get_tokenizer (model), trace->ids, trace->n_tokens);
  int n = 0;
  AsPrediction *top = as_predict_top_k (trace, as_model_get_tokenizer (model), k, &n);
  g_autoptr (GString) out = g_string_new (NULL);
  if (json)
    {
      g_autoptr (JsonBuilder) builder = json_builder_new ();
      json_builder_begin_object (builder);
      cli_json_set_string (builder, "text", text);
      add_predictions_json (builder, "predictions", top, n);
      json_builder_end_object (builder);
      g_autofree char *line = cli_json_to_line (builder);
      g_string_append (out, line);
    }
  else
    {
      g_string_append_printf (out, "%s\n%4s  %-20s %7s %12s %12s\n", text, "rank", "token", "id",
                              "logit", "probability");
      for (int i = 0; i < n; i++)
        {
          g_autofree char *quoted = cli_json_quote (top[i].token);
          g_string_append_printf (out, "%4d  %-20s %7d %12.4f %12.6f\n", i + 1, quoted, top[i].id,
                                  top[i].logit, top[i].probability);
        }
    }
  fwrite (out->str, 1, out->len, stdout);
  as_predictions_free (top, n);
  return CLI_EXIT_OK;
}

static void
append_masks_text (GString *out, const AsTrace *trace, const AsMaskedPrediction *masks, int n)
{
  for (int m = 0; m < n; m++)
    {
      g_string_append_printf (out, "%sposition %d (%s)\n%4s  %-20s %7s %12s %12s\n",
                              m > 0 ? "\n" : "", masks[m].position,
                              trace->tokens[masks[m].position], "rank", "token", "id", "logit",
                              "probability");
      for (int i = 0; i < masks[m].n_top; i++)
        {
          const AsPrediction *p = &masks[m].top[i];
          g_autofree char *quoted = cli_json_quote (p->token);
          g_string_append_printf (out, "%4d  %-20s %7d %12.4f %12.6f\n", i + 1, quoted, p->id,
                                  p->logit, p->probability);
        }
    }
}

/* {"tokens": [...], "ids": [...], ("text": ...,) "masks": [{"position": i, "predictions": [...]}]}
 */
static char *
masks_json (const AsTrace *trace, const char *text, const AsMaskedPrediction *masks, int n)
{
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_tokens (out, "tokens", trace);
  json_builder_set_member_name (out, "ids");
  json_builder_begin_array (out);
  for (int i = 0; i < trace->n_tokens; i++)
    json_builder_add_int_value (out, trace->ids[i]);
  json_builder_end_array (out);
  if (text != NULL)
    cli_json_set_string (out, "text", text);
  json_builder_set_member_name (out, "masks");
  json_builder_begin_array (out);
  for (int m = 0; m < n; m++)
    {
      json_builder_begin_object (out);
      cli_json_set_int (out, "position", masks[m].position);
      add_predictions_json (out, "predictions", masks[m].top, masks[m].n_top);
      json_builder_end_object (out);
    }
  json_builder_end_array (out);
  json_builder_end_object (out);
  return cli_json_to_line (out);
}

/* The top-K at every mask token of the input of a masked-LM encoder. */
static int
predict_masked (AsModel *model, const PredictInput *in, int k, gboolean json)
{
  GError *error = NULL;
  g_autoptr (AsTrace) trace = forward_input (model, in, TRUE, &error);
  if (trace == NULL)
    return cli_fail (error);
  int n = 0;
  AsMaskedPrediction *masks
      = as_predict_masked (trace, as_model_get_tokenizer (model), k, &n, &error);
  if (masks == NULL)
    return cli_fail (error);
  g_autoptr (GString) out = g_string_new (NULL);
  if (json)
    {
      g_autofree char *line = masks_json (trace, in->text, masks, n);
      g_string_append (out, line);
    }
  else
    append_masks_text (out, trace, masks, n);
  fwrite (out->str, 1, out->len, stdout);
  as_masked_predictions_free (masks, n);
  return CLI_EXIT_OK;
}

static int
predict_steps (AsModel *model, const char *text, const GArray *ids, int k, int steps,
               gboolean append_ids, gboolean json)
{
  GError *error = NULL;
  AsGreedyStep *result
      = ids != NULL ? as_generate_greedy_ids (model, (const int32_t *) ids->data, (int) ids->len,
                                              steps, k, NULL, &error)
                    : as_generate_greedy (model, text, steps, k,
                                          append_ids ? AS_GREEDY_APPEND_IDS : AS_GREEDY_RETOKENIZE,
                                          NULL, &error);
  if (result == NULL)
    return cli_fail (error);
  g_autoptr (GString) out = g_string_new (NULL);
  for (int s = 0; s < steps; s++)
    {
      if (json)
        {
          g_autoptr (JsonBuilder) builder = json_builder_new ();
          json_builder_begin_object (builder);
          cli_json_set_int (builder, "step", s + 1);
          cli_json_set_string (builder, "text", result[s].text);
          add_predictions_json (builder, "top", result[s].top, result[s].n_top);
          json_builder_end_object (builder);
          g_autofree char *line = cli_json_to_line (builder);
          g_string_append (out, line);
          continue;
        }
      /* the seed prints the decoded tokens verbatim, newlines included */
      g_string_append_printf (out, "%s\n", result[s].text);
      for (int i = 0; i < result[s].n_top; i++)
        g_string_append_printf (out, "- \"%s\": %.4f\n", result[s].top[i].token,
                                result[s].top[i].logit);
    }
  fwrite (out->str, 1, out->len, stdout);
  as_greedy_steps_free (result, steps);
  return CLI_EXIT_OK;
}

/* Fails unless the prompt (TEXT or IDS) and STEPS more tokens fit in the model's context (before
 * any step runs: the last one would fail after all the others). */
static gboolean
check_steps (AsModel *model, const char *text, const GArray *ids, int steps, GError **error)
{
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  if (ids == NULL && tokenizer == NULL)
    return TRUE; /* the pass itself refuses text on an ids-only model */
  int context = as_model_get_config (model)->n_positions;
  g_autoptr (GArray) encoded
      = ids == NULL ? as_tokenizer_encode (tokenizer, text, -1, error) : NULL;
  if (ids == NULL && encoded == NULL)
    return FALSE;
  guint n = ids != NULL ? ids->len : encoded->len;
  if ((gint64) n + steps <= context)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "--steps %d: the %s has %u tokens and the model's context is %d tokens, so at "
               "most %d steps fit",
               steps, ids != NULL ? "--ids list" : "text", n, context, MAX (0, context - (int) n));
  return FALSE;
}

int
cli_predict (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *text = NULL, *pair = NULL, *ids_list = NULL;
  g_autofree char *types_list = NULL;
  int k = 0, steps = 0;
  gboolean json = FALSE, append_ids = FALSE, truncate = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    CLI_STRICT_OPTION,
    CLI_ABLATION_OPTIONS,
    CLI_QUIET_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING, &text, "Prompt (or a text with [MASK] tokens)", "T" },
    { "pair", 0, 0, G_OPTION_ARG_STRING, &pair,
      "With --text: the pair's second text (token types from the tokenizer)", "T2" },
    { "ids", 0, 0, G_OPTION_ARG_STRING, &ids_list, "Input token ids, comma separated", "1,2,3" },
    { "type-ids", 0, 0, G_OPTION_ARG_STRING, &types_list,
      "With --ids: the token type (segment) of each id, e.g. 0,0,0,1,1 for a pair", "0,0,1" },
    { "top", 'k', 0, G_OPTION_ARG_INT, &k, "Number of predictions (10; 3 with --steps)", "K" },
    { "steps", 'n', 0, G_OPTION_ARG_INT, &steps, "Greedy generation for N steps", "N" },
    { "append-ids", 0, 0, G_OPTION_ARG_NONE, &append_ids,
      "With --steps: append token ids (as HF generate) instead of re-tokenizing the text (always "
      "so with --ids)",
      NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (one object per step with --steps)",
      NULL },
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &truncate,
      "Fit a longer input into the context: a text keeps its first tokens, a pair loses tokens "
      "from its longer text first",
      NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("predict", "",
                          "Predict the next tokens, or the tokens at the [MASK] positions of a "
                          "masked-LM encoder's input.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("predict", "unexpected argument '%s'", argv[1]);
  if ((text == NULL) == (ids_list == NULL))
    return cli_usage_printf ("predict", "give exactly one of --text T or --ids 1,2,3");
  if (types_list != NULL && ids_list == NULL)
    return cli_usage_printf ("predict", "--type-ids goes with --ids");
  if (pair != NULL && text == NULL)
    return cli_usage_printf ("predict", "--pair goes with --text");
  if (k < 0 || k > PREDICT_MAX_TOP)
    return cli_fail_printf ("--top %d is out of range (expected 1 to %d)", k, PREDICT_MAX_TOP);
  if (steps < 0 || steps > PREDICT_MAX_STEPS)
    return cli_fail_printf ("--steps %d is out of range (expected 1 to %d, and no more than the "
                            "model's context leaves after the text)",
                            steps, PREDICT_MAX_STEPS);
  if (k == 0)
    k = steps > 0 ? 3 : 10;

  GError *error = NULL;
  if (text != NULL && !cli_check_text (text, "--text", &error))
    return cli_fail (error);
  if (pair != NULL && !cli_check_text (pair, "--pair", &error))
    return cli_fail (error);
  g_autoptr (GArray) ids = NULL, types = NULL;
  if (ids_list != NULL && (ids = cli_parse_ids (ids_list, "--ids", &error)) == NULL)
    return cli_fail (error);
  if (types_list != NULL && (types = cli_parse_type_ids (types_list, ids, &error)) == NULL)
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  if (types != NULL && (code = cli_check_type_ids_model ("predict", model)) >= 0)
    return code;
  const AsConfig *c = as_model_get_config (model);
  if (steps > 0 && cli_intervene_args.ablate != NULL)
    return cli_fail_printf ("--steps generates with the model as it is; --ablate changes only "
                            "the top-K of one pass (leave out --steps)");
  PredictInput in = { text, pair, ids, types, truncate };
  if (c->masked_lm)
    {
      if (steps > 0)
        return cli_fail_printf ("--steps generates text with a next-token model; '%s' is a "
                                "masked-LM encoder (predict fills its [MASK] tokens)",
                                as_model_get_name (model));
      return predict_masked (model, &in, k, json);
    }
  if (!c->causal_lm)
    return cli_fail_printf ("model '%s' has no language-model head to predict with%s",
                            as_model_get_name (model),
                            c->type_vocab_size > 0 || c->special_tokens[AS_SPECIAL_MASK] != NULL
                                ? " (no masked-LM head in its weights: it loads for attention "
                                  "only)"
                                : "");
  if ((types != NULL || pair != NULL) && steps > 0)
    return cli_usage_printf ("predict", "--steps continues one text or one list of ids");
  if (steps > 0 && !check_steps (model, text, ids, steps, &error))
    return cli_fail (error);
  if (steps > 0)
    return predict_steps (model, text, ids, k, steps, append_ids, json);
  return predict_once (model, &in, k, json);
}

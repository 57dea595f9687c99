/* cli-perplexity.c — `attnscope perplexity`: how well the model predicts text
 * (core/as-perplexity.h). With --lines FILE every non-blank line is one text starting fresh at
 * position 0 and the result is exp(total NLL / predicted tokens) over the file; with --text T
 * the per-token log-probabilities of that one text are listed as well. Text by default, JSON
 * with --json. With --lines FILE --shard K/N -o PART (cli-shard.h) the run writes shard K's
 * exact NLL sum and counts, and `attnscope merge` (cli_perplexity_merge) prints from all parts
 * what one process prints. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-perplexity.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "cli-shard.h"

static AsTrace *
forward_all_logits (AsModel *model, const char *text, gboolean truncate, GError **error)
{
  AsForwardOptions options = { .all_logits = TRUE };
  return cli_forward_text (model, text, NULL, truncate, &options, error);
}

typedef struct
{
  AsModel *model;
  gboolean truncate;
  AsPerplexity *acc;
} PerplexityLines;

static gboolean
perplexity_add_line (const char *line, gpointer user_data, GError **error)
{
  PerplexityLines *job = user_data;
  if (!cli_check_text (line, "the line", error))
    return FALSE;
  g_autoptr (AsTrace) trace = forward_all_logits (job->model, line, job->truncate, error);
  return trace != NULL && as_perplexity_add (job->acc, trace, error);
}

/* Accumulates SHARD's share of the non-blank lines of PATH into ACC. */
static gboolean
perplexity_of_lines (AsPerplexity *acc, CliShard *shard, AsModel *model, const char *path,
                     gboolean truncate, GError **error)
{
  PerplexityLines job = { model, truncate, acc };
  return cli_shard_foreach_line (shard, "--lines", path, perplexity_add_line, &job, error);
}

/* Appends the summary over a --lines file to OUT. */
static void
format_summary (GString *out, const AsPerplexity *acc, const char *model_name, gboolean json)
{
  if (json)
    {
      g_autoptr (JsonBuilder) builder = json_builder_new ();
      json_builder_begin_object (builder);
      cli_json_set_string (builder, "model", model_name);
      cli_json_set_int (builder, "texts", acc->n_texts);
      cli_json_set_int (builder, "predicted_tokens", acc->n_predicted);
      cli_json_set_number (builder, "nll", acc->nll);
      cli_json_set_number (builder, "mean_nll", as_perplexity_mean_nll (acc));
      cli_json_set_number (builder, "perplexity", as_perplexity_value (acc));
      json_builder_end_object (builder);
      g_autofree char *line = cli_json_to_line (builder);
      g_string_append (out, line);
    }
  else
    g_string_append_printf (out,
                            "texts             %d\npredicted tokens  %" G_GINT64_FORMAT
                            "\nmean NLL (nats)   %.6f\nperplexity        %.4f\n",
                            acc->n_texts, acc->n_predicted, as_perplexity_mean_nll (acc),
                            as_perplexity_value (acc));
}

gboolean
cli_perplexity_merge (GString *out, GPtrArray *parts, gboolean json, GError **error)
{
  AsPerplexity acc = { 0 };
  for (guint i = 0; i < parts->len; i++)
    {
      const AsShardPart *part = parts->pdata[i];
      if (!as_perplexity_merge_json (&acc, part->result, part->path, error))
        return FALSE;
    }
  format_summary (out, &acc, ((const AsShardPart *) parts->pdata[0])->model_name, json);
  return TRUE;
}

/* The options that change a --lines run's result, as a shard's part records them. */
static JsonNode *
perplexity_part_options (gboolean truncate)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "truncate");
  json_builder_add_boolean_value (b, truncate);
  cli_intervene_add_part_options (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* A --lines run: prints the summary, or with --shard writes the part. */
static int
perplexity_run_lines (AsModel *model, CliShard *shard, const char *path, gboolean truncate,
                      gboolean json)
{
  GError *error = NULL;
  AsPerplexity acc = { 0 };
  if (!perplexity_of_lines (&acc, shard, model, path, truncate, &error))
    return cli_fail (error);
  if (shard->active)
    {
      if (!cli_shard_write_part (shard, model, perplexity_part_options (truncate),
                                 as_perplexity_to_json (&acc), &error))
        return cli_fail (error);
      return CLI_EXIT_OK;
    }
  g_autoptr (GString) out = g_string_new (NULL);
  format_summary (out, &acc, as_model_get_name (model), json);
  fwrite (out->str, 1, out->len, stdout);
  return CLI_EXIT_OK;
}

/* One text: every token with its log-probability (the first token is not predicted). */
static int
perplexity_of_text (AsModel *model, const char *text, gboolean truncate, gboolean json)
{
  GError *error = NULL;
  if (!cli_check_text (text, "--text", &error))
    return cli_fail (error);
  g_autoptr (AsTrace) trace = forward_all_logits (model, text, truncate, &error);
  if (trace == NULL)
    return cli_fail (error);
  int n = trace->n_tokens;
  g_autofree double *logprob = g_new0 (double, n); /* [T-1] (one spare) */
  AsPerplexity acc = { 0 };
  if (!as_token_logprobs (logprob, trace, &error) || !as_perplexity_add (&acc, trace, &error))
    return cli_fail (error);
  g_autoptr (GString) out = g_string_new (NULL);
  if (json)
    {
      g_autoptr (JsonBuilder) builder = json_builder_new ();
      json_builder_begin_object (builder);
      cli_json_set_string (builder, "text", text);
      json_builder_set_member_name (builder, "tokens");
      json_builder_begin_array (builder);
      for (int t = 0; t < n; t++)
        {
          json_builder_begin_object (builder);
          cli_json_set_int (builder, "index", t);
          cli_json_set_int (builder, "id", trace->ids[t]);
          cli_json_set_string (builder, "token", trace->tokens[t]);
          cli_json_set_number (builder, "logprob", t == 0 ? NAN : logprob[t - 1]);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      cli_json_set_int (builder, "predicted_tokens", acc.n_predicted);
      cli_json_set_number (builder, "mean_nll", as_perplexity_mean_nll (&acc));
      cli_json_set_number (builder, "perplexity", as_perplexity_value (&acc));
      json_builder_end_object (builder);
      g_autofree char *line = cli_json_to_line (builder);
      g_string_append (out, line);
    }
  else
    {
      g_string_append_printf (out, "%5s %7s  %-20s %12s\n", "index", "id", "token", "logprob");
      for (int t = 0; t < n; t++)
        {
          g_autofree char *quoted = cli_json_quote (trace->tokens[t]);
          if (t == 0)
            g_string_append_printf (out, "%5d %7d  %-20s %12s\n", t, trace->ids[t], quoted, "-");
          else
            g_string_append_printf (out, "%5d %7d  %-20s %12.6f\n", t, trace->ids[t], quoted,
                                    logprob[t - 1]);
        }
      g_string_append_printf (
          out, "mean NLL (nats) %.6f, perplexity %.4f over %" G_GINT64_FORMAT " predicted tokens\n",
          as_perplexity_mean_nll (&acc), as_perplexity_value (&acc), acc.n_predicted);
    }
  fwrite (out->str, 1, out->len, stdout);
  return CLI_EXIT_OK;
}

int
cli_perplexity (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *text = NULL, *lines = NULL;
  g_autofree char *shard_text = NULL, *part_path = NULL;
  gboolean json = FALSE, truncate = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    CLI_STRICT_OPTION,
    CLI_ABLATION_OPTIONS,
    { "lines", 'l', 0, G_OPTION_ARG_FILENAME, &lines,
      "Perplexity over every non-blank line of FILE, each line a text", "FILE" },
    { "text", 't', 0, G_OPTION_ARG_STRING, &text,
      "One text: per-token log-probabilities and its perplexity", "T" },
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &truncate,
      "Keep the first tokens when a text is longer than the context", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    CLI_SHARD_ENTRIES (shard_text, part_path),
    { NULL },
  };
  int code;
  if (!cli_parse_options ("perplexity", "",
                          "Perplexity of a causal language model: exp(mean NLL of each token "
                          "given the tokens before it; the first token of a text is not "
                          "predicted).",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("perplexity", "unexpected argument '%s'", argv[1]);
  if ((text == NULL) == (lines == NULL))
    return cli_usage_printf ("perplexity", "give exactly one of --text T and --lines FILE");
  if (shard_text != NULL && text != NULL)
    return cli_usage_printf ("perplexity", "--shard splits a corpus: it goes with --lines");
  CliShard shard;
  int shard_code = cli_shard_setup (&shard, "perplexity", shard_text, part_path);
  if (shard_code >= 0)
    return shard_code;

  GError *error = NULL;
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  if (!as_model_get_config (model)->causal_lm)
    return cli_fail_printf ("model '%s' is not a causal language model; perplexity needs one",
                            as_model_get_name (model));
  if (text != NULL)
    return perplexity_of_text (model, text, truncate, json);
  int status = perplexity_run_lines (model, &shard, lines, truncate, json);
  cli_shard_clear (&shard);
  return status;
}

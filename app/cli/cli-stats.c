/* cli-stats.c — `attnscope stats`: what each head does (core/as-head-stats.h): mean normalised
 * entropy, shares of attention to the previous token, the first token and itself (for encoders
 * also to the next token, [CLS] and [SEP]), a pattern label, and rankings of the heads by each
 * statistic — for one text, or aggregated over every non-blank line of a file (each sentence
 * counts once), or for an encoder over every line "A<TAB>B" of a file of sentence pairs (--pairs:
 * each pair run as [CLS] A [SEP] B [SEP]). Text table by default, JSON with --json. With
 * --shard K/N -o FILE (cli-shard.h) a --lines or --pairs run writes shard K's sums and counts
 * instead, and `attnscope merge` (cli_stats_merge, below) prints from all parts what one process
 * prints. */
#include "cli-stats-norms.h"
#include "cli-stats-table.h"

#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-head-stats.h"
#include "cli-analysis.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "cli-stats-translation.h"
#include "as-sentence-pairs.h"
#include "cli-shard.h"
#include "cli-progress.h"

typedef struct
{
  AsModel *model;
  gboolean truncate;
  AsHeadStatsAccumulator *acc;
} StatsLines;

static gboolean
stats_add_line (const char *line, gpointer user_data, GError **error)
{
  StatsLines *job = user_data;
  g_autoptr (AsTrace) trace
      = cli_analysis_forward (job->model, line, "the line", job->truncate, error);
  return trace != NULL && as_head_stats_accumulate (job->acc, trace, error);
}

/* One line "A<TAB>B" of a --pairs file: the pair (A, B). */
static gboolean
stats_add_pair (const char *line, gpointer user_data, GError **error)
{
  StatsLines *job = user_data;
  const char *tab = strchr (line, '\t');
  if (tab == NULL || strchr (tab + 1, '\t') != NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "expected two texts separated by one tab (A<TAB>B), found %s",
                   tab == NULL ? "no tab" : "more than one");
      return FALSE;
    }
  g_autofree char *a = g_strndup (line, tab - line);
  const char *b = tab + 1;
  if (!cli_check_text (a, "the pair's first text", error)
      || !cli_check_text (b, "the pair's second text", error))
    return FALSE;
  AsForwardOptions options = { .all_logits = FALSE };
  g_autoptr (AsTrace) trace = cli_forward_text (job->model, a, b, job->truncate, &options, error);
  return trace != NULL && as_head_stats_accumulate (job->acc, trace, error);
}

/* Runs MODEL on every pair of the --pairs file PATH (or on every non-blank line of the --lines
 * file PATH), SHARD's share of them, and accumulates the statistics into a new accumulator. */
static AsHeadStatsAccumulator *
stats_of_corpus (AsModel *model, CliShard *shard, gboolean pairs, const char *path,
                 gboolean truncate, GError **error)
{
  g_autoptr (AsHeadStatsAccumulator) acc = as_head_stats_accumulator_new ();
  StatsLines job = { model, truncate, acc };
  if (!cli_shard_foreach_line (shard, pairs ? "--pairs" : "--lines", path,
                               pairs ? stats_add_pair : stats_add_line, &job, error))
    return NULL;
  return g_steal_pointer (&acc);
}

/* The options that change a corpus run's result, as a shard's part records them. */
static JsonNode *
stats_part_options (gboolean pairs, gboolean truncate)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "input");
  json_builder_add_string_value (b, pairs ? "pairs" : "lines");
  json_builder_set_member_name (b, "truncate");
  json_builder_add_boolean_value (b, truncate);
  cli_intervene_add_part_options (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Formats STATS as `stats` prints them. */
static void
stats_format (GString *out, const AsHeadStats *stats, const char *model_name, gboolean json)
{
  if (json)
    cli_stats_format_json (out, stats, model_name);
  else
    cli_stats_format_text (out, stats);
}

gboolean
cli_stats_merge (GString *out, GPtrArray *parts, gboolean json, GError **error)
{
  g_autoptr (AsHeadStatsAccumulator) acc = as_head_stats_accumulator_new ();
  for (guint i = 0; i < parts->len; i++)
    {
      const AsShardPart *part = parts->pdata[i];
      if (!as_head_stats_accumulator_merge_json (acc, part->result, part->path, error))
        return FALSE;
    }
  g_autoptr (AsHeadStats) stats = as_head_stats_accumulator_finish (acc, error);
  if (stats == NULL)
    return FALSE;
  stats_format (out, stats, ((const AsShardPart *) parts->pdata[0])->model_name, json);
  return TRUE;
}

/* A --lines or --pairs run: prints the statistics, or with --shard writes the part. */
static int
stats_run_corpus (AsModel *model, CliShard *shard, gboolean pairs, const char *path,
                  gboolean truncate, gboolean json)
{
  GError *error = NULL;
  g_autoptr (AsHeadStatsAccumulator) acc
      = stats_of_corpus (model, shard, pairs, path, truncate, &error);
  if (acc == NULL)
    return cli_fail (error);
  if (shard->active)
    {
      if (!cli_shard_write_part (shard, model, stats_part_options (pairs, truncate),
                                 as_head_stats_accumulator_to_json (acc), &error))
        return cli_fail (error);
      return CLI_EXIT_OK;
    }
  g_autoptr (AsHeadStats) stats = as_head_stats_accumulator_finish (acc, &error);
  if (stats == NULL)
    return cli_fail (error);
  g_autoptr (GString) out = g_string_new (NULL);
  stats_format (out, stats, as_model_get_name (model), json);
  cli_print (out);
  return CLI_EXIT_OK;
}

int
cli_stats (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *text = NULL, *pair = NULL, *lines = NULL, *pairs = NULL;
  g_autofree char *target = NULL, *kind = NULL, *shard_text = NULL, *part_path = NULL;
  gboolean json = FALSE, truncate = FALSE, norms = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    CLI_STRICT_OPTION,
    CLI_ABLATION_OPTIONS,
    CLI_QUIET_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING, &text, "Input text", "T" },
    { "pair", 0, 0, G_OPTION_ARG_STRING, &pair,
      "With --text: the pair's second text (token types from the tokenizer)", "T2" },
    { "lines", 0, 0, G_OPTION_ARG_FILENAME, &lines,
      "Aggregate over every non-blank line of FILE (each line counts once)", "FILE" },
    { "pairs", 0, 0, G_OPTION_ARG_FILENAME, &pairs,
      "For an encoder: aggregate over the sentence pairs of FILE, one \"A<TAB>B\" per line",
      "FILE" },
    { "target", 0, 0, G_OPTION_ARG_STRING, &target,
      "With --text, for a translation model: the target text (default: the model's translation)",
      "TGT" },
    { "kind", 0, 0, G_OPTION_ARG_STRING, &kind,
      "For a translation model: encoder, decoder or cross (cross-attention; the default)", "KIND" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "norms", 0, 0, G_OPTION_ARG_NONE, &norms,
      "With --text: also the attention norms (each head's share of its layer's output, and "
      "norm-weighted over weight-only attention on the first token)",
      NULL },
    CLI_ANALYSIS_TRUNCATE_ENTRY (truncate),
    CLI_SHARD_ENTRIES (shard_text, part_path),
    { NULL },
  };
  int code;
  if (!cli_parse_options ("stats", "",
                          "Head statistics: entropy, previous/first/self shares (encoders: also "
                          "next, [CLS], [SEP]).",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("stats", "unexpected argument '%s'", argv[1]);
  if ((text != NULL) + (lines != NULL) + (pairs != NULL) != 1)
    return cli_usage_printf ("stats", "give exactly one of --text T, --lines FILE or --pairs FILE");
  if (pair != NULL && text == NULL)
    return cli_usage_printf ("stats", "--pair goes with --text");
  if (norms && text == NULL)
    return cli_usage_printf ("stats", "--norms goes with --text");
  if (shard_text != NULL && text != NULL)
    return cli_usage_printf ("stats", "--shard splits a corpus: it goes with --lines or --pairs");
  CliShard shard;
  int shard_code = cli_shard_setup (&shard, "stats", shard_text, part_path);
  if (shard_code >= 0)
    return shard_code;

  GError *error = NULL;
  if (text != NULL && !cli_check_text (text, "--text", &error))
    return cli_fail (error);
  if (pair != NULL && !cli_check_text (pair, "--pair", &error))
    return cli_fail (error);
  if (target != NULL && !cli_check_text (target, "--target", &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  if (pairs != NULL && !as_model_takes_pairs (model))
    return cli_usage_printf ("stats",
                             "%s is not an encoder: --pairs needs one (BERT, RoBERTa, "
                             "DistilBERT)",
                             as_model_get_name (model));
  if (as_model_get_config (model)->encoder_decoder)
    {
      if (pair != NULL)
        return cli_usage_printf ("stats", "--pair is for encoders; a translation model takes "
                                          "--target");
      if (shard.active)
        return cli_usage_printf ("stats",
                                 "--shard is for decoders and encoders, not for the "
                                 "translation model %s",
                                 as_model_get_name (model));
      if (norms && kind != NULL && g_strcmp0 (kind, "decoder") != 0)
        return cli_usage_printf ("stats", "--norms are of a translation model's decoder "
                                          "self-attention: give --kind decoder or no --kind");
      if (norms)
        return cli_stats_norms_translation (model, text, target, json);
      return cli_stats_translation (model, text, target, lines, kind, json);
    }
  if (target != NULL || kind != NULL)
    return cli_usage_printf ("stats", "%s is not a translation model: --%s needs one",
                             as_model_get_name (model), target != NULL ? "target" : "kind");

  if (lines != NULL || pairs != NULL)
    {
      int status = stats_run_corpus (model, &shard, pairs != NULL, lines != NULL ? lines : pairs,
                                     truncate, json);
      cli_shard_clear (&shard);
      return status;
    }
  if (norms)
    return cli_stats_norms (model, text, pair, truncate, json);
  AsForwardOptions options = { .all_logits = FALSE };
  cli_progress_apply (&options);
  g_autoptr (AsTrace) trace = cli_forward_text (model, text, pair, truncate, &options, &error);
  if (trace == NULL)
    return cli_fail (error);
  g_autoptr (AsHeadStats) stats = as_head_stats_compute (trace);
  if (json)
    cli_stats_print_json (stats, as_model_get_name (model));
  else
    cli_stats_print_text (stats);
  return CLI_EXIT_OK;
}

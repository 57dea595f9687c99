/* cli-ablate.c — `attnscope ablate --scan`: each single head's effect on a chosen logit, logit
 * difference or the loss when it is switched off (as_ablation_scan).
 *
 *   ablate --scan [--model M] (--text T | --lines FILE) (--token WORD [--vs-token W2] | --loss)
 *          [--ablation zero|mean [--mean-over FILE]] [--ablate LIST] [--no-positions]
 *          [--truncate] [--json]
 *
 * With --lines the effects (and the clean value) are the means over the file's lines, summed
 * exactly (as-shard-sum.h): --shard K/N -o PART runs one shard and `attnscope merge` joins the
 * parts into the same output, bit for bit (cli-shard.h). */
#include <stdio.h>

#include "as-ablation.h"
#include "as-error.h"
#include "as-shard-sum.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "cli-json.h"
#include "cli-shard.h"

typedef struct
{
  char *shard, *part, *model, *text, *ids, *lines, *token, *vs_token, *ablation, *mean_over;
  char *ablate; /* --ablate: heads and MLPs switched off in every pass (a base ablation) */
  gboolean scan, loss, truncate, json, no_positions;
  int loss_from;
} AblateArgs;

/* The scan's result summed over texts (exact sums: a sharded run merges to the same bits). */
typedef struct
{
  int n_layer, n_head;
  AsShardSum *sum; /* [L][H] */
  AsShardSum clean;
  gint64 n_texts;
  AsScanStats stats;
} ScanSums;

/* What the scan needs per text. */
typedef struct
{
  AsModel *model;
  const AblateArgs *args;
  AsMetric metric;
  AsAblationKind kind;
  float *head_means, *mlp_means;
  AsAblationSet *base; /* --ablate, or NULL */
  double *effect;      /* [L][H] one text's */
  ScanSums sums;
  GArray *ids; /* int32_t: the first text's ids */
} ScanJob;

static gboolean
scan_text (const char *text, gpointer user_data, GError **error)
{
  ScanJob *job = user_data;
  const AsConfig *c = as_model_get_config (job->model);
  AsForwardOptions tokenize_only = { 0 };
  g_autoptr (GArray) ids
      = job->args->ids != NULL ? cli_parse_ids (job->args->ids, "--ids", error) : NULL;
  if (job->args->ids != NULL && ids == NULL)
    return FALSE;
  g_autoptr (AsTrace) t
      = ids != NULL
            ? as_forward (job->model, &g_array_index (ids, int32_t, 0), (int) ids->len,
                          &tokenize_only, error)
            : cli_forward_text (job->model, text, NULL, job->args->truncate, &tokenize_only, error);
  if (t == NULL)
    return FALSE;
  double clean;
  AsScanStats st;
  AsScanOptions so = { .kind = job->kind,
                       .head_means = job->head_means,
                       .mlp_means = job->mlp_means,
                       .base = job->base,
                       .no_positions = job->args->no_positions };
  if (!as_ablation_scan_with (job->model, t->ids, t->n_tokens, &job->metric, &so, job->effect,
                              &clean, &st, error))
    return FALSE;
  ScanSums *sums = &job->sums;
  for (gsize i = 0; i < (gsize) c->n_layer * c->n_head; i++)
    as_shard_sum_add (&sums->sum[i], job->effect[i]);
  as_shard_sum_add (&sums->clean, clean);
  if (job->ids == NULL)
    {
      job->ids = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), t->n_tokens);
      g_array_append_vals (job->ids, t->ids, t->n_tokens);
    }
  sums->n_texts++;
  sums->stats.passes += st.passes;
  sums->stats.layers_computed += st.layers_computed;
  sums->stats.layers_full += st.layers_full;
  return TRUE;
}

/* What the output says besides the sums. */
typedef struct
{
  const char *model_name, *measure, *ablation;
  int32_t token_id, vs_id;
  int loss_from;
  const GArray *ids;  /* a single text's ids, or NULL (--lines) */
  const char *ablate; /* --ablate (the base ablation), or NULL */
} ScanLabels;

static void
format_json (GString *out, const ScanSums *sums, const ScanLabels *lb)
{
  int L = sums->n_layer, H = sums->n_head;
  double n = (double) sums->n_texts;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_string (b, "model", lb->model_name);
  cli_json_set_string (b, "measure", lb->measure);
  cli_json_set_string (b, "ablation", lb->ablation);
  if (lb->ablate != NULL)
    cli_json_set_string (b, "ablated", lb->ablate);
  cli_json_set_int (b, "texts", sums->n_texts);
  cli_json_set_int (b, "token_id", lb->token_id);
  cli_json_set_int (b, "vs_id", lb->vs_id);
  cli_json_set_int (b, "loss_from", lb->loss_from);
  if (lb->ids != NULL)
    {
      json_builder_set_member_name (b, "ids");
      json_builder_begin_array (b);
      for (guint i = 0; i < lb->ids->len; i++)
        json_builder_add_int_value (b, g_array_index (lb->ids, int32_t, i));
      json_builder_end_array (b);
    }
  cli_json_set_int (b, "n_layer", L);
  cli_json_set_int (b, "n_head", H);
  cli_json_set_number (b, "clean", as_shard_sum_value (&sums->clean) / n);
  json_builder_set_member_name (b, "effects");
  json_builder_begin_array (b);
  for (int l = 0; l < L; l++)
    {
      json_builder_begin_array (b);
      for (int h = 0; h < H; h++)
        cli_json_add_number (b, as_shard_sum_value (&sums->sum[(gsize) l * H + h]) / n);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  cli_json_set_int (b, "passes", sums->stats.passes);
  cli_json_set_int (b, "layers_computed", sums->stats.layers_computed);
  cli_json_set_int (b, "layers_full", sums->stats.layers_full);
  json_builder_end_object (b);
  g_autofree char *line = cli_json_to_line (b);
  g_string_append (out, line);
}

static void
format_text (GString *out, const ScanSums *sums, const ScanLabels *lb)
{
  int L = sums->n_layer, H = sums->n_head;
  double n = (double) sums->n_texts;
  g_string_append_printf (out,
                          "%s, clean %.6g; change when one head is switched off (%s ablation)%s\n",
                          lb->measure, as_shard_sum_value (&sums->clean) / n, lb->ablation,
                          sums->n_texts > 1 ? ", mean over the lines" : "");
  g_string_append (out, "layer");
  for (int h = 0; h < H; h++)
    g_string_append_printf (out, " %10s%d", "head ", h);
  g_string_append (out, "\n");
  for (int l = 0; l < L; l++)
    {
      g_string_append_printf (out, "%5d", l);
      for (int h = 0; h < H; h++)
        g_string_append_printf (out, " %11.4g",
                                as_shard_sum_value (&sums->sum[(gsize) l * H + h]) / n);
      g_string_append (out, "\n");
    }
}

/* The options that change a --lines run's result, as a shard's part records them. */
static JsonNode *
part_options (const ScanLabels *lb, const AblateArgs *a)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_string (b, "measure", lb->measure);
  cli_json_set_int (b, "token_id", lb->token_id);
  cli_json_set_int (b, "vs_id", lb->vs_id);
  cli_json_set_int (b, "loss_from", lb->loss_from);
  cli_json_set_string (b, "ablation", lb->ablation);
  cli_json_set_string (b, "mean_over", a->mean_over != NULL ? a->mean_over : "");
  if (a->ablate != NULL)
    cli_json_set_string (b, "ablate", a->ablate);
  if (a->no_positions)
    {
      json_builder_set_member_name (b, "no_positions");
      json_builder_add_boolean_value (b, TRUE);
    }
  json_builder_set_member_name (b, "truncate");
  json_builder_add_boolean_value (b, a->truncate);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static JsonNode *
part_result (const ScanSums *sums)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_int (b, "n_layer", sums->n_layer);
  cli_json_set_int (b, "n_head", sums->n_head);
  cli_json_set_int (b, "texts", sums->n_texts);
  cli_json_set_int (b, "passes", sums->stats.passes);
  cli_json_set_int (b, "layers_computed", sums->stats.layers_computed);
  cli_json_set_int (b, "layers_full", sums->stats.layers_full);
  json_builder_set_member_name (b, "clean");
  as_shard_sum_to_json (b, &sums->clean);
  json_builder_set_member_name (b, "effects");
  json_builder_begin_array (b);
  for (gsize i = 0; i < (gsize) sums->n_layer * sums->n_head; i++)
    as_shard_sum_to_json (b, &sums->sum[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Adds a part's RESULT (read from PATH) to SUMS (sized on the first part). */
static gboolean
merge_result (ScanSums *sums, JsonNode *result, const char *path, GError **error)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (result) ? json_node_get_object (result) : NULL;
  JsonArray *effects = o != NULL && json_object_has_member (o, "effects")
                           ? json_object_get_array_member (o, "effects")
                           : NULL;
  int L = o != NULL ? (int) json_object_get_int_member_with_default (o, "n_layer", 0) : 0;
  int H = o != NULL ? (int) json_object_get_int_member_with_default (o, "n_head", 0) : 0;
  if (effects == NULL || L <= 0 || H <= 0 || json_array_get_length (effects) != (guint) (L * H)
      || (sums->sum != NULL && (L != sums->n_layer || H != sums->n_head)))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: not an ablate --scan part (n_layer, n_head, effects)", path);
      return FALSE;
    }
  if (sums->sum == NULL)
    {
      sums->n_layer = L;
      sums->n_head = H;
      sums->sum = g_new0 (AsShardSum, (gsize) L * H);
    }
  for (int i = 0; i < L * H; i++)
    {
      AsShardSum part = { 0 };
      if (!as_shard_sum_from_json (&part, json_array_get_element (effects, i), path, error))
        return FALSE;
      as_shard_sum_merge (&sums->sum[i], &part);
    }
  AsShardSum clean = { 0 };
  if (!as_shard_sum_from_json (&clean, json_object_get_member (o, "clean"), path, error))
    return FALSE;
  as_shard_sum_merge (&sums->clean, &clean);
  sums->n_texts += json_object_get_int_member_with_default (o, "texts", 0);
  sums->stats.passes += (int) json_object_get_int_member_with_default (o, "passes", 0);
  sums->stats.layers_computed += json_object_get_int_member_with_default (o, "layers_computed", 0);
  sums->stats.layers_full += json_object_get_int_member_with_default (o, "layers_full", 0);
  return TRUE;
}

gboolean
cli_ablate_merge (GString *out, GPtrArray *parts, gboolean json, GError **error)
{
  ScanSums sums = { 0 };
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < parts->len; i++)
    {
      const AsShardPart *part = parts->pdata[i];
      ok = merge_result (&sums, part->result, part->path, error);
    }
  if (ok && sums.n_texts == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the parts hold no text");
      ok = FALSE;
    }
  if (ok)
    {
      const AsShardPart *first = parts->pdata[0];
      JsonObject *o = json_node_get_object (first->options);
      ScanLabels lb = {
        .model_name = first->model_name,
        .measure = json_object_get_string_member_with_default (o, "measure", ""),
        .ablation = json_object_get_string_member_with_default (o, "ablation", "zero"),
        .ablate = json_object_get_string_member_with_default (o, "ablate", NULL),
        .token_id = (int32_t) json_object_get_int_member_with_default (o, "token_id", -1),
        .vs_id = (int32_t) json_object_get_int_member_with_default (o, "vs_id", -1),
        .loss_from = (int) json_object_get_int_member_with_default (o, "loss_from", 0),
      };
      if (json)
        format_json (out, &sums, &lb);
      else
        format_text (out, &sums, &lb);
    }
  g_free (sums.sum);
  return ok;
}

/* The means for --ablation mean (owned by JOB). */
static gboolean
read_means (ScanJob *job, AsModel *model, const char *path, GError **error)
{
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  return cli_foreach_text_line_named ("--mean-over", path, cli_collect_line, lines, error)
         && as_ablation_means (model, (char *const *) lines->pdata, (int) lines->len, path,
                               &job->head_means, &job->mlp_means, error);
}

static gboolean
scan_all (ScanJob *job, CliShard *shard, GError **error)
{
  const AblateArgs *a = job->args;
  if (job->kind == AS_ABLATION_MEAN && !read_means (job, job->model, a->mean_over, error))
    return FALSE;
  if (a->lines != NULL)
    return cli_shard_foreach_line (shard, "--lines", a->lines, scan_text, job, error);
  return scan_text (a->text, job, error);
}

static int
run_scan (const AblateArgs *a, CliShard *shard)
{
  GError *error = NULL;
  if (a->text != NULL && !cli_check_text (a->text, "--text", &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (a->model, &error);
  if (model == NULL)
    return cli_fail (error);
  const AsConfig *c = as_model_get_config (model);
  ScanJob job = { .model = model, .args = a, .kind = AS_ABLATION_ZERO };
  if ((a->ablation != NULL && !as_ablation_kind_parse (a->ablation, &job.kind, &error))
      || !cli_metric_from_words (model, a->token, a->vs_token, a->loss, &job.metric, &error))
    return cli_fail (error);
  job.metric.loss_from = a->loss_from;
  if (a->mean_over != NULL && a->ablation == NULL)
    job.kind = AS_ABLATION_MEAN;
  if (job.kind == AS_ABLATION_MEAN && a->mean_over == NULL)
    return cli_fail_printf ("--ablation mean needs --mean-over FILE (the texts to average over)");
  g_autoptr (AsAblationSet) base = NULL;
  if (a->ablate != NULL)
    {
      base = as_ablation_set_new (c->n_layer, c->n_head);
      if (!as_ablation_set_parse (base, a->ablate, &error))
        return cli_fail (error);
      job.base = base;
    }
  gsize n = (gsize) c->n_layer * c->n_head;
  g_autofree double *effect = g_new0 (double, n);
  g_autofree AsShardSum *sum = g_new0 (AsShardSum, n);
  job.effect = effect;
  job.sums = (ScanSums){ .n_layer = c->n_layer, .n_head = c->n_head, .sum = sum };
  gboolean ok = scan_all (&job, shard, &error);
  g_free (job.head_means);
  g_free (job.mlp_means);
  g_autofree char *measure = ok ? cli_metric_describe (model, &job.metric) : NULL;
  ScanLabels lb = {
    .model_name = as_model_get_name (model),
    .measure = measure,
    .ablation = job.kind == AS_ABLATION_MEAN ? "mean" : "zero",
    .token_id = job.metric.token_id,
    .vs_id = job.metric.vs_id,
    .loss_from = job.metric.loss_from,
    .ids = a->lines == NULL ? job.ids : NULL,
    .ablate = a->ablate,
  };
  if (ok && shard->active)
    ok = cli_shard_write_part (shard, model, part_options (&lb, a), part_result (&job.sums),
                               &error);
  else if (ok)
    {
      g_autoptr (GString) out = g_string_new (NULL);
      if (a->json)
        format_json (out, &job.sums, &lb);
      else
        format_text (out, &job.sums, &lb);
      fwrite (out->str, 1, out->len, stdout);
    }
  g_clear_pointer (&job.ids, g_array_unref);
  return ok ? CLI_EXIT_OK : cli_fail (error);
}

/* Usage errors; -1 when the arguments fit together. */
static int
check_args (const AblateArgs *a)
{
  if (!a->scan)
    return cli_usage_printf ("ablate", "--scan is required (the scan of every single head)");
  if ((a->text != NULL) + (a->lines != NULL) + (a->ids != NULL) != 1)
    return cli_usage_printf ("ablate", "give exactly one of --text, --ids and --lines");
  if ((a->token == NULL) == !a->loss)
    return cli_usage_printf ("ablate", "give exactly one of --token and --loss");
  if (a->shard != NULL && a->lines == NULL)
    return cli_usage_printf ("ablate", "--shard splits a corpus: it goes with --lines");
  if (a->loss_from < 0 || (a->loss_from > 0 && !a->loss))
    return cli_usage_printf ("ablate", "--loss-from takes a position (≥ 0) and goes with --loss");
  if (a->vs_token != NULL && a->token == NULL)
    return cli_usage_printf ("ablate", "--vs-token needs --token");
  return -1;
}

int
cli_ablate (int argc, char **argv)
{
  AblateArgs a = { 0 };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &a.model, "Model folder, shipped name or hub id", "M" },
    CLI_STRICT_OPTION,
    { "scan", 0, 0, G_OPTION_ARG_NONE, &a.scan, "Switch off every head in turn", NULL },
    { "text", 't', 0, G_OPTION_ARG_STRING, &a.text, "The text", "T" },
    { "ids", 0, 0, G_OPTION_ARG_STRING, &a.ids, "Input token ids, comma separated", "1,2,3" },
    { "lines", 0, 0, G_OPTION_ARG_FILENAME, &a.lines, "One text a line: the mean effect", "FILE" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &a.token,
      "Measure this token's logit at the last position (one token, e.g. \" car\")", "WORD" },
    { "vs-token", 0, 0, G_OPTION_ARG_STRING, &a.vs_token,
      "Measure the logit difference --token minus this token", "W2" },
    { "loss", 0, 0, G_OPTION_ARG_NONE, &a.loss, "Measure the next-token loss over the text", NULL },
    { "loss-from", 0, 0, G_OPTION_ARG_INT, &a.loss_from,
      "The loss over the tokens from this position on (default: every predicted token)", "I" },
    { "ablation", 0, 0, G_OPTION_ARG_STRING, &a.ablation,
      "What replaces a switched-off head: zero (default) or mean", "zero|mean" },
    { "mean-over", 0, 0, G_OPTION_ARG_FILENAME, &a.mean_over,
      "Texts (one a line) whose positions the mean ablation averages over", "FILE" },
    { "ablate", 0, 0, G_OPTION_ARG_STRING, &a.ablate,
      "Heads and MLPs switched off in every pass, as --ablation (e.g. 0.3,2.5,mlp3)", "LIST" },
    { "no-positions", 0, 0, G_OPTION_ARG_NONE, &a.no_positions,
      "Leave out the position embeddings (or the rotation of RoPE models)", NULL },
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &a.truncate,
      "Keep the first tokens when a text is longer than the context", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a.json, "Print JSON", NULL },
    CLI_SHARD_ENTRIES (a.shard, a.part),
    { NULL },
  };
  int code;
  if (!cli_parse_options ("ablate", "",
                          "Switch off each head in turn and measure what changes: a token's "
                          "logit, a logit difference or the loss (layers × heads).",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    code = cli_usage_printf ("ablate", "unexpected argument '%s'", argv[1]);
  else if ((code = check_args (&a)) < 0)
    {
      CliShard shard;
      if ((code = cli_shard_setup (&shard, "ablate", a.shard, a.part)) < 0)
        {
          code = run_scan (&a, &shard);
          cli_shard_clear (&shard);
        }
    }
  g_free (a.model);
  g_free (a.text);
  g_free (a.ids);
  g_free (a.lines);
  g_free (a.token);
  g_free (a.vs_token);
  g_free (a.ablation);
  g_free (a.mean_over);
  g_free (a.ablate);
  g_free (a.shard);
  g_free (a.part);
  return code;
}

/* cli-ablate.c — `attnscope ablate --scan`: each single head's effect on a chosen logit, logit
 * difference or the loss when it is switched off (as_ablation_scan).
 *
 *   ablate --scan [--model M] (--text T | --lines FILE) (--token WORD [--vs-token W2] | --loss)
 *          [--ablation zero|mean [--mean-over FILE]] [--truncate] [--json]
 *
 * With --lines the effects (and the clean value) are the means over the file's lines. */
#include <stdio.h>

#include "as-ablation.h"
#include "as-error.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "cli-json.h"

typedef struct
{
  char *model, *text, *ids, *lines, *token, *vs_token, *ablation, *mean_over;
  gboolean scan, loss, truncate, json;
  int loss_from;
} AblateArgs;

/* What the scan adds up over the texts. */
typedef struct
{
  AsModel *model;
  const AblateArgs *args;
  AsMetric metric;
  AsAblationKind kind;
  float *head_means, *mlp_means;
  double *sum;    /* [L][H] */
  double *effect; /* [L][H] one text's */
  double clean_sum;
  int n_texts;
  GArray *ids; /* int32_t: the first text's ids */
  AsScanStats stats;
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
  if (!as_ablation_scan (job->model, t->ids, t->n_tokens, &job->metric, job->kind, job->head_means,
                         job->mlp_means, job->effect, &clean, &st, error))
    return FALSE;
  for (gsize i = 0; i < (gsize) c->n_layer * c->n_head; i++)
    job->sum[i] += job->effect[i];
  if (job->ids == NULL)
    {
      job->ids = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), t->n_tokens);
      g_array_append_vals (job->ids, t->ids, t->n_tokens);
    }
  job->clean_sum += clean;
  job->n_texts++;
  job->stats.passes += st.passes;
  job->stats.layers_computed += st.layers_computed;
  job->stats.layers_full += st.layers_full;
  return TRUE;
}

static void
print_json (const ScanJob *job, const char *measure)
{
  const AsConfig *c = as_model_get_config (job->model);
  int L = c->n_layer, H = c->n_head;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_string (b, "model", as_model_get_name (job->model));
  cli_json_set_string (b, "measure", measure);
  cli_json_set_string (b, "ablation", job->kind == AS_ABLATION_MEAN ? "mean" : "zero");
  cli_json_set_int (b, "texts", job->n_texts);
  cli_json_set_int (b, "token_id", job->metric.token_id);
  cli_json_set_int (b, "vs_id", job->metric.vs_id);
  cli_json_set_int (b, "loss_from", job->metric.loss_from);
  json_builder_set_member_name (b, "ids");
  json_builder_begin_array (b);
  for (guint i = 0; i < job->ids->len; i++)
    json_builder_add_int_value (b, g_array_index (job->ids, int32_t, i));
  json_builder_end_array (b);
  cli_json_set_int (b, "n_layer", L);
  cli_json_set_int (b, "n_head", H);
  cli_json_set_number (b, "clean", job->clean_sum / job->n_texts);
  json_builder_set_member_name (b, "effects");
  json_builder_begin_array (b);
  for (int l = 0; l < L; l++)
    {
      json_builder_begin_array (b);
      for (int h = 0; h < H; h++)
        cli_json_add_number (b, job->sum[(gsize) l * H + h] / job->n_texts);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  cli_json_set_int (b, "passes", job->stats.passes);
  cli_json_set_int (b, "layers_computed", job->stats.layers_computed);
  cli_json_set_int (b, "layers_full", job->stats.layers_full);
  json_builder_end_object (b);
  cli_json_print (b);
}

static void
print_text (const ScanJob *job, const char *measure)
{
  const AsConfig *c = as_model_get_config (job->model);
  int L = c->n_layer, H = c->n_head;
  printf ("%s, clean %.6g; change when one head is switched off (%s ablation)%s\n", measure,
          job->clean_sum / job->n_texts, job->kind == AS_ABLATION_MEAN ? "mean" : "zero",
          job->n_texts > 1 ? ", mean over the lines" : "");
  printf ("layer");
  for (int h = 0; h < H; h++)
    printf (" %10s%d", "head ", h);
  printf ("\n");
  for (int l = 0; l < L; l++)
    {
      printf ("%5d", l);
      for (int h = 0; h < H; h++)
        printf (" %11.4g", job->sum[(gsize) l * H + h] / job->n_texts);
      printf ("\n");
    }
}

static int
run_scan (const AblateArgs *a)
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
  g_autofree double *sum = g_new0 (double, (gsize) c->n_layer * c->n_head);
  g_autofree double *effect = g_new0 (double, (gsize) c->n_layer * c->n_head);
  job.sum = sum;
  job.effect = effect;
  gboolean ok = TRUE;
  if (job.kind == AS_ABLATION_MEAN)
    {
      g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
      ok = cli_foreach_text_line_named ("--mean-over", a->mean_over, cli_collect_line, lines,
                                        &error)
           && as_ablation_means (model, (char *const *) lines->pdata, (int) lines->len,
                                 a->mean_over, &job.head_means, &job.mlp_means, &error);
    }
  if (ok)
    ok = a->lines != NULL ? cli_foreach_text_line (a->lines, scan_text, &job, &error)
                          : scan_text (a->text, &job, &error);
  g_free (job.head_means);
  g_free (job.mlp_means);
  if (!ok)
    {
      g_clear_pointer (&job.ids, g_array_unref);
      return cli_fail (error);
    }
  g_autofree char *measure = cli_metric_describe (model, &job.metric);
  if (a->json)
    print_json (&job, measure);
  else
    print_text (&job, measure);
  g_array_unref (job.ids);
  return CLI_EXIT_OK;
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
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &a.truncate,
      "Keep the first tokens when a text is longer than the context", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a.json, "Print JSON", NULL },
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
    code = run_scan (&a);
  g_free (a.model);
  g_free (a.text);
  g_free (a.ids);
  g_free (a.lines);
  g_free (a.token);
  g_free (a.vs_token);
  g_free (a.ablation);
  g_free (a.mean_over);
  return code;
}

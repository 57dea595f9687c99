/* cli-intervene.c — --ablate, --ablation, --mean-over and --no-positions for the commands that
 * take them (cli-intervene.h). The prepared state lives for the process: one command runs per
 * process. */
#include "cli-intervene.h"

#include <math.h>

#include "as-ablation.h"
#include "as-error.h"
#include "as-tokenizer.h"
#include "cli-common.h"
#include "cli-json.h"

CliInterveneArgs cli_intervene_args;

static AsAblationSet *prepared_set;
static float *head_means, *mlp_means;
static AsIntervention prepared;
static gboolean have_intervention;

gboolean
cli_collect_line (const char *line, gpointer user_data, GError **error)
{
  g_ptr_array_add (user_data, g_strdup (line));
  return TRUE;
}

/* The means over the --mean-over file's lines. */
static gboolean
read_means (AsModel *model, const char *path, GError **error)
{
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  if (!cli_foreach_text_line_named ("--mean-over", path, cli_collect_line, lines, error))
    return FALSE;
  g_ptr_array_add (lines, NULL);
  g_autofree char *what = g_strdup_printf ("--mean-over %s", path);
  return as_ablation_means (model, (char *const *) lines->pdata, (int) lines->len - 1, what,
                            &head_means, &mlp_means, error);
}

gboolean
cli_intervene_prepare (AsModel *model, GError **error)
{
  CliInterveneArgs *a = &cli_intervene_args;
  AsAblationKind kind = AS_ABLATION_ZERO;
  if (a->ablation != NULL && !as_ablation_kind_parse (a->ablation, &kind, error))
    return FALSE;
  if (a->ablate == NULL)
    {
      if (a->ablation != NULL || a->mean_over != NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "%s needs --ablate (the heads and MLPs to switch off)",
                       a->ablation != NULL ? "--ablation" : "--mean-over");
          return FALSE;
        }
      return TRUE;
    }
  if (a->mean_over != NULL && a->ablation == NULL)
    kind = AS_ABLATION_MEAN;
  if (kind == AS_ABLATION_MEAN && a->mean_over == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--ablation mean needs --mean-over FILE (the texts to average over)");
      return FALSE;
    }
  if (kind == AS_ABLATION_ZERO && a->mean_over != NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "--mean-over is for --ablation mean, not zero");
      return FALSE;
    }
  const AsConfig *c = as_model_get_config (model);
  prepared_set = as_ablation_set_new (c->n_layer, c->n_head);
  if (!as_ablation_set_parse (prepared_set, a->ablate, error))
    return FALSE;
  if (kind == AS_ABLATION_MEAN && !read_means (model, a->mean_over, error))
    return FALSE;
  prepared = as_ablation_intervention (prepared_set, kind, head_means, mlp_means);
  have_intervention = TRUE;
  return TRUE;
}

void
cli_intervene_apply (AsForwardOptions *options)
{
  if (have_intervention && options->intervention == NULL)
    options->intervention = &prepared;
  if (cli_intervene_args.no_positions)
    options->no_positions = TRUE;
}

void
cli_intervene_add_part_options (JsonBuilder *b)
{
  const CliInterveneArgs *a = &cli_intervene_args;
  const char *const members[] = { "ablate", "ablation", "mean_over" };
  const char *const values[] = { a->ablate, a->ablation, a->mean_over };
  for (gsize i = 0; i < G_N_ELEMENTS (members); i++)
    if (values[i] != NULL)
      {
        json_builder_set_member_name (b, members[i]);
        json_builder_add_string_value (b, values[i]);
      }
  if (a->no_positions)
    {
      json_builder_set_member_name (b, "no_positions");
      json_builder_add_boolean_value (b, TRUE);
    }
}

int
cli_intervene_n_heads (void)
{
  return prepared_set != NULL ? prepared_set->n_heads_off : 0;
}

int
cli_intervene_n_mlps (void)
{
  return prepared_set != NULL ? prepared_set->n_mlps_off : 0;
}

void
cli_intervene_scan_options (AsScanOptions *o)
{
  o->no_positions = cli_intervene_args.no_positions;
  if (!have_intervention)
    return;
  o->base = prepared_set;
  o->kind = head_means != NULL ? AS_ABLATION_MEAN : AS_ABLATION_ZERO;
  o->head_means = head_means;
  o->mlp_means = mlp_means;
}

gboolean
cli_metric_from_words (AsModel *model, const char *token, const char *vs_token, gboolean loss,
                       AsMetric *metric, GError **error)
{
  *metric = (AsMetric){ .kind = AS_METRIC_LOSS, .token_id = -1, .vs_id = -1 };
  if (loss)
    return TRUE;
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  if (tokenizer == NULL || !as_tokenizer_word_id (tokenizer, token, &metric->token_id, error))
    return FALSE;
  metric->kind = AS_METRIC_LOGIT;
  if (vs_token == NULL)
    return TRUE;
  metric->kind = AS_METRIC_LOGIT_DIFF;
  return as_tokenizer_word_id (tokenizer, vs_token, &metric->vs_id, error);
}

char *
cli_metric_describe (AsModel *model, const AsMetric *metric)
{
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  if (metric->kind == AS_METRIC_LOSS)
    return g_strdup ("loss");
  g_autofree char *ta = as_tokenizer_dup_token_text (tokenizer, metric->token_id);
  g_autofree char *a = cli_json_quote (ta);
  if (metric->kind == AS_METRIC_LOGIT)
    return g_strdup_printf ("logit(%s)", a);
  g_autofree char *tb = as_tokenizer_dup_token_text (tokenizer, metric->vs_id);
  g_autofree char *b = cli_json_quote (tb);
  return g_strdup_printf ("logit(%s) - logit(%s)", a, b);
}

char *
cli_patch_gap_warning (const AsPatchResult *result)
{
  if (!as_patch_gap_is_small (result))
    return NULL;
  char *warning = g_strdup_printf (
      "the measure differs by only %.3g between the texts (%.6g and %.6g): every effect is "
      "divided by that, so the normalised effects are unstable",
      fabs (result->source - result->base), result->base, result->source);
  g_printerr ("attnscope: warning: %s\n", warning);
  return warning;
}

/* cli-stats-translation.c — `attnscope stats` for a translation (encoder–decoder) model: the head
 * statistics of the encoder's self-attention, of the decoder's (as for any model, as-head-stats.h)
 * or of the cross-attention (as-cross-stats.h), for one source/target pair or aggregated over the
 * lines of a file. A missing target is the model's own translation, so `stats --text SRC` shows
 * what the model attends to while it translates SRC. */
#include "cli-stats-translation.h"

#include <stdio.h>
#include <string.h>

#include "as-cross-stats.h"
#include "as-error.h"
#include "cli-analysis.h"
#include "cli-json.h"
#include "cli-stats-table.h"
#include "cli-translation.h"
#include "cli-common.h"

typedef struct
{
  AsModel *model;
  CliAttentionKind kind;
  AsHeadStatsAccumulator *heads; /* encoder, decoder */
  AsCrossStats *cross;           /* cross */
} TranslationStats;

static gboolean
add_trace (TranslationStats *job, const AsTrace *trace, GError **error)
{
  switch (job->kind)
    {
    case CLI_ATTENTION_ENCODER:
      return as_head_stats_accumulate (job->heads, trace->source, error);
    case CLI_ATTENTION_DECODER:
      return as_head_stats_accumulate (job->heads, trace, error);
    case CLI_ATTENTION_CROSS:
      return as_cross_stats_add (job->cross, trace, error);
    }
  g_assert_not_reached ();
}

/* One line of a --lines file: "source" or "source<TAB>target". Lines are translated greedily
 * (one beam) when they hold no target, to keep a long file quick. */
static gboolean
add_line (const char *line, gpointer user_data, GError **error)
{
  TranslationStats *job = user_data;
  const char *tab = strchr (line, '\t');
  g_autofree char *source = tab != NULL ? g_strndup (line, tab - line) : g_strdup (line);
  g_autoptr (AsTrace) trace
      = cli_translation_forward (job->model, source, tab != NULL ? tab + 1 : NULL, 1, error);
  return trace != NULL && add_trace (job, trace, error);
}

static void
print_cross_json (const AsCrossStats *s, const char *model_name)
{
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_string (out, "model", model_name);
  cli_json_set_string (out, "kind", "cross");
  cli_json_set_int (out, "sentences", s->n_traces);
  cli_json_set_int (out, "n_layer", s->n_layer);
  cli_json_set_int (out, "n_head", s->n_head);
  json_builder_set_member_name (out, "heads");
  json_builder_begin_array (out);
  for (int e = 0; e < s->n_layer * s->n_head; e++)
    {
      json_builder_begin_object (out);
      cli_json_set_int (out, "layer", e / s->n_head);
      cli_json_set_int (out, "head", e % s->n_head);
      for (int k = 0; k < AS_CROSS_STAT_COUNT; k++)
        cli_json_set_number (out, as_cross_stat_kind_to_string (k),
                             s->values[(gsize) e * AS_CROSS_STAT_COUNT + k]);
      cli_json_set_string (out, "label", s->labels[e]);
      json_builder_end_object (out);
    }
  json_builder_end_array (out);
  json_builder_end_object (out);
  cli_json_print (out);
}

static void
print_cross_text (const AsCrossStats *s)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_string_append_printf (out,
                          "cross-attention, %d sentence%s; entropy is normalised (0 focused, 1 "
                          "uniform)\n%5s %4s",
                          s->n_traces, s->n_traces == 1 ? "" : "s", "layer", "head");
  for (int k = 0; k < AS_CROSS_STAT_COUNT; k++)
    g_string_append_printf (out, " %10s", as_cross_stat_kind_to_string (k));
  g_string_append (out, "  label\n");
  for (int e = 0; e < s->n_layer * s->n_head; e++)
    {
      g_string_append_printf (out, "%5d %4d", e / s->n_head, e % s->n_head);
      for (int k = 0; k < AS_CROSS_STAT_COUNT; k++)
        g_string_append_printf (out, " %10.6f", s->values[(gsize) e * AS_CROSS_STAT_COUNT + k]);
      g_string_append_printf (out, "  %s\n", s->labels[e]);
    }
  cli_print (out);
}

int
cli_stats_translation (AsModel *model, const char *text, const char *target, const char *lines,
                       const char *kind, gboolean json)
{
  TranslationStats job = { .model = model };
  GError *error = NULL;
  if (!cli_attention_kind_parse (kind, CLI_ATTENTION_CROSS, &job.kind, &error))
    {
      int code = cli_usage_printf ("stats", "%s", error->message);
      g_error_free (error);
      return code;
    }
  if (target != NULL && text == NULL)
    return cli_usage_printf ("stats", "--target goes with --text");

  g_autoptr (AsHeadStatsAccumulator) heads = as_head_stats_accumulator_new ();
  g_autoptr (AsCrossStats) cross = as_cross_stats_new ();
  job.heads = heads;
  job.cross = cross;
  if (lines != NULL)
    {
      if (!cli_foreach_text_line (lines, add_line, &job, &error))
        return cli_fail (error);
    }
  else
    {
      g_autoptr (AsTrace) trace = cli_translation_forward (model, text, target, 0, &error);
      if (trace == NULL || !add_trace (&job, trace, &error))
        return cli_fail (error);
    }

  if (job.kind == CLI_ATTENTION_CROSS)
    {
      if (!as_cross_stats_finish (cross, &error))
        return cli_fail (error);
      if (json)
        print_cross_json (cross, as_model_get_name (model));
      else
        print_cross_text (cross);
      return CLI_EXIT_OK;
    }
  g_autoptr (AsHeadStats) stats = as_head_stats_accumulator_finish (heads, &error);
  if (stats == NULL)
    return cli_fail (error);
  if (json)
    cli_stats_print_json (stats, as_model_get_name (model));
  else
    cli_stats_print_text (stats);
  return CLI_EXIT_OK;
}

/* cli-stats-table.c — the head statistics table `attnscope stats` prints, as text or JSON, for
 * any model (cli-stats.c) and for a translation model's encoder or decoder heads
 * (cli-stats-translation.c). */
#include "cli-stats-table.h"

#include <math.h>

#include "cli-analysis.h"
#include "cli-json.h"

static void
add_head_json (JsonBuilder *out, const AsHeadStats *s, int e)
{
  json_builder_begin_object (out);
  cli_json_set_int (out, "layer", e / s->n_head);
  cli_json_set_int (out, "head", e % s->n_head);
  for (int k = 0; k < AS_HEAD_STAT_COUNT; k++)
    if (as_head_stat_kind_applies (k, s->bidirectional))
      cli_json_set_number (out, as_head_stat_kind_to_string (k),
                           s->values[(gsize) e * AS_HEAD_STAT_COUNT + k]);
  cli_json_set_string (out, "label", as_head_pattern_to_string (s->patterns[e]));
  json_builder_end_object (out);
}

void
cli_stats_format_json (GString *text, const AsHeadStats *s, const char *model_name)
{
  int n = s->n_layer * s->n_head;
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_string (out, "model", model_name);
  cli_json_set_int (out, "sentences", s->n_traces);
  cli_json_set_int (out, "n_layer", s->n_layer);
  cli_json_set_int (out, "n_head", s->n_head);
  json_builder_set_member_name (out, "heads");
  json_builder_begin_array (out);
  for (int e = 0; e < n; e++)
    add_head_json (out, s, e);
  json_builder_end_array (out);
  json_builder_set_member_name (out, "rankings");
  json_builder_begin_object (out);
  for (int k = 0; k < AS_HEAD_STAT_COUNT; k++)
    {
      if (!as_head_stat_kind_applies (k, s->bidirectional))
        continue;
      g_autofree int *order = as_head_stats_rank (s, k);
      json_builder_set_member_name (out, as_head_stat_kind_to_string (k));
      json_builder_begin_array (out);
      for (int r = 0; r < n; r++)
        {
          int e = order[r];
          json_builder_begin_object (out);
          cli_json_set_int (out, "layer", e / s->n_head);
          cli_json_set_int (out, "head", e % s->n_head);
          cli_json_set_number (out, "value", s->values[(gsize) e * AS_HEAD_STAT_COUNT + k]);
          json_builder_end_object (out);
        }
      json_builder_end_array (out);
    }
  json_builder_end_object (out);
  json_builder_end_object (out);
  g_autofree char *line = cli_json_to_line (out);
  g_string_append (text, line);
}

void
cli_stats_print_json (const AsHeadStats *s, const char *model_name)
{
  g_autoptr (GString) out = g_string_new (NULL);
  cli_stats_format_json (out, s, model_name);
  cli_print (out);
}

void
cli_stats_print_text (const AsHeadStats *s)
{
  g_autoptr (GString) out = g_string_new (NULL);
  cli_stats_format_text (out, s);
  cli_print (out);
}

void
cli_stats_format_text (GString *out, const AsHeadStats *s)
{
  g_string_append_printf (out, "%d sentence%s; entropy is normalised (0 focused, 1 uniform)\n",
                          s->n_traces, s->n_traces == 1 ? "" : "s");
  g_string_append_printf (out, "%5s %4s", "layer", "head");
  for (int k = 0; k < AS_HEAD_STAT_COUNT; k++)
    if (as_head_stat_kind_applies (k, s->bidirectional))
      g_string_append_printf (out, " %10s", as_head_stat_kind_to_string (k));
  g_string_append (out, "  label\n");
  for (int e = 0; e < s->n_layer * s->n_head; e++)
    {
      g_string_append_printf (out, "%5d %4d", e / s->n_head, e % s->n_head);
      for (int k = 0; k < AS_HEAD_STAT_COUNT; k++)
        {
          double value = s->values[(gsize) e * AS_HEAD_STAT_COUNT + k];
          if (!as_head_stat_kind_applies (k, s->bidirectional))
            continue;
          /* NaN: the input has no such token (a text without [CLS]) or no row to average */
          if (isnan (value))
            g_string_append_printf (out, " %10s", "-");
          else
            g_string_append_printf (out, " %10.6f", value);
        }
      g_string_append_printf (out, "  %s\n", as_head_pattern_to_string (s->patterns[e]));
    }
}

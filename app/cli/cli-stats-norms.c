/* cli-stats-norms.c — `attnscope stats --text T --norms` (cli-stats-norms.h): the head
 * statistics and the attention norms of one text. */
#include "cli-stats-norms.h"

#include <stdio.h>

#include "as-attention-norms.h"
#include "as-error.h"
#include "as-forward.h"
#include "as-head-stats.h"
#include "cli-common.h"
#include "cli-json.h"
#include "cli-stats-table.h"
#include "cli-translation.h"

/* A head that gives the first token at least FIRST_LOOKS of its weight on average while its
 * norm-weighted share there is below QUIET_RATIO of that looks there but writes little. */
#define QUIET_RATIO 0.5
#define FIRST_LOOKS 0.3

/* X [ROWS][COLS] as an array of arrays. */
static void
add_matrix (JsonBuilder *b, const float *x, int rows, int cols)
{
  json_builder_begin_array (b);
  for (int r = 0; r < rows; r++)
    {
      json_builder_begin_array (b);
      for (int c = 0; c < cols; c++)
        json_builder_add_double_value (b, x[(gsize) r * cols + c]);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
}

static JsonNode *
norms_json (const AsAttentionNorms *n)
{
  int L = n->n_layer, H = n->n_head, T = n->n_tokens;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "head_shares");
  add_matrix (b, n->head_shares, L, H);
  json_builder_set_member_name (b, "first_ratios");
  add_matrix (b, n->first_ratios, L, H);
  json_builder_set_member_name (b, "value_norms");
  json_builder_begin_array (b);
  for (int l = 0; l < L; l++)
    add_matrix (b, n->value_norms + (gsize) l * H * T, H, T);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* The statistics' JSON with the norms as its "norms" member. */
static void
print_json (const AsHeadStats *stats, const AsAttentionNorms *norms, const char *model_name)
{
  g_autoptr (GString) text = g_string_new (NULL);
  cli_stats_format_json (text, stats, model_name);
  g_autoptr (JsonParser) parser = json_parser_new ();
  gboolean parsed = json_parser_load_from_data (parser, text->str, (gssize) text->len, NULL);
  g_assert (parsed);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  json_object_set_member (root, "norms", norms_json (norms));
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *out = json_generator_to_data (gen, NULL);
  printf ("%s\n", out);
}

/* Per head: its share of the layer's write and its first-token ratio; the quiet heads. */
static void
print_text (const AsHeadStats *stats, const AsAttentionNorms *n, const AsTrace *trace)
{
  g_autoptr (GString) out = g_string_new (NULL);
  cli_stats_format_text (out, stats);
  g_string_append (out, "\nattention norms: each head's share of its layer's attention output, "
                        "and norm-weighted over weight-only attention on the first token\n");
  g_string_append_printf (out, "%5s %4s %10s %10s %12s\n", "layer", "head", "share", "first",
                          "first ratio");
  GString *quiet = g_string_new (NULL);
  for (int l = 0; l < n->n_layer; l++)
    for (int h = 0; h < n->n_head; h++)
      {
        /* the first key's column only: a long text's head is never expanded whole */
        g_autofree float *column = g_new (float, trace->n_tokens); /* [T][1] */
        as_trace_attention_tile (trace, l, h, 0, trace->n_tokens, 0, 1, column, 1);
        double first = 0.0;
        for (int i = 0; i < trace->n_tokens; i++)
          first += column[i];
        first /= trace->n_tokens;
        float ratio = n->first_ratios[l * n->n_head + h];
        g_string_append_printf (out, "%5d %4d %10.4f %10.4f %12.4f\n", l, h,
                                n->head_shares[l * n->n_head + h], first, ratio);
        if (first >= FIRST_LOOKS && ratio < QUIET_RATIO)
          g_string_append_printf (quiet, " %d.%d", l, h);
      }
  if (quiet->len > 0)
    g_string_append_printf (out,
                            "\nheads that look at the first token but write little "
                            "from it:%s\n",
                            quiet->str);
  g_string_free (quiet, TRUE);
  fwrite (out->str, 1, out->len, stdout);
}

/* The statistics and attention norms of TRACE printed as JSON or text; the exit status. */
static int
print_norms (AsModel *model, const AsTrace *trace, gboolean json)
{
  GError *error = NULL;
  g_autoptr (AsAttentionNorms) norms = as_attention_norms_of_trace (model, trace, NULL, &error);
  if (norms == NULL)
    return cli_fail (error);
  g_autoptr (AsHeadStats) stats = as_head_stats_compute (trace);
  if (json)
    print_json (stats, norms, as_model_get_name (model));
  else
    print_text (stats, norms, trace);
  return CLI_EXIT_OK;
}

int
cli_stats_norms_translation (AsModel *model, const char *text, const char *target, gboolean json)
{
  GError *error = NULL;
  g_autoptr (AsTrace) trace = cli_translation_forward (model, text, target, 0, &error);
  if (trace == NULL)
    return cli_fail (error);
  return print_norms (model, trace, json);
}

int
cli_stats_norms (AsModel *model, const char *text, const char *pair, gboolean truncate,
                 gboolean json)
{
  GError *error = NULL;
  AsForwardOptions options = { .capture_qkv = TRUE };
  g_autoptr (AsTrace) trace = cli_forward_text (model, text, pair, truncate, &options, &error);
  if (trace == NULL)
    return cli_fail (error);
  return print_norms (model, trace, json);
}

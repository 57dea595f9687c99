/* cli-compare.c — `attnscope compare --text A --text B`: how two sentences differ inside one
 * model (core/as-compare.h): tokens paired by string (k-th occurrence with k-th occurrence),
 * per hidden-state layer the cosine similarity of the pairs and the change (Frobenius norm of the
 * matched-row difference), and, when both texts have the same number of tokens, the attention
 * difference B − A per head with layers and heads ranked by its Frobenius norm.
 * Text summary by default, JSON with --json (--matrices adds every head's [T][T] difference). */
#include <math.h>
#include <stdio.h>

#include "as-compare.h"
#include "cli-analysis.h"
#include "cli.h"

static void
append_index_list_json (GString *out, const int *indices, int n, const AsTrace *trace)
{
  g_string_append_c (out, '[');
  for (int i = 0; i < n; i++)
    {
      g_string_append_printf (out, "%s{\"index\":%d,\"token\":", i > 0 ? "," : "", indices[i]);
      cli_json_append_string (out, trace->tokens[indices[i]]);
      g_string_append_c (out, '}');
    }
  g_string_append_c (out, ']');
}

static void
append_hidden_json (GString *out, const AsComparison *c)
{
  g_string_append (out, ",\"hidden\":[");
  for (int l = 0; l <= c->n_layer; l++)
    {
      g_string_append_printf (out, "%s{\"layer\":%d,\"mean_similarity\":", l > 0 ? "," : "", l);
      cli_json_append_number (out, c->hidden_mean_similarity[l]);
      g_string_append (out, ",\"change\":");
      cli_json_append_number (out, c->hidden_change[l]);
      g_string_append (out, ",\"similarity\":[");
      for (int p = 0; p < c->n_pairs; p++)
        {
          if (p > 0)
            g_string_append_c (out, ',');
          cli_json_append_number (out, c->hidden_similarity[(gsize) l * c->n_pairs + p]);
        }
      g_string_append (out, "]}");
    }
  g_string_append (out, "],\"hidden_ranking\":[");
  for (int r = 0; r <= c->n_layer; r++)
    {
      int l = c->hidden_ranking[r];
      g_string_append_printf (out, "%s{\"layer\":%d,\"change\":", r > 0 ? "," : "", l);
      cli_json_append_number (out, c->hidden_change[l]);
      g_string_append_c (out, '}');
    }
  g_string_append_c (out, ']');
}

/* {"layer":l,"head":h,"change":x,"max_abs_diff":m[,"diff":[[...]]]} for flat head E. */
static void
append_head_json (GString *out, const AsComparison *c, int e, gboolean matrices)
{
  int t = c->n_tokens_a;
  const float *d = c->attention_diff + (gsize) e * t * t;
  double max_abs = 0;
  for (int x = 0; x < t * t; x++)
    max_abs = fmax (max_abs, fabs (d[x]));
  g_string_append_printf (out, "{\"layer\":%d,\"head\":%d,\"change\":", e / c->n_head,
                          e % c->n_head);
  cli_json_append_number (out, c->head_change[e]);
  g_string_append (out, ",\"max_abs_diff\":");
  cli_json_append_number (out, max_abs);
  if (matrices)
    {
      g_string_append (out, ",\"diff\":[");
      for (int i = 0; i < t; i++)
        {
          g_string_append (out, i > 0 ? ",[" : "[");
          for (int j = 0; j < t; j++)
            {
              if (j > 0)
                g_string_append_c (out, ',');
              cli_json_append_number (out, d[i * t + j]);
            }
          g_string_append_c (out, ']');
        }
      g_string_append_c (out, ']');
    }
  g_string_append_c (out, '}');
}

static void
append_attention_json (GString *out, const AsComparison *c, gboolean matrices)
{
  if (!c->attention_available)
    {
      g_string_append_printf (out,
                              ",\"attention\":{\"available\":false,\"reason\":\"the texts have %d "
                              "and %d tokens; attention differences need equal lengths\"}",
                              c->n_tokens_a, c->n_tokens_b);
      return;
    }
  int n = c->n_layer * c->n_head;
  g_string_append (out, ",\"attention\":{\"available\":true,\"heads\":[");
  for (int e = 0; e < n; e++)
    {
      if (e > 0)
        g_string_append_c (out, ',');
      append_head_json (out, c, e, matrices);
    }
  g_string_append (out, "],\"head_ranking\":[");
  for (int r = 0; r < n; r++)
    {
      int e = c->head_ranking[r];
      g_string_append_printf (out, "%s{\"layer\":%d,\"head\":%d,\"change\":", r > 0 ? "," : "",
                              e / c->n_head, e % c->n_head);
      cli_json_append_number (out, c->head_change[e]);
      g_string_append_c (out, '}');
    }
  g_string_append (out, "],\"layer_ranking\":[");
  for (int r = 0; r < c->n_layer; r++)
    {
      int l = c->layer_ranking[r];
      g_string_append_printf (out, "%s{\"layer\":%d,\"change\":", r > 0 ? "," : "", l);
      cli_json_append_number (out, c->layer_change[l]);
      g_string_append_c (out, '}');
    }
  g_string_append (out, "]}");
}

static void
print_json (const AsComparison *c, const AsTrace *a, const AsTrace *b, gboolean matrices)
{
  g_autoptr (GString) out = g_string_new ("{\"tokens_a\":");
  cli_json_append_tokens (out, a);
  g_string_append (out, ",\"tokens_b\":");
  cli_json_append_tokens (out, b);
  g_string_append (out, ",\"pairs\":[");
  for (int p = 0; p < c->n_pairs; p++)
    {
      g_string_append (out, p > 0 ? ",{\"token\":" : "{\"token\":");
      cli_json_append_string (out, a->tokens[c->pairs[p].a]);
      g_string_append_printf (out, ",\"a\":%d,\"b\":%d}", c->pairs[p].a, c->pairs[p].b);
    }
  g_string_append (out, "],\"unmatched_a\":");
  append_index_list_json (out, c->unmatched_a, c->n_unmatched_a, a);
  g_string_append (out, ",\"unmatched_b\":");
  append_index_list_json (out, c->unmatched_b, c->n_unmatched_b, b);
  append_hidden_json (out, c);
  append_attention_json (out, c, matrices);
  g_string_append (out, "}\n");
  cli_print (out);
}

static void
print_text (const AsComparison *c, const AsTrace *a)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_string_append_printf (out, "%d pairs of tokens (A position -> B position):", c->n_pairs);
  for (int p = 0; p < c->n_pairs; p++)
    g_string_append_printf (out, " %s %d->%d", a->tokens[c->pairs[p].a], c->pairs[p].a,
                            c->pairs[p].b);
  g_string_append_printf (out, "\nunmatched in A: %d, in B: %d\n", c->n_unmatched_a,
                          c->n_unmatched_b);
  g_string_append_printf (out, "%6s %16s %12s\n", "hidden", "mean similarity", "change");
  for (int l = 0; l <= c->n_layer; l++)
    g_string_append_printf (out, "%6d %16.6f %12.6f\n", l, c->hidden_mean_similarity[l],
                            c->hidden_change[l]);
  if (!c->attention_available)
    g_string_append_printf (out,
                            "attention difference unavailable: the texts have %d and %d "
                            "tokens\n",
                            c->n_tokens_a, c->n_tokens_b);
  else
    {
      g_string_append (out, "heads by attention change |P_B - P_A|:\n");
      for (int r = 0; r < c->n_layer * c->n_head; r++)
        {
          int e = c->head_ranking[r];
          g_string_append_printf (out, "  layer %d head %d: %.6f\n", e / c->n_head, e % c->n_head,
                                  c->head_change[e]);
        }
    }
  cli_print (out);
}

int
cli_compare (int argc, char **argv)
{
  g_autofree char *model_spec = NULL;
  g_auto (GStrv) texts = NULL;
  gboolean json = FALSE, matrices = FALSE, truncate = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    { "text", 't', 0, G_OPTION_ARG_STRING_ARRAY, &texts, "A text; give exactly two", "T" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "matrices", 0, 0, G_OPTION_ARG_NONE, &matrices,
      "With --json: include every head's attention difference B - A", NULL },
    CLI_ANALYSIS_TRUNCATE_ENTRY (truncate),
    { NULL },
  };
  int code;
  if (!cli_parse_options ("compare", "", "Compare two texts layer by layer and head by head.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("compare", "unexpected argument '%s'", argv[1]);
  if (texts == NULL || g_strv_length (texts) != 2)
    return cli_usage_printf ("compare", "give exactly two texts: --text A --text B");

  GError *error = NULL;
  if (!cli_check_text (texts[0], "the first --text", &error)
      || !cli_check_text (texts[1], "the second --text", &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  g_autoptr (AsTrace) a
      = cli_analysis_forward (model, texts[0], "the first --text", truncate, &error);
  if (a == NULL)
    return cli_fail (error);
  g_autoptr (AsTrace) b
      = cli_analysis_forward (model, texts[1], "the second --text", truncate, &error);
  if (b == NULL)
    return cli_fail (error);
  g_autoptr (AsComparison) c = as_compare_traces (a, b, &error);
  if (c == NULL)
    return cli_fail (error);
  if (json)
    print_json (c, a, b, matrices);
  else
    print_text (c, a);
  return CLI_EXIT_OK;
}

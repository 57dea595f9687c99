/* cli-similarity.c — `attnscope similarity`: the cosine-similarity matrix of one vector set of a
 * text (embeddings, contexts of a head, attention outputs or hidden states of a layer), or with
 * --token I the seed's comparison table for token I: every other token's similarity next to the
 * attention weight token I gives it (row I of the attention matrix).
 *
 * Output: the matrix as CSV (header "token,<tokens...>", one row per token) by default or with
 * --csv, or JSON {"tokens":[...],"matrix":[[...]]} with --json; the table as the seed's text by
 * default, CSV (index,token,similarity,attention) or JSON. */
#include <stdio.h>

#include "as-similarity.h"
#include "cli-analysis.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"

typedef struct
{
  AsVectorSource source;
  int layer;
  int head;  /* -1 when not given */
  int token; /* -1 for the whole matrix */
  gboolean csv, json;
  gboolean truncate;
} SimilarityRequest;

static void
set_selection_json (JsonBuilder *out, const SimilarityRequest *req)
{
  cli_json_set_string (out, "of", as_vector_source_to_string (req->source));
  if (as_vector_source_needs_layer (req->source))
    cli_json_set_int (out, "layer", req->layer);
  if (req->head >= 0)
    cli_json_set_int (out, "head", req->head);
}

static void
print_matrix (const AsTrace *trace, const float *sim, const SimilarityRequest *req)
{
  int n = trace->n_tokens;
  g_autoptr (GString) out = g_string_new (NULL);
  if (req->json)
    {
      g_autoptr (JsonBuilder) builder = json_builder_new ();
      json_builder_begin_object (builder);
      set_selection_json (builder, req);
      cli_json_set_tokens (builder, "tokens", trace);
      json_builder_set_member_name (builder, "matrix");
      json_builder_begin_array (builder);
      for (int i = 0; i < n; i++)
        {
          json_builder_begin_array (builder);
          for (int j = 0; j < n; j++)
            cli_json_add_number (builder, sim[(gsize) i * n + j]);
          json_builder_end_array (builder);
        }
      json_builder_end_array (builder);
      json_builder_end_object (builder);
      cli_json_print (builder);
      return;
    }
  g_string_append (out, "token");
  for (int j = 0; j < n; j++)
    {
      g_string_append_c (out, ',');
      cli_csv_append_field (out, trace->tokens[j]);
    }
  g_string_append_c (out, '\n');
  for (int i = 0; i < n; i++)
    {
      cli_csv_append_field (out, trace->tokens[i]);
      for (int j = 0; j < n; j++)
        g_string_append_printf (out, ",%.9g", sim[(gsize) i * n + j]);
      g_string_append_c (out, '\n');
    }
  cli_print (out);
}

static void
print_table (const AsTrace *trace, const AsSimilarityRow *rows, int n_rows,
             const SimilarityRequest *req)
{
  const char *word = trace->tokens[req->token];
  g_autoptr (GString) out = g_string_new (NULL);
  if (req->json)
    {
      g_autoptr (JsonBuilder) builder = json_builder_new ();
      json_builder_begin_object (builder);
      set_selection_json (builder, req);
      cli_json_set_string (builder, "attention", req->head >= 0 ? "head" : "mean");
      json_builder_set_member_name (builder, "token");
      json_builder_begin_object (builder);
      cli_json_set_int (builder, "index", req->token);
      cli_json_set_string (builder, "token", word);
      json_builder_end_object (builder);
      cli_json_set_tokens (builder, "tokens", trace);
      json_builder_set_member_name (builder, "rows");
      json_builder_begin_array (builder);
      for (int r = 0; r < n_rows; r++)
        {
          json_builder_begin_object (builder);
          cli_json_set_int (builder, "index", rows[r].index);
          cli_json_set_string (builder, "token", trace->tokens[rows[r].index]);
          cli_json_set_number (builder, "similarity", rows[r].similarity);
          cli_json_set_number (builder, "attention", rows[r].attention);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      json_builder_end_object (builder);
      g_autofree char *line = cli_json_to_line (builder);
      g_string_append (out, line);
    }
  else if (req->csv)
    {
      g_string_append (out, "index,token,similarity,attention\n");
      for (int r = 0; r < n_rows; r++)
        {
          g_string_append_printf (out, "%d,", rows[r].index);
          cli_csv_append_field (out, trace->tokens[rows[r].index]);
          g_string_append_printf (out, ",%.9g,%.9g\n", rows[r].similarity, rows[r].attention);
        }
    }
  else
    {
      /* the seed's layout ("Comparison for 'May':"), with six decimals */
      g_string_append_printf (out, "Comparison for '%s':\n  Word\t\tSimilarity\tAttention weight\n",
                              word);
      for (int r = 0; r < n_rows; r++)
        g_string_append_printf (out, "  %s\t\t%.6f\t%.6f\n", trace->tokens[rows[r].index],
                                rows[r].similarity, rows[r].attention);
    }
  cli_print (out);
}

static int
similarity_run (AsModel *model, const char *text, const SimilarityRequest *req)
{
  GError *error = NULL;
  g_autoptr (AsTrace) trace = cli_analysis_forward (model, text, "--text", req->truncate, &error);
  if (trace == NULL)
    return cli_fail (error);
  g_autofree float *sim = as_trace_similarity (trace, req->source, req->layer, req->head, &error);
  if (sim == NULL)
    return cli_fail (error);
  if (req->token < 0)
    {
      print_matrix (trace, sim, req);
      return CLI_EXIT_OK;
    }
  if (!as_similarity_check_token (req->token, trace->n_tokens, &error))
    return cli_fail (error);
  gsize tt = (gsize) trace->n_tokens * trace->n_tokens;
  g_autofree float *attn = g_new (float, tt); /* [T][T] */
  if (!as_trace_vectors_attention (attn, trace, req->source, req->layer, req->head, &error))
    return cli_fail (error);
  int n_rows = 0;
  g_autofree AsSimilarityRow *rows
      = as_similarity_table (sim, attn, trace->n_tokens, req->token, &n_rows);
  print_table (trace, rows, n_rows, req);
  return CLI_EXIT_OK;
}

int
cli_similarity (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *text = NULL, *of = NULL;
  SimilarityRequest req = { .layer = G_MININT, .head = G_MININT, .token = G_MININT };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    { "text", 't', 0, G_OPTION_ARG_STRING, &text, "Input text", "T" },
    { "of", 0, 0, G_OPTION_ARG_STRING, &of,
      "Vector set: embeddings, token-embeddings, contexts (of --layer, --head), attn_out or "
      "hidden (of --layer)",
      "SET" },
    { "layer", 'l', 0, G_OPTION_ARG_INT, &req.layer,
      "Layer (0-based; hidden: 0 = embeddings .. L = after the final norm)", "L" },
    { "head", 0, 0, G_OPTION_ARG_INT, &req.head,
      "Head: required for contexts; otherwise selects the attention shown by --token "
      "(default: mean over heads)",
      "H" },
    { "token", 0, 0, G_OPTION_ARG_INT, &req.token,
      "Print token I's similarity to every other token next to its attention weights", "I" },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &req.csv, "Print CSV (default for the matrix)", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &req.json, "Print JSON", NULL },
    CLI_ANALYSIS_TRUNCATE_ENTRY (req.truncate),
    { NULL },
  };
  int code;
  if (!cli_parse_options ("similarity", "", "Cosine similarity between the vectors of a text.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("similarity", "unexpected argument '%s'", argv[1]);
  if (text == NULL)
    return cli_usage_printf ("similarity", "--text T is required");
  if (req.csv && req.json)
    return cli_usage_printf ("similarity", "give at most one of --csv and --json");
  if (req.head != G_MININT && req.head < 0)
    return cli_fail_printf ("--head %d is out of range: heads are numbered from 0", req.head);
  if ((code = cli_parse_vector_selection ("similarity", of, &req.source, &req.layer, &req.head))
      != CLI_EXIT_OK)
    return code;
  GError *error = NULL;
  if (req.token == G_MININT)
    req.token = -1;
  else if (req.token < 0)
    return cli_fail_printf ("--token %d is out of range: tokens are numbered from 0", req.token);

  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  return similarity_run (model, text, &req);
}

/* cli-project.c — `attnscope project`: a 2-D projection (PCA or t-SNE) of a set of vectors.
 *
 * The vectors come either from a matrix in an HDF5 file (--input FILE.h5 --dataset NAME, a 2-D
 * numeric dataset [n][d]) or from the forward pass of one or more texts (--model M --text T
 * [--text T2 ...] --of embeddings|contexts|attn_out|hidden --layer L [--head H]): the tokens of
 * all texts, in order, one point per token.
 *
 * Output (JSON, the default, or --json):
 *   {"method":"tsne", "n":N, "dim":D, "points":[[x,y],...], "labels":[...], "kl":K,
 *    "explained_variance_ratio":[r1,r2] (pca only), "perplexity":P, "iterations":I, "seed":S
 *    (tsne only), "text":[0,0,1,...], "position":[0,1,0,...] (texts only)}
 * labels are the token strings (texts) or the row indices (matrix); "kl" is null for PCA.
 * --csv prints "index,label,x,y" (plus "text,position" for texts) instead. */
#include <math.h>
#include <stdio.h>

#include "as-error.h"
#include "as-matrix-h5.h"
#include "as-pca.h"
#include "as-trace-vectors.h"
#include "as-tsne.h"
#include "cli-analysis.h"
#include "cli-json.h"
#include "cli.h"

typedef enum
{
  PROJECT_PCA,
  PROJECT_TSNE,
} ProjectMethod;

typedef struct
{
  ProjectMethod method;
  double perplexity;
  gint64 seed;
  int iterations;
  AsTsneMethod tsne_method;
  gboolean csv;
} ProjectRequest;

/* The vectors to project and what each point is. */
typedef struct
{
  float *x; /* [n][dim] */
  int n, dim;
  GPtrArray *labels; /* [n] token strings (texts) or NULL (matrix rows) */
  GArray *text;      /* [n] int: which text each point comes from (texts only) */
  GArray *position;  /* [n] int: the token index within its text (texts only) */
} ProjectInput;

static void
project_input_clear (ProjectInput *in)
{
  g_clear_pointer (&in->x, g_free);
  g_clear_pointer (&in->labels, g_ptr_array_unref);
  g_clear_pointer (&in->text, g_array_unref);
  g_clear_pointer (&in->position, g_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ProjectInput, project_input_clear)

typedef struct
{
  float *points; /* [n][2] */
  double kl;     /* NaN for PCA */
  double ratio[2];
} ProjectResult;

static gboolean
load_matrix (ProjectInput *in, const char *path, const char *dataset, GError **error)
{
  in->x = as_matrix_h5_read (path, dataset, &in->n, &in->dim, error);
  return in->x != NULL;
}

/* Runs the model on every text and concatenates the chosen vectors of all tokens. */
static gboolean
load_texts (ProjectInput *in, const char *model_spec, char **texts, AsVectorSource source,
            int layer, int head, gboolean truncate, GError **error)
{
  g_autoptr (AsModel) model = cli_load_model (model_spec, error);
  if (model == NULL)
    return FALSE;
  g_autoptr (GByteArray) data = g_byte_array_new ();
  in->labels = g_ptr_array_new_with_free_func (g_free);
  in->text = g_array_new (FALSE, FALSE, sizeof (int));
  in->position = g_array_new (FALSE, FALSE, sizeof (int));
  for (int t = 0; texts[t] != NULL; t++)
    {
      g_autofree char *argument = g_strdup_printf ("--text #%d", t + 1);
      g_autoptr (AsTrace) trace = cli_analysis_forward (model, texts[t], argument, truncate, error);
      if (trace == NULL)
        return FALSE;
      int rows = 0, dim = 0;
      const float *v = as_trace_vectors_get (trace, source, layer, head, &rows, &dim, error);
      if (v == NULL)
        return FALSE;
      g_byte_array_append (data, (const guint8 *) v, (guint) ((gsize) rows * dim * sizeof (float)));
      in->dim = dim;
      for (int i = 0; i < rows; i++)
        {
          g_ptr_array_add (in->labels, g_strdup (trace->tokens[i]));
          g_array_append_val (in->text, t);
          g_array_append_val (in->position, i);
        }
      in->n += rows;
    }
  in->x = (float *) g_byte_array_free (g_steal_pointer (&data), FALSE);
  return TRUE;
}

static gboolean
project_pca (ProjectResult *out, const ProjectInput *in, GError **error)
{
  if (in->n < 2)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "PCA needs at least 2 points; the input has %d",
                   in->n);
      return FALSE;
    }
  int k = MIN (2, MIN (in->n, in->dim)); /* one column: the second coordinate stays 0 */
  g_autoptr (AsPca) pca = as_pca_fit (in->x, in->n, in->dim, k, error);
  if (pca == NULL)
    return FALSE;
  for (int i = 0; i < in->n; i++)
    for (int c = 0; c < k; c++)
      out->points[2 * i + c] = (float) pca->coords[(gsize) i * k + c];
  for (int c = 0; c < k; c++)
    out->ratio[c] = pca->explained_variance_ratio[c];
  out->kl = NAN;
  return TRUE;
}

static gboolean
project_tsne (ProjectResult *out, const ProjectInput *in, const ProjectRequest *req, GError **error)
{
  AsTsneOptions options;
  as_tsne_options_init (&options);
  options.perplexity = req->perplexity;
  options.seed = (guint64) req->seed;
  options.n_iter = req->iterations;
  options.method = req->tsne_method;
  return as_tsne_run (out->points, &out->kl, in->x, in->n, in->dim, &options, error);
}

static void
set_int_array (JsonBuilder *out, const char *member, const GArray *values)
{
  json_builder_set_member_name (out, member);
  json_builder_begin_array (out);
  for (guint i = 0; i < values->len; i++)
    json_builder_add_int_value (out, g_array_index (values, int, i));
  json_builder_end_array (out);
}

static void
print_json (const ProjectResult *res, const ProjectInput *in, const ProjectRequest *req)
{
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_string (out, "method", req->method == PROJECT_PCA ? "pca" : "tsne");
  cli_json_set_int (out, "n", in->n);
  cli_json_set_int (out, "dim", in->dim);
  json_builder_set_member_name (out, "points");
  json_builder_begin_array (out);
  for (int i = 0; i < in->n; i++)
    {
      json_builder_begin_array (out);
      cli_json_add_number (out, res->points[2 * i]);
      cli_json_add_number (out, res->points[2 * i + 1]);
      json_builder_end_array (out);
    }
  json_builder_end_array (out);
  json_builder_set_member_name (out, "labels");
  json_builder_begin_array (out);
  for (int i = 0; i < in->n; i++)
    if (in->labels != NULL)
      json_builder_add_string_value (out, in->labels->pdata[i]);
    else
      json_builder_add_int_value (out, i);
  json_builder_end_array (out);
  cli_json_set_number (out, "kl", res->kl);
  if (req->method == PROJECT_PCA)
    {
      json_builder_set_member_name (out, "explained_variance_ratio");
      json_builder_begin_array (out);
      cli_json_add_number (out, res->ratio[0]);
      cli_json_add_number (out, res->ratio[1]);
      json_builder_end_array (out);
    }
  else
    {
      cli_json_set_number (out, "perplexity", req->perplexity);
      cli_json_set_int (out, "iterations", req->iterations);
      cli_json_set_int (out, "seed", req->seed);
    }
  if (in->text != NULL)
    {
      set_int_array (out, "text", in->text);
      set_int_array (out, "position", in->position);
    }
  json_builder_end_object (out);
  cli_json_print (out);
}

static void
print_csv (const ProjectResult *res, const ProjectInput *in)
{
  g_autoptr (GString) out
      = g_string_new (in->text != NULL ? "index,label,x,y,text,position\n" : "index,label,x,y\n");
  for (int i = 0; i < in->n; i++)
    {
      g_string_append_printf (out, "%d,", i);
      if (in->labels != NULL)
        cli_csv_append_field (out, in->labels->pdata[i]);
      else
        g_string_append_printf (out, "%d", i);
      g_string_append_printf (out, ",%.9g,%.9g", res->points[2 * i], res->points[2 * i + 1]);
      if (in->text != NULL)
        g_string_append_printf (out, ",%d,%d", g_array_index (in->text, int, i),
                                g_array_index (in->position, int, i));
      g_string_append_c (out, '\n');
    }
  cli_print (out);
}

static int
project_run (const ProjectInput *in, const ProjectRequest *req)
{
  GError *error = NULL;
  g_autofree float *points = g_new0 (float, 2 * (gsize) MAX (in->n, 1)); /* [n][2] */
  ProjectResult res = { points, NAN, { 0, 0 } };
  gboolean ok = req->method == PROJECT_PCA ? project_pca (&res, in, &error)
                                           : project_tsne (&res, in, req, &error);
  if (!ok)
    return cli_fail (error);
  if (req->csv)
    print_csv (&res, in);
  else
    print_json (&res, in, req);
  return CLI_EXIT_OK;
}

/* Checks the option values that need no input; returns CLI_EXIT_OK or the usage exit code. */
static int
check_request (ProjectRequest *req, const char *method, const char *tsne_method, gboolean json)
{
  if (method == NULL)
    return cli_usage_printf ("project", "--method pca|tsne is required");
  if (g_strcmp0 (method, "pca") == 0)
    req->method = PROJECT_PCA;
  else if (g_strcmp0 (method, "tsne") == 0)
    req->method = PROJECT_TSNE;
  else
    return cli_usage_printf ("project", "--method: unknown method '%s' (expected pca or tsne)",
                             method);
  if (tsne_method == NULL || g_strcmp0 (tsne_method, "auto") == 0)
    req->tsne_method = AS_TSNE_METHOD_AUTO;
  else if (g_strcmp0 (tsne_method, "exact") == 0)
    req->tsne_method = AS_TSNE_METHOD_EXACT;
  else if (g_strcmp0 (tsne_method, "barnes-hut") == 0)
    req->tsne_method = AS_TSNE_METHOD_BARNES_HUT;
  else
    return cli_usage_printf (
        "project", "--tsne-method: unknown '%s' (expected auto, exact or barnes-hut)", tsne_method);
  if (!(req->perplexity > 0) || !isfinite (req->perplexity))
    return cli_usage_printf ("project", "--perplexity must be a positive number");
  if (req->iterations < 250)
    return cli_usage_printf ("project", "--iterations must be at least 250 (got %d)",
                             req->iterations);
  if (req->seed < 0)
    return cli_usage_printf ("project", "--seed must be >= 0");
  if (req->csv && json)
    return cli_usage_printf ("project", "give at most one of --csv and --json");
  return CLI_EXIT_OK;
}

int
cli_project (int argc, char **argv)
{
  g_autofree char *input = NULL, *dataset = NULL, *model_spec = NULL, *of = NULL;
  g_autofree char *method = NULL, *tsne_method = NULL;
  g_auto (GStrv) texts = NULL;
  int layer = G_MININT, head = G_MININT;
  gboolean json = FALSE, truncate = FALSE;
  ProjectRequest req = { .perplexity = 30.0, .seed = 0, .iterations = 1000 };
  const GOptionEntry entries[] = {
    { "method", 0, 0, G_OPTION_ARG_STRING, &method, "Projection: pca or tsne", "M" },
    { "input", 'i', 0, G_OPTION_ARG_FILENAME, &input, "HDF5 file holding the matrix", "FILE" },
    { "dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset, "2-D dataset [n][d] in --input", "NAME" },
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    { "text", 't', 0, G_OPTION_ARG_STRING_ARRAY, &texts, "Input text (repeat for several)", "T" },
    { "of", 0, 0, G_OPTION_ARG_STRING, &of,
      "Vector set: embeddings, contexts (of --layer, --head), attn_out or hidden (of --layer)",
      "SET" },
    { "layer", 'l', 0, G_OPTION_ARG_INT, &layer,
      "Layer (0-based; hidden: 0 = embeddings .. L = after the final norm)", "L" },
    { "head", 0, 0, G_OPTION_ARG_INT, &head, "Head (for --of contexts)", "H" },
    { "perplexity", 'p', 0, G_OPTION_ARG_DOUBLE, &req.perplexity,
      "t-SNE perplexity (default 30; at most (n - 1) / 3)", "P" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &req.seed, "t-SNE seed (default 0)", "S" },
    { "iterations", 'n', 0, G_OPTION_ARG_INT, &req.iterations,
      "t-SNE iterations (default 1000, at least 250)", "N" },
    { "tsne-method", 0, 0, G_OPTION_ARG_STRING, &tsne_method,
      "t-SNE algorithm: auto (default), exact or barnes-hut", "A" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (the default)", NULL },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &req.csv, "Print CSV: index,label,x,y", NULL },
    CLI_ANALYSIS_TRUNCATE_ENTRY (truncate),
    { NULL },
  };
  int code;
  if (!cli_parse_options ("project", "",
                          "Project vectors to 2-D with PCA or t-SNE: a matrix from an HDF5 file, "
                          "or the vectors of the tokens of one or more texts.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("project", "unexpected argument '%s'", argv[1]);
  if ((code = check_request (&req, method, tsne_method, json)) != CLI_EXIT_OK)
    return code;
  if ((input != NULL) == (texts != NULL))
    return cli_usage_printf ("project", "give either --input FILE.h5 --dataset NAME or --text T");

  g_auto (ProjectInput) in = { 0 };
  GError *error = NULL;
  if (input != NULL)
    {
      if (dataset == NULL)
        return cli_usage_printf ("project", "--input needs --dataset NAME");
      if (!load_matrix (&in, input, dataset, &error))
        return cli_fail (error);
    }
  else
    {
      AsVectorSource source;
      if ((code = cli_parse_vector_selection ("project", of, &source, &layer, &head))
          != CLI_EXIT_OK)
        return code;
      if (!load_texts (&in, model_spec, texts, source, layer, head, truncate, &error))
        return cli_fail (error);
    }
  return project_run (&in, &req);
}

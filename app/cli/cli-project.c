/* cli-project.c — `attnscope project`: a 2-D projection (PCA, t-SNE or UMAP) of a set of vectors.
 *
 * The vectors come either from a matrix in an HDF5 file (--input FILE.h5 --dataset NAME, a 2-D
 * numeric dataset [n][d]) or from the forward pass of any number of texts (--model M, --text T
 * (repeatable) and/or --lines FILE with one text per non-blank line, --of SET --layer L
 * [--head H]): the tokens of all texts, in order, one point per token. SET is embeddings,
 * token-embeddings (before positions are added: one static vector per vocabulary entry),
 * contexts, attn_out or hidden.
 *
 * Static vs contextual (issue 15): --also SET2 [--also-layer L2] [--also-head H2] projects a
 * second vector set of the SAME points (same order, labels, texts, highlight) with the same
 * method and options, e.g. `--of token-embeddings --also hidden --layer 3`: every occurrence of
 * a token is one point in the first set and one point per context in the second. --also-layer
 * and --also-head default to --layer and --head. --highlight WORD marks the tokens that stand for
 * WORD in each text (as-word-marks.h: case-insensitive whole words; sub-word pieces and tokens
 * with a leading space are marked).
 *
 * Output (JSON, the default, or --json):
 *   {"method":"umap", "n":N, "dim":D, "points":[[x,y],...], "labels":[...], "kl":K,
 *    "distinct": the number of distinct vectors (t-SNE and UMAP project each once and give its
 *    copies the same point: the token embeddings of one token are one point),
 *    method keys: "explained_variance_ratio":[r1,r2] (pca); "perplexity", "iterations", "seed"
 *    (tsne); "neighbors", "min_dist", "metric", "epochs", "seed", "a", "b", "init",
 *    "graph_components" (umap);
 *    for texts: "of", "layer", "head" (null when the set has none), "texts":[...], "text":[...],
 *    "position":[...], "token_ids":[...]; with --highlight: "highlight_word", "occurrences",
 *    "highlight":[false,true,...]; with --also: "also":{"of", "layer", "head", "dim", "points",
 *    "kl", and the method's per-run keys}}
 * labels are the token strings (texts) or the row indices (matrix); "kl" is null for PCA and
 * UMAP. --csv prints "index,label,x,y" (plus "text,position" for texts, "highlight" with
 * --highlight, "also_x,also_y" with --also) instead. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "as-error.h"
#include "as-matrix-h5.h"
#include "as-projection.h"
#include "as-trace-vectors.h"
#include "as-tsne.h"
#include "as-umap.h"
#include "as-word-marks.h"
#include "cli-analysis.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"

typedef struct
{
  AsProjectionMethod method;
  double perplexity;
  gint64 seed;
  int iterations;
  AsTsneMethod tsne_method;
  int neighbors;
  double min_dist;
  AsUmapMetric metric;
  int epochs; /* 0 = auto */
  gboolean csv;
} ProjectRequest;

/* One vector set of the texts' tokens. */
typedef struct
{
  AsVectorSource source;
  int layer, head; /* head -1 when none */
} VectorChoice;

/* The vectors to project and what each point is. */
typedef struct
{
  float *x; /* [n][dim] */
  int n, dim;
  float *also_x; /* [n][also_dim] the --also set of the same points, or NULL */
  int also_dim;
  GPtrArray *labels; /* [n] token strings (texts) or NULL (matrix rows) */
  GArray *text;      /* [n] int: which text each point comes from (texts only) */
  GArray *position;  /* [n] int: the token index within its text (texts only) */
  GArray *ids;       /* [n] int32: the token id (texts only) */
  GArray *highlight; /* [n] gboolean (with --highlight) */
  GPtrArray *texts;  /* the texts, in order (texts only) */
  int occurrences;   /* of the --highlight word, in all texts */
} ProjectInput;

static void
project_input_clear (ProjectInput *in)
{
  g_clear_pointer (&in->x, g_free);
  g_clear_pointer (&in->also_x, g_free);
  g_clear_pointer (&in->labels, g_ptr_array_unref);
  g_clear_pointer (&in->text, g_array_unref);
  g_clear_pointer (&in->position, g_array_unref);
  g_clear_pointer (&in->ids, g_array_unref);
  g_clear_pointer (&in->highlight, g_array_unref);
  g_clear_pointer (&in->texts, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ProjectInput, project_input_clear)

/* ---- the vectors ---- */

static gboolean
load_matrix (ProjectInput *in, const char *path, const char *dataset, GError **error)
{
  in->x = as_matrix_h5_read (path, dataset, &in->n, &in->dim, error);
  return in->x != NULL;
}

/* Collects the chosen vectors of every token of every text, one forward pass per text. */
typedef struct
{
  ProjectInput *in;
  AsModel *model;
  VectorChoice of, also;
  gboolean has_also;
  const char *highlight;
  gboolean truncate;
  GByteArray *data, *also_data;
  int n_texts;
} TextLoader;

static gboolean
append_vectors (GByteArray *data, int *dim, const AsTrace *trace, const VectorChoice *choice,
                GError **error)
{
  int rows = 0;
  const float *v = as_trace_vectors_get (trace, choice->source, choice->layer, choice->head, &rows,
                                         dim, error);
  if (v == NULL)
    return FALSE;
  g_byte_array_append (data, (const guint8 *) v, (guint) ((gsize) rows * *dim * sizeof (float)));
  return TRUE;
}

static gboolean
add_text (TextLoader *loader, const char *text, const char *argument, GError **error)
{
  ProjectInput *in = loader->in;
  g_autoptr (AsTrace) trace
      = cli_analysis_forward (loader->model, text, argument, loader->truncate, error);
  if (trace == NULL)
    return FALSE;
  if (!append_vectors (loader->data, &in->dim, trace, &loader->of, error))
    return FALSE;
  if (loader->has_also
      && !append_vectors (loader->also_data, &in->also_dim, trace, &loader->also, error))
    return FALSE;
  int t = loader->n_texts++;
  g_autofree gboolean *marks = g_new0 (gboolean, trace->n_tokens);
  if (loader->highlight != NULL)
    {
      in->occurrences += as_word_mark_tokens (marks, trace, text, loader->highlight);
      g_array_append_vals (in->highlight, marks, trace->n_tokens);
    }
  for (int i = 0; i < trace->n_tokens; i++)
    {
      g_ptr_array_add (in->labels, g_strdup (trace->tokens[i]));
      g_array_append_val (in->text, t);
      g_array_append_val (in->position, i);
      g_array_append_val (in->ids, trace->ids[i]);
    }
  g_ptr_array_add (in->texts, g_strdup (text));
  in->n += trace->n_tokens;
  return TRUE;
}

static gboolean
add_line (const char *line, gpointer user_data, GError **error)
{
  return add_text (user_data, line, "the text", error);
}

static gboolean
load_texts (TextLoader *loader, const char *model_spec, char **texts, const char *lines,
            GError **error)
{
  ProjectInput *in = loader->in;
  g_autoptr (AsModel) model = cli_load_model (model_spec, error);
  if (model == NULL)
    return FALSE;
  loader->model = model;
  g_autoptr (GByteArray) data = g_byte_array_new ();
  g_autoptr (GByteArray) also_data = g_byte_array_new ();
  loader->data = data;
  loader->also_data = also_data;
  in->labels = g_ptr_array_new_with_free_func (g_free);
  in->text = g_array_new (FALSE, FALSE, sizeof (int));
  in->position = g_array_new (FALSE, FALSE, sizeof (int));
  in->ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  in->highlight = loader->highlight != NULL ? g_array_new (FALSE, FALSE, sizeof (gboolean)) : NULL;
  in->texts = g_ptr_array_new_with_free_func (g_free);
  for (int t = 0; texts != NULL && texts[t] != NULL; t++)
    {
      g_autofree char *argument = g_strdup_printf ("--text #%d", t + 1);
      if (!add_text (loader, texts[t], argument, error))
        return FALSE;
    }
  if (lines != NULL && !cli_foreach_text_line (lines, add_line, loader, error))
    return FALSE;
  in->x = (float *) g_byte_array_free (g_steal_pointer (&data), FALSE);
  if (loader->has_also)
    in->also_x = (float *) g_byte_array_free (g_steal_pointer (&also_data), FALSE);
  return TRUE;
}

/* ---- the projection ---- */

/* X [n][dim] projected as REQ says (as-projection.h: t-SNE and UMAP see every distinct vector
 * once and every copy gets its point), the options taken as given. */
static AsProjection *
project (const float *x, int n, int dim, const ProjectRequest *req, GError **error)
{
  AsProjectionOptions options;
  as_projection_options_init (&options, req->method);
  options.fit_to_points = FALSE;
  options.tsne.perplexity = req->perplexity;
  options.tsne.seed = (guint64) req->seed;
  options.tsne.n_iter = req->iterations;
  options.tsne.method = req->tsne_method;
  options.umap.n_neighbors = req->neighbors;
  options.umap.min_dist = req->min_dist;
  options.umap.metric = req->metric;
  options.umap.n_epochs = req->epochs;
  options.umap.seed = (guint64) req->seed;
  return as_projection_run (x, n, dim, &options, error);
}

/* ---- output ---- */

static void
set_int_array (JsonBuilder *out, const char *member, const GArray *values)
{
  json_builder_set_member_name (out, member);
  json_builder_begin_array (out);
  for (guint i = 0; i < values->len; i++)
    json_builder_add_int_value (out, g_array_index (values, int, i));
  json_builder_end_array (out);
}

/* "points", "kl", "distinct" and what this run of the method reports. */
static void
set_run (JsonBuilder *out, const AsProjection *res, int n, const ProjectRequest *req)
{
  json_builder_set_member_name (out, "points");
  json_builder_begin_array (out);
  for (int i = 0; i < n; i++)
    {
      json_builder_begin_array (out);
      cli_json_add_number (out, res->xy[2 * i]);
      cli_json_add_number (out, res->xy[2 * i + 1]);
      json_builder_end_array (out);
    }
  json_builder_end_array (out);
  cli_json_set_number (out, "kl", res->kl);
  cli_json_set_int (out, "distinct", res->distinct);
  if (req->method == AS_PROJECTION_PCA)
    {
      json_builder_set_member_name (out, "explained_variance_ratio");
      json_builder_begin_array (out);
      cli_json_add_number (out, res->ratio[0]);
      cli_json_add_number (out, res->ratio[1]);
      json_builder_end_array (out);
    }
  else if (req->method == AS_PROJECTION_UMAP)
    {
      cli_json_set_string (out, "init",
                           res->umap.init == AS_UMAP_INIT_SPECTRAL ? "spectral" : "random");
      cli_json_set_int (out, "graph_components", res->umap.n_graph_components);
    }
}

static void
set_method_options (JsonBuilder *out, const ProjectRequest *req, const AsProjection *res)
{
  if (req->method == AS_PROJECTION_TSNE)
    {
      cli_json_set_number (out, "perplexity", req->perplexity);
      cli_json_set_int (out, "iterations", req->iterations);
      cli_json_set_int (out, "seed", req->seed);
    }
  else if (req->method == AS_PROJECTION_UMAP)
    {
      cli_json_set_int (out, "neighbors", req->neighbors);
      cli_json_set_number (out, "min_dist", req->min_dist);
      cli_json_set_string (out, "metric",
                           req->metric == AS_UMAP_METRIC_COSINE ? "cosine" : "euclidean");
      cli_json_set_int (out, "epochs", res->umap.n_epochs);
      cli_json_set_int (out, "seed", req->seed);
      cli_json_set_number (out, "a", res->umap.a);
      cli_json_set_number (out, "b", res->umap.b);
    }
}

/* "of", "layer", "head" (null when the set has none) */
static void
set_choice (JsonBuilder *out, const VectorChoice *choice)
{
  cli_json_set_string (out, "of", as_vector_source_to_string (choice->source));
  json_builder_set_member_name (out, "layer");
  if (as_vector_source_needs_layer (choice->source))
    json_builder_add_int_value (out, choice->layer);
  else
    json_builder_add_null_value (out);
  json_builder_set_member_name (out, "head");
  if (choice->head >= 0)
    json_builder_add_int_value (out, choice->head);
  else
    json_builder_add_null_value (out);
}

static void
set_texts (JsonBuilder *out, const ProjectInput *in, const char *highlight)
{
  json_builder_set_member_name (out, "texts");
  json_builder_begin_array (out);
  for (guint t = 0; t < in->texts->len; t++)
    json_builder_add_string_value (out, in->texts->pdata[t]);
  json_builder_end_array (out);
  set_int_array (out, "text", in->text);
  set_int_array (out, "position", in->position);
  set_int_array (out, "token_ids", in->ids);
  if (highlight == NULL)
    return;
  cli_json_set_string (out, "highlight_word", highlight);
  cli_json_set_int (out, "occurrences", in->occurrences);
  json_builder_set_member_name (out, "highlight");
  json_builder_begin_array (out);
  for (guint i = 0; i < in->highlight->len; i++)
    json_builder_add_boolean_value (out, g_array_index (in->highlight, gboolean, i));
  json_builder_end_array (out);
}

/* What the points are, for the output: the vector sets and the highlighted word. */
typedef struct
{
  const VectorChoice *of, *also; /* NULL for a matrix / without --also */
  const char *highlight;
} ProjectSelection;

static void
print_json (const AsProjection *res, const AsProjection *also, const ProjectInput *in,
            const ProjectRequest *req, const ProjectSelection *what)
{
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_string (out, "method", as_projection_method_to_string (req->method));
  cli_json_set_int (out, "n", in->n);
  cli_json_set_int (out, "dim", in->dim);
  set_run (out, res, in->n, req);
  json_builder_set_member_name (out, "labels");
  json_builder_begin_array (out);
  for (int i = 0; i < in->n; i++)
    if (in->labels != NULL)
      json_builder_add_string_value (out, in->labels->pdata[i]);
    else
      json_builder_add_int_value (out, i);
  json_builder_end_array (out);
  set_method_options (out, req, res);
  if (what->of != NULL)
    {
      set_choice (out, what->of);
      set_texts (out, in, what->highlight);
    }
  if (also != NULL)
    {
      json_builder_set_member_name (out, "also");
      json_builder_begin_object (out);
      set_choice (out, what->also);
      cli_json_set_int (out, "dim", in->also_dim);
      set_run (out, also, in->n, req);
      json_builder_end_object (out);
    }
  json_builder_end_object (out);

  cli_json_print (out);
}

static void
print_csv (const AsProjection *res, const AsProjection *also, const ProjectInput *in)
{
  g_autoptr (GString) out = g_string_new ("index,label,x,y");
  if (in->text != NULL)
    g_string_append (out, ",text,position");
  if (in->highlight != NULL)
    g_string_append (out, ",highlight");
  if (also != NULL)
    g_string_append (out, ",also_x,also_y");
  g_string_append_c (out, '\n');
  for (int i = 0; i < in->n; i++)
    {
      g_string_append_printf (out, "%d,", i);
      if (in->labels != NULL)
        cli_csv_append_field (out, in->labels->pdata[i]);
      else
        g_string_append_printf (out, "%d", i);
      g_string_append_printf (out, ",%.9g,%.9g", res->xy[2 * i], res->xy[2 * i + 1]);
      if (in->text != NULL)
        g_string_append_printf (out, ",%d,%d", g_array_index (in->text, int, i),
                                g_array_index (in->position, int, i));
      if (in->highlight != NULL)
        g_string_append_printf (out, ",%d", g_array_index (in->highlight, gboolean, i) ? 1 : 0);
      if (also != NULL)
        g_string_append_printf (out, ",%.9g,%.9g", also->xy[2 * i], also->xy[2 * i + 1]);
      g_string_append_c (out, '\n');
    }
  cli_print (out);
}

static int
project_run (const ProjectInput *in, const ProjectRequest *req, const ProjectSelection *what)
{
  GError *error = NULL;
  g_autoptr (AsProjection) res = project (in->x, in->n, in->dim, req, &error);
  if (res == NULL)
    return cli_fail (error);
  g_autoptr (AsProjection) also = NULL;
  if (in->also_x != NULL && (also = project (in->also_x, in->n, in->also_dim, req, &error)) == NULL)
    {
      g_prefix_error (&error, "--also %s: ", as_vector_source_to_string (what->also->source));
      return cli_fail (error);
    }
  if (req->csv)
    print_csv (res, also, in);
  else
    print_json (res, also, in, req, what);
  return CLI_EXIT_OK;
}

/* ---- options ---- */

/* Checks the option values that need no input; returns CLI_EXIT_OK or the usage exit code. */
static int
check_request (ProjectRequest *req, const char *method, const char *tsne_method, const char *metric,
               gboolean json)
{
  if (method == NULL)
    return cli_usage_printf ("project", "--method pca|tsne|umap is required");
  if (!as_projection_method_from_string (method, &req->method))
    return cli_usage_printf ("project",
                             "--method: unknown method '%s' (expected pca, tsne or umap)", method);
  if (tsne_method == NULL || g_strcmp0 (tsne_method, "auto") == 0)
    req->tsne_method = AS_TSNE_METHOD_AUTO;
  else if (g_strcmp0 (tsne_method, "exact") == 0)
    req->tsne_method = AS_TSNE_METHOD_EXACT;
  else if (g_strcmp0 (tsne_method, "barnes-hut") == 0)
    req->tsne_method = AS_TSNE_METHOD_BARNES_HUT;
  else
    return cli_usage_printf (
        "project", "--tsne-method: unknown '%s' (expected auto, exact or barnes-hut)", tsne_method);
  if (metric == NULL || g_strcmp0 (metric, "euclidean") == 0)
    req->metric = AS_UMAP_METRIC_EUCLIDEAN;
  else if (g_strcmp0 (metric, "cosine") == 0)
    req->metric = AS_UMAP_METRIC_COSINE;
  else
    return cli_usage_printf (
        "project", "--metric: unknown metric '%s' (expected euclidean or cosine)", metric);
  if (!(req->perplexity > 0) || !isfinite (req->perplexity))
    return cli_usage_printf ("project", "--perplexity must be a positive number");
  if (req->iterations < 250)
    return cli_usage_printf ("project", "--iterations must be at least 250 (got %d)",
                             req->iterations);
  if (req->neighbors < AS_UMAP_NEIGHBORS_MIN || req->neighbors > AS_UMAP_NEIGHBORS_MAX)
    return cli_usage_printf ("project", "--neighbors must be in %d..%d (got %d)",
                             AS_UMAP_NEIGHBORS_MIN, AS_UMAP_NEIGHBORS_MAX, req->neighbors);
  if (!(req->min_dist >= 0 && req->min_dist <= 1))
    return cli_usage_printf ("project", "--min-dist must be in [0, 1] (got %g)", req->min_dist);
  if (req->epochs == G_MININT)
    req->epochs = 0;
  else if (req->epochs < 1 || req->epochs > AS_UMAP_EPOCHS_MAX)
    return cli_usage_printf ("project", "--epochs must be in 1..%d (got %d)", AS_UMAP_EPOCHS_MAX,
                             req->epochs);
  if (req->seed < 0)
    return cli_usage_printf ("project", "--seed must be >= 0");
  if (req->csv && json)
    return cli_usage_printf ("project", "give at most one of --csv and --json");
  return CLI_EXIT_OK;
}

typedef struct
{
  char *of, *also, *highlight;
  int layer, head, also_layer, also_head;
} TextOptions;

/* Parses --of/--also with their layers and heads into LOADER; returns CLI_EXIT_OK or the usage
 * exit code. */
static int
check_text_options (TextLoader *loader, TextOptions *t)
{
  int code;
  int also_layer = t->also_layer != G_MININT ? t->also_layer : t->layer;
  int also_head = t->also_head != G_MININT ? t->also_head : t->head;
  if ((code
       = cli_parse_vector_selection ("project", t->of, &loader->of.source, &t->layer, &t->head))
      != CLI_EXIT_OK)
    return code;
  loader->of.layer = t->layer;
  loader->of.head = t->head;
  loader->has_also = t->also != NULL;
  if (t->also != NULL)
    {
      if ((code = cli_parse_vector_selection_named ("project", "--also", "--also-layer",
                                                    "--also-head", t->also, &loader->also.source,
                                                    &also_layer, &also_head))
          != CLI_EXIT_OK)
        return code;
      loader->also.layer = also_layer;
      loader->also.head = also_head;
    }
  GError *error = NULL;
  if (t->highlight != NULL && !as_word_check (t->highlight, &error))
    {
      code = cli_usage_printf ("project", "--highlight: %s", error->message);
      g_error_free (error);
      return code;
    }
  loader->highlight = t->highlight;
  return CLI_EXIT_OK;
}

static void
text_options_clear (TextOptions *t)
{
  g_clear_pointer (&t->of, g_free);
  g_clear_pointer (&t->also, g_free);
  g_clear_pointer (&t->highlight, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TextOptions, text_options_clear)

/* Where the vectors come from: exactly one of a matrix and texts. */
static int
check_sources (const char *input, const char *dataset, gboolean from_texts, const TextOptions *t)
{
  if ((input != NULL) == from_texts)
    return cli_usage_printf (
        "project", "give either --input FILE.h5 --dataset NAME or --text T / --lines FILE");
  if (input != NULL && dataset == NULL)
    return cli_usage_printf ("project", "--input needs --dataset NAME");
  if (input != NULL && (t->also != NULL || t->highlight != NULL))
    return cli_usage_printf ("project", "--also and --highlight need texts (--text or --lines)");
  return CLI_EXIT_OK;
}

int
cli_project (int argc, char **argv)
{
  g_autofree char *input = NULL, *dataset = NULL, *model_spec = NULL, *lines = NULL;
  g_autofree char *method = NULL, *tsne_method = NULL, *metric = NULL;
  g_auto (GStrv) texts = NULL;
  g_auto (TextOptions) t
      = { .layer = G_MININT, .head = G_MININT, .also_layer = G_MININT, .also_head = G_MININT };
  gboolean json = FALSE, truncate = FALSE;
  ProjectRequest req = {
    .perplexity = 30.0, .iterations = 1000, .neighbors = 15, .min_dist = 0.1, .epochs = G_MININT
  };
  const GOptionEntry entries[] = {
    { "method", 0, 0, G_OPTION_ARG_STRING, &method, "Projection: pca, tsne or umap", "M" },
    { "input", 'i', 0, G_OPTION_ARG_FILENAME, &input, "HDF5 file holding the matrix", "FILE" },
    { "dataset", 'd', 0, G_OPTION_ARG_STRING, &dataset, "2-D dataset [n][d] in --input", "NAME" },
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    { "text", 't', 0, G_OPTION_ARG_STRING_ARRAY, &texts, "Input text (repeat for several)", "T" },
    { "lines", 0, 0, G_OPTION_ARG_FILENAME, &lines, "Texts, one per non-blank line", "FILE" },
    { "of", 0, 0, G_OPTION_ARG_STRING, &t.of,
      "Vector set: embeddings, token-embeddings, contexts (of --layer, --head), attn_out or "
      "hidden (of --layer)",
      "SET" },
    { "layer", 'l', 0, G_OPTION_ARG_INT, &t.layer,
      "Layer (0-based; hidden: 0 = embeddings .. L = after the final norm)", "L" },
    { "head", 0, 0, G_OPTION_ARG_INT, &t.head, "Head (for --of contexts)", "H" },
    { "also", 0, 0, G_OPTION_ARG_STRING, &t.also,
      "A second vector set of the same points, projected beside the first", "SET" },
    { "also-layer", 0, 0, G_OPTION_ARG_INT, &t.also_layer, "Layer of --also (default --layer)",
      "L" },
    { "also-head", 0, 0, G_OPTION_ARG_INT, &t.also_head, "Head of --also (default --head)", "H" },
    { "highlight", 0, 0, G_OPTION_ARG_STRING, &t.highlight,
      "Mark the tokens of every occurrence of WORD", "WORD" },
    { "perplexity", 'p', 0, G_OPTION_ARG_DOUBLE, &req.perplexity,
      "t-SNE perplexity (default 30; at most (n - 1) / 3)", "P" },
    { "iterations", 'n', 0, G_OPTION_ARG_INT, &req.iterations,
      "t-SNE iterations (default 1000, at least 250)", "N" },
    { "tsne-method", 0, 0, G_OPTION_ARG_STRING, &tsne_method,
      "t-SNE algorithm: auto (default), exact or barnes-hut", "A" },
    { "neighbors", 0, 0, G_OPTION_ARG_INT, &req.neighbors,
      "UMAP neighbours, the point itself included (default 15, 2..200, at most n)", "K" },
    { "min-dist", 0, 0, G_OPTION_ARG_DOUBLE, &req.min_dist, "UMAP min_dist (default 0.1, 0..1)",
      "D" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &metric, "UMAP metric: euclidean (default) or cosine",
      "M" },
    { "epochs", 0, 0, G_OPTION_ARG_INT, &req.epochs,
      "UMAP epochs (default 500 up to 10000 points, 200 above)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &req.seed, "t-SNE and UMAP seed (default 0)", "S" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (the default)", NULL },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &req.csv, "Print CSV: index,label,x,y", NULL },
    CLI_ANALYSIS_TRUNCATE_ENTRY (truncate),
    { NULL },
  };
  int code;
  if (!cli_parse_options ("project", "",
                          "Project vectors to 2-D with PCA, t-SNE or UMAP: a matrix from an HDF5 "
                          "file, or the vectors of the tokens of any number of texts.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("project", "unexpected argument '%s'", argv[1]);
  gboolean from_texts = texts != NULL || lines != NULL;
  g_auto (ProjectInput) in = { 0 };
  TextLoader loader = { .in = &in, .truncate = truncate };
  if ((code = check_request (&req, method, tsne_method, metric, json)) != CLI_EXIT_OK
      || (code = check_sources (input, dataset, from_texts, &t)) != CLI_EXIT_OK
      || (from_texts && (code = check_text_options (&loader, &t)) != CLI_EXIT_OK))
    return code;

  GError *error = NULL;
  gboolean ok = input != NULL ? load_matrix (&in, input, dataset, &error)
                              : load_texts (&loader, model_spec, texts, lines, &error);
  if (!ok)
    return cli_fail (error);
  ProjectSelection what
      = { from_texts ? &loader.of : NULL, loader.has_also ? &loader.also : NULL, t.highlight };
  return project_run (&in, &req, &what);
}

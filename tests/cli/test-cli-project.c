/* test-cli-project.c — `attnscope project` as a user runs it ($ATTNSCOPE_BIN).
 *
 * On matrices written to HDF5 by the test: PCA of a hand-checkable matrix (coordinates, ratios,
 * labels), t-SNE equal bit for bit to the in-process as_tsne_run() with the same options and
 * deterministic across runs, the CSV form. On texts through the committed tiny GPT-2 fixture:
 * the points are the PCA of the chosen vectors of all tokens of all texts (recomputed in-process
 * with the core), labels are the tokens, text/position say where each point comes from. And the
 * error contract: exit 1 with one "attnscope: error:" line naming the file, dataset or value
 * (missing file or dataset, wrong rank, empty matrix, NaN, too few points for the perplexity,
 * bad layer), exit 2 for usage errors, nothing on stdout. */
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-matrix-h5.h"
#include "as-model.h"
#include "as-pca.h"
#include "as-trace-vectors.h"
#include "as-tsne.h"
#include "as-umap.h"
#include "check-close.h"
#include "cli-support.h"

/* Runs `attnscope project` with the NULL-terminated arguments. */
static Run
run_project (const char *first, ...)
{
  const char *prefix[] = { "project", NULL };
  va_list ap;
  va_start (ap, first);
  Run r = run_cli_valist (prefix, first, ap);
  va_end (ap);
  return r;
}

static JsonObject *
parse_object (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

/* The "points" member as floats [n][2]. */
static float *
points_of (JsonObject *o, int n)
{
  JsonArray *points = json_object_get_array_member (o, "points");
  g_assert_cmpint (json_array_get_length (points), ==, n);
  float *xy = g_new (float, 2 * n);
  for (int i = 0; i < n; i++)
    {
      JsonArray *p = json_array_get_array_element (points, i);
      g_assert_cmpint (json_array_get_length (p), ==, 2);
      xy[2 * i] = (float) json_array_get_double_element (p, 0);
      xy[2 * i + 1] = (float) json_array_get_double_element (p, 1);
    }
  return xy;
}

static char *
write_matrix (const char *name, const float *x, int n, int d)
{
  char *path = g_build_filename (test_tmpdir (), name, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_matrix_h5_write (path, "x", x, n, d, &error));
  g_assert_no_error (error);
  return path;
}

static float *
mixture (int n, int d)
{
  GRand *rand = g_rand_new_with_seed (17);
  float *x = g_new (float, n *d);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < d; j++)
      x[i * d + j] = (float) ((i % 3) * 4.0 * (j == i % 3) + g_rand_double_range (rand, -1, 1));
  g_rand_free (rand);
  return x;
}

static void
test_matrix_pca (void)
{
  /* t·(−0.6, 0.8, 0) + s·(0, 0, 1): coordinates (t, s), ratios 5/6 and 1/6 (see test-pca.c) */
  const float x[12] = { -1.8f, 2.4f, 1, 1.8f, -2.4f, 1, -0.6f, 0.8f, -1, 0.6f, -0.8f, -1 };
  const float expected[8] = { 3, 1, -3, 1, 1, -1, -1, -1 };
  g_autofree char *path = write_matrix ("hand.h5", x, 4, 3);
  g_auto (Run) r
      = run_project ("--method", "pca", "--input", path, "--dataset", "x", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonObject) o = parse_object (r.out);
  g_assert_cmpstr (json_object_get_string_member (o, "method"), ==, "pca");
  g_assert_cmpint (json_object_get_int_member (o, "n"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (o, "dim"), ==, 3);
  g_autofree float *xy = points_of (o, 4);
  check_close ("PCA points", xy, expected, 8, 1e-5, 0);
  JsonArray *ratio = json_object_get_array_member (o, "explained_variance_ratio");
  g_assert_cmpfloat_with_epsilon (json_array_get_double_element (ratio, 0), 5.0 / 6, 1e-6);
  g_assert_cmpfloat_with_epsilon (json_array_get_double_element (ratio, 1), 1.0 / 6, 1e-6);
  g_assert_true (json_node_is_null (json_object_get_member (o, "kl")));
  JsonArray *labels = json_object_get_array_member (o, "labels");
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (json_array_get_int_element (labels, i), ==, i);
}

static void
test_matrix_tsne (void)
{
  const int n = 120, d = 10;
  g_autofree float *x = mixture (n, d);
  g_autofree char *path = write_matrix ("mixture.h5", x, n, d);
  g_auto (Run) a = run_project ("--method", "tsne", "--input", path, "--dataset", "x",
                                "--perplexity", "10", "--seed", "3", "--iterations", "300", NULL);
  g_auto (Run) b = run_project ("--method", "tsne", "--input", path, "--dataset", "x",
                                "--perplexity", "10", "--seed", "3", "--iterations", "300", NULL);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpstr (a.out, ==, b.out);
  g_autoptr (JsonObject) o = parse_object (a.out);
  g_autofree float *xy = points_of (o, n);

  AsTsneOptions options;
  as_tsne_options_init (&options);
  options.perplexity = 10;
  options.seed = 3;
  options.n_iter = 300;
  g_autofree float *y = g_new (float, 2 * n);
  double kl = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (as_tsne_run (y, &kl, x, n, d, &options, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (xy, 2 * n * sizeof (float), y, 2 * n * sizeof (float));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "kl"), kl, 1e-8 * kl);
  g_assert_cmpfloat (json_object_get_double_member (o, "perplexity"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (o, "iterations"), ==, 300);
  g_assert_cmpint (json_object_get_int_member (o, "seed"), ==, 3);

  g_auto (Run) c
      = run_project ("--method", "tsne", "--input", path, "--dataset", "x", "--perplexity", "10",
                     "--seed", "3", "--iterations", "300", "--csv", NULL);
  g_assert_cmpint (c.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (c.out, "\n", -1);
  g_assert_cmpint (g_strv_length (lines), ==, n + 2); /* header, n rows, "" after the last \n */
  g_assert_cmpstr (lines[0], ==, "index,label,x,y");
  g_autofree char *row5 = g_strdup_printf ("5,5,%.9g,%.9g", y[10], y[11]);
  g_assert_cmpstr (lines[6], ==, row5);
}

static void
test_texts (void)
{
  g_autofree char *model_path = test_source_path ("tests/fixtures/tiny-gpt2");
  const char *texts[] = { "the cat sat on the mat", "a dog ran" };
  g_auto (Run) r = run_project ("--model", model_path, "--text", texts[0], "--text", texts[1],
                                "--of", "hidden", "--layer", "1", "--method", "pca", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonObject) o = parse_object (r.out);

  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (model_path, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) x = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr (GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) which = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GArray) pos = g_array_new (FALSE, FALSE, sizeof (int));
  int dim = 0;
  for (int t = 0; t < 2; t++)
    {
      g_autoptr (AsTrace) trace = as_forward_text (model, texts[t], FALSE, NULL, &error);
      g_assert_no_error (error);
      int rows = 0;
      const float *v = as_trace_vectors_get (trace, AS_VECTORS_HIDDEN, 1, 0, &rows, &dim, &error);
      g_assert_no_error (error);
      g_array_append_vals (x, v, rows * dim);
      for (int i = 0; i < rows; i++)
        {
          g_ptr_array_add (tokens, g_strdup (trace->tokens[i]));
          g_array_append_val (which, t);
          g_array_append_val (pos, i);
        }
    }
  int n = (int) tokens->len;
  g_assert_cmpint (json_object_get_int_member (o, "n"), ==, n);
  g_assert_cmpint (json_object_get_int_member (o, "dim"), ==, dim);
  g_autoptr (AsPca) pca = as_pca_fit ((float *) x->data, n, dim, 2, &error);
  g_assert_no_error (error);
  g_autofree float *expected = g_new (float, 2 * n);
  for (int k = 0; k < 2 * n; k++)
    expected[k] = (float) pca->coords[k];
  g_autofree float *xy = points_of (o, n);
  check_close ("PCA of the hidden states of both texts", xy, expected, 2 * n, 1e-6, 1e-6);
  JsonArray *labels = json_object_get_array_member (o, "labels");
  JsonArray *text = json_object_get_array_member (o, "text");
  JsonArray *position = json_object_get_array_member (o, "position");
  for (int i = 0; i < n; i++)
    {
      g_assert_cmpstr (json_array_get_string_element (labels, i), ==, tokens->pdata[i]);
      g_assert_cmpint (json_array_get_int_element (text, i), ==, g_array_index (which, int, i));
      g_assert_cmpint (json_array_get_int_element (position, i), ==, g_array_index (pos, int, i));
    }
  g_assert_cmpint (json_array_get_int_element (text, n - 1), ==, 1);
  g_assert_cmpint (json_array_get_int_element (position, n - 1), >, 0);

  /* t-SNE of the contexts of one head: every point finite, a positive KL */
  g_auto (Run) t = run_project ("--model", model_path, "--text", texts[0], "--text", texts[1],
                                "--of", "contexts", "--layer", "0", "--head", "1", "--method",
                                "tsne", "--perplexity", "2", NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_autoptr (JsonObject) ot = parse_object (t.out);
  g_autofree float *txy = points_of (ot, n);
  for (int k = 0; k < 2 * n; k++)
    g_assert_true (isfinite (txy[k]));
  g_assert_cmpfloat (json_object_get_double_member (ot, "kl"), >, 0.0);
}

static void
test_matrix_umap (void)
{
  const int n = 150, d = 10;
  g_autofree float *x = mixture (n, d);
  g_autofree char *path = write_matrix ("mixture-umap.h5", x, n, d);
  const char *metrics[] = { "euclidean", "cosine" };
  for (int m = 0; m < 2; m++)
    {
      g_auto (Run) a = run_project ("--method", "umap", "--input", path, "--dataset", "x",
                                    "--neighbors", "10", "--min-dist", "0.25", "--metric",
                                    metrics[m], "--seed", "4", "--epochs", "120", NULL);
      g_auto (Run) b = run_project ("--method", "umap", "--input", path, "--dataset", "x",
                                    "--neighbors", "10", "--min-dist", "0.25", "--metric",
                                    metrics[m], "--seed", "4", "--epochs", "120", NULL);
      g_assert_cmpint (a.status, ==, 0);
      g_assert_cmpstr (a.out, ==, b.out);
      g_autoptr (JsonObject) o = parse_object (a.out);
      g_autofree float *xy = points_of (o, n);

      AsUmapOptions options;
      as_umap_options_init (&options);
      options.n_neighbors = 10;
      options.min_dist = 0.25;
      options.metric = m == 0 ? AS_UMAP_METRIC_EUCLIDEAN : AS_UMAP_METRIC_COSINE;
      options.seed = 4;
      options.n_epochs = 120;
      g_autofree float *y = g_new (float, 2 * n);
      AsUmapInfo info;
      g_autoptr (GError) error = NULL;
      g_assert_true (as_umap_run (y, &info, x, n, d, &options, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (xy, 2 * n * sizeof (float), y, 2 * n * sizeof (float));
      g_assert_cmpstr (json_object_get_string_member (o, "method"), ==, "umap");
      g_assert_cmpint (json_object_get_int_member (o, "neighbors"), ==, 10);
      g_assert_cmpfloat (json_object_get_double_member (o, "min_dist"), ==, 0.25);
      g_assert_cmpstr (json_object_get_string_member (o, "metric"), ==, metrics[m]);
      g_assert_cmpint (json_object_get_int_member (o, "epochs"), ==, 120);
      g_assert_cmpint (json_object_get_int_member (o, "seed"), ==, 4);
      g_assert_cmpint (json_object_get_int_member (o, "distinct"), ==, n);
      g_assert_cmpint (json_object_get_int_member (o, "graph_components"), ==,
                       info.n_graph_components);
      g_assert_cmpstr (json_object_get_string_member (o, "init"), ==, "spectral");
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "a"), info.a, 1e-8);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "b"), info.b, 1e-8);
      g_assert_true (json_node_is_null (json_object_get_member (o, "kl")));
    }
}

/* The lecture's "spring" sentences (the first one as the lecture writes it, whose "Spring" is
 * split into "Sp" + "ring", then three with the token " spring"), one per line with a blank line
 * in between. */
static const char *const spring_lines[] = {
  "Spring is my favorite season",
  "My favorite season is spring",
  "The water of the spring is very clean",
  "Last night I broke one spring in my bed",
};

static char *
write_spring_lines (void)
{
  char *path = g_build_filename (test_tmpdir (), "spring.txt", NULL);
  g_autofree char *contents = g_strdup_printf ("%s\n%s\n\n%s\r\n%s", spring_lines[0],
                                               spring_lines[1], spring_lines[2], spring_lines[3]);
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_set_contents (path, contents, -1, &error));
  g_assert_no_error (error);
  return path;
}

/* The vectors of SOURCE/LAYER of all spring texts, concatenated: [*n][*dim]. */
static float *
spring_vectors (AsModel *model, AsVectorSource source, int layer, int *n, int *dim)
{
  g_autoptr (GArray) x = g_array_new (FALSE, FALSE, sizeof (float));
  *n = 0;
  for (gsize t = 0; t < G_N_ELEMENTS (spring_lines); t++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AsTrace) trace = as_forward_text (model, spring_lines[t], FALSE, NULL, &error);
      g_assert_no_error (error);
      int rows = 0;
      const float *v = as_trace_vectors_get (trace, source, layer, -1, &rows, dim, &error);
      g_assert_no_error (error);
      g_array_append_vals (x, v, rows * *dim);
      *n += rows;
    }
  return (float *) g_array_free (g_steal_pointer (&x), FALSE);
}

static float *
pca_points (const float *x, int n, int d)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsPca) pca = as_pca_fit (x, n, d, 2, &error);
  g_assert_no_error (error);
  float *xy = g_new (float, 2 * n);
  for (int k = 0; k < 2 * n; k++)
    xy[k] = (float) pca->coords[k];
  return xy;
}

static void
test_static_vs_contextual (void)
{
  g_autofree char *lines = write_spring_lines ();
  g_auto (Run) r = run_project ("--model", "attnscope-mini", "--lines", lines, "--of",
                                "token-embeddings", "--also", "hidden", "--layer", "3",
                                "--highlight", "spring", "--method", "pca", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonObject) o = parse_object (r.out);

  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  int32_t spring = as_tokenizer_lookup (as_model_get_tokenizer (model), "Ġspring");
  g_assert_cmpint (spring, >=, 0);
  int n = 0, dim = 0, n2 = 0, dim2 = 0;
  g_autofree float *static_x = spring_vectors (model, AS_VECTORS_TOKEN_EMBEDDINGS, 0, &n, &dim);
  g_autofree float *context_x = spring_vectors (model, AS_VECTORS_HIDDEN, 3, &n2, &dim2);
  g_assert_cmpint (n, ==, n2);
  g_assert_cmpint (json_object_get_int_member (o, "n"), ==, n);
  g_assert_cmpstr (json_object_get_string_member (o, "of"), ==, "token-embeddings");
  g_assert_true (json_node_is_null (json_object_get_member (o, "layer")));
  JsonArray *texts = json_object_get_array_member (o, "texts");
  g_assert_cmpint (json_array_get_length (texts), ==, 4); /* the blank line is skipped */
  for (int t = 0; t < 4; t++)
    g_assert_cmpstr (json_array_get_string_element (texts, t), ==, spring_lines[t]);

  /* the highlight: "Sp" + "ring" of the first text, then " spring" in the other three */
  JsonArray *ids = json_object_get_array_member (o, "token_ids");
  JsonArray *labels = json_object_get_array_member (o, "labels");
  JsonArray *text = json_object_get_array_member (o, "text");
  JsonArray *marks = json_object_get_array_member (o, "highlight");
  g_assert_cmpstr (json_object_get_string_member (o, "highlight_word"), ==, "spring");
  g_assert_cmpint (json_object_get_int_member (o, "occurrences"), ==, 4);
  int spring_points[3], n_spring = 0, n_marked = 0;
  for (int i = 0; i < n; i++)
    {
      gboolean mark = json_array_get_boolean_element (marks, i);
      int32_t id = (int32_t) json_array_get_int_element (ids, i);
      const char *label = json_array_get_string_element (labels, i);
      gboolean first_text = json_array_get_int_element (text, i) == 0;
      gboolean expected
          = id == spring
            || (first_text && (strcmp (label, "Sp") == 0 || strcmp (label, "ring") == 0));
      g_assert_cmpint (mark, ==, expected);
      n_marked += mark;
      if (id == spring)
        spring_points[n_spring++] = i;
    }
  g_assert_cmpint (n_spring, ==, 3);
  g_assert_cmpint (n_marked, ==, 5);

  /* the points: PCA of the token embeddings (one point for the three " spring") beside PCA of
   * the hidden states after block 3 (three points) */
  g_autofree float *xy = points_of (o, n);
  g_autofree float *expected = pca_points (static_x, n, dim);
  check_close ("PCA of the token embeddings", xy, expected, 2 * n, 1e-5, 1e-5);
  JsonObject *also = json_object_get_object_member (o, "also");
  g_assert_cmpstr (json_object_get_string_member (also, "of"), ==, "hidden");
  g_assert_cmpint (json_object_get_int_member (also, "layer"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (also, "dim"), ==, dim2);
  g_autofree float *also_xy = points_of (also, n);
  g_autofree float *also_expected = pca_points (context_x, n, dim2);
  check_close ("PCA of the hidden states", also_xy, also_expected, 2 * n, 1e-5, 1e-5);
  for (int a = 0; a < 3; a++)
    {
      int i = spring_points[a], j = spring_points[(a + 1) % 3];
      g_assert_cmpmem (xy + 2 * i, 2 * sizeof (float), xy + 2 * j, 2 * sizeof (float));
      g_assert_cmpfloat (
          hypot (also_xy[2 * i] - also_xy[2 * j], also_xy[2 * i + 1] - also_xy[2 * j + 1]), >, 0.5);
    }

  /* UMAP: identical vectors are projected once, so the static " spring" is still one point */
  g_auto (Run) u
      = run_project ("--model", "attnscope-mini", "--lines", lines, "--of", "token-embeddings",
                     "--also", "hidden", "--layer", "3", "--highlight", "spring", "--method",
                     "umap", "--neighbors", "5", "--epochs", "100", NULL);
  g_assert_cmpint (u.status, ==, 0);
  g_autoptr (JsonObject) ou = parse_object (u.out);
  g_autofree float *uxy = points_of (ou, n);
  JsonObject *ualso = json_object_get_object_member (ou, "also");
  g_autofree float *ualso_xy = points_of (ualso, n);
  g_assert_cmpint (json_object_get_int_member (ou, "distinct"), <, n);
  g_assert_cmpint (json_object_get_int_member (ualso, "distinct"), ==, n);
  for (int a = 0; a < 3; a++)
    {
      int i = spring_points[a], j = spring_points[(a + 1) % 3];
      g_assert_cmpmem (uxy + 2 * i, 2 * sizeof (float), uxy + 2 * j, 2 * sizeof (float));
      g_assert_true (memcmp (ualso_xy + 2 * i, ualso_xy + 2 * j, 2 * sizeof (float)) != 0);
    }

  /* CSV: the same points with the highlight and the second set */
  g_auto (Run) c = run_project ("--model", "attnscope-mini", "--lines", lines, "--of",
                                "token-embeddings", "--also", "hidden", "--layer", "3",
                                "--highlight", "spring", "--method", "pca", "--csv", NULL);
  g_assert_cmpint (c.status, ==, 0);
  g_auto (GStrv) rows = g_strsplit (c.out, "\n", -1);
  g_assert_cmpstr (rows[0], ==, "index,label,x,y,text,position,highlight,also_x,also_y");
  int i = spring_points[1];
  g_autofree char *row = g_strdup_printf ("%d,Ġspring,%.9g,%.9g,2,4,1,%.9g,%.9g", i, xy[2 * i],
                                          xy[2 * i + 1], also_xy[2 * i], also_xy[2 * i + 1]);
  g_assert_cmpstr (rows[i + 1], ==, row);
}

static void
write_rank1 (const char *path)
{
  hsize_t dims[1] = { 5 };
  const float v[5] = { 1, 2, 3, 4, 5 };
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple (1, dims, NULL);
  hid_t dset = H5Dcreate2 (file, "v", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), >=, 0);
  H5Dclose (dset);
  H5Sclose (space);
  H5Fclose (file);
}

static void
test_errors (void)
{
  g_autofree float *x = mixture (30, 4);
  g_autofree char *good = write_matrix ("good.h5", x, 30, 4);
  g_autofree char *empty = write_matrix ("empty.h5", x, 0, 4);
  g_autofree char *small = write_matrix ("small.h5", x, 10, 4);
  x[2 * 4 + 1] = NAN;
  g_autofree char *nan = write_matrix ("nan.h5", x, 30, 4);
  g_autofree char *rank1 = g_build_filename (test_tmpdir (), "rank1.h5", NULL);
  write_rank1 (rank1);
  g_autofree char *missing = g_build_filename (test_tmpdir (), "missing.h5", NULL);
  g_autofree char *model = test_source_path ("tests/fixtures/tiny-gpt2");
  g_autofree char *nul = g_build_filename (test_tmpdir (), "nul.txt", NULL);
  g_assert_true (g_file_set_contents (nul, "the cat\nthe d\0g\nsat", 19, NULL));

  struct
  {
    int status;
    const char *needle;
    const char *args[14];
  } cases[] = {
    { 1,
      "line 2: holds a NUL byte (at byte 13)",
      { "--method", "pca", "--model", model, "--lines", nul, "--of", "embeddings" } },
    { 1,
      "n_neighbors = 15 needs at least 15 points (each point is its own first neighbour); the "
      "input has 10, so n_neighbors can be at most 10",
      { "--method", "umap", "--input", small, "--dataset", "x" } },
    { 1,
      "3 of the 10 points are distinct (identical vectors are projected once): UMAP: n_neighbors = "
      "4 needs at least 4 points",
      { "--method", "umap", "--neighbors", "4", "--model", model, "--text", "the the the the",
        "--text", "the the the the", "--of", "token-embeddings" } },
    { 2,
      "--metric: unknown metric 'manhattan' (expected euclidean or cosine)",
      { "--method", "umap", "--input", good, "--dataset", "x", "--metric", "manhattan" } },
    { 2,
      "--neighbors must be in 2..200 (got 1)",
      { "--method", "umap", "--input", good, "--dataset", "x", "--neighbors", "1" } },
    { 2,
      "--neighbors must be in 2..200 (got 201)",
      { "--method", "umap", "--input", good, "--dataset", "x", "--neighbors", "201" } },
    { 2,
      "--min-dist must be in [0, 1] (got 2)",
      { "--method", "umap", "--input", good, "--dataset", "x", "--min-dist", "2" } },
    { 2,
      "--epochs must be in 1..100000 (got 0)",
      { "--method", "umap", "--input", good, "--dataset", "x", "--epochs", "0" } },
    { 2,
      "--also and --highlight need texts",
      { "--method", "pca", "--input", good, "--dataset", "x", "--also", "hidden" } },
    { 2,
      "--highlight: the word to mark is empty",
      { "--method", "pca", "--model", model, "--text", "a", "--of", "embeddings", "--highlight",
        " " } },
    { 2,
      "--also: unknown vector set 'keys'",
      { "--method", "pca", "--model", model, "--text", "a", "--of", "embeddings", "--also",
        "keys" } },
    { 2,
      "--also hidden needs --also-layer L",
      { "--method", "pca", "--model", model, "--text", "a", "--of", "embeddings", "--also",
        "hidden" } },
    { 1, "missing.h5: no such file", { "--method", "pca", "--input", missing, "--dataset", "x" } },
    { 1,
      "dataset 'y' is not in the file",
      { "--method", "pca", "--input", good, "--dataset", "y" } },
    { 1, "rank 1", { "--method", "pca", "--input", rank1, "--dataset", "v" } },
    { 1, "empty matrix", { "--method", "tsne", "--input", empty, "--dataset", "x" } },
    { 1, "NaN at row 2, column 1", { "--method", "tsne", "--input", nan, "--dataset", "x" } },
    { 1, "NaN at row 2, column 1", { "--method", "pca", "--input", nan, "--dataset", "x" } },
    { 1,
      "perplexity 30 is too large for 30 points",
      { "--method", "tsne", "--input", good, "--dataset", "x" } },
    { 1,
      "layer",
      { "--method", "pca", "--model", model, "--text", "the cat", "--of", "hidden", "--layer",
        "99" } },
    { 2, "--method pca|tsne|umap is required", { "--input", good, "--dataset", "x" } },
    { 2,
      "unknown method 'lle' (expected pca, tsne or umap)",
      { "--method", "lle", "--input", good, "--dataset", "x" } },
    { 2, "either --input", { "--method", "pca" } },
    { 2,
      "either --input",
      { "--method", "pca", "--input", good, "--dataset", "x", "--text", "a" } },
    { 2, "--input needs --dataset", { "--method", "pca", "--input", good } },
    { 2,
      "at least 250",
      { "--method", "tsne", "--input", good, "--dataset", "x", "--iterations", "100" } },
    { 2,
      "--perplexity",
      { "--method", "tsne", "--input", good, "--dataset", "x", "--perplexity", "-2" } },
    { 2, "--of", { "--method", "pca", "--model", model, "--text", "a", "--of", "keys" } },
    { 2,
      "needs --layer L and --head H",
      { "--method", "pca", "--model", model, "--text", "a", "--of", "contexts", "--layer", "0" } },
  };
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const char *const *a = cases[c].args;
      g_auto (Run) r = run_project (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                                    a[10], a[11], a[12], a[13], NULL);
      g_test_message ("case %" G_GSIZE_FORMAT ": %s", c, r.err);
      assert_error (&r, cases[c].status, cases[c].needle);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/cli/project/matrix/pca", test_matrix_pca);
  g_test_add_func ("/cli/project/matrix/tsne", test_matrix_tsne);
  g_test_add_func ("/cli/project/matrix/umap", test_matrix_umap);
  g_test_add_func ("/cli/project/texts", test_texts);
  g_test_add_func ("/cli/project/static-vs-contextual", test_static_vs_contextual);
  g_test_add_func ("/cli/project/errors", test_errors);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

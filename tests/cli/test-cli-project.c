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
  x[2 * 4 + 1] = NAN;
  g_autofree char *nan = write_matrix ("nan.h5", x, 30, 4);
  g_autofree char *rank1 = g_build_filename (test_tmpdir (), "rank1.h5", NULL);
  write_rank1 (rank1);
  g_autofree char *missing = g_build_filename (test_tmpdir (), "missing.h5", NULL);
  g_autofree char *model = test_source_path ("tests/fixtures/tiny-gpt2");

  struct
  {
    int status;
    const char *needle;
    const char *args[12];
  } cases[] = {
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
    { 2, "--method pca|tsne is required", { "--input", good, "--dataset", "x" } },
    { 2, "unknown method 'umap'", { "--method", "umap", "--input", good, "--dataset", "x" } },
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
                                    a[10], a[11], NULL);
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
  g_test_add_func ("/cli/project/texts", test_texts);
  g_test_add_func ("/cli/project/errors", test_errors);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

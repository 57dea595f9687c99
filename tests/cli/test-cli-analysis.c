/* test-cli-analysis.c — the analysis subcommands as a user runs them: `similarity`, `stats`,
 * `compare` on the committed tiny GPT-2 fixture ($ATTNSCOPE_BIN). Checks the JSON/CSV structure,
 * values against the trace written by `run --dump` (similarity of the dumped hidden states,
 * attention rows in the comparison table), invariants (unit diagonal, symmetry, shares in
 * [0,1], a text compared with itself), and the error contract (exit 1 with one
 * "attnscope: error:" line naming the problem, exit 2 for usage errors, nothing on stdout). */
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"

static char *fixture;

static const char *const text6 = "the cat sat on the mat";

/* Runs attnscope SUBCOMMAND --model FIXTURE with the NULL-terminated further arguments. */
static Run
run_on_fixture (const char *subcommand, ...)
{
  const char *prefix[] = { subcommand, "--model", fixture, NULL };
  va_list ap;
  va_start (ap, subcommand);
  Run r = run_cli_valist (prefix, va_arg (ap, const char *), ap);
  va_end (ap);
  return r;
}

/* The trace of TEXT as dumped by `run`: attentions [L][H][T][T] and hidden_states [L+1][T][D]. */
typedef struct
{
  int n_layer, n_head, n_tokens, d_model;
  float *attn;
  float *hidden;
} Dump;

static float *
read_dataset (hid_t file, const char *name, hsize_t *dims, int rank)
{
  hid_t d = H5Dopen2 (file, name, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  hid_t space = H5Dget_space (d);
  g_assert_cmpint (H5Sget_simple_extent_ndims (space), ==, rank);
  H5Sget_simple_extent_dims (space, dims, NULL);
  gsize n = 1;
  for (int i = 0; i < rank; i++)
    n *= dims[i];
  float *data = g_new (float, n);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
  H5Sclose (space);
  H5Dclose (d);
  return data;
}

static Dump
dump_text (const char *text)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "trace.h5", NULL);
  g_auto (Run) r = run_on_fixture ("run", "--text", text, "--dump", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  hsize_t a[4], h[3];
  Dump dump = { 0 };
  dump.attn = read_dataset (file, "attentions", a, 4);
  dump.hidden = read_dataset (file, "hidden_states", h, 3);
  H5Fclose (file);
  dump.n_layer = (int) a[0];
  dump.n_head = (int) a[1];
  dump.n_tokens = (int) a[2];
  dump.d_model = (int) h[2];
  g_assert_cmpint (h[0], ==, a[0] + 1);
  return dump;
}

static void
dump_clear (Dump *dump)
{
  g_free (dump->attn);
  g_free (dump->hidden);
}

static double
cosine (const float *a, const float *b, int n)
{
  double ab = 0, aa = 0, bb = 0;
  for (int i = 0; i < n; i++)
    {
      ab += (double) a[i] * b[i];
      aa += (double) a[i] * a[i];
      bb += (double) b[i] * b[i];
    }
  return ab / sqrt (aa * bb);
}

/* MATRIX is a T×T JSON array with a unit diagonal, symmetric, values in [-1, 1]; copies it into
 * OUT [T][T] when OUT is not NULL. */
static void
assert_similarity_matrix (JsonArray *matrix, int n, float *out)
{
  g_assert_cmpint (json_array_get_length (matrix), ==, n);
  for (int i = 0; i < n; i++)
    {
      JsonArray *row = json_array_get_array_element (matrix, i);
      g_assert_cmpint (json_array_get_length (row), ==, n);
      for (int j = 0; j < n; j++)
        {
          double v = json_array_get_double_element (row, j);
          double w = json_array_get_double_element (json_array_get_array_element (matrix, j), i);
          g_assert_cmpfloat (fabs (v), <=, 1 + 1e-6);
          g_assert_cmpfloat (v, ==, w);
          if (i == j)
            g_assert_cmpfloat_with_epsilon (v, 1, 1e-6);
          if (out != NULL)
            out[i * n + j] = (float) v;
        }
    }
}

static void
test_similarity_json (void)
{
  Dump dump = dump_text (text6);
  int n = dump.n_tokens, d = dump.d_model;
  g_auto (Run) r = run_on_fixture ("similarity", "--text", text6, "--of", "hidden", "--layer", "2",
                                   "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "of"), ==, "hidden");
  g_assert_cmpint (json_object_get_int_member (o, "layer"), ==, 2);
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "tokens")), ==, n);
  g_autofree float *actual = g_new (float, n *n);
  assert_similarity_matrix (json_object_get_array_member (o, "matrix"), n, actual);

  /* the same numbers from the dumped hidden states of layer 2 */
  g_autofree float *expected = g_new (float, n *n);
  const float *h2 = dump.hidden + (gsize) 2 * n * d;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      expected[i * n + j] = (float) cosine (h2 + i * d, h2 + j * d, d);
  check_close ("similarity of dumped hidden[2]", actual, expected, (gsize) n * n, 1e-6, 0);
  dump_clear (&dump);

  /* embeddings = hidden 0; contexts of a head have their own matrix */
  g_auto (Run) e
      = run_on_fixture ("similarity", "--text", text6, "--of", "embeddings", "--json", NULL);
  g_auto (Run) h0 = run_on_fixture ("similarity", "--text", text6, "--of", "hidden", "--layer", "0",
                                    "--json", NULL);
  g_assert_cmpint (e.status, ==, 0);
  g_assert_cmpint (h0.status, ==, 0);
  g_autoptr (JsonNode) en = parse_json (e.out);
  g_autoptr (JsonNode) hn = parse_json (h0.out);
  g_assert_true (json_node_equal (json_object_get_member (json_node_get_object (en), "matrix"),
                                  json_object_get_member (json_node_get_object (hn), "matrix")));
  g_auto (Run) c = run_on_fixture ("similarity", "--text", text6, "--of", "contexts", "--layer",
                                   "1", "--head", "1", "--json", NULL);
  g_assert_cmpint (c.status, ==, 0);
  g_autoptr (JsonNode) cn = parse_json (c.out);
  assert_similarity_matrix (json_object_get_array_member (json_node_get_object (cn), "matrix"), n,
                            NULL);
}

/* Token embeddings need no layer; the two " spring" of the shipped model are one vector. */
static void
test_similarity_token_embeddings (void)
{
  g_auto (Run) r
      = run_cli ("similarity", "--model", "attnscope-mini", "--text", "the spring and the spring",
                 "--of", "token-embeddings", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "of"), ==, "token-embeddings");
  g_assert_false (json_object_has_member (o, "layer"));
  JsonArray *tokens = json_object_get_array_member (o, "tokens");
  g_assert_cmpstr (json_array_get_string_element (tokens, 1), ==, "Ġspring");
  g_assert_cmpstr (json_array_get_string_element (tokens, 4), ==, "Ġspring");
  float m[25];
  assert_similarity_matrix (json_object_get_array_member (o, "matrix"), 5, m);
  g_assert_cmpfloat (m[1 * 5 + 4], ==, 1.0f);
  g_assert_cmpfloat (m[0 * 5 + 3], <, 0.99f); /* "the" and " the" are two tokens */
}

static void
test_similarity_csv (void)
{
  g_auto (Run) r
      = run_on_fixture ("similarity", "--text", text6, "--of", "attn_out", "--layer", "0", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_auto (GStrv) header = g_strsplit (lines[0], ",", -1);
  int n = (int) g_strv_length (header) - 1;
  g_assert_cmpstr (header[0], ==, "token");
  g_assert_cmpint (n, >=, 6);
  g_assert_cmpint (g_strv_length (lines), ==, n + 2); /* n rows, then "" after the last \n */
  g_assert_cmpstr (lines[n + 1], ==, "");
  for (int i = 0; i < n; i++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[i + 1], ",", -1);
      g_assert_cmpint (g_strv_length (cells), ==, n + 1);
      g_assert_cmpstr (cells[0], ==, header[i + 1]);
      g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cells[i + 1], NULL), 1, 1e-6);
    }
}

static void
test_similarity_token (void)
{
  Dump dump = dump_text (text6);
  int n = dump.n_tokens;
  const int token = 3;
  g_autofree char *token_text = g_strdup_printf ("%d", token);

  /* contexts of layer 1 head 0: the attention column is row 3 of P[1][0] */
  g_auto (Run) r = run_on_fixture ("similarity", "--text", text6, "--of", "contexts", "--layer",
                                   "1", "--head", "0", "--token", token_text, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "attention"), ==, "head");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "token"), "index"),
                   ==, token);
  JsonArray *rows = json_object_get_array_member (o, "rows");
  g_assert_cmpint (json_array_get_length (rows), ==, n - 1);
  const float *p = dump.attn + ((gsize) (1 * dump.n_head + 0) * n + token) * n;
  for (int r_i = 0; r_i < n - 1; r_i++)
    {
      JsonObject *row = json_array_get_object_element (rows, r_i);
      int j = (int) json_object_get_int_member (row, "index");
      g_assert_cmpint (j, ==, r_i < token ? r_i : r_i + 1);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (row, "attention"), p[j], 1e-7);
      double s = json_object_get_double_member (row, "similarity");
      g_assert_cmpfloat (fabs (s), <=, 1 + 1e-6);
    }

  /* hidden layer 2 without --head: the mean over the heads of block 1 */
  g_auto (Run) m = run_on_fixture ("similarity", "--text", text6, "--of", "hidden", "--layer", "2",
                                   "--token", token_text, "--csv", NULL);
  g_assert_cmpint (m.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (m.out, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "index,token,similarity,attention");
  g_assert_cmpint (g_strv_length (lines), ==, n + 1);
  for (int r_i = 0; r_i < n - 1; r_i++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[r_i + 1], ",", -1);
      int j = atoi (cells[0]);
      double mean = 0;
      for (int h = 0; h < dump.n_head; h++)
        mean += dump.attn[((gsize) (1 * dump.n_head + h) * n + token) * n + j];
      mean /= dump.n_head;
      g_assert_cmpfloat_with_epsilon (g_ascii_strtod (cells[3], NULL), mean, 1e-7);
      if (j > token) /* causal: later tokens get no attention */
        g_assert_cmpfloat (g_ascii_strtod (cells[3], NULL), ==, 0);
    }

  /* the seed's text layout */
  g_auto (Run) t = run_on_fixture ("similarity", "--text", text6, "--of", "contexts", "--layer",
                                   "0", "--head", "1", "--token", "0", NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_assert_true (g_str_has_prefix (t.out, "Comparison for '"));
  g_assert_nonnull (strstr (t.out, "\n  Word\t\tSimilarity\tAttention weight\n"));
  dump_clear (&dump);
}

/* The seed's "Comparison for 'May'" table (tests/README.md, "Published values") from the shipped
 * single-head toy model, to every printed digit. */
static void
test_similarity_seed (void)
{
  g_autofree char *model = test_source_path ("data/models/seed-single-head");
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "similarity",
                         "--model",
                         model,
                         "--text",
                         "May the force be with you",
                         "--of",
                         "contexts",
                         "--layer",
                         "0",
                         "--head",
                         "0",
                         "--token",
                         "0",
                         "--json",
                         NULL };
  g_auto (Run) r = { 0 };
  r.status = test_spawn (argv, &r.out, &r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonArray *rows = json_object_get_array_member (json_node_get_object (root), "rows");
  const char *const expected[5][3] = {
    { "the", "0.9387", "0.0651" },  { "force", "0.9561", "0.1020" }, { "be", "0.9919", "0.1955" },
    { "with", "0.9491", "0.1128" }, { "you", "0.9933", "0.1859" },
  };
  g_assert_cmpint (json_array_get_length (rows), ==, 5);
  for (int i = 0; i < 5; i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      g_autofree char *s
          = g_strdup_printf ("%.4f", json_object_get_double_member (row, "similarity"));
      g_autofree char *a
          = g_strdup_printf ("%.4f", json_object_get_double_member (row, "attention"));
      g_assert_cmpstr (json_object_get_string_member (row, "token"), ==, expected[i][0]);
      g_assert_cmpstr (s, ==, expected[i][1]);
      g_assert_cmpstr (a, ==, expected[i][2]);
    }
}

/* The four statistics of every head of O lie in [0, 1], labels are known, rankings sorted. */
static void
assert_stats_json (JsonObject *o, int sentences)
{
  g_assert_cmpint (json_object_get_int_member (o, "sentences"), ==, sentences);
  int n = (int) (json_object_get_int_member (o, "n_layer")
                 * json_object_get_int_member (o, "n_head"));
  g_assert_cmpint (n, ==, 4);
  JsonArray *heads = json_object_get_array_member (o, "heads");
  g_assert_cmpint (json_array_get_length (heads), ==, n);
  const char *kinds[] = { "entropy", "previous", "first", "self" };
  for (int e = 0; e < n; e++)
    {
      JsonObject *h = json_array_get_object_element (heads, e);
      g_assert_cmpint (json_object_get_int_member (h, "layer"), ==, e / 2);
      g_assert_cmpint (json_object_get_int_member (h, "head"), ==, e % 2);
      for (int k = 0; k < 4; k++)
        {
          double v = json_object_get_double_member (h, kinds[k]);
          g_assert_cmpfloat (v, >=, 0);
          g_assert_cmpfloat (v, <=, 1 + 1e-9);
        }
      const char *label = json_object_get_string_member (h, "label");
      g_assert_true (g_strv_contains (
          (const char *const[]){ "mixed", "previous", "first", "self", NULL }, label));
    }
  JsonObject *rankings = json_object_get_object_member (o, "rankings");
  for (int k = 0; k < 4; k++)
    {
      JsonArray *order = json_object_get_array_member (rankings, kinds[k]);
      g_assert_cmpint (json_array_get_length (order), ==, n);
      for (int r = 1; r < n; r++)
        g_assert_cmpfloat (
            json_object_get_double_member (json_array_get_object_element (order, r - 1), "value"),
            >=, json_object_get_double_member (json_array_get_object_element (order, r), "value"));
    }
}

static double
head_value (JsonObject *o, int e, const char *kind)
{
  JsonArray *heads = json_object_get_array_member (o, "heads");
  return json_object_get_double_member (json_array_get_object_element (heads, e), kind);
}

static void
test_stats (void)
{
  g_auto (Run) r = run_on_fixture ("stats", "--text", text6, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  assert_stats_json (json_node_get_object (root), 1);

  /* previous and first shares recomputed from the dumped attention (rows i >= 1) */
  Dump dump = dump_text (text6);
  int n = dump.n_tokens;
  for (int e = 0; e < dump.n_layer * dump.n_head; e++)
    {
      const float *p = dump.attn + (gsize) e * n * n;
      double previous = 0, first = 0;
      for (int i = 1; i < n; i++)
        {
          previous += p[i * n + i - 1] / (n - 1.0);
          first += p[i * n] / (n - 1.0);
        }
      g_assert_cmpfloat_with_epsilon (head_value (json_node_get_object (root), e, "previous"),
                                      previous, 1e-6);
      g_assert_cmpfloat_with_epsilon (head_value (json_node_get_object (root), e, "first"), first,
                                      1e-6);
    }
  dump_clear (&dump);

  /* --lines: blank lines skipped; each sentence counts once (mean of the per-text values) */
  const char *sentences[] = { "the cat", "sat on the mat", "a dog ran" };
  g_autofree char *path = g_build_filename (test_tmpdir (), "lines.txt", NULL);
  g_autofree char *contents
      = g_strdup_printf ("%s\n\n   \n%s\r\n%s\n", sentences[0], sentences[1], sentences[2]);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  g_auto (Run) all = run_on_fixture ("stats", "--lines", path, "--json", NULL);
  g_assert_cmpint (all.status, ==, 0);
  g_autoptr (JsonNode) all_root = parse_json (all.out);
  JsonObject *agg = json_node_get_object (all_root);
  assert_stats_json (agg, 3);
  JsonNode *single[3];
  for (int s = 0; s < 3; s++)
    {
      g_auto (Run) one = run_on_fixture ("stats", "--text", sentences[s], "--json", NULL);
      g_assert_cmpint (one.status, ==, 0);
      single[s] = parse_json (one.out);
    }
  const char *kinds[] = { "entropy", "previous", "first", "self" };
  for (int e = 0; e < 4; e++)
    for (int k = 0; k < 4; k++)
      {
        double mean = 0;
        for (int s = 0; s < 3; s++)
          mean += head_value (json_node_get_object (single[s]), e, kinds[k]) / 3;
        g_assert_cmpfloat_with_epsilon (head_value (agg, e, kinds[k]), mean, 1e-6);
      }
  for (int s = 0; s < 3; s++)
    json_node_unref (single[s]);

  g_auto (Run) text = run_on_fixture ("stats", "--text", text6, NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "layer head    entropy   previous      first       self"));
}

static void
test_compare_self (void)
{
  g_auto (Run) r
      = run_on_fixture ("compare", "--text", text6, "--text", text6, "--json", "--matrices", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  int n = (int) json_array_get_length (json_object_get_array_member (o, "tokens_a"));
  JsonArray *pairs = json_object_get_array_member (o, "pairs");
  g_assert_cmpint (json_array_get_length (pairs), ==, n);
  for (int p = 0; p < n; p++)
    {
      JsonObject *pair = json_array_get_object_element (pairs, p);
      g_assert_cmpint (json_object_get_int_member (pair, "a"), ==, p);
      g_assert_cmpint (json_object_get_int_member (pair, "b"), ==, p);
    }
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "unmatched_a")), ==, 0);
  JsonArray *hidden = json_object_get_array_member (o, "hidden");
  g_assert_cmpint (json_array_get_length (hidden), ==, 3);
  for (int l = 0; l < 3; l++)
    {
      JsonObject *layer = json_array_get_object_element (hidden, l);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (layer, "mean_similarity"), 1,
                                      1e-6);
      g_assert_cmpfloat (json_object_get_double_member (layer, "change"), ==, 0);
      JsonArray *sims = json_object_get_array_member (layer, "similarity");
      g_assert_cmpint (json_array_get_length (sims), ==, n);
      for (int p = 0; p < n; p++)
        g_assert_cmpfloat_with_epsilon (json_array_get_double_element (sims, p), 1, 1e-6);
    }
  JsonObject *attention = json_object_get_object_member (o, "attention");
  g_assert_true (json_object_get_boolean_member (attention, "available"));
  JsonArray *heads = json_object_get_array_member (attention, "heads");
  g_assert_cmpint (json_array_get_length (heads), ==, 4);
  for (int e = 0; e < 4; e++)
    {
      JsonObject *h = json_array_get_object_element (heads, e);
      g_assert_cmpfloat (json_object_get_double_member (h, "change"), ==, 0);
      g_assert_cmpfloat (json_object_get_double_member (h, "max_abs_diff"), ==, 0);
      JsonArray *diff = json_object_get_array_member (h, "diff");
      g_assert_cmpint (json_array_get_length (diff), ==, n);
      g_assert_cmpfloat (
          json_array_get_double_element (json_array_get_array_element (diff, n - 1), 0), ==, 0);
    }
}

static void
test_compare_swap (void)
{
  const char *a = "the man hit the car", *b = "the car hit the man";
  g_auto (Run) r = run_on_fixture ("compare", "--text", a, "--text", b, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  JsonArray *ta = json_object_get_array_member (o, "tokens_a");
  JsonArray *tb = json_object_get_array_member (o, "tokens_b");
  int n = (int) json_array_get_length (ta);
  g_assert_cmpint (json_array_get_length (tb), ==, n);
  /* same multiset of tokens: everything pairs up, each pair joins equal strings */
  JsonArray *pairs = json_object_get_array_member (o, "pairs");
  g_assert_cmpint (json_array_get_length (pairs), ==, n);
  for (int p = 0; p < n; p++)
    {
      JsonObject *pair = json_array_get_object_element (pairs, p);
      int ia = (int) json_object_get_int_member (pair, "a");
      int ib = (int) json_object_get_int_member (pair, "b");
      g_assert_cmpint (ia, ==, p);
      g_assert_cmpstr (json_array_get_string_element (ta, ia), ==,
                       json_array_get_string_element (tb, ib));
      g_assert_cmpstr (json_object_get_string_member (pair, "token"), ==,
                       json_array_get_string_element (ta, ia));
    }
  /* the sentences differ: some head changes, and the rankings are sorted by change */
  JsonObject *attention = json_object_get_object_member (o, "attention");
  g_assert_true (json_object_get_boolean_member (attention, "available"));
  JsonArray *ranking = json_object_get_array_member (attention, "head_ranking");
  g_assert_cmpint (json_array_get_length (ranking), ==, 4);
  g_assert_cmpfloat (
      json_object_get_double_member (json_array_get_object_element (ranking, 0), "change"), >, 0);
  for (int i = 1; i < 4; i++)
    g_assert_cmpfloat (
        json_object_get_double_member (json_array_get_object_element (ranking, i - 1), "change"),
        >=, json_object_get_double_member (json_array_get_object_element (ranking, i), "change"));
  JsonArray *hidden_ranking = json_object_get_array_member (o, "hidden_ranking");
  g_assert_cmpint (json_array_get_length (hidden_ranking), ==, 3);
  g_assert_cmpint (
      json_array_get_length (json_object_get_array_member (attention, "layer_ranking")), ==, 2);
}

static void
test_compare_prefix (void)
{
  /* causal model: the shared prefix has the same hidden states; lengths differ: by position
   * there is no attention difference, by token (the default) there is one */
  g_auto (Run) r = run_on_fixture ("compare", "--text", "the cat", "--text", "the cat sat",
                                   "--json", "--align", "positions", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "align"), ==, "positions");
  JsonObject *attention = json_object_get_object_member (o, "attention");
  g_assert_false (json_object_get_boolean_member (attention, "available"));
  g_assert_nonnull (strstr (json_object_get_string_member (attention, "reason"), "equal lengths"));
  g_auto (Run) t = run_on_fixture ("compare", "--text", "the cat", "--text", "the cat sat",
                                   "--json", "--matrices", NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_autoptr (JsonNode) troot = parse_json (t.out);
  JsonObject *tattention
      = json_object_get_object_member (json_node_get_object (troot), "attention");
  g_assert_cmpstr (json_object_get_string_member (tattention, "align"), ==, "tokens");
  g_assert_true (json_object_get_boolean_member (tattention, "available"));
  /* the prefix of a causal model attends alike: every aligned difference is 0, [T_A][T_A] */
  guint n = json_array_get_length (
      json_object_get_array_member (json_node_get_object (troot), "tokens_a"));
  JsonArray *heads = json_object_get_array_member (tattention, "heads");
  for (guint e = 0; e < json_array_get_length (heads); e++)
    {
      JsonObject *h = json_array_get_object_element (heads, e);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h, "change"), 0, 1e-6);
      JsonArray *diff = json_object_get_array_member (h, "diff");
      g_assert_cmpuint (json_array_get_length (diff), ==, n);
      g_assert_cmpuint (json_array_get_length (json_array_get_array_element (diff, n - 1)), ==, n);
    }
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "unmatched_a")), ==, 0);
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "unmatched_b")), >=, 1);
  JsonArray *hidden = json_object_get_array_member (o, "hidden");
  for (int l = 0; l < 3; l++)
    g_assert_cmpfloat_with_epsilon (
        json_object_get_double_member (json_array_get_object_element (hidden, l),
                                       "mean_similarity"),
        1, 1e-5);
}

static void
test_errors (void)
{
  g_autofree char *empty = g_build_filename (test_tmpdir (), "empty.txt", NULL);
  g_autofree char *blank = g_build_filename (test_tmpdir (), "blank.txt", NULL);
  g_autofree char *missing = g_build_filename (test_tmpdir (), "missing.txt", NULL);
  g_autofree char *bad = g_build_filename (test_tmpdir (), "bad.txt", NULL);
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  g_assert_true (g_file_set_contents (blank, "\n  \n", -1, NULL));
  g_assert_true (g_file_set_contents (bad, "the cat\nab\xff\n", -1, NULL));
  g_autofree char *long_text = g_strnfill (200, 'a');
  for (int i = 1; i < 200; i += 2)
    long_text[i] = ' ';

  struct
  {
    int status;
    const char *needle;
    const char *args[12];
  } cases[] = {
    { 1,
      "layer 3 is out of range",
      { "similarity", "--text", "a b", "--of", "hidden", "--layer", "3" } },
    { 1,
      "layer 2 is out of range for contexts: valid layers are 0..1",
      { "similarity", "--text", "a b", "--of", "contexts", "--layer", "2", "--head", "0" } },
    { 1,
      "head 2 is out of range: valid heads are 0..1",
      { "similarity", "--text", "a b", "--of", "contexts", "--layer", "0", "--head", "2" } },
    { 1,
      "head 5 is out of range",
      { "similarity", "--text", "a b", "--of", "hidden", "--layer", "0", "--head", "5" } },
    { 1,
      "token index 40 is out of range",
      { "similarity", "--text", "a b", "--of", "hidden", "--layer", "0", "--token", "40" } },
    { 1, "--token -2", { "similarity", "--text", "a b", "--of", "embeddings", "--token", "-2" } },
    { 1, "--text is empty", { "similarity", "--text", "", "--of", "embeddings" } },
    { 1, "context length", { "similarity", "--text", long_text, "--of", "embeddings" } },
    { 2,
      "--of contexts needs --layer L and --head H",
      { "similarity", "--text", "a", "--of", "contexts", "--layer", "0" } },
    { 2, "--of hidden needs --layer", { "similarity", "--text", "a", "--of", "hidden" } },
    { 2, "unknown vector set 'keys'", { "similarity", "--text", "a", "--of", "keys" } },
    { 2, "--of", { "similarity", "--text", "a" } },
    { 2, "--layer", { "similarity", "--text", "a", "--of", "hidden", "--layer", "x" } },
    { 2,
      "at most one of --csv and --json",
      { "similarity", "--text", "a", "--of", "embeddings", "--csv", "--json" } },
    { 1, "missing.txt", { "stats", "--lines", missing } },
    { 1, "has no text", { "stats", "--lines", empty } },
    { 1, "has no text", { "stats", "--lines", blank } },
    { 1, "line 2: the line is not valid UTF-8", { "stats", "--lines", bad } },
    { 1, "--text is empty", { "stats", "--text", "" } },
    { 2, "exactly one of --text T, --lines FILE or --pairs FILE", { "stats" } },
    { 2,
      "exactly one of --text T, --lines FILE or --pairs FILE",
      { "stats", "--text", "a", "--lines", blank } },
    { 2, "exactly two texts", { "compare", "--text", "a" } },
    { 2,
      "--align: unknown 'words' (expected tokens or positions)",
      { "compare", "--text", "a", "--text", "b", "--align", "words" } },
    { 2, "exactly two texts", { "compare", "--text", "a", "--text", "b", "--text", "c" } },
    { 1, "the second --text is empty", { "compare", "--text", "a", "--text", "" } },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *const *a = cases[i].args;
      g_test_message ("case %" G_GSIZE_FORMAT ": %s %s %s", i, a[0], a[1], a[2] ? a[2] : "");
      g_auto (Run) r = run_on_fixture (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                                       a[10], NULL);
      assert_error (&r, cases[i].status, cases[i].needle);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  fixture = test_source_path ("tests/fixtures/tiny-gpt2");
  g_test_add_func ("/cli/similarity/json", test_similarity_json);
  g_test_add_func ("/cli/similarity/csv", test_similarity_csv);
  g_test_add_func ("/cli/similarity/token-embeddings", test_similarity_token_embeddings);
  g_test_add_func ("/cli/similarity/token", test_similarity_token);
  g_test_add_func ("/cli/similarity/seed-table", test_similarity_seed);
  g_test_add_func ("/cli/stats/json-and-lines", test_stats);
  g_test_add_func ("/cli/compare/self", test_compare_self);
  g_test_add_func ("/cli/compare/swap", test_compare_swap);
  g_test_add_func ("/cli/compare/prefix", test_compare_prefix);
  g_test_add_func ("/cli/analysis/errors", test_errors);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (fixture);
  return status;
}

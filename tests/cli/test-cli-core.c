/* test-cli-core.c — the command-line contract of the core subcommands (README.md, "Command line"):
 * info, tokenize, run --dump, predict, bench; exit codes 0/1/2 and one-line error messages; no
 * partial output files. Runs the attnscope binary ($ATTNSCOPE_BIN) on the committed tiny fixture.
 */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"

static char *fixture;

static void
test_info (void)
{
  Run r = run_cli ("info", "--model", fixture, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "architecture"), ==, "gpt2");
  g_assert_cmpint (json_object_get_int_member (o, "n_layer"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (o, "n_head"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (o, "n_embd"), ==, 16);
  g_assert_cmpint (json_object_get_int_member (o, "head_dim"), ==, 8);
  g_assert_cmpint (json_object_get_int_member (o, "vocab_size"), ==, 300);
  g_assert_cmpint (json_object_get_int_member (o, "n_positions"), ==, 32);
  /* wte 300·16 + wpe 32·16 + 2 blocks · (2·16·2 LN + 16·48+48 + 16·16+16 + 16·64+64 + 64·16+16)
   * + ln_f 2·16 */
  gint64 block = 4 * 16 + 16 * 48 + 48 + 16 * 16 + 16 + 16 * 64 + 64 + 64 * 16 + 16;
  g_assert_cmpint (json_object_get_int_member (o, "n_params"), ==,
                   300 * 16 + 32 * 16 + 2 * block + 2 * 16);
  run_clear (&r);

  r = run_cli ("info", "--model", fixture, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "layers:        2"));
  run_clear (&r);
}

static void
test_tokenize (void)
{
  Run r = run_cli ("tokenize", "--model", fixture, "--json", "the cat", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  JsonArray *ids = json_object_get_array_member (o, "ids");
  JsonArray *tokens = json_object_get_array_member (o, "tokens");
  g_assert_cmpint (json_array_get_length (ids), ==, json_array_get_length (tokens));
  g_assert_cmpint (json_array_get_length (ids), >=, 2);
  /* the fixture's vocabulary has the merge "Ġ t": the second word starts with a Ġ token */
  GString *joined = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (tokens); i++)
    g_string_append (joined, json_array_get_string_element (tokens, i));
  g_assert_cmpstr (joined->str, ==, "theĠcat");
  g_string_free (joined, TRUE);
  run_clear (&r);

  /* --lines: one JSON object per line, in order */
  g_autofree char *lines = g_build_filename (test_tmpdir (), "lines.txt", NULL);
  g_assert_true (g_file_set_contents (lines, "the cat\nsat\n", -1, NULL));
  r = run_cli ("tokenize", "--model", fixture, "--lines", lines, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) out_lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpint (g_strv_length (out_lines), ==, 3); /* two objects + trailing empty */
  g_autoptr (JsonNode) second = parse_json (out_lines[1]);
  JsonArray *sat = json_object_get_array_member (json_node_get_object (second), "tokens");
  g_assert_cmpint (json_array_get_length (sat), >=, 1);
  run_clear (&r);

  /* invalid UTF-8 in a --lines file names the line */
  g_assert_true (g_file_set_contents (lines, "ok\nbad \xff here\n", -1, NULL));
  r = run_cli ("tokenize", "--model", fixture, "--lines", lines, NULL);
  assert_error (&r, 1, "lines.txt:2");
  run_clear (&r);
}

static void
read_dims (hid_t file, const char *name, int *rank, hsize_t *dims, hid_t *type_class,
           size_t *type_size)
{
  hid_t d = H5Dopen2 (file, name, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  hid_t s = H5Dget_space (d);
  *rank = H5Sget_simple_extent_ndims (s);
  H5Sget_simple_extent_dims (s, dims, NULL);
  hid_t t = H5Dget_type (d);
  *type_class = H5Tget_class (t);
  *type_size = H5Tget_size (t);
  H5Tclose (t);
  H5Sclose (s);
  H5Dclose (d);
}

static void
assert_dataset (hid_t file, const char *name, H5T_class_t cls, size_t size, int rank,
                const hsize_t *expected)
{
  int r;
  hsize_t dims[8];
  hid_t c;
  size_t s;
  read_dims (file, name, &r, dims, &c, &s);
  g_test_message ("dataset %s rank %d", name, r);
  g_assert_cmpint (r, ==, rank);
  for (int i = 0; i < rank; i++)
    g_assert_cmpuint (dims[i], ==, expected[i]);
  g_assert_cmpint (c, ==, cls);
  if (size > 0)
    g_assert_cmpuint (s, ==, size);
}

static void
test_run_dump (void)
{
  g_autofree char *out = g_build_filename (test_tmpdir (), "trace.h5", NULL);
  Run r = run_cli ("run", "--model", fixture, "--ids", "5,17,42,99,250", "--dump", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);

  hid_t file = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  hsize_t T = 5;
  hsize_t ids_dims[] = { T }, attn[] = { 2, 2, T, T }, hidden[] = { 3, T, 16 };
  hsize_t ctx[] = { 2, 2, T, 8 }, logits[] = { T, 300 };
  assert_dataset (file, "token_ids", H5T_INTEGER, 8, 1, ids_dims);
  assert_dataset (file, "tokens", H5T_STRING, 0, 1, ids_dims);
  assert_dataset (file, "attentions", H5T_FLOAT, 4, 4, attn);
  assert_dataset (file, "hidden_states", H5T_FLOAT, 4, 3, hidden);
  assert_dataset (file, "contexts", H5T_FLOAT, 4, 4, ctx);
  assert_dataset (file, "logits", H5T_FLOAT, 4, 2, logits);
  g_assert_true (H5Aexists (file, "model") > 0);
  g_assert_true (H5Aexists (file, "architecture") > 0);

  gint64 ids[5];
  hid_t d = H5Dopen2 (file, "token_ids", H5P_DEFAULT);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids), >=, 0);
  H5Dclose (d);
  g_assert_cmpint (ids[0], ==, 5);
  g_assert_cmpint (ids[4], ==, 250);

  float a[2 * 2 * 5 * 5];
  d = H5Dopen2 (file, "attentions", H5P_DEFAULT);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, a), >=, 0);
  H5Dclose (d);
  for (int m = 0; m < 4; m++)
    for (int i = 0; i < 5; i++)
      {
        double sum = 0;
        for (int j = 0; j < 5; j++)
          {
            float p = a[(m * 5 + i) * 5 + j];
            if (j > i)
              g_assert_cmpfloat (p, ==, 0.0f); /* causal mask: exactly zero */
            sum += p;
          }
        g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-5);
      }
  H5Fclose (file);
}

/* A failing run leaves neither the output file nor a temporary file behind. */
static void
test_run_no_partial_file (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "nopartial", NULL);
  g_mkdir_with_parents (dir, 0755);
  g_autofree char *out = g_build_filename (dir, "trace.h5", NULL);
  Run r = run_cli ("run", "--model", fixture, "--ids", "5,300", "--dump", out, NULL);
  assert_error (&r, 1, "300");
  run_clear (&r);
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  g_assert_null (g_dir_read_name (listing));

  /* an output folder that does not exist */
  g_autofree char *bad = g_build_filename (dir, "missing", "trace.h5", NULL);
  r = run_cli ("run", "--model", fixture, "--ids", "5", "--dump", bad, NULL);
  assert_error (&r, 1, "trace.h5");
  run_clear (&r);
}

static void
test_predict (void)
{
  Run r
      = run_cli ("predict", "--model", fixture, "--text", "the cat", "--top", "4", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonArray *p = json_object_get_array_member (json_node_get_object (root), "predictions");
  g_assert_cmpint (json_array_get_length (p), ==, 4);
  double last = INFINITY, total = 0;
  for (guint i = 0; i < 4; i++)
    {
      JsonObject *o = json_array_get_object_element (p, i);
      double logit = json_object_get_double_member (o, "logit");
      double prob = json_object_get_double_member (o, "probability");
      g_assert_cmpfloat (logit, <=, last);
      g_assert_cmpfloat (prob, >, 0.0);
      total += prob;
      last = logit;
    }
  g_assert_cmpfloat (total, <=, 1.0 + 1e-6);
  run_clear (&r);

  /* greedy: each step's text is the previous text plus the previous step's top token */
  r = run_cli ("predict", "--model", fixture, "--text", "the", "--steps", "3", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) steps = g_strsplit (r.out, "\n", -1);
  g_assert_cmpint (g_strv_length (steps), ==, 4);
  g_autofree char *expected = g_strdup ("the");
  for (int s = 0; s < 3; s++)
    {
      g_autoptr (JsonNode) step = parse_json (steps[s]);
      JsonObject *o = json_node_get_object (step);
      JsonArray *top = json_object_get_array_member (o, "top");
      g_assert_cmpint (json_array_get_length (top), ==, 3);
      const char *token
          = json_object_get_string_member (json_array_get_object_element (top, 0), "token");
      char *next = g_strconcat (expected, token, NULL);
      g_free (expected);
      expected = next;
      g_assert_cmpstr (json_object_get_string_member (o, "text"), ==, expected);
    }
  run_clear (&r);

  /* text mode prints the seed's format: the text, then - "token": logit */
  r = run_cli ("predict", "--model", fixture, "--text", "the", "--steps", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "the"));
  g_assert_nonnull (strstr (r.out, "\n- \""));
  run_clear (&r);
}

static void
test_bench (void)
{
  Run r
      = run_cli ("bench", "--model", fixture, "--tokens", "4,16", "--repeat", "3", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpint (g_strv_length (lines), ==, 3);
  g_autoptr (JsonNode) second = parse_json (lines[1]);
  JsonObject *o = json_node_get_object (second);
  g_assert_cmpint (json_object_get_int_member (o, "tokens"), ==, 16);
  g_assert_cmpfloat (json_object_get_double_member (o, "median_ms"), >, 0.0);
  g_assert_cmpfloat (json_object_get_double_member (o, "min_ms"), <=,
                     json_object_get_double_member (o, "median_ms"));
  run_clear (&r);
}

static void
test_bad_input (void)
{
  /* a missing model folder */
  Run r = run_cli ("info", "--model", "/nonexistent/model-folder", NULL);
  assert_error (&r, 1, "/nonexistent/model-folder");
  run_clear (&r);
  /* usage errors exit 2 */
  r = run_cli ("info", "--model", fixture, "--no-such-option", NULL);
  assert_error (&r, 2, "--no-such-option");
  run_clear (&r);
  r = run_cli ("frobnicate", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);
  r = run_cli ("run", "--model", fixture, "--text", "the", NULL);
  assert_error (&r, 2, "--dump");
  run_clear (&r);
  /* empty text */
  r = run_cli ("predict", "--model", fixture, "--text", "", NULL);
  assert_error (&r, 1, "empty");
  run_clear (&r);
  /* invalid UTF-8 */
  r = run_cli ("tokenize", "--model", fixture, "ab\xc3(", NULL);
  assert_error (&r, 1, "UTF-8");
  run_clear (&r);
  /* longer than the context (32): the message names both numbers; --truncate keeps 32 */
  g_autoptr (GString) ids = g_string_new ("1");
  for (int i = 0; i < 39; i++)
    g_string_append (ids, ",7");
  g_autofree char *out = g_build_filename (test_tmpdir (), "long.h5", NULL);
  r = run_cli ("run", "--model", fixture, "--ids", ids->str, "--dump", out, NULL);
  assert_error (&r, 1, "40 tokens");
  g_assert_nonnull (strstr (r.err, "32"));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  run_clear (&r);
  r = run_cli ("run", "--model", fixture, "--ids", ids->str, "--dump", out, "--truncate", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "32 tokens"));
  run_clear (&r);
  /* a bad id list */
  r = run_cli ("run", "--model", fixture, "--ids", "1,x", "--dump", out, NULL);
  assert_error (&r, 1, "'x'");
  run_clear (&r);
}

/* A request larger than the memory budget is refused with both sizes, before any work. */
static void
test_memory_refused (void)
{
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", "20000", TRUE);
  g_autofree char *out = g_build_filename (test_tmpdir (), "mem.h5", NULL);
  Run r = run_cli ("run", "--model", fixture, "--ids", "1,2,3,4,5,6,7,8,9,10,11,12", "--dump", out,
                   NULL);
  g_unsetenv ("ATTNSCOPE_MEMORY_LIMIT");
  assert_error (&r, 1, "memory");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  run_clear (&r);
}

/* The version meson.build declares (project(..., version: 'X')). Newly allocated. */
static char *
declared_version (void)
{
  g_autofree char *path = test_source_path ("meson.build");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autoptr (GRegex) re = g_regex_new ("version: '([^']+)'", 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  g_assert_true (g_regex_match (re, text, 0, &m));
  return g_match_info_fetch (m, 1);
}

/* First contact: --help says what running without a command does and lists every command;
 * --version prints the version; an unknown command is a usage error that shows the usage. */
static void
test_first_contact (void)
{
  const char *const help_args[] = { "--help", "-h", "help" };
  for (gsize k = 0; k < G_N_ELEMENTS (help_args); k++)
    {
      Run r = run_cli (help_args[k], NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpstr (r.err, ==, "");
      g_assert_nonnull (strstr (r.out,
                                "Running attnscope without a command opens the desktop window on "
                                "the default\nmodel"));
      const char *const commands[]
          = { "info",  "tokenize", "run",     "predict",    "bench",     "similarity",
              "stats", "compare",  "project", "perplexity", "translate", "export" };
      for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
        {
          g_autofree char *line = g_strdup_printf ("\n  %-10s ", commands[i]);
          g_assert_nonnull (strstr (r.out, line));
        }
      g_assert_nonnull (strstr (r.out, "'attnscope --version'"));
      run_clear (&r);
    }
  g_autofree char *version = declared_version ();
  g_autofree char *want = g_strdup_printf ("attnscope %s\n", version);
  const char *const version_args[] = { "--version", "-V" };
  for (gsize k = 0; k < G_N_ELEMENTS (version_args); k++)
    {
      Run r = run_cli (version_args[k], NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpstr (r.out, ==, want);
      g_assert_cmpstr (r.err, ==, "");
      run_clear (&r);
    }
  Run r = run_cli ("frobnicate", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (
      g_str_has_prefix (r.err, "attnscope: usage error: unknown command 'frobnicate'\n"));
  g_assert_nonnull (strstr (r.err, "without a command opens the desktop"));
  run_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  fixture = test_source_path ("tests/fixtures/tiny-gpt2");
  g_test_add_func ("/cli/core/info", test_info);
  g_test_add_func ("/cli/core/tokenize", test_tokenize);
  g_test_add_func ("/cli/core/run-dump", test_run_dump);
  g_test_add_func ("/cli/core/run-no-partial-file", test_run_no_partial_file);
  g_test_add_func ("/cli/core/predict", test_predict);
  g_test_add_func ("/cli/core/bench", test_bench);
  g_test_add_func ("/cli/core/bad-input", test_bad_input);
  g_test_add_func ("/cli/core/memory-refused", test_memory_refused);
  g_test_add_func ("/cli/core/first-contact", test_first_contact);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (fixture);
  return status;
}

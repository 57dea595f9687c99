/* test-cli-perplexity.c — `attnscope perplexity` on the shipped default model attnscope-mini:
 * its held-out perplexity recomputed by attnscope equals the number the model's README states
 * (and metrics.json records, from the PyTorch evaluation) within 1 %, and is below the bigram
 * baseline's; per-token log-probabilities with --text agree with the --lines total; usage and
 * input errors follow the command-line contract (exit 2 / exit 1 with one error line). */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"

static char *model_dir;

static void
test_heldout_matches_readme (void)
{
  g_autofree char *heldout = g_build_filename (model_dir, "heldout.txt", NULL);
  g_autofree char *metrics_path = g_build_filename (model_dir, "metrics.json", NULL);
  g_autofree char *readme_path = g_build_filename (model_dir, "README.md", NULL);
  g_autoptr (JsonNode) metrics_root = read_json_file (metrics_path);
  JsonObject *metrics = json_node_get_object (metrics_root);
  double readme_ppl = json_object_get_double_member (metrics, "heldout_perplexity");
  double bigram_ppl = json_object_get_double_member (metrics, "bigram_kn_perplexity");

  /* the README states the same number */
  g_autofree char *readme = NULL;
  g_file_get_contents (readme_path, &readme, NULL, NULL);
  g_assert_nonnull (readme);
  g_autofree char *stated = g_strdup_printf ("held-out perplexity **%.2f**", readme_ppl);
  g_assert_nonnull (strstr (readme, stated));

  /* no --model: the default model is attnscope-mini */
  g_auto (Run) r = run_cli ("perplexity", "--lines", heldout, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "model"), ==, "attnscope-mini");
  g_assert_cmpint (json_object_get_int_member (o, "texts"), ==,
                   json_object_get_int_member (metrics, "heldout_lines"));
  g_assert_cmpint (json_object_get_int_member (o, "predicted_tokens"), ==,
                   json_object_get_int_member (metrics, "heldout_predicted_tokens"));
  double ppl = json_object_get_double_member (o, "perplexity");
  g_test_message ("attnscope %.6f, README %.6f, bigram %.4f", ppl, readme_ppl, bigram_ppl);
  g_assert_cmpfloat (fabs (ppl - readme_ppl), <=, 0.01 * readme_ppl);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "mean_nll"), log (ppl), 1e-6);
  g_assert_cmpfloat (ppl, <, bigram_ppl);
}

static void
test_text_logprobs (void)
{
  const char *text = "The man hit the car.";
  g_auto (Run) r = run_cli ("perplexity", "--model", model_dir, "--text", text, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "text"), ==, text);
  JsonArray *tokens = json_object_get_array_member (o, "tokens");
  g_assert_cmpuint (json_array_get_length (tokens), ==, 6);
  const char *want[] = { "The",
                         "\xc4\xa0man",
                         "\xc4\xa0hit",
                         "\xc4\xa0the",
                         "\xc4\xa0"
                         "car",
                         "." };
  double sum = 0;
  for (guint t = 0; t < 6; t++)
    {
      JsonObject *tok = json_array_get_object_element (tokens, t);
      g_assert_cmpint (json_object_get_int_member (tok, "index"), ==, t);
      g_assert_cmpstr (json_object_get_string_member (tok, "token"), ==, want[t]);
      if (t == 0)
        {
          g_assert_true (json_object_get_null_member (tok, "logprob"));
          continue;
        }
      double lp = json_object_get_double_member (tok, "logprob");
      g_assert_cmpfloat (lp, <, 0);
      g_assert_cmpfloat (lp, >, -30);
      sum += lp;
    }
  g_assert_cmpint (json_object_get_int_member (o, "predicted_tokens"), ==, 5);
  double mean_nll = json_object_get_double_member (o, "mean_nll");
  g_assert_cmpfloat_with_epsilon (mean_nll, -sum / 5, 1e-7);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "perplexity"), exp (mean_nll),
                                  1e-6 * exp (mean_nll));

  /* a file holding just this text gives the same perplexity (blank lines are skipped) */
  g_autofree char *path = g_build_filename (test_tmpdir (), "one.txt", NULL);
  g_autofree char *contents = g_strdup_printf ("\n%s\n  \n", text);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  g_auto (Run) l = run_cli ("perplexity", "--model", model_dir, "--lines", path, "--json", NULL);
  g_assert_cmpint (l.status, ==, 0);
  g_autoptr (JsonNode) lroot = parse_json (l.out);
  JsonObject *lo = json_node_get_object (lroot);
  g_assert_cmpint (json_object_get_int_member (lo, "texts"), ==, 1);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (lo, "mean_nll"), mean_nll, 1e-7);

  /* the text table lists every token and the total */
  g_auto (Run) tbl = run_cli ("perplexity", "--model", model_dir, "--text", text, NULL);
  g_assert_cmpint (tbl.status, ==, 0);
  g_assert_nonnull (strstr (tbl.out, "\"\xc4\xa0"
                                     "car\""));
  g_autofree char *total = g_strdup_printf ("mean NLL (nats) %.6f", mean_nll);
  g_assert_nonnull (strstr (tbl.out, total));
}

static void
test_errors (void)
{
  g_auto (Run) none = run_cli ("perplexity", "--model", model_dir, NULL);
  assert_error (&none, 2, "exactly one of --text T and --lines FILE");
  g_auto (Run) both = run_cli ("perplexity", "--text", "a", "--lines", "x.txt", NULL);
  assert_error (&both, 2, "exactly one of");

  g_autofree char *missing = g_build_filename (test_tmpdir (), "missing.txt", NULL);
  g_auto (Run) m = run_cli ("perplexity", "--model", model_dir, "--lines", missing, NULL);
  assert_error (&m, 1, "missing.txt");

  g_autofree char *blank = g_build_filename (test_tmpdir (), "blank.txt", NULL);
  g_assert_true (g_file_set_contents (blank, "\n   \n", -1, NULL));
  g_auto (Run) b = run_cli ("perplexity", "--model", model_dir, "--lines", blank, NULL);
  assert_error (&b, 1, "has no text");

  /* 200 words are more than the 128-token context: an error naming the line, or --truncate */
  g_autoptr (GString) longer = g_string_new ("Start");
  for (int i = 0; i < 200; i++)
    g_string_append (longer, " word");
  g_autofree char *long_path = g_build_filename (test_tmpdir (), "long.txt", NULL);
  g_assert_true (g_file_set_contents (long_path, longer->str, -1, NULL));
  g_auto (Run) tl = run_cli ("perplexity", "--model", model_dir, "--lines", long_path, NULL);
  assert_error (&tl, 1, "line 1");
  g_auto (Run) tr = run_cli ("perplexity", "--model", model_dir, "--lines", long_path, "--truncate",
                             "--json", NULL);
  g_assert_cmpint (tr.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (tr.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "predicted_tokens"), ==,
                   127);

  /* a model without a language-model head */
  g_autofree char *toy = test_source_path ("data/models/seed-single-head");
  g_auto (Run) t = run_cli ("perplexity", "--model", toy, "--text", "the cat", NULL);
  assert_error (&t, 1, "not a causal language model");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  model_dir = test_source_path ("data/models/attnscope-mini");
  g_test_add_func ("/cli/perplexity/heldout-matches-readme", test_heldout_matches_readme);
  g_test_add_func ("/cli/perplexity/text-logprobs", test_text_logprobs);
  g_test_add_func ("/cli/perplexity/errors", test_errors);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (model_dir);
  return status;
}

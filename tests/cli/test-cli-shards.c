/* test-cli-shards.c — `--shard K/N -o PART` and `attnscope merge` (cli-shard.h, as-shard.h): the
 * merge of the parts of 4 shards is byte for byte what one process prints, for `stats --lines`
 * (attnscope-mini, causal; attnscope-mini-bert, bidirectional; --pairs) and `perplexity --lines`,
 * JSON and text, whatever order the parts are given in, with empty shards too; and the refusals:
 * a missing or duplicated shard, parts of different models, corpora, options or commands, and
 * bad --shard values, each with the command-line contract's exit status and one error line. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"

static char *mini, *mini_bert;

/* A corpus of the first N_LINES lines of attnscope-mini's held-out text, with blank lines between
 * some (they are not corpus items and must not shift the shards). */
static char *
write_corpus (const char *name, int n_lines, int skip)
{
  g_autofree char *heldout = g_build_filename (mini, "heldout.txt", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (heldout, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GString) out = g_string_new (NULL);
  for (int i = 0; i < n_lines; i++)
    {
      g_assert_nonnull (lines[skip + i]);
      g_string_append_printf (out, "%s\n%s", lines[skip + i], i % 5 == 2 ? "\n  \n" : "");
    }
  char *path = g_build_filename (test_tmpdir (), name, NULL);
  g_assert_true (g_file_set_contents (path, out->str, -1, NULL));
  return path;
}

/* Runs COMMAND --model MODEL INPUT_OPTION CORPUS [EXTRA] --shard k/N -o TAG-k.json for every k;
 * returns the NULL-terminated part paths. */
static char **
run_shards (const char *command, const char *model, const char *input_option, const char *corpus,
            int n, const char *extra, const char *tag)
{
  char **parts = g_new0 (char *, n + 1);
  for (int k = 0; k < n; k++)
    {
      g_autofree char *spec = g_strdup_printf ("%d/%d", k, n);
      g_autofree char *name = g_strdup_printf ("%s-%d.json", tag, k);
      parts[k] = g_build_filename (test_tmpdir (), name, NULL);
      const char *argv[] = { command, "--model", model,    input_option, corpus, "--shard",
                             spec,    "-o",      parts[k], extra,        NULL };
      g_auto (Run) r = run_cli_argv (argv);
      if (r.status != 0)
        g_test_message ("%s", r.err);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpstr (r.out, ==, "");
    }
  return parts;
}

/* Runs merge [--json] PARTS (in the order of ORDER [N], or as given when NULL). */
static Run
merge (char **parts, const int *order, gboolean json)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, "merge");
  if (json)
    g_ptr_array_add (argv, "--json");
  for (int i = 0; parts[i] != NULL; i++)
    g_ptr_array_add (argv, parts[order != NULL ? order[i] : i]);
  g_ptr_array_add (argv, NULL);
  return run_cli_argv ((const char *const *) argv->pdata);
}

/* One process over CORPUS, with and without --json, equals the merge of N shards (given in
 * reverse order). */
static void
check_merge_equals_one_run (const char *command, const char *model, const char *input_option,
                            const char *corpus, int n, const char *tag)
{
  g_auto (GStrv) parts = run_shards (command, model, input_option, corpus, n, NULL, tag);
  int order[64];
  g_assert_cmpint (n, <=, 64);
  for (int i = 0; i < n; i++)
    order[i] = n - 1 - i;
  for (int json = 0; json < 2; json++)
    {
      const char *argv[]
          = { command, "--model", model, input_option, corpus, json ? "--json" : NULL, NULL };
      g_auto (Run) one = run_cli_argv (argv);
      g_assert_cmpint (one.status, ==, 0);
      g_auto (Run) merged = merge (parts, order, json);
      if (merged.status != 0)
        g_test_message ("%s", merged.err);
      g_assert_cmpint (merged.status, ==, 0);
      g_assert_cmpstr (merged.err, ==, "");
      g_assert_cmpstr (merged.out, ==, one.out);
      g_assert_cmpuint (strlen (one.out), >, 50);
    }
}

static void
test_stats_merge (void)
{
  g_autofree char *corpus = write_corpus ("stats.txt", 30, 0);
  check_merge_equals_one_run ("stats", mini, "--lines", corpus, 4, "stats-mini");
  check_merge_equals_one_run ("stats", mini_bert, "--lines", corpus, 4, "stats-bert");

  /* the parts hold sums and counts: 30 lines round robin over 4 shards are 8, 8, 7, 7 */
  g_autofree char *part1 = g_build_filename (test_tmpdir (), "stats-mini-1.json", NULL);
  g_autoptr (JsonNode) root = read_json_file (part1);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "attnscope_part"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (o, "command"), ==, "stats");
  g_assert_cmpint (json_object_get_int_member (o, "shard"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "shards"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (o, "items"), ==, 8);
  JsonObject *corpus_o = json_object_get_object_member (o, "corpus");
  g_assert_cmpint (json_object_get_int_member (corpus_o, "items"), ==, 30);
  g_assert_cmpuint (strlen (json_object_get_string_member (corpus_o, "sha256")), ==, 64);
  JsonObject *result = json_object_get_object_member (o, "result");
  g_assert_cmpint (json_object_get_int_member (result, "sentences"), ==, 8);
  JsonArray *counts = json_object_get_array_member (result, "counts");
  /* attnscope-mini: 4 layers × 8 heads × 7 statistics, entropy counted in all 8 sentences */
  g_assert_cmpuint (json_array_get_length (counts), ==, 4 * 8 * 7);
  g_assert_cmpint (json_array_get_int_element (counts, 0), ==, 8);
}

static void
test_pairs_merge (void)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "pairs.txt", NULL);
  g_assert_true (g_file_set_contents (path,
                                      "The man hit the car.\tThe car hit the man.\n"
                                      "A dog barks.\tThe cat sleeps.\n\n"
                                      "It rains.\tWe stay inside.\n"
                                      "Birds sing.\tThe sun rises.\n"
                                      "She reads.\tHe writes.\n",
                                      -1, NULL));
  check_merge_equals_one_run ("stats", mini_bert, "--pairs", path, 4, "pairs");
}

static void
test_perplexity_merge (void)
{
  g_autofree char *corpus = write_corpus ("ppl.txt", 30, 100);
  check_merge_equals_one_run ("perplexity", mini, "--lines", corpus, 4, "ppl");
  /* more shards than lines: the empty shards write parts too, and the merge still equals */
  g_autofree char *small = write_corpus ("small.txt", 3, 200);
  check_merge_equals_one_run ("perplexity", mini, "--lines", small, 5, "ppl-small");
}

static void
test_refusals (void)
{
  g_autofree char *corpus = write_corpus ("refuse.txt", 8, 300);
  g_autofree char *other = write_corpus ("other.txt", 8, 400);
  g_auto (GStrv) parts = run_shards ("stats", mini, "--lines", corpus, 4, NULL, "ref");

  /* a missing shard (2/4) and two missing ones */
  char *three[] = { parts[0], parts[1], parts[3], NULL };
  g_auto (Run) missing = merge (three, NULL, TRUE);
  assert_error (&missing, 1, "shard 2/4 is missing");
  char *two[] = { parts[3], parts[0], NULL };
  g_auto (Run) missing2 = merge (two, NULL, FALSE);
  assert_error (&missing2, 1, "shards 1/4, 2/4 are missing");

  /* a duplicated shard, named with its two files */
  char *dup[] = { parts[0], parts[1], parts[2], parts[3], parts[1], NULL };
  g_auto (Run) twice = merge (dup, NULL, TRUE);
  assert_error (&twice, 1, "shard 1/4 is given twice");
  g_assert_nonnull (strstr (twice.err, "ref-1.json"));

  /* another model, another corpus, another option, another command, another N */
  g_auto (GStrv) bert = run_shards ("stats", mini_bert, "--lines", corpus, 4, NULL, "ref-bert");
  char *models[] = { parts[0], parts[1], bert[2], parts[3], NULL };
  g_auto (Run) m = merge (models, NULL, TRUE);
  assert_error (&m, 1, "the models differ");
  g_assert_nonnull (strstr (m.err, "attnscope-mini-bert"));
  g_auto (GStrv) corp = run_shards ("stats", mini, "--lines", other, 4, NULL, "ref-other");
  char *corpora[] = { parts[0], corp[1], parts[2], parts[3], NULL };
  g_auto (Run) c = merge (corpora, NULL, TRUE);
  assert_error (&c, 1, "the corpora");
  g_auto (GStrv) trunc = run_shards ("stats", mini, "--lines", corpus, 4, "--truncate", "ref-t");
  char *options[] = { parts[0], parts[1], parts[2], trunc[3], NULL };
  g_auto (Run) op = merge (options, NULL, TRUE);
  assert_error (&op, 1, "the options differ");
  g_assert_nonnull (strstr (op.err, "truncate: false and true"));
  g_auto (GStrv) ppl = run_shards ("perplexity", mini, "--lines", corpus, 4, NULL, "ref-ppl");
  char *commands[] = { parts[0], parts[1], ppl[2], parts[3], NULL };
  g_auto (Run) cm = merge (commands, NULL, TRUE);
  assert_error (&cm, 1, "the commands differ");
  g_auto (GStrv) n2 = run_shards ("stats", mini, "--lines", corpus, 2, NULL, "ref-n2");
  char *counts[] = { parts[0], n2[1], parts[2], parts[3], NULL };
  g_auto (Run) cn = merge (counts, NULL, TRUE);
  assert_error (&cn, 1, "the shard counts differ");

  /* not a part file */
  char *bad[] = { parts[0], corpus, NULL };
  g_auto (Run) notjson = merge (bad, NULL, TRUE);
  assert_error (&notjson, 1, "refuse.txt");
  g_auto (Run) none = run_cli ("merge", "--json", NULL);
  assert_error (&none, 2, "part files");
}

static void
test_bad_shard_options (void)
{
  g_autofree char *corpus = write_corpus ("opts.txt", 4, 500);
  g_autofree char *part = g_build_filename (test_tmpdir (), "opts-part.json", NULL);
  const struct
  {
    const char *spec, *needle;
  } bad[] = {
    { "4/4", "shard 4/4 does not exist" },
    { "0/0", "shard 0/0 does not exist" },
    { "5/4", "K is not below N" },
    { "a/b", "expected K/N" },
    { "1/", "expected K/N" },
    { "-1/4", "expected K/N" },
    { "1/4x", "expected K/N" },
    { "1", "expected K/N" },
    { "99999999999/100000000000", "expected K/N" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      for (int c = 0; c < 2; c++)
        {
          g_auto (Run) r = run_cli (c == 0 ? "stats" : "perplexity", "--model", mini, "--lines",
                                    corpus, "--shard", bad[i].spec, "-o", part, NULL);
          assert_error (&r, 2, bad[i].needle);
        }
    }
  g_auto (Run) no_o = run_cli ("stats", "--model", mini, "--lines", corpus, "--shard", "0/2", NULL);
  assert_error (&no_o, 2, "needs -o FILE");
  g_auto (Run) no_shard
      = run_cli ("perplexity", "--model", mini, "--lines", corpus, "-o", part, NULL);
  assert_error (&no_shard, 2, "goes with --shard");
  g_auto (Run) text
      = run_cli ("stats", "--model", mini, "--text", "a b", "--shard", "0/2", "-o", part, NULL);
  assert_error (&text, 2, "goes with --lines");
  g_assert_false (g_file_test (part, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  mini = test_source_path ("data/models/attnscope-mini");
  mini_bert = test_source_path ("data/models/attnscope-mini-bert");
  g_test_add_func ("/cli/shards/stats-merge", test_stats_merge);
  g_test_add_func ("/cli/shards/pairs-merge", test_pairs_merge);
  g_test_add_func ("/cli/shards/perplexity-merge", test_perplexity_merge);
  g_test_add_func ("/cli/shards/refusals", test_refusals);
  g_test_add_func ("/cli/shards/bad-shard-options", test_bad_shard_options);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (mini);
  g_free (mini_bert);
  return status;
}

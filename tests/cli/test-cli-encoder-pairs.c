/* test-cli-encoder-pairs.c — sentence pairs on the command line beyond `run`/`predict`:
 * `stats --pairs FILE` (one "A<TAB>B" per line) on attnscope-mini-bert gives, per head and
 * statistic, the unweighted mean of `stats --text A --pair B` over the pairs (recomputed here from
 * the single-pair outputs), with the labels of those shares; the errors of --pairs (a line without
 * a tab, a model that is not an encoder) and of `export --pair/--segments/--compare-pair`
 * (unknown filter, a decoder, --compare-pair alone). The window's side of the same options is
 * tests/ui/test-export-parity.c (byte-identical PNGs). */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"

#define MINI_BERT "attnscope-mini-bert"

static const char *const pairs[][2] = {
  { "the cat sat on the mat .", "a small dog ran in the park ." },
  { "a tree with green leaves", "the leaves fall in autumn" },
  { "to move quickly on foot", "he ran home" },
};

static const char *const kinds[]
    = { "entropy", "previous", "first", "self", "next", "cls", "sep", NULL };

static char *
write_pairs_file (const char *name, const char *contents)
{
  char *path = g_build_filename (test_tmpdir (), name, NULL);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

/* The pixel size of the PNG file PATH, from its IHDR chunk. */
static void
png_size (const char *path, int *width, int *height)
{
  g_autofree guchar *data = NULL;
  gsize n = 0;
  g_assert_true (g_file_get_contents (path, (char **) &data, &n, NULL));
  g_assert_cmpuint (n, >, 24);
  g_assert_cmpint (memcmp (data + 12, "IHDR", 4), ==, 0);
  *width = (data[16] << 24) | (data[17] << 16) | (data[18] << 8) | data[19];
  *height = (data[20] << 24) | (data[21] << 16) | (data[22] << 8) | data[23];
}

/* The "heads" array of a `stats --json` output. */
static JsonArray *
heads_of (JsonNode *root)
{
  JsonObject *o = json_node_get_object (root);
  return json_object_get_array_member (o, "heads");
}

static void
test_stats_pairs (void)
{
  GString *file = g_string_new (NULL);
  for (gsize p = 0; p < G_N_ELEMENTS (pairs); p++)
    g_string_append_printf (file, "%s\t%s\n", pairs[p][0], pairs[p][1]);
  g_string_append (file, "   \n"); /* blank lines are skipped */
  g_autofree char *path = write_pairs_file ("pairs.tsv", file->str);
  g_string_free (file, TRUE);

  g_auto (Run) all = run_cli ("stats", "--model", MINI_BERT, "--pairs", path, "--json", NULL);
  g_assert_cmpint (all.status, ==, 0);
  g_autoptr (JsonNode) all_root = parse_json (all.out);
  JsonObject *all_o = json_node_get_object (all_root);
  g_assert_cmpint (json_object_get_int_member (all_o, "sentences"), ==, 3);
  JsonArray *all_heads = heads_of (all_root);
  g_assert_cmpuint (json_array_get_length (all_heads), ==, 16);

  /* each pair alone */
  JsonNode *single[G_N_ELEMENTS (pairs)];
  for (gsize p = 0; p < G_N_ELEMENTS (pairs); p++)
    {
      g_auto (Run) one = run_cli ("stats", "--model", MINI_BERT, "--text", pairs[p][0], "--pair",
                                  pairs[p][1], "--json", NULL);
      g_assert_cmpint (one.status, ==, 0);
      single[p] = parse_json (one.out);
    }
  int differ = 0;
  for (guint e = 0; e < 16; e++)
    {
      JsonObject *h = json_array_get_object_element (all_heads, e);
      for (int k = 0; kinds[k] != NULL; k++)
        {
          double sum = 0, first = 0;
          for (gsize p = 0; p < G_N_ELEMENTS (pairs); p++)
            {
              double v = json_object_get_double_member (
                  json_array_get_object_element (heads_of (single[p]), e), kinds[k]);
              sum += v;
              if (p == 0)
                first = v;
            }
          double mean = sum / G_N_ELEMENTS (pairs);
          double got = json_object_get_double_member (h, kinds[k]);
          g_assert_cmpfloat_with_epsilon (got, mean, 2e-6);
          differ += fabs (first - mean) > 1e-3;
        }
      /* the label follows the aggregated shares: a share label needs a share >= 0.5 */
      const char *label = json_object_get_string_member (h, "label");
      if (g_strv_contains (kinds, label))
        g_assert_cmpfloat (json_object_get_double_member (h, label), >=, 0.5);
      else if (g_str_equal (label, "broad"))
        g_assert_cmpfloat (json_object_get_double_member (h, "entropy"), >=, 0.9);
      else
        g_assert_cmpstr (label, ==, "mixed");
    }
  /* the pairs differ: the mean is not just the first pair's numbers */
  g_assert_cmpint (differ, >, 10);
  for (gsize p = 0; p < G_N_ELEMENTS (pairs); p++)
    json_node_unref (single[p]);
  g_unlink (path);
}

static void
test_stats_pairs_errors (void)
{
  g_autofree char *path = write_pairs_file ("bad-pairs.tsv", "the cat\ta dog\nno tab here\n");
  g_auto (Run) no_tab = run_cli ("stats", "--model", MINI_BERT, "--pairs", path, NULL);
  g_autofree char *needle = g_strdup_printf (
      "--pairs: %s line 2: expected two texts separated by one tab (A<TAB>B), found no tab", path);
  assert_error (&no_tab, 1, needle);

  g_autofree char *fixture = test_source_path ("tests/fixtures/tiny-gpt2");
  g_autofree char *ok = write_pairs_file ("ok-pairs.tsv", "the cat\ta dog\n");
  g_auto (Run) decoder = run_cli ("stats", "--model", fixture, "--pairs", ok, NULL);
  assert_error (&decoder, 2, "is not an encoder: --pairs needs one");
  g_auto (Run) both = run_cli ("stats", "--model", MINI_BERT, "--pairs", ok, "--text", "x", NULL);
  assert_error (&both, 2, "give exactly one of --text T, --lines FILE or --pairs FILE");
  g_unlink (path);
  g_unlink (ok);
}

static void
test_export_pair_errors (void)
{
  g_autofree char *out = g_build_filename (test_tmpdir (), "pair.png", NULL);
  g_auto (Run) filter
      = run_cli ("export", "--model", MINI_BERT, "--text", "the cat", "--pair", "a dog", "--layer",
                 "0", "--head", "0", "--segments", "a-c", "-o", out, NULL);
  assert_error (&filter, 1, "--segments 'a-c' is not one of all, a-a, a-b, b-a, b-b");
  g_autofree char *fixture = test_source_path ("tests/fixtures/tiny-gpt2");
  g_auto (Run) decoder = run_cli ("export", "--model", fixture, "--text", "the cat", "--pair",
                                  "a dog", "--layer", "0", "--head", "0", "-o", out, NULL);
  assert_error (&decoder, 2, "is not an encoder: --pair needs one");
  g_auto (Run) alone = run_cli ("export", "--model", MINI_BERT, "--text", "the cat", "--layer", "0",
                                "--head", "0", "--compare-pair", "a dog", "-o", out, NULL);
  assert_error (&alone, 2, "--compare-pair goes with --compare");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));

  /* the filter's block is a smaller figure than the whole square, a single text ignores it */
  g_autofree char *whole = g_build_filename (test_tmpdir (), "whole.png", NULL);
  g_autofree char *block = g_build_filename (test_tmpdir (), "block.png", NULL);
  g_autofree char *single = g_build_filename (test_tmpdir (), "single.png", NULL);
  g_autofree char *single_filtered = g_build_filename (test_tmpdir (), "single-ab.png", NULL);
  g_auto (Run) w
      = run_cli ("export", "--model", MINI_BERT, "--text", "the cat sat", "--pair",
                 "a dog ran in the park", "--layer", "0", "--head", "0", "-o", whole, NULL);
  g_auto (Run) b = run_cli ("export", "--model", MINI_BERT, "--text", "the cat sat", "--pair",
                            "a dog ran in the park", "--layer", "0", "--head", "0", "--segments",
                            "a-b", "-o", block, NULL);
  g_auto (Run) s = run_cli ("export", "--model", MINI_BERT, "--text", "the cat sat", "--layer", "0",
                            "--head", "0", "-o", single, NULL);
  g_auto (Run) sf = run_cli ("export", "--model", MINI_BERT, "--text", "the cat sat", "--layer",
                             "0", "--head", "0", "--segments", "a-b", "-o", single_filtered, NULL);
  g_assert_cmpint (w.status + b.status + s.status + sf.status, ==, 0);
  int width[4], height[4];
  const char *paths[] = { whole, block, single, single_filtered };
  for (int i = 0; i < 4; i++)
    {
      png_size (paths[i], &width[i], &height[i]);
      g_unlink (paths[i]);
    }
  /* 5 of 13 rows ([CLS] the cat sat [SEP]) against 7 columns (a dog ran in the park [SEP]) */
  g_assert_cmpint (height[1], <, height[0]);
  g_assert_cmpint (width[2], ==, width[3]);
  g_assert_cmpint (height[2], ==, height[3]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/encoder-pairs/stats-pairs", test_stats_pairs);
  g_test_add_func ("/cli/encoder-pairs/stats-pairs-errors", test_stats_pairs_errors);
  g_test_add_func ("/cli/encoder-pairs/export-errors", test_export_pair_errors);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

/* test-cli-mini-heads.c — the default model's head patterns as a user checks them: `attnscope stats
 * --lines heldout.txt --json` on the default model (no --model) over its whole held-out file.
 * Every head's previous- and first-token share equals the one metrics.json records (computed
 * in PyTorch by data/train-mini/evaluate.py, which the model README quotes) within 1e-4; the
 * best previous-token head and the best first-token head each reach 0.5. */
#include <json-glib/json-glib.h>

#include "check-close.h"
#include "cli-support.h"

#define SHARE_ATOL 1e-4
#define TARGET 0.5

static void
test_stats_lines_heldout (void)
{
  g_autofree char *dir = test_source_path ("data/models/attnscope-mini");
  g_autofree char *heldout = g_build_filename (dir, "heldout.txt", NULL);
  g_autofree char *metrics_path = g_build_filename (dir, "metrics.json", NULL);
  g_autoptr (JsonNode) metrics_root = read_json_file (metrics_path);
  JsonObject *metrics = json_node_get_object (metrics_root);

  g_auto (Run) r = run_cli ("stats", "--lines", heldout, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "sentences"), ==,
                   json_object_get_int_member (metrics, "heldout_lines"));
  JsonArray *heads = json_object_get_array_member (o, "heads");
  g_assert_cmpint (json_array_get_length (heads), ==, 32);

  double best_previous = 0, best_first = 0;
  for (guint e = 0; e < json_array_get_length (heads); e++)
    {
      JsonObject *h = json_array_get_object_element (heads, e);
      int layer = (int) json_object_get_int_member (h, "layer");
      int head = (int) json_object_get_int_member (h, "head");
      double previous = json_object_get_double_member (h, "previous");
      double first = json_object_get_double_member (h, "first");
      g_assert_cmpfloat_with_epsilon (
          previous, json_table_get (metrics, "head_previous", layer, head), SHARE_ATOL);
      g_assert_cmpfloat_with_epsilon (first, json_table_get (metrics, "head_first", layer, head),
                                      SHARE_ATOL);
      best_previous = MAX (best_previous, previous);
      best_first = MAX (best_first, first);
    }
  g_test_message ("attnscope stats over %s: best previous-token share %.4f, best first-token "
                  "share %.4f",
                  heldout, best_previous, best_first);
  g_assert_cmpfloat (best_previous, >=, TARGET);
  g_assert_cmpfloat (best_first, >=, TARGET);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/mini-heads/stats-lines-heldout", test_stats_lines_heldout);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

/* test-cli-mini-bert-heads.c — the shipped encoder's head shares as a user measures them:
 * `attnscope stats --model attnscope-mini-bert --lines heldout.txt --truncate --json` over the
 * whole held-out file. Every head's [CLS], [SEP], previous, next, self and entropy value equals
 * the one metrics.json records (computed in PyTorch by data/train-mini-bert/evaluate.py, which
 * the model's README quotes) within 1e-4, and every label follows the rules of as-head-stats.h
 * applied to those recorded values. The folder's tokenizer is BERT's WordPiece from vocab.txt,
 * so this also checks that the engine tokenizes the held-out texts as the training did. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"

#define SHARE_ATOL 1e-4

static const char *const kinds[] = { "cls", "sep", "previous", "next", "self", "entropy" };

/* The label as-head-stats.h defines for a bidirectional head, from the recorded shares: the
 * first of previous, cls, (first = cls here), self, next, sep reaching 0.5 (the largest wins),
 * else broad at entropy >= 0.9, else mixed. */
static const char *
expected_label (JsonObject *shares, int layer, int head)
{
  const char *order[] = { "previous", "cls", "self", "next", "sep" };
  const char *best = NULL;
  double best_value = 0.5;
  for (gsize i = 0; i < G_N_ELEMENTS (order); i++)
    {
      double v = json_table_get (shares, order[i], layer, head);
      if (v >= best_value && (best == NULL || v > best_value))
        {
          best = order[i];
          best_value = v;
        }
    }
  if (best != NULL)
    return best;
  return json_table_get (shares, "entropy", layer, head) >= 0.9 ? "broad" : "mixed";
}

static void
test_stats_lines_heldout (void)
{
  g_autofree char *dir = test_source_path ("data/models/attnscope-mini-bert");
  g_autofree char *heldout = g_build_filename (dir, "heldout.txt", NULL);
  g_autofree char *metrics_path = g_build_filename (dir, "metrics.json", NULL);
  g_autoptr (JsonNode) metrics_root = read_json_file (metrics_path);
  JsonObject *metrics = json_node_get_object (metrics_root);
  JsonObject *shares = json_object_get_object_member (metrics, "head_shares_single");

  g_auto (Run) r = run_cli ("stats", "--model", "attnscope-mini-bert", "--lines", heldout,
                            "--truncate", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "sentences"), ==,
                   json_object_get_int_member (metrics, "heldout_lines"));
  JsonArray *heads = json_object_get_array_member (o, "heads");
  g_assert_cmpint (json_array_get_length (heads), ==, 16);
  double worst = 0;
  for (guint e = 0; e < json_array_get_length (heads); e++)
    {
      JsonObject *h = json_array_get_object_element (heads, e);
      int layer = (int) json_object_get_int_member (h, "layer");
      int head = (int) json_object_get_int_member (h, "head");
      for (gsize k = 0; k < G_N_ELEMENTS (kinds); k++)
        {
          double got = json_object_get_double_member (h, kinds[k]);
          double want = json_table_get (shares, kinds[k], layer, head);
          worst = MAX (worst, fabs (got - want));
          g_assert_cmpfloat_with_epsilon (got, want, SHARE_ATOL);
        }
      g_assert_cmpstr (json_object_get_string_member (h, "label"), ==,
                       expected_label (shares, layer, head));
    }
  g_test_message ("attnscope stats over %s: every share within %.2g of metrics.json", heldout,
                  worst);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/mini-bert-heads/stats-lines-heldout", test_stats_lines_heldout);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

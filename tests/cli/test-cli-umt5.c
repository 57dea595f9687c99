/* test-cli-umt5.c — a umT5 model (tests/reference/t5_reference.py --model-type umt5: a bias table
 * in every layer) through the command line: `info` names the per-layer tables and the untied head;
 * `translate --ids` gives the reference's greedy and beam ids. */
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "t5-models.h"

static void
test_info (void)
{
  g_autofree char *model = t5_model ("umt5", t5_umt5);
  if (model == NULL)
    return;
  g_auto (Run) r = run_cli ("info", "--model", model, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "model_type"), ==, "umt5");
  g_assert_cmpint (json_object_get_int_member (o, "n_encoder_layer"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (o, "n_layer"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (o, "output_head"), ==, "untied");
  JsonObject *s = json_object_get_object_member (o, "settings");
  g_assert_cmpstr (json_object_get_string_member (s, "position_bias"), ==,
                   "a table per layer (umT5)");
  g_assert_cmpstr (json_object_get_string_member (s, "relative_attention_num_buckets"), ==, "16");
  g_assert_cmpstr (json_object_get_string_member (s, "relative_attention_max_distance"), ==, "20");
}

/* translate --ids: the reference's ids for greedy and 3 beams. */
static void
test_translate_ids (void)
{
  g_autofree char *model = t5_model ("umt5", t5_umt5);
  if (model == NULL)
    return;
  const char *src = "37,12,88,5,140,9,1";
  for (int beams = 1; beams <= 3; beams += 2)
    {
      g_autofree char *path = t5_generated (model, src, beams, 0);
      if (path == NULL)
        return;
      g_autoptr (JsonNode) want = read_json_file (path);
      JsonArray *want_ids = json_object_get_array_member (json_node_get_object (want), "ids");
      g_autofree char *b = g_strdup_printf ("%d", beams);
      g_auto (Run) r
          = run_cli ("translate", "--model", model, "--ids", src, "--beams", b, "--json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonNode) got = parse_json (r.out);
      JsonArray *ids = json_object_get_array_member (json_node_get_object (got), "ids");
      g_assert_cmpuint (json_array_get_length (ids), ==, json_array_get_length (want_ids));
      for (guint i = 0; i < json_array_get_length (ids); i++)
        g_assert_cmpint (json_array_get_int_element (ids, i), ==,
                         json_array_get_int_element (want_ids, i));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/umt5/info", test_info);
  g_test_add_func ("/cli/umt5/translate-ids", test_translate_ids);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

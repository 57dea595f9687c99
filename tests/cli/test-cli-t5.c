/* test-cli-t5.c — a T5-family model (tests/reference/t5_reference.py, with T5's Unigram
 * tokenizer.json) through the command line: `info` names the family's settings (bucket count and
 * distance, feed_forward_proj, the norm, the unscaled scores, the tied output's rescale), both
 * stacks' layers and the output head (tied T5, untied mT5, BART's tied head plus
 * final_logits_bias); `translate` gives the reference's generate ids (greedy and beam); `export
 * --position-bias H` draws a head's position bias of the encoder and the decoder (a PNG of the
 * requested width) and refuses a head out of range, --kind cross and a model without a position
 * bias, each with one clear line. */
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "bart-models.h"
#include "t5-models.h"

static void
test_info (void)
{
  g_autofree char *model = t5_model_with_tokenizer ();
  if (model == NULL)
    return;
  g_auto (Run) r = run_cli ("info", "--model", model, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "model_type"), ==, "t5");
  JsonObject *s = json_object_get_object_member (o, "settings");
  g_assert_cmpstr (json_object_get_string_member (s, "relative_attention_num_buckets"), ==, "32");
  g_assert_cmpstr (json_object_get_string_member (s, "relative_attention_max_distance"), ==, "128");
  g_assert_cmpstr (json_object_get_string_member (s, "feed_forward_proj"), ==, "gated-gelu");
  g_assert_nonnull (strstr (json_object_get_string_member (s, "norm"), "RMS"));
  g_assert_nonnull (strstr (json_object_get_string_member (s, "tie_word_embeddings"), "-0.5"));
  /* an encoder–decoder's stacks and its output head, in JSON and as text */
  g_assert_cmpint (json_object_get_int_member (o, "n_encoder_layer"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (o, "head"), ==, "seq2seq-lm");
  g_assert_cmpstr (json_object_get_string_member (o, "output_head"), ==, "tied");
  g_assert_false (json_object_has_member (o, "type_vocab_size"));
  g_auto (Run) text = run_cli ("info", "--model", model, NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "layers:        2 encoder, 2 decoder\n"));
  g_assert_nonnull (
      strstr (text.out, "output:        language-model head over the decoder: tied to the shared "
                        "embedding\n"));
  g_assert_null (strstr (text.out, "token types"));
  g_assert_nonnull (strstr (text.out, "relative_attention_num_buckets: 32\n"));
  g_assert_nonnull (strstr (text.out, "relative_attention_max_distance: 128\n"));
  g_assert_nonnull (strstr (text.out, "norm:          T5LayerNorm"));
}

/* The untied mT5's head (its tie_word_embeddings false) and BART's final_logits_bias. */
static void
test_info_heads (void)
{
  g_autofree char *mt5 = t5_model ("flan-gated", t5_flan_gated);
  g_autofree char *bart = mt5 ? bart_model ("bart-post", bart_post) : NULL;
  if (bart == NULL)
    return;
  const struct
  {
    const char *model, *json, *text;
  } cases[] = {
    { mt5, "untied",
      "output:        language-model head over the decoder: untied "
      "(lm_head.weight)\n" },
    { bart, "tied+final_logits_bias",
      "output:        language-model head over the decoder: tied "
      "to the shared embedding, plus final_logits_bias\n" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Run) r = run_cli ("info", "--model", cases[i].model, "--json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonNode) root = parse_json (r.out);
      JsonObject *o = json_node_get_object (root);
      g_assert_cmpstr (json_object_get_string_member (o, "output_head"), ==, cases[i].json);
      g_auto (Run) text = run_cli ("info", "--model", cases[i].model, NULL);
      g_assert_cmpint (text.status, ==, 0);
      g_assert_nonnull (strstr (text.out, cases[i].text));
    }
}

/* translate --ids: the reference's ids for greedy and 3 beams. */
static void
test_translate_ids (void)
{
  g_autofree char *model = t5_model_with_tokenizer ();
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

static void
test_export_position_bias (void)
{
  g_autofree char *model = t5_model_with_tokenizer ();
  if (model == NULL)
    return;
  const char *kinds[] = { "encoder", "decoder" };
  for (int k = 0; k < 2; k++)
    {
      g_autofree char *name = g_strdup_printf ("bias-%s.png", kinds[k]);
      g_autofree char *out = g_build_filename (test_tmpdir (), name, NULL);
      g_auto (Run) r = run_cli ("export", "--model", model, "--text",
                                "The group went home after the long day.", "--target",
                                "Die Gruppe ging nach Hause.", "--kind", kinds[k],
                                "--position-bias", "3", "--width", "640px", "-o", out, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autofree char *png = NULL;
      gsize n = 0;
      g_assert_true (g_file_get_contents (out, &png, &n, NULL));
      g_assert_cmpuint (n, >, 1000);
      g_assert_cmpmem (png + 1, 3, "PNG", 3);
      /* width in the IHDR chunk, big-endian at byte 16 */
      guint32 width = ((guint8) png[16] << 24) | ((guint8) png[17] << 16) | ((guint8) png[18] << 8)
                      | (guint8) png[19];
      g_assert_cmpuint (width, ==, 640);
    }
  g_autofree char *out = g_build_filename (test_tmpdir (), "bad.png", NULL);
  g_auto (Run) range = run_cli ("export", "--model", model, "--text", "The group went home.",
                                "--position-bias", "4", "-o", out, NULL);
  assert_error (&range, 1, "--position-bias");
  g_auto (Run) cross = run_cli ("export", "--model", model, "--text", "The group went home.",
                                "--kind", "cross", "--position-bias", "0", "-o", out, NULL);
  assert_error (&cross, 1, "--position-bias is of --kind encoder or decoder");
  g_auto (Run) both = run_cli ("export", "--model", model, "--text", "The group went home.",
                               "--position-bias", "0", "--mean", "0", "-o", out, NULL);
  assert_error (&both, 2, "--position-bias");
  g_autofree char *tiny = test_source_path ("tests/fixtures/tiny-gpt2");
  g_auto (Run) gpt2 = run_cli ("export", "--model", tiny, "--text", "The group went home.",
                               "--position-bias", "0", "-o", out, NULL);
  assert_error (&gpt2, 1, "adds no position bias");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/t5/info", test_info);
  g_test_add_func ("/cli/t5/info-heads", test_info_heads);
  g_test_add_func ("/cli/t5/translate-ids", test_translate_ids);
  g_test_add_func ("/cli/t5/export-position-bias", test_export_position_bias);
  return g_test_run ();
}

/* test-cli-why.c — `attnscope export`'s options for the "why this prediction" figures:
 * - --attribution with --target-token WORD / --vs-target-token WORD2 draws the same bytes as
 *   with the words' ids; a word the vocabulary splits is refused naming its pieces, with no file;
 *   a word and an id for the same token, or a word without --attribution, are usage errors;
 * - --weighting norm draws another figure than the weights (of a head and of a mean), the same
 *   bytes twice; --weighting with another word, with --rollout or --grid is
 *   refused with a clear message and no file, as is a translation's encoder or cross-attention;
 * - --qk-rope before draws another query–key figure than after (the default) on a rotary model. */
#include <glib/gstdio.h>
#include <string.h>

#include "cli-support.h"
#include "decoder-models.h"

#define TEXT "The man hit the car because he was"

/* The id of WORD (one token) under attnscope-mini, from `attnscope tokenize --json`. */
static char *
id_of (const char *word)
{
  g_auto (Run) r = run_cli ("tokenize", "--model", "attnscope-mini", "--json", word, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonArray *ids = json_object_get_array_member (json_node_get_object (root), "ids");
  g_assert_cmpuint (json_array_get_length (ids), ==, 1);
  return g_strdup_printf ("%" G_GINT64_FORMAT, json_array_get_int_element (ids, 0));
}

static GBytes *
read_bytes (const char *path)
{
  g_autofree char *data = NULL;
  gsize n = 0;
  g_assert_true (g_file_get_contents (path, &data, &n, NULL));
  g_assert_cmpuint (n, >, 1000);
  g_assert_true (memcmp (data, "\x89PNG", 4) == 0);
  return g_bytes_new_take (g_steal_pointer (&data), n);
}

static void
test_target_token (void)
{
  g_autofree char *dir = g_dir_make_tmp ("attnscope-why-XXXXXX", NULL);
  g_autofree char *by_word = g_build_filename (dir, "word.png", NULL);
  g_autofree char *by_id = g_build_filename (dir, "id.png", NULL);
  g_autofree char *car = id_of (" car");
  g_autofree char *man = id_of (" man");
  g_auto (Run) word
      = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT, "--attribution",
                 "--target-token", " car", "--vs-target-token", " man", "-o", by_word, NULL);
  g_auto (Run) id = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT, "--attribution",
                             "--target-id", car, "--vs-id", man, "-o", by_id, NULL);
  g_assert_cmpint (word.status, ==, 0);
  g_assert_cmpint (id.status, ==, 0);
  g_autoptr (GBytes) a = read_bytes (by_word);
  g_autoptr (GBytes) b = read_bytes (by_id);
  g_assert_true (g_bytes_equal (a, b));

  g_autofree char *bad = g_build_filename (dir, "bad.png", NULL);
  g_auto (Run) split = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT,
                                "--attribution", "--target-token", " attnscope", "-o", bad, NULL);
  assert_error (&split, 1, "“ att” (673) + “n” (77)");
  g_auto (Run) vs_split
      = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT, "--attribution",
                 "--target-token", " car", "--vs-target-token", " attnscope", "-o", bad, NULL);
  assert_error (&vs_split, 1, "is not one token");
  g_auto (Run) both
      = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT, "--attribution",
                 "--target-token", " car", "--target-id", car, "-o", bad, NULL);
  assert_error (&both, 2, "at most one of --target-token WORD or --target-id N");
  g_auto (Run) alone = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT, "--layer",
                                "0", "--head", "0", "--target-token", " car", "-o", bad, NULL);
  assert_error (&alone, 2, "go with --attribution");
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  g_unlink (by_word);
  g_unlink (by_id);
  g_rmdir (dir);
}

/* Exports TEXT with ARGS to DIR/NAME.png and returns its bytes. */
static GBytes *
export_png (const char *dir, const char *name, const char *const *args)
{
  g_autofree char *path = g_strdup_printf ("%s/%s.png", dir, name);
  const char *argv[24] = { "export", "--model", "attnscope-mini", "--text", TEXT, "-o", path };
  int n = 7;
  for (int i = 0; args[i] != NULL; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  g_auto (Run) r = run_cli_argv (argv);
  if (r.status != 0)
    g_test_message ("%s: %s", name, r.err);
  g_assert_cmpint (r.status, ==, 0);
  GBytes *bytes = read_bytes (path);
  g_unlink (path);
  return bytes;
}

static void
test_weighting (void)
{
  g_autofree char *dir = g_dir_make_tmp ("attnscope-why-XXXXXX", NULL);
  g_autoptr (GBytes) weight
      = export_png (dir, "w", (const char *[]){ "--layer", "1", "--head", "0", NULL });
  g_autoptr (GBytes) weight2 = export_png (
      dir, "w2", (const char *[]){ "--layer", "1", "--head", "0", "--weighting", "weight", NULL });
  g_autoptr (GBytes) norm = export_png (
      dir, "n", (const char *[]){ "--layer", "1", "--head", "0", "--weighting", "norm", NULL });
  g_autoptr (GBytes) norm2 = export_png (
      dir, "n2", (const char *[]){ "--layer", "1", "--head", "0", "--weighting", "norm", NULL });
  g_assert_true (g_bytes_equal (weight, weight2)); /* weight is the default */
  g_assert_false (g_bytes_equal (weight, norm));
  g_assert_true (g_bytes_equal (norm, norm2));
  g_autoptr (GBytes) mean = export_png (dir, "m", (const char *[]){ "--mean", "1", NULL });
  g_autoptr (GBytes) mean_norm
      = export_png (dir, "mn", (const char *[]){ "--mean", "1", "--weighting", "norm", NULL });
  g_assert_false (g_bytes_equal (mean, mean_norm));

  g_autofree char *bad = g_build_filename (dir, "bad.png", NULL);
  g_auto (Run) word = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT, "--layer",
                               "1", "--head", "0", "--weighting", "value", "-o", bad, NULL);
  assert_error (&word, 2, "--weighting 'value' is not weight or norm");
  g_auto (Run) rollout = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT,
                                  "--rollout", "1", "--weighting", "norm", "-o", bad, NULL);
  assert_error (&rollout, 2, "--weighting norm goes with --layer L --head H or --mean L");
  g_auto (Run) grid = run_cli ("export", "--model", "attnscope-mini", "--text", TEXT, "--grid",
                               "--weighting", "norm", "-o", bad, NULL);
  assert_error (&grid, 2, "--weighting norm goes with");
  g_auto (Run) encoder
      = run_cli ("export", "--model", "attnscope-mini-en-de", "--text", "Hi there", "--kind",
                 "encoder", "--layer", "0", "--head", "0", "--weighting", "norm", "-o", bad, NULL);
  assert_error (&encoder, 1, "of its decoder's self-attention");
  g_auto (Run) cross
      = run_cli ("export", "--model", "attnscope-mini-en-de", "--text", "Hi there", "--kind",
                 "cross", "--layer", "0", "--head", "0", "--weighting", "norm", "-o", bad, NULL);
  assert_error (&cross, 2, "of one text's self-attention");
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
}

/* --qk-rope: on a rotary model (Qwen2, grouped-query attention) the query before RoPE is another
 * figure than after it, and after is the default; --qk-rope without --qk or with another word is
 * a usage error. */
static void
test_qk_rope (void)
{
  static const char *const qwen2[]
      = { "--family",    "qwen2", "--layers",       "2",   "--heads", "4",
          "--hidden",    "64",    "--intermediate", "112", "--vocab", "320",
          "--positions", "1024",  "--kv-heads",     "2",   NULL };
  g_autofree char *model = decoder_model ("why-qwen2", qwen2, TRUE);
  if (model == NULL)
    return;
  g_autofree char *dir = g_dir_make_tmp ("attnscope-why-XXXXXX", NULL);
  GBytes *png[3];
  const char *rope[3] = { NULL, "after", "before" };
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/qk%d.png", dir, i);
      const char *argv[20] = { "export",  "--model", model, "--text", "the cat sat on the mat",
                               "--qk",    "--layer", "1",   "--head", "3",
                               "--token", "4",       "-o",  path };
      int n = 14;
      if (rope[i] != NULL)
        {
          argv[n++] = "--qk-rope";
          argv[n++] = rope[i];
        }
      g_auto (Run) r = run_cli_argv (argv);
      g_test_message ("%s: %s", rope[i] != NULL ? rope[i] : "default", r.err);
      g_assert_cmpint (r.status, ==, 0);
      png[i] = read_bytes (path);
      g_unlink (path);
    }
  g_assert_true (g_bytes_equal (png[0], png[1]));
  g_assert_false (g_bytes_equal (png[1], png[2]));
  for (int i = 0; i < 3; i++)
    g_bytes_unref (png[i]);
  g_autofree char *bad = g_build_filename (dir, "bad.png", NULL);
  g_auto (Run) alone = run_cli ("export", "--model", model, "--text", "the cat", "--layer", "0",
                                "--head", "0", "--qk-rope", "before", "-o", bad, NULL);
  assert_error (&alone, 2, "--qk-rope goes with --qk");
  g_auto (Run) word = run_cli ("export", "--model", model, "--text", "the cat", "--qk", "--layer",
                               "0", "--head", "0", "--qk-rope", "middle", "-o", bad, NULL);
  assert_error (&word, 2, "--qk-rope 'middle' is not after or before");
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/why/target-token", test_target_token);
  g_test_add_func ("/cli/why/weighting", test_weighting);
  g_test_add_func ("/cli/why/qk-rope", test_qk_rope);
  return g_test_run ();
}

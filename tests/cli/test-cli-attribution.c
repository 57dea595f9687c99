/* test-cli-attribution.c — `attnscope attribute`, `attnscope qk` and `stats --norms` (direct logit
 * attribution, the query–key view and the attention norms; core/README.md) against an
 * independent PyTorch reference with hooks (tests/reference/attribution_reference.py) on
 * GPT-2 (attnscope-mini) and random Llama with grouped-query attention (BF16, sharded),
 * GPT-NeoX (parallel residual, LayerNorm), Gemma 2 (post-attention norms, soft-caps), Mistral
 * (sliding window) and Qwen2 (biases) models: every part within 1e-4 relative, the parts adding
 * up to the logit within 1e-4 relative with and without --vs, norms within 1e-5; what does not
 * apply (post-norm BERT; Marian without --target) and bad input refused with a clear message. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "check-close.h"
#include "cli-support.h"
#include "decoder-models.h"

#define SMALL                                                                                      \
  "--layers", "2", "--heads", "4", "--hidden", "64", "--intermediate", "112", "--vocab", "320",    \
      "--positions", "1024"

static const char *const neox[] = { "--family", "gpt_neox", SMALL, "--seed", "21", NULL };
static const char *const qwen2[] = { "--family", "qwen2", SMALL, "--kv-heads", "2", NULL };
static const char *const mistral[]
    = { "--family", "mistral", SMALL, "--kv-heads", "2", "--sliding-window", "5", NULL };

static const char *text = "the cat sat on the mat and the dog ran to the door";

/* The ids of TEXT under MODEL, "a,b,c" (owned). */
static char *
ids_of (const char *model, const char *t)
{
  g_auto (Run) r = run_cli ("tokenize", "--model", model, "--json", t, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonArray *ids = json_object_get_array_member (json_node_get_object (root), "ids");
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (ids); i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? "," : "",
                            json_array_get_int_element (ids, i));
  return g_string_free (out, FALSE);
}

/* Checks OUTPUT (a command's JSON) with `attribution_reference.py SUB` for FAMILY. */
static void
check_reference (const char *sub, const char *family, const char *model, const char *output,
                 const char *ids)
{
  if (reference_left_to_normal_build (sub))
    return;
  const char *python = g_getenv ("ATTNSCOPE_PYTHON");
  if (python == NULL || *python == '\0')
    {
      g_test_message ("no Python for the reference (ATTNSCOPE_PYTHON is empty): %s unchecked", sub);
      return;
    }
  g_autofree char *json = g_build_filename (g_get_tmp_dir (), "attnscope-attr-XXXXXX.json", NULL);
  int fd = g_mkstemp (json);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (json, output, -1, NULL));
  g_autofree char *script = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests",
                                              "reference", "attribution_reference.py", NULL);
  const char *argv[] = { python, script,   sub,  "--family", family, "--model",
                         model,  "--json", json, "--ids",    ids,    NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  g_test_message ("%s %s: %s%s", sub, family, out, err);
  g_assert_cmpint (status, ==, 0);
  g_unlink (json);
}

/* The parts of an `attribute --json` output add up to its logit within 1e-4 relative. */
static void
assert_sum (const char *output)
{
  g_autoptr (JsonNode) root = parse_json (output);
  JsonObject *o = json_node_get_object (root);
  double sum = json_object_get_double_member (o, "embeddings")
               + json_object_get_double_member (o, "norm_bias");
  JsonArray *heads = json_object_get_array_member (o, "heads");
  JsonArray *mlps = json_object_get_array_member (o, "mlps");
  JsonArray *biases = json_object_get_array_member (o, "attn_biases");
  g_assert_cmpuint (json_array_get_length (heads), ==, json_array_get_length (mlps));
  for (guint l = 0; l < json_array_get_length (heads); l++)
    {
      JsonArray *row = json_array_get_array_element (heads, l);
      for (guint h = 0; h < json_array_get_length (row); h++)
        sum += json_array_get_double_element (row, h);
      sum += json_array_get_double_element (mlps, l) + json_array_get_double_element (biases, l);
    }
  double logit = json_object_get_double_member (o, "logit");
  g_assert_cmpfloat (fabs (sum - logit), <=, 1e-4 * fabs (logit) + 1e-6);
  g_assert_cmpfloat (fabs (json_object_get_double_member (o, "sum") - logit), <=,
                     1e-4 * fabs (logit) + 1e-6);
}

/* attribute (alone and --vs), stats --norms and qk on MODEL, each against the reference. */
static void
check_model (const char *family, const char *model, const char *target, const char *vs,
             gboolean by_word)
{
  g_autofree char *ids = ids_of (model, text);
  const char *which = by_word ? "--token" : "--target-id";
  const char *other = by_word ? "--vs-token" : "--vs-id";
  g_auto (Run) one = run_cli ("attribute", "--model", model, "--text", text, which, target,
                              "--position", "6", "--json", NULL);
  g_auto (Run) two = run_cli ("attribute", "--model", model, "--text", text, which, target, other,
                              vs, "--json", NULL);
  g_test_message ("%s%s", one.err, two.err);
  g_assert_cmpint (one.status, ==, 0);
  g_assert_cmpint (two.status, ==, 0);
  assert_sum (one.out);
  assert_sum (two.out);
  check_reference ("attribute", family, model, one.out, ids);
  check_reference ("attribute", family, model, two.out, ids);
  g_auto (Run) norms
      = run_cli ("stats", "--model", model, "--text", text, "--norms", "--json", NULL);
  g_assert_cmpint (norms.status, ==, 0);
  check_reference ("norms", family, model, norms.out, ids);
  g_auto (Run) qk = run_cli ("qk", "--model", model, "--text", text, "--layer", "1", "--head", "3",
                             "--token", "9", "--json", NULL);
  g_assert_cmpint (qk.status, ==, 0);
  check_reference ("qk", family, model, qk.out, ids);
}

static void
test_gpt2 (void)
{
  g_autofree char *mini = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "data", "models",
                                            "attnscope-mini", NULL);
  check_model ("gpt2", mini, " cat", " dog", TRUE);
}

static void
test_decoders (void)
{
  struct
  {
    const char *name;
    const char *const *make;
  } cases[] = {
    { "attribution-llama-gqa", decoder_llama_gqa },
    { "attribution-gpt-neox", neox },
    { "attribution-gemma2-caps", decoder_gemma2_caps },
    { "attribution-mistral", mistral },
    { "attribution-qwen2", qwen2 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = decoder_model (cases[i].name, cases[i].make, TRUE);
      if (dir == NULL)
        return;
      check_model ("decoder", dir, "44", "201", FALSE);
    }
}

/* The query–key view's own numbers: the scores are the products' sums times the scale, the
 * masked keys null, the probabilities a distribution; grouped-query attention names the shared
 * key/value head. */
static void
test_qk_consistent (void)
{
  g_autofree char *dir = decoder_model ("attribution-mistral", mistral, TRUE);
  if (dir == NULL)
    return;
  g_auto (Run) r = run_cli ("qk", "--model", dir, "--text", text, "--layer", "0", "--head", "3",
                            "--token", "8", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "kv_head"), ==, 1); /* 4 heads share 2 */
  double scale = json_object_get_double_member (o, "scale");
  JsonArray *products = json_object_get_array_member (o, "products");
  JsonArray *scores = json_array_get_array_element (json_object_get_array_member (o, "scores"), 0);
  JsonArray *probs = json_array_get_array_element (json_object_get_array_member (o, "probs"), 0);
  double total = 0.0;
  for (guint j = 0; j < json_array_get_length (scores); j++)
    {
      total += json_array_get_double_element (probs, j);
      gboolean seen = j <= 8 && j > 8 - 5; /* causal, window 5 */
      JsonNode *s = json_array_get_element (scores, j);
      g_assert_cmpint (seen, ==, !JSON_NODE_HOLDS_NULL (s));
      if (!seen)
        {
          g_assert_cmpfloat (json_array_get_double_element (probs, j), ==, 0.0);
          continue;
        }
      JsonArray *row = json_array_get_array_element (products, j);
      double sum = 0.0;
      for (guint d = 0; d < json_array_get_length (row); d++)
        sum += json_array_get_double_element (row, d);
      g_assert_cmpfloat (fabs (sum * scale - json_node_get_double (s)), <=, 1e-5);
    }
  g_assert_cmpfloat (fabs (total - 1.0), <=, 1e-5);
}

static void
test_refusals (void)
{
  struct
  {
    const char *args[16];
    int status;
    const char *needle;
  } cases[] = {
    { { "attribute", "--model", "attnscope-mini", "--text", "a b", "--token", " attnscope" },
      1,
      "“ att” (673) + “n” (77)" },
    { { "attribute", "--model", "attnscope-mini", "--text", "a b", "--token", " a", "--vs-token",
        " attnscope" },
      1,
      "is not one token" },
    { { "attribute", "--model", "attnscope-mini", "--text", "a b", "--target-id", "3", "--position",
        "2" },
      1,
      "--position 2 is out of range: the text has 2 tokens" },
    { { "attribute", "--model", "attnscope-mini", "--text", "a b", "--target-id", "999999" },
      1,
      "outside the vocabulary" },
    { { "attribute", "--model", "attnscope-mini-bert", "--text", "a [MASK]", "--target-id", "3" },
      1,
      "renormalise the residual stream after every block (post-norm)" },
    { { "attribute", "--model", "attnscope-mini-en-de", "--text", "a", "--target-id", "3" },
      1,
      "--target TARGET_TEXT" },
    { { "attribute", "--model", "attnscope-mini", "--text", "a b" }, 2, "--token WORD" },
    { { "attribute", "--model", "attnscope-mini", "--text", "a b", "--target-id", "1", "--vs-id",
        "2", "--vs-token", " a" },
      2,
      "at most one" },
    { { "qk", "--model", "attnscope-mini", "--text", "a b", "--layer", "4", "--head", "0" },
      1,
      "--layer 4 --head 0 is out of range: attnscope-mini has 4 layers" },
    { { "qk", "--model", "attnscope-mini", "--text", "a b", "--layer", "0", "--head", "8" },
      1,
      "out of range" },
    { { "qk", "--model", "attnscope-mini", "--text", "a b", "--layer", "0", "--head", "1",
        "--token", "5" },
      1,
      "--token 5 is out of range: the text has 2 tokens (0..1)" },
    { { "qk", "--model", "attnscope-mini", "--text", "a b" }, 2, "--layer L and --head H" },
    { { "qk", "--model", "attnscope-mini-en-de", "--text", "a", "--layer", "0", "--head", "0" },
      1,
      "--target TGT" },
    { { "stats", "--model", "attnscope-mini", "--lines", "/dev/null", "--norms" },
      2,
      "--norms goes with --text" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Run) r = run_cli_argv (cases[i].args);
      g_test_message ("case %zu: %s", i, r.err);
      assert_error (&r, cases[i].status, cases[i].needle);
    }
}

/* The views that do apply to post-norm models: the query–key view of BERT and of Marian's
 * decoder, and BERT's attention norms (a head's shares add up to 1 per layer). */
static void
test_post_norm_views (void)
{
  g_auto (Run) bert = run_cli ("qk", "--model", "attnscope-mini-bert", "--text", "the cat sat",
                               "--layer", "1", "--head", "0", "--token", "2", "--json", NULL);
  g_assert_cmpint (bert.status, ==, 0);
  g_autoptr (JsonNode) b = parse_json (bert.out);
  JsonArray *scores = json_array_get_array_element (
      json_object_get_array_member (json_node_get_object (b), "scores"), 0);
  for (guint j = 0; j < json_array_get_length (scores); j++) /* bidirectional: every key */
    g_assert_false (JSON_NODE_HOLDS_NULL (json_array_get_element (scores, j)));
  g_auto (Run) marian = run_cli ("qk", "--model", "attnscope-mini-en-de", "--text", "Hi there",
                                 "--target", "Hallo", "--layer", "0", "--head", "1", NULL);
  g_assert_cmpint (marian.status, ==, 0);
  g_assert_nonnull (strstr (marian.out, "layer 0 head 1"));
  g_auto (Run) norms = run_cli ("stats", "--model", "attnscope-mini-bert", "--text",
                                "the cat sat on the mat", "--norms", "--json", NULL);
  g_assert_cmpint (norms.status, ==, 0);
  g_autoptr (JsonNode) n = parse_json (norms.out);
  JsonObject *o = json_object_get_object_member (json_node_get_object (n), "norms");
  JsonArray *shares = json_object_get_array_member (o, "head_shares");
  for (guint l = 0; l < json_array_get_length (shares); l++)
    {
      JsonArray *row = json_array_get_array_element (shares, l);
      double sum = 0.0;
      for (guint h = 0; h < json_array_get_length (row); h++)
        sum += json_array_get_double_element (row, h);
      g_assert_cmpfloat (fabs (sum - 1.0), <=, 1e-5);
    }
}

/* attribute -o: the figure as PNG (at --scale 2 twice the pixels of scale 1) and PDF; a bad
 * extension or folder leaves no file. */
static void
test_figure (void)
{
  g_autofree char *dir = g_dir_make_tmp ("attnscope-attr-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "a.png", NULL);
  g_autofree char *png2 = g_build_filename (dir, "b.png", NULL);
  g_autofree char *pdf = g_build_filename (dir, "a.pdf", NULL);
  const char *t = "The man hit the car because he was";
  g_auto (Run) one = run_cli ("attribute", "--model", "attnscope-mini", "--text", t, "--token",
                              " car", "--vs-token", " man", "-o", png, NULL);
  g_auto (Run) two = run_cli ("attribute", "--model", "attnscope-mini", "--text", t, "--token",
                              " car", "--vs-token", " man", "-o", png2, "--scale", "2", NULL);
  g_auto (Run) three = run_cli ("attribute", "--model", "attnscope-mini", "--text", t, "--token",
                                " car", "-o", pdf, NULL);
  g_assert_cmpint (one.status, ==, 0);
  g_assert_cmpint (two.status, ==, 0);
  g_assert_cmpint (three.status, ==, 0);
  guint32 size[2][2];
  const char *paths[] = { png, png2 };
  for (int i = 0; i < 2; i++)
    {
      g_autofree char *bytes = NULL;
      gsize n = 0;
      g_assert_true (g_file_get_contents (paths[i], &bytes, &n, NULL));
      g_assert_cmpuint (n, >, 24);
      g_assert_true (memcmp (bytes, "\x89PNG", 4) == 0);
      size[i][0] = GUINT32_FROM_BE (*(guint32 *) (bytes + 16)); /* IHDR width, height */
      size[i][1] = GUINT32_FROM_BE (*(guint32 *) (bytes + 20));
    }
  g_assert_cmpuint (size[1][0], ==, 2 * size[0][0]);
  g_assert_cmpuint (size[1][1], ==, 2 * size[0][1]);
  g_assert_cmpuint (size[0][0], >, size[0][1]); /* 4 layers × 8 heads and the MLP bars */
  g_autofree char *head = NULL;
  g_assert_true (g_file_get_contents (pdf, &head, NULL, NULL));
  g_assert_true (g_str_has_prefix (head, "%PDF"));
  g_autofree char *bad = g_build_filename (dir, "a.bmp", NULL);
  g_auto (Run) ext = run_cli ("attribute", "--model", "attnscope-mini", "--text", t, "--token",
                              " car", "-o", bad, NULL);
  assert_error (&ext, 1, ".bmp");
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  g_auto (Run) both = run_cli ("attribute", "--model", "attnscope-mini", "--text", t, "--token",
                               " car", "-o", png, "--json", NULL);
  assert_error (&both, 2, "not both");
  g_unlink (png);
  g_unlink (png2);
  g_unlink (pdf);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/attribution/gpt2", test_gpt2);
  g_test_add_func ("/cli/attribution/decoders", test_decoders);
  g_test_add_func ("/cli/attribution/qk-consistent", test_qk_consistent);
  g_test_add_func ("/cli/attribution/refusals", test_refusals);
  g_test_add_func ("/cli/attribution/post-norm-views", test_post_norm_views);
  g_test_add_func ("/cli/attribution/figure", test_figure);
  return g_test_run ();
}

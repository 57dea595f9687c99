/* test-cli-attribution-seq2seq.c — `attnscope attribute` on translation models (the decoder
 * replayed with every LayerNorm on its residual path frozen; core/analysis/attribution-seq2seq.c)
 * against the independent PyTorch reference tests/reference/seq2seq_attribution_reference.py,
 * which pushes the parts forwards instead: a random Marian (post-norm, the fixtures' "small"),
 * BART (post-norm, layernorm_embedding) and mBART (pre-norm, final layer_norm, BF16 in two
 * shards) and T5 (gated-GELU, tied embeddings). Every part within 1e-4 relative (plus 1e-5 of the
 * largest), the parts adding up to the model's own logit within 1e-4 relative with and without
 * --vs-id, the cross-attention heads, the norms' biases and final_logits_bias present; bad input
 * (no --target, a position past the decoder input, a word the vocabulary splits, --target on a
 * decoder-only model) refused with a message naming it. `attribute -o` draws the decoder's heads
 * or with --kind cross the cross-attention heads, as `export --attribution --kind K` does, byte
 * for byte; --kind on a decoder-only model is refused. `stats --norms` of the decoder's
 * self-attention: every value norm ‖v_j · O_hᵀ‖ within 1e-5 (+1e-4 relative) of the reference's. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "bart-models.h"
#include "check-close.h"
#include "cli-support.h"
#include "marian-fixtures.h"
#include "t5-models.h"

static const char *source = "hello there world";
static const char *target = "hallo da welt";

static double
sum_row (JsonArray *a)
{
  double s = 0.0;
  for (guint i = 0; i < json_array_get_length (a); i++)
    s += json_array_get_double_element (a, i);
  return s;
}

/* The parts of OUTPUT add up to its logit within 1e-4 relative; every seq2seq part is there, for
 * N_LAYER layers (-1: as many as the heads' rows). */
static void
assert_sum (const char *output, int n_layer)
{
  g_autoptr (JsonNode) root = parse_json (output);
  JsonObject *o = json_node_get_object (root);
  if (n_layer < 0) /* as many as the heads' rows, at least one */
    n_layer = json_array_get_length (json_object_get_array_member (o, "heads"));
  g_assert_cmpint (n_layer, >, 0);
  double sum = json_object_get_double_member (o, "embeddings")
               + json_object_get_double_member (o, "norm_bias")
               + json_object_get_double_member (o, "final_logits_bias");
  static const char *const rows[] = { "mlps", "attn_biases", "cross_biases", "norm_biases" };
  for (guint k = 0; k < G_N_ELEMENTS (rows); k++)
    {
      JsonArray *a = json_object_get_array_member (o, rows[k]);
      g_assert_nonnull (a);
      g_assert_cmpint (json_array_get_length (a), ==, n_layer);
      sum += sum_row (a);
    }
  static const char *const grids[] = { "heads", "cross_heads" };
  for (guint k = 0; k < G_N_ELEMENTS (grids); k++)
    {
      JsonArray *a = json_object_get_array_member (o, grids[k]);
      g_assert_nonnull (a);
      g_assert_cmpint (json_array_get_length (a), ==, n_layer);
      for (int l = 0; l < n_layer; l++)
        sum += sum_row (json_array_get_array_element (a, l));
    }
  double logit = json_object_get_double_member (o, "logit");
  g_test_message ("logit %.7g, sum of the parts %.7g", logit, sum);
  g_assert_cmpfloat (fabs (sum - logit), <=, 1e-4 * fabs (logit) + 1e-6);
  g_assert_cmpfloat (fabs (json_object_get_double_member (o, "sum") - logit), <=,
                     1e-4 * fabs (logit) + 1e-6);
}

/* A temporary file holding TEXT (owned path). */
static char *
temporary_json (const char *text)
{
  g_autofree char *json = g_build_filename (g_get_tmp_dir (), "attnscope-s2s-XXXXXX.json", NULL);
  int fd = g_mkstemp (json);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (json, text, -1, NULL));
  return g_steal_pointer (&json);
}

/* OUTPUT checked by the reference for FAMILY ("marian", "bart", "t5"); with NORMS (the output of
 * `stats --norms --json` on the same texts, or NULL) the decoder's attention norms too. */
static void
check_reference (const char *family, const char *model, const char *output, const char *norms)
{
  if (reference_left_to_normal_build ("attribute"))
    return;
  const char *python = g_getenv ("ATTNSCOPE_PYTHON");
  if (python == NULL || *python == '\0')
    {
      g_test_message ("no Python for the reference (ATTNSCOPE_PYTHON is empty): unchecked");
      return;
    }
  g_autofree char *json = temporary_json (output);
  g_autofree char *norms_json = norms != NULL ? temporary_json (norms) : NULL;
  g_autofree char *script
      = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests", "reference",
                          "seq2seq_attribution_reference.py", NULL);
  const char *argv[] = { python,   script, "--family",     family,     "--model", model,
                         "--json", json,   "--norms-json", norms_json, NULL };
  if (norms_json == NULL)
    argv[8] = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  g_test_message ("%s: %s%s", family, out, err);
  g_assert_cmpint (status, ==, 0);
  if (norms_json != NULL)
    g_assert_nonnull (strstr (out, "norms: "));
  g_unlink (json);
  if (norms_json != NULL)
    g_unlink (norms_json);
}

/* attribute at the last position and at POSITION with --vs-id, each summed and checked. */
static void
check_model (const char *family, const char *model, int n_layer, const char *position)
{
  g_auto (Run) one = run_cli ("attribute", "--model", model, "--text", source, "--target", target,
                              "--target-id", "5", "--json", NULL);
  g_auto (Run) two
      = run_cli ("attribute", "--model", model, "--text", source, "--target", target, "--position",
                 position, "--target-id", "6", "--vs-id", "9", "--json", NULL);
  g_test_message ("%s%s", one.err, two.err);
  g_assert_cmpint (one.status, ==, 0);
  g_assert_cmpint (two.status, ==, 0);
  assert_sum (one.out, n_layer);
  assert_sum (two.out, n_layer);
  /* the attention norms of the decoder's self-attention: [L][H][T] */
  g_auto (Run) norms = run_cli ("stats", "--model", model, "--text", source, "--target", target,
                                "--norms", "--json", NULL);
  g_assert_cmpint (norms.status, ==, 0);
  g_autoptr (JsonNode) norms_root = parse_json (norms.out);
  JsonArray *value_norms = json_object_get_array_member (
      json_object_get_object_member (json_node_get_object (norms_root), "norms"), "value_norms");
  g_autoptr (JsonNode) one_root = parse_json (one.out);
  guint layers = json_array_get_length (
      json_object_get_array_member (json_node_get_object (one_root), "heads"));
  g_assert_cmpuint (json_array_get_length (value_norms), ==, layers);
  check_reference (family, model, one.out, norms.out);
  check_reference (family, model, two.out, NULL);
  /* the table names the cross heads too */
  g_auto (Run) table = run_cli ("attribute", "--model", model, "--text", source, "--target", target,
                                "--target-id", "5", NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "cross heads 0.."));
  g_assert_nonnull (strstr (table.out, "final_logits_bias"));
}

static void
test_marian (void)
{
  JsonNode *node = marian_fixture ("expected", "small");
  if (node == NULL)
    return;
  const char *model = json_object_get_string_member (json_node_get_object (node), "model");
  check_model ("marian", model, 3, "1");
}

static void
test_bart (void)
{
  g_autofree char *model = bart_model ("bart-post", bart_post);
  if (model == NULL)
    return;
  check_model ("bart", model, 2, "2");
}

static void
test_mbart (void)
{
  g_autofree char *model = bart_model ("mbart", bart_mbart);
  if (model == NULL)
    return;
  check_model ("bart", model, 1, "3");
}

/* T5: RMS norms without biases, the tied output's D^-½, the relative position bias. */
static void
test_t5 (void)
{
  g_autofree char *model = t5_model_with_tokenizer ();
  if (model == NULL)
    return;
  check_model ("t5", model, -1, "2");
}

static void
test_bad_input (void)
{
  g_autofree char *model = bart_model ("bart-post", bart_post);
  if (model == NULL)
    return;
  g_auto (Run) no_target
      = run_cli ("attribute", "--model", model, "--text", source, "--target-id", "5", NULL);
  assert_error (&no_target, 1, "--target TARGET_TEXT");
  g_auto (Run) far = run_cli ("attribute", "--model", model, "--text", source, "--target", "hi",
                              "--position", "40", "--target-id", "5", NULL);
  assert_error (&far, 1, "the start token and the target's");
  g_auto (Run) split = run_cli ("attribute", "--model", model, "--text", source, "--target", "hi",
                                "--token", "xqzvkw", NULL);
  assert_error (&split, 1, "is not one token in this vocabulary");
  g_auto (Run) decoder_only = run_cli ("attribute", "--model", "attnscope-mini", "--text", "a b",
                                       "--target", "c", "--target-id", "1", NULL);
  assert_error (&decoder_only, 1, "--target is for translation models");
}

/* The bytes of the file at PATH (owned), asserted to be a PNG. */
static GBytes *
png_bytes (const char *path)
{
  g_autofree char *bytes = NULL;
  gsize n = 0;
  g_assert_true (g_file_get_contents (path, &bytes, &n, NULL));
  g_assert_cmpuint (n, >, 1000);
  g_assert_true (memcmp (bytes, "\x89PNG", 4) == 0);
  return g_bytes_new_take (g_steal_pointer (&bytes), n);
}

/* attribute -o: the decoder's heads and MLPs by default and with --kind decoder, the
 * cross-attention heads with --kind cross (another figure), each byte for byte the one
 * `export --attribution --kind K` writes; --kind on a decoder-only model, --kind encoder and
 * --kind without -o refused in one line, no file written. */
static void
test_figure (void)
{
  g_autofree char *model = bart_model ("bart-post", bart_post);
  if (model == NULL)
    return;
  g_autofree char *dir = g_dir_make_tmp ("attnscope-s2s-fig-XXXXXX", NULL);
  static const char *const kinds[] = { NULL, "decoder", "cross" };
  GBytes *attribute[3], *exported[3];
  for (int k = 0; k < 3; k++)
    {
      g_autofree char *a = g_strdup_printf ("%s/attribute-%d.png", dir, k);
      g_autofree char *e = g_strdup_printf ("%s/export-%d.png", dir, k);
      const char *kind = kinds[k] != NULL ? kinds[k] : "decoder";
      g_auto (Run) one
          = kinds[k] != NULL
                ? run_cli ("attribute", "--model", model, "--text", source, "--target", target,
                           "--target-id", "5", "--kind", kinds[k], "-o", a, NULL)
                : run_cli ("attribute", "--model", model, "--text", source, "--target", target,
                           "--target-id", "5", "-o", a, NULL);
      g_assert_cmpint (one.status, ==, 0);
      g_auto (Run) two
          = run_cli ("export", "--model", model, "--text", source, "--target", target, "--kind",
                     kind, "--attribution", "--target-id", "5", "-o", e, NULL);
      g_assert_cmpint (two.status, ==, 0);
      attribute[k] = png_bytes (a);
      exported[k] = png_bytes (e);
      g_assert_true (g_bytes_equal (attribute[k], exported[k]));
      g_unlink (a);
      g_unlink (e);
    }
  g_assert_true (g_bytes_equal (attribute[0], attribute[1]));
  g_assert_false (g_bytes_equal (attribute[1], attribute[2]));
  for (int k = 0; k < 3; k++)
    {
      g_bytes_unref (attribute[k]);
      g_bytes_unref (exported[k]);
    }
  g_autofree char *bad = g_build_filename (dir, "bad.png", NULL);
  g_auto (Run) decoder_only
      = run_cli ("attribute", "--model", "attnscope-mini", "--text", "The man hit the car",
                 "--target-id", "1", "--kind", "cross", "-o", bad, NULL);
  assert_error (&decoder_only, 1, "not a translation model");
  g_assert_nonnull (strstr (decoder_only.err, "no cross-attention heads"));
  g_auto (Run) encoder = run_cli ("attribute", "--model", model, "--text", source, "--target",
                                  target, "--target-id", "5", "--kind", "encoder", "-o", bad, NULL);
  assert_error (&encoder, 1, "splits the decoder's logit");
  g_auto (Run) unknown = run_cli ("attribute", "--model", model, "--text", source, "--target",
                                  target, "--target-id", "5", "--kind", "both", "-o", bad, NULL);
  assert_error (&unknown, 1, "give encoder, decoder or cross");
  g_auto (Run) no_output = run_cli ("attribute", "--model", model, "--text", source, "--target",
                                    target, "--target-id", "5", "--kind", "cross", NULL);
  assert_error (&no_output, 2, "give -o F too");
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/attribution-seq2seq/marian", test_marian);
  g_test_add_func ("/cli/attribution-seq2seq/bart", test_bart);
  g_test_add_func ("/cli/attribution-seq2seq/mbart", test_mbart);
  g_test_add_func ("/cli/attribution-seq2seq/t5", test_t5);
  g_test_add_func ("/cli/attribution-seq2seq/bad-input", test_bad_input);
  g_test_add_func ("/cli/attribution-seq2seq/figure", test_figure);
  return g_test_run ();
}

/* test-cli-lens-fit.c — the fitted lens (`attnscope lens --fit CORPUS --save LENS.h5`, then
 * `lens --with LENS.h5`; core/analysis/README.md "Fitted lens") against the same ridge least
 * squares solved with PyTorch (tests/reference/lens_reference.py fit-check): on GPT-2
 * (attnscope-mini), a BERT masked-LM head (attnscope-mini-bert), the Llama family and Gemma 2
 * (random models with tiny-gpt2's tokenizer), a corpus of 60 generated lines. The maps within 1e-4
 * of their largest entry and 1e-4 in Frobenius norm, the held-out KL of both lenses within 1e-3
 * relative; on held-out lines the fitted lens is closer to the final distribution than the logit
 * lens at every hidden state; `lens --with` probabilities within 1e-4 relative of the reference
 * reading through the same maps; the last hidden state is unchanged. Bad input: an empty corpus,
 * fewer than five lines, too few positions, a lens of another model (named, with both
 * fingerprints), --save without --fit, --fit with --text; no file is left behind. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "check-close.h"
#include "cli-support.h"
#include "decoder-models.h"

static char *tmpdir;

static char *
shipped (const char *name)
{
  return g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "data", "models", name, NULL);
}

/* N_LINES lines of 4..12 words drawn from a small vocabulary by a fixed generator. */
static char *
write_corpus (const char *name, int n_lines)
{
  static const char *const words[]
      = { "the", "man",  "hit",   "car",  "dog",   "ran",   "park",  "a",      "small",
          "big", "cat",  "sat",   "on",   "mat",   "in",    "water", "spring", "season",
          "is",  "very", "clean", "last", "night", "broke", "one",   "bed" };
  guint32 state = 12345;
  GString *text = g_string_new (NULL);
  for (int l = 0; l < n_lines; l++)
    {
      state = state * 1103515245u + 12345u;
      int n = 4 + (int) ((state >> 16) % 9);
      for (int w = 0; w < n; w++)
        {
          state = state * 1103515245u + 12345u;
          g_string_append_printf (text, "%s%s", w > 0 ? " " : "",
                                  words[(state >> 16) % G_N_ELEMENTS (words)]);
        }
      g_string_append_c (text, '\n');
    }
  char *path = g_build_filename (tmpdir, name, NULL);
  g_assert_true (g_file_set_contents (path, text->str, -1, NULL));
  g_string_free (text, TRUE);
  return path;
}

/* Runs the reference script with ARGS; skips without Python. */
static void
reference (const char *const *args)
{
  if (reference_left_to_normal_build (args[0]))
    return;
  const char *python = g_getenv ("ATTNSCOPE_PYTHON");
  if (python == NULL || *python == '\0')
    {
      g_test_skip ("no Python for the reference (ATTNSCOPE_PYTHON is empty)");
      return;
    }
  g_autofree char *script = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests",
                                              "reference", "lens_reference.py", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) python);
  g_ptr_array_add (argv, script);
  for (int i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  g_test_message ("%s%s", out, err);
  g_assert_cmpint (status, ==, 0);
}

/* Fits MODEL on a corpus, checks the maps and KL with the reference of FAMILY, then reads TEXT
 * through the lens and checks that too. */
static void
check_family (const char *family, const char *model, const char *text)
{
  g_autofree char *corpus = write_corpus ("corpus.txt", 60);
  g_autofree char *lens = g_build_filename (tmpdir, "lens.h5", NULL);
  g_autofree char *tokens = g_build_filename (tmpdir, "tokens.jsonl", NULL);
  g_autofree char *json = g_build_filename (tmpdir, "with.json", NULL);
  g_auto (Run) fit
      = run_cli ("lens", "--model", model, "--fit", corpus, "--save", lens, "--json", NULL);
  g_test_message ("%s", fit.err);
  g_assert_cmpint (fit.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (fit.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "train_lines"), ==, 48);
  /* the last 12 lines are held out; the KL reads at most AS_FITTED_LENS_KL_POSITIONS of their
   * positions (a character-level tokenizer's long lines fill them before the 12th) */
  gint64 heldout = json_object_get_int_member (o, "heldout_lines");
  g_assert_cmpint (heldout, >=, 1);
  g_assert_cmpint (heldout, <=, 12);
  JsonArray *hidden = json_object_get_array_member (o, "hidden");
  for (guint i = 0; i < json_array_get_length (hidden); i++)
    {
      JsonObject *h = json_array_get_object_element (hidden, i);
      double logit = json_object_get_double_member (h, "kl_logit");
      double fitted = json_object_get_double_member (h, "kl_fitted");
      g_test_message ("%s hidden %u: KL logit lens %.4f, fitted lens %.4f", family, i, logit,
                      fitted);
      g_assert_cmpfloat (fitted, <, logit);
      g_assert_cmpfloat (fitted, >=, 0.0);
    }
  g_auto (Run) tok = run_cli ("tokenize", "--model", model, "--lines", corpus, "--json", NULL);
  g_assert_cmpint (tok.status, ==, 0);
  g_assert_true (g_file_set_contents (tokens, tok.out, -1, NULL));
  reference ((const char *[]){ "fit-check", "--family", family, "--model", model, "--tokens",
                               tokens, "--lens", lens, NULL });
  g_auto (Run) with = run_cli ("lens", "--model", model, "--with", lens, "--text", text, "--top",
                               "6", "--json", NULL);
  g_assert_cmpint (with.status, ==, 0);
  g_assert_true (g_file_set_contents (json, with.out, -1, NULL));
  reference ((const char *[]){ "check", "--family", family, "--model", model, "--lens", json,
                               "--fitted", lens, NULL });
  /* the last hidden state is the model's own, with or without the fitted lens */
  g_auto (Run) plain
      = run_cli ("lens", "--model", model, "--text", text, "--top", "6", "--json", NULL);
  g_autoptr (JsonNode) a = parse_json (with.out);
  g_autoptr (JsonNode) b = parse_json (plain.out);
  JsonArray *ha = json_object_get_array_member (json_node_get_object (a), "hidden");
  JsonArray *hb = json_object_get_array_member (json_node_get_object (b), "hidden");
  guint last = json_array_get_length (ha) - 1;
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_array_get_element (ha, last));
  g_autofree char *sa = json_generator_to_data (gen, NULL);
  json_generator_set_root (gen, json_array_get_element (hb, last));
  g_autofree char *sb = json_generator_to_data (gen, NULL);
  g_assert_cmpstr (sa, ==, sb);
  g_unlink (lens);
  g_unlink (tokens);
  g_unlink (json);
  g_unlink (corpus);
}

static void
test_gpt2 (void)
{
  g_autofree char *mini = shipped ("attnscope-mini");
  check_family ("gpt2", mini, "the man hit the car in the park");
}

/* The Llama family (RMS norm, untied head) and Gemma 2 (the 1 + w norm, the final soft-cap
 * after the head), with tiny-gpt2's tokenizer so that the corpus can be typed. */
static void
test_decoder (void)
{
  g_autofree char *llama = decoder_model ("llama-f32", decoder_llama_f32, TRUE);
  if (llama == NULL)
    return;
  check_family ("decoder", llama, "the man hit the car in the park");
  g_autofree char *gemma
      = decoder_model ("gemma2-softcaps-alternate-tokenizer", decoder_gemma2_caps, TRUE);
  check_family ("decoder", gemma, "the man hit the car in the park");
}

static void
test_encoder (void)
{
  g_autofree char *bert = shipped ("attnscope-mini-bert");
  check_family ("encoder", bert, "the cat sat on the mat .");
}

static void
test_errors (void)
{
  g_autofree char *empty = g_build_filename (tmpdir, "empty.txt", NULL);
  g_assert_true (g_file_set_contents (empty, "\n  \n", -1, NULL));
  g_autofree char *three = write_corpus ("three.txt", 3);
  g_autofree char *six = write_corpus ("six.txt", 6);
  g_autofree char *corpus = write_corpus ("tiny-corpus.txt", 40);
  g_autofree char *out = g_build_filename (tmpdir, "never.h5", NULL);
  g_autofree char *tiny_lens = g_build_filename (tmpdir, "tiny.h5", NULL);
  g_autofree char *tiny = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests", "fixtures",
                                            "tiny-gpt2", NULL);
  g_auto (Run) fit = run_cli ("lens", "--model", tiny, "--fit", corpus, "--save", tiny_lens, NULL);
  g_assert_cmpint (fit.status, ==, 0);
  g_assert_nonnull (strstr (fit.out, "wrote"));
  struct
  {
    const char *args[8];
    int status;
    const char *needle;
  } cases[] = {
    { { "--fit", empty, "--save", out }, 1, "no text" },
    { { "--fit", three, "--save", out }, 1, "the corpus has 3 lines: the fit needs at least 5" },
    { { "--fit", six, "--save", out }, 1, "the corpus is too short" },
    { { "--with", tiny_lens, "--text", "the man" }, 1, "is a lens of the model tiny-gpt2" },
    { { "--save", out, "--text", "the man" }, 2, "--save goes with --fit" },
    { { "--fit", corpus, "--text", "the man" }, 2, "--fit CORPUS goes without --text" },
    { { "--fit", corpus, "--ridge", "0" }, 2, "--ridge 0 is out of range" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      g_ptr_array_add (argv, (gpointer) "lens");
      g_ptr_array_add (argv, (gpointer) "--model");
      g_ptr_array_add (argv, (gpointer) "attnscope-mini");
      for (int k = 0; cases[i].args[k] != NULL; k++)
        g_ptr_array_add (argv, (gpointer) cases[i].args[k]);
      g_ptr_array_add (argv, NULL);
      g_auto (Run) r = run_cli_argv ((const char *const *) argv->pdata);
      g_test_message ("case %zu: %s", i, r.err);
      assert_error (&r, cases[i].status, cases[i].needle);
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    }
  /* the refusal names both models */
  g_auto (Run) r = run_cli ("lens", "--model", "attnscope-mini", "--with", tiny_lens, "--text",
                            "the man", NULL);
  assert_error (&r, 1, "not of attnscope-mini (fingerprint");
  g_unlink (tiny_lens);
  g_unlink (empty);
  g_unlink (three);
  g_unlink (six);
  g_unlink (corpus);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("attnscope-lens-fit-XXXXXX", NULL);
  g_test_add_func ("/cli/lens-fit/gpt2", test_gpt2);
  g_test_add_func ("/cli/lens-fit/encoder", test_encoder);
  g_test_add_func ("/cli/lens-fit/decoder", test_decoder);
  g_test_add_func ("/cli/lens-fit/errors", test_errors);
  int status = g_test_run ();
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
}

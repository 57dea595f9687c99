/* test-cli-lens.c — `attnscope lens` (the logit lens, core/analysis/README.md "Logit lens") against
 * an independent PyTorch reading of the same hidden states (tests/reference/lens_reference.py) on
 * every family: GPT-2 (attnscope-mini), Llama with grouped-query attention (BF16, sharded),
 * GPT-NeoX, Gemma 2 with its final soft-cap, a BERT masked-LM head (attnscope-mini-bert) and a
 * Marian decoder (attnscope-mini-en-de); the last hidden state equals `predict`; bad input. */
#include <glib/gstdio.h>
#include <math.h>
#include <unistd.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "decoder-models.h"

#define SMALL                                                                                      \
  "--layers", "2", "--heads", "4", "--hidden", "64", "--intermediate", "112", "--vocab", "320",    \
      "--positions", "1024"

static const char *const neox[] = { "--family", "gpt_neox", SMALL, "--seed", "21", NULL };

static char *
shipped (const char *name)
{
  return g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "data", "models", name, NULL);
}

/* Runs `attnscope lens ARGS... --json` and checks its output with the reference for FAMILY;
 * returns the parsed output. */
static JsonNode *
check_with_reference (const char *family, const char *model_dir, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) "lens");
  g_ptr_array_add (argv, (gpointer) "--model");
  g_ptr_array_add (argv, (gpointer) model_dir);
  for (int i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, (gpointer) "--json");
  g_ptr_array_add (argv, NULL);
  g_auto (Run) r = run_cli_argv ((const char *const *) argv->pdata);
  if (r.status != 0)
    g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  JsonNode *root = parse_json (r.out);
  if (reference_left_to_normal_build ("lens"))
    return root;

  const char *python = g_getenv ("ATTNSCOPE_PYTHON");
  if (python == NULL || *python == '\0')
    {
      g_test_skip ("no Python for the reference (ATTNSCOPE_PYTHON is empty)");
      return root;
    }
  g_autofree char *json = g_build_filename (g_get_tmp_dir (), "attnscope-lens-XXXXXX.json", NULL);
  int fd = g_mkstemp (json);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (json, r.out, -1, NULL));
  g_autofree char *script = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests",
                                              "reference", "lens_reference.py", NULL);
  const char *check[]
      = { python, script, "check", "--family", family, "--model", model_dir, "--lens", json, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (check, &out, &err);
  g_test_message ("%s: %s%s", family, out, err);
  g_assert_cmpint (status, ==, 0);
  g_unlink (json);
  return root;
}

static void
test_gpt2 (void)
{
  g_autofree char *mini = shipped ("attnscope-mini");
  const char *args[]
      = { "--text", "The man hit the car because he was angry", "--token", " car", "--top", "8",
          NULL };
  g_autoptr (JsonNode) root = check_with_reference ("gpt2", mini, args);
  JsonArray *hidden = json_object_get_array_member (json_node_get_object (root), "hidden");
  g_assert_cmpuint (json_array_get_length (hidden), ==, 5); /* L = 4, and the embeddings */
}

static void
test_decoders (void)
{
  struct
  {
    const char *name;
    const char *const *make;
  } cases[] = {
    { "llama-gqa-bf16-sharded-llama3", decoder_llama_gqa },
    { "gpt-neox-lens", neox },
    { "gemma2-softcaps-alternate", decoder_gemma2_caps },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = decoder_model (cases[i].name, cases[i].make, FALSE);
      if (dir == NULL)
        return;
      const char *args[]
          = { "--ids", "5,77,3,201,9,44,18,310,2,66,150,7,81", "--target-id", "44", NULL };
      g_autoptr (JsonNode) root = check_with_reference ("decoder", dir, args);
    }
}

static void
test_encoder_and_translation (void)
{
  g_autofree char *bert = shipped ("attnscope-mini-bert");
  const char *all[] = { "--text", "the cat sat on the mat .", "--top", "10", NULL };
  g_autoptr (JsonNode) a = check_with_reference ("encoder", bert, all);
  /* a masked input: the mask positions only */
  const char *masked[] = { "--text", "the cat sat on the [MASK] .", "--token", "mat", NULL };
  g_autoptr (JsonNode) m = check_with_reference ("encoder", bert, masked);
  JsonArray *hidden = json_object_get_array_member (json_node_get_object (m), "hidden");
  JsonArray *positions
      = json_object_get_array_member (json_array_get_object_element (hidden, 0), "positions");
  g_assert_cmpuint (json_array_get_length (positions), ==, 1);
  g_autofree char *en_de = shipped ("attnscope-mini-en-de");
  const char *translation[]
      = { "--text", "The group went home.", "--target", "Die Gruppe ging nach Hause.", "--top", "4",
          NULL };
  g_autoptr (JsonNode) t = check_with_reference ("marian", en_de, translation);
  g_assert_true (json_object_has_member (json_node_get_object (t), "source_ids"));
}

/* The last hidden state's reading is the model's own prediction: the same ids, probabilities
 * within 1e-6. */
static void
test_last_is_prediction (void)
{
  const char *text = "The man hit the car because he was";
  g_auto (Run) lens = run_cli ("lens", "--model", "attnscope-mini", "--text", text, "--position",
                               "7", "--top", "5", "--json", NULL);
  g_auto (Run) predict = run_cli ("predict", "--model", "attnscope-mini", "--text", text, "--top",
                                  "5", "--json", NULL);
  g_assert_cmpint (lens.status, ==, 0);
  g_assert_cmpint (predict.status, ==, 0);
  g_autoptr (JsonNode) l = parse_json (lens.out);
  g_autoptr (JsonNode) p = parse_json (predict.out);
  JsonArray *hidden = json_object_get_array_member (json_node_get_object (l), "hidden");
  JsonObject *last = json_array_get_object_element (hidden, json_array_get_length (hidden) - 1);
  JsonObject *cell
      = json_array_get_object_element (json_object_get_array_member (last, "positions"), 0);
  g_assert_cmpint (json_object_get_int_member (cell, "position"), ==, 7);
  JsonArray *top = json_object_get_array_member (cell, "top");
  JsonArray *want = json_object_get_array_member (json_node_get_object (p), "predictions");
  g_assert_cmpuint (json_array_get_length (top), ==, json_array_get_length (want));
  for (guint k = 0; k < json_array_get_length (top); k++)
    {
      JsonObject *a = json_array_get_object_element (top, k);
      JsonObject *b = json_array_get_object_element (want, k);
      g_assert_cmpint (json_object_get_int_member (a, "id"), ==,
                       json_object_get_int_member (b, "id"));
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (a, "prob"),
                                      json_object_get_double_member (b, "probability"), 1e-6);
    }
}

static void
test_errors (void)
{
  struct
  {
    const char *args[12];
    int status;
    const char *needle;
  } cases[] = {
    { { "--text", "a b", "--token", " attnscope" }, 1, "“ att” (673) + “n” (77)" },
    { { "--text", "a b", "--position", "5" }, 1, "--position 5 is out of range" },
    { { "--text", "a b", "--target-id", "999999" }, 1, "outside the vocabulary" },
    { { "--text", "a b", "--top", "0" }, 2, "--top 0" },
    { { "--text", "a b", "--token", " a", "--target-id", "3" }, 2, "give one" },
    { { "--text", "a b", "--target", "x" }, 2, "not a translation model" },
    { { "--ids", "1,2", "--text", "a" }, 2, "exactly one" },
    { { "--text", "" }, 1, "empty" },
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
    }
  g_auto (Run) r = run_cli ("lens", "--model", "attnscope-mini-en-de", "--text", "Hi", NULL);
  assert_error (&r, 2, "--target TGT");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/lens/gpt2", test_gpt2);
  g_test_add_func ("/cli/lens/decoders", test_decoders);
  g_test_add_func ("/cli/lens/encoder-and-translation", test_encoder_and_translation);
  g_test_add_func ("/cli/lens/last-is-prediction", test_last_is_prediction);
  g_test_add_func ("/cli/lens/errors", test_errors);
  return g_test_run ();
}

/* test-cli-whatif.c — `attnscope ablate --scan`, `attnscope patch` and --ablate/--ablation/
 * --mean-over/--no-positions on the other commands, against an independent PyTorch reference
 * with hooks (tests/reference/whatif_reference.py) on GPT-2 (attnscope-mini), random Llama with
 * grouped-query attention, GPT-NeoX, Gemma 2, Phi-3 and Qwen3 models, and a BERT
 * (attnscope-mini-bert): scan effects on a logit difference and on the loss, patching of heads,
 * MLPs and the residual stream, and the log-probabilities of an ablated model (zero and mean).
 * On attnscope-mini: the heads the scan ranks first for the repeated half of a repeated text are
 * the previous-token heads `stats` labels; patching the one differing position's residual at
 * layer 0 gives exactly 1. Bad input: a head that does not exist (L and H named), texts of
 * different lengths (both counts), a word the vocabulary splits, --ablation other than zero or
 * mean, an empty --mean-over file, a translation model. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "check-close.h"
#include "cli-support.h"
#include "decoder-models.h"

#define SMALL                                                                                      \
  "--layers", "2", "--heads", "4", "--hidden", "64", "--intermediate", "112", "--vocab", "320",    \
      "--positions", "1024"

static const char *const llama[]
    = { "--family", "llama", SMALL, "--kv-heads", "2", "--seed", "31", NULL };
static const char *const neox[] = { "--family", "gpt_neox", SMALL, "--seed", "32", NULL };
static const char *const gemma2[] = { "--family", "gemma2", SMALL, "--seed", "33", NULL };
static const char *const phi3[] = { "--family", "phi3", SMALL, "--seed", "34", NULL };
static const char *const qwen3[] = { "--family", "qwen3", SMALL, "--seed", "35", NULL };

static char *
shipped (const char *name)
{
  return g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "data", "models", name, NULL);
}

static const char *
python (void)
{
  const char *p = g_getenv ("ATTNSCOPE_PYTHON");
  return p != NULL && *p != '\0' ? p : NULL;
}

/* Runs `attnscope ARGS...` (exit 0) and `whatif_reference.py CHECK --family FAMILY --model DIR
 * --json OUT EXTRA...` on its output; returns the parsed output. */
static JsonNode *
check (const char *check, const char *family, const char *dir, const char *const *args,
       const char *const *extra)
{
  g_auto (Run) r = run_cli_argv (args);
  if (r.status != 0)
    g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  JsonNode *root = parse_json (r.out);
  if (reference_left_to_normal_build (check))
    return root;
  if (python () == NULL)
    {
      g_test_skip ("no Python for the reference (ATTNSCOPE_PYTHON is empty)");
      return root;
    }
  g_autofree char *json = g_build_filename (test_tmpdir (), "whatif.json", NULL);
  g_assert_true (g_file_set_contents (json, r.out, -1, NULL));
  g_autofree char *script = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests",
                                              "reference", "whatif_reference.py", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *head[]
      = { python (), script, check, "--family", family, "--model", dir, "--json", json };
  for (gsize i = 0; i < G_N_ELEMENTS (head); i++)
    g_ptr_array_add (argv, (gpointer) head[i]);
  for (int i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  g_test_message ("%s %s: %s%s", family, check, out, err);
  g_assert_cmpint (status, ==, 0);
  return root;
}

/* Scan (logit difference and loss), the three patchings and an ablated perplexity of DIR. */
static void
check_model (const char *family, const char *dir, const char *text, const char *a, const char *b,
             const char *w1, const char *w2)
{
  const char *scan[] = { "ablate",  "--scan", "--model",    dir, "--text", text,
                         "--token", w1,       "--vs-token", w2,  "--json", NULL };
  json_node_unref (check ("check-scan", family, dir, scan, NULL));
  if (strcmp (family, "encoder") != 0)
    {
      const char *loss[]
          = { "ablate", "--scan", "--model", dir, "--text", text, "--loss", "--json", NULL };
      json_node_unref (check ("check-scan", family, dir, loss, NULL));
      const char *ppl[] = { "perplexity", "--model",      dir,      "--text", text,
                            "--ablate",   "0.1,1.3,mlp0", "--json", NULL };
      const char *extra[] = { "--ablate", "0.1,1.3,mlp0", NULL };
      json_node_unref (check ("check-perplexity", family, dir, ppl, extra));
    }
  static const char *const what[] = { "heads", "mlps", "resid" };
  for (int i = 0; i < 3; i++)
    {
      const char *patch[]
          = { "patch", "--model",    dir, "--text", a,       "--text", b,   "--token",
              w1,      "--vs-token", w2,  "--what", what[i], "--json", NULL };
      g_autoptr (JsonNode) root = check ("check-patch", family, dir, patch, NULL);
      JsonObject *o = json_node_get_object (root);
      g_assert_cmpstr (json_object_get_string_member (o, "what"), ==, what[i]);
      g_assert_cmpfloat (json_object_get_double_member (o, "min"), <=,
                         json_object_get_double_member (o, "max"));
    }
}

static void
test_gpt2 (void)
{
  g_autofree char *mini = shipped ("attnscope-mini");
  check_model ("gpt2", mini, "The man hit the car because he was angry", "The man hit the car. The",
               "The car hit the man. The", " car", " man");
  /* mean ablation over a file of texts, the means checked by the reference over its ids */
  g_autofree char *mean = g_build_filename (test_tmpdir (), "mean.txt", NULL);
  g_assert_true (g_file_set_contents (mean, "The man hit the car\n\nthe dog ran home\n", -1, NULL));
  const char *ppl[]
      = { "perplexity", "--model",      mini,         "--text", "The man hit the car because",
          "--ablate",   "0.1,2.3,mlp1", "--ablation", "mean",   "--mean-over",
          mean,         "--json",       NULL };
  const char *extra[]
      = { "--ablate",   "0.1,2.3,mlp1",        "--mean-ids", "464,582,2277,262,1097",
          "--mean-ids", "1169,3290,4966,1363", NULL };
  /* the ids of the two lines as the model's tokenizer gives them */
  g_auto (Run) t1 = run_cli ("tokenize", "--model", mini, "--json", "The man hit the car", NULL);
  g_auto (Run) t2 = run_cli ("tokenize", "--model", mini, "--json", "the dog ran home", NULL);
  g_assert_cmpint (t1.status, ==, 0);
  g_assert_cmpint (t2.status, ==, 0);
  g_autoptr (JsonNode) j1 = parse_json (t1.out), j2 = parse_json (t2.out);
  g_autofree char *ids1 = NULL, *ids2 = NULL;
  char **ids[] = { &ids1, &ids2 };
  JsonNode *js[] = { j1, j2 };
  for (int k = 0; k < 2; k++)
    {
      JsonArray *arr = json_object_get_array_member (json_node_get_object (js[k]), "ids");
      GString *s = g_string_new (NULL);
      for (guint i = 0; i < json_array_get_length (arr); i++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? "," : "",
                                json_array_get_int_element (arr, i));
      *ids[k] = g_string_free (s, FALSE);
    }
  extra[3] = ids1;
  extra[5] = ids2;
  json_node_unref (check ("check-perplexity", "gpt2", mini, ppl, extra));
}

static void
test_decoders (void)
{
  static const char *const *const models[] = { llama, neox, gemma2, phi3, qwen3 };
  static const char *const names[]
      = { "whatif-llama", "whatif-neox", "whatif-gemma2", "whatif-phi3", "whatif-qwen3" };
  for (gsize i = 0; i < G_N_ELEMENTS (models); i++)
    {
      g_autofree char *dir = decoder_model (names[i], models[i], TRUE);
      if (dir == NULL)
        return;
      check_model ("decoder", dir, "the man is with the heads of every", "the man is with the",
                   "the heads is with the", " man", " the");
    }
}

static void
test_bert (void)
{
  g_autofree char *bert = shipped ("attnscope-mini-bert");
  check_model ("encoder", bert, "the man hit the [MASK]", "the man hit the car",
               "the car hit the man", "car", "man");
}

/* A text of 16 random single-token words, twice: the heads whose ablation costs the most loss on
 * the repeated half are the previous-token heads stats labels (the induction circuit's first
 * half; attnscope-mini has no head stats labels induction). */
static void
test_induction (void)
{
  const char *text = "occurring distinctive honor conduct pul plate spirit result protect former "
                     "muc sauce langu drawn shoulder cloud occurring distinctive honor conduct pul "
                     "plate spirit result protect former muc sauce langu drawn shoulder cloud";
  g_auto (Run) r
      = run_cli ("ablate", "--scan", "--text", text, "--loss", "--loss-from", "17", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "passes"), ==, 33);
  int first = -1, second = -1;
  double e1 = -1e30, e2 = -1e30;
  for (int l = 0; l < 4; l++)
    for (int h = 0; h < 8; h++)
      {
        double e = json_table_get (o, "effects", l, h);
        if (e > e1)
          {
            second = first, e2 = e1;
            first = l * 8 + h, e1 = e;
          }
        else if (e > e2)
          second = l * 8 + h, e2 = e;
      }
  g_test_message ("scan ranks %d.%d (%.4f) and %d.%d (%.4f) first", first / 8, first % 8, e1,
                  second / 8, second % 8, e2);
  g_assert_cmpint (first, ==, 0 * 8 + 0);
  g_assert_cmpint (second, ==, 1 * 8 + 6);
  /* and those are the heads stats labels previous-token on this text, and no other */
  g_auto (Run) t = run_cli ("stats", "--text", text, NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (t.out, "\n", -1);
  int n_previous = 0;
  for (int i = 0; lines[i] != NULL; i++)
    if (g_str_has_suffix (lines[i], "previous"))
      {
        n_previous++;
        g_assert_true (g_regex_match_simple ("^ *(0 +0|1 +6) ", lines[i], 0, 0));
      }
  g_assert_cmpint (n_previous, ==, 2);
}

static void
test_exact_one (void)
{
  /* the texts differ at position 1 only: at layer 0 nothing has mixed yet, so B's residual at
   * that position is all of B */
  g_auto (Run) r
      = run_cli ("patch", "--text", "the man is with the", "--text", "the heads is with the",
                 "--token", " man", "--vs-token", " the", "--what", "resid", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpfloat (json_table_get (o, "effects", 0, 1), ==, 1.0);
  for (int t = 0; t < 5; t++)
    if (t != 1)
      g_assert_cmpfloat (json_table_get (o, "effects", 0, t), ==, 0.0);
}

static void
test_errors (void)
{
  g_auto (Run) r1 = run_cli ("predict", "--text", "the man", "--ablate", "0.1,4.2", NULL);
  assert_error (&r1, 1, "no head 4.2 (it has 4 layers of 8 heads: 0.0–3.7)");
  g_auto (Run) r2 = run_cli ("patch", "--text", "the man", "--text", "the heads of the man",
                             "--token", " man", "--vs-token", " the", NULL);
  assert_error (&r2, 1, "same number of tokens: A has 2, B has 5");
  g_auto (Run) r3
      = run_cli ("ablate", "--scan", "--text", "the man", "--token", " mandolinist", NULL);
  assert_error (&r3, 1, "mandolinist");
  g_auto (Run) r4
      = run_cli ("predict", "--text", "the man", "--ablate", "0.1", "--ablation", "half", NULL);
  assert_error (&r4, 1, "--ablation: 'half' is not one of zero, mean");
  g_autofree char *empty = g_build_filename (test_tmpdir (), "empty.txt", NULL);
  g_assert_true (g_file_set_contents (empty, "\n  \n", -1, NULL));
  g_auto (Run) r5
      = run_cli ("stats", "--text", "the man", "--ablate", "0.1", "--mean-over", empty, NULL);
  assert_error (&r5, 1, "--mean-over");
  g_auto (Run) r6 = run_cli ("perplexity", "--text", "the man", "--ablation", "mean", NULL);
  assert_error (&r6, 1, "--ablation needs --ablate");
  g_autofree char *dump = g_build_filename (test_tmpdir (), "no.h5", NULL);
  g_auto (Run) r7 = run_cli ("run", "--model", "attnscope-mini-en-de", "--text", "the man",
                             "--target", "der Mann", "--ablate", "0.1", "--dump", dump, NULL);
  assert_error (&r7, 1, "translation model");
  g_assert_false (g_file_test (dump, G_FILE_TEST_EXISTS));
  g_auto (Run) r8 = run_cli ("ablate", "--text", "the man", "--loss", NULL);
  assert_error (&r8, 2, "--scan");
  g_auto (Run) r9
      = run_cli ("patch", "--text", "the man", "--token", " man", "--vs-token", " the", NULL);
  assert_error (&r9, 2, "--text twice");
  g_auto (Run) r10 = run_cli ("patch", "--text", "the man", "--text", "the man", "--token", " man",
                              "--vs-token", " the", "--what", "layers", NULL);
  assert_error (&r10, 1, "--what: 'layers' is not one of heads, mlps, resid");
  g_auto (Run) r11 = run_cli ("patch", "--text", "the man", "--text", "the man", "--token", " man",
                              "--vs-token", " the", NULL);
  assert_error (&r11, 1, "the same on both texts");
}

/* --ablate changes the prediction; --no-positions changes run's logits. */
static void
test_options_change (void)
{
  g_auto (Run) a = run_cli ("predict", "--text", "The man hit the", "--json", NULL);
  g_auto (Run) b
      = run_cli ("predict", "--text", "The man hit the", "--ablate", "0.0,0.4,1.6", "--json", NULL);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_cmpstr (a.out, !=, b.out);
  g_auto (Run) c
      = run_cli ("compare", "--text", "The man hit the car", "--text", "The car hit the man",
                 "--model", "attnscope-mini-bert", "--no-positions", "--json", NULL);
  g_assert_cmpint (c.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (c.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_nonnull (strstr (json_object_get_string_member (o, "positions"), "bidirectional"));
  /* the same tokens in another order: no hidden-state change beyond rounding */
  JsonArray *hidden = json_object_get_array_member (o, "hidden");
  for (guint l = 0; l < json_array_get_length (hidden); l++)
    g_assert_cmpfloat (
        json_object_get_double_member (json_array_get_object_element (hidden, l), "change"), <,
        1e-4);
  g_auto (Run) d = run_cli ("compare", "--text", "The man hit the car", "--text",
                            "The car hit the man", "--no-positions", NULL);
  g_assert_cmpint (d.status, ==, 0);
  g_assert_nonnull (strstr (d.out, "the causal mask still tells the orders apart"));
  g_auto (Run) e
      = run_cli ("compare", "--text", "The man hit the car", "--text", "The car hit the man",
                 "--model", "attnscope-mini-bert", "--json", NULL);
  g_assert_cmpint (e.status, ==, 0);
  g_assert_null (strstr (e.out, "\"positions\""));
}

/* ablate --scan --lines in 4 shards and patch --pairs in 3 merge to the single run's bytes; a
 * missing shard is refused. */
static void
test_shards (void)
{
  g_autofree char *corpus = g_build_filename (test_tmpdir (), "corpus.txt", NULL);
  g_assert_true (g_file_set_contents (corpus,
                                      "The man hit the car\nthe dog ran home\n\nA small cat sat\n"
                                      "the man is with the heads\nThe car hit the man\n",
                                      -1, NULL));
  g_auto (Run) single = run_cli ("ablate", "--scan", "--lines", corpus, "--token", " the",
                                 "--vs-token", " man", "--json", NULL);
  g_assert_cmpint (single.status, ==, 0);
  g_autoptr (GPtrArray) merge = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (merge, g_strdup ("merge"));
  for (int k = 0; k < 4; k++)
    {
      g_autofree char *spec = g_strdup_printf ("%d/4", k);
      char *part = g_strdup_printf ("%s/part-%d.json", test_tmpdir (), k);
      g_auto (Run) r = run_cli ("ablate", "--scan", "--lines", corpus, "--token", " the",
                                "--vs-token", " man", "--shard", spec, "-o", part, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_ptr_array_add (merge, part);
    }
  g_ptr_array_add (merge, g_strdup ("--json"));
  g_ptr_array_add (merge, NULL);
  g_auto (Run) merged = run_cli_argv ((const char *const *) merge->pdata);
  g_assert_cmpint (merged.status, ==, 0);
  g_assert_cmpstr (merged.out, ==, single.out);
  g_autoptr (JsonNode) root = parse_json (merged.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "texts"), ==, 5);
  g_auto (Run) missing = run_cli ("merge", merge->pdata[1], merge->pdata[2], merge->pdata[3], NULL);
  assert_error (&missing, 1, "shard 3/4 is missing");
  /* patch --pairs: the mean over the pairs, 3 shards merged give the same bytes */
  g_autofree char *pairs = g_build_filename (test_tmpdir (), "pairs.txt", NULL);
  g_assert_true (g_file_set_contents (pairs,
                                      "the man is with the\tthe heads is with the\n"
                                      "The man hit the car. The\tThe car hit the man. The\n"
                                      "the man of every\tthe heads of every\n",
                                      -1, NULL));
  g_auto (Run) p1 = run_cli ("patch", "--pairs", pairs, "--token", " man", "--vs-token", " the",
                             "--json", NULL);
  g_assert_cmpint (p1.status, ==, 0);
  g_autoptr (JsonNode) proot = parse_json (p1.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (proot), "pairs"), ==, 3);
  char *pp[3];
  for (int k = 0; k < 3; k++)
    {
      g_autofree char *spec = g_strdup_printf ("%d/3", k);
      pp[k] = g_strdup_printf ("%s/patch-%d.json", test_tmpdir (), k);
      g_auto (Run) r = run_cli ("patch", "--pairs", pairs, "--token", " man", "--vs-token", " the",
                                "--shard", spec, "-o", pp[k], NULL);
      g_assert_cmpint (r.status, ==, 0);
    }
  g_auto (Run) pm = run_cli ("merge", pp[2], pp[0], pp[1], "--json", NULL);
  g_assert_cmpint (pm.status, ==, 0);
  g_assert_cmpstr (pm.out, ==, p1.out);
  for (int k = 0; k < 3; k++)
    g_free (pp[k]);
  g_auto (Run) resid = run_cli ("patch", "--pairs", pairs, "--token", " man", "--vs-token", " the",
                                "--what", "resid", NULL);
  assert_error (&resid, 1, "line 2: --what resid over pairs needs the same number of tokens");
  /* a perplexity part of the ablated model does not merge with one of the model as it is */
  g_autofree char *plain = g_build_filename (test_tmpdir (), "plain.json", NULL);
  g_autofree char *ablated = g_build_filename (test_tmpdir (), "ablated.json", NULL);
  g_auto (Run) q0 = run_cli ("perplexity", "--lines", corpus, "--shard", "0/2", "-o", plain, NULL);
  g_auto (Run) q1 = run_cli ("perplexity", "--lines", corpus, "--ablate", "0.1", "--shard", "1/2",
                             "-o", ablated, NULL);
  g_assert_cmpint (q0.status, ==, 0);
  g_assert_cmpint (q1.status, ==, 0);
  g_auto (Run) q = run_cli ("merge", plain, ablated, NULL);
  assert_error (&q, 1, "ablate");
  g_auto (Run) no_lines = run_cli ("ablate", "--scan", "--text", "the man", "--loss", "--shard",
                                   "0/2", "-o", "x.json", NULL);
  assert_error (&no_lines, 2, "--shard splits a corpus");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/whatif/gpt2", test_gpt2);
  g_test_add_func ("/cli/whatif/decoders", test_decoders);
  g_test_add_func ("/cli/whatif/bert", test_bert);
  g_test_add_func ("/cli/whatif/induction", test_induction);
  g_test_add_func ("/cli/whatif/exact-one", test_exact_one);
  g_test_add_func ("/cli/whatif/errors", test_errors);
  g_test_add_func ("/cli/whatif/options-change", test_options_change);
  g_test_add_func ("/cli/whatif/shards", test_shards);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

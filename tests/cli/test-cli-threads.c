/* test-cli-threads.c — ATTNSCOPE_THREADS changes the speed of a command, never a bit of its output
 * (tests/README.md, "Same bits for every thread count").
 *
 * Every command runs with ATTNSCOPE_THREADS (and OPENBLAS_NUM_THREADS) = 1, 2, 3 and 4 (1 and 3
 * in a sanitizer build):
 * `run --dump` of every family's random model must give the same datasets, byte for byte
 * (dump-compare.h); `translate`, `stats`, `similarity`, `project` (PCA; t-SNE and UMAP with a
 * seed, over enough tokens for t-SNE's threaded path), `compare`, `perplexity`, `ablate --scan`,
 * `patch`, `attribute`, `qk`, `stats --norms` and a rollout figure the same output. The models come
 * from the suites' generators (fixture-model.c for GPT-2, decoder_reference.py for llama, mistral,
 * qwen2, qwen3, phi3, gemma2, gemma3_text and gpt_neox, encoder_reference.py for bert, distilbert
 * and roberta) at a width where a pass is worth threads and every product has several blocks of
 * columns (256 wide, MLP 640, vocabulary 1000): at the suites' usual widths (32–64) a pass runs on
 * one thread whatever the setting, and proves nothing. Marian is the shipped attnscope-mini-en-de
 * (192 wide, MLP 768, vocabulary 3577), the toy family seed-two-heads; T5 a t5_reference.py model
 * of that width with Flan-T5's gated MLP and a Unigram tokenizer.json. */
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "decoder-models.h"
#include "dump-compare.h"
#include "encoder-models.h"
#include "fixture-model.h"
#include "t5-models.h"

#define N_SETTINGS 4

/* The thread count after THREADS, or 0 after the last: 1, 2, 3, 4 — and in a sanitizer build 1
 * and 3 only (an uneven split of every product; the other counts are the normal build's). */
static int
next_setting (int threads)
{
  if (test_sanitized ())
    return threads == 1 ? 3 : 0;
  return threads < N_SETTINGS ? threads + 1 : 0;
}

/* The sizes of the decoders (make-model arguments after --family). */
#define DECODER_SHAPE                                                                              \
  "--layers", "2", "--heads", "8", "--kv-heads", "2", "--hidden", "256", "--intermediate", "640",  \
      "--vocab", "1000", "--positions", "256"

static const char *const llama_bf16[]
    = { "--family", "llama", DECODER_SHAPE, "--dtype", "bf16", NULL };
static const char *const mistral_window[]
    = { "--family", "mistral", DECODER_SHAPE, "--dtype", "f32", "--sliding-window", "24", NULL };
static const char *const qwen2_f16[]
    = { "--family", "qwen2", DECODER_SHAPE, "--dtype", "f16", NULL };
/* Qwen3: per-head q/k norms, head_dim 48 ≠ 256/8, the upper layer sliding */
static const char *const qwen3_window[]
    = { "--family",         "qwen3", DECODER_SHAPE, "--head-dim", "48",
        "--sliding-window", "24",    "--dtype",     "bf16",       NULL };
/* Phi-3: fused projections, longrope past its original 64 positions (the text has ~100 tokens) */
static const char *const phi3_longrope[]
    = { "--family", "phi3",           DECODER_SHAPE, "--rope-scaling",
        "longrope", "--original-max", "64",          "--partial-rotary",
        "0.5",      "--dtype",        "f32",         NULL };
/* Gemma 2 (soft-caps, every other layer sliding) and Gemma 3 (local RoPE, q/k norms) */
static const char *const gemma2[]
    = { "--family", "gemma2",    DECODER_SHAPE, "--head-dim", "32",   "--sliding-window",
        "24",       "--softcap", "20,10",       "--dtype",    "bf16", NULL };
static const char *const gemma3[]
    = { "--family", "gemma3_text",       DECODER_SHAPE, "--head-dim", "32",  "--sliding-window",
        "24",       "--sliding-pattern", "2",           "--dtype",    "f32", NULL };
static const char *const gpt_neox[]
    = { "--family",    "gpt_neox", "--layers",       "2",   "--heads", "8",
        "--hidden",    "256",      "--intermediate", "640", "--vocab", "1000",
        "--positions", "256",      "--dtype",        "f32", NULL };

#define ENCODER_SHAPE                                                                              \
  "--layers", "2", "--heads", "4", "--hidden", "256", "--intermediate", "640", "--vocab", "1000",  \
      "--positions", "256"

static const char *const bert[] = { "--family", "bert", ENCODER_SHAPE, NULL };
static const char *const distilbert[]
    = { "--family", "distilbert", ENCODER_SHAPE, "--seed", "1", NULL };
static const char *const roberta[] = { "--family", "roberta", ENCODER_SHAPE, "--seed", "2", NULL };

/* A text of ~100 byte-level tokens (the tiny-gpt2 tokenizer the GPT-2 and decoder models get). */
static const char *const long_text
    = "The man hit the car and the car hit the man; then the driver got out, looked at the dent "
      "and laughed.";

/* Runs attnscope with ARGS (NULL-terminated) under ATTNSCOPE_THREADS = OPENBLAS_NUM_THREADS =
 * THREADS; asserts it succeeded and returns its standard output (owned). */
static char *
run_threads (int threads, const char *const *args)
{
  g_autofree char *n = g_strdup_printf ("%d", threads);
  g_setenv ("ATTNSCOPE_THREADS", n, TRUE);
  g_setenv ("OPENBLAS_NUM_THREADS", n, TRUE);
  g_auto (Run) r = run_cli_argv (args);
  g_unsetenv ("ATTNSCOPE_THREADS");
  g_unsetenv ("OPENBLAS_NUM_THREADS");
  if (r.status != 0)
    g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  return g_steal_pointer (&r.out);
}

/* Runs `attnscope run ARGS... --dump F` with every thread setting (next_setting) and asserts that
 * every dump has the datasets of the first, byte for byte. */
static void
assert_dumps_agree (const char *label, const char *const *args)
{
  g_autofree char *first = NULL;
  for (int threads = 1; threads != 0; threads = next_setting (threads))
    {
      g_autofree char *name = g_strdup_printf ("%s-%d.h5", label, threads);
      g_autofree char *path = g_build_filename (test_tmpdir (), name, NULL);
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      g_ptr_array_add (argv, (char *) "run");
      for (int i = 0; args[i] != NULL; i++)
        g_ptr_array_add (argv, (char *) args[i]);
      g_ptr_array_add (argv, (char *) "--dump");
      g_ptr_array_add (argv, path);
      g_ptr_array_add (argv, NULL);
      g_free (run_threads (threads, (const char *const *) argv->pdata));
      if (first == NULL)
        {
          first = g_steal_pointer (&path);
          continue;
        }
      g_autofree char *why = NULL;
      if (!dump_same_datasets (first, path, &why))
        g_error ("%s: 1 thread against %d: %s", label, threads, why);
    }
}

/* Asserts that attnscope ARGS prints the same with every thread setting (next_setting); returns the
 * output (owned). */
static char *
assert_outputs_agree (const char *label, const char *const *args)
{
  char *first = run_threads (1, args);
  g_assert_cmpuint (strlen (first), >, 0);
  for (int threads = next_setting (1); threads != 0; threads = next_setting (threads))
    {
      g_autofree char *out = run_threads (threads, args);
      if (strcmp (first, out) != 0)
        g_error ("%s: the output with %d threads differs from 1 thread's", label, threads);
    }
  return first;
}

/* "a,b,c": N ids below VOCAB from a fixed stream (owned). */
static char *
random_ids (int n, int vocab, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  GString *s = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    g_string_append_printf (s, "%s%d", i > 0 ? "," : "", g_rand_int_range (rand, 0, vocab));
  return g_string_free (s, FALSE);
}

/* The GPT-2 model (made on first use; borrowed). */
static const char *
gpt2_model (void)
{
  static char *dir;
  if (dir != NULL)
    return dir;
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.n_layer = 2;
  spec.n_head = 4;
  spec.n_embd = 256;
  spec.n_inner = 640;
  spec.n_positions = 512;
  spec.vocab_size = 1000;
  dir = g_build_filename (test_tmpdir (), "gpt2", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (fixture_model_write (dir, &spec, &error));
  g_assert_no_error (error);
  return dir;
}

static void
test_gpt2 (void)
{
  const char *const args[] = { "--model", gpt2_model (), "--text", long_text, NULL };
  assert_dumps_agree ("gpt2", args);
}

static void
check_decoder (const char *name, const char *const *make_args)
{
  g_autofree char *model = decoder_model (name, make_args, TRUE);
  if (model == NULL)
    return;
  const char *const args[] = { "--model", model, "--text", long_text, NULL };
  assert_dumps_agree (name, args);
}

static void
test_llama (void)
{
  check_decoder ("threads-llama-bf16", llama_bf16);
}

static void
test_mistral (void)
{
  check_decoder ("threads-mistral-window", mistral_window);
}

static void
test_qwen2 (void)
{
  check_decoder ("threads-qwen2-f16", qwen2_f16);
}

static void
test_gpt_neox (void)
{
  check_decoder ("threads-gpt-neox", gpt_neox);
}

static void
test_qwen3 (void)
{
  check_decoder ("threads-qwen3-window", qwen3_window);
}

static void
test_phi3 (void)
{
  check_decoder ("threads-phi3-longrope", phi3_longrope);
}

static void
test_gemma2 (void)
{
  check_decoder ("threads-gemma2", gemma2);
}

static void
test_gemma3 (void)
{
  check_decoder ("threads-gemma3", gemma3);
}

static void
check_encoder (const char *name, const char *const *make_args)
{
  g_autofree char *model = encoder_model (name, make_args);
  if (model == NULL)
    return;
  g_autofree char *ids = random_ids (90, 1000, 7);
  g_autoptr (GString) types = g_string_new (NULL);
  for (int i = 0; i < 90; i++)
    g_string_append (types, i == 0 ? "0" : i < 50 ? ",0" : ",1");
  const char *const args[] = { "--model", model, "--ids", ids, "--type-ids", types->str, NULL };
  /* DistilBERT has no token types, RoBERTa one */
  const char *const no_types[] = { "--model", model, "--ids", ids, NULL };
  assert_dumps_agree (name, strcmp (name, "threads-bert") == 0 ? args : no_types);
}

static void
test_bert (void)
{
  check_encoder ("threads-bert", bert);
}

static void
test_distilbert (void)
{
  check_encoder ("threads-distilbert", distilbert);
}

static void
test_roberta (void)
{
  check_encoder ("threads-roberta", roberta);
}

static const char *const source_text = "The group went home after the long day at the lake.";

static void
test_marian (void)
{
  const char *const translate[]
      = { "translate", "--model", "attnscope-mini-en-de", "--text", source_text, "--beams", "4",
          "--json",    NULL };
  g_autofree char *out = assert_outputs_agree ("translate", translate);
  g_autoptr (JsonNode) root = parse_json (out);
  const char *target = json_object_get_string_member (json_node_get_object (root), "translation");
  g_assert_cmpuint (strlen (target), >, 0);
  const char *const args[]
      = { "--model", "attnscope-mini-en-de", "--text", source_text, "--target", target, NULL };
  assert_dumps_agree ("marian", args);
}

/* T5 (Flan-T5's gated-GELU MLP, relative position bias) at a width worth threads, with a T5
 * Unigram tokenizer trained on tests/fixtures/long-text.txt. */
static void
test_t5 (void)
{
  g_autofree char *text = test_source_path ("tests/fixtures/long-text.txt");
  const char *const make[]
      = { "--ff-proj", "gated-gelu", "--d-model", "256",  "--d-kv",      "32", "--heads", "8",
          "--d-ff",    "640",        "--vocab",   "1000", "--tokenizer", text, NULL };
  g_autofree char *model = t5_model ("threads-t5", make);
  if (model == NULL)
    return;
  const char *const translate[]
      = { "translate", "--model", model, "--text", source_text, "--beams", "4", "--json", NULL };
  g_autofree char *out = assert_outputs_agree ("translate", translate);
  g_autoptr (JsonNode) root = parse_json (out);
  JsonArray *ids = json_object_get_array_member (json_node_get_object (root), "ids");
  g_assert_cmpuint (json_array_get_length (ids), >, 1);
  const char *const args[] = { "--model",   model,      "--text",
                               source_text, "--target", "Die Gruppe ging nach Hause.",
                               NULL };
  assert_dumps_agree ("t5", args);
}

static void
test_toy (void)
{
  const char *const args[]
      = { "--model", "seed-two-heads", "--text", "May the force be with you", NULL };
  assert_dumps_agree ("toy", args);
}

/* ~600 tokens of attnscope-mini in lines: t-SNE's threaded path starts at 512 points. */
static char *
write_lines (void)
{
  static const char *const words[] = { "the",   "man", "car",  "hit",   "spring", "river", "bank",
                                       "green", "ran", "home", "light", "of",     "a",     "day" };
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  GString *s = g_string_new (NULL);
  for (int line = 0; line < 60; line++)
    {
      for (int w = 0; w < 9; w++)
        g_string_append_printf (s, "%s%s", w > 0 ? " " : "",
                                words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
      g_string_append (s, ".\n");
    }
  char *path = g_build_filename (test_tmpdir (), "lines.txt", NULL);
  g_assert_true (g_file_set_contents (path, s->str, -1, NULL));
  g_string_free (s, TRUE);
  return path;
}

static void
test_analyses (void)
{
  const char *m = "attnscope-mini", *b = "attnscope-mini-bert";
  const char *a = "The man hit the car, and then the car hit the man.";
  const char *a2 = "The car hit the man, and then the man hit the car.";
  const char *const stats[] = { "stats", "--model", m, "--text", a, "--json", NULL };
  const char *const stats_bert[]
      = { "stats", "--model", b, "--text", a, "--pair", a2, "--json", NULL };
  const char *const similarity[] = { "similarity", "--model", m,   "--text", a,   "--of",
                                     "hidden",     "--layer", "2", "--json", NULL };
  const char *const similarity_bert[]
      = { "similarity", "--model", b,        "--text", a,        "--of", "contexts",
          "--layer",    "1",       "--head", "2",      "--json", NULL };
  const char *const compare[]
      = { "compare", "--model", m, "--text", a, "--text", a2, "--json", NULL };
  const char *const perplexity[] = { "perplexity", "--model", m, "--text", a, "--json", NULL };
  const char *const pca[] = { "project", "--model", m,      "--method", "pca",     "--text", a,
                              "--text",  a2,        "--of", "hidden",   "--layer", "3",      NULL };
  g_free (assert_outputs_agree ("stats", stats));
  g_free (assert_outputs_agree ("stats (encoder pair)", stats_bert));
  g_free (assert_outputs_agree ("similarity", similarity));
  g_free (assert_outputs_agree ("similarity (encoder)", similarity_bert));
  g_free (assert_outputs_agree ("compare", compare));
  g_free (assert_outputs_agree ("perplexity", perplexity));
  g_free (assert_outputs_agree ("project pca", pca));

  g_autofree char *lines = write_lines ();
  const char *const tsne[]
      = { "project", "--model", m,   "--method", "tsne", "--lines",      lines, "--of",
          "hidden",  "--layer", "2", "--seed",   "5",    "--iterations", "300", NULL };
  const char *const umap[]
      = { "project", "--model", m,   "--method", "umap", "--lines",  lines, "--of",
          "hidden",  "--layer", "2", "--seed",   "5",    "--epochs", "100", NULL };
  g_autofree char *out = assert_outputs_agree ("project tsne", tsne);
  g_autoptr (JsonNode) root = parse_json (out);
  JsonArray *points = json_object_get_array_member (json_node_get_object (root), "points");
  g_assert_cmpuint (json_array_get_length (points), >=, 512); /* the threaded path */
  g_free (assert_outputs_agree ("project umap", umap));
  /* the logit lens, and the fitted lens's maps through its held-out KL (17 digits) */
  const char *const lens[]
      = { "lens", "--model", m, "--text", a, "--top", "5", "--token", " car", "--json", NULL };
  const char *const fit[] = { "lens", "--model", m, "--fit", lines, "--json", NULL };
  g_free (assert_outputs_agree ("lens", lens));
  g_free (assert_outputs_agree ("lens --fit", fit));
}

/* The rollout of the GPT-2 model over 300 tokens: its products are shared between threads from
 * 256 tokens on. */
static void
test_rollout (void)
{
  GString *text = g_string_new (NULL);
  while (text->len < 420)
    g_string_append (text, "the man hit the car and the car hit the man. ");
  g_autofree char *first = NULL;
  gsize first_size = 0;
  for (int threads = 1; threads != 0; threads = next_setting (threads))
    {
      g_autofree char *name = g_strdup_printf ("rollout-%d.png", threads);
      g_autofree char *path = g_build_filename (test_tmpdir (), name, NULL);
      const char *const args[] = { "export",    "--model", gpt2_model (), "--text", text->str,
                                   "--rollout", "1",       "-o",          path,     NULL };
      g_free (run_threads (threads, args));
      g_autofree char *bytes = NULL;
      gsize n = 0;
      g_assert_true (g_file_get_contents (path, &bytes, &n, NULL));
      if (first == NULL)
        {
          first = g_steal_pointer (&bytes);
          first_size = n;
          continue;
        }
      g_assert_cmpuint (n, ==, first_size);
      g_assert_true (memcmp (first, bytes, n) == 0);
    }
  g_string_free (text, TRUE);
}

/* ablate --scan and patch (heads, residual) on the wide GPT-2: prefix reuse and the hooks keep
 * the pass's blocks, so the effects are the same bits. */
static void
test_whatif (void)
{
  const char *a = "the man is with the heads of every man that is with the mock of";
  const char *b = "the man is with the heads of every man that is with the mick of";
  const char *const scan[] = { "ablate",  "--scan", "--model",    gpt2_model (), "--text", a,
                               "--token", "e",      "--vs-token", "a",           "--json", NULL };
  g_autofree char *s = assert_outputs_agree ("ablate", scan);
  const char *const loss[]
      = { "ablate", "--scan", "--model", gpt2_model (), "--text", a, "--loss", "--json", NULL };
  g_autofree char *l = assert_outputs_agree ("ablate-loss", loss);
  static const char *const what[] = { "heads", "resid" };
  for (int i = 0; i < 2; i++)
    {
      const char *const patch[]
          = { "patch", "--model",    gpt2_model (), "--text", a,       "--text", b,   "--token",
              "e",     "--vs-token", "a",           "--what", what[i], "--json", NULL };
      g_autofree char *p = assert_outputs_agree (what[i], patch);
    }
}

/* Direct logit attribution, the attention norms and the query–key view of the 256-wide GPT-2
 * model over ~100 tokens (the norms' products shared between threads) and of a Llama model with
 * grouped-query attention in BF16. */
static void
test_attribution (void)
{
  GString *text = g_string_new (NULL);
  while (text->len < 420)
    g_string_append (text, "the man hit the car and the car hit the man. ");
  const char *g = gpt2_model ();
  const char *const attribute[] = { "attribute", "--model", g,   "--text", text->str, "--target-id",
                                    "17",        "--vs-id", "5", "--json", NULL };
  const char *const norms[]
      = { "stats", "--model", g, "--text", text->str, "--norms", "--json", NULL };
  const char *const qk[]
      = { "qk", "--model", g, "--text", text->str, "--layer", "1", "--head", "2", "--json", NULL };
  g_free (assert_outputs_agree ("attribute", attribute));
  g_free (assert_outputs_agree ("stats --norms", norms));
  g_free (assert_outputs_agree ("qk", qk));
  g_autofree char *llama = decoder_model ("threads-llama-bf16-text", llama_bf16, TRUE);
  if (llama != NULL)
    {
      const char *const l_attribute[] = { "attribute",   "--model", llama,    "--text", text->str,
                                          "--target-id", "17",      "--json", NULL };
      const char *const l_norms[]
          = { "stats", "--model", llama, "--text", text->str, "--norms", "--json", NULL };
      g_free (assert_outputs_agree ("attribute (llama)", l_attribute));
      g_free (assert_outputs_agree ("stats --norms (llama)", l_norms));
    }
  g_string_free (text, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/threads/run/gpt2", test_gpt2);
  g_test_add_func ("/cli/threads/run/llama", test_llama);
  g_test_add_func ("/cli/threads/run/mistral", test_mistral);
  g_test_add_func ("/cli/threads/run/qwen2", test_qwen2);
  g_test_add_func ("/cli/threads/run/qwen3", test_qwen3);
  g_test_add_func ("/cli/threads/run/phi3", test_phi3);
  g_test_add_func ("/cli/threads/run/gemma2", test_gemma2);
  g_test_add_func ("/cli/threads/run/gemma3", test_gemma3);
  g_test_add_func ("/cli/threads/run/gpt-neox", test_gpt_neox);
  g_test_add_func ("/cli/threads/run/bert", test_bert);
  g_test_add_func ("/cli/threads/run/distilbert", test_distilbert);
  g_test_add_func ("/cli/threads/run/roberta", test_roberta);
  g_test_add_func ("/cli/threads/run/marian", test_marian);
  g_test_add_func ("/cli/threads/run/t5", test_t5);
  g_test_add_func ("/cli/threads/run/toy", test_toy);
  g_test_add_func ("/cli/threads/whatif", test_whatif);
  g_test_add_func ("/cli/threads/analyses", test_analyses);
  g_test_add_func ("/cli/threads/rollout", test_rollout);
  g_test_add_func ("/cli/threads/attribution", test_attribution);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

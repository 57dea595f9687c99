/* test-cli-decoder.c — the command line on Llama-family and GPT-NeoX models (README.md, "Command
 * line"): info shows the family, query and key/value heads, head size, RoPE settings, dtype,
 * parameters and the memory a trace needs at the full context; run and predict take --ids; a
 * model without tokenizer files refuses text with a message that says to give ids; a pass that
 * would not fit is refused with both sizes and the tokens that would fit; a broken checkpoint
 * gives one error line; a Llama folder with tokenizer.json (and vocab.json + merges.txt beside it)
 * tokenizes with tokenizer.json and runs text. The models come from
 * tests/reference/decoder_reference.py (tests/core/decoder-models.h), the run's dump is compared
 * with the reference's outputs. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "decoder-models.h"
#include "dump-compare.h"
#include "trace-compare.h"

static void
test_info (void)
{
  g_autofree char *model
      = decoder_model ("llama-gqa-bf16-sharded-llama3", decoder_llama_gqa, FALSE);
  if (model == NULL)
    return;
  Run r = run_cli ("info", "--model", model, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "architecture"), ==, "llama");
  g_assert_cmpstr (json_object_get_string_member (o, "model_type"), ==, "llama");
  g_assert_cmpint (json_object_get_int_member (o, "n_head"), ==, 8);
  g_assert_cmpint (json_object_get_int_member (o, "n_kv_head"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (o, "head_dim"), ==, 16);
  g_assert_cmpstr (json_object_get_string_member (o, "weights"), ==,
                   "model.safetensors.index.json");
  g_assert_cmpstr (json_object_get_string_member (o, "weights_dtype"), ==, "BF16");
  g_assert_false (json_object_get_boolean_member (o, "tokenizer"));
  gint64 layer = 128 * 128 + 2 * 128 * 32 + 128 * 128 + 3 * 128 * 192 + 2 * 128;
  g_assert_cmpint (json_object_get_int_member (o, "n_params"), ==,
                   320 * 128 + 3 * layer + 128 + 320 * 128);
  JsonObject *settings = json_object_get_object_member (o, "settings");
  g_assert_nonnull (strstr (json_object_get_string_member (settings, "rope"), "llama3 scaling"));
  g_assert_nonnull (strstr (json_object_get_string_member (settings, "norm"), "RMSNorm"));
  /* the full context: at least its attention L·H·T²·4 bytes, and not much more */
  double attention = 3.0 * 8 * 1024 * 1024 * 4;
  gint64 at_context = json_object_get_int_member (o, "trace_bytes_at_context");
  g_assert_cmpfloat (at_context, >=, attention);
  g_assert_cmpfloat (at_context, <, 1.2 * attention);
  g_assert_cmpint (json_object_get_int_member (o, "max_tokens_now"), ==, 1024);
  /* both forms at the full context: on demand, the matrices' L·H·T² floats become queries, keys
   * once per key/value head and two row statistics, and the attention outputs (L·T·D, remade
   * from the contexts when read) are not kept; everything else is the same */
  gint64 L = 3, H = 8, K = 2, T = 1024, hd = 16, D = 128;
  gint64 matrices = json_object_get_int_member (o, "trace_bytes_at_context_matrices");
  gint64 on_demand = json_object_get_int_member (o, "trace_bytes_at_context_on_demand");
  g_assert_cmpint (matrices - on_demand, ==,
                   4 * (L * H * T * T - L * (H + K) * T * hd - 2 * L * H * T + L * T * D));
  g_assert_cmpint (json_object_get_int_member (o, "max_tokens_now_matrices"), ==, 1024);
  g_assert_cmpint (json_object_get_int_member (o, "max_tokens_now_on_demand"), ==, 1024);
  run_clear (&r);

  /* a quarter of that memory fits about half the tokens keeping every matrix (the attention
   * grows with T²), and the whole context on demand; the automatic choice keeps on demand what
   * would not fit with the matrices, so all of it fits */
  g_autofree char *limit = g_strdup_printf ("%" G_GINT64_FORMAT, at_context / 4);
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", limit, TRUE);
  r = run_cli ("info", "--model", model, "--json", NULL);
  g_unsetenv ("ATTNSCOPE_MEMORY_LIMIT");
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) limited = parse_json (r.out);
  JsonObject *lo = json_node_get_object (limited);
  gint64 fit = json_object_get_int_member (lo, "max_tokens_now_matrices");
  g_assert_cmpint (fit, >, 450);
  g_assert_cmpint (fit, <, 520);
  g_assert_cmpint (json_object_get_int_member (lo, "max_tokens_now_on_demand"), ==, 1024);
  g_assert_cmpint (json_object_get_int_member (lo, "max_tokens_now"), ==, 1024);
  run_clear (&r);

  /* a dump of 900 tokens under that limit: their matrices (77.8 MB) do not fit, so the pass
   * keeps its attention on demand and the dump streams it; every dataset equals a dump made
   * without the limit (the matrices kept), to the bit */
  g_autofree char *ids = decoder_ids (900, 320, 5, 0);
  g_autofree char *plain = g_build_filename (test_tmpdir (), "plain.h5", NULL);
  g_autofree char *under_limit = g_build_filename (test_tmpdir (), "under-limit.h5", NULL);
  r = run_cli ("run", "--model", model, "--ids", ids, "--dump", plain, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", limit, TRUE);
  r = run_cli ("run", "--model", model, "--ids", ids, "--dump", under_limit, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  /* forced to keep the matrices, the same pass is refused, naming what fits */
  g_setenv ("ATTNSCOPE_ATTENTION", "matrices", TRUE);
  g_autofree char *refused = g_build_filename (test_tmpdir (), "refused-matrices.h5", NULL);
  r = run_cli ("run", "--model", model, "--ids", ids, "--dump", refused, NULL);
  g_unsetenv ("ATTNSCOPE_ATTENTION");
  g_unsetenv ("ATTNSCOPE_MEMORY_LIMIT");
  assert_error (&r, 1, "the attention of 3 layers x 8 heads x 900 x 900 tokens");
  g_assert_false (g_file_test (refused, G_FILE_TEST_EXISTS));
  run_clear (&r);
  g_autofree char *why = NULL;
  if (!dump_same_datasets (plain, under_limit, &why))
    g_error ("the dump under the memory limit differs: %s", why);

  r = run_cli ("info", "--model", model, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "heads:         8 per layer, sharing 2 key/value heads"));
  g_assert_nonnull (strstr (r.out, "weights:       model.safetensors.index.json (BF16)"));
  g_assert_nonnull (strstr (r.out, "rope:          theta 500000"));
  g_assert_nonnull (strstr (r.out, "tokenizer:     none: runs on token ids"));
  g_assert_nonnull (strstr (r.out, "at the full context of 1024 tokens"));
  g_assert_nonnull (
      strstr (r.out, "tokens fit (1024 keeping every matrix, 1024 with queries and keys)"));
  run_clear (&r);
}

/* run --ids --dump on Mistral with T beyond its window: the contract's datasets, equal to the
 * reference's outputs. */
static void
test_run_ids (void)
{
  g_autofree char *model = decoder_model ("mistral-window", decoder_mistral_window, FALSE);
  if (model == NULL)
    return;
  const int lengths[] = { 41 };
  g_autofree char *expected = decoder_expected (model, lengths, 1, 320, 5, NULL);
  if (expected == NULL)
    return;
  g_autofree char *ids = decoder_ids (41, 320, 5, 0);
  g_autofree char *out = g_build_filename (test_tmpdir (), "mistral.h5", NULL);
  Run r = run_cli ("run", "--model", model, "--ids", ids, "--dump", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "41 tokens, 2 layers x 4 heads"));
  run_clear (&r);

  hid_t dump = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t ref = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (dump, >=, 0);
  g_assert_cmpint (ref, >=, 0);
  hsize_t attn_dims[] = { 2, 4, 41, 41 }, hidden_dims[] = { 3, 41, 64 };
  hsize_t ctx_dims[] = { 2, 4, 41, 16 }, logit_dims[] = { 41, 320 };
  g_autofree float *attn = trace_read_floats (dump, "", "attentions", 4, attn_dims);
  g_autofree float *attn_ref = trace_read_floats (ref, "seq0", "attentions", 4, attn_dims);
  check_close ("dump attentions", attn, attn_ref, 2 * 4 * 41 * 41, TRACE_ATTN_ATOL, 0.0);
  /* outside the window of 37 keys the weights are exactly 0: row 40 sees keys 4..40 */
  g_assert_cmpfloat (attn[40 * 41 + 3], ==, 0.0f);
  g_assert_cmpfloat (attn[40 * 41 + 4], >, 0.0f);
  g_autofree float *hidden = trace_read_floats (dump, "", "hidden_states", 3, hidden_dims);
  trace_compare_vectors ("dump", "hidden_states", hidden, ref, "seq0", 3, hidden_dims);
  g_autofree float *ctx = trace_read_floats (dump, "", "contexts", 4, ctx_dims);
  trace_compare_vectors ("dump", "contexts", ctx, ref, "seq0", 4, ctx_dims);
  g_autofree float *logits = trace_read_floats (dump, "", "logits", 2, logit_dims);
  trace_compare_vectors ("dump", "logits", logits, ref, "seq0", 2, logit_dims);
  H5Fclose (dump);
  H5Fclose (ref);
}

/* predict --ids: the top token is the reference's argmax; --steps appends ids. */
static void
test_predict_ids (void)
{
  g_autofree char *model = decoder_model ("llama-f32", decoder_llama_f32, TRUE);
  if (model == NULL)
    return;
  const int lengths[] = { 9 };
  g_autofree char *expected = decoder_expected (model, lengths, 1, 320, 3, NULL);
  if (expected == NULL)
    return;
  hid_t ref = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t logit_dims[] = { 9, 320 };
  g_autofree float *logits = trace_read_floats (ref, "seq0", "logits", 2, logit_dims);
  H5Fclose (ref);
  const float *last = logits + 8 * 320;
  int best = 0;
  for (int i = 1; i < 320; i++)
    best = last[i] > last[best] ? i : best;

  g_autofree char *ids = decoder_ids (9, 320, 3, 0);
  Run r = run_cli ("predict", "--model", model, "--ids", ids, "--top", "3", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonArray *top = json_object_get_array_member (json_node_get_object (root), "predictions");
  JsonObject *first = json_array_get_object_element (top, 0);
  g_assert_cmpint (json_object_get_int_member (first, "id"), ==, best);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (first, "logit"), last[best],
                                  1e-4 * fabs (last[best]) + 1e-5);
  run_clear (&r);

  r = run_cli ("predict", "--model", model, "--ids", ids, "--steps", "2", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpint (g_strv_length (lines), ==, 3);
  g_autoptr (JsonNode) step1 = parse_json (lines[0]);
  JsonObject *s1 = json_node_get_object (step1);
  JsonObject *s1_top = json_array_get_object_element (json_object_get_array_member (s1, "top"), 0);
  g_assert_cmpint (json_object_get_int_member (s1_top, "id"), ==, best);
  run_clear (&r);

  /* exactly one of --text and --ids */
  r = run_cli ("predict", "--model", model, "--ids", ids, "--text", "the", NULL);
  assert_error (&r, 2, "exactly one of --text");
  run_clear (&r);
}

static void
test_ids_only_and_memory (void)
{
  g_autofree char *model
      = decoder_model ("llama-gqa-bf16-sharded-llama3", decoder_llama_gqa, FALSE);
  if (model == NULL)
    return;
  Run r = run_cli ("predict", "--model", model, "--text", "hello", NULL);
  assert_error (&r, 1, "give token ids instead of text");
  run_clear (&r);
  r = run_cli ("tokenize", "--model", model, "hello", NULL);
  assert_error (&r, 1, "has no tokenizer: looked for tokenizer.json");
  run_clear (&r);

  g_autofree char *ids = decoder_ids (300, 320, 1, 0);
  g_autofree char *out = g_build_filename (test_tmpdir (), "refused.h5", NULL);
  /* the matrices alone are 8.6 MB; on demand the trace is 2.0 MB, and the weights are held */
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", "2000000", TRUE);
  r = run_cli ("run", "--model", model, "--ids", ids, "--dump", out, NULL);
  g_unsetenv ("ATTNSCOPE_MEMORY_LIMIT");
  assert_error (&r, 1, "A forward pass over 300 tokens needs");
  g_assert_nonnull (strstr (r.err, "the queries and keys of 3 layers x 8 heads x 300 tokens"));
  /* under a limit the weights count: the message says what they hold and what is left */
  g_assert_nonnull (strstr (r.err, "already held, the limit of 2.0"));
  g_assert_nonnull (strstr (r.err, "(ATTNSCOPE_MEMORY_LIMIT) leaves only"));
  g_assert_nonnull (strstr (r.err, "tokens fit"));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  run_clear (&r);
}

static void
test_broken_checkpoint (void)
{
  g_autofree char *model
      = decoder_model ("llama-gqa-bf16-sharded-llama3", decoder_llama_gqa, FALSE);
  if (model == NULL)
    return;
  g_autofree char *copy = g_build_filename (test_tmpdir (), "broken", NULL);
  const char *cp[] = { "cp", "-r", model, copy, NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) cp, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, NULL, NULL));
  g_autofree char *shard = g_build_filename (copy, "model-00003-of-00003.safetensors", NULL);
  g_assert_cmpint (g_unlink (shard), ==, 0);
  Run r = run_cli ("info", "--model", copy, NULL);
  assert_error (&r, 1, "model-00003-of-00003.safetensors");
  run_clear (&r);
}

/* The text of line INDEX of tests/fixtures/tokenizers/llama-spm's tests.inp and its ids from
 * tests.out (what transformers' AutoTokenizer gives, without special tokens). */
static char *
llama_spm_case (int index, GArray *ids)
{
  g_autofree char *inp_path = test_source_path ("tests/fixtures/tokenizers/llama-spm/tests.inp");
  g_autofree char *out_path = test_source_path ("tests/fixtures/tokenizers/llama-spm/tests.out");
  g_autofree char *inp = NULL, *out = NULL;
  g_assert_true (g_file_get_contents (inp_path, &inp, NULL, NULL));
  g_assert_true (g_file_get_contents (out_path, &out, NULL, NULL));
  g_auto (GStrv) texts = g_strsplit (inp, "\n__ggml_vocab_test__\n", -1);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (texts), >, (guint) index);
  g_assert_cmpuint (g_strv_length (lines), >, (guint) index);
  g_auto (GStrv) fields = g_strsplit (g_strstrip (lines[index]), " ", -1);
  for (char **f = fields; *f != NULL; f++)
    if (**f != '\0')
      {
        int32_t id = (int32_t) g_ascii_strtoll (*f, NULL, 10);
        g_array_append_val (ids, id);
      }
  return g_strdup (texts[index]);
}

/* A Llama folder with Llama 2's tokenizer.json and, beside it, GPT-2-style vocab.json +
 * merges.txt: tokenize, run --text and predict --text use tokenizer.json (BOS 1 first, then
 * exactly HF's ids, byte fallback for the emoji), and the pass over the text is the reference's
 * pass over those ids. */
static void
test_text_tokenizer_json (void)
{
  g_autofree char *model = decoder_model_llama_spm ();
  if (model == NULL)
    return;
  g_autoptr (GArray) expected_ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  int32_t bos = 1;
  g_array_append_val (expected_ids, bos);
  /* "Hello, y'all! How are you 😁 ?我想在apple工作1314151天～": 1 + 30 ids */
  g_autofree char *text = llama_spm_case (32, expected_ids);
  const int T = (int) expected_ids->len;
  g_assert_cmpint (T, ==, 31);
  GString *csv = g_string_new (NULL);
  for (int i = 0; i < T; i++)
    g_string_append_printf (csv, i ? ",%d" : "%d", g_array_index (expected_ids, int32_t, i));
  g_autofree char *ids = g_string_free (csv, FALSE);

  Run r = run_cli ("tokenize", "--model", model, "--json", text, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) tokenized = parse_json (r.out);
  JsonArray *got = json_object_get_array_member (json_node_get_object (tokenized), "ids");
  g_assert_cmpuint (json_array_get_length (got), ==, (guint) T);
  for (int i = 0; i < T; i++)
    g_assert_cmpint (json_array_get_int_element (got, i), ==,
                     g_array_index (expected_ids, int32_t, i));
  run_clear (&r);

  g_autofree char *expected = decoder_expected_ids (model, ids);
  if (expected == NULL)
    return;
  g_autofree char *out = g_build_filename (test_tmpdir (), "llama-spm.h5", NULL);
  r = run_cli ("run", "--model", model, "--text", text, "--dump", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  hid_t dump = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t ref = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (dump, >=, 0);
  g_assert_cmpint (ref, >=, 0);
  hid_t ds = H5Dopen2 (dump, "token_ids", H5P_DEFAULT);
  g_assert_cmpint (ds, >=, 0);
  g_autofree int64_t *dumped = g_new0 (int64_t, T);
  g_assert_cmpint (H5Dread (ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, dumped), >=, 0);
  H5Dclose (ds);
  for (int i = 0; i < T; i++)
    g_assert_cmpint (dumped[i], ==, g_array_index (expected_ids, int32_t, i));
  hsize_t attn_dims[] = { 2, 4, T, T }, hidden_dims[] = { 3, T, 64 };
  hsize_t logit_dims[] = { T, 32000 };
  g_autofree float *attn = trace_read_floats (dump, "", "attentions", 4, attn_dims);
  g_autofree float *attn_ref = trace_read_floats (ref, "seq0", "attentions", 4, attn_dims);
  check_close ("text dump attentions", attn, attn_ref, 2 * 4 * T * T, TRACE_ATTN_ATOL, 0.0);
  g_autofree float *hidden = trace_read_floats (dump, "", "hidden_states", 3, hidden_dims);
  trace_compare_vectors ("text dump", "hidden_states", hidden, ref, "seq0", 3, hidden_dims);
  g_autofree float *logits = trace_read_floats (dump, "", "logits", 2, logit_dims);
  trace_compare_vectors ("text dump", "logits", logits, ref, "seq0", 2, logit_dims);
  g_autofree float *ref_logits = trace_read_floats (ref, "seq0", "logits", 2, logit_dims);
  H5Fclose (dump);
  H5Fclose (ref);

  const float *last = ref_logits + (gsize) (T - 1) * 32000;
  int best = 0;
  for (int i = 1; i < 32000; i++)
    best = last[i] > last[best] ? i : best;
  r = run_cli ("predict", "--model", model, "--text", text, "--top", "1", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) predicted = parse_json (r.out);
  JsonObject *root = json_node_get_object (predicted);
  g_assert_cmpstr (json_object_get_string_member (root, "text"), ==, text);
  JsonArray *top = json_object_get_array_member (root, "predictions");
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (top, 0), "id"), ==,
                   best);
  run_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/cli/decoder/info", test_info);
  g_test_add_func ("/cli/decoder/run-ids", test_run_ids);
  g_test_add_func ("/cli/decoder/predict-ids", test_predict_ids);
  g_test_add_func ("/cli/decoder/ids-only-and-memory", test_ids_only_and_memory);
  g_test_add_func ("/cli/decoder/broken-checkpoint", test_broken_checkpoint);
  g_test_add_func ("/cli/decoder/text-tokenizer-json", test_text_tokenizer_json);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

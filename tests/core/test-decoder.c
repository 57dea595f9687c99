/* test-decoder.c — the `llama` (llama, mistral, qwen2) and `gpt_neox` families against the
 * project's independent PyTorch reference of Hugging Face's eager forward.
 *
 * tests/reference/decoder_reference.py writes random models in the exact HF layout (config.json,
 * F32/BF16/F16 safetensors, single or sharded) and the reference's outputs for random ids
 * (decoder-models.h). Every case is checked at T = 1, a prime length and a length ≥ 256 with the
 * tolerances of tests/README.md (trace-compare.h): attention within 1e-5 absolute, q/k/v (k and
 * v expanded to query heads), contexts, attention outputs, hidden states and logits within 1e-4
 * relative; masked weights — the future, and keys outside a sliding window — exactly 0. Between
 * them the cases cover grouped-query and multi-query attention, head_dim ≠ D/H, BF16/F16 weights,
 * sharded checkpoints, tied and untied output matrices, linear and llama3 RoPE scaling, the
 * transformers-5 rope_parameters form, Qwen2's biases and its sliding window on the upper layers,
 * Mistral's sliding window with T longer than the window, NeoX's partial rotary with parallel and
 * sequential residuals, and Meta's interleaved RoPE layout converted with HF's permutation (the
 * reference computes that case from Meta's unconverted weights with Meta's own rotation).
 *
 * Bad input: a missing shard, an index naming a tensor its shard lacks, an unsupported dtype,
 * inconsistent head counts, unsupported or incomplete RoPE scaling, a pickle-only folder — each
 * a clear error and no model. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "check-close.h"
#include "decoder-models.h"
#include "memory-private.h"
#include "trace-compare.h"

#define VOCAB 320 /* ≥ the 300 tokens of tests/fixtures/tiny-gpt2's tokenizer */

typedef struct
{
  const char *name;
  const char *const *args; /* make-model options, NULL-terminated */
  gboolean tokenizer;      /* copy a tokenizer into the folder */
  int lengths[4];          /* sequence lengths, 0-terminated */
  int windows[8];          /* the expected sliding window of each layer (0: none) */
  gboolean meta;           /* expected outputs from Meta's unconverted weights */
} DecoderCase;

static int
count_lengths (const DecoderCase *dc)
{
  int n = 0;
  while (n < 4 && dc->lengths[n] > 0)
    n++;
  return n;
}

static void
run_case (gconstpointer data)
{
  const DecoderCase *dc = data;
  g_autofree char *dir = decoder_model (dc->name, dc->args, dc->tokenizer);
  if (dir == NULL)
    return;
  g_autofree char *meta = dc->meta ? g_strconcat (dir, ".meta.safetensors", NULL) : NULL;
  int n = count_lengths (dc);
  g_autofree char *expected = decoder_expected (dir, dc->lengths, n, VOCAB, 11, meta);
  if (expected == NULL)
    return;
  TraceCompareSpec spec = { .windows = dc->windows };
  g_assert_cmpint (trace_compare_model (dir, expected, dc->name, &spec), ==, n);
}

/* --- the cases ----------------------------------------------------------------------------- */

#define SMALL                                                                                      \
  "--layers", "2", "--heads", "4", "--hidden", "64", "--intermediate", "112", "--vocab", "320",    \
      "--positions", "1024"

static const char *const llama_mqa[]
    = { "--family", "llama", SMALL,   "--kv-heads",     "1",        "--head-dim", "24",
        "--dtype",  "f16",   "--tie", "--rope-scaling", "linear:4", NULL };
static const char *const llama_params[] = { "--family",
                                            "llama",
                                            SMALL,
                                            "--kv-heads",
                                            "2",
                                            "--dtype",
                                            "bf16",
                                            "--rope-scaling",
                                            "llama3:32,1,4,96",
                                            "--rope-parameters",
                                            "--seed",
                                            "5",
                                            NULL };
static const char *const qwen2[] = { "--family", "qwen2", "--layers",       "4",
                                     "--heads",  "6",     "--kv-heads",     "2",
                                     "--hidden", "96",    "--intermediate", "160",
                                     "--vocab",  "320",   "--positions",    "1024",
                                     "--dtype",  "bf16",  "--tie",          "--sliding-window",
                                     "40",       NULL };
static const char *const neox_parallel[]
    = { "--family",    "gpt_neox", "--layers",       "3",    "--heads", "4",
        "--hidden",    "64",       "--intermediate", "256",  "--vocab", "320",
        "--positions", "1024",     "--rotary-pct",   "0.25", "--dtype", "f16",
        NULL };
static const char *const neox_sequential[] = { "--family",
                                               "gpt_neox",
                                               "--layers",
                                               "2",
                                               "--heads",
                                               "4",
                                               "--hidden",
                                               "64",
                                               "--intermediate",
                                               "256",
                                               "--vocab",
                                               "320",
                                               "--positions",
                                               "1024",
                                               "--no-parallel-residual",
                                               "--rotary-pct",
                                               "0.5",
                                               "--tie",
                                               "--dtype",
                                               "bf16",
                                               "--shards",
                                               "2",
                                               NULL };
static const char *const llama_meta[]
    = { "--family", "llama", SMALL, "--kv-heads", "2", "--from-meta", "--seed", "9", NULL };

static const DecoderCase cases[] = {
  { "llama-f32", decoder_llama_f32, TRUE, { 1, 13, 257 }, { 0 }, FALSE },
  { "llama-gqa-bf16-sharded-llama3", decoder_llama_gqa, FALSE, { 1, 31, 300 }, { 0 }, FALSE },
  { "llama-mqa-headdim-f16-tied-linear", llama_mqa, FALSE, { 1, 17, 256 }, { 0 }, FALSE },
  { "llama-rope-parameters", llama_params, FALSE, { 1, 7, 263 }, { 0 }, FALSE },
  { "qwen2-biases-window", qwen2, FALSE, { 1, 53, 263 }, { 0, 0, 40, 40 }, FALSE },
  { "mistral-window", decoder_mistral_window, FALSE, { 1, 37, 41, 271 }, { 37, 37 }, FALSE },
  { "neox-parallel-f16", neox_parallel, FALSE, { 1, 29, 256 }, { 0 }, FALSE },
  { "neox-sequential-bf16-tied", neox_sequential, FALSE, { 1, 11, 257 }, { 0 }, FALSE },
  { "llama-meta-layout", llama_meta, FALSE, { 1, 19, 256 }, { 0 }, TRUE },
};

/* --- what the families read ------------------------------------------------------------------ */

/* The GQA model's config as the families read it, and its weight count as HF counts it. */
static void
test_config_values (void)
{
  g_autofree char *dir = decoder_model (cases[1].name, cases[1].args, FALSE);
  if (dir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  guint64 held_before = as_memory_held ();
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  /* BF16 matrices stay 16-bit: besides its shards' mappings the model holds only the float32
   * copies of its 7 norm vectors and the store's empty 64-byte block (a widened copy of every
   * weight would add 4 bytes per weight) */
  guint64 held = as_memory_held () - held_before, mapped = as_model_get_mapped_bytes (model);
  if (mapped > 0)
    {
      g_assert_cmpuint (held, >=, mapped);
      g_assert_cmpuint (held, <=, mapped + 7 * 128 * sizeof (float) + 64);
    }
  const AsConfig *c = as_model_get_config (model);
  g_assert_cmpstr (c->family, ==, "llama");
  g_assert_cmpint (c->n_head, ==, 8);
  g_assert_cmpint (c->n_kv_head, ==, 2);
  g_assert_cmpint (c->head_dim, ==, 16);
  g_assert_cmpint (c->n_inner, ==, 192);
  g_assert_cmpstr (as_model_get_weights_dtype (model), ==, "BF16");
  g_assert_true (
      g_str_has_suffix (as_model_get_weights_path (model), "model.safetensors.index.json"));
  /* embed + 3 · (q + k + v + o + gate/up/down + 2 norms) + norm + lm_head */
  gint64 layer = 128 * 128 + 2 * 128 * 32 + 128 * 128 + 3 * 128 * 192 + 2 * 128;
  g_assert_cmpint (as_model_get_n_params (model), ==, 320 * 128 + 3 * layer + 128 + 320 * 128);
  g_auto (GStrv) settings = as_config_dup_settings (c);
  g_assert_cmpstr (settings[0], ==, "rope");
  g_assert_nonnull (strstr (settings[1], "theta 500000"));
  g_assert_nonnull (strstr (settings[1], "llama3 scaling, factor 8"));
  g_assert_nonnull (strstr (settings[1], "original_max_position_embeddings 64"));
  /* no tokenizer file: the model runs on ids, text is refused with a message that says so */
  g_assert_null (as_model_get_tokenizer (model));
  g_assert_null (as_forward_text (model, "hello", FALSE, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "token ids"));
}

/* With a tokenizer in the folder, text runs and gives the same trace as its ids. */
static void
test_text_and_ids (void)
{
  g_autofree char *dir = decoder_model (cases[0].name, cases[0].args, TRUE);
  if (dir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (as_model_get_tokenizer (model));
  g_autoptr (AsTrace) a = as_forward_text (model, "the cat sat", FALSE, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) b = as_forward (model, a->ids, a->n_tokens, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (a->attn, sizeof (float) * a->n_layer * a->n_head * a->n_tokens * a->n_tokens,
                   b->attn, sizeof (float) * b->n_layer * b->n_head * b->n_tokens * b->n_tokens);
  g_autofree char *joined = g_strjoinv ("", a->token_texts);
  g_assert_cmpstr (joined, ==, "the cat sat");
}

/* --- bad input ------------------------------------------------------------------------------- */

/* A copy of model folder FROM in the test's temporary folder, as NAME. */
static char *
copy_model (const char *from, const char *name)
{
  char *to = g_build_filename (test_tmpdir (), name, NULL);
  const char *argv[] = { "cp", "-r", from, to, NULL };
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
  return to;
}

/* Rewrites DIR/config.json with KEY set to the JSON VALUE (NULL removes it). */
static void
set_config (const char *dir, const char *key, const char *value)
{
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  if (value == NULL)
    json_object_remove_member (o, key);
  else
    {
      g_autoptr (JsonNode) node = json_from_string (value, NULL);
      g_assert_nonnull (node);
      json_object_set_member (o, key, json_node_copy (node));
    }
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, path, NULL));
}

static void
test_bad_shards (void)
{
  g_autofree char *src = decoder_model (cases[1].name, cases[1].args, FALSE);
  if (src == NULL)
    return;
  /* a shard missing */
  g_autofree char *missing = copy_model (src, "shard-missing");
  g_autofree char *shard2 = g_build_filename (missing, "model-00002-of-00003.safetensors", NULL);
  g_assert_cmpint (g_unlink (shard2), ==, 0);
  assert_load_fails (missing, AS_ERROR_NOT_FOUND,
                     (const char *[]){ "model.safetensors.index.json",
                                       "model-00002-of-00003.safetensors", "does not exist",
                                       NULL });

  /* the index names a shard for a tensor that shard does not hold */
  g_autofree char *moved = copy_model (src, "shard-moved");
  g_autofree char *index = g_build_filename (moved, "model.safetensors.index.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, index, NULL));
  JsonObject *map = json_object_get_object_member (
      json_node_get_object (json_parser_get_root (parser)), "weight_map");
  const char *was = json_object_get_string_member (map, "model.norm.weight");
  const char *other = g_str_equal (was, "model-00001-of-00003.safetensors")
                          ? "model-00002-of-00003.safetensors"
                          : "model-00001-of-00003.safetensors";
  json_object_set_string_member (map, "model.norm.weight", other);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, index, NULL));
  assert_load_fails (moved, AS_ERROR_FORMAT,
                     (const char *[]){ "model.norm.weight", other, "does not hold it", NULL });

  /* a shard name that leaves the folder */
  json_object_set_string_member (map, "model.norm.weight", "../model.safetensors");
  g_assert_true (json_generator_to_file (gen, index, NULL));
  assert_load_fails (moved, AS_ERROR_FORMAT,
                     (const char *[]){ "model.norm.weight", "same folder", NULL });
}

/* The first "F16" dtype of FILE's safetensors header becomes "I16" (same length). */
static void
patch_first_dtype (const char *file)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (file, &text, &length, NULL));
  guint64 n;
  memcpy (&n, text, 8);
  n = GUINT64_FROM_LE (n);
  g_assert_cmpuint (n + 8, <=, length);
  char *at = g_strstr_len (text + 8, (gssize) n, "\"F16\"");
  g_assert_nonnull (at);
  at[1] = 'I';
  g_assert_true (g_file_set_contents (file, text, (gssize) length, NULL));
}

static void
test_bad_dtype_and_config (void)
{
  g_autofree char *src = decoder_model (cases[6].name, cases[6].args, FALSE);
  if (src == NULL)
    return;
  g_autofree char *dtype = copy_model (src, "dtype-i16");
  g_autofree char *file = g_build_filename (dtype, "model.safetensors", NULL);
  patch_first_dtype (file);
  assert_load_fails (dtype, AS_ERROR_SHAPE,
                     (const char *[]){ "model.safetensors", "dtype I16", "F32, BF16, F16", NULL });

  g_autofree char *llama = decoder_model (cases[0].name, cases[0].args, TRUE);
  struct
  {
    const char *key, *value;
    const char *needle1, *needle2;
  } bad[] = {
    { "num_key_value_heads", "3", "num_attention_heads (4)", "num_key_value_heads (3)" },
    { "num_key_value_heads", "8", "num_attention_heads (4)", "num_key_value_heads (8)" },
    { "rope_scaling", "{\"type\": \"dynamic\", \"factor\": 2.0}", "\"dynamic\"",
      "supported: default, linear, llama3" },
    { "rope_scaling", "{\"rope_type\": \"yarn\", \"factor\": 4.0}", "\"yarn\"", "not supported" },
    { "rope_scaling", "{\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0}",
      "high_freq_factor", "llama3" },
    { "rope_scaling", "{\"rope_type\": \"linear\"}", "'factor'", "linear" },
    { "rope_scaling", "\"linear\"", "rope_scaling", "object" },
    { "head_dim", "7", "odd", "7" },
    { "hidden_act", "\"tanh\"", "hidden_act", "silu" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *name = g_strdup_printf ("config-%" G_GSIZE_FORMAT, i);
      g_autofree char *dir = copy_model (llama, name);
      set_config (dir, bad[i].key, bad[i].value);
      g_autofree char *config = g_build_filename (dir, "config.json", NULL);
      assert_load_fails (dir, AS_ERROR_CONFIG,
                         (const char *[]){ config, bad[i].needle1, bad[i].needle2, NULL });
    }
  /* a missing num_key_value_heads means Qwen2Config's default, 32: inconsistent with 6 heads */
  g_autofree char *qwen = decoder_model (cases[4].name, cases[4].args, FALSE);
  g_autofree char *kv = copy_model (qwen, "qwen-kv-missing");
  set_config (kv, "num_key_value_heads", NULL);
  assert_load_fails (kv, AS_ERROR_CONFIG,
                     (const char *[]){ "num_key_value_heads (32)", "default", NULL });
}

/* A folder with only a pickle names the safetensors alternative; a list of end tokens (Llama 3
 * chat models) reads as its first. */
static void
test_pickle_and_eos_list (void)
{
  g_autofree char *src = decoder_model (cases[0].name, cases[0].args, TRUE);
  if (src == NULL)
    return;
  g_autofree char *pickle = copy_model (src, "pickle-only");
  g_autofree char *st = g_build_filename (pickle, "model.safetensors", NULL);
  g_autofree char *bin = g_build_filename (pickle, "pytorch_model.bin", NULL);
  g_assert_cmpint (g_rename (st, bin), ==, 0);
  assert_load_fails (pickle, AS_ERROR_NOT_FOUND,
                     (const char *[]){ "pytorch_model.bin", "pickle", "model.safetensors", NULL });

  g_autofree char *eos = copy_model (src, "eos-list");
  set_config (eos, "eos_token_id", "[7, 8, 9]");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (eos, &error);
  g_assert_no_error (error);
  g_assert_cmpint (as_model_get_config (model)->eos_token_id, ==, 7);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/core/decoder/reference/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], run_case);
    }
  g_test_add_func ("/core/decoder/config-values", test_config_values);
  g_test_add_func ("/core/decoder/text-and-ids", test_text_and_ids);
  g_test_add_func ("/core/decoder/bad/shards", test_bad_shards);
  g_test_add_func ("/core/decoder/bad/dtype-and-config", test_bad_dtype_and_config);
  g_test_add_func ("/core/decoder/bad/pickle-and-eos-list", test_pickle_and_eos_list);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

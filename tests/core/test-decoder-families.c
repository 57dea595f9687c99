/* test-decoder-families.c — Qwen3 (model type qwen3 of the `llama` family) and Phi-3 (`phi3`)
 * against the project's independent PyTorch reference of Hugging Face's eager forward
 * (tests/reference/decoder_reference.py: Qwen3's per-head q/k RMSNorm, explicit head_dim,
 * attention_bias and use_sliding_window / max_window_layers; Phi-3's fused qkv_proj and
 * gate_up_proj, partial_rotary_factor, longrope with short and long factors and the attention
 * factor, and the sliding window on every layer).
 *
 * Every case at T = 1, a prime length and a length ≥ 256, with the tolerances of tests/README.md
 * (trace-compare.h). Between them: GQA and MQA, head_dim ≠ D/H and Qwen3's default 128, F32 and
 * BF16, sharded and single files, tied and untied output matrices, biases, sliding windows longer
 * and shorter than the text, longrope below and above original_max_position_embeddings (short
 * and long factors) with a derived and an explicit attention factor, transformers 5's
 * rope_parameters form. Phi-3's fused checkpoint
 * against the same values stored unfused: bitwise the same trace (ATTNSCOPE_THREADS 1..4 giving the
 * same bits is tests/cli/test-cli-threads.c's, at a width worth threads). info names the
 * settings. Bad input: a fused matrix of the
 * wrong height, longrope factors of the wrong length or sign, unsupported RoPE types, a zero
 * window — each a clear message naming the file and what was expected. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "check-close.h"
#include "decoder-models.h"
#include "trace-compare.h"

#define VOCAB 320

typedef struct
{
  const char *name;
  const char *const *args; /* make-model options, NULL-terminated */
  int lengths[4];          /* sequence lengths, 0-terminated */
  int windows[8];          /* the expected sliding window of each layer (0: none) */
} FamilyCase;

#define SMALL                                                                                      \
  "--layers", "2", "--heads", "4", "--hidden", "64", "--intermediate", "112", "--vocab", "320",    \
      "--positions", "1024"

/* 4 layers, the upper two sliding (max_window_layers = L/2), head_dim 24 ≠ 64/4 */
static const char *const qwen3_window[]
    = { "--family",         "qwen3", "--layers", "4",   "--heads",     "4",
        "--kv-heads",       "2",     "--hidden", "64",  "--head-dim",  "24",
        "--intermediate",   "112",   "--vocab",  "320", "--positions", "1024",
        "--sliding-window", "40",    NULL };
/* head_dim 128 (Qwen3Config's default) ≠ 64/4; MQA; biases on q, k, v and o */
static const char *const qwen3_bias[]
    = { "--family", "qwen3", SMALL,   "--kv-heads",       "1",      "--dtype", "bf16",
        "--shards", "2",     "--tie", "--attention-bias", "--seed", "3",       NULL };
static const char *const phi3_longrope[] = { "--family", "phi3",
                                             SMALL,      "--kv-heads",
                                             "2",        "--rope-scaling",
                                             "longrope", "--original-max",
                                             "64",       "--partial-rotary",
                                             "0.75",     "--sliding-window",
                                             "30",       NULL };
static const char *const phi3_longrope_unfused[]
    = { "--family", "phi3",           SMALL, "--kv-heads",       "2",    "--rope-scaling",
        "longrope", "--original-max", "64",  "--partial-rotary", "0.75", "--sliding-window",
        "30",       "--unfused",      NULL };
static const char *const phi3_bf16[] = { "--family", "phi3",     SMALL, "--dtype",
                                         "bf16",     "--shards", "3",   "--tie",
                                         "--seed",   "4",        NULL };
/* explicit attention_factor; T 263 below original 300 (short factors), 307 above (long) */
static const char *const phi3_attention[]
    = { "--family",     "phi3",           SMALL, "--kv-heads", "1", "--rope-scaling",
        "longrope:1.3", "--original-max", "300", "--seed",     "6", NULL };

/* transformers 5's rope_parameters (longrope, theta and partial_rotary_factor inside), F16 */
static const char *const phi3_params[] = { "--family",
                                           "phi3",
                                           SMALL,
                                           "--kv-heads",
                                           "1",
                                           "--rope-scaling",
                                           "longrope:1.25",
                                           "--original-max",
                                           "100",
                                           "--partial-rotary",
                                           "0.5",
                                           "--rope-parameters",
                                           "--dtype",
                                           "f16",
                                           "--seed",
                                           "8",
                                           NULL };

/* Gemma 3: layers 0, 1, 3 sliding with the local RoPE (θ 10000), layer 2 global (θ 1e6, linear
 * ×8); q/k norms; MQA; BF16 in two shards */
static const char *const gemma3_local[] = { "--family",
                                            "gemma3_text",
                                            "--layers",
                                            "4",
                                            "--heads",
                                            "4",
                                            "--kv-heads",
                                            "1",
                                            "--hidden",
                                            "64",
                                            "--head-dim",
                                            "16",
                                            "--intermediate",
                                            "112",
                                            "--vocab",
                                            "320",
                                            "--positions",
                                            "1024",
                                            "--sliding-window",
                                            "16",
                                            "--sliding-pattern",
                                            "3",
                                            "--rope-theta",
                                            "1000000",
                                            "--rope-scaling",
                                            "linear:8",
                                            "--tie",
                                            "--dtype",
                                            "bf16",
                                            "--shards",
                                            "2",
                                            "--seed",
                                            "12",
                                            NULL };

static const FamilyCase cases[] = {
  { "qwen3-gqa-headdim-window", qwen3_window, { 1, 53, 263 }, { 0, 0, 40, 40 } },
  { "qwen3-mqa-bias-bf16-sharded-tied", qwen3_bias, { 1, 31, 256 }, { 0 } },
  { "phi3-longrope-partial-window", phi3_longrope, { 1, 37, 263 }, { 30, 30 } },
  { "phi3-bf16-sharded-tied", phi3_bf16, { 1, 17, 256 }, { 0 } },
  { "phi3-longrope-attention-factor", phi3_attention, { 1, 263, 307 }, { 0 } },
  { "phi3-rope-parameters-f16", phi3_params, { 1, 97, 263 }, { 0 } },
  { "gemma2-softcaps-alternate", decoder_gemma2_caps, { 1, 37, 263 }, { 16, 0, 16, 0 } },
  { "gemma3-local-rope-bf16-sharded", gemma3_local, { 1, 41, 263 }, { 16, 16, 0, 16 } },
};

static int
count_lengths (const FamilyCase *fc)
{
  int n = 0;
  while (n < 4 && fc->lengths[n] > 0)
    n++;
  return n;
}

static void
run_case (gconstpointer data)
{
  const FamilyCase *fc = data;
  g_autofree char *dir = decoder_model (fc->name, fc->args, FALSE);
  if (dir == NULL)
    return;
  int n = count_lengths (fc);
  g_autofree char *expected = decoder_expected (dir, fc->lengths, n, VOCAB, 13, NULL);
  if (expected == NULL)
    return;
  TraceCompareSpec spec = { .windows = fc->windows };
  g_assert_cmpint (trace_compare_model (dir, expected, fc->name, &spec), ==, n);
}

/* --- fused and unfused, threads ----------------------------------------------------------------
 */

static AsTrace *
run_ids (AsModel *model, int length, guint32 seed)
{
  g_autofree char *text = decoder_ids (length, VOCAB, seed, 0);
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  g_autofree int32_t *ids = g_new (int32_t, length);
  for (int i = 0; i < length; i++)
    ids[i] = (int32_t) g_ascii_strtoll (parts[i], NULL, 10);
  AsForwardOptions options = { .all_logits = TRUE, .capture_qkv = TRUE };
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward (model, ids, length, &options, &error);
  g_assert_no_error (error);
  return t;
}

/* Attention, hidden states, attention outputs, contexts and logits of A and B bitwise equal. */
static void
assert_traces_identical (const AsTrace *a, const AsTrace *b)
{
  gsize L = a->n_layer, H = a->n_head, T = a->n_tokens, D = a->d_model, hd = a->head_dim;
  g_assert_cmpint (a->n_tokens, ==, b->n_tokens);
  g_assert_cmpmem (a->attn, L * H * T * T * sizeof (float), b->attn,
                   L * H * T * T * sizeof (float));
  g_assert_cmpmem (a->hidden, (L + 1) * T * D * sizeof (float), b->hidden,
                   (L + 1) * T * D * sizeof (float));
  g_assert_cmpmem (a->attn_out, L * T * D * sizeof (float), b->attn_out,
                   L * T * D * sizeof (float));
  g_assert_cmpmem (a->ctx, L * H * T * hd * sizeof (float), b->ctx,
                   L * H * T * hd * sizeof (float));
  gsize V = a->vocab_size, rows = a->logits_rows;
  g_assert_cmpmem (a->logits, rows * V * sizeof (float), b->logits, rows * V * sizeof (float));
}

/* The fused checkpoint and the same values stored as q/k/v_proj and gate/up_proj: the same trace
 * bit for bit (the split is a view of row ranges), and the unfused folder also matches the
 * reference's outputs for the fused one. */
static void
test_phi3_fused_unfused (void)
{
  g_autofree char *fused = decoder_model (cases[2].name, phi3_longrope, FALSE);
  g_autofree char *unfused = decoder_model ("phi3-longrope-unfused", phi3_longrope_unfused, FALSE);
  if (fused == NULL || unfused == NULL)
    return;
  g_autofree char *st = g_build_filename (unfused, "model.safetensors", NULL);
  g_autofree char *header = NULL;
  g_assert_true (g_file_get_contents (st, &header, NULL, NULL));
  g_assert_nonnull (strstr (header + 8, "layers.0.self_attn.k_proj.weight"));
  g_assert_null (strstr (header + 8, "qkv_proj"));
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) a = as_model_load (fused, &error);
  g_assert_no_error (error);
  g_autoptr (AsModel) b = as_model_load (unfused, &error);
  g_assert_no_error (error);
  g_assert_cmpint (as_model_get_n_params (a), ==, as_model_get_n_params (b));
  g_assert_null (as_model_get_warning (a));
  g_assert_null (as_model_get_warning (b));
  g_autofree char *expected = decoder_expected (fused, cases[2].lengths, 3, VOCAB, 13, NULL);
  if (expected != NULL)
    {
      TraceCompareSpec spec = { .windows = cases[2].windows };
      g_assert_cmpint (trace_compare_model (unfused, expected, "phi3-unfused", &spec), ==, 3);
    }
  const int lengths[] = { 37, 263 };
  for (gsize i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      g_autoptr (AsTrace) ta = run_ids (a, lengths[i], 21);
      g_autoptr (AsTrace) tb = run_ids (b, lengths[i], 21);
      assert_traces_identical (ta, tb);
    }
}

/* --- info ------------------------------------------------------------------------------------ */

/* The value of setting NAME in SETTINGS (name, value, ... pairs). */
static const char *
setting (char **settings, const char *name)
{
  for (int i = 0; settings[i] != NULL && settings[i + 1] != NULL; i += 2)
    if (g_str_equal (settings[i], name))
      return settings[i + 1];
  g_test_message ("no setting %s", name);
  g_assert_not_reached ();
}

static void
test_info (void)
{
  g_autofree char *qdir = decoder_model (cases[0].name, cases[0].args, FALSE);
  g_autofree char *pdir = decoder_model (cases[2].name, cases[2].args, FALSE);
  if (qdir == NULL || pdir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) q = as_model_load (qdir, &error);
  g_assert_no_error (error);
  const AsConfig *qc = as_model_get_config (q);
  g_assert_cmpstr (qc->family, ==, "llama");
  g_assert_cmpint (qc->head_dim, ==, 24);
  g_assert_cmpint (qc->n_kv_head, ==, 2);
  g_auto (GStrv) qs = as_config_dup_settings (qc);
  g_assert_nonnull (strstr (setting (qs, "qk_norm"), "RMSNorm of each head's q and k"));
  g_assert_nonnull (strstr (setting (qs, "attention"), "head_dim 24"));
  g_assert_cmpstr (setting (qs, "sliding_window"), ==, "40 tokens on 2 of 4 layers (from layer 2)");
  g_assert_cmpstr (setting (qs, "biases"), ==, "none");
  /* embed + 4 · (q + k + v + o + q/k norms + mlp + 2 norms) + norm + lm_head */
  gint64 layer = 64 * 96 + 2 * 64 * 48 + 96 * 64 + 2 * 24 + 3 * 64 * 112 + 2 * 64;
  g_assert_cmpint (as_model_get_n_params (q), ==, 320 * 64 + 4 * layer + 64 + 320 * 64);

  g_autoptr (AsModel) p = as_model_load (pdir, &error);
  g_assert_no_error (error);
  const AsConfig *pc = as_model_get_config (p);
  g_assert_cmpstr (pc->family, ==, "phi3");
  g_auto (GStrv) ps = as_config_dup_settings (pc);
  const char *rope = setting (ps, "rope");
  g_assert_nonnull (strstr (rope, "12 of 16 dims per head rotated"));
  g_assert_nonnull (
      strstr (rope, "longrope scaling, original_max_position_embeddings 64, factor 16"));
  /* √(1 + ln 16 / ln 64) */
  g_autofree char *factor = g_strdup_printf ("attention factor %g", sqrt (1 + log (16) / log (64)));
  g_assert_nonnull (strstr (rope, factor));
  g_assert_cmpstr (setting (ps, "sliding_window"), ==, "30 tokens on every layer");
  g_assert_cmpstr (setting (ps, "qk_norm"), ==, "none");
  g_assert_nonnull (strstr (setting (ps, "projections"), "qkv_proj and gate_up_proj fused"));
  g_assert_cmpstr (as_model_get_weights_dtype (p), ==, "F32");

  g_autofree char *g2dir = decoder_model ("gemma2-softcaps-alternate", decoder_gemma2_caps, FALSE);
  g_autofree char *g3dir = decoder_model ("gemma3-local-rope-bf16-sharded", gemma3_local, FALSE);
  g_autoptr (AsModel) g2 = as_model_load (g2dir, &error);
  g_assert_no_error (error);
  g_autoptr (AsModel) g3 = as_model_load (g3dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (as_model_get_config (g2)->family, ==, "gemma");
  g_auto (GStrv) g2s = as_config_dup_settings (as_model_get_config (g2));
  g_assert_cmpstr (setting (g2s, "softcap"), ==,
                   "attention scores: cap·tanh(s/cap) with cap 0.3; final logits: cap·tanh(x/cap) "
                   "with cap 0.5");
  g_assert_cmpstr (setting (g2s, "embed_scale"), ==,
                   "embeddings times 8 (float32 sqrt(hidden_size))");
  g_assert_nonnull (strstr (setting (g2s, "norm"), "RMSNorm with weight 1 + w, eps 1e-06; also on "
                                                   "the attention and MLP outputs"));
  g_assert_nonnull (strstr (setting (g2s, "attention"), "scores scaled by 0.25"));
  g_assert_cmpstr (setting (g2s, "sliding_window"), ==,
                   "16 tokens on 2 of 4 layers (from layer 0)");
  g_assert_nonnull (strstr (setting (g2s, "mlp"), "gelu_new"));
  /* embed + 4 · (q + k + v + o + 4 norms + mlp) + norm + lm_head */
  gint64 g2layer = 64 * 128 + 2 * 64 * 64 + 128 * 64 + 4 * 64 + 3 * 64 * 112;
  g_assert_cmpint (as_model_get_n_params (g2), ==, 320 * 64 + 4 * g2layer + 64 + 320 * 64);
  g_assert_cmpstr (setting (g2s, "output"), ==, "its own matrix");
  g_auto (GStrv) g3s = as_config_dup_settings (as_model_get_config (g3));
  g_assert_nonnull (strstr (setting (g3s, "rope"), "theta 1e+06"));
  g_assert_nonnull (strstr (setting (g3s, "rope"), "linear scaling, factor 8"));
  g_assert_cmpstr (setting (g3s, "rope_local"), ==,
                   "on the 3 sliding layers: theta 10000, 16 of 16 dims per head rotated (HF "
                   "rotate_half) (the others: rope)");
  g_assert_nonnull (strstr (setting (g3s, "qk_norm"), "RMSNorm of each head's q and k"));
}

/* --- the hub's configs ------------------------------------------------------------------------ */

/* config.json as Qwen/Qwen3-0.6B and microsoft/Phi-3-mini-128k-instruct publish it (keys and
 * values; Phi-3's 48 short and long factors replaced by placeholders of the same length), read
 * without weights: the settings HF derives from them. */
static void
test_hub_configs (void)
{
  const char *qwen3_06b
      = "{\"architectures\": [\"Qwen3ForCausalLM\"], \"attention_bias\": false, "
        "\"attention_dropout\": 0.0, \"bos_token_id\": 151643, \"eos_token_id\": 151645, "
        "\"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 1024, "
        "\"initializer_range\": 0.02, \"intermediate_size\": 3072, "
        "\"max_position_embeddings\": 40960, \"max_window_layers\": 28, \"model_type\": "
        "\"qwen3\", \"num_attention_heads\": 16, \"num_hidden_layers\": 28, "
        "\"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-06, \"rope_scaling\": null, "
        "\"rope_theta\": 1000000, \"sliding_window\": null, \"tie_word_embeddings\": true, "
        "\"torch_dtype\": \"bfloat16\", \"use_cache\": true, \"use_sliding_window\": false, "
        "\"vocab_size\": 151936}";
  GString *factors = g_string_new ("[");
  for (int i = 0; i < 48; i++)
    g_string_append_printf (factors, "%s%g", i ? ", " : "", 1.0 + i / 8.0);
  g_string_append (factors, "]");
  g_autofree char *phi3_128k = g_strdup_printf (
      "{\"architectures\": [\"Phi3ForCausalLM\"], \"attention_bias\": false, "
      "\"attention_dropout\": 0.0, \"bos_token_id\": 1, \"embd_pdrop\": 0.0, "
      "\"eos_token_id\": 32000, \"hidden_act\": \"silu\", \"hidden_size\": 3072, "
      "\"initializer_range\": 0.02, \"intermediate_size\": 8192, "
      "\"max_position_embeddings\": 131072, \"model_type\": \"phi3\", "
      "\"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 32, "
      "\"original_max_position_embeddings\": 4096, \"pad_token_id\": 32000, \"resid_pdrop\": "
      "0.0, \"rms_norm_eps\": 1e-05, \"rope_scaling\": {\"long_factor\": %s, "
      "\"short_factor\": %s, \"type\": \"longrope\"}, \"rope_theta\": 10000.0, "
      "\"sliding_window\": 262144, \"tie_word_embeddings\": false, \"torch_dtype\": "
      "\"bfloat16\", \"use_cache\": true, \"vocab_size\": 32064}",
      factors->str, factors->str);
  g_string_free (factors, TRUE);

  g_autofree char *qpath = g_build_filename (test_tmpdir (), "qwen3-0.6b.json", NULL);
  g_autofree char *ppath = g_build_filename (test_tmpdir (), "phi3-128k.json", NULL);
  g_assert_true (g_file_set_contents (qpath, qwen3_06b, -1, NULL));
  g_assert_true (g_file_set_contents (ppath, phi3_128k, -1, NULL));
  g_autoptr (GError) error = NULL;
  AsConfig q = { 0 }, p = { 0 };
  g_assert_true (as_config_load (&q, qpath, &error));
  g_assert_no_error (error);
  g_assert_cmpint (q.head_dim, ==, 128);
  g_assert_cmpint (q.n_kv_head, ==, 8);
  g_auto (GStrv) qs = as_config_dup_settings (&q);
  g_assert_cmpstr (setting (qs, "sliding_window"), ==,
                   "none (causal attention over the whole text)");
  g_assert_cmpstr (setting (qs, "output"), ==, "tied to the input embedding");
  g_assert_nonnull (strstr (setting (qs, "rope"), "theta 1e+06, 128 of 128 dims"));
  /* use_sliding_window with a null window: still none, as Qwen3Config's layer_types */
  g_autofree char *nulled = g_strdup (qwen3_06b);
  char *at = strstr (nulled, "\"use_sliding_window\": false");
  memcpy (at, "\"use_sliding_window\": true ", strlen ("\"use_sliding_window\": false"));
  g_assert_true (g_file_set_contents (qpath, nulled, -1, NULL));
  AsConfig q2 = { 0 };
  g_assert_true (as_config_load (&q2, qpath, &error));
  g_auto (GStrv) q2s = as_config_dup_settings (&q2);
  g_assert_cmpstr (setting (q2s, "sliding_window"), ==,
                   "none (causal attention over the whole text)");

  g_assert_true (as_config_load (&p, ppath, &error));
  g_assert_no_error (error);
  g_assert_cmpint (p.head_dim, ==, 96);
  g_assert_cmpint (p.n_positions, ==, 131072);
  g_auto (GStrv) ps = as_config_dup_settings (&p);
  const char *rope = setting (ps, "rope");
  g_assert_nonnull (strstr (rope, "96 of 96 dims"));
  g_assert_nonnull (strstr (rope, "original_max_position_embeddings 4096, factor 32"));
  g_autofree char *factor
      = g_strdup_printf ("attention factor %g", sqrt (1 + log (32.0) / log (4096.0)));
  g_assert_nonnull (strstr (rope, factor));
  g_assert_cmpstr (setting (ps, "sliding_window"), ==, "262144 tokens on every layer");
  as_config_clear (&q);
  as_config_clear (&q2);
  as_config_clear (&p);
}

/* --- bad input ------------------------------------------------------------------------------- */

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
test_bad_phi3 (void)
{
  g_autofree char *src = decoder_model (cases[2].name, cases[2].args, FALSE);
  if (src == NULL)
    return;
  g_autofree char *st_name = g_strdup ("model.safetensors");
  /* the config's heads say 4·16 + 2·1·16 = 96 rows; the file's fused matrix has 128 */
  g_autofree char *kv = copy_model (src, "phi3-kv1");
  set_config (kv, "num_key_value_heads", "1");
  assert_load_fails (
      kv, AS_ERROR_SHAPE,
      (const char *[]){ st_name, "layers.0.self_attn.qkv_proj.weight", "96", "128", NULL });
  /* intermediate_size 100: gate_up_proj (200, 64) expected, (224, 64) stored */
  g_autofree char *mlp = copy_model (src, "phi3-inner");
  set_config (mlp, "intermediate_size", "100");
  assert_load_fails (
      mlp, AS_ERROR_SHAPE,
      (const char *[]){ st_name, "layers.0.mlp.gate_up_proj.weight", "200", "224", NULL });
  struct
  {
    const char *key, *value, *needle1, *needle2;
  } bad[] = {
    { "rope_scaling",
      "{\"type\": \"longrope\", \"short_factor\": [1, 1], \"long_factor\": [1, 2, 3, 4, 5, 6]}",
      "'short_factor'", "list of 6 numbers" },
    { "rope_scaling",
      "{\"type\": \"longrope\", \"short_factor\": [1, 1, 1, 1, 1, 1], \"long_factor\": [1, 2, "
      "3, -4, 5, 6]}",
      "long_factor[3]", "positive" },
    { "rope_scaling", "{\"type\": \"longrope\", \"short_factor\": [1, 1, 1, 1, 1, 1]}",
      "'long_factor'", "list of 6 numbers" },
    { "rope_scaling", "{\"type\": \"dynamic\", \"factor\": 2.0}", "\"dynamic\"",
      "supported: default, linear, llama3, longrope" },
    { "sliding_window", "0", "sliding_window", "0" },
    { "partial_rotary_factor", "1.5", "partial_rotary_factor", "1.5" },
    { "original_max_position_embeddings", "0", "original_max_position_embeddings", "0" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *name = g_strdup_printf ("phi3-config-%" G_GSIZE_FORMAT, i);
      g_autofree char *dir = copy_model (src, name);
      set_config (dir, bad[i].key, bad[i].value);
      g_autofree char *config = g_build_filename (dir, "config.json", NULL);
      assert_load_fails (dir, AS_ERROR_CONFIG,
                         (const char *[]){ config, bad[i].needle1, bad[i].needle2, NULL });
    }
  /* su is Phi-3's older name of longrope: it loads */
  g_autofree char *su = copy_model (src, "phi3-su");
  set_config (su, "rope_scaling",
              "{\"type\": \"su\", \"short_factor\": [1, 1, 1, 1, 1, 1], \"long_factor\": [1, 2, "
              "3, 4, 5, 6]}");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (su, &error);
  g_assert_no_error (error);
}

static void
test_bad_qwen3 (void)
{
  g_autofree char *src = decoder_model (cases[0].name, cases[0].args, FALSE);
  if (src == NULL)
    return;
  /* without head_dim Qwen3Config's default is 128, not 64/4: q_proj would be (512, 64) */
  g_autofree char *hd = copy_model (src, "qwen3-no-head-dim");
  set_config (hd, "head_dim", NULL);
  assert_load_fails (hd, AS_ERROR_SHAPE,
                     (const char *[]){ "layers.0.self_attn.q_proj.weight", "512", "96", NULL });
  /* attention_bias true: the biases the file does not hold are missing */
  g_autofree char *bias = copy_model (src, "qwen3-bias");
  set_config (bias, "attention_bias", "true");
  assert_load_fails (bias, AS_ERROR_NOT_FOUND,
                     (const char *[]){ "layers.0.self_attn.q_proj.bias", NULL });
  /* a RoPE type the engine does not compute is refused by name */
  g_autofree char *yarn = copy_model (src, "qwen3-yarn");
  set_config (yarn, "rope_scaling", "{\"rope_type\": \"yarn\", \"factor\": 4.0}");
  g_autofree char *config = g_build_filename (yarn, "config.json", NULL);
  assert_load_fails (yarn, AS_ERROR_CONFIG, (const char *[]){ config, "\"yarn\"", NULL });
}

static void
test_bad_gemma (void)
{
  g_autofree char *src = decoder_model ("gemma2-softcaps-alternate", decoder_gemma2_caps, FALSE);
  if (src == NULL)
    return;
  struct
  {
    const char *key, *value, *needle1, *needle2;
  } bad[] = {
    { "attn_logit_softcapping", "0", "attn_logit_softcapping", "positive" },
    { "final_logit_softcapping", "-30", "final_logit_softcapping", "-30" },
    { "query_pre_attn_scalar", "0", "query_pre_attn_scalar", "0" },
    { "layer_types", "[\"sliding_attention\"]", "layer_types", "4 strings" },
    { "layer_types", "[\"local\", \"full_attention\", \"full_attention\", \"full_attention\"]",
      "layer_types[0]", "sliding_attention" },
    { "hidden_activation", "\"quick_gelu\"", "hidden_activation", "gelu_pytorch_tanh" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *name = g_strdup_printf ("gemma-config-%" G_GSIZE_FORMAT, i);
      g_autofree char *dir = copy_model (src, name);
      set_config (dir, bad[i].key, bad[i].value);
      g_autofree char *config = g_build_filename (dir, "config.json", NULL);
      assert_load_fails (dir, AS_ERROR_CONFIG,
                         (const char *[]){ config, bad[i].needle1, bad[i].needle2, NULL });
    }
  /* a null cap is none: the model loads and its logits are no longer capped at 0.5 */
  g_autofree char *none = copy_model (src, "gemma-no-caps");
  set_config (none, "final_logit_softcapping", "null");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (none, &error);
  g_assert_no_error (error);
  g_auto (GStrv) settings = as_config_dup_settings (as_model_get_config (model));
  g_assert_nonnull (strstr (setting (settings, "softcap"), "final logits: none"));
}

/* Gemma 3's RoPEs in transformers 5's per-layer-type rope_parameters give the same trace, bit for
 * bit, as rope_theta + rope_scaling + rope_local_base_freq. */
static void
test_gemma3_rope_parameters (void)
{
  g_autofree char *src = decoder_model ("gemma3-local-rope-bf16-sharded", gemma3_local, FALSE);
  if (src == NULL)
    return;
  g_autofree char *dir = copy_model (src, "gemma3-rope-parameters");
  set_config (dir, "rope_theta", NULL);
  set_config (dir, "rope_scaling", NULL);
  set_config (dir, "rope_local_base_freq", NULL);
  set_config (dir, "rope_parameters",
              "{\"full_attention\": {\"rope_type\": \"linear\", \"factor\": 8.0, \"rope_theta\": "
              "1000000.0}, \"sliding_attention\": {\"rope_type\": \"default\", \"rope_theta\": "
              "10000.0}}");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) a = as_model_load (src, &error);
  g_assert_no_error (error);
  g_autoptr (AsModel) b = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) ta = run_ids (a, 41, 3);
  g_autoptr (AsTrace) tb = run_ids (b, 41, 3);
  assert_traces_identical (ta, tb);
  g_auto (GStrv) settings = as_config_dup_settings (as_model_get_config (b));
  g_assert_nonnull (strstr (setting (settings, "rope"), "theta 1e+06"));
  g_assert_nonnull (strstr (setting (settings, "rope_local"), "theta 10000"));
}

/* config.json as google/gemma-2-2b and google/gemma-3-1b-it publish it, read without weights. */
static void
test_gemma_hub_configs (void)
{
  const char *gemma2_2b
      = "{\"architectures\": [\"Gemma2ForCausalLM\"], \"attention_bias\": false, "
        "\"attention_dropout\": 0.0, \"attn_logit_softcapping\": 50.0, \"bos_token_id\": 2, "
        "\"cache_implementation\": \"hybrid\", \"eos_token_id\": 1, "
        "\"final_logit_softcapping\": 30.0, \"head_dim\": 256, \"hidden_act\": "
        "\"gelu_pytorch_tanh\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"hidden_size\": "
        "2304, \"initializer_range\": 0.02, \"intermediate_size\": 9216, "
        "\"max_position_embeddings\": 8192, \"model_type\": \"gemma2\", "
        "\"num_attention_heads\": 8, \"num_hidden_layers\": 26, \"num_key_value_heads\": 4, "
        "\"pad_token_id\": 0, \"query_pre_attn_scalar\": 256, \"rms_norm_eps\": 1e-06, "
        "\"rope_theta\": 10000.0, \"sliding_window\": 4096, \"torch_dtype\": \"float32\", "
        "\"use_cache\": true, \"vocab_size\": 256000}";
  const char *gemma3_1b
      = "{\"architectures\": [\"Gemma3ForCausalLM\"], \"attention_bias\": false, "
        "\"attention_dropout\": 0.0, \"attn_logit_softcapping\": null, \"bos_token_id\": 2, "
        "\"cache_implementation\": \"hybrid\", \"eos_token_id\": [1, 106], "
        "\"final_logit_softcapping\": null, \"head_dim\": 256, \"hidden_activation\": "
        "\"gelu_pytorch_tanh\", \"hidden_size\": 1152, \"initializer_range\": 0.02, "
        "\"intermediate_size\": 6912, \"max_position_embeddings\": 32768, \"model_type\": "
        "\"gemma3_text\", \"num_attention_heads\": 4, \"num_hidden_layers\": 26, "
        "\"num_key_value_heads\": 1, \"pad_token_id\": 0, \"query_pre_attn_scalar\": 256, "
        "\"rms_norm_eps\": 1e-06, \"rope_local_base_freq\": 10000, \"rope_scaling\": null, "
        "\"rope_theta\": 1000000, \"sliding_window\": 512, \"sliding_window_pattern\": 6, "
        "\"torch_dtype\": \"bfloat16\", \"use_cache\": true, \"vocab_size\": 262144}";
  g_autofree char *p2 = g_build_filename (test_tmpdir (), "gemma-2-2b.json", NULL);
  g_autofree char *p3 = g_build_filename (test_tmpdir (), "gemma-3-1b.json", NULL);
  g_assert_true (g_file_set_contents (p2, gemma2_2b, -1, NULL));
  g_assert_true (g_file_set_contents (p3, gemma3_1b, -1, NULL));
  g_autoptr (GError) error = NULL;
  AsConfig c2 = { 0 }, c3 = { 0 };
  g_assert_true (as_config_load (&c2, p2, &error));
  g_assert_no_error (error);
  g_auto (GStrv) s2 = as_config_dup_settings (&c2);
  g_assert_cmpstr (setting (s2, "sliding_window"), ==,
                   "4096 tokens on 13 of 26 layers (from layer 0)");
  g_assert_cmpstr (setting (s2, "softcap"), ==,
                   "attention scores: cap·tanh(s/cap) with cap 50; final logits: cap·tanh(x/cap) "
                   "with cap 30");
  g_assert_cmpstr (setting (s2, "embed_scale"), ==,
                   "embeddings times 48 (float32 sqrt(hidden_size))");
  g_assert_nonnull (strstr (setting (s2, "attention"), "head_dim 256, scores scaled by 0.0625"));
  g_assert_cmpstr (setting (s2, "output"), ==, "tied to the input embedding");
  g_assert_true (as_config_load (&c3, p3, &error));
  g_assert_no_error (error);
  g_assert_cmpint (c3.eos_token_id, ==, 1);
  g_auto (GStrv) s3 = as_config_dup_settings (&c3);
  g_assert_cmpstr (setting (s3, "sliding_window"), ==,
                   "512 tokens on 22 of 26 layers (from layer 0)");
  g_assert_cmpstr (setting (s3, "rope_local"), ==,
                   "on the 22 sliding layers: theta 10000, 256 of 256 dims per head rotated (HF "
                   "rotate_half) (the others: rope)");
  g_assert_false (g_strv_contains ((const char *const *) s3, "softcap"));
  as_config_clear (&c2);
  as_config_clear (&c3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path
          = g_strdup_printf ("/core/decoder-families/reference/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], run_case);
    }
  g_test_add_func ("/core/decoder-families/phi3-fused-unfused", test_phi3_fused_unfused);
  g_test_add_func ("/core/decoder-families/info", test_info);
  g_test_add_func ("/core/decoder-families/hub-configs", test_hub_configs);
  g_test_add_func ("/core/decoder-families/gemma3-rope-parameters", test_gemma3_rope_parameters);
  g_test_add_func ("/core/decoder-families/gemma-hub-configs", test_gemma_hub_configs);
  g_test_add_func ("/core/decoder-families/bad/phi3", test_bad_phi3);
  g_test_add_func ("/core/decoder-families/bad/qwen3", test_bad_qwen3);
  g_test_add_func ("/core/decoder-families/bad/gemma", test_bad_gemma);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

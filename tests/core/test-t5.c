/* test-t5.c — the t5 family (T5 v1.0, Flan-T5's gated-GELU, mT5) against the project's
 * independent PyTorch reference of Hugging Face's eager modeling_t5.py
 * (tests/reference/t5_reference.py; models and outputs cached by t5-models.c).
 *
 * Forward: source/target pairs at T = 1, a prime length and ≥ 256 through as_forward_translation
 * (all logits): encoder, decoder and cross-attention within 1e-5 absolute, hidden states of both
 * stacks and the logits within |a − e| ≤ 1e-4·|e| + 1e-5·rms(e), both stacks' position bias
 * [H][T][T] within 1e-6 (it is a table look-up; the trace keeps it compact, [H][2T−1], and every
 * reader — whole head, tile, row, entry — expands it), masked decoder weights exactly 0 and every
 * row summing to 1. Models: T5 v1.0 (relu MLP, F32, tied: the output rescaled by D^-½) and an mT5
 * with Flan-T5's gated-GELU MLP, H·d_kv ≠ D, 16 buckets up to distance 20 (a 257-token text reaches
 * the clamped last bucket and both directions' logarithmic buckets), BF16 in three shards,
 * untied.
 *
 * Buckets: as_t5_bucket against HF's _relative_position_bucket worked by hand (bidirectional and
 * causal, exact, logarithmic and clamped).
 *
 * Generation: greedy and beam search id for id with the reference's generate (marian_generate.py
 * with T5's generation_config.json), beam scores within 1e-4.
 *
 * Bad input: a config whose relative_attention_num_buckets does not match the stored tables
 * (the message names the weight file, the tensor and both sizes), an unknown feed_forward_proj;
 * `info`'s settings name the bucket count and distance. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-translate.h"
#include "check-close.h"
#include "marian-fixtures.h"
#include "memory-private.h"
#include "pass-private.h"
#include "seq2seq-test.h"
#include "t5-bias-check.h"
#include "t5-models.h"
#include "t5-private.h"

/* Both stacks' position bias [H][T][T] within 1e-6 (a table look-up) in every layer (T5 shares
 * one), read through every reader of the compact form, which is all the trace keeps: one block of
 * [H][2T−1] per stack. */
static void
check_position_bias (const AsTrace *t, hid_t file, const char *group)
{
  const AsTrace *e = t->source;
  g_assert_true (as_trace_has_position_bias (e) && as_trace_has_position_bias (t));
  g_assert_cmpint (e->n_position_bias, ==, 1);
  g_assert_cmpint (t->n_position_bias, ==, 1);
  hsize_t S = e->n_tokens, T = t->n_tokens;
  hsize_t eb[] = { e->n_head, S, S }, db[] = { t->n_head, T, T };
  g_autofree float *x_eb = marian_read_floats (file, group, "encoder_position_bias", 3, eb);
  g_autofree float *x_db = marian_read_floats (file, group, "decoder_position_bias", 3, db);
  g_assert_true (x_eb && x_db);
  for (int l = 0; l < e->n_layer; l++)
    t5_check_position_bias (e, l, x_eb, 1e-6);
  for (int l = 0; l < t->n_layer; l++)
    t5_check_position_bias (t, l, x_db, 1e-6);
}

/* Source/target pairs at T = 1, a prime and ≥ 256. */
static void
compare_model (const char *name, const char *const *args, int vocab, const char *label)
{
  g_autofree char *dir = t5_model (name, args);
  seq2seq_compare_model (dir, t5_expected, t5_ids, vocab, label, check_position_bias);
}

static void
test_forward_relu (void)
{
  compare_model ("t5-relu", t5_relu, 300, "t5 relu f32 tied");
}

static void
test_forward_gated (void)
{
  compare_model ("flan-gated", t5_flan_gated, 320, "mt5 gated-gelu bf16 sharded untied");
}

/* HF's _relative_position_bucket by hand: 32 buckets up to 128 (T5's), bidirectional: 16 per
 * direction, 8 exact; causal: 32 for the past, 16 exact. */
static void
test_buckets (void)
{
  struct
  {
    int rel, bidi, want;
  } cases[] = {
    { 0, 1, 0 },
    { -1, 1, 1 },
    { 1, 1, 17 },
    { -7, 1, 7 },
    { 7, 1, 23 },
    /* 8: 8 + log(8/8)/log(128/8)·8 = 8; 12: 8 + int(log(1.5)/log(16)·8) = 8 + 1 */
    { -8, 1, 8 },
    { -12, 1, 9 },
    { 12, 1, 25 },
    { -127, 1, 15 },
    { -1000, 1, 15 },
    { 1000, 1, 31 },
    { 5, 0, 0 },
    { 0, 0, 0 },
    { -15, 0, 15 },
    { -16, 0, 16 },
    /* 64: 16 + int(log(4)/log(8)·16) = 16 + 10 */
    { -64, 0, 26 },
    { -500, 0, 31 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int got = as_t5_bucket (cases[i].rel, cases[i].bidi, 32, 128);
      if (got != cases[i].want)
        g_test_message ("relative %d %s: bucket %d, expected %d", cases[i].rel,
                        cases[i].bidi ? "bidirectional" : "causal", got, cases[i].want);
      g_assert_cmpint (got, ==, cases[i].want);
    }
}

static const Seq2seqCase generate_cases[]
    = { { 9, 1, 0 }, { 9, 3, 0 }, { 20, 0, 12 }, { 5, 4, 16 }, { 31, 2, 25 } };

/* Greedy and beam search id for id with the reference. */
static void
compare_generate (const char *name, const char *const *args, int vocab)
{
  g_autofree char *dir = t5_model (name, args);
  seq2seq_compare_generate (dir, name, t5_generated, t5_ids, vocab, generate_cases,
                            G_N_ELEMENTS (generate_cases));
}

static void
test_generate_relu (void)
{
  compare_generate ("t5-relu", t5_relu, 300);
}

static void
test_generate_gated (void)
{
  compare_generate ("flan-gated", t5_flan_gated, 320);
}

static void
test_bad_input (void)
{
  g_autofree char *dir = t5_model ("t5-relu", t5_relu);
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autofree char *buckets
      = seq2seq_edited_copy (dir, "buckets-24", "relative_attention_num_buckets", "24");
  g_assert_null (as_model_load (buckets, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "model.safetensors"));
  g_assert_nonnull (strstr (error->message, "relative_attention_bias"));
  g_assert_nonnull (strstr (error->message, "holds 32 relative-position buckets"));
  g_assert_nonnull (strstr (error->message, "relative_attention_num_buckets is 24"));
  g_clear_error (&error);

  g_autofree char *proj
      = seq2seq_edited_copy (dir, "proj-swiglu", "feed_forward_proj", "\"swiglu\"");
  g_assert_null (as_model_load (proj, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "feed_forward_proj \"swiglu\""));
  g_clear_error (&error);

  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_auto (GStrv) settings = as_config_dup_settings (as_model_get_config (model));
  g_autofree char *joined = g_strjoinv ("=", settings);
  g_assert_nonnull (strstr (joined, "relative_attention_num_buckets=32"));
  g_assert_nonnull (strstr (joined, "relative_attention_max_distance=128"));
  g_assert_nonnull (strstr (joined, "feed_forward_proj=relu"));
  /* a source as text needs a tokenizer this random model does not have */
  g_assert_null (as_translate_text (model, "Hello", NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
}

/* The memory counts `info` prints for an encoder–decoder are a translation's: a source and a
 * target of N tokens each (both traces and the cross-attention), not the decoder's pass alone.
 * Under a limit that leaves exactly those bytes, N tokens each pass with every matrix kept, N + 1
 * are refused, and as_forward_max_tokens says N. */
static void
test_memory_counts (void)
{
  g_autofree char *dir = t5_model ("t5-relu", t5_relu);
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  enum
  {
    N = 40
  };
  AsForwardOptions matrices = { .attention = AS_ATTENTION_MATRICES };
  guint64 bytes = as_forward_bytes (model, N, &matrices);
  g_assert_cmpuint (bytes, ==, as_forward_translation_bytes (model, N, N, &matrices));
  const AsConfig *c = as_model_get_config (model);
  guint64 cross = (guint64) c->n_layer * c->n_head * N * N * sizeof (float);
  g_assert_cmpuint (bytes, >, as_pass_bytes (c->ops->stack, c, N, 0, &matrices) + cross);
  int32_t ids[N + 1];
  for (int i = 0; i <= N; i++)
    ids[i] = 5 + i;
  g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, as_memory_held () + bytes);
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", limit, TRUE);
  g_assert_cmpint (as_forward_max_tokens (model, &matrices, as_forward_budget (model)), ==, N);
  AsTrace *trace = as_forward_translation (model, ids, N, ids, N, &matrices, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  as_trace_unref (trace);
  g_assert_null (as_forward_translation (model, ids, N + 1, ids, N + 1, &matrices, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_MEMORY);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_unsetenv ("ATTNSCOPE_MEMORY_LIMIT");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/t5/buckets", test_buckets);
  g_test_add_func ("/t5/forward/relu", test_forward_relu);
  g_test_add_func ("/t5/forward/gated-bf16-sharded", test_forward_gated);
  g_test_add_func ("/t5/generate/relu", test_generate_relu);
  g_test_add_func ("/t5/generate/gated", test_generate_gated);
  g_test_add_func ("/t5/bad-input", test_bad_input);
  g_test_add_func ("/t5/memory-counts", test_memory_counts);
  return g_test_run ();
}

/* test-t5.c — the t5 family (T5 v1.0, Flan-T5's gated-GELU, mT5) against the project's
 * independent PyTorch reference of Hugging Face's eager modeling_t5.py
 * (tests/reference/t5_reference.py; models and outputs cached by t5-models.c).
 *
 * Forward: source/target pairs at T = 1, a prime length and ≥ 256 through as_forward_translation
 * (all logits): encoder, decoder and cross-attention within 1e-5 absolute, hidden states of both
 * stacks and the logits within |a − e| ≤ 1e-4·|e| + 1e-5·rms(e), both stacks' position bias
 * [H][T][T] within 1e-6 (it is a table look-up), masked decoder weights exactly 0 and every row
 * summing to 1. Models: T5 v1.0 (relu MLP, F32, tied: the output rescaled by D^-½) and an mT5 with
 * Flan-T5's gated-GELU MLP, H·d_kv ≠ D, 16 buckets up to distance 20 (a 257-token text reaches
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
#include "t5-models.h"
#include "t5-private.h"

/* Every row of P [rows][n_cols] sums to 1; with CAUSAL (rows of T columns, T a square's side)
 * the future is exactly 0. */
static void
check_rows (const char *what, const float *p, gsize n_rows, int n_cols, gboolean causal)
{
  for (gsize r = 0; r < n_rows; r++)
    {
      const float *row = p + r * n_cols;
      double sum = 0;
      for (int j = 0; j < n_cols; j++)
        {
          sum += row[j];
          if (causal && j > (int) (r % n_cols) && row[j] != 0.0f)
            {
              g_test_message ("%s: row %zu column %d is %g, expected exactly 0", what, r, j,
                              row[j]);
              g_test_fail ();
              return;
            }
        }
      if (fabs (sum - 1.0) > 1e-5)
        {
          g_test_message ("%s: row %zu sums to %.7f", what, r, sum);
          g_test_fail ();
          return;
        }
    }
}

/* Runs MODEL on group GROUP of FILE and compares the eight arrays. */
static void
compare_group (AsModel *model, hid_t file, const char *group, const char *label)
{
  g_autoptr (GArray) src = marian_read_ids (file, group, "source_ids");
  g_autoptr (GArray) tgt = marian_read_ids (file, group, "target_ids");
  g_assert_nonnull (src);
  g_assert_nonnull (tgt);
  AsForwardOptions options = { .all_logits = TRUE };
  GError *error = NULL;
  g_autoptr (AsTrace) t
      = as_forward_translation (model, (int32_t *) src->data, (int) src->len, (int32_t *) tgt->data,
                                (int) tgt->len, &options, &error);
  g_assert_no_error (error);
  const AsTrace *e = t->source;
  g_assert_nonnull (e);
  g_assert_nonnull (e->position_bias);
  g_assert_nonnull (t->position_bias);
  hsize_t S = e->n_tokens, T = t->n_tokens, D = t->d_model, V = t->vocab_size;
  hsize_t ea[] = { e->n_layer, e->n_head, S, S }, da[] = { t->n_layer, t->n_head, T, T };
  hsize_t ca[] = { t->n_layer, t->n_head, T, S };
  hsize_t eh[] = { e->n_layer + 1, S, D }, dh[] = { t->n_layer + 1, T, D };
  hsize_t lg[] = { T, V }, eb[] = { e->n_head, S, S }, db[] = { t->n_head, T, T };
  g_autofree float *x_ea = marian_read_floats (file, group, "encoder_attentions", 4, ea);
  g_autofree float *x_da = marian_read_floats (file, group, "decoder_attentions", 4, da);
  g_autofree float *x_ca = marian_read_floats (file, group, "cross_attentions", 4, ca);
  g_autofree float *x_eh = marian_read_floats (file, group, "encoder_hidden_states", 3, eh);
  g_autofree float *x_dh = marian_read_floats (file, group, "decoder_hidden_states", 3, dh);
  g_autofree float *x_lg = marian_read_floats (file, group, "logits", 2, lg);
  g_autofree float *x_eb = marian_read_floats (file, group, "encoder_position_bias", 3, eb);
  g_autofree float *x_db = marian_read_floats (file, group, "decoder_position_bias", 3, db);
  g_assert_true (x_ea && x_da && x_ca && x_eh && x_dh && x_lg && x_eb && x_db);

  g_autofree char *l = g_strdup_printf ("%s %s (S %d, T %d)", label, group, (int) S, (int) T);
  g_autofree char *w1 = g_strconcat (l, " encoder_attentions", NULL);
  g_autofree char *w2 = g_strconcat (l, " decoder_attentions", NULL);
  g_autofree char *w3 = g_strconcat (l, " cross_attentions", NULL);
  g_assert_true (marian_check_attention (w1, e->attn, x_ea, e->n_layer * e->n_head * S * S));
  g_assert_true (marian_check_attention (w2, t->attn, x_da, t->n_layer * t->n_head * T * T));
  g_assert_true (marian_check_attention (w3, t->cross_attn, x_ca, t->n_layer * t->n_head * T * S));
  g_assert_true (
      marian_check_vectors ("encoder_hidden_states", e->hidden, x_eh, (e->n_layer + 1) * S * D));
  g_assert_true (
      marian_check_vectors ("decoder_hidden_states", t->hidden, x_dh, (t->n_layer + 1) * T * D));
  g_assert_true (marian_check_vectors ("logits", t->logits, x_lg, T * V));
  for (gsize i = 0; i < e->n_head * S * S; i++)
    g_assert_cmpfloat_with_epsilon (e->position_bias[i], x_eb[i], 1e-6);
  for (gsize i = 0; i < t->n_head * T * T; i++)
    g_assert_cmpfloat_with_epsilon (t->position_bias[i], x_db[i], 1e-6);
  check_rows (w1, e->attn, e->n_layer * e->n_head * S, S, FALSE);
  check_rows (w2, t->attn, t->n_layer * t->n_head * T, T, TRUE);
  check_rows (w3, t->cross_attn, t->n_layer * t->n_head * T, S, FALSE);
}

/* Source/target pairs at T = 1, a prime and ≥ 256. */
static void
compare_model (const char *name, const char *const *args, int vocab, const char *label)
{
  g_autofree char *dir = t5_model (name, args);
  if (dir == NULL)
    return;
  int lengths[][2] = { { 1, 1 }, { 13, 7 }, { 257, 256 } };
  char *src[3], *tgt[3];
  for (int i = 0; i < 3; i++)
    {
      src[i] = t5_ids (lengths[i][0], vocab, 11 + i, lengths[i][0] > 1);
      tgt[i] = t5_ids (lengths[i][1], vocab, 101 + i, FALSE);
    }
  g_autofree char *expected
      = t5_expected (dir, (const char *const *) src, (const char *const *) tgt, 3);
  for (int i = 0; i < 3; i++)
    g_free (src[i]), g_free (tgt[i]);
  if (expected == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  hid_t file = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  for (int n = 0; n < 3; n++)
    {
      g_autofree char *group = g_strdup_printf ("seq%d", n);
      compare_group (model, file, group, label);
    }
  H5Fclose (file);
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

/* Greedy and beam search id for id with the reference. */
static void
compare_generate (const char *name, const char *const *args, int vocab)
{
  g_autofree char *dir = t5_model (name, args);
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  struct
  {
    int src_len, beams, max_length;
  } cases[] = { { 9, 1, 0 }, { 9, 3, 0 }, { 20, 0, 12 }, { 5, 4, 16 }, { 31, 2, 25 } };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *src = t5_ids (cases[i].src_len, vocab, 500 + i, TRUE);
      g_autofree char *path = t5_generated (dir, src, cases[i].beams, cases[i].max_length);
      if (path == NULL)
        return;
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_assert_true (json_parser_load_from_file (parser, path, &error));
      JsonObject *want = json_node_get_object (json_parser_get_root (parser));
      g_autoptr (GArray) want_ids = marian_json_ids (json_object_get_array_member (want, "ids"));
      g_autoptr (GArray) src_ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
      g_auto (GStrv) parts = g_strsplit (src, ",", -1);
      for (char **p = parts; *p != NULL; p++)
        {
          int32_t id = (int32_t) g_ascii_strtoll (*p, NULL, 10);
          g_array_append_val (src_ids, id);
        }
      AsTranslateOptions options
          = { .num_beams = cases[i].beams, .max_length = cases[i].max_length };
      g_autoptr (AsTranslation) got
          = as_translate (model, (int32_t *) src_ids->data, (int) src_ids->len, &options, &error);
      g_assert_no_error (error);
      g_test_message ("%s: %d beams, max_length %d: %u ids", name, got->num_beams, got->max_length,
                      want_ids->len);
      g_assert_cmpint (got->num_beams, ==, json_object_get_int_member (want, "beams"));
      g_assert_cmpmem (got->ids->data, got->ids->len * 4, want_ids->data, want_ids->len * 4);
      JsonNode *score = json_object_get_member (want, "score");
      if (JSON_NODE_HOLDS_NULL (score))
        g_assert_true (isnan (got->score));
      else
        g_assert_cmpfloat_with_epsilon (got->score, json_node_get_double (score), 1e-4);
    }
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

/* A copy of the relu model whose config.json has KEY replaced by VALUE (JSON text). */
static char *
edited_copy (const char *dir, const char *name, const char *key, const char *value)
{
  const char *skip[] = { "config.json", NULL };
  char *copy = marian_copy_model (dir, name, skip);
  g_autofree char *from = g_build_filename (dir, "config.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (from, &text, NULL, NULL));
  g_autofree char *needle = g_strdup_printf ("\"%s\": ", key);
  char *at = strstr (text, needle);
  g_assert_nonnull (at);
  char *end = strpbrk (at + strlen (needle), ",\n");
  g_autofree char *head = g_strndup (text, at - text);
  g_autofree char *out = g_strdup_printf ("%s%s%s%s", head, needle, value, end);
  g_autofree char *to = g_build_filename (copy, "config.json", NULL);
  g_assert_true (g_file_set_contents (to, out, -1, NULL));
  return copy;
}

static void
test_bad_input (void)
{
  g_autofree char *dir = t5_model ("t5-relu", t5_relu);
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autofree char *buckets
      = edited_copy (dir, "buckets-24", "relative_attention_num_buckets", "24");
  g_assert_null (as_model_load (buckets, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "model.safetensors"));
  g_assert_nonnull (strstr (error->message, "relative_attention_bias"));
  g_assert_nonnull (strstr (error->message, "holds 32 relative-position buckets"));
  g_assert_nonnull (strstr (error->message, "relative_attention_num_buckets is 24"));
  g_clear_error (&error);

  g_autofree char *proj = edited_copy (dir, "proj-swiglu", "feed_forward_proj", "\"swiglu\"");
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
  return g_test_run ();
}

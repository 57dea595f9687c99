/* test-umt5.c — umT5 (UMT5ForConditionalGeneration) as a setting of the t5 family, against the
 * project's independent PyTorch reference of Hugging Face's eager modeling_umt5.py
 * (tests/reference/t5_reference.py --model-type umt5; models and outputs cached by t5-models.c).
 *
 * umT5 differs from mT5 in one place: every layer's self-attention has its own
 * relative_attention_bias table and computes its own bias (T5 shares block 0's). Forward at
 * T = 1, 13/7 and 257/256: attention of all three kinds within 1e-5 absolute, hidden states and
 * logits within the vector tolerance, and every layer's position bias [L][H][T][T] within 1e-6 of
 * the reference's per-layer biases (the trace keeps one compact block [H][2T−1] per layer, read
 * through every reader). Generation: greedy and
 * beam search id for id (the step decoder recomputes each layer's bias row). Bad input: a folder
 * without one layer's table names the missing tensor. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <string.h>

#include "as-error.h"
#include "as-model.h"
#include "check-close.h"
#include "marian-fixtures.h"
#include "seq2seq-test.h"
#include "t5-bias-check.h"
#include "t5-models.h"
#include "t5-private.h"

static void
check_layers (const AsTrace *t, hid_t file, const char *group, const char *name)
{
  hsize_t L = t->n_layer, H = t->n_head, T = t->n_tokens;
  g_assert_cmpint (t->n_position_bias, ==, (int) L);
  hsize_t dims[] = { L, H, T, T };
  g_autofree float *want = marian_read_floats (file, group, name, 4, dims);
  g_assert_nonnull (want);
  for (hsize_t l = 0; l < L; l++)
    t5_check_position_bias (t, (int) l, want + l * H * T * T, 1e-6);
  /* the layers' tables differ: a shared table would give the same block twice */
  if (T > 1)
    g_assert_true (memcmp (as_trace_position_bias_relative (t, 0, 0),
                           as_trace_position_bias_relative (t, 1, 0),
                           sizeof (float) * H * (2 * T - 1))
                   != 0);
}

/* Every layer's position bias, both stacks. */
static void
check_position_bias (const AsTrace *t, hid_t file, const char *group)
{
  check_layers (t->source, file, group, "encoder_position_bias");
  check_layers (t, file, group, "decoder_position_bias");
}

static void
test_forward (void)
{
  g_autofree char *dir = t5_model ("umt5", t5_umt5);
  seq2seq_compare_model (dir, t5_expected, t5_ids, 300, "umt5 gated-gelu f32 untied",
                         check_position_bias);
}

static const Seq2seqCase generate_cases[]
    = { { 9, 1, 0 }, { 9, 3, 0 }, { 20, 0, 12 }, { 5, 4, 16 }, { 31, 2, 25 } };

static void
test_generate (void)
{
  g_autofree char *dir = t5_model ("umt5", t5_umt5);
  seq2seq_compare_generate (dir, "umt5", t5_generated, t5_ids, 300, generate_cases,
                            G_N_ELEMENTS (generate_cases));
}

/* A folder without the encoder's layer-1 table: the load names the missing tensor. */
static void
test_missing_table (void)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (const char *const *a = t5_umt5; *a != NULL; a++)
    g_ptr_array_add (args, (gpointer) *a);
  g_ptr_array_add (args, (gpointer) "--drop-bias-layer");
  g_ptr_array_add (args, (gpointer) "1");
  g_ptr_array_add (args, NULL);
  g_autofree char *dir = t5_model ("umt5-no-table-1", (const char *const *) args->pdata);
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_assert_null (as_model_load (dir, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (
      strstr (error->message, "encoder.block.1.layer.0.SelfAttention.relative_attention_bias"));
  g_clear_error (&error);

  /* a table of the wrong bucket count names the file and both sizes */
  g_autofree char *ok = t5_model ("umt5", t5_umt5);
  g_autofree char *buckets
      = seq2seq_edited_copy (ok, "umt5-buckets-24", "relative_attention_num_buckets", "24");
  g_assert_null (as_model_load (buckets, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "model.safetensors"));
  g_assert_nonnull (strstr (error->message, "holds 16 relative-position buckets"));
  g_assert_nonnull (strstr (error->message, "relative_attention_num_buckets is 24"));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/umt5/forward", test_forward);
  g_test_add_func ("/umt5/generate", test_generate);
  g_test_add_func ("/umt5/missing-table", test_missing_table);
  return g_test_run ();
}

/* test-attn-out-drop.c — a long text's attention outputs read without keeping them, and the kept
 * ones dropped (as-trace.h; core/README.md, "Attention on demand").
 *
 * On a random Llama with grouped-query attention (the same pass with the matrices and on demand,
 * 131 tokens): as_trace_attn_out_copy gives every layer's attention output to the bit of the
 * matrices' trace without keeping it (as_trace_attn_out_drop then frees nothing); after every
 * layer was read and kept, as_trace_attn_out_drop frees exactly L·T·D floats, a second drop
 * frees nothing, and the layers remade afterwards are the same bits again; copying a kept layer
 * gives its bits. A trace with the attn_out array drops nothing and copies its rows. */
#include <string.h>

#include "as-forward.h"
#include "as-model.h"
#include "decoder-models.h"

static AsTrace *
run (AsModel *model, const int32_t *ids, int T, AsAttentionStorage storage)
{
  AsForwardOptions options = { .attention = storage };
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward (model, ids, T, &options, &error);
  g_assert_no_error (error);
  return t;
}

static void
assert_same_bits (const float *a, const float *b, gsize n, const char *what, int layer)
{
  if (memcmp (a, b, n * sizeof (float)) != 0)
    g_error ("%s: layer %d is not the same bits", what, layer);
}

static void
test_copy_and_drop (void)
{
  g_autofree char *dir = decoder_model ("llama-gqa-bf16-sharded-llama3", decoder_llama_gqa, FALSE);
  if (dir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  enum
  {
    T = 131
  };
  int32_t ids[T];
  for (int i = 0; i < T; i++)
    ids[i] = (i * 37 + 11) % 300;
  g_autoptr (AsTrace) held = run (model, ids, T, AS_ATTENTION_MATRICES);
  g_autoptr (AsTrace) on = run (model, ids, T, AS_ATTENTION_ON_DEMAND);
  g_assert_nonnull (held->attn_out);
  g_assert_null (on->attn_out);
  int L = on->n_layer;
  gsize n = (gsize) T * on->d_model;
  g_autofree float *copy = g_new (float, n); /* [T][D] */

  /* copies without keeping: nothing to drop afterwards */
  for (int l = 0; l < L; l++)
    {
      as_trace_attn_out_copy (on, l, copy);
      assert_same_bits (as_trace_attn_out (held, l), copy, n, "copy on demand", l);
      g_assert_null (on->attn_out_layers[l]);
    }
  g_assert_cmpuint (as_trace_attn_out_drop (on), ==, 0);

  /* kept layers: dropped all at once, remade to the same bits */
  g_autofree float *first = g_new (float, n *L); /* [L][T][D] */
  for (int l = 0; l < L; l++)
    {
      memcpy (first + l * n, as_trace_attn_out (on, l), n * sizeof (float));
      as_trace_attn_out_copy (on, l, copy); /* a kept layer is copied */
      assert_same_bits (first + l * n, copy, n, "copy of a kept layer", l);
    }
  g_assert_cmpuint (as_trace_attn_out_drop (on), ==, (gsize) L * n * sizeof (float));
  g_assert_cmpuint (as_trace_attn_out_drop (on), ==, 0);
  for (int l = 0; l < L; l++)
    {
      g_assert_null (on->attn_out_layers[l]);
      assert_same_bits (first + l * n, as_trace_attn_out (on, l), n, "remade after the drop", l);
      assert_same_bits (as_trace_attn_out (held, l), first + l * n, n, "matrices' trace", l);
    }

  /* the array of a trace with the matrices stays */
  g_assert_cmpuint (as_trace_attn_out_drop (held), ==, 0);
  g_assert_nonnull (held->attn_out);
  as_trace_attn_out_copy (held, L - 1, copy);
  assert_same_bits (held->attn_out + (gsize) (L - 1) * n, copy, n, "array copy", L - 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/attn-out-drop/copy-and-drop", test_copy_and_drop);
  return g_test_run ();
}

/* test-logits-only.c — a pass that captures nothing but the logits (AsForwardOptions.logits_only,
 * what tests/bench/bench-capture.c measures capturing against) computes the same logits.
 *
 * - Llama with grouped-query attention (BF16, sharded) at 67 tokens, with every logit: the same
 *   bits as the full pass, hidden[L] too; no attention, contexts, attention outputs or queries.
 * - The shape's bytes: the hidden states and the logits only.
 * - GPT-2 (attnscope-mini), whose family has no such pass, captures everything anyway. */
#include <string.h>

#include "as-forward.h"
#include "as-model.h"
#include "decoder-models.h"

static AsTrace *
run (AsModel *model, const int32_t *ids, int T, gboolean logits_only)
{
  AsForwardOptions options = { .all_logits = TRUE, .logits_only = logits_only };
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward (model, ids, T, &options, &error);
  g_assert_no_error (error);
  return t;
}

static void
test_llama (void)
{
  g_autofree char *dir = decoder_model ("llama-gqa-bf16-sharded-llama3", decoder_llama_gqa, FALSE);
  if (dir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  enum
  {
    T = 67
  };
  int32_t ids[T];
  for (int t = 0; t < T; t++)
    ids[t] = (t * 37 + 11) % 300;
  g_autoptr (AsTrace) full = run (model, ids, T, FALSE);
  g_autoptr (AsTrace) only = run (model, ids, T, TRUE);
  gsize V = full->vocab_size, D = full->d_model, L = full->n_layer;
  g_assert_cmpint (only->logits_rows, ==, T);
  g_assert_cmpmem (only->logits, T * V * sizeof (float), full->logits, T * V * sizeof (float));
  g_assert_cmpmem (as_trace_hidden (only, L), T * D * sizeof (float), as_trace_hidden (full, L),
                   T * D * sizeof (float));
  g_assert_null (only->attn);
  g_assert_null (only->attn_q);
  g_assert_null (only->ctx);
  g_assert_null (only->attn_out);
  g_assert_nonnull (full->ctx);

  AsForwardOptions options = { .logits_only = TRUE };
  AsTraceShape shape = as_forward_trace_shape (model, T, &options);
  g_assert_true (shape.logits_only);
  g_assert_cmpuint (as_trace_shape_bytes (&shape), ==,
                    ((L + 1) * T * D + T * D + V) * sizeof (float)
                        + T * (2 * sizeof (int32_t) + sizeof (char *)));
}

static void
test_gpt2_captures_anyway (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  const int32_t ids[] = { 5, 17, 300, 42 };
  g_autoptr (AsTrace) only = run (model, ids, 4, TRUE);
  g_assert_nonnull (only->ctx);
  g_assert_nonnull (only->attn);
  AsForwardOptions options = { .logits_only = TRUE };
  g_assert_false (as_forward_trace_shape (model, 4, &options).logits_only);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/logits-only/llama", test_llama);
  g_test_add_func ("/logits-only/gpt2", test_gpt2_captures_anyway);
  return g_test_run ();
}

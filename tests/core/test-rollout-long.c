/* test-rollout-long.c — mean over heads and rollout of a long text from tiles
 * (as-rollout-long.h): the same bits as the whole-array functions of as-rollout.h, cancellation
 * between steps, and the bound's message.
 *
 * - GPT-2 (attnscope-mini) over 128 tokens (its context) with the attention on demand and BERT on a
 * pair with the matrices: the mean over heads of odd tiles equals as_trace_mean_heads' entries; the
 * rollout of every layer equals as_trace_rollout's layer, to the bit; progress runs 1..total in
 * order.
 * - A progress callback that cancels after the first step: FALSE, AS_ERROR_CANCELLED, no step
 *   after it.
 * - as_rollout_check: a rollout of 29 layers over 8,192 tokens is refused in one second with the
 *   length, the layers and the time named; 16 tokens pass. */
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-rollout-long.h"
#include "as-rollout.h"

static AsTrace *
run_ids (AsModel *model, int T, AsAttentionStorage storage)
{
  g_autofree int32_t *ids = g_new (int32_t, T);
  for (int t = 0; t < T; t++)
    ids[t] = (t * 37 + 11) % as_model_get_config (model)->vocab_size;
  AsForwardOptions options = { .attention = storage };
  g_autoptr (GError) error = NULL;
  AsTrace *trace = as_forward (model, ids, T, &options, &error);
  g_assert_no_error (error);
  return trace;
}

typedef struct
{
  int calls, last_done, total, cancel_after;
  GCancellable *cancellable;
} Progress;

static void
on_progress (int done, int total, gpointer data)
{
  Progress *p = data;
  g_assert_cmpint (done, ==, p->last_done + 1); /* every step once, in order */
  p->calls++;
  p->last_done = done;
  p->total = total;
  if (p->cancel_after > 0 && p->calls == p->cancel_after)
    g_cancellable_cancel (p->cancellable);
}

static void
check_trace (const AsTrace *t, const char *what)
{
  int L = t->n_layer, T = t->n_tokens;
  gsize tt = (gsize) T * T;
  g_autofree float *mean = as_trace_mean_heads (t); /* [L][T][T] */
  g_autofree float *rollout = as_trace_rollout (t); /* [L][T][T] */
  g_autofree float *out = g_new (float, tt);        /* [T][T] */
  for (int l = 0; l < L; l++)
    {
      /* a tile at odd offsets into a wider stride, and the whole matrix */
      int r0 = T / 3, c0 = T / 7, nr = T / 2, nc = T - c0 - 1;
      as_trace_mean_heads_tile (t, l, r0, nr, c0, nc, out, nc + 2);
      for (int i = 0; i < nr; i++)
        g_assert_cmpmem (out + (gsize) i * (nc + 2), nc * sizeof (float),
                         mean + l * tt + (gsize) (r0 + i) * T + c0, nc * sizeof (float));
      as_trace_mean_heads_tile (t, l, 0, T, 0, T, out, T);
      g_assert_cmpmem (out, tt * sizeof (float), mean + l * tt, tt * sizeof (float));

      Progress p = { 0 };
      AsRolloutOptions options = { .progress = on_progress, .progress_data = &p };
      g_autoptr (GError) error = NULL;
      g_assert_true (as_trace_rollout_layer (t, l, &options, out, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (out, tt * sizeof (float), rollout + l * tt, tt * sizeof (float));
      g_assert_cmpint (p.calls, ==, p.total);
      g_assert_cmpint (p.total, >, l);
    }
  g_test_message ("%s: %d layers × %d tokens, mean tiles and rollouts the same bits", what, L, T);
}

static void
test_same_bits (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) gpt2 = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) on = run_ids (gpt2, 128, AS_ATTENTION_ON_DEMAND);
  g_assert_false (as_trace_attention_held (on));
  check_trace (on, "attnscope-mini, on demand");

  g_autoptr (AsModel) bert = as_model_load ("attnscope-mini-bert", &error);
  g_assert_no_error (error);
  AsForwardOptions options = { .attention = AS_ATTENTION_MATRICES };
  g_autoptr (AsTrace) pair = as_forward_pair (bert, "the cat sat on the mat .",
                                              "a dog ran in the park .", FALSE, &options, &error);
  g_assert_no_error (error);
  check_trace (pair, "attnscope-mini-bert, matrices");
}

static void
test_cancel (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) gpt2 = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) t = run_ids (gpt2, 128, AS_ATTENTION_ON_DEMAND);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  Progress p = { .cancel_after = 1, .cancellable = cancellable };
  AsRolloutOptions options = { cancellable, on_progress, &p };
  g_autofree float *out = g_new (float, (gsize) t->n_tokens * t->n_tokens);
  g_assert_false (as_trace_rollout_layer (t, t->n_layer - 1, &options, out, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
  g_assert_cmpint (p.calls, ==, 1); /* no step after the one that cancelled */
  g_assert_cmpint (p.total, >, 1);
}

static void
test_bound (void)
{
  g_autoptr (GError) error = NULL;
  double seconds = as_rollout_estimate_seconds (8192, 29);
  g_assert_cmpfloat (seconds, >, 1.0); /* 3.2·10¹³ operations */
  g_assert_cmpfloat (as_rollout_estimate_seconds (16, 1), <, 0.01);
  g_assert_false (as_rollout_check (8192, 29, 1.0, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "layer 29 over 8192 tokens multiplies 29 matrices of "
                                            "8192 × 8192: about "));
  g_assert_nonnull (strstr (error->message, "(more than 1 seconds)"));
  g_clear_error (&error);
  g_assert_true (as_rollout_check (16, 1, 60.0, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rollout-long/same-bits", test_same_bits);
  g_test_add_func ("/rollout-long/cancel", test_cancel);
  g_test_add_func ("/rollout-long/bound", test_bound);
  return g_test_run ();
}

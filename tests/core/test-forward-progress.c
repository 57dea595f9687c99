/* test-forward-progress.c — a forward pass tells its progress layer by layer and stops when its
 * cancellable is cancelled between layers (as-forward.h, AsForwardProgress).
 *
 * - GPT-2 (attnscope-mini) and Marian (attnscope-mini-en-de, encoder then decoder): the callback
 *   is told 1, 2, … TOTAL of TOTAL in order (TOTAL = L, or Le + L), and the trace is the same to
 *   the bit as a pass without it.
 * - A callback that cancels after layer 2 stops the pass with AS_ERROR_CANCELLED and is not
 *   told again. */
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"

typedef struct
{
  int calls, last_done, total;
  int cancel_at; /* > 0: cancel when told this many layers */
  GCancellable *cancellable;
} Seen;

static void
on_progress (int done, int total, gpointer user_data)
{
  Seen *s = user_data;
  g_assert_cmpint (done, ==, s->last_done + 1);
  g_assert_cmpint (done, <=, total);
  if (s->total != 0)
    g_assert_cmpint (total, ==, s->total);
  s->total = total;
  s->last_done = done;
  s->calls++;
  if (s->cancel_at > 0 && done == s->cancel_at)
    g_cancellable_cancel (s->cancellable);
}

static AsTrace *
pass (AsModel *model, const AsForwardOptions *options, GError **error)
{
  if (as_model_get_config (model)->encoder_decoder)
    return as_forward_translation_text (model, "The group went home after the long day.",
                                        "Die Gruppe ging nach Hause.", options, error);
  return as_forward_text (model, "The man hit the car, and then the car hit the man.", FALSE,
                          options, error);
}

static void
assert_same_bits (const float *a, const float *b, gsize n, const char *what)
{
  if (memcmp (a, b, n * sizeof (float)) != 0)
    g_error ("%s: other bits with a progress callback", what);
}

static void
check_model (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (name, &error);
  g_assert_no_error (error);
  const AsConfig *c = as_model_get_config (model);
  int total = c->n_layer + (c->encoder_decoder ? c->n_encoder_layer : 0);

  AsForwardOptions plain = { .all_logits = TRUE, .attention = AS_ATTENTION_MATRICES };
  g_autoptr (AsTrace) a = pass (model, &plain, &error);
  g_assert_no_error (error);
  Seen seen = { 0 };
  AsForwardOptions told = plain;
  told.progress = on_progress;
  told.progress_data = &seen;
  g_autoptr (AsTrace) b = pass (model, &told, &error);
  g_assert_no_error (error);
  g_test_message ("%s: told %d times of %d layers", name, seen.calls, total);
  g_assert_cmpint (seen.calls, ==, total);
  g_assert_cmpint (seen.total, ==, total);
  gsize L = a->n_layer, H = a->n_head, T = a->n_tokens, D = a->d_model;
  assert_same_bits (a->attn, b->attn, L * H * T * T, "attention");
  assert_same_bits (a->hidden, b->hidden, (L + 1) * T * D, "hidden states");
  assert_same_bits (a->logits, b->logits, (gsize) a->logits_rows * a->vocab_size, "logits");
  if (a->source != NULL)
    assert_same_bits (a->cross_attn, b->cross_attn, L * H * T * a->source->n_tokens,
                      "cross-attention");

  /* cancelled from the callback after two layers */
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  Seen cancelling = { .cancel_at = 2, .cancellable = cancellable };
  AsForwardOptions cancel = plain;
  cancel.cancellable = cancellable;
  cancel.progress = on_progress;
  cancel.progress_data = &cancelling;
  g_autoptr (AsTrace) none = pass (model, &cancel, &error);
  g_assert_null (none);
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
  g_assert_cmpint (cancelling.calls, ==, 2);
}

static void
test_decoder (void)
{
  check_model ("attnscope-mini");
}

static void
test_translation (void)
{
  check_model ("attnscope-mini-en-de");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/forward-progress/decoder", test_decoder);
  g_test_add_func ("/core/forward-progress/translation", test_translation);
  return g_test_run ();
}

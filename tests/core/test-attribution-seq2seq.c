/* test-attribution-seq2seq.c — direct logit attribution of a translation model's decoder in the
 * core (core/analysis/attribution-seq2seq.c, the family's replay): on a random BART
 * (tests/reference/bart_reference.py) the parts add up to the logit the pass computed (its
 * logits row, final_logits_bias included), with the positions and without them (the No
 * Positions view: the replay leaves them out too, and the embeddings' part changes); a trace the
 * replay cannot reproduce is refused with one line instead of giving parts that do not add up.
 * The parts themselves are checked against PyTorch by cli/test-cli-attribution-seq2seq.c. */
#include <math.h>
#include <string.h>

#include "as-attribution.h"
#include "as-error.h"
#include "as-forward.h"
#include "bart-models.h"

static const char *source = "hello there world";
static const char *target = "hallo da welt";

/* The attribution of token 5 at the last position of a pass with or without positions, checked
 * against the pass's own logit; returns it. */
static AsAttribution *
attribute (AsModel *model, gboolean no_positions)
{
  GError *error = NULL;
  AsForwardOptions options = { .no_positions = no_positions, .capture_qkv = TRUE };
  g_autoptr (AsTrace) trace = as_forward_translation_text (model, source, target, &options, &error);
  g_assert_no_error (error);
  int p = trace->n_tokens - 1;
  AsAttribution *at = as_attribution_compute (model, trace, p, 5, -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (at->cross_heads);
  const float *row = trace->logits + (gsize) (trace->logits_rows - 1) * trace->vocab_size;
  g_test_message ("no_positions %d: logit %.7g, the pass's %.7g, sum %.7g, embeddings %.7g",
                  no_positions, at->logit, row[5], at->sum, at->embeddings);
  g_assert_cmpfloat (fabsf (at->logit - row[5]), <=, 1e-4f * fabsf (row[5]) + 1e-5f);
  g_assert_cmpfloat (fabsf (at->sum - at->logit), <=, 1e-4f * fabsf (at->logit) + 1e-5f);
  return at;
}

static void
test_positions (void)
{
  g_autofree char *dir = bart_model ("bart-post", bart_post);
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_assert_true (as_attribution_supported (model, &error));
  g_autoptr (AsAttribution) with = attribute (model, FALSE);
  g_autoptr (AsAttribution) without = attribute (model, TRUE);
  g_assert_cmpfloat (fabsf (with->embeddings - without->embeddings), >, 1e-4f);
}

static void
test_refused (void)
{
  g_autofree char *dir = bart_model ("bart-post", bart_post);
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  AsForwardOptions options = { .capture_qkv = TRUE };
  g_autoptr (AsTrace) trace = as_forward_translation_text (model, source, target, &options, &error);
  g_assert_no_error (error);
  int p = trace->n_tokens - 1, D = trace->d_model;
  float *last = as_trace_hidden (trace, trace->n_layer) + (gsize) p * D; /* [D] */
  for (int i = 0; i < D; i++)
    last[i] += 1.0f;
  g_autoptr (AsAttribution) at = as_attribution_compute (model, trace, p, 5, -1, &error);
  g_assert_null (at);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "could not replay"));
  g_assert_null (strchr (error->message, '\n'));
  g_error_free (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/attribution-seq2seq/positions", test_positions);
  g_test_add_func ("/core/attribution-seq2seq/refused", test_refused);
  return g_test_run ();
}

/* test-real-models.c — published values of real pretrained checkpoints (tests/README.md,
 * "Real-weight tests").
 *
 * Real weights cannot be downloaded on the project's machines, so these tests run only when the
 * user points them at a downloaded model folder (or hub id in the local Hugging Face cache):
 *   ATTNSCOPE_DISTILGPT2=/path/to/distilgpt2   seed 000: tokens, next-token logits, greedy loop;
 *                                              HF test-suite greedy ids for "The president"
 *   ATTNSCOPE_GPT2=/path/to/gpt2               HF greedy ids for "The dog"; Bumblebee logits
 * Otherwise each test reports a skip that names the variable. */
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-predict.h"
#include "check-close.h"

static AsModel *
load_or_skip (const char *variable)
{
  const char *spec = g_getenv (variable);
  if (spec == NULL || *spec == '\0')
    {
      g_autofree char *why = g_strdup_printf (
          "%s is not set: real-weight check skipped (point it at a downloaded model folder)",
          variable);
      g_test_skip (why);
      return NULL;
    }
  GError *error = NULL;
  AsModel *model = as_model_load (spec, &error);
  g_assert_no_error (error);
  return model;
}

static void
assert_ids (GArray *ids, const int32_t *expected, guint n)
{
  g_assert_cmpuint (ids->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (g_array_index (ids, int32_t, i), ==, expected[i]);
}

/* Seed 000: "May the force be with you." → 6747 262 2700 307 351 345 13, and the first step of
 * the greedy table: " on" -64.0309, " in" -64.0530, "fitting" -64.3531. */
static void
test_distilgpt2_seed (void)
{
  g_autoptr (AsModel) model = load_or_skip ("ATTNSCOPE_DISTILGPT2");
  if (model == NULL)
    return;
  GError *error = NULL;
  g_autoptr (GArray) ids = as_tokenizer_encode (as_model_get_tokenizer (model),
                                                "May the force be with you.", -1, &error);
  g_assert_no_error (error);
  const int32_t expected_ids[] = { 6747, 262, 2700, 307, 351, 345, 13 };
  assert_ids (ids, expected_ids, G_N_ELEMENTS (expected_ids));

  const char *texts[] = { " on", " the", " right", " side", " of", " the", " border", "." };
  const float first_logits[] = { -64.0309f, -64.0530f, -64.3531f };
  const char *first_tokens[] = { " on", " in", "fitting" };
  AsGreedyStep *steps
      = as_generate_greedy (model, "May the force be", 10, 3, AS_GREEDY_RETOKENIZE, NULL, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 3; i++)
    {
      g_assert_cmpstr (steps[0].top[i].token, ==, first_tokens[i]);
      g_assert_cmpfloat_with_epsilon (steps[0].top[i].logit, first_logits[i], 6e-4);
    }
  GString *text = g_string_new ("May the force be");
  for (int s = 0; s < 8; s++)
    {
      g_string_append (text, texts[s]);
      g_assert_cmpstr (steps[s].text, ==, text->str);
    }
  /* then a token that decodes to U+FFFD, then a newline (seed table) */
  g_assert_cmpstr (steps[8].top[0].token, ==, "\xef\xbf\xbd");
  g_assert_cmpstr (steps[9].top[0].token, ==, "\n");
  g_assert_cmpfloat_with_epsilon (steps[9].top[0].logit, -41.7617f, 6e-4);
  g_string_free (text, TRUE);
  as_greedy_steps_free (steps, 10);
}

/* Greedy generation with appended ids, as HF's generate() (transformers test-suite). */
static void
check_greedy_ids (AsModel *model, const char *prompt, const int32_t *expected, int n_expected)
{
  GError *error = NULL;
  g_autoptr (GArray) ids = as_tokenizer_encode (as_model_get_tokenizer (model), prompt, -1, &error);
  g_assert_no_error (error);
  int n_prompt = (int) ids->len;
  for (int i = 0; i < n_prompt; i++)
    g_assert_cmpint (g_array_index (ids, int32_t, i), ==, expected[i]);
  for (int s = n_prompt; s < n_expected; s++)
    {
      g_autoptr (AsTrace) trace
          = as_forward (model, &g_array_index (ids, int32_t, 0), (int) ids->len, NULL, &error);
      g_assert_no_error (error);
      int n = 0;
      AsPrediction *top = as_predict_top_k (trace, as_model_get_tokenizer (model), 1, &n);
      g_assert_cmpint (top[0].id, ==, expected[s]);
      g_array_append_val (ids, top[0].id);
      as_predictions_free (top, n);
    }
}

static void
test_distilgpt2_hf_greedy (void)
{
  g_autoptr (AsModel) model = load_or_skip ("ATTNSCOPE_DISTILGPT2");
  if (model == NULL)
    return;
  const int32_t expected[] = { 464, 1893, 286,  262,  1578, 1829, 11,  290, 262, 1893,
                               286, 262,  1578, 7526, 11,   423,  587, 287, 262, 2635 };
  check_greedy_ids (model, "The president", expected, G_N_ELEMENTS (expected));
}

static void
test_gpt2_hf_greedy (void)
{
  g_autoptr (AsModel) model = load_or_skip ("ATTNSCOPE_GPT2");
  if (model == NULL)
    return;
  const int32_t expected[] = { 464, 3290, 373, 1043, 287,   257, 2214, 1474, 262, 16246,
                               286, 2688, 290, 2688, 27262, 13,  198,  198,  464, 3290 };
  check_greedy_ids (model, "The dog", expected, G_N_ELEMENTS (expected));
}

/* Bumblebee: gpt2 LM, ids 15496 11 616 3290 318 13779, logits[0, 1..3, 1..3], tolerance 1e-4. */
static void
test_gpt2_bumblebee_logits (void)
{
  g_autoptr (AsModel) model = load_or_skip ("ATTNSCOPE_GPT2");
  if (model == NULL)
    return;
  const int32_t ids[] = { 15496, 11, 616, 3290, 318, 13779 };
  AsForwardOptions options = { .all_logits = TRUE };
  GError *error = NULL;
  g_autoptr (AsTrace) trace = as_forward (model, ids, G_N_ELEMENTS (ids), &options, &error);
  g_assert_no_error (error);
  const float expected[3][3] = { { -114.5832f, -116.5725f, -116.0830f },
                                 { -89.8644f, -93.1977f, -94.4351f },
                                 { -88.3380f, -92.8703f, -94.4454f } };
  for (int r = 0; r < 3; r++)
    {
      const float *row = trace->logits + (gsize) (r + 1) * trace->vocab_size + 1;
      check_close ("gpt2 logits", row, expected[r], 3, 1e-4, 1e-5);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/real/distilgpt2/seed-000", test_distilgpt2_seed);
  g_test_add_func ("/core/real/distilgpt2/hf-greedy", test_distilgpt2_hf_greedy);
  g_test_add_func ("/core/real/gpt2/hf-greedy", test_gpt2_hf_greedy);
  g_test_add_func ("/core/real/gpt2/bumblebee-logits", test_gpt2_bumblebee_logits);
  return g_test_run ();
}

/* test-marian-positions.c — Marian and BART without positions (AsForwardOptions.no_positions,
 * AsTranslateOptions.no_positions) against their PyTorch references with both stacks' position
 * tables left out (tests/reference/marian_reference.py and bart_reference.py expected
 * --no-positions):
 *   - every pair of the fixture: encoder, decoder and cross attention within 1e-5, hidden states
 *     and logits within the vector tolerance; the same pairs with positions differ from it;
 *   - greedy translation without positions follows the pass without positions: each generated
 *     token is the argmax of the logits of the pass over the tokens before it (the pad token,
 *     which generation never chooses, left out);
 *   - ablation is still refused for a translation model, naming it. */
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-translate.h"
#include "bart-models.h"
#include "marian-fixtures.h"

static AsTrace *
pass (AsModel *model, const GArray *src, const GArray *tgt, gboolean no_positions)
{
  AsForwardOptions options = { .all_logits = TRUE, .no_positions = no_positions };
  GError *error = NULL;
  AsTrace *t = as_forward_translation (model, (int32_t *) src->data, (int) src->len,
                                       (int32_t *) tgt->data, (int) tgt->len, &options, &error);
  g_assert_no_error (error);
  return t;
}

static void
compare_group (AsModel *model, hid_t file, const char *group)
{
  g_autoptr (GArray) src = marian_read_ids (file, group, "source_ids");
  g_autoptr (GArray) tgt = marian_read_ids (file, group, "target_ids");
  g_assert_nonnull (src);
  g_assert_nonnull (tgt);
  g_autoptr (AsTrace) t = pass (model, src, tgt, TRUE);
  const AsTrace *e = t->source;
  hsize_t S = e->n_tokens, T = t->n_tokens, D = t->d_model, V = t->vocab_size;
  hsize_t enc_attn[] = { e->n_layer, e->n_head, S, S };
  hsize_t dec_attn[] = { t->n_layer, t->n_head, T, T };
  hsize_t cross[] = { t->n_layer, t->n_head, T, S };
  hsize_t enc_hidden[] = { e->n_layer + 1, S, D };
  hsize_t dec_hidden[] = { t->n_layer + 1, T, D };
  hsize_t logits[] = { T, V };
  g_autofree float *x_ea = marian_read_floats (file, group, "encoder_attentions", 4, enc_attn);
  g_autofree float *x_da = marian_read_floats (file, group, "decoder_attentions", 4, dec_attn);
  g_autofree float *x_ca = marian_read_floats (file, group, "cross_attentions", 4, cross);
  g_autofree float *x_eh = marian_read_floats (file, group, "encoder_hidden_states", 3, enc_hidden);
  g_autofree float *x_dh = marian_read_floats (file, group, "decoder_hidden_states", 3, dec_hidden);
  g_autofree float *x_lg = marian_read_floats (file, group, "logits", 2, logits);
  g_assert_true (x_ea && x_da && x_ca && x_eh && x_dh && x_lg);
  g_assert_true (
      marian_check_attention ("encoder_attentions", e->attn, x_ea, e->n_layer * e->n_head * S * S));
  g_assert_true (
      marian_check_attention ("decoder_attentions", t->attn, x_da, t->n_layer * t->n_head * T * T));
  g_assert_true (marian_check_attention ("cross_attentions", t->cross_attn, x_ca,
                                         t->n_layer * t->n_head * T * S));
  g_assert_true (
      marian_check_vectors ("encoder_hidden_states", e->hidden, x_eh, (e->n_layer + 1) * S * D));
  g_assert_true (
      marian_check_vectors ("decoder_hidden_states", t->hidden, x_dh, (t->n_layer + 1) * T * D));
  g_assert_true (marian_check_vectors ("logits", t->logits, x_lg, T * V));
  /* with positions the logits are another model's */
  g_autoptr (AsTrace) with = pass (model, src, tgt, FALSE);
  double worst = 0;
  for (gsize i = 0; i < T * V; i++)
    worst = MAX (worst, fabs ((double) with->logits[i] - x_lg[i]));
  g_assert_cmpfloat (worst, >, 1e-4);
}

static void
test_reference (void)
{
  JsonNode *entry = marian_fixture ("expected", "small-no-positions");
  if (entry == NULL)
    return;
  JsonObject *o = json_node_get_object (entry);
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (json_object_get_string_member (o, "model"), &error);
  g_assert_no_error (error);
  hid_t file = H5Fopen (json_object_get_string_member (o, "expected"), H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  int n = 0;
  for (;; n++)
    {
      g_autofree char *group = g_strdup_printf ("seq%d", n);
      if (H5Lexists (file, group, H5P_DEFAULT) <= 0)
        break;
      compare_group (model, file, group);
    }
  H5Fclose (file);
  g_test_message ("Marian without positions: %d pairs compared", n);
  g_assert_cmpint (n, >=, 6);
}

/* BART (post-norm) at source/target lengths 1/1, 13/7 and 40/33. */
static void
test_bart (void)
{
  g_autofree char *dir = bart_model ("bart-post", bart_post);
  if (dir == NULL)
    return;
  int lengths[][2] = { { 1, 1 }, { 13, 7 }, { 40, 33 } };
  char *src[3], *tgt[3];
  for (int i = 0; i < 3; i++)
    {
      src[i] = bart_ids (lengths[i][0], 300, 21 + i, lengths[i][0] > 1);
      tgt[i] = bart_ids (lengths[i][1], 300, 121 + i, FALSE);
    }
  g_autofree char *expected
      = bart_expected_no_positions (dir, (const char *const *) src, (const char *const *) tgt, 3);
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
      compare_group (model, file, group);
    }
  H5Fclose (file);
}

static void
test_translate (void)
{
  const char *dir = marian_fixture_path ("models", "small");
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  const AsConfig *c = as_model_get_config (model);
  const int32_t src[] = { 7, 30, 8, 44, 12, 9, 0 };
  AsTranslateOptions options = { .num_beams = 1, .max_length = 12, .no_positions = TRUE };
  g_autoptr (AsTranslation) without = as_translate (model, src, 7, &options, &error);
  g_assert_no_error (error);
  options.no_positions = FALSE;
  g_autoptr (AsTranslation) with = as_translate (model, src, 7, &options, &error);
  g_assert_no_error (error);
  int n = (int) without->ids->len;
  g_assert_cmpint (n, >=, 3);
  const int32_t *ids = (const int32_t *) without->ids->data;
  AsForwardOptions fo = { .all_logits = TRUE, .no_positions = TRUE };
  g_autoptr (AsTrace) t = as_forward_translation (model, src, 7, ids, n, &fo, &error);
  g_assert_no_error (error);
  const AsGenerationConfig *g = as_model_get_generation_config (model);
  int V = c->vocab_size, checked = 0;
  /* the last generated token may be forced (</s> at max_length) */
  for (int i = 0; i + 2 < n; i++)
    {
      const float *row = t->logits + (gsize) i * V;
      int best = -1;
      for (int v = 0; v < V; v++)
        if (v != g->pad_token_id && (best < 0 || row[v] > row[best]))
          best = v;
      g_assert_cmpint (best, ==, ids[i + 1]);
      checked++;
    }
  g_test_message ("greedy without positions: %d tokens follow the pass; with positions %u "
                  "tokens",
                  checked, with->ids->len);
  g_assert_cmpint (checked, >=, 1);
}

static void
test_ablation_refused (void)
{
  const char *dir = marian_fixture_path ("models", "small");
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  const int32_t src[] = { 7, 30, 0 }, tgt[] = { 5, 6 };
  guint8 heads[64] = { 1 };
  AsIntervention iv = { .heads = heads };
  AsForwardOptions fo = { .intervention = &iv };
  g_assert_null (as_forward_translation (model, src, 3, tgt, 2, &fo, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "translation model"));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/marian-positions/reference", test_reference);
  g_test_add_func ("/marian-positions/bart", test_bart);
  g_test_add_func ("/marian-positions/translate", test_translate);
  g_test_add_func ("/marian-positions/ablation-refused", test_ablation_refused);
  return g_test_run ();
}

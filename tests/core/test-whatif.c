/* test-whatif.c — interventions in the forward pass (as-forward.h AsIntervention, as-ablation.h,
 * as-patching.h) on the shipped models, exactly:
 *   - patching every head's output (and every MLP's) from a text's pass into its own changes no
 *     bit of the logits, from the embeddings or from any later start layer (prefix reuse);
 *   - replacing the residual stream at every position of a layer with B's gives B's logits bit
 *     for bit, and as_patch normalises that to exactly 1;
 *   - a bidirectional encoder without positions (attnscope-mini-bert) gives "The man hit the car"
 *     and "The car hit the man" the same hidden states after the token alignment (1e-5), which
 *     positions tell apart; a causal model without positions still tells them apart (the mask);
 *   - zero ablation of a head is the same as its context zeroed; a mean ablation over the text
 *     itself of an MLP; bad --ablate lists name the model's L and H. */
#include <math.h>
#include <string.h>

#include "as-ablation.h"
#include "as-compare.h"
#include "as-error.h"
#include "as-patching.h"
#include "as-tokenizer.h"

static AsModel *
load (const char *name)
{
  g_autoptr (GError) error = NULL;
  AsModel *m = as_model_load (name, &error);
  g_assert_no_error (error);
  return m;
}

static AsTrace *
pass (AsModel *m, const char *text, const AsForwardOptions *o)
{
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward_text (m, text, FALSE, o, &error);
  g_assert_no_error (error);
  return t;
}

static AsTrace *
pass_ids (AsModel *m, const AsTrace *like, const AsForwardOptions *o)
{
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward (m, like->ids, like->n_tokens, o, &error);
  g_assert_no_error (error);
  return t;
}

static void
assert_same_logits (const AsTrace *a, const AsTrace *b)
{
  g_assert_cmpint (a->logits_rows, ==, b->logits_rows);
  g_assert_cmpint (
      memcmp (a->logits, b->logits, sizeof (float) * a->logits_rows * (gsize) a->vocab_size), ==,
      0);
}

static void
test_self_patch (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  const AsConfig *c = as_model_get_config (m);
  AsForwardOptions all = { .all_logits = TRUE };
  g_autoptr (AsTrace) a = pass (m, "The man hit the car because he was angry", &all);
  int L = c->n_layer, H = c->n_head, T = a->n_tokens, D = c->n_embd;
  g_autofree float *mlp = g_new (float, (gsize) L *T *D);
  AsIntervention record = { .mlp_record = mlp };
  AsForwardOptions o = { .all_logits = TRUE, .intervention = &record };
  g_autoptr (AsTrace) recorded = pass_ids (m, a, &o);
  assert_same_logits (a, recorded);
  g_autofree guint8 *heads = g_new (guint8, (gsize) L * H);
  g_autofree guint8 *mlps = g_new (guint8, L);
  memset (heads, 1, (gsize) L * H);
  memset (mlps, 1, L);
  for (int start = 0; start < L; start++)
    {
      AsIntervention iv = { .heads = heads,
                            .head_values = a->ctx,
                            .mlps = mlps,
                            .mlp_values = mlp,
                            .start_layer = start,
                            .start_hidden = a->hidden };
      o.intervention = &iv;
      g_autoptr (AsTrace) t = pass_ids (m, a, &o);
      assert_same_logits (a, t);
      g_assert_cmpint (
          memcmp (as_trace_hidden (t, L), as_trace_hidden (a, L), sizeof (float) * T * D), ==, 0);
    }
}

static void
test_resid_everything (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  const AsConfig *c = as_model_get_config (m);
  g_autoptr (AsTrace) a = pass (m, "The man hit the car. The", NULL);
  g_autoptr (AsTrace) b = pass (m, "The car hit the man. The", NULL);
  g_assert_cmpint (a->n_tokens, ==, b->n_tokens);
  int L = c->n_layer, T = a->n_tokens;
  g_autofree guint8 *resid = g_new0 (guint8, (gsize) L * T);
  for (int l = 0; l < L; l++)
    {
      memset (resid, 0, (gsize) L * T);
      memset (resid + (gsize) l * T, 1, T);
      AsIntervention iv = {
        .resid = resid, .resid_values = b->hidden, .start_layer = l, .start_hidden = a->hidden
      };
      AsForwardOptions o = { .intervention = &iv };
      g_autoptr (AsTrace) t = pass_ids (m, a, &o);
      assert_same_logits (b, t);
    }
  AsMetric metric = { .kind = AS_METRIC_LOGIT_DIFF };
  g_autoptr (GError) error = NULL;
  AsTokenizer *tk = as_model_get_tokenizer (m);
  g_assert_true (as_tokenizer_word_id (tk, " car", &metric.token_id, &error));
  g_assert_true (as_tokenizer_word_id (tk, " man", &metric.vs_id, &error));
  g_autofree double *effects = g_new (double, (gsize) L *T);
  AsPatchResult r;
  g_assert_true (as_patch (m, a->ids, b->ids, T, &metric, AS_PATCH_RESID, effects, &r, &error));
  g_assert_no_error (error);
  /* position 0 holds the same token in both: patching it changes nothing, exactly */
  for (int l = 0; l < L; l++)
    g_assert_cmpfloat (effects[(gsize) l * T], ==, 0.0);
  g_assert_cmpfloat (r.source - r.base, !=, 0.0);
  g_assert_cmpfloat (r.base, ==, as_metric_value (&metric, a));
  g_assert_cmpfloat (r.source, ==, as_metric_value (&metric, b));
}

/* Whether the hidden states of A and B agree row by row after the token alignment, within TOL
 * (relative to the row's largest value). */
static double
aligned_difference (const AsTrace *a, const AsTrace *b)
{
  int np = 0, nua = 0, nub = 0;
  g_autofree int *ua = NULL, *ub = NULL;
  g_autofree AsTokenPair *pairs = as_compare_pair_tokens (a->tokens, a->n_tokens, b->tokens,
                                                          b->n_tokens, &np, &ua, &nua, &ub, &nub);
  g_assert_cmpint (np, ==, a->n_tokens);
  int D = a->d_model;
  double worst = 0;
  for (int l = 0; l <= a->n_layer; l++)
    for (int p = 0; p < np; p++)
      {
        const float *x = as_trace_hidden (a, l) + (gsize) pairs[p].a * D;
        const float *y = as_trace_hidden (b, l) + (gsize) pairs[p].b * D;
        for (int i = 0; i < D; i++)
          worst = MAX (worst, fabs ((double) x[i] - y[i]));
      }
  return worst;
}

static void
test_no_positions_encoder (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini-bert");
  AsForwardOptions none = { .no_positions = TRUE };
  g_autoptr (AsTrace) a = pass (m, "The man hit the car", &none);
  g_autoptr (AsTrace) b = pass (m, "The car hit the man", &none);
  double without = aligned_difference (a, b);
  g_test_message ("BERT without positions: largest difference %.3g", without);
  g_assert_cmpfloat (without, <=, 1e-5);
  g_autoptr (AsTrace) pa = pass (m, "The man hit the car", NULL);
  g_autoptr (AsTrace) pb = pass (m, "The car hit the man", NULL);
  g_assert_cmpfloat (aligned_difference (pa, pb), >, 1e-2);
}

static void
test_no_positions_causal (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  AsForwardOptions none = { .no_positions = TRUE };
  g_autoptr (AsTrace) a = pass (m, "The man hit the car", &none);
  g_autoptr (AsTrace) b = pass (m, "The car hit the man", &none);
  /* the embeddings are the same vectors permuted; the mask makes the layers differ */
  int D = a->d_model;
  g_assert_cmpint (
      memcmp (as_trace_hidden (a, 0) + 1 * D, as_trace_hidden (b, 0) + 4 * D, sizeof (float) * D),
      ==, 0);
  g_assert_cmpfloat (aligned_difference (a, b), >, 1e-2);
  /* the first token sees only itself: its states agree in every layer */
  for (int l = 0; l <= a->n_layer; l++)
    g_assert_cmpint (memcmp (as_trace_hidden (a, l), as_trace_hidden (b, l), sizeof (float) * D),
                     ==, 0);
}

static void
test_zero_and_mean (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  const AsConfig *c = as_model_get_config (m);
  g_autoptr (AsAblationSet) set = as_ablation_set_new (c->n_layer, c->n_head);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_ablation_set_parse (set, "1.2, mlp0,1.2", &error));
  g_assert_cmpint (set->n_heads_off, ==, 1);
  g_assert_cmpint (set->n_mlps_off, ==, 1);
  AsIntervention iv = as_ablation_intervention (set, AS_ABLATION_ZERO, NULL, NULL);
  AsForwardOptions o = { .intervention = &iv };
  g_autoptr (AsTrace) clean = pass (m, "The man hit the car", NULL);
  g_autoptr (AsTrace) ablated = pass (m, "The man hit the car", &o);
  g_assert_cmpint (memcmp (clean->logits, ablated->logits, sizeof (float) * c->vocab_size), !=, 0);
  /* the embeddings are untouched, layer 0's output is not (mlp0) */
  gsize n = (gsize) clean->n_tokens * clean->d_model;
  g_assert_cmpint (memcmp (as_trace_hidden (clean, 0), as_trace_hidden (ablated, 0), n * 4), ==, 0);
  g_assert_cmpint (memcmp (as_trace_hidden (clean, 1), as_trace_hidden (ablated, 1), n * 4), !=, 0);

  /* the mean over the text itself: one text of one token has its own values as the mean */
  char *texts[] = { (char *) "The", NULL };
  g_autofree float *head_means = NULL, *mlp_means = NULL;
  g_assert_true (as_ablation_means (m, texts, 1, "test", &head_means, &mlp_means, &error));
  g_assert_no_error (error);
  AsIntervention mean = as_ablation_intervention (set, AS_ABLATION_MEAN, head_means, mlp_means);
  o.intervention = &mean;
  g_autoptr (AsTrace) one = pass (m, "The", NULL);
  g_autoptr (AsTrace) one_mean = pass (m, "The", &o);
  assert_same_logits (one, one_mean);

  g_assert_false (as_ablation_means (m, texts, 0, "empty.txt", &head_means, &mlp_means, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "empty.txt"));
  g_clear_error (&error);
}

static void
test_bad_lists (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  const AsConfig *c = as_model_get_config (m);
  static const char *const bad[][2] = {
    { "4.0", "no head 4.0 (it has 4 layers of 8 heads: 0.0–3.7)" },
    { "0.8", "no head 0.8 (it has 4 layers of 8 heads" },
    { "mlp4", "no layer 4 (it has 4 layers, 0–3)" },
    { "1", "neither LAYER.HEAD" },
    { "1.x", "neither LAYER.HEAD" },
    { "-1.2", "neither LAYER.HEAD" },
    { "", "empty list" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (AsAblationSet) set = as_ablation_set_new (c->n_layer, c->n_head);
      g_autoptr (GError) error = NULL;
      g_assert_false (as_ablation_set_parse (set, bad[i][0], &error));
      g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
      if (strstr (error->message, bad[i][1]) == NULL)
        g_error ("'%s': %s", bad[i][0], error->message);
    }
  AsAblationKind kind;
  g_autoptr (GError) error = NULL;
  g_assert_false (as_ablation_kind_parse ("half", &kind, &error));
  g_assert_nonnull (strstr (error->message, "'half' is not one of zero, mean"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/whatif/self-patch", test_self_patch);
  g_test_add_func ("/whatif/resid-everything", test_resid_everything);
  g_test_add_func ("/whatif/no-positions/encoder", test_no_positions_encoder);
  g_test_add_func ("/whatif/no-positions/causal", test_no_positions_causal);
  g_test_add_func ("/whatif/zero-and-mean", test_zero_and_mean);
  g_test_add_func ("/whatif/bad-lists", test_bad_lists);
  return g_test_run ();
}

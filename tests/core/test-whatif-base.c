/* test-whatif-base.c — the scan and activation patching on a model that is already changed (a
 * base ablation, as the window's switched-off heads make it; as-ablation.h AsScanOptions), and a
 * patching run that is cancelled, on attnscope-mini:
 *   - each scanned head's effect equals the metric of a pass from the embeddings with the base
 *     set and that head switched off, less the base-ablated pass's; a head of the base set has
 *     the effect 0; zero and mean ablation;
 *   - patching each head from B into A with the base set switched off equals a pass from the
 *     embeddings with B's contexts (the base heads' replaced) in that head;
 *   - without options as_patch_with is bit for bit as_patch; cancelled from its progress after
 *     two parts it fails with AS_ERROR_CANCELLED and measures no further part;
 *   - the means refuse a text longer than the context, naming it. */
#include <math.h>
#include <string.h>

#include "as-ablation.h"
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
run (AsModel *m, const int32_t *ids, int n, const AsIntervention *iv)
{
  g_autoptr (GError) error = NULL;
  AsForwardOptions o = { .intervention = iv };
  AsTrace *t = as_forward (m, ids, n, &o, &error);
  g_assert_no_error (error);
  return t;
}

static AsTrace *
tokens (AsModel *m, const char *text)
{
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward_text (m, text, FALSE, NULL, &error);
  g_assert_no_error (error);
  return t;
}

static AsMetric
car_vs_man (AsModel *m)
{
  AsMetric metric = { .kind = AS_METRIC_LOGIT_DIFF };
  g_autoptr (GError) error = NULL;
  AsTokenizer *tk = as_model_get_tokenizer (m);
  g_assert_true (as_tokenizer_word_id (tk, " car", &metric.token_id, &error));
  g_assert_true (as_tokenizer_word_id (tk, " man", &metric.vs_id, &error));
  return metric;
}

static void
check_scan (AsAblationKind kind)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  const AsConfig *c = as_model_get_config (m);
  int L = c->n_layer, H = c->n_head;
  g_autoptr (AsAblationSet) set = as_ablation_set_new (L, H);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_ablation_set_parse (set, "0.1,1.0,mlp1", &error));
  g_autofree float *head_means = NULL, *mlp_means = NULL;
  char *texts[] = { "The cat sat on the mat.", "A dog ran in the park and barked", NULL };
  if (kind == AS_ABLATION_MEAN)
    g_assert_true (as_ablation_means (m, texts, 2, "texts", &head_means, &mlp_means, &error));
  g_autoptr (AsTrace) a = tokens (m, "The man hit the car because he was");
  AsMetric metric = car_vs_man (m);
  AsScanOptions so
      = { .kind = kind, .head_means = head_means, .mlp_means = mlp_means, .base = set };
  g_autofree double *effects = g_new (double, (gsize) L *H);
  double clean;
  AsScanStats st;
  g_assert_true (
      as_ablation_scan_with (m, a->ids, a->n_tokens, &metric, &so, effects, &clean, &st, &error));
  g_assert_no_error (error);
  g_assert_cmpint (st.passes, ==, 1 + L * H - 2); /* the two base heads are not run */
  AsIntervention base_iv = as_ablation_intervention (set, kind, head_means, mlp_means);
  g_autoptr (AsTrace) tb = run (m, a->ids, a->n_tokens, &base_iv);
  g_assert_cmpfloat (clean, ==, as_metric_value (&metric, tb));
  g_autoptr (AsTrace) tc = run (m, a->ids, a->n_tokens, NULL);
  g_assert_cmpfloat (clean, !=, as_metric_value (&metric, tc)); /* the base set changes it */
  g_autofree guint8 *heads = g_new (guint8, (gsize) L * H);
  for (int i = 0; i < L * H; i++)
    {
      if (set->heads[i])
        {
          g_assert_cmpfloat (effects[i], ==, 0.0);
          continue;
        }
      memcpy (heads, set->heads, (gsize) L * H);
      heads[i] = 1;
      AsIntervention iv = base_iv;
      iv.heads = heads;
      g_autoptr (AsTrace) t = run (m, a->ids, a->n_tokens, &iv);
      double want = as_metric_value (&metric, t) - clean;
      g_assert_cmpfloat_with_epsilon (effects[i], want, 1e-6 * MAX (1.0, fabs (want)));
    }
}

static void
test_scan_zero (void)
{
  check_scan (AS_ABLATION_ZERO);
}

static void
test_scan_mean (void)
{
  check_scan (AS_ABLATION_MEAN);
}

static void
test_patch_heads_base (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  const AsConfig *c = as_model_get_config (m);
  int L = c->n_layer, H = c->n_head, hd = c->head_dim;
  g_autoptr (AsAblationSet) set = as_ablation_set_new (L, H);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_ablation_set_parse (set, "0.2,1.3", &error));
  g_autoptr (AsTrace) a = tokens (m, "The man hit the car. The");
  g_autoptr (AsTrace) b = tokens (m, "The car hit the man. The");
  int T = a->n_tokens;
  g_assert_cmpint (T, ==, b->n_tokens);
  AsMetric metric = car_vs_man (m);
  AsScanOptions so = { .base = set };
  g_autofree double *effects = g_new (double, (gsize) L *H);
  AsPatchResult r;
  g_assert_true (
      as_patch_with (m, a->ids, b->ids, T, &metric, AS_PATCH_HEADS, &so, effects, &r, &error));
  g_assert_no_error (error);
  AsIntervention base_iv = as_ablation_intervention (set, AS_ABLATION_ZERO, NULL, NULL);
  g_autoptr (AsTrace) ta = run (m, a->ids, T, &base_iv);
  g_autoptr (AsTrace) tb = run (m, b->ids, T, &base_iv);
  double va = as_metric_value (&metric, ta), vb = as_metric_value (&metric, tb);
  g_assert_cmpfloat (r.base, ==, va);
  g_assert_cmpfloat (r.source, ==, vb);
  gsize n_ctx = (gsize) L * H * T * hd;
  g_autofree float *ctx = g_memdup2 (tb->ctx, sizeof (float) * n_ctx); /* [L][H][T][hd] */
  for (int i = 0; i < L * H; i++)
    if (set->heads[i])
      memset (ctx + (gsize) i * T * hd, 0, sizeof (float) * T * hd);
  g_autofree guint8 *heads = g_new (guint8, (gsize) L * H);
  for (int i = 0; i < L * H; i++)
    {
      memcpy (heads, set->heads, (gsize) L * H);
      heads[i] = 1;
      AsIntervention iv = { .heads = heads, .head_values = ctx };
      g_autoptr (AsTrace) t = run (m, a->ids, T, &iv);
      double want = (as_metric_value (&metric, t) - va) / (vb - va);
      if (set->heads[i])
        g_assert_cmpfloat (effects[i], ==, 0.0); /* switched off in both: nothing to patch */
      g_assert_cmpfloat_with_epsilon (effects[i], want, 1e-6 * MAX (1.0, fabs (want)));
    }
}

typedef struct
{
  GCancellable *cancellable;
  int calls, cancel_after;
} Watch;

static void
on_progress (int done, int total, gpointer user_data)
{
  Watch *w = user_data;
  w->calls++;
  g_assert_cmpint (done, ==, w->calls);
  if (w->cancel_after > 0 && done == w->cancel_after)
    g_cancellable_cancel (w->cancellable);
}

static void
test_patch_cancel (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  const AsConfig *c = as_model_get_config (m);
  g_autoptr (AsTrace) a = tokens (m, "The man hit the car. The");
  g_autoptr (AsTrace) b = tokens (m, "The car hit the man. The");
  int T = a->n_tokens;
  AsMetric metric = car_vs_man (m);
  gsize n = as_patch_n_effects (m, AS_PATCH_RESID, T);
  g_assert_cmpuint (n, ==, (gsize) c->n_layer * T);
  g_autofree double *plain = g_new (double, n), *watched = g_new (double, n);
  g_autoptr (GError) error = NULL;
  AsPatchResult r1, r2;
  g_assert_true (as_patch (m, a->ids, b->ids, T, &metric, AS_PATCH_RESID, plain, &r1, &error));
  /* watched, not cancelled: the same bits */
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  Watch w = { .cancellable = cancellable };
  AsScanOptions so = { .cancellable = cancellable, .progress = on_progress, .user_data = &w };
  g_assert_true (
      as_patch_with (m, a->ids, b->ids, T, &metric, AS_PATCH_RESID, &so, watched, &r2, &error));
  g_assert_no_error (error);
  g_assert_cmpint (w.calls, ==, (int) n);
  g_assert_cmpint (memcmp (plain, watched, sizeof (double) * n), ==, 0);
  g_assert_cmpfloat (r1.base, ==, r2.base);
  g_assert_cmpint (r1.stats.passes, ==, r2.stats.passes);
  /* cancelled after two parts: no third part is measured */
  w = (Watch){ .cancellable = cancellable, .cancel_after = 2 };
  g_assert_false (
      as_patch_with (m, a->ids, b->ids, T, &metric, AS_PATCH_RESID, &so, watched, &r2, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
  g_assert_cmpint (w.calls, ==, 2);
  g_clear_error (&error);
  /* cancelled before it starts: the first clean pass stops */
  w = (Watch){ .cancellable = cancellable };
  g_assert_false (
      as_patch_with (m, a->ids, b->ids, T, &metric, AS_PATCH_HEADS, &so, watched, &r2, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
  g_assert_cmpint (w.calls, ==, 0);
}

/* The measure's gap below which patching warns: the case from a real run, and its neighbours. */
static void
test_patch_small_gap (void)
{
  AsPatchResult r = { .base = -0.0950, .source = -0.0946 };
  g_assert_true (as_patch_gap_is_small (&r));
  r = (AsPatchResult){ .base = 0.5, .source = 2.0 };
  g_assert_false (as_patch_gap_is_small (&r));
  r = (AsPatchResult){ .base = 0.5, .source = 0.509 }; /* 0.009 < 0.01 · 1 */
  g_assert_true (as_patch_gap_is_small (&r));
  r = (AsPatchResult){ .base = 0.5, .source = 0.52 };
  g_assert_false (as_patch_gap_is_small (&r));
  r = (AsPatchResult){ .base = 100.0, .source = 100.5 }; /* 0.5 < 0.01 · 100.5 */
  g_assert_true (as_patch_gap_is_small (&r));
  r = (AsPatchResult){ .base = -100.0, .source = -98.0 };
  g_assert_false (as_patch_gap_is_small (&r));
}

static void
test_means_too_long (void)
{
  g_autoptr (AsModel) m = load ("attnscope-mini");
  const AsConfig *c = as_model_get_config (m);
  GString *s = g_string_new (NULL);
  for (int i = 0; i < c->n_positions + 8; i++)
    g_string_append (s, " the");
  char *texts[] = { "The cat sat.", s->str, NULL };
  g_autofree float *head_means = NULL, *mlp_means = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_false (as_ablation_means (m, texts, 2, "means.txt", &head_means, &mlp_means, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "means.txt text 2"));
  g_assert_null (head_means);
  g_string_free (s, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/whatif-base/scan-zero", test_scan_zero);
  g_test_add_func ("/whatif-base/scan-mean", test_scan_mean);
  g_test_add_func ("/whatif-base/patch-heads", test_patch_heads_base);
  g_test_add_func ("/whatif-base/patch-cancel", test_patch_cancel);
  g_test_add_func ("/whatif-base/patch-small-gap", test_patch_small_gap);
  g_test_add_func ("/whatif-base/means-too-long", test_means_too_long);
  return g_test_run ();
}

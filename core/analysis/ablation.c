/* ablation.c — switching heads and MLPs off and scanning every single head's effect
 * (as-ablation.h).
 *
 * The scan runs one clean pass over the text, keeps its residual stream at every layer's input
 * (AsTrace.hidden), and runs each ablated pass from the ablated head's layer on: the layers
 * before compute exactly what the clean pass did, so they are copied instead (prefix reuse; a
 * head of layer l costs L − l layers, not L). Every pass is the one forward driver's, so the
 * effects have the same bits for every thread count. */
#include "as-ablation.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "as-error.h"
#include "as-perplexity.h"
#include "scan-private.h"

AsAblationSet *
as_ablation_set_new (int n_layer, int n_head)
{
  AsAblationSet *set = g_new0 (AsAblationSet, 1);
  set->n_layer = n_layer;
  set->n_head = n_head;
  set->heads = g_new0 (guint8, (gsize) n_layer * n_head);
  set->mlps = g_new0 (guint8, n_layer);
  return set;
}

void
as_ablation_set_free (AsAblationSet *set)
{
  if (set == NULL)
    return;
  g_free (set->heads);
  g_free (set->mlps);
  g_free (set);
}

/* A non-negative decimal number filling TEXT into *VALUE. */
static gboolean
parse_index (const char *text, int *value)
{
  if (!g_ascii_isdigit (text[0]))
    return FALSE;
  char *end;
  errno = 0;
  long v = strtol (text, &end, 10);
  if (*end != '\0' || errno != 0 || v > G_MAXINT)
    return FALSE;
  *value = (int) v;
  return TRUE;
}

static gboolean
bad_form (const char *entry, GError **error)
{
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "--ablate: '%s' is neither LAYER.HEAD (e.g. 0.3) nor mlpLAYER (e.g. mlp3)", entry);
  return FALSE;
}

/* One entry "mlpL" into SET. */
static gboolean
parse_mlp (AsAblationSet *set, const char *entry, GError **error)
{
  int L = set->n_layer, layer;
  if (!parse_index (entry + 3, &layer))
    return bad_form (entry, error);
  if (layer >= L)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--ablate: '%s': the model has no layer %d (it has %d layers, 0–%d)", entry,
                   layer, L, L - 1);
      return FALSE;
    }
  set->n_mlps_off += !set->mlps[layer];
  set->mlps[layer] = 1;
  return TRUE;
}

/* One entry "l.h" or "mlpL" into SET. */
static gboolean
parse_entry (AsAblationSet *set, const char *entry, GError **error)
{
  if (g_str_has_prefix (entry, "mlp"))
    return parse_mlp (set, entry, error);
  int L = set->n_layer, H = set->n_head, layer, head;
  g_auto (GStrv) parts = g_strsplit (entry, ".", -1);
  if (g_strv_length (parts) != 2 || !parse_index (parts[0], &layer)
      || !parse_index (parts[1], &head))
    return bad_form (entry, error);
  if (layer >= L || head >= H)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--ablate: '%s': the model has no head %d.%d (it has %d layers of %d heads: "
                   "0.0–%d.%d)",
                   entry, layer, head, L, H, L - 1, H - 1);
      return FALSE;
    }
  set->n_heads_off += !set->heads[(gsize) layer * H + head];
  set->heads[(gsize) layer * H + head] = 1;
  return TRUE;
}

gboolean
as_ablation_set_parse (AsAblationSet *set, const char *spec, GError **error)
{
  g_auto (GStrv) entries = g_strsplit (spec, ",", -1);
  if (entries[0] == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--ablate: empty list (expected e.g. 0.3,2.5,mlp3)");
      return FALSE;
    }
  for (int i = 0; entries[i] != NULL; i++)
    if (!parse_entry (set, g_strstrip (entries[i]), error))
      return FALSE;
  return TRUE;
}

gboolean
as_ablation_kind_parse (const char *value, AsAblationKind *kind, GError **error)
{
  if (g_strcmp0 (value, "zero") == 0)
    *kind = AS_ABLATION_ZERO;
  else if (g_strcmp0 (value, "mean") == 0)
    *kind = AS_ABLATION_MEAN;
  else
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "--ablation: '%s' is not one of zero, mean",
                   value);
      return FALSE;
    }
  return TRUE;
}

/* Adds TRACE's contexts and MLP outputs (MLP [L][T][D]) summed over positions to the sums. */
static void
add_sums (double *head_sum, double *mlp_sum, const AsTrace *t, const float *mlp)
{
  int L = t->n_layer, H = t->n_head, T = t->n_tokens, hd = t->head_dim, D = t->d_model;
  for (int l = 0; l < L; l++)
    {
      for (int h = 0; h < H; h++)
        {
          const float *ctx = as_trace_head_vectors (t, t->ctx, l, h); /* [T][hd] */
          double *sum = head_sum + ((gsize) l * H + h) * hd;
          for (int i = 0; i < T; i++)
            for (int j = 0; j < hd; j++)
              sum[j] += ctx[(gsize) i * hd + j];
        }
      for (int i = 0; i < T; i++)
        for (int j = 0; j < D; j++)
          mlp_sum[(gsize) l * D + j] += mlp[((gsize) l * T + i) * D + j];
    }
}

static float *
divide (const double *sum, gsize n, gint64 count)
{
  float *out = g_new (float, n);
  for (gsize i = 0; i < n; i++)
    out[i] = (float) (sum[i] / (double) count);
  return out;
}

gboolean
as_ablation_means (AsModel *model, char *const *texts, int n_texts, const char *what,
                   float **head_means, float **mlp_means, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  if (n_texts <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s holds no text to average the heads and MLPs over", what);
      return FALSE;
    }
  int L = c->n_layer, H = c->n_head, hd = c->head_dim, D = c->n_embd;
  g_autofree double *head_sum = g_new0 (double, (gsize) L *H *hd); /* [L][H][hd] */
  g_autofree double *mlp_sum = g_new0 (double, (gsize) L *D);      /* [L][D] */
  gint64 count = 0;
  for (int i = 0; i < n_texts; i++)
    {
      g_autoptr (AsTrace) t0 = NULL;
      g_autoptr (GError) local = NULL;
      /* the MLP outputs are recorded in a buffer sized by the text's tokens: tokenize first */
      g_autoptr (AsTrace) sized = as_forward_text (model, texts[i], FALSE, NULL, &local);
      if (sized == NULL)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s text %d: ", what, i + 1);
          return FALSE;
        }
      int T = sized->n_tokens;
      g_autofree float *mlp = g_new0 (float, (gsize) L *T *D); /* [L][T][D] */
      AsIntervention iv = { .mlp_record = mlp };
      AsForwardOptions options = { .intervention = &iv };
      t0 = as_forward (model, sized->ids, T, &options, error);
      if (t0 == NULL)
        return FALSE;
      add_sums (head_sum, mlp_sum, t0, mlp);
      count += T;
    }
  *head_means = divide (head_sum, (gsize) L * H * hd, count);
  *mlp_means = divide (mlp_sum, (gsize) L * D, count);
  return TRUE;
}

AsIntervention
as_ablation_intervention (const AsAblationSet *set, AsAblationKind kind, const float *head_means,
                          const float *mlp_means)
{
  gboolean mean = kind == AS_ABLATION_MEAN;
  AsIntervention iv = {
    .heads = set->n_heads_off > 0 ? set->heads : NULL,
    .mlps = set->n_mlps_off > 0 ? set->mlps : NULL,
    .head_means = mean ? head_means : NULL,
    .mlp_means = mean ? mlp_means : NULL,
  };
  return iv;
}

gboolean
as_metric_all_logits (const AsMetric *metric)
{
  return metric->kind == AS_METRIC_LOSS;
}

double
as_metric_value (const AsMetric *metric, const AsTrace *t)
{
  const float *last = t->logits + (gsize) (t->logits_rows - 1) * t->vocab_size; /* [V] */
  switch (metric->kind)
    {
    case AS_METRIC_LOGIT:
      return last[metric->token_id];
    case AS_METRIC_LOGIT_DIFF:
      return (double) last[metric->token_id] - (double) last[metric->vs_id];
    case AS_METRIC_LOSS:
    default:
      {
        int n = t->n_tokens - 1;
        g_autofree double *lp = g_new (double, MAX (n, 1));
        if (!as_token_logprobs (lp, t, NULL))
          return NAN;
        /* lp[i] predicts the token at position i + 1 */
        int from = MAX (metric->loss_from, 1) - 1;
        double sum = 0;
        for (int i = from; i < n; i++)
          sum -= lp[i];
        return sum / (n - from);
      }
    }
}

/* Fails when METRIC cannot be measured on a pass of MODEL over N_IDS tokens. */
static gboolean
check_metric (AsModel *model, const AsMetric *metric, int n_ids, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  if (!c->causal_lm && !c->masked_lm)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the model has no language-model head: there is no logit to measure");
      return FALSE;
    }
  if (metric->kind == AS_METRIC_LOSS && (!c->causal_lm || n_ids < 2 || metric->loss_from >= n_ids))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--loss needs a model that predicts the next token and a text of at least 2 "
                   "tokens, more than --loss-from %d (it has %d)",
                   metric->loss_from, n_ids);
      return FALSE;
    }
  return TRUE;
}

gboolean
as_ablation_scan (AsModel *model, const int32_t *ids, int n_ids, const AsMetric *metric,
                  AsAblationKind kind, const float *head_means, const float *mlp_means,
                  double *effects, double *clean, AsScanStats *stats, GError **error)
{
  return as_ablation_scan_full (model, ids, n_ids, metric, kind, head_means, mlp_means, NULL, NULL,
                                NULL, effects, clean, stats, error);
}

gboolean
as_ablation_scan_full (AsModel *model, const int32_t *ids, int n_ids, const AsMetric *metric,
                       AsAblationKind kind, const float *head_means, const float *mlp_means,
                       GCancellable *cancellable, AsScanProgress progress, gpointer user_data,
                       double *effects, double *clean, AsScanStats *stats, GError **error)
{
  AsScanOptions o = { .kind = kind,
                      .head_means = head_means,
                      .mlp_means = mlp_means,
                      .cancellable = cancellable,
                      .progress = progress,
                      .user_data = user_data };
  return as_ablation_scan_with (model, ids, n_ids, metric, &o, effects, clean, stats, error);
}

gboolean
as_scan_cancelled (const AsScanOptions *o, GError **error)
{
  if (o->cancellable == NULL || !g_cancellable_is_cancelled (o->cancellable))
    return FALSE;
  g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the run was cancelled");
  return TRUE;
}

AsIntervention
as_scan_base_intervention (const AsScanOptions *o, guint8 *heads, int n_layer, int n_head)
{
  const AsAblationSet *base = o->base;
  gboolean mean = o->kind == AS_ABLATION_MEAN;
  if (base != NULL && base->n_heads_off > 0)
    memcpy (heads, base->heads, (gsize) n_layer * n_head);
  AsIntervention iv = {
    .heads = base != NULL && base->n_heads_off > 0 ? heads : NULL,
    .mlps = base != NULL && base->n_mlps_off > 0 ? base->mlps : NULL,
    .head_means = mean ? o->head_means : NULL,
    .mlp_means = mean ? o->mlp_means : NULL,
  };
  return iv;
}

gboolean
as_ablation_scan_with (AsModel *model, const int32_t *ids, int n_ids, const AsMetric *metric,
                       const AsScanOptions *options, double *effects, double *clean,
                       AsScanStats *stats, GError **error)
{
  static const AsScanOptions none = { 0 };
  const AsScanOptions *so = options != NULL ? options : &none;
  const AsConfig *c = as_model_get_config (model);
  if (!check_metric (model, metric, n_ids, error))
    return FALSE;
  int L = c->n_layer, H = c->n_head;
  g_autofree guint8 *heads = g_new0 (guint8, (gsize) L * H); /* [L][H] base ∪ the scanned head */
  AsIntervention base_iv = as_scan_base_intervention (so, heads, L, H);
  AsForwardOptions options_clean = { .all_logits = as_metric_all_logits (metric),
                                     .cancellable = so->cancellable,
                                     .no_positions = so->no_positions };
  if (base_iv.heads != NULL || base_iv.mlps != NULL)
    options_clean.intervention = &base_iv;
  g_autoptr (AsTrace) base = as_forward (model, ids, n_ids, &options_clean, error);
  if (base == NULL)
    return FALSE;
  *clean = as_metric_value (metric, base);
  if (so->progress != NULL)
    so->progress (0, L * H, so->user_data);
  AsScanStats st = { .passes = 1, .layers_computed = L, .layers_full = L };
  for (int l = 0; l < L; l++)
    for (int h = 0; h < H; h++)
      {
        gsize at = (gsize) l * H + h;
        if (heads[at])
          effects[at] = 0; /* switched off already */
        else
          {
            heads[at] = 1;
            AsIntervention iv = base_iv;
            iv.heads = heads;
            iv.start_layer = l;
            iv.start_hidden = base->hidden;
            AsForwardOptions o = options_clean;
            o.intervention = &iv;
            g_autoptr (AsTrace) t = as_forward (model, ids, n_ids, &o, error);
            heads[at] = 0;
            if (t == NULL)
              return FALSE;
            effects[at] = as_metric_value (metric, t) - *clean;
            st.passes++;
            st.layers_computed += L - l;
            st.layers_full += L;
          }
        if (so->progress != NULL)
          so->progress ((int) at + 1, L * H, so->user_data);
      }
  if (stats != NULL)
    *stats = st;
  return TRUE;
}

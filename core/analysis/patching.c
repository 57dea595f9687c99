/* patching.c — activation patching between two texts (as-patching.h).
 *
 * Two clean passes give everything that is patched: the source's contexts (AsTrace.ctx), MLP
 * outputs (recorded by the intervention) and residual stream (AsTrace.hidden); the base's
 * residual stream is where each patched pass starts (prefix reuse: patching layer l computes
 * only the layers from l on). */
#include "as-patching.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "scan-private.h"

gboolean
as_patch_what_parse (const char *value, AsPatchWhat *what, GError **error)
{
  static const char *const names[] = { "heads", "mlps", "resid" };
  for (int i = 0; i < 3; i++)
    if (g_strcmp0 (value, names[i]) == 0)
      {
        *what = (AsPatchWhat) i;
        return TRUE;
      }
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "--what: '%s' is not one of heads, mlps, resid",
               value);
  return FALSE;
}

gsize
as_patch_n_effects (const AsModel *model, AsPatchWhat what, int n_ids)
{
  const AsConfig *c = as_model_get_config (model);
  switch (what)
    {
    case AS_PATCH_HEADS:
      return (gsize) c->n_layer * c->n_head;
    case AS_PATCH_MLPS:
      return c->n_layer;
    case AS_PATCH_RESID:
    default:
      return (gsize) c->n_layer * n_ids;
    }
}

/* A clean pass over IDS with BASE_IV (its heads or MLPs may be NULL) that records its MLP
 * outputs into MLP [L][T][D]. */
static AsTrace *
clean_pass (AsModel *model, const int32_t *ids, int n_ids, const AsIntervention *base_iv,
            const AsScanOptions *so, float *mlp, GError **error)
{
  AsIntervention iv = *base_iv;
  iv.mlp_record = mlp;
  AsForwardOptions options
      = { .intervention = &iv, .cancellable = so->cancellable, .no_positions = so->no_positions };
  return as_forward (model, ids, n_ids, &options, error);
}

/* The source's values of the parts BASE_IV switches off set to what replaces them there (the
 * recorded MLP outputs are those before any replacement), so that a part both patched and
 * switched off stays switched off. CTX [L][H][T][hd], MLP [L][T][D]. */
static void
ablate_source (const AsIntervention *base_iv, const AsConfig *c, int T, float *ctx, float *mlp)
{
  int L = c->n_layer, H = c->n_head, hd = c->head_dim, D = c->n_embd;
  for (int l = 0; l < L; l++)
    {
      for (int h = 0; base_iv->heads != NULL && h < H; h++)
        {
          gsize head = (gsize) l * H + h;
          if (!base_iv->heads[head])
            continue;
          for (int i = 0; i < T; i++)
            {
              float *row = ctx + (head * T + i) * hd;
              if (base_iv->head_means != NULL)
                memcpy (row, base_iv->head_means + head * hd, sizeof (float) * hd);
              else
                memset (row, 0, sizeof (float) * hd);
            }
        }
      if (base_iv->mlps == NULL || !base_iv->mlps[l])
        continue;
      for (int i = 0; i < T; i++)
        {
          float *row = mlp + ((gsize) l * T + i) * D;
          if (base_iv->mlp_means != NULL)
            memcpy (row, base_iv->mlp_means + (gsize) l * D, sizeof (float) * D);
          else
            memset (row, 0, sizeof (float) * D);
        }
    }
}

/* The intervention of part I of WHAT: *FIRST its layer. Masks are the caller's zeroed arrays. */
static void
select_part (AsPatchWhat what, gsize i, int H, int T, guint8 *heads, guint8 *mlps, guint8 *resid,
             int *layer)
{
  switch (what)
    {
    case AS_PATCH_HEADS:
      heads[i] = 1;
      *layer = (int) (i / H);
      break;
    case AS_PATCH_MLPS:
      mlps[i] = 1;
      *layer = (int) i;
      break;
    case AS_PATCH_RESID:
    default:
      resid[i] = 1;
      *layer = (int) (i / T);
      break;
    }
}

gboolean
as_patch (AsModel *model, const int32_t *base, const int32_t *source, int n_ids,
          const AsMetric *metric, AsPatchWhat what, double *effects, AsPatchResult *result,
          GError **error)
{
  return as_patch_with (model, base, source, n_ids, metric, what, NULL, effects, result, error);
}

gboolean
as_patch_with (AsModel *model, const int32_t *base, const int32_t *source, int n_ids,
               const AsMetric *metric, AsPatchWhat what, const AsScanOptions *options,
               double *effects, AsPatchResult *result, GError **error)
{
  static const AsScanOptions none = { 0 };
  const AsScanOptions *so = options != NULL ? options : &none;
  const AsConfig *c = as_model_get_config (model);
  if (metric->kind == AS_METRIC_LOSS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "patching measures a logit or a logit difference, not the loss");
      return FALSE;
    }
  int L = c->n_layer, H = c->n_head, T = n_ids, D = c->n_embd;
  g_autofree guint8 *heads = g_new0 (guint8, (gsize) L * H); /* [L][H] base ∪ the patched head */
  AsIntervention base_iv = as_scan_base_intervention (so, heads, L, H);
  g_autofree float *mlp_b = g_new (float, (gsize) L *T *D); /* [L][T][D] */
  g_autofree float *mlp_a = g_new (float, (gsize) L *T *D); /* [L][T][D] */
  g_autoptr (AsTrace) ta = clean_pass (model, base, n_ids, &base_iv, so, mlp_a, error);
  if (ta == NULL)
    return FALSE;
  g_autoptr (AsTrace) tb = clean_pass (model, source, n_ids, &base_iv, so, mlp_b, error);
  if (tb == NULL)
    return FALSE;
  ablate_source (&base_iv, c, T, tb->ctx, mlp_b);
  double va = as_metric_value (metric, ta), vb = as_metric_value (metric, tb);
  if (va == vb)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the measure is the same on both texts (%g): nothing to normalise by", va);
      return FALSE;
    }
  gsize n = as_patch_n_effects (model, what, n_ids);
  g_autofree guint8 *mlps = g_new0 (guint8, L);              /* [L] */
  g_autofree guint8 *resid = g_new0 (guint8, (gsize) L * T); /* [L][T] */
  if (base_iv.mlps != NULL)
    memcpy (mlps, base_iv.mlps, L);
  AsScanStats st = { .passes = 2, .layers_computed = 2 * L, .layers_full = 2 * L };
  for (gsize i = 0; i < n; i++)
    {
      if (as_scan_cancelled (so, error))
        return FALSE;
      int layer;
      guint8 head_was = what == AS_PATCH_HEADS ? heads[i] : 0;
      guint8 mlp_was = what == AS_PATCH_MLPS ? mlps[i] : 0;
      select_part (what, i, H, T, heads, mlps, resid, &layer);
      AsIntervention iv = {
        .heads = what == AS_PATCH_HEADS || base_iv.heads != NULL ? heads : NULL,
        .head_values = tb->ctx,
        .mlps = what == AS_PATCH_MLPS || base_iv.mlps != NULL ? mlps : NULL,
        .mlp_values = mlp_b,
        .resid = what == AS_PATCH_RESID ? resid : NULL,
        .resid_values = tb->hidden,
        .start_layer = layer,
        .start_hidden = ta->hidden,
      };
      AsForwardOptions fo = { .intervention = &iv,
                              .cancellable = so->cancellable,
                              .no_positions = so->no_positions };
      g_autoptr (AsTrace) t = as_forward (model, base, n_ids, &fo, error);
      if (what == AS_PATCH_HEADS)
        heads[i] = head_was;
      else if (what == AS_PATCH_MLPS)
        mlps[i] = mlp_was;
      else
        resid[i] = 0;
      if (t == NULL)
        return FALSE;
      effects[i] = (as_metric_value (metric, t) - va) / (vb - va);
      st.passes++;
      st.layers_computed += L - layer;
      st.layers_full += L;
      if (so->progress != NULL)
        so->progress ((int) i + 1, (int) n, so->user_data);
    }
  if (result != NULL)
    *result = (AsPatchResult){ .base = va, .source = vb, .stats = st };
  return TRUE;
}

gboolean
as_patch_gap_is_small (const AsPatchResult *result)
{
  double scale = fmax (1.0, fmax (fabs (result->base), fabs (result->source)));
  return fabs (result->source - result->base) < AS_PATCH_SMALL_GAP * scale;
}

/* patching.c — activation patching between two texts (as-patching.h).
 *
 * Two clean passes give everything that is patched: the source's contexts (AsTrace.ctx), MLP
 * outputs (recorded by the intervention) and residual stream (AsTrace.hidden); the base's
 * residual stream is where each patched pass starts (prefix reuse: patching layer l computes
 * only the layers from l on). */
#include "as-patching.h"

#include <string.h>

#include "as-error.h"

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

/* A clean pass over IDS that records its MLP outputs into MLP [L][T][D]. */
static AsTrace *
clean_pass (AsModel *model, const int32_t *ids, int n_ids, float *mlp, GError **error)
{
  AsIntervention iv = { .mlp_record = mlp };
  AsForwardOptions options = { .intervention = &iv };
  return as_forward (model, ids, n_ids, &options, error);
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
  const AsConfig *c = as_model_get_config (model);
  if (metric->kind == AS_METRIC_LOSS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "patching measures a logit or a logit difference, not the loss");
      return FALSE;
    }
  int L = c->n_layer, H = c->n_head, T = n_ids, D = c->n_embd;
  g_autofree float *mlp_b = g_new (float, (gsize) L *T *D); /* [L][T][D] */
  g_autofree float *mlp_a = g_new (float, (gsize) L *T *D); /* [L][T][D] */
  g_autoptr (AsTrace) ta = clean_pass (model, base, n_ids, mlp_a, error);
  if (ta == NULL)
    return FALSE;
  g_autoptr (AsTrace) tb = clean_pass (model, source, n_ids, mlp_b, error);
  if (tb == NULL)
    return FALSE;
  double va = as_metric_value (metric, ta), vb = as_metric_value (metric, tb);
  if (va == vb)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the measure is the same on both texts (%g): nothing to normalise by", va);
      return FALSE;
    }
  gsize n = as_patch_n_effects (model, what, n_ids);
  g_autofree guint8 *heads = g_new0 (guint8, (gsize) L * H);
  g_autofree guint8 *mlps = g_new0 (guint8, L);
  g_autofree guint8 *resid = g_new0 (guint8, (gsize) L * T);
  AsScanStats st = { .passes = 2, .layers_computed = 2 * L, .layers_full = 2 * L };
  for (gsize i = 0; i < n; i++)
    {
      int layer;
      select_part (what, i, H, T, heads, mlps, resid, &layer);
      AsIntervention iv = {
        .heads = what == AS_PATCH_HEADS ? heads : NULL,
        .head_values = tb->ctx,
        .mlps = what == AS_PATCH_MLPS ? mlps : NULL,
        .mlp_values = mlp_b,
        .resid = what == AS_PATCH_RESID ? resid : NULL,
        .resid_values = tb->hidden,
        .start_layer = layer,
        .start_hidden = ta->hidden,
      };
      AsForwardOptions options = { .intervention = &iv };
      g_autoptr (AsTrace) t = as_forward (model, base, n_ids, &options, error);
      memset (heads, 0, (gsize) L * H);
      memset (mlps, 0, L);
      memset (resid, 0, (gsize) L * T);
      if (t == NULL)
        return FALSE;
      effects[i] = (as_metric_value (metric, t) - va) / (vb - va);
      st.passes++;
      st.layers_computed += L - layer;
      st.layers_full += L;
    }
  if (result != NULL)
    *result = (AsPatchResult){ .base = va, .source = vb, .stats = st };
  return TRUE;
}

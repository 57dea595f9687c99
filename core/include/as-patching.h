/* as-patching.h — activation patching between two texts of the same number of tokens: each
 * head's output, each MLP's output, or the residual stream at each (layer, position) taken from
 * the source pass into the base pass, and what that does to a logit difference. */
#pragma once

#include "as-ablation.h"

G_BEGIN_DECLS

typedef enum
{
  AS_PATCH_HEADS, /* effects [L][H] */
  AS_PATCH_MLPS,  /* effects [L] */
  AS_PATCH_RESID, /* effects [L][T] */
} AsPatchWhat;

/* "heads", "mlps" or "resid" into *WHAT; fails naming VALUE and the choices. */
gboolean as_patch_what_parse (const char *value, AsPatchWhat *what, GError **error);

typedef struct
{
  double base, source; /* METRIC on the clean base and source passes */
  AsScanStats stats;
} AsPatchResult;

/* The measure's gap between the texts below which the normalised effects are noise: a fraction
 * of the larger of 1 and the two values (a logit difference of −0.0950 against −0.0946 divides
 * every effect by 0.0004). */
#define AS_PATCH_SMALL_GAP 0.01

/* TRUE when RESULT's source and base differ by less than AS_PATCH_SMALL_GAP of the larger of 1,
 * |base| and |source|: the effects are still computed, but callers warn that they are unstable. */
gboolean as_patch_gap_is_small (const AsPatchResult *result);

/* Patches each part WHAT names, one at a time, from the pass over SOURCE into the pass over
 * BASE (both N_IDS tokens) of MODEL and writes to EFFECTS the normalised change of METRIC:
 * (patched − base) / (source − base), 0 = BASE's value, 1 = SOURCE's. Each patched pass starts at
 * the patched layer from BASE's residual stream. Fails as as_forward does, and (AS_ERROR_INPUT)
 * when METRIC is the same on both texts (nothing to normalise by) or is the loss. */
gboolean as_patch (AsModel *model, const int32_t *base, const int32_t *source, int n_ids,
                   const AsMetric *metric, AsPatchWhat what, double *effects, AsPatchResult *result,
                   GError **error);

/* The number of effects as_patch writes for WHAT on MODEL over N_IDS tokens. */
gsize as_patch_n_effects (const AsModel *model, AsPatchWhat what, int n_ids);

/* As as_patch with OPTIONS (may be NULL; as-ablation.h): OPTIONS' base ablation is made in both
 * clean passes and in every patched pass (the patched part takes the source's value, a
 * switched-off one its ablation's), its positions choice in every pass; a cancelled run fails
 * (AS_ERROR_CANCELLED) between passes or layers, PROGRESS is told DONE of TOTAL parts after
 * each patched pass. Without options the result is bit for bit as_patch's. */
gboolean as_patch_with (AsModel *model, const int32_t *base, const int32_t *source, int n_ids,
                        const AsMetric *metric, AsPatchWhat what, const AsScanOptions *options,
                        double *effects, AsPatchResult *result, GError **error);

G_END_DECLS

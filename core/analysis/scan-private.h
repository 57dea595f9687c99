/* scan-private.h — what the ablation scan and activation patching share: the base ablation every
 * pass makes and the cancellation between passes (as-ablation.h AsScanOptions). */
#pragma once

#include "as-ablation.h"

G_BEGIN_DECLS

/* TRUE (and ERROR set, AS_ERROR_CANCELLED) when O's cancellable is cancelled. */
gboolean as_scan_cancelled (const AsScanOptions *o, GError **error);

/* The intervention of O's base ablation, its heads copied into HEADS [N_LAYER][N_HEAD] (the
 * caller's zeroed mask, which the caller may add a head to; the intervention points at it). Its
 * heads and mlps are NULL when O has no base ablation. */
AsIntervention as_scan_base_intervention (const AsScanOptions *o, guint8 *heads, int n_layer,
                                          int n_head);

G_END_DECLS

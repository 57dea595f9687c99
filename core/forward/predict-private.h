/* predict-private.h — the order predictions are ranked in, and the top-K selection alone, for
 * readers that rank a row in pieces (read-out-ranked.c). Private to the core. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Is (LA, IA) ranked before (LB, IB)? Higher logit first, then lower id. */
static inline gboolean
as_predict_ranks_before (float la, int32_t ia, float lb, int32_t ib)
{
  return la > lb || (la == lb && ia < ib);
}

/* The K (or V, when smaller) best ids of LOGITS [V] into BEST [K], best first; returns how many
 * (as_predict_top_k_ids without the probabilities). */
int as_predict_best_ids (const float *logits, int V, int k, int32_t *best);

G_END_DECLS

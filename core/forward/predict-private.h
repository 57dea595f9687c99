/* predict-private.h — the order predictions are ranked in, for readers that rank a row in pieces
 * (read-out-ranked-unit.c). Private to the core. */
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

G_END_DECLS

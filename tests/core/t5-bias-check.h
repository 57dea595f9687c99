/* t5-bias-check.h — checks of a trace's T5 relative position bias through every reader
 * (as_trace_position_bias_head, _tile, _row, _entry), shared by the T5 tests. */
#pragma once

#include "as-trace.h"

G_BEGIN_DECLS

/* Every head of LAYER of T: the whole [T][T] within EPS of WANT [H][T][T] (the reference's
 * bias), and every entry, a tile across the diagonal (into a wider LD) and every row the same
 * bits as the whole head. Fails the test otherwise. */
void t5_check_position_bias (const AsTrace *t, int layer, const float *want, double eps);

G_END_DECLS

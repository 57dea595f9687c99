/* as-rank.h — ordering items by a score, the one ranking rule every analysis uses. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Indices 0..N-1 sorted by decreasing VALUES [N]; NaN values last; ties keep the lower index
 * first. Returns [MAX (N, 1)] ints; free with g_free. */
int *as_rank_descending (const double *values, int n);

G_END_DECLS

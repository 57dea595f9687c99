/* as-unique-rows.h — the distinct rows of a matrix.
 *
 * Identical input vectors should land on one point of a projection, and for the neighbour-graph
 * methods they must be merged first: a token that occurs more often than UMAP has neighbours
 * would otherwise see only its own copies, at distance 0, and form a graph component of its
 * own (umap-learn's `unique` option exists for the same reason). `attnscope project` projects
 * the distinct rows and gives every copy the point of its row: the token embeddings of one token
 * in many texts are one point. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The distinct rows of X [n][d] (bit for bit), in the order of their first occurrence: returns
 * them as a new [*n_unique][d] matrix (free with g_free) and fills INVERSE [n] with the index of
 * every row's distinct row. */
float *as_unique_rows (const float *x, int n, int d, int *inverse, int *n_unique);

G_END_DECLS

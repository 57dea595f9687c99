/* as-similarity.h — cosine similarity between the vectors of a trace, and the seed's comparison
 * table (one token's similarity to every other token next to the attention it gives them).
 *
 * cos(a, b) = a·b / (|a|·|b|), accumulated in double. A zero vector has no direction: its
 * similarity to every vector, itself included, is defined as 0 (torch.nn.functional.
 * cosine_similarity, which the seeds use, also gives 0 there). Every other vector has
 * similarity 1 with itself. */
#pragma once

#include <glib.h>

#include "as-trace-vectors.h"

G_BEGIN_DECLS

/* Cosine similarity of A [DIM] and B [DIM] in double; 0 when either is the zero vector. */
double as_cosine_similarity (const float *a, const float *b, int dim);

/* OUT [N][N] = cosine similarity of every pair of rows of VECTORS [N][DIM] (symmetric). */
void as_cosine_similarity_matrix (float *out, const float *vectors, int n, int dim);

/* The [T][T] similarity matrix of a vector set of TRACE (see as_trace_vectors_get for SOURCE,
 * LAYER, HEAD and the errors). Free with g_free. */
float *as_trace_similarity (const AsTrace *trace, AsVectorSource source, int layer, int head,
                            GError **error);

/* One row of the comparison table for query token i. */
typedef struct
{
  int index;        /* the other token j */
  float similarity; /* cos(v_i, v_j) */
  float attention;  /* P[i][j]: the weight query i gives key j (row i of the attention matrix) */
} AsSimilarityRow;

/* The seed's table for TOKEN i: one row for every j != i in token order, from SIMILARITY [T][T]
 * and ATTENTION [T][T] (rows = queries). Returns T-1 rows (*N_ROWS); free with g_free. TOKEN must
 * be in 0..T-1 (programmer error otherwise; callers validate user input with
 * as_similarity_check_token). */
AsSimilarityRow *as_similarity_table (const float *similarity, const float *attention, int n_tokens,
                                      int token, int *n_rows);

/* Fails with AS_ERROR_INPUT naming TOKEN and the valid range 0..T-1. */
gboolean as_similarity_check_token (int token, int n_tokens, GError **error);

G_END_DECLS

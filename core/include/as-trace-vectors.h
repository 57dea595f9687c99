/* as-trace-vectors.h — choosing one set of T vectors from a trace for analysis.
 *
 * The similarity tables and the projections (PCA, t-SNE) work on one vector per token. A trace
 * holds several such sets; AsVectorSource names them, and as_trace_vectors_get() validates the
 * layer and head for the source and returns a borrowed [T][dim] view into the trace. Errors name
 * the bad layer or head and the valid range. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

typedef enum
{
  AS_VECTORS_EMBEDDINGS,       /* hidden[0]: token + position embeddings; LAYER and HEAD ignored */
  AS_VECTORS_CONTEXTS,         /* ctx of layer LAYER (0..L-1), head HEAD (0..H-1): [T][hd] */
  AS_VECTORS_ATTN_OUT,         /* output of the attention block of layer LAYER (0..L-1): [T][D] */
  AS_VECTORS_HIDDEN,           /* hidden[LAYER], LAYER in 0..L (L = after the final norm): [T][D] */
  AS_VECTORS_TOKEN_EMBEDDINGS, /* the token embeddings before positions are added (the trace's
                                * token_embeddings): one vector per vocabulary entry, the same in
                                * every text; LAYER and HEAD ignored. [T][D] */
} AsVectorSource;

/* "embeddings", "contexts", "attn_out", "hidden", "token-embeddings". */
const char *as_vector_source_to_string (AsVectorSource source);

/* Parses NAME (one of the strings above); fails with AS_ERROR_INPUT listing the valid names. */
gboolean as_vector_source_from_string (const char *name, AsVectorSource *source, GError **error);

/* TRUE when SOURCE needs a head (only AS_VECTORS_CONTEXTS). */
gboolean as_vector_source_needs_head (AsVectorSource source);

/* TRUE when SOURCE needs a layer (contexts, attn_out, hidden). */
gboolean as_vector_source_needs_layer (AsVectorSource source);

/* Validates LAYER for SOURCE, and HEAD when SOURCE needs one or HEAD >= 0 (HEAD = -1 means "no
 * head" for the other sources). Fails with AS_ERROR_INPUT naming the layer or head and the valid
 * range, or saying that the trace has no token embeddings (a family that does not provide
 * them). */
gboolean as_trace_vectors_check (const AsTrace *trace, AsVectorSource source, int layer, int head,
                                 GError **error);

/* The vectors of SOURCE at LAYER/HEAD: a borrowed pointer into TRACE, [*N_ROWS][*DIM] row-major
 * (*N_ROWS = T). LAYER is ignored for embeddings; HEAD selects the head of contexts and must be
 * -1 (or a valid head, which is then unused) for the other sources. Validates with
 * as_trace_vectors_check. */
const float *as_trace_vectors_get (const AsTrace *trace, AsVectorSource source, int layer, int head,
                                   int *n_rows, int *dim, GError **error);

/* The attention weights that belong with the vectors of SOURCE at LAYER/HEAD, written to OUT
 * [T][T] (rows = queries): the attention that produced them —
 *   contexts (l, h):       P[l][h];
 *   attn_out (l):          P[l][HEAD], or the mean over heads when HEAD < 0;
 *   hidden (l), l >= 1:    block l-1 (whose output hidden[l] is), HEAD or the mean over heads;
 *   embeddings, hidden 0,
 *   token-embeddings:      block 0, the first block, which reads them (no block produced them).
 * Validates with as_trace_vectors_check (HEAD may be -1 except for contexts). */
gboolean as_trace_vectors_attention (float *out, const AsTrace *trace, AsVectorSource source,
                                     int layer, int head, GError **error);

G_END_DECLS

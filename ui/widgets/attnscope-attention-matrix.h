/* attnscope-attention-matrix.h — the attention matrix the session's view selection names for a
 * trace (one head, the mean over the layer's heads, or the rollout through the layer) and its
 * title; shared by the attention and compare views. */
#pragma once

#include "attnscope-session.h"

G_BEGIN_DECLS

/* The [T][T] matrix for TRACE at the session's layer and head. ROLLOUT is TRACE's [L][T][T]
 * rollout (needed only for the rollout aggregation). *OWNED receives memory the caller frees
 * (NULL when the matrix points into TRACE or ROLLOUT). */
const float *attnscope_attention_matrix (AttnscopeSession *session, const AsTrace *trace,
                                         const float *rollout, float **owned);

/* "Layer 1 · head 0", "Layer 1 · mean over 12 heads", "Attention rollout through layer 1". */
char *attnscope_attention_title (AttnscopeSession *session);

G_END_DECLS

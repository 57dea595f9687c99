/* attribution-seq2seq-private.h — direct logit attribution for an encoder–decoder's decoder
 * (attribution-seq2seq.c), which as_attribution_compute hands a trace with a source. */
#pragma once

#include "as-attribution.h"

G_BEGIN_DECLS

/* Whether MODEL's decoder stack can be replayed (AsStack.replay). */
gboolean as_attribution_seq2seq_supported (AsModel *model);

/* as_attribution_compute for TRACE, a decoder trace with its source; the request is checked. */
AsAttribution *as_attribution_seq2seq_compute (AsModel *model, const AsTrace *trace, int position,
                                               int32_t target_id, int32_t vs_id, GError **error);

G_END_DECLS

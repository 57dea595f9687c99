/* gpt2-forward.h — the GPT-2 forward pass with full capture (private to the core; callers use
 * as_forward() from as-forward.h, which validates the input first). */
#pragma once

#include "as-forward.h"

G_BEGIN_DECLS

/* IDS are already validated: 1 ≤ N_IDS ≤ n_positions, every id < vocab_size. */
AsTrace *as_gpt2_forward (AsModel *model, const int32_t *ids, int n_ids,
                          const AsForwardOptions *options, GError **error);

/* Bytes of scratch memory the pass needs besides the trace. */
guint64 as_gpt2_scratch_bytes (const AsConfig *config, int n_tokens);

G_END_DECLS

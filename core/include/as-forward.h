/* as-forward.h — one forward pass with full capture. */
#pragma once

#include <gio/gio.h>

#include "as-model.h"
#include "as-trace.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean all_logits;       /* logits for every position, not only the last */
  GCancellable *cancellable; /* checked between layers; may be NULL */
} AsForwardOptions;

/* Runs MODEL on IDS[0..N_IDS-1] and returns the full trace. Fails on: no ids, an id outside the
 * vocabulary, more ids than the context length (message names both numbers), a trace that would
 * not fit in memory, cancellation. OPTIONS may be NULL. */
AsTrace *as_forward (AsModel *model, const int32_t *ids, int n_ids, const AsForwardOptions *options,
                     GError **error);

/* Tokenizes TEXT exactly as HF's tokenizer(text) (as_tokenizer_encode: the model's special
 * tokens added, e.g. a Llama <s>; nothing for GPT-2) and runs the forward pass. Fails on empty
 * text, invalid UTF-8, and text longer than the context unless TRUNCATE (then the first
 * n_positions tokens are kept). */
AsTrace *as_forward_text (AsModel *model, const char *text, gboolean truncate,
                          const AsForwardOptions *options, GError **error);

/* Threads a forward pass uses: $ATTNSCOPE_THREADS when set (≥ 1), else the number of
 * processors. */
int as_forward_threads (void);

G_END_DECLS

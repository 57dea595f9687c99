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
  gboolean capture_qkv;      /* keep every head's q, k and v in the trace (AsTrace.q/k/v), which
                              * takes 3·L·H·T·hd floats more; off: they are NULL */
} AsForwardOptions;

/* The shape of the trace a pass of MODEL over N_TOKENS makes with OPTIONS (may be NULL). */
AsTraceShape as_forward_trace_shape (const AsModel *model, int n_tokens,
                                     const AsForwardOptions *options);

/* Bytes a pass of MODEL over N_TOKENS needs: its trace plus the family's working memory. */
guint64 as_forward_bytes (const AsModel *model, int n_tokens, const AsForwardOptions *options);

/* The most tokens (at most the context length) whose pass fits in BUDGET bytes; 0 when not even
 * one token does. */
int as_forward_max_tokens (const AsModel *model, const AsForwardOptions *options, guint64 budget);

/* The memory a pass may use now: as_memory_budget() less the model's mapped weight files, which
 * must stay in memory (their pages count as reclaimable in MemAvailable). With
 * $ATTNSCOPE_MEMORY_LIMIT set, that limit less everything held (weights, other traces). */
guint64 as_forward_budget (const AsModel *model);

/* Runs MODEL on IDS[0..N_IDS-1] and returns the full trace. Fails on: no ids, an id outside the
 * vocabulary, more ids than the context length (message names both numbers), a trace that would
 * not fit in memory (message names both sizes and how many tokens would fit), cancellation.
 * OPTIONS may be NULL. */
AsTrace *as_forward (AsModel *model, const int32_t *ids, int n_ids, const AsForwardOptions *options,
                     GError **error);

/* Tokenizes TEXT exactly as HF's tokenizer(text) (as_tokenizer_encode: the model's special
 * tokens added, e.g. a Llama <s>; nothing for GPT-2) and runs the forward pass. Fails on empty
 * text, invalid UTF-8, a model without a tokenizer (it runs on ids only), and text longer than the
 * context unless TRUNCATE (then the first n_positions tokens are kept). */
AsTrace *as_forward_text (AsModel *model, const char *text, gboolean truncate,
                          const AsForwardOptions *options, GError **error);

/* Threads a forward pass uses: $ATTNSCOPE_THREADS when set (≥ 1), else the number of
 * processors. */
int as_forward_threads (void);

G_END_DECLS

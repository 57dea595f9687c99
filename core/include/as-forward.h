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

/* Tokenizes TEXT and runs the forward pass. Fails on empty text, invalid UTF-8, and text longer
 * than the context unless TRUNCATE (then the first n_positions tokens are kept). Both fail for
 * an encoder–decoder model, which needs a source and a target (below). */
AsTrace *as_forward_text (AsModel *model, const char *text, gboolean truncate,
                          const AsForwardOptions *options, GError **error);

/* An encoder–decoder (translation) model on source ids SRC and decoder input ids TGT exactly as
 * given: the decoder's trace with the encoder's as its `source` and the cross-attention
 * (as-trace.h). Fails on a model that is not encoder–decoder, empty ids, an id outside the
 * vocabulary, more ids than the model's positions (naming both numbers), memory, cancellation. */
AsTrace *as_forward_pair (AsModel *model, const int32_t *src, int n_src, const int32_t *tgt,
                          int n_tgt, const AsForwardOptions *options, GError **error);

/* The same on texts: SOURCE tokenized as the model's tokenizer does by default (Marian: pieces
 * and </s>), the decoder input = decoder_start_token_id followed by TARGET tokenized as target
 * text (Marian: target.spm pieces and </s>), the shape of a generated translation. Fails on an
 * empty text. */
AsTrace *as_forward_pair_text (AsModel *model, const char *source, const char *target,
                               const AsForwardOptions *options, GError **error);

/* Threads a forward pass uses: $ATTNSCOPE_THREADS when set (≥ 1), else the number of
 * processors. */
int as_forward_threads (void);

G_END_DECLS

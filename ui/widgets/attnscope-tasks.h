/* attnscope-tasks.h — the core's slow calls that make a session's inputs run in GTask threads so
 * the UI thread never blocks: loading a model and a forward pass over a text (the analyses of a
 * trace are attnscope-analysis.h's). Each takes a GCancellable; results come back on the
 * caller's main context through _finish(). */
#pragma once

#include <gio/gio.h>

#include "as-model.h"
#include "as-trace.h"

G_BEGIN_DECLS

void attnscope_model_load_async (const char *spec, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
AsModel *attnscope_model_load_finish (GAsyncResult *result, GError **error);

/* How many tokens an input has: N_TOKENS in all (special tokens included), and for a pair each
 * text's own (without special tokens; -1 for a single text). -1 when it could not be tokenized. */
typedef struct
{
  int n_tokens, n_a, n_b;
} AttnscopeTokenCounts;

/* A forward pass over TEXT, or over the pair TEXT, PAIR when PAIR is not NULL (as_forward_pair;
 * an encoder's sentence pair), with logits for every position when the model has a masked-LM
 * head (as_predict_masked needs them). *COUNTS (may be NULL) receives the input's token counts:
 * on failure, so that callers can offer to truncate an input longer than the context; with
 * TRUNCATE, so that they can say how much was cut (the trace's own count otherwise). */
void attnscope_forward_text_async (AsModel *model, const char *text, const char *pair,
                                   gboolean truncate, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data);
AsTrace *attnscope_forward_text_finish (GAsyncResult *result, AttnscopeTokenCounts *counts,
                                        GError **error);

G_END_DECLS

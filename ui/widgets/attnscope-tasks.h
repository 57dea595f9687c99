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

/* A forward pass over TEXT (as_forward_text). *N_TOKENS (may be NULL) receives the number of
 * tokens the whole text has (-1 when it could not be tokenized): on failure, so that callers can
 * offer to truncate a text longer than the context; with TRUNCATE, so that they can say how much
 * was cut (the trace's own count otherwise). */
void attnscope_forward_text_async (AsModel *model, const char *text, gboolean truncate,
                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer user_data);
AsTrace *attnscope_forward_text_finish (GAsyncResult *result, int *n_tokens, GError **error);

G_END_DECLS

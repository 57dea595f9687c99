/* attnscope-tasks.h — the core's slow calls run in GTask threads so the UI thread never blocks:
 * loading a model, a forward pass over a text, a PCA and a t-SNE projection. Each takes a
 * GCancellable; results come back on the caller's main context through _finish(). */
#pragma once

#include <gio/gio.h>

#include "as-model.h"
#include "as-trace.h"
#include "as-tsne.h"

G_BEGIN_DECLS

void attnscope_model_load_async (const char *spec, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
AsModel *attnscope_model_load_finish (GAsyncResult *result, GError **error);

/* A forward pass over TEXT (as_forward_text). On failure *N_TOKENS (may be NULL) receives the
 * number of tokens the text has (-1 when it could not be tokenized), so callers can offer to
 * truncate a text longer than the context. */
void attnscope_forward_text_async (AsModel *model, const char *text, gboolean truncate,
                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer user_data);
AsTrace *attnscope_forward_text_finish (GAsyncResult *result, int *n_tokens, GError **error);

/* Two-component projection of X [n][d] (copied): PCA, or t-SNE with OPTIONS (perplexity,
 * iterations, seed; the progress fields are ignored). PROGRESS (may be NULL) is called on the
 * caller's main context with the iteration done and the total. Returns [n][2] coordinates. */
typedef void (*AttnscopeProgressFunc) (int done, int total, gpointer user_data);

void attnscope_project_pca_async (const float *x, int n, int d, GCancellable *cancellable,
                                  GAsyncReadyCallback callback, gpointer user_data);
void attnscope_project_tsne_async (const float *x, int n, int d, const AsTsneOptions *options,
                                   AttnscopeProgressFunc progress, gpointer progress_data,
                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer user_data);
/* Returns the [n][2] coordinates (free with g_free) and the number of rows in *N; RATIO (may be
 * NULL) receives the explained variance ratio of the two components for PCA, NaN for t-SNE. */
float *attnscope_project_finish (GAsyncResult *result, int *n, double ratio[2], GError **error);

G_END_DECLS

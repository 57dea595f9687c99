/* attnscope-session.h — what the window is looking at: the model, the input text and its trace,
 * the comparison text and its trace, and the view selection every page shares (token, layer,
 * head, aggregation, colour map, annotation, raw tokens).
 *
 * Setting a text schedules a forward pass in a GTask thread; a newer text cancels the run in
 * flight and only the newest result lands. While a run is in flight "running" is TRUE. A run
 * that fails leaves the previous trace in place and sets "error-message" (the core's text). The
 * pages watch the session's properties; none of them runs the model. */
#pragma once

#include <gio/gio.h>

#include "as-head-stats.h"
#include "attnscope-types.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_SESSION (attnscope_session_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeSession, attnscope_session, ATTNSCOPE, SESSION, GObject)

AttnscopeSession *attnscope_session_new (void);

/* The model; setting one cancels the runs, clears the traces and runs the texts again. */
AsModel *attnscope_session_get_model (AttnscopeSession *self);
void attnscope_session_set_model (AttnscopeSession *self, AsModel *model);
const char *attnscope_session_get_model_name (AttnscopeSession *self);

/* Loads SPEC off the main thread; on success it becomes the session's model. On failure the
 * current model stays and the error is returned by _finish. */
void attnscope_session_load_model_async (AttnscopeSession *self, const char *spec,
                                         GCancellable *cancellable, GAsyncReadyCallback callback,
                                         gpointer user_data);
gboolean attnscope_session_load_model_finish (AttnscopeSession *self, GAsyncResult *result,
                                              GError **error);

const char *attnscope_session_get_text (AttnscopeSession *self);
void attnscope_session_set_text (AttnscopeSession *self, const char *text);
AsTrace *attnscope_session_get_trace (AttnscopeSession *self);
gboolean attnscope_session_get_running (AttnscopeSession *self);
const char *attnscope_session_get_error_message (AttnscopeSession *self);
/* TRUE when the last run failed because the text has more tokens than the context. */
gboolean attnscope_session_get_too_long (AttnscopeSession *self);
gboolean attnscope_session_get_truncate (AttnscopeSession *self);
void attnscope_session_set_truncate (AttnscopeSession *self, gboolean truncate);

/* Analyses of the main trace that several pages show, computed on first use and kept until the
 * trace changes (NULL without a trace): the head statistics, and the rollout [L][T][T]. */
const AsHeadStats *attnscope_session_get_head_stats (AttnscopeSession *self);
const float *attnscope_session_get_rollout (AttnscopeSession *self);

const char *attnscope_session_get_compare_text (AttnscopeSession *self);
void attnscope_session_set_compare_text (AttnscopeSession *self, const char *text);
AsTrace *attnscope_session_get_compare_trace (AttnscopeSession *self);
gboolean attnscope_session_get_compare_running (AttnscopeSession *self);
const char *attnscope_session_get_compare_error (AttnscopeSession *self);

/* The selected token (-1: none), clamped to the trace. */
int attnscope_session_get_selected_token (AttnscopeSession *self);
void attnscope_session_set_selected_token (AttnscopeSession *self, int token);

/* Layer and head, clamped to the model (0-based as everywhere). */
int attnscope_session_get_layer (AttnscopeSession *self);
void attnscope_session_set_layer (AttnscopeSession *self, int layer);
int attnscope_session_get_head (AttnscopeSession *self);
void attnscope_session_set_head (AttnscopeSession *self, int head);
int attnscope_session_get_n_layers (AttnscopeSession *self);
int attnscope_session_get_n_heads (AttnscopeSession *self);

AttnscopeAggregate attnscope_session_get_aggregate (AttnscopeSession *self);
void attnscope_session_set_aggregate (AttnscopeSession *self, AttnscopeAggregate aggregate);

/* Colour map name as the renderer knows it ("ylgnbu", "viridis", "magma", "greys"). */
const char *attnscope_session_get_colormap (AttnscopeSession *self);
void attnscope_session_set_colormap (AttnscopeSession *self, const char *colormap);
gboolean attnscope_session_get_annotate (AttnscopeSession *self);
void attnscope_session_set_annotate (AttnscopeSession *self, gboolean annotate);
gboolean attnscope_session_get_raw_tokens (AttnscopeSession *self);
void attnscope_session_set_raw_tokens (AttnscopeSession *self, gboolean raw_tokens);

G_END_DECLS

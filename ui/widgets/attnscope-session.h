/* attnscope-session.h — what the window is looking at, as objects with one job each:
 *
 *   the model (loaded off the main thread), which the session hands to two run slots
 *   (attnscope-run.h): the main text and the comparison text, each with its trace (and its own
 *   choice to truncate a text longer than the context);
 *   an analysis cache (attnscope-analysis.h) for each slot's current trace, replaced when a new
 *   trace lands (the old one's computations are cancelled);
 *   the view state (attnscope-view-state.h) every page shares, kept in the shape of the model
 *   and the main trace.
 *
 * Widgets follow these objects (GBindingGroup / GSignalGroup on "analysis" and
 * "compare-analysis", signals of the runs and the view state); none of them runs the model or
 * an analysis on the UI thread. "busy" is TRUE while a run or an analysis is in flight. */
#pragma once

#include <gio/gio.h>

#include "attnscope-analysis.h"
#include "attnscope-run.h"
#include "attnscope-view-state.h"
#include "attnscope-whatif.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_SESSION (attnscope_session_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeSession, attnscope_session, ATTNSCOPE, SESSION, GObject)

AttnscopeSession *attnscope_session_new (void);

/* The model; setting one drops both traces and runs both texts again. */
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

AttnscopeRun *attnscope_session_get_main (AttnscopeSession *self);
AttnscopeRun *attnscope_session_get_compare (AttnscopeSession *self);
AttnscopeViewState *attnscope_session_get_view (AttnscopeSession *self);

/* The analysis of the main / comparison trace; NULL without one. */
AttnscopeAnalysis *attnscope_session_get_analysis (AttnscopeSession *self);
AttnscopeAnalysis *attnscope_session_get_compare_analysis (AttnscopeSession *self);
/* A translation model: the analysis of the main trace's encoder trace ("source-analysis"; the
 * main analysis is the decoder's); NULL for other models. */
AttnscopeAnalysis *attnscope_session_get_source_analysis (AttnscopeSession *self);

/* The heads switched off and whether positions are left out, for both runs
 * (attnscope-whatif.h); a new model resets it. */
AttnscopeWhatif *attnscope_session_get_whatif (AttnscopeSession *self);

gboolean attnscope_session_get_busy (AttnscopeSession *self);

G_END_DECLS

/* attnscope-session.c — the model, the two run slots, their analyses and the view state (see
 * attnscope-session.h). The session only wires them together: a trace that lands gets a new
 * analysis and reshapes the view; the model goes to both slots. */
#include "attnscope-session.h"

#include "attnscope-tasks.h"

struct _AttnscopeSession
{
  GObject parent_instance;

  AsModel *model;
  AttnscopeRun *main, *compare;
  AttnscopeAnalysis *analysis, *compare_analysis;
  AttnscopeAnalysis *source_analysis; /* of the main trace's encoder trace (translation models) */
  AttnscopeViewState *view;
  AttnscopeWhatif *whatif; /* the heads switched off and the positions, for both runs */
  gboolean busy;
};

G_DEFINE_FINAL_TYPE (AttnscopeSession, attnscope_session, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_ANALYSIS,
  PROP_COMPARE_ANALYSIS,
  PROP_SOURCE_ANALYSIS,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
update_busy (AttnscopeSession *self)
{
  gboolean busy
      = attnscope_run_get_running (self->main) || attnscope_run_get_running (self->compare)
        || (self->analysis != NULL && attnscope_analysis_get_busy (self->analysis))
        || (self->compare_analysis != NULL && attnscope_analysis_get_busy (self->compare_analysis))
        || (self->source_analysis != NULL && attnscope_analysis_get_busy (self->source_analysis));
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
update_shape (AttnscopeSession *self)
{
  const AsConfig *config = self->model != NULL ? as_model_get_config (self->model) : NULL;
  AsTrace *trace = attnscope_run_get_trace (self->main);
  int n_layers = config != NULL ? config->n_layer : 0,
      n_heads = config != NULL ? config->n_head : 0;
  /* a translation's encoder may have other layers and heads than its decoder */
  if (trace != NULL && trace->source != NULL
      && attnscope_view_state_get_attention_kind (self->view) == AR_ATTENTION_ENCODER)
    n_layers = trace->source->n_layer, n_heads = trace->source->n_head;
  attnscope_view_state_set_shape (self->view, n_layers, n_heads,
                                  trace != NULL ? trace->n_tokens : 0);
}

/* Cancels what *SLOT computes and lets it go. */
static void
drop_analysis (AttnscopeSession *self, AttnscopeAnalysis **slot)
{
  if (*slot == NULL)
    return;
  g_signal_handlers_disconnect_by_data (*slot, self);
  attnscope_analysis_cancel (*slot, ATTNSCOPE_N_RESULTS);
  g_clear_object (slot);
}

/* Replaces *SLOT with an analysis of RUN's trace (NULL without one) and notifies PROP. */
static void
replace_analysis (AttnscopeSession *self, AttnscopeAnalysis **slot, AttnscopeRun *run, int prop)
{
  AsTrace *trace = attnscope_run_get_trace (run);
  if (*slot != NULL && attnscope_analysis_get_trace (*slot) == trace)
    return;
  drop_analysis (self, slot);
  if (trace != NULL)
    {
      *slot = attnscope_analysis_new (trace, attnscope_run_get_trace_text (run),
                                      attnscope_run_get_trace_pair (run),
                                      attnscope_run_get_truncated (run));
      g_signal_connect_swapped (*slot, "notify::busy", G_CALLBACK (update_busy), self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
  update_busy (self);
}

/* The analysis of the main trace's encoder trace, for a translation model. */
static void
replace_source_analysis (AttnscopeSession *self)
{
  AsTrace *trace = attnscope_run_get_trace (self->main);
  AsTrace *source = trace != NULL ? trace->source : NULL;
  if (self->source_analysis != NULL
      && attnscope_analysis_get_trace (self->source_analysis) == source)
    return;
  drop_analysis (self, &self->source_analysis);
  if (source != NULL)
    {
      self->source_analysis
          = attnscope_analysis_new (source, attnscope_run_get_trace_text (self->main), NULL, FALSE);
      g_signal_connect_swapped (self->source_analysis, "notify::busy", G_CALLBACK (update_busy),
                                self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE_ANALYSIS]);
  update_busy (self);
}

static void
on_main_trace (AttnscopeRun *run, GParamSpec *pspec, AttnscopeSession *self)
{
  update_shape (self);
  replace_source_analysis (self);
  replace_analysis (self, &self->analysis, run, PROP_ANALYSIS);
}

static void
on_compare_trace (AttnscopeRun *run, GParamSpec *pspec, AttnscopeSession *self)
{
  replace_analysis (self, &self->compare_analysis, run, PROP_COMPARE_ANALYSIS);
}

/* ---- model ---- */

void
attnscope_session_set_model (AttnscopeSession *self, AsModel *model)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  if (self->model == model)
    return;
  g_clear_pointer (&self->model, as_model_unref);
  self->model = model != NULL ? as_model_ref (model) : NULL;
  /* a translation model opens on its cross-attention, the view its attention page is for */
  attnscope_view_state_set_attention_kind (
      self->view, model != NULL && as_model_get_config (model)->encoder_decoder
                      ? AR_ATTENTION_CROSS
                      : AR_ATTENTION_SELF);
  update_shape (self);
  /* the heads switched off belong to the model they were switched off in */
  gboolean ablatable = model != NULL && !as_model_get_config (model)->encoder_decoder;
  attnscope_whatif_set_shape (self->whatif, ablatable ? as_model_get_config (model)->n_layer : 0,
                              ablatable ? as_model_get_config (model)->n_head : 0);
  attnscope_run_set_model (self->main, model);
  attnscope_run_set_model (self->compare, model);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

static void
load_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autoptr (AsModel) model = attnscope_model_load_finish (result, &error);
  if (model == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  attnscope_session_set_model (g_task_get_source_object (task), model);
  g_task_return_boolean (task, TRUE);
}

void
attnscope_session_load_model_async (AttnscopeSession *self, const char *spec,
                                    GCancellable *cancellable, GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  g_return_if_fail (spec != NULL);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, attnscope_session_load_model_async);
  attnscope_model_load_async (spec, cancellable, load_finished, task);
}

gboolean
attnscope_session_load_model_finish (AttnscopeSession *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

AsModel *
attnscope_session_get_model (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->model;
}

const char *
attnscope_session_get_model_name (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->model != NULL ? as_model_get_name (self->model) : NULL;
}

/* ---- the parts ---- */

AttnscopeRun *
attnscope_session_get_main (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->main;
}

AttnscopeRun *
attnscope_session_get_compare (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->compare;
}

AttnscopeViewState *
attnscope_session_get_view (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->view;
}

AttnscopeAnalysis *
attnscope_session_get_analysis (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->analysis;
}

AttnscopeAnalysis *
attnscope_session_get_compare_analysis (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->compare_analysis;
}

AttnscopeAnalysis *
attnscope_session_get_source_analysis (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->source_analysis;
}

AttnscopeWhatif *
attnscope_session_get_whatif (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->whatif;
}

static void
on_whatif_changed (AttnscopeWhatif *whatif, AttnscopeSession *self)
{
  attnscope_run_set_whatif (self->main, attnscope_whatif_get_state (whatif));
  attnscope_run_set_whatif (self->compare, attnscope_whatif_get_state (whatif));
}

gboolean
attnscope_session_get_busy (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), FALSE);
  return self->busy;
}

/* ---- GObject ---- */

static void
attnscope_session_dispose (GObject *object)
{
  AttnscopeSession *self = ATTNSCOPE_SESSION (object);
  if (self->main != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->main, self);
      g_signal_handlers_disconnect_by_data (self->compare, self);
    }
  drop_analysis (self, &self->analysis);
  drop_analysis (self, &self->compare_analysis);
  drop_analysis (self, &self->source_analysis);
  g_clear_object (&self->main);
  g_clear_object (&self->compare);
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_data (self->view, self);
  g_clear_object (&self->view);
  if (self->whatif != NULL)
    g_signal_handlers_disconnect_by_data (self->whatif, self);
  g_clear_object (&self->whatif);
  g_clear_pointer (&self->model, as_model_unref);
  G_OBJECT_CLASS (attnscope_session_parent_class)->dispose (object);
}

static void
attnscope_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AttnscopeSession *self = ATTNSCOPE_SESSION (object);
  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_boxed (value, self->model);
      break;
    case PROP_ANALYSIS:
      g_value_set_object (value, self->analysis);
      break;
    case PROP_COMPARE_ANALYSIS:
      g_value_set_object (value, self->compare_analysis);
      break;
    case PROP_SOURCE_ANALYSIS:
      g_value_set_object (value, self->source_analysis);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_session_class_init (AttnscopeSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = attnscope_session_dispose;
  object_class->get_property = attnscope_session_get_property;

  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  properties[PROP_MODEL] = g_param_spec_boxed ("model", NULL, NULL, ATTNSCOPE_TYPE_MODEL, ro);
  properties[PROP_ANALYSIS]
      = g_param_spec_object ("analysis", NULL, NULL, ATTNSCOPE_TYPE_ANALYSIS, ro);
  properties[PROP_COMPARE_ANALYSIS]
      = g_param_spec_object ("compare-analysis", NULL, NULL, ATTNSCOPE_TYPE_ANALYSIS, ro);
  properties[PROP_SOURCE_ANALYSIS]
      = g_param_spec_object ("source-analysis", NULL, NULL, ATTNSCOPE_TYPE_ANALYSIS, ro);
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
attnscope_session_init (AttnscopeSession *self)
{
  self->main = attnscope_run_new ();
  self->compare = attnscope_run_new ();
  self->view = attnscope_view_state_new ();
  self->whatif = attnscope_whatif_new ();
  g_signal_connect (self->whatif, "changed", G_CALLBACK (on_whatif_changed), self);
  g_signal_connect (self->main, "notify::trace", G_CALLBACK (on_main_trace), self);
  g_signal_connect_swapped (self->view, "notify::attention-kind", G_CALLBACK (update_shape), self);
  g_signal_connect (self->compare, "notify::trace", G_CALLBACK (on_compare_trace), self);
  g_signal_connect_swapped (self->main, "notify::running", G_CALLBACK (update_busy), self);
  g_signal_connect_swapped (self->compare, "notify::running", G_CALLBACK (update_busy), self);
}

AttnscopeSession *
attnscope_session_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_SESSION, NULL);
}

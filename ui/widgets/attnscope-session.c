/* attnscope-session.c — the shared state of the window and the runs that fill it (see
 * attnscope-session.h). Two run slots, the main text and the comparison text, work the same
 * way: each keeps its text, its last good trace, the cancellable of the run in flight and the
 * last error. A finished run lands only if it is still the slot's newest. */
#include "attnscope-session.h"

#include "as-error.h"
#include "as-rollout.h"
#include "attnscope-tasks.h"

typedef enum
{
  SLOT_MAIN,
  SLOT_COMPARE,
  N_SLOTS,
} SlotId;

typedef struct
{
  char *text;
  AsTrace *trace;
  GCancellable *cancellable; /* the run in flight, NULL when idle */
  char *error_message;
  gboolean too_long;
} RunSlot;

struct _AttnscopeSession
{
  GObject parent_instance;

  AsModel *model;
  RunSlot slots[N_SLOTS];
  gboolean truncate;
  AsHeadStats *head_stats; /* of the main trace, or NULL until asked for */
  float *rollout;          /* [L][T][T] of the main trace, or NULL until asked for */

  int selected_token;
  int layer;
  int head;
  AttnscopeAggregate aggregate;
  char *colormap;
  gboolean annotate;
  gboolean raw_tokens;
};

G_DEFINE_FINAL_TYPE (AttnscopeSession, attnscope_session, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_MODEL_NAME,
  PROP_TEXT,
  PROP_TRACE,
  PROP_RUNNING,
  PROP_ERROR_MESSAGE,
  PROP_TOO_LONG,
  PROP_TRUNCATE,
  PROP_COMPARE_TEXT,
  PROP_COMPARE_TRACE,
  PROP_COMPARE_RUNNING,
  PROP_COMPARE_ERROR,
  PROP_SELECTED_TOKEN,
  PROP_LAYER,
  PROP_HEAD,
  PROP_AGGREGATE,
  PROP_COLORMAP,
  PROP_ANNOTATE,
  PROP_RAW_TOKENS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The properties of each slot: text, trace, running, error. */
static const int slot_props[N_SLOTS][4] = {
  [SLOT_MAIN] = { PROP_TEXT, PROP_TRACE, PROP_RUNNING, PROP_ERROR_MESSAGE },
  [SLOT_COMPARE]
  = { PROP_COMPARE_TEXT, PROP_COMPARE_TRACE, PROP_COMPARE_RUNNING, PROP_COMPARE_ERROR },
};

static void
notify (AttnscopeSession *self, int prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

/* ---- runs ---- */

typedef struct
{
  AttnscopeSession *self; /* owned */
  SlotId slot;
  GCancellable *cancellable; /* owned: identifies the run */
} RunData;

static void
slot_set_error (AttnscopeSession *self, SlotId id, const char *message, gboolean too_long)
{
  RunSlot *slot = &self->slots[id];
  if (g_strcmp0 (slot->error_message, message) != 0)
    {
      g_free (slot->error_message);
      slot->error_message = g_strdup (message);
      notify (self, slot_props[id][3]);
    }
  if (id == SLOT_MAIN && slot->too_long != too_long)
    {
      slot->too_long = too_long;
      notify (self, PROP_TOO_LONG);
    }
}

static void
clamp_selection (AttnscopeSession *self)
{
  AsTrace *trace = self->slots[SLOT_MAIN].trace;
  int n = trace != NULL ? trace->n_tokens : 0;
  if (self->selected_token >= n)
    attnscope_session_set_selected_token (self, -1);
}

static void
slot_set_trace (AttnscopeSession *self, SlotId id, AsTrace *trace)
{
  RunSlot *slot = &self->slots[id];
  if (slot->trace == trace)
    return;
  g_clear_pointer (&slot->trace, as_trace_unref);
  slot->trace = trace != NULL ? as_trace_ref (trace) : NULL;
  if (id == SLOT_MAIN)
    {
      g_clear_pointer (&self->head_stats, as_head_stats_free);
      g_clear_pointer (&self->rollout, g_free);
      clamp_selection (self);
    }
  notify (self, slot_props[id][1]);
}

static void
slot_cancel (AttnscopeSession *self, SlotId id)
{
  RunSlot *slot = &self->slots[id];
  if (slot->cancellable == NULL)
    return;
  g_cancellable_cancel (slot->cancellable);
  g_clear_object (&slot->cancellable);
  notify (self, slot_props[id][2]);
}

static void
run_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RunData *data = user_data;
  AttnscopeSession *self = data->self;
  RunSlot *slot = &self->slots[data->slot];
  g_autoptr (GError) error = NULL;
  int n_tokens = -1;
  g_autoptr (AsTrace) trace = attnscope_forward_text_finish (result, &n_tokens, &error);

  /* Only the newest run of the slot lands; a stale or cancelled one is dropped. */
  if (slot->cancellable == data->cancellable && !g_cancellable_is_cancelled (data->cancellable))
    {
      g_clear_object (&slot->cancellable);
      if (trace != NULL)
        {
          slot_set_error (self, data->slot, NULL, FALSE);
          slot_set_trace (self, data->slot, trace);
        }
      else
        {
          const AsConfig *config = as_model_get_config (self->model);
          slot_set_error (self, data->slot, error->message, n_tokens > config->n_positions);
        }
      notify (self, slot_props[data->slot][2]);
    }
  g_object_unref (data->cancellable);
  g_object_unref (data->self);
  g_free (data);
}

static void
slot_run (AttnscopeSession *self, SlotId id)
{
  RunSlot *slot = &self->slots[id];
  gboolean was_running = slot->cancellable != NULL;
  if (was_running)
    g_cancellable_cancel (slot->cancellable);
  g_clear_object (&slot->cancellable);

  if (self->model == NULL || slot->text == NULL || *slot->text == '\0')
    {
      /* Nothing to run. An empty text is not an error; the last result stays on screen (the
       * entry passes through "" whenever its whole text is replaced). Without a second text
       * there is nothing to compare. */
      slot_set_error (self, id, NULL, FALSE);
      if (id == SLOT_COMPARE && (slot->text == NULL || *slot->text == '\0'))
        slot_set_trace (self, id, NULL);
      if (was_running)
        notify (self, slot_props[id][2]);
      return;
    }

  slot->cancellable = g_cancellable_new ();
  RunData *data = g_new0 (RunData, 1);
  data->self = g_object_ref (self);
  data->slot = id;
  data->cancellable = g_object_ref (slot->cancellable);
  attnscope_forward_text_async (self->model, slot->text, self->truncate, slot->cancellable,
                                run_finished, data);
  if (!was_running)
    notify (self, slot_props[id][2]);
}

static void
slot_set_text (AttnscopeSession *self, SlotId id, const char *text)
{
  RunSlot *slot = &self->slots[id];
  if (g_strcmp0 (slot->text, text) == 0)
    return;
  g_free (slot->text);
  slot->text = g_strdup (text);
  notify (self, slot_props[id][0]);
  slot_run (self, id);
}

/* ---- model ---- */

void
attnscope_session_set_model (AttnscopeSession *self, AsModel *model)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  if (self->model == model)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  for (int id = 0; id < N_SLOTS; id++)
    {
      slot_cancel (self, id);
      slot_set_trace (self, id, NULL);
    }
  g_clear_pointer (&self->model, as_model_unref);
  self->model = model != NULL ? as_model_ref (model) : NULL;
  /* Re-clamp the layer and head to the new model's shape. */
  attnscope_session_set_layer (self, self->layer);
  attnscope_session_set_head (self, self->head);
  notify (self, PROP_MODEL);
  notify (self, PROP_MODEL_NAME);
  for (int id = 0; id < N_SLOTS; id++)
    slot_run (self, id);
  g_object_thaw_notify (G_OBJECT (self));
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

int
attnscope_session_get_n_layers (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), 0);
  return self->model != NULL ? as_model_get_config (self->model)->n_layer : 0;
}

int
attnscope_session_get_n_heads (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), 0);
  return self->model != NULL ? as_model_get_config (self->model)->n_head : 0;
}

/* ---- the slots' accessors ---- */

const char *
attnscope_session_get_text (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->slots[SLOT_MAIN].text;
}

void
attnscope_session_set_text (AttnscopeSession *self, const char *text)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  slot_set_text (self, SLOT_MAIN, text);
}

AsTrace *
attnscope_session_get_trace (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->slots[SLOT_MAIN].trace;
}

gboolean
attnscope_session_get_running (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), FALSE);
  return self->slots[SLOT_MAIN].cancellable != NULL;
}

const char *
attnscope_session_get_error_message (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->slots[SLOT_MAIN].error_message;
}

gboolean
attnscope_session_get_too_long (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), FALSE);
  return self->slots[SLOT_MAIN].too_long;
}

gboolean
attnscope_session_get_truncate (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), FALSE);
  return self->truncate;
}

void
attnscope_session_set_truncate (AttnscopeSession *self, gboolean truncate)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  truncate = !!truncate;
  if (self->truncate == truncate)
    return;
  self->truncate = truncate;
  notify (self, PROP_TRUNCATE);
  for (int id = 0; id < N_SLOTS; id++)
    slot_run (self, id);
}

const AsHeadStats *
attnscope_session_get_head_stats (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  AsTrace *trace = self->slots[SLOT_MAIN].trace;
  if (self->head_stats == NULL && trace != NULL)
    self->head_stats = as_head_stats_compute (trace);
  return self->head_stats;
}

const float *
attnscope_session_get_rollout (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  AsTrace *trace = self->slots[SLOT_MAIN].trace;
  if (self->rollout == NULL && trace != NULL)
    self->rollout = as_trace_rollout (trace);
  return self->rollout;
}

const char *
attnscope_session_get_compare_text (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->slots[SLOT_COMPARE].text;
}

void
attnscope_session_set_compare_text (AttnscopeSession *self, const char *text)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  slot_set_text (self, SLOT_COMPARE, text);
}

AsTrace *
attnscope_session_get_compare_trace (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->slots[SLOT_COMPARE].trace;
}

gboolean
attnscope_session_get_compare_running (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), FALSE);
  return self->slots[SLOT_COMPARE].cancellable != NULL;
}

const char *
attnscope_session_get_compare_error (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->slots[SLOT_COMPARE].error_message;
}

/* ---- view selection ---- */

int
attnscope_session_get_selected_token (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), -1);
  return self->selected_token;
}

void
attnscope_session_set_selected_token (AttnscopeSession *self, int token)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  AsTrace *trace = self->slots[SLOT_MAIN].trace;
  if (token < 0 || trace == NULL || token >= trace->n_tokens)
    token = -1;
  if (self->selected_token == token)
    return;
  self->selected_token = token;
  notify (self, PROP_SELECTED_TOKEN);
}

int
attnscope_session_get_layer (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), 0);
  return self->layer;
}

void
attnscope_session_set_layer (AttnscopeSession *self, int layer)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  layer = CLAMP (layer, 0, MAX (attnscope_session_get_n_layers (self) - 1, 0));
  if (self->layer == layer)
    return;
  self->layer = layer;
  notify (self, PROP_LAYER);
}

int
attnscope_session_get_head (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), 0);
  return self->head;
}

void
attnscope_session_set_head (AttnscopeSession *self, int head)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  head = CLAMP (head, 0, MAX (attnscope_session_get_n_heads (self) - 1, 0));
  if (self->head == head)
    return;
  self->head = head;
  notify (self, PROP_HEAD);
}

AttnscopeAggregate
attnscope_session_get_aggregate (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), ATTNSCOPE_AGGREGATE_HEAD);
  return self->aggregate;
}

void
attnscope_session_set_aggregate (AttnscopeSession *self, AttnscopeAggregate aggregate)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  if (self->aggregate == aggregate)
    return;
  self->aggregate = aggregate;
  notify (self, PROP_AGGREGATE);
}

const char *
attnscope_session_get_colormap (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), NULL);
  return self->colormap;
}

void
attnscope_session_set_colormap (AttnscopeSession *self, const char *colormap)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  if (colormap == NULL || g_strcmp0 (self->colormap, colormap) == 0)
    return;
  g_free (self->colormap);
  self->colormap = g_strdup (colormap);
  notify (self, PROP_COLORMAP);
}

gboolean
attnscope_session_get_annotate (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), FALSE);
  return self->annotate;
}

void
attnscope_session_set_annotate (AttnscopeSession *self, gboolean annotate)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  annotate = !!annotate;
  if (self->annotate == annotate)
    return;
  self->annotate = annotate;
  notify (self, PROP_ANNOTATE);
}

gboolean
attnscope_session_get_raw_tokens (AttnscopeSession *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SESSION (self), FALSE);
  return self->raw_tokens;
}

void
attnscope_session_set_raw_tokens (AttnscopeSession *self, gboolean raw_tokens)
{
  g_return_if_fail (ATTNSCOPE_IS_SESSION (self));
  raw_tokens = !!raw_tokens;
  if (self->raw_tokens == raw_tokens)
    return;
  self->raw_tokens = raw_tokens;
  notify (self, PROP_RAW_TOKENS);
}

/* ---- GObject ---- */

static void
attnscope_session_dispose (GObject *object)
{
  AttnscopeSession *self = ATTNSCOPE_SESSION (object);
  for (int id = 0; id < N_SLOTS; id++)
    {
      RunSlot *slot = &self->slots[id];
      if (slot->cancellable != NULL)
        g_cancellable_cancel (slot->cancellable);
      g_clear_object (&slot->cancellable);
      g_clear_pointer (&slot->trace, as_trace_unref);
    }
  g_clear_pointer (&self->head_stats, as_head_stats_free);
  g_clear_pointer (&self->rollout, g_free);
  g_clear_pointer (&self->model, as_model_unref);
  G_OBJECT_CLASS (attnscope_session_parent_class)->dispose (object);
}

static void
attnscope_session_finalize (GObject *object)
{
  AttnscopeSession *self = ATTNSCOPE_SESSION (object);
  for (int id = 0; id < N_SLOTS; id++)
    {
      g_free (self->slots[id].text);
      g_free (self->slots[id].error_message);
    }
  g_free (self->colormap);
  G_OBJECT_CLASS (attnscope_session_parent_class)->finalize (object);
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
    case PROP_MODEL_NAME:
      g_value_set_string (value, attnscope_session_get_model_name (self));
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->slots[SLOT_MAIN].text);
      break;
    case PROP_TRACE:
      g_value_set_boxed (value, self->slots[SLOT_MAIN].trace);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, attnscope_session_get_running (self));
      break;
    case PROP_ERROR_MESSAGE:
      g_value_set_string (value, self->slots[SLOT_MAIN].error_message);
      break;
    case PROP_TOO_LONG:
      g_value_set_boolean (value, self->slots[SLOT_MAIN].too_long);
      break;
    case PROP_TRUNCATE:
      g_value_set_boolean (value, self->truncate);
      break;
    case PROP_COMPARE_TEXT:
      g_value_set_string (value, self->slots[SLOT_COMPARE].text);
      break;
    case PROP_COMPARE_TRACE:
      g_value_set_boxed (value, self->slots[SLOT_COMPARE].trace);
      break;
    case PROP_COMPARE_RUNNING:
      g_value_set_boolean (value, attnscope_session_get_compare_running (self));
      break;
    case PROP_COMPARE_ERROR:
      g_value_set_string (value, self->slots[SLOT_COMPARE].error_message);
      break;
    case PROP_SELECTED_TOKEN:
      g_value_set_int (value, self->selected_token);
      break;
    case PROP_LAYER:
      g_value_set_int (value, self->layer);
      break;
    case PROP_HEAD:
      g_value_set_int (value, self->head);
      break;
    case PROP_AGGREGATE:
      g_value_set_enum (value, self->aggregate);
      break;
    case PROP_COLORMAP:
      g_value_set_string (value, self->colormap);
      break;
    case PROP_ANNOTATE:
      g_value_set_boolean (value, self->annotate);
      break;
    case PROP_RAW_TOKENS:
      g_value_set_boolean (value, self->raw_tokens);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_session_set_property (GObject *object, guint prop_id, const GValue *value,
                                GParamSpec *pspec)
{
  AttnscopeSession *self = ATTNSCOPE_SESSION (object);
  switch (prop_id)
    {
    case PROP_TEXT:
      attnscope_session_set_text (self, g_value_get_string (value));
      break;
    case PROP_TRUNCATE:
      attnscope_session_set_truncate (self, g_value_get_boolean (value));
      break;
    case PROP_COMPARE_TEXT:
      attnscope_session_set_compare_text (self, g_value_get_string (value));
      break;
    case PROP_SELECTED_TOKEN:
      attnscope_session_set_selected_token (self, g_value_get_int (value));
      break;
    case PROP_LAYER:
      attnscope_session_set_layer (self, g_value_get_int (value));
      break;
    case PROP_HEAD:
      attnscope_session_set_head (self, g_value_get_int (value));
      break;
    case PROP_AGGREGATE:
      attnscope_session_set_aggregate (self, g_value_get_enum (value));
      break;
    case PROP_COLORMAP:
      attnscope_session_set_colormap (self, g_value_get_string (value));
      break;
    case PROP_ANNOTATE:
      attnscope_session_set_annotate (self, g_value_get_boolean (value));
      break;
    case PROP_RAW_TOKENS:
      attnscope_session_set_raw_tokens (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define RO (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)
#define RW (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)

static void
attnscope_session_class_init (AttnscopeSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = attnscope_session_dispose;
  object_class->finalize = attnscope_session_finalize;
  object_class->get_property = attnscope_session_get_property;
  object_class->set_property = attnscope_session_set_property;

  properties[PROP_MODEL] = g_param_spec_boxed ("model", NULL, NULL, ATTNSCOPE_TYPE_MODEL, RO);
  properties[PROP_MODEL_NAME] = g_param_spec_string ("model-name", NULL, NULL, NULL, RO);
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, NULL, RW);
  properties[PROP_TRACE] = g_param_spec_boxed ("trace", NULL, NULL, ATTNSCOPE_TYPE_TRACE, RO);
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE, RO);
  properties[PROP_ERROR_MESSAGE] = g_param_spec_string ("error-message", NULL, NULL, NULL, RO);
  properties[PROP_TOO_LONG] = g_param_spec_boolean ("too-long", NULL, NULL, FALSE, RO);
  properties[PROP_TRUNCATE] = g_param_spec_boolean ("truncate", NULL, NULL, FALSE, RW);
  properties[PROP_COMPARE_TEXT] = g_param_spec_string ("compare-text", NULL, NULL, NULL, RW);
  properties[PROP_COMPARE_TRACE]
      = g_param_spec_boxed ("compare-trace", NULL, NULL, ATTNSCOPE_TYPE_TRACE, RO);
  properties[PROP_COMPARE_RUNNING]
      = g_param_spec_boolean ("compare-running", NULL, NULL, FALSE, RO);
  properties[PROP_COMPARE_ERROR] = g_param_spec_string ("compare-error", NULL, NULL, NULL, RO);
  properties[PROP_SELECTED_TOKEN]
      = g_param_spec_int ("selected-token", NULL, NULL, -1, G_MAXINT, -1, RW);
  properties[PROP_LAYER] = g_param_spec_int ("layer", NULL, NULL, 0, G_MAXINT, 0, RW);
  properties[PROP_HEAD] = g_param_spec_int ("head", NULL, NULL, 0, G_MAXINT, 0, RW);
  properties[PROP_AGGREGATE] = g_param_spec_enum ("aggregate", NULL, NULL, ATTNSCOPE_TYPE_AGGREGATE,
                                                  ATTNSCOPE_AGGREGATE_HEAD, RW);
  properties[PROP_COLORMAP] = g_param_spec_string ("colormap", NULL, NULL, "ylgnbu", RW);
  properties[PROP_ANNOTATE] = g_param_spec_boolean ("annotate", NULL, NULL, TRUE, RW);
  properties[PROP_RAW_TOKENS] = g_param_spec_boolean ("raw-tokens", NULL, NULL, FALSE, RW);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
attnscope_session_init (AttnscopeSession *self)
{
  self->selected_token = -1;
  self->colormap = g_strdup ("ylgnbu");
  self->annotate = TRUE;
}

AttnscopeSession *
attnscope_session_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_SESSION, NULL);
}

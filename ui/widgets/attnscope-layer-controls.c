/* attnscope-layer-controls.c — the layer/head/aggregation controls (see
 * attnscope-layer-controls.h). Bindings carry the view state's values to the controls and the
 * user's changes back. */
#include "attnscope-layer-controls.h"

struct _AttnscopeLayerControls
{
  GtkWidget parent_instance;

  GtkDropDown *aggregate_dropdown;
  GtkAdjustment *layer_adjustment;
  GtkLabel *head_label;
  GtkSpinButton *head_spin;
  GtkAdjustment *head_adjustment;

  AttnscopeSession *session;
  GBindingGroup *bindings; /* on the session's view state */
  GSignalGroup *signals;   /* on the session's view state */
  AttnscopeHeadMode head_mode;
};

G_DEFINE_FINAL_TYPE (AttnscopeLayerControls, attnscope_layer_controls, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* "n-layers" → the adjustment's upper bound (the last index). */
static gboolean
count_to_upper (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_double (to, MAX (g_value_get_int (from) - 1, 0));
  return TRUE;
}

static gboolean
enum_to_uint (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_uint (to, g_value_get_enum (from));
  return TRUE;
}

static gboolean
uint_to_enum (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  guint i = g_value_get_uint (from);
  if (i > ATTNSCOPE_AGGREGATE_ROLLOUT)
    return FALSE;
  g_value_set_enum (to, (int) i);
  return TRUE;
}

/* The head spin button is usable when the vectors or the view belong to one head. */
static void
update_head_sensitivity (AttnscopeLayerControls *self)
{
  AttnscopeViewState *view = g_binding_group_dup_source (self->bindings);
  gboolean head = self->head_mode == ATTNSCOPE_HEAD_MODE_ALWAYS
                  || (self->head_mode == ATTNSCOPE_HEAD_MODE_AGGREGATE && view != NULL
                      && attnscope_view_state_get_aggregate (view) == ATTNSCOPE_AGGREGATE_HEAD);
  gtk_widget_set_sensitive (GTK_WIDGET (self->head_spin), head);
  gtk_widget_set_sensitive (GTK_WIDGET (self->head_label), head);
  g_clear_object (&view);
}

AttnscopeSession *
attnscope_layer_controls_get_session (AttnscopeLayerControls *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_LAYER_CONTROLS (self), NULL);
  return self->session;
}

void
attnscope_layer_controls_set_session (AttnscopeLayerControls *self, AttnscopeSession *session)
{
  g_return_if_fail (ATTNSCOPE_IS_LAYER_CONTROLS (self));
  if (self->session == session)
    return;
  g_set_object (&self->session, session);
  AttnscopeViewState *view = session != NULL ? attnscope_session_get_view (session) : NULL;
  g_binding_group_set_source (self->bindings, view);
  g_signal_group_set_target (self->signals, view);
  update_head_sensitivity (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

void
attnscope_layer_controls_set_show_aggregate (AttnscopeLayerControls *self, gboolean show)
{
  g_return_if_fail (ATTNSCOPE_IS_LAYER_CONTROLS (self));
  gtk_widget_set_visible (GTK_WIDGET (self->aggregate_dropdown), show);
}

void
attnscope_layer_controls_set_head_mode (AttnscopeLayerControls *self, AttnscopeHeadMode mode)
{
  g_return_if_fail (ATTNSCOPE_IS_LAYER_CONTROLS (self));
  self->head_mode = mode;
  update_head_sensitivity (self);
}

static void
attnscope_layer_controls_dispose (GObject *object)
{
  AttnscopeLayerControls *self = ATTNSCOPE_LAYER_CONTROLS (object);
  if (self->bindings != NULL)
    attnscope_layer_controls_set_session (self, NULL);
  g_clear_object (&self->bindings);
  g_clear_object (&self->signals);
  gtk_widget_dispose_template (GTK_WIDGET (self), ATTNSCOPE_TYPE_LAYER_CONTROLS);
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (attnscope_layer_controls_parent_class)->dispose (object);
}

static void
attnscope_layer_controls_get_property (GObject *object, guint prop_id, GValue *value,
                                       GParamSpec *pspec)
{
  AttnscopeLayerControls *self = ATTNSCOPE_LAYER_CONTROLS (object);
  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_layer_controls_set_property (GObject *object, guint prop_id, const GValue *value,
                                       GParamSpec *pspec)
{
  AttnscopeLayerControls *self = ATTNSCOPE_LAYER_CONTROLS (object);
  switch (prop_id)
    {
    case PROP_SESSION:
      attnscope_layer_controls_set_session (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_layer_controls_class_init (AttnscopeLayerControlsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = attnscope_layer_controls_dispose;
  object_class->get_property = attnscope_layer_controls_get_property;
  object_class->set_property = attnscope_layer_controls_set_property;

  properties[PROP_SESSION]
      = g_param_spec_object ("session", NULL, NULL, ATTNSCOPE_TYPE_SESSION,
                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-layer-controls.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLayerControls, aggregate_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLayerControls, layer_adjustment);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLayerControls, head_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLayerControls, head_spin);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLayerControls, head_adjustment);
}

static void
attnscope_layer_controls_init (AttnscopeLayerControls *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* The bounds first, so the values are never clamped to a stale range. */
  self->bindings = g_binding_group_new ();
  g_binding_group_bind_full (self->bindings, "n-layers", self->layer_adjustment, "upper",
                             G_BINDING_SYNC_CREATE, count_to_upper, NULL, NULL, NULL);
  g_binding_group_bind_full (self->bindings, "n-heads", self->head_adjustment, "upper",
                             G_BINDING_SYNC_CREATE, count_to_upper, NULL, NULL, NULL);
  g_binding_group_bind (self->bindings, "layer", self->layer_adjustment, "value",
                        G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_binding_group_bind (self->bindings, "head", self->head_adjustment, "value",
                        G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_binding_group_bind_full (self->bindings, "aggregate", self->aggregate_dropdown, "selected",
                             G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL, enum_to_uint,
                             uint_to_enum, NULL, NULL);
  self->signals = g_signal_group_new (ATTNSCOPE_TYPE_VIEW_STATE);
  g_signal_group_connect_swapped (self->signals, "notify::aggregate",
                                  G_CALLBACK (update_head_sensitivity), self);
}

/* attnscope-layer-controls.c — the layer/head/aggregation controls (see
 * attnscope-layer-controls.h). The controls show the session's values; user changes write back. */
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
  AttnscopeHeadMode head_mode;
  gboolean syncing; /* controls being set from the session */
};

G_DEFINE_FINAL_TYPE (AttnscopeLayerControls, attnscope_layer_controls, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
sync_from_session (AttnscopeLayerControls *self)
{
  if (self->session == NULL)
    return;
  self->syncing = TRUE;
  gtk_adjustment_set_upper (self->layer_adjustment,
                            MAX (attnscope_session_get_n_layers (self->session) - 1, 0));
  gtk_adjustment_set_upper (self->head_adjustment,
                            MAX (attnscope_session_get_n_heads (self->session) - 1, 0));
  gtk_adjustment_set_value (self->layer_adjustment, attnscope_session_get_layer (self->session));
  gtk_adjustment_set_value (self->head_adjustment, attnscope_session_get_head (self->session));
  AttnscopeAggregate aggregate = attnscope_session_get_aggregate (self->session);
  gtk_drop_down_set_selected (self->aggregate_dropdown, aggregate);
  gboolean head = self->head_mode == ATTNSCOPE_HEAD_MODE_ALWAYS
                  || (self->head_mode == ATTNSCOPE_HEAD_MODE_AGGREGATE
                      && aggregate == ATTNSCOPE_AGGREGATE_HEAD);
  gtk_widget_set_sensitive (GTK_WIDGET (self->head_spin), head);
  gtk_widget_set_sensitive (GTK_WIDGET (self->head_label), head);
  self->syncing = FALSE;
}

static void
on_session_notify (AttnscopeSession *session, GParamSpec *pspec, AttnscopeLayerControls *self)
{
  sync_from_session (self);
}

static void
on_layer_changed (GtkAdjustment *adjustment, AttnscopeLayerControls *self)
{
  if (!self->syncing && self->session != NULL)
    attnscope_session_set_layer (self->session, (int) gtk_adjustment_get_value (adjustment));
}

static void
on_head_changed (GtkAdjustment *adjustment, AttnscopeLayerControls *self)
{
  if (!self->syncing && self->session != NULL)
    attnscope_session_set_head (self->session, (int) gtk_adjustment_get_value (adjustment));
}

static void
on_aggregate_selected (GtkDropDown *dropdown, GParamSpec *pspec, AttnscopeLayerControls *self)
{
  if (!self->syncing && self->session != NULL)
    attnscope_session_set_aggregate (self->session, gtk_drop_down_get_selected (dropdown));
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
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  if (session != NULL)
    {
      static const char *const watched[]
          = { "notify::model", "notify::layer", "notify::head", "notify::aggregate" };
      for (gsize i = 0; i < G_N_ELEMENTS (watched); i++)
        g_signal_connect (session, watched[i], G_CALLBACK (on_session_notify), self);
    }
  sync_from_session (self);
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
  sync_from_session (self);
}

static void
attnscope_layer_controls_dispose (GObject *object)
{
  AttnscopeLayerControls *self = ATTNSCOPE_LAYER_CONTROLS (object);
  attnscope_layer_controls_set_session (self, NULL);
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
  g_signal_connect (self->layer_adjustment, "value-changed", G_CALLBACK (on_layer_changed), self);
  g_signal_connect (self->head_adjustment, "value-changed", G_CALLBACK (on_head_changed), self);
  g_signal_connect (self->aggregate_dropdown, "notify::selected",
                    G_CALLBACK (on_aggregate_selected), self);
}

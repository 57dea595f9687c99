/* attnscope-page.c — session tracking and deferred updates shared by the pages (see
 * attnscope-page.h). */
#include "attnscope-page.h"

#include <glib/gi18n.h>

#include "token-label.h"

typedef struct
{
  AttnscopeSession *session;
  gboolean dirty;
  guint idle_id;
} AttnscopePagePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AttnscopePage, attnscope_page, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

void
attnscope_page_ensure_updated (AttnscopePage *self)
{
  g_return_if_fail (ATTNSCOPE_IS_PAGE (self));
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  g_clear_handle_id (&priv->idle_id, g_source_remove);
  if (!priv->dirty)
    return;
  priv->dirty = FALSE;
  ATTNSCOPE_PAGE_GET_CLASS (self)->update (self);
}

static gboolean
update_idle (gpointer user_data)
{
  AttnscopePage *self = user_data;
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  priv->idle_id = 0;
  attnscope_page_ensure_updated (self);
  return G_SOURCE_REMOVE;
}

static void
queue_update (AttnscopePage *self)
{
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  priv->dirty = TRUE;
  /* Before the next frame is drawn, so a new trace and its heatmap appear together. */
  if (priv->idle_id == 0 && gtk_widget_get_mapped (GTK_WIDGET (self)))
    priv->idle_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 10, update_idle, self, NULL);
}

static void
on_session_notify (AttnscopeSession *session, GParamSpec *pspec, AttnscopePage *self)
{
  /* Running flags change twice per keystroke and never change what a page shows. */
  if (g_str_equal (pspec->name, "running") || g_str_equal (pspec->name, "compare-running"))
    return;
  queue_update (self);
}

AttnscopeSession *
attnscope_page_get_session (AttnscopePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), NULL);
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  return priv->session;
}

void
attnscope_page_set_session (AttnscopePage *self, AttnscopeSession *session)
{
  g_return_if_fail (ATTNSCOPE_IS_PAGE (self));
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  if (priv->session == session)
    return;
  if (priv->session != NULL)
    g_signal_handlers_disconnect_by_data (priv->session, self);
  g_set_object (&priv->session, session);
  if (session != NULL)
    g_signal_connect (session, "notify", G_CALLBACK (on_session_notify), self);
  queue_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

gboolean
attnscope_page_get_figure (AttnscopePage *self, ArFigure *figure)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), FALSE);
  AttnscopePageClass *klass = ATTNSCOPE_PAGE_GET_CLASS (self);
  attnscope_page_ensure_updated (self);
  return klass->get_figure != NULL && klass->get_figure (self, figure);
}

char *
attnscope_page_dup_figure_name (AttnscopePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), NULL);
  AttnscopePageClass *klass = ATTNSCOPE_PAGE_GET_CLASS (self);
  return klass->dup_figure_name != NULL ? klass->dup_figure_name (self) : g_strdup ("figure");
}

char *
attnscope_page_dup_subtitle (AttnscopePage *self, const char *text)
{
  AttnscopeSession *session = attnscope_page_get_session (self);
  if (session == NULL || attnscope_session_get_model_name (session) == NULL)
    return NULL;
  if (text == NULL)
    return g_strdup (attnscope_session_get_model_name (session));
  /* Translators: figure subtitle: the model's name and the text in quotes. */
  return g_strdup_printf (_ ("%s · “%s”"), attnscope_session_get_model_name (session), text);
}

char **
attnscope_page_dup_token_labels (AttnscopePage *self, const AsTrace *trace)
{
  AttnscopeSession *session = attnscope_page_get_session (self);
  gboolean raw = session != NULL && attnscope_session_get_raw_tokens (session);
  return ar_token_labels_from_trace (trace, raw);
}

static void
attnscope_page_map (GtkWidget *widget)
{
  AttnscopePage *self = ATTNSCOPE_PAGE (widget);
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  GTK_WIDGET_CLASS (attnscope_page_parent_class)->map (widget);
  if (priv->dirty)
    attnscope_page_ensure_updated (self);
}

static void
attnscope_page_dispose (GObject *object)
{
  AttnscopePage *self = ATTNSCOPE_PAGE (object);
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  g_clear_handle_id (&priv->idle_id, g_source_remove);
  attnscope_page_set_session (self, NULL);
  g_clear_handle_id (&priv->idle_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), G_OBJECT_TYPE (self));
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (attnscope_page_parent_class)->dispose (object);
}

static void
attnscope_page_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AttnscopePage *self = ATTNSCOPE_PAGE (object);
  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, attnscope_page_get_session (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_page_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AttnscopePage *self = ATTNSCOPE_PAGE (object);
  switch (prop_id)
    {
    case PROP_SESSION:
      attnscope_page_set_session (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_page_class_init (AttnscopePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = attnscope_page_dispose;
  object_class->get_property = attnscope_page_get_property;
  object_class->set_property = attnscope_page_set_property;
  widget_class->map = attnscope_page_map;

  properties[PROP_SESSION]
      = g_param_spec_object ("session", NULL, NULL, ATTNSCOPE_TYPE_SESSION,
                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
attnscope_page_init (AttnscopePage *self)
{
}

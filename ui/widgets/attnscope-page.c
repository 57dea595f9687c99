/* attnscope-page.c — following the session and deferred updates, shared by the pages (see
 * attnscope-page.h). Three signal groups follow what can change a page: the view state, the
 * session (a new model or analysis), and the current analyses (a result arrived). */
#include "attnscope-page.h"

#include "as-word-spans.h"

typedef struct
{
  AttnscopeSession *session;
  GSignalGroup *view_signals;     /* on the session's view state */
  GSignalGroup *session_signals;  /* on the session */
  GSignalGroup *analysis_signals; /* on the main trace's analysis */
  GSignalGroup *compare_signals;  /* on the comparison trace's analysis */
  GSignalGroup *source_signals;   /* on a translation's encoder trace's analysis */
  gboolean dirty, busy;
  guint idle_id;
  GtkWidget *focus_widget; /* the page's main widget (not a reference: a descendant) */
} AttnscopePagePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AttnscopePage, attnscope_page, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SESSION,
  PROP_BUSY,
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
  /* Before the next frame is drawn, so a new trace and its figure appear together. */
  if (priv->idle_id == 0 && gtk_widget_get_mapped (GTK_WIDGET (self)))
    priv->idle_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 10, update_idle, self, NULL);
}

void
attnscope_page_queue_update (AttnscopePage *self)
{
  g_return_if_fail (ATTNSCOPE_IS_PAGE (self));
  queue_update (self);
}

/* The analyses changed: follow the new ones. */
static void
follow_analyses (AttnscopePage *self)
{
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  g_signal_group_set_target (priv->analysis_signals, attnscope_page_get_analysis (self));
  g_signal_group_set_target (priv->compare_signals, attnscope_page_get_compare_analysis (self));
  AttnscopeSession *session = attnscope_page_get_session (self);
  g_signal_group_set_target (priv->source_signals,
                             session != NULL ? attnscope_session_get_source_analysis (session)
                                             : NULL);
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
  g_set_object (&priv->session, session);
  g_signal_group_set_target (priv->session_signals, session);
  g_signal_group_set_target (priv->view_signals,
                             session != NULL ? attnscope_session_get_view (session) : NULL);
  follow_analyses (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

gboolean
attnscope_page_get_busy (AttnscopePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), FALSE);
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  return priv->busy;
}

void
attnscope_page_set_focus_widget (AttnscopePage *self, GtkWidget *widget)
{
  g_return_if_fail (ATTNSCOPE_IS_PAGE (self));
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  priv->focus_widget = widget;
  if (widget != NULL)
    {
      gtk_widget_set_focusable (widget, TRUE);
      gtk_widget_set_focus_on_click (widget, TRUE);
    }
}

GtkWidget *
attnscope_page_get_focus_widget (AttnscopePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), NULL);
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  return priv->focus_widget;
}

void
attnscope_page_set_busy (AttnscopePage *self, gboolean busy)
{
  g_return_if_fail (ATTNSCOPE_IS_PAGE (self));
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  if (priv->busy == !!busy)
    return;
  priv->busy = !!busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

gboolean
attnscope_page_get_figure (AttnscopePage *self, ArFigure *figure)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), FALSE);
  AttnscopePageClass *klass = ATTNSCOPE_PAGE_GET_CLASS (self);
  attnscope_page_ensure_updated (self);
  ArBuiltFigure *built = klass->get_figure != NULL ? klass->get_figure (self) : NULL;
  if (built == NULL || attnscope_page_get_busy (self))
    return FALSE;
  *figure = *ar_built_figure_get (built);
  return TRUE;
}

char *
attnscope_page_dup_figure_name (AttnscopePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), NULL);
  AttnscopePageClass *klass = ATTNSCOPE_PAGE_GET_CLASS (self);
  return klass->dup_figure_name != NULL ? klass->dup_figure_name (self) : g_strdup ("figure");
}

ArBuiltFigure *
attnscope_page_build_figure (AttnscopePage *self, const ArViewSelection *view)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), NULL);
  AttnscopePageClass *klass = ATTNSCOPE_PAGE_GET_CLASS (self);
  if (klass->build_figure == NULL || attnscope_page_get_analysis (self) == NULL)
    return NULL;
  return klass->build_figure (self, view);
}

void
attnscope_page_append_export_args (AttnscopePage *self, const ArViewSelection *view,
                                   GPtrArray *argv)
{
  g_return_if_fail (ATTNSCOPE_IS_PAGE (self));
  AttnscopePageClass *klass = ATTNSCOPE_PAGE_GET_CLASS (self);
  if (klass->append_export_args != NULL)
    klass->append_export_args (self, view, argv);
}

void
attnscope_page_append_attention_args (GPtrArray *argv, const ArViewSelection *view)
{
  switch (view->aggregate)
    {
    case AR_AGGREGATE_MEAN:
      g_ptr_array_add (argv, g_strdup ("--mean"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->layer));
      break;
    case AR_AGGREGATE_ROLLOUT:
      g_ptr_array_add (argv, g_strdup ("--rollout"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->layer));
      break;
    case AR_AGGREGATE_HEAD:
    default:
      g_ptr_array_add (argv, g_strdup ("--layer"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->layer));
      g_ptr_array_add (argv, g_strdup ("--head"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->head));
    }
}

ArAttentionKind
attnscope_page_get_attention_kind (AttnscopePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), AR_ATTENTION_SELF);
  AttnscopeAnalysis *a = attnscope_page_get_analysis (self);
  AttnscopeViewState *view = attnscope_page_get_view (self);
  if (a == NULL || view == NULL || attnscope_analysis_get_trace (a)->source == NULL)
    return AR_ATTENTION_SELF;
  return attnscope_view_state_get_attention_kind (view);
}

AttnscopeAnalysis *
attnscope_page_get_kind_analysis (AttnscopePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), NULL);
  AttnscopeSession *session = attnscope_page_get_session (self);
  if (session != NULL && attnscope_page_get_attention_kind (self) == AR_ATTENTION_ENCODER
      && attnscope_session_get_source_analysis (session) != NULL)
    return attnscope_session_get_source_analysis (session);
  return attnscope_page_get_analysis (self);
}

AttnscopeCross *
attnscope_page_get_cross (AttnscopePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), NULL);
  AttnscopeSession *session = attnscope_page_get_session (self);
  AttnscopeAnalysis *a = attnscope_page_get_analysis (self);
  if (session == NULL || a == NULL)
    return NULL;
  AttnscopeCross *cross = attnscope_run_get_cross (attnscope_session_get_main (session));
  /* the results of the analysed trace only */
  return cross != NULL && attnscope_cross_get_trace (cross) == attnscope_analysis_get_trace (a)
             ? cross
             : NULL;
}

void
attnscope_page_append_kind_args (AttnscopePage *self, const ArViewSelection *view, GPtrArray *argv)
{
  AttnscopeSession *session = attnscope_page_get_session (self);
  AttnscopeAnalysis *a = attnscope_page_get_analysis (self);
  if (session == NULL || a == NULL || attnscope_analysis_get_trace (a)->source == NULL)
    return;
  const char *target = attnscope_run_get_trace_target (attnscope_session_get_main (session));
  g_ptr_array_add (argv, g_strdup ("--target"));
  g_ptr_array_add (argv, g_strdup (target != NULL ? target : ""));
  static const char *const kinds[] = { "decoder", "encoder", "cross" };
  g_ptr_array_add (argv, g_strdup ("--kind"));
  g_ptr_array_add (argv, g_strdup (kinds[view->kind]));
}

int
attnscope_page_item_token (AttnscopePage *self, int item)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PAGE (self), -1);
  AttnscopeViewState *view = attnscope_page_get_view (self);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (self);
  if (view == NULL || analysis == NULL
      || !attnscope_view_state_get_flag (view, ATTNSCOPE_VIEW_POOL_WORDS))
    return item;
  g_autoptr (AsWordSpans) spans
      = as_word_spans_from_trace (attnscope_analysis_get_trace (analysis));
  return item >= 0 && item < spans->n_words ? spans->first[item] : -1;
}

AttnscopeAnalysis *
attnscope_page_get_analysis (AttnscopePage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (self);
  return session != NULL ? attnscope_session_get_analysis (session) : NULL;
}

AttnscopeAnalysis *
attnscope_page_get_compare_analysis (AttnscopePage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (self);
  return session != NULL ? attnscope_session_get_compare_analysis (session) : NULL;
}

AttnscopeViewState *
attnscope_page_get_view (AttnscopePage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (self);
  return session != NULL ? attnscope_session_get_view (session) : NULL;
}

void
attnscope_page_get_selection (AttnscopePage *self, ArViewSelection *selection)
{
  AttnscopeViewState *view = attnscope_page_get_view (self);
  if (view != NULL)
    attnscope_view_state_get_selection (view, selection);
  else
    ar_view_selection_init (selection);
  /* the kind names a translation model's attention; other models have one */
  selection->kind = attnscope_page_get_attention_kind (self);
}

void
attnscope_page_get_texts (AttnscopePage *self, ArFigureTexts *texts)
{
  AttnscopeSession *session = attnscope_page_get_session (self);
  AttnscopeAnalysis *a = attnscope_page_get_analysis (self);
  AttnscopeAnalysis *b = attnscope_page_get_compare_analysis (self);
  AsTrace *ta = a != NULL ? attnscope_analysis_get_trace (a) : NULL;
  AsTrace *tb = b != NULL ? attnscope_analysis_get_trace (b) : NULL;
  gboolean translation = ta != NULL && ta->source != NULL;
  *texts = (ArFigureTexts){
    .model_name = session != NULL ? attnscope_session_get_model_name (session) : NULL,
    .text = a != NULL ? attnscope_analysis_get_shown_text (a) : NULL,
    .compare_text = b != NULL ? attnscope_analysis_get_shown_text (b) : NULL,
    .target_text = translation && session != NULL
                       ? attnscope_run_get_trace_target (attnscope_session_get_main (session))
                       : NULL,
    .n_tokens = ta == NULL    ? 0
                : translation ? ta->source->n_tokens
                              : ta->n_tokens,
    .n_compare_tokens = tb != NULL ? tb->n_tokens : 0,
    .n_target_tokens = translation ? ta->n_tokens : 0,
    .truncated = a != NULL && attnscope_analysis_get_truncated (a),
  };
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
  if (priv->session_signals != NULL)
    attnscope_page_set_session (self, NULL);
  g_clear_handle_id (&priv->idle_id, g_source_remove);
  g_clear_object (&priv->view_signals);
  g_clear_object (&priv->source_signals);
  g_clear_object (&priv->session_signals);
  g_clear_object (&priv->analysis_signals);
  g_clear_object (&priv->compare_signals);
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
    case PROP_BUSY:
      g_value_set_boolean (value, attnscope_page_get_busy (self));
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
  properties[PROP_BUSY]
      = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                              G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
attnscope_page_init (AttnscopePage *self)
{
  AttnscopePagePrivate *priv = attnscope_page_get_instance_private (self);
  priv->view_signals = g_signal_group_new (ATTNSCOPE_TYPE_VIEW_STATE);
  g_signal_group_connect_swapped (priv->view_signals, "notify", G_CALLBACK (queue_update), self);
  priv->session_signals = g_signal_group_new (ATTNSCOPE_TYPE_SESSION);
  g_signal_group_connect_swapped (priv->session_signals, "notify::model", G_CALLBACK (queue_update),
                                  self);
  g_signal_group_connect_swapped (priv->session_signals, "notify::analysis",
                                  G_CALLBACK (follow_analyses), self);
  g_signal_group_connect_swapped (priv->session_signals, "notify::compare-analysis",
                                  G_CALLBACK (follow_analyses), self);
  priv->analysis_signals = g_signal_group_new (ATTNSCOPE_TYPE_ANALYSIS);
  g_signal_group_connect_swapped (priv->analysis_signals, "ready", G_CALLBACK (queue_update), self);
  priv->compare_signals = g_signal_group_new (ATTNSCOPE_TYPE_ANALYSIS);
  g_signal_group_connect_swapped (priv->compare_signals, "ready", G_CALLBACK (queue_update), self);
  g_signal_group_connect_swapped (priv->session_signals, "notify::source-analysis",
                                  G_CALLBACK (follow_analyses), self);
  priv->source_signals = g_signal_group_new (ATTNSCOPE_TYPE_ANALYSIS);
  g_signal_group_connect_swapped (priv->source_signals, "ready", G_CALLBACK (queue_update), self);
}

/* attnscope-token-strip.c — one toggle-button chip per token, wrapped in lines (see
 * attnscope-token-strip.h). The chips are rebuilt when the trace or the label mode changes and
 * only re-styled when the selection changes. */
#include "attnscope-token-strip.h"

#include <glib/gi18n.h>

#include "as-readable-tokens.h"
#include "attnscope-wrap-layout.h"
#include "token-label.h"

struct _AttnscopeTokenStrip
{
  GtkWidget parent_instance;

  AttnscopeSession *session;
  GSignalGroup *run_signals;  /* on the session's main run */
  GSignalGroup *view_signals; /* on the session's view state */
  GPtrArray *chips;           /* [T] GtkToggleButton, borrowed (children of self) */
  gboolean syncing;           /* setting chip states from the session, not from a click */
  gboolean source;            /* a translation's source tokens (trace->source), not selectable */
};

/* A text of thousands of tokens: chips for the first ATTNSCOPE_STRIP_MAX_CHIPS only. Every chip is
 * a widget that each layout of the window measured and each frame drew (seconds of main loop at
 * 4,096 tokens: tests/bench/RESULTS.md); the figures select the others. */
#define ATTNSCOPE_STRIP_MAX_CHIPS 1024

G_DEFINE_FINAL_TYPE (AttnscopeTokenStrip, attnscope_token_strip, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SESSION,
  PROP_SOURCE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The strip is one stop of the Tab key, as a toolbar is: only chip INDEX takes the focus from
 * Tab (a thousand chips were a thousand stops), the arrow keys move between the chips. */
static void
set_tab_stop (AttnscopeTokenStrip *self, guint index)
{
  for (guint i = 0; i < self->chips->len; i++)
    gtk_widget_set_focusable (self->chips->pdata[i], i == index);
}

static void
sync_selection (AttnscopeTokenStrip *self)
{
  AttnscopeViewState *view
      = self->session != NULL ? attnscope_session_get_view (self->session) : NULL;
  int selected
      = view != NULL && !self->source ? attnscope_view_state_get_selected_token (view) : -1;
  self->syncing = TRUE;
  for (guint i = 0; i < self->chips->len; i++)
    gtk_toggle_button_set_active (self->chips->pdata[i], (int) i == selected);
  self->syncing = FALSE;
  /* the selected chip is where Tab enters the strip, unless the focus is in it already */
  GtkWidget *focus = gtk_widget_get_root (GTK_WIDGET (self)) != NULL
                         ? gtk_root_get_focus (gtk_widget_get_root (GTK_WIDGET (self)))
                         : NULL;
  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self)))
    set_tab_stop (self, selected >= 0 ? (guint) selected : 0);
}

/* The arrow keys, Home and End move the focus between the chips (the next line's chips are
 * further on: the strip reads as one line). */
static gboolean
on_key_pressed (GtkEventControllerKey *key, guint keyval, guint keycode, GdkModifierType state,
                AttnscopeTokenStrip *self)
{
  if (state & (GDK_ALT_MASK | GDK_CONTROL_MASK | GDK_SUPER_MASK) || self->chips->len == 0)
    return FALSE;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  guint at = 0;
  while (at < self->chips->len && self->chips->pdata[at] != focus)
    at++;
  if (at == self->chips->len)
    return FALSE;
  int to;
  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      to = (int) at - 1;
      break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      to = (int) at + 1;
      break;
    case GDK_KEY_Home:
      to = 0;
      break;
    case GDK_KEY_End:
      to = (int) self->chips->len - 1;
      break;
    default:
      return FALSE;
    }
  to = CLAMP (to, 0, (int) self->chips->len - 1);
  set_tab_stop (self, (guint) to);
  gtk_widget_grab_focus (self->chips->pdata[to]);
  return TRUE;
}

static void
chip_toggled (GtkToggleButton *chip, AttnscopeTokenStrip *self)
{
  if (self->syncing || self->session == NULL)
    return;
  if (self->source)
    {
      /* the selection is a target token: the source's chips only show */
      sync_selection (self);
      return;
    }
  AttnscopeViewState *view = attnscope_session_get_view (self->session);
  int index = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (chip), "token-index"));
  if (gtk_toggle_button_get_active (chip))
    attnscope_view_state_set_selected_token (view, index);
  else if (attnscope_view_state_get_selected_token (view) == index)
    attnscope_view_state_set_selected_token (view, -1);
  sync_selection (self);
}

static void
clear_chips (AttnscopeTokenStrip *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_ptr_array_set_size (self->chips, 0);
}

/* The trace whose tokens the chips are, or NULL. */
static AsTrace *
strip_trace (AttnscopeTokenStrip *self)
{
  AsTrace *trace = self->session != NULL
                       ? attnscope_run_get_trace (attnscope_session_get_main (self->session))
                       : NULL;
  return trace != NULL && self->source ? trace->source : trace;
}

/* The tooltip of chip I of TRACE: position, id, vocabulary string, and what else it is. Made when
 * asked (the strip's query-tooltip): setting one per chip asked the display where the pointer
 * was, a round trip each, seconds for a text of thousands of tokens. */
static char *
chip_tooltip (AttnscopeTokenStrip *self, const AsTrace *trace, int i)
{
  const char *const *texts = (const char *const *) trace->token_texts;
  gboolean decoder = !self->source && trace->source != NULL;
  gboolean pair = trace->segment_b_start > 0;
  /* Translators: tooltip of a token chip: position, token id, vocabulary string. */
  g_autofree char *tooltip
      = g_strdup_printf (_ ("Token %d · id %d · “%s”"), i, (int) trace->ids[i], trace->tokens[i]);
  if (pair)
    {
      g_autofree char *base = g_steal_pointer (&tooltip);
      /* Translators: a token chip's tooltip, then its sentence of a pair and token type. */
      tooltip = g_strdup_printf (
          _ ("%s\nsentence %s · token type %d"), base, i < trace->segment_b_start ? "A" : "B",
          trace->type_ids != NULL ? (int) trace->type_ids[i] : (i >= trace->segment_b_start));
    }
  int part, n_parts;
  gunichar c;
  if (as_readable_split_part (texts, trace->n_tokens, i, &part, &n_parts, &c))
    {
      char utf8[8] = { 0 };
      g_unichar_to_utf8 (c, utf8);
      g_autofree char *base = g_steal_pointer (&tooltip);
      /* Translators: a token that holds some of the bytes of a character. */
      tooltip = g_strdup_printf (_ ("%s\npart %d of %d of “%s” (its bytes are split over %d "
                                    "tokens)"),
                                 base, part, n_parts, utf8, n_parts);
    }
  if (decoder && i == 0)
    {
      g_autofree char *base = g_steal_pointer (&tooltip);
      tooltip = g_strdup_printf (_ ("%s\nThe decoder's start token: the target's tokens follow "
                                    "it, each predicted from the ones before"),
                                 base);
    }
  return g_steal_pointer (&tooltip);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer data)
{
  AttnscopeTokenStrip *self = ATTNSCOPE_TOKEN_STRIP (widget);
  AsTrace *trace = strip_trace (self);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *chip = !keyboard      ? gtk_widget_pick (widget, x, y, GTK_PICK_DEFAULT)
                    : root != NULL ? gtk_root_get_focus (root)
                                   : NULL;
  while (chip != NULL && gtk_widget_get_parent (chip) != widget)
    chip = gtk_widget_get_parent (chip);
  if (trace == NULL || chip == NULL)
    return FALSE;
  int i = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (chip), "token-index"));
  if (i < 0 || i >= trace->n_tokens)
    return FALSE;
  g_autofree char *text = chip_tooltip (self, trace, i);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

char *
attnscope_token_strip_dup_chip_tooltip (AttnscopeTokenStrip *self, guint i)
{
  g_return_val_if_fail (ATTNSCOPE_IS_TOKEN_STRIP (self), NULL);
  AsTrace *trace = strip_trace (self);
  g_return_val_if_fail (trace != NULL && i < self->chips->len, NULL);
  return chip_tooltip (self, trace, (int) i);
}

static void
rebuild (AttnscopeTokenStrip *self)
{
  clear_chips (self);
  AsTrace *trace = self->session != NULL
                       ? attnscope_run_get_trace (attnscope_session_get_main (self->session))
                       : NULL;
  if (trace != NULL && self->source)
    trace = trace->source;
  if (trace == NULL)
    return;
  gboolean raw = attnscope_view_state_get_raw_tokens (attnscope_session_get_view (self->session));
  g_auto (GStrv) labels
      = ar_token_labels_from_trace (trace, raw ? AR_TOKEN_LABEL_RAW : AR_TOKEN_LABEL_DEFAULT);
  /* a translation's decoder input starts with the model's decoder start token (Marian's <pad>) */
  gboolean decoder = !self->source && trace->source != NULL;
  int shown = MIN (trace->n_tokens, ATTNSCOPE_STRIP_MAX_CHIPS);
  for (int i = 0; i < shown; i++)
    {
      g_autofree char *label
          = decoder && i == 0
                /* Translators: the decoder's first token, e.g. "<pad> (start)" */
                ? g_strdup_printf (_ ("%s (start)"), labels[i])
                : g_strdup (labels[i]);
      GtkWidget *chip = gtk_toggle_button_new_with_label (label);
      gtk_widget_add_css_class (chip, "token-chip");
      /* A pair's two sentences are tinted apart (segments.h: A before segment_b_start). */
      gboolean pair = trace->segment_b_start > 0;
      if (pair)
        gtk_widget_add_css_class (chip, i < trace->segment_b_start ? "segment-a" : "segment-b");
      g_object_set_data (G_OBJECT (chip), "token-index", GINT_TO_POINTER (i));
      g_signal_connect (chip, "toggled", G_CALLBACK (chip_toggled), self);
      gtk_widget_set_parent (chip, GTK_WIDGET (self));
      g_ptr_array_add (self->chips, chip);
    }
  if (shown < trace->n_tokens)
    {
      /* Translators: the end of the token strip of a long text; %d: the tokens without a chip */
      g_autofree char *more
          = g_strdup_printf (_ ("… and %d more tokens: click them in the figures to select one"),
                             trace->n_tokens - shown);
      GtkWidget *label = gtk_label_new (more);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_set_parent (label, GTK_WIDGET (self));
    }
  sync_selection (self);
}

AttnscopeSession *
attnscope_token_strip_get_session (AttnscopeTokenStrip *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_TOKEN_STRIP (self), NULL);
  return self->session;
}

void
attnscope_token_strip_set_session (AttnscopeTokenStrip *self, AttnscopeSession *session)
{
  g_return_if_fail (ATTNSCOPE_IS_TOKEN_STRIP (self));
  if (self->session == session)
    return;
  g_set_object (&self->session, session);
  g_signal_group_set_target (self->run_signals,
                             session != NULL ? attnscope_session_get_main (session) : NULL);
  g_signal_group_set_target (self->view_signals,
                             session != NULL ? attnscope_session_get_view (session) : NULL);
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

guint
attnscope_token_strip_get_n_chips (AttnscopeTokenStrip *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_TOKEN_STRIP (self), 0);
  return self->chips->len;
}

const char *
attnscope_token_strip_get_chip_label (AttnscopeTokenStrip *self, guint i)
{
  g_return_val_if_fail (ATTNSCOPE_IS_TOKEN_STRIP (self), NULL);
  g_return_val_if_fail (i < self->chips->len, NULL);
  return gtk_button_get_label (self->chips->pdata[i]);
}

GtkToggleButton *
attnscope_token_strip_get_chip (AttnscopeTokenStrip *self, guint i)
{
  g_return_val_if_fail (ATTNSCOPE_IS_TOKEN_STRIP (self), NULL);
  g_return_val_if_fail (i < self->chips->len, NULL);
  return self->chips->pdata[i];
}

static void
attnscope_token_strip_dispose (GObject *object)
{
  AttnscopeTokenStrip *self = ATTNSCOPE_TOKEN_STRIP (object);
  if (self->run_signals != NULL)
    attnscope_token_strip_set_session (self, NULL);
  g_clear_object (&self->run_signals);
  g_clear_object (&self->view_signals);
  clear_chips (self);
  G_OBJECT_CLASS (attnscope_token_strip_parent_class)->dispose (object);
}

static void
attnscope_token_strip_finalize (GObject *object)
{
  AttnscopeTokenStrip *self = ATTNSCOPE_TOKEN_STRIP (object);
  g_ptr_array_unref (self->chips);
  G_OBJECT_CLASS (attnscope_token_strip_parent_class)->finalize (object);
}

static void
attnscope_token_strip_get_property (GObject *object, guint prop_id, GValue *value,
                                    GParamSpec *pspec)
{
  AttnscopeTokenStrip *self = ATTNSCOPE_TOKEN_STRIP (object);
  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_SOURCE:
      g_value_set_boolean (value, self->source);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_token_strip_set_property (GObject *object, guint prop_id, const GValue *value,
                                    GParamSpec *pspec)
{
  AttnscopeTokenStrip *self = ATTNSCOPE_TOKEN_STRIP (object);
  switch (prop_id)
    {
    case PROP_SESSION:
      attnscope_token_strip_set_session (self, g_value_get_object (value));
      break;
    case PROP_SOURCE:
      self->source = g_value_get_boolean (value);
      rebuild (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_token_strip_class_init (AttnscopeTokenStripClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = attnscope_token_strip_dispose;
  object_class->finalize = attnscope_token_strip_finalize;
  object_class->get_property = attnscope_token_strip_get_property;
  object_class->set_property = attnscope_token_strip_set_property;

  properties[PROP_SESSION]
      = g_param_spec_object ("session", NULL, NULL, ATTNSCOPE_TYPE_SESSION,
                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Show a translation's source tokens (the main trace's encoder trace) instead. */
  properties[PROP_SOURCE] = g_param_spec_boolean ("source", NULL, NULL, FALSE,
                                                  G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "tokenstrip");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_LIST);
}

static void
attnscope_token_strip_init (AttnscopeTokenStrip *self)
{
  self->chips = g_ptr_array_new ();
  self->run_signals = g_signal_group_new (ATTNSCOPE_TYPE_RUN);
  g_signal_group_connect_swapped (self->run_signals, "notify::trace", G_CALLBACK (rebuild), self);
  self->view_signals = g_signal_group_new (ATTNSCOPE_TYPE_VIEW_STATE);
  g_signal_group_connect_swapped (self->view_signals, "notify::raw-tokens", G_CALLBACK (rebuild),
                                  self);
  g_signal_group_connect_swapped (self->view_signals, "notify::selected-token",
                                  G_CALLBACK (sync_selection), self);
  gtk_widget_set_layout_manager (GTK_WIDGET (self), attnscope_wrap_layout_new (6, 6));
  /* one tooltip for all chips, made when asked */
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
  GtkEventController *key = gtk_event_controller_key_new ();
  /* before the chips: the window's arrow-key focus moves would leave the strip */
  gtk_event_controller_set_propagation_phase (key, GTK_PHASE_CAPTURE);
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), key);
}

GtkWidget *
attnscope_token_strip_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_TOKEN_STRIP, NULL);
}

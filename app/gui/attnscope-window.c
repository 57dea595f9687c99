/* attnscope-window.c — the main window (see attnscope-window.h): template, session wiring, the
 * entry and its inline error, the status page shown before there is anything to see, toasts.
 * Model loading is in attnscope-window-load.c, the window's actions in attnscope-window-actions.c
 * (their shared fields in attnscope-window-private.h); the model menu lives in gui-model-menu.c.
 * The window does not know the export dialog: its export actions emit "export-figure", which the
 * application answers (attnscope-application.c). */
#include "attnscope-window-private.h"

#include <glib/gi18n.h>

#include "as-forward.h"
#include "attnscope-attention-page.h"
#include "attnscope-entry-history.h"
#include "attnscope-tooltips.h"
#include "gui-model-menu.h"
#include "as-sentence-pairs.h"

G_DEFINE_FINAL_TYPE (AttnscopeWindow, attnscope_window, ADW_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_SESSION,
  PROP_LOADING,
  PROP_LAST_ERROR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_EXPORT_FIGURE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

const char *const attnscope_window_page_names[]
    = { "attention", "heads", "similarity",  "embeddings", "compare", "predictions",
        "alignment", "lens",  "attribution", "ablation",   NULL };

/* ---- errors (toasts: attnscope-window-toasts.c) ---- */

void
attnscope_window_show_error (AttnscopeWindow *self, const char *summary, const char *message)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  g_free (self->last_error);
  self->last_error = g_strdup (message);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_ERROR]);

  g_autofree char *title = g_strdup_printf ("%s: %s", summary, message);
  AdwToast *toast = attnscope_window_toast_new (title);
  adw_toast_set_timeout (toast, 8);
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  adw_toast_set_button_label (toast, _ ("Details"));
  adw_toast_set_action_name (toast, "win.show-error-details");
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
show_error_details (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (widget);
  if (self->last_error == NULL)
    return;
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _ ("Error"), self->last_error);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _ ("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- what is on screen ---- */

static void
update_status (AttnscopeWindow *self)
{
  AsModel *model = attnscope_session_get_model (self->session);
  AsTrace *trace = attnscope_run_get_trace (self->main_run);
  gboolean loading = self->loading != NULL;
  if (model != NULL && trace != NULL)
    {
      gtk_stack_set_visible_child_name (self->content_stack, "views");
      return;
    }
  gtk_stack_set_visible_child_name (self->content_stack, "status");
  if (model == NULL && loading)
    {
      adw_status_page_set_title (self->status_page, _ ("Opening the Model…"));
      adw_status_page_set_description (self->status_page, NULL);
    }
  else if (model == NULL)
    {
      adw_status_page_set_title (self->status_page, _ ("No Model"));
      adw_status_page_set_description (self->status_page,
                                       self->last_error != NULL
                                           ? self->last_error
                                           : _ ("Open a model folder in the Hugging Face layout."));
    }
  else if (attnscope_run_get_error_message (self->main_run) != NULL)
    {
      adw_status_page_set_title (self->status_page, _ ("Nothing to Show Yet"));
      adw_status_page_set_description (
          self->status_page,
          _ ("The model could not run on the text above; the message says why."));
    }
  else
    {
      adw_status_page_set_title (self->status_page, _ ("Type a Sentence"));
      adw_status_page_set_description (
          self->status_page,
          _ ("Every edit runs the model. The views show what each layer and head attends to."));
    }
  gtk_widget_set_visible (GTK_WIDGET (self->status_button), model == NULL && !loading);
}

static void
update_spinner (AttnscopeWindow *self)
{
  /* Loading, running the texts, or computing what a page shows. */
  gboolean busy = self->loading != NULL || attnscope_session_get_busy (self->session);
  gtk_spinner_set_spinning (self->spinner, busy);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
}

/* "Layer 12 of 30" and Cancel while a pass that has run for half a second computes. */
static void
update_progress (AttnscopeWindow *self)
{
  int done, total;
  gboolean shown = attnscope_run_get_progress (self->main_run, &done, &total);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_box), shown);
  if (!shown)
    return;
  g_autofree char *text = g_strdup_printf (_ ("Layer %d of %d"), MIN (done + 1, total), total);
  gtk_progress_bar_set_text (self->progress_bar, text);
  gtk_progress_bar_set_fraction (self->progress_bar, (double) done / total);
}

static void
on_cancel_clicked (AttnscopeWindow *self)
{
  attnscope_run_cancel (self->main_run);
}

void
attnscope_window_refresh_status (AttnscopeWindow *self)
{
  update_spinner (self);
  update_status (self);
}

static void
update_model_label (AttnscopeWindow *self)
{
  AsModel *model = attnscope_session_get_model (self->session);
  gtk_label_set_text (self->model_label,
                      model != NULL ? as_model_get_name (model) : _ ("No model"));
  if (model != NULL)
    {
      const AsConfig *c = as_model_get_config (model);
      g_autofree char *tooltip = g_strdup_printf (
          _ ("%s\n%s · %d layers · %d heads · context %d tokens\nChoose a model"),
          as_model_get_path (model), c->model_type, c->n_layer, c->n_head, c->n_positions);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->model_button), tooltip);
    }
}

/* The token count beside the entry: of the text in the entry, counted when it changed (a text
 * too long for the model included), or of a translation's last pass. */
static void
update_trace_info (AttnscopeWindow *self)
{
  AsTrace *trace = attnscope_run_get_trace (self->main_run);
  int n = attnscope_run_get_n_text_tokens (self->main_run);
  g_autofree char *text = NULL;
  if (trace != NULL && trace->source != NULL)
    /* Translators: a translation's source and target token counts */
    text = g_strdup_printf (_ ("%d → %d tokens"), trace->source->n_tokens, trace->n_tokens);
  else if (n >= 0 && trace != NULL && attnscope_run_get_truncated (self->main_run))
    /* Translators: the tokens shown of a text cut to the model's context */
    text = g_strdup_printf (_ ("%d of %d tokens"), trace->n_tokens, n);
  else if (n >= 0)
    text = g_strdup_printf (ngettext ("%d token", "%d tokens", n), n);
  else if (trace != NULL)
    text = g_strdup_printf (ngettext ("%d token", "%d tokens", trace->n_tokens), trace->n_tokens);
  gtk_label_set_text (self->token_count_label, text != NULL ? text : "");
}

/* The line under the entry: why the text cannot run (in the window's words when it is too long,
 * with the offer to use its first tokens), or that only its first tokens are shown. */
static void
update_error (AttnscopeWindow *self)
{
  const char *message = attnscope_run_get_error_message (self->main_run);
  AsModel *model = attnscope_session_get_model (self->session);
  int context = model != NULL ? as_model_get_config (model)->n_positions : 0;
  int n_text = attnscope_run_get_n_text_tokens (self->main_run);
  gboolean too_long = attnscope_run_get_too_long (self->main_run) && model != NULL;
  gboolean truncated = message == NULL && attnscope_run_get_truncated (self->main_run);
  g_autofree char *text = NULL, *button = NULL;
  int n_a = -1, n_b = -1;
  attnscope_run_get_pair_tokens (self->main_run, &n_a, &n_b);
  gboolean pair = n_a >= 0 && n_b >= 0 && n_text >= n_a + n_b;
  int keep_a = n_a, keep_b = n_b;
  if (pair)
    as_truncate_longest_first (n_a, n_b, context - (n_text - n_a - n_b), &keep_a, &keep_b);
  if (too_long && pair)
    {
      text = g_strdup_printf (_ ("Sentence A has %d tokens and sentence B %d: %d with the special "
                                 "tokens, but %s reads at most %d. Truncating the longer text "
                                 "first keeps %d of A and %d of B."),
                              n_a, n_b, n_text, as_model_get_name (model), context, keep_a, keep_b);
      button = g_strdup_printf (_ ("Keep %d + %d Tokens"), keep_a, keep_b);
    }
  else if (truncated && pair)
    {
      text = g_strdup_printf (_ ("Showing the first %d of sentence A's %d tokens and the first "
                                 "%d of sentence B's %d: %s reads at most %d."),
                              keep_a, n_a, keep_b, n_b, as_model_get_name (model), context);
      button = g_strdup (_ ("Don't Truncate"));
    }
  else if (too_long)
    {
      text = g_strdup_printf (_ ("This text has %d tokens; %s reads at most %d."), n_text,
                              as_model_get_name (model), context);
      button = g_strdup_printf (_ ("Use the First %d Tokens"), context);
    }
  else if (truncated)
    {
      text = g_strdup_printf (_ ("Showing the first %d of the text's %d tokens: %s reads at most "
                                 "%d."),
                              attnscope_run_get_trace (self->main_run)->n_tokens, n_text,
                              as_model_get_name (model), context);
      button = g_strdup (_ ("Don't Truncate"));
    }
  else if (message != NULL)
    text = g_strdup (message);
  gtk_revealer_set_reveal_child (self->error_revealer, text != NULL);
  if (text != NULL)
    gtk_label_set_text (self->error_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->truncate_button), button != NULL);
  if (button != NULL)
    gtk_button_set_label (self->truncate_button, button);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->truncate_button),
                                  truncated ? "win.keep-whole-text" : "win.truncate-text");
  GtkWidget *bar = gtk_widget_get_parent (GTK_WIDGET (self->error_label));
  if (truncated)
    gtk_widget_add_css_class (bar, "info-bar");
  else
    gtk_widget_remove_css_class (bar, "info-bar");
  if (message != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->entry), "error");
  /* a pair that does not fit is both texts' doing */
  if (message != NULL && pair)
    gtk_widget_add_css_class (GTK_WIDGET (self->pair_entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->pair_entry), "error");
}

const char *
attnscope_window_get_input_message (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  if (!gtk_revealer_get_reveal_child (self->error_revealer))
    return NULL;
  return gtk_label_get_text (self->error_label);
}

const char *
attnscope_window_get_token_count (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return gtk_label_get_text (self->token_count_label);
}

const char *
attnscope_window_get_status_title (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "status") != 0)
    return NULL;
  return adw_status_page_get_title (self->status_page);
}

static gboolean
translation_model (AttnscopeWindow *self)
{
  AsModel *model = attnscope_session_get_model (self->session);
  return model != NULL && as_model_get_config (model)->encoder_decoder;
}

/* A translation model has a target: its entry, the Translate button, the source's tokens and
 * the alignment page; other models keep one text field. */
static void
update_translation_controls (AttnscopeWindow *self)
{
  gboolean translation = translation_model (self);
  gtk_widget_set_visible (GTK_WIDGET (self->target_box), translation);
  /* the two strips say which is which */
  gtk_widget_set_visible (self->source_row, translation);
  gtk_widget_set_visible (self->target_caption, translation);
  adw_view_stack_page_set_visible (self->alignment_stack_page, translation);
  /* a translation's decoder input ends with </s>: there is no next token to predict (Translate
   * generates the target) */
  adw_view_stack_page_set_visible (self->predictions_stack_page, !translation);
  /* a comparison of two translations would need a second target */
  adw_view_stack_page_set_visible (self->compare_stack_page, !translation);
  /* the core switches no head off in a translation model (ablation is of decoders and encoders) */
  adw_view_stack_page_set_visible (self->ablation_stack_page, !translation);
  gtk_entry_set_placeholder_text (self->entry, translation ? _ ("Source: type a sentence…")
                                                           : _ ("Type a sentence…"));
  gboolean translating = attnscope_run_get_translating (self->main_run);
  gtk_widget_set_sensitive (GTK_WIDGET (self->translate_button), !translating);
  gtk_widget_set_visible (GTK_WIDGET (self->translate_spinner), translating);
  gtk_spinner_set_spinning (self->translate_spinner, translating);
}

static void
on_model_changed (AttnscopeWindow *self)
{
  AsModel *model = attnscope_session_get_model (self->session);
  /* Sentence B: only for a model that takes pairs (an encoder). */
  gtk_widget_set_visible (GTK_WIDGET (self->pair_entry),
                          model != NULL && as_model_takes_pairs (model));
  update_model_label (self);
  update_status (self);
  update_error (self);
  update_translation_controls (self);
  /* a translation model opened on a sentence without a target shows the model's translation */
  const char *text = attnscope_run_get_text (self->main_run);
  const char *target = attnscope_run_get_target (self->main_run);
  if (translation_model (self) && text != NULL && *text != '\0' && (target == NULL || !*target))
    attnscope_run_translate (self->main_run);
}

static void
on_target_changed (AttnscopeWindow *self)
{
  const char *target = attnscope_run_get_target (self->main_run);
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->target_entry)),
                 target != NULL ? target : "")
      == 0)
    return;
  self->syncing_target = TRUE;
  gtk_editable_set_text (GTK_EDITABLE (self->target_entry), target != NULL ? target : "");
  gtk_editable_set_position (GTK_EDITABLE (self->target_entry), -1);
  self->syncing_target = FALSE;
}

static void
on_target_entry_changed (GtkEditable *editable, AttnscopeWindow *self)
{
  if (!self->syncing_target)
    attnscope_run_set_target (self->main_run, gtk_editable_get_text (editable));
}

void
attnscope_window_set_target (AttnscopeWindow *self, const char *target)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  gtk_editable_set_text (GTK_EDITABLE (self->target_entry), target);
}

const char *
attnscope_window_get_target (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return gtk_editable_get_text (GTK_EDITABLE (self->target_entry));
}

gboolean
attnscope_window_get_target_visible (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), FALSE);
  return gtk_widget_get_visible (GTK_WIDGET (self->target_box));
}

AttnscopeTokenStrip *
attnscope_window_get_source_strip (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return self->source_strip;
}

GtkButton *
attnscope_window_get_translate_button (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return self->translate_button;
}

static void
on_trace_changed (AttnscopeWindow *self)
{
  update_trace_info (self);
  update_status (self);
}

static void
on_error_changed (AttnscopeWindow *self)
{
  update_error (self);
  update_status (self);
}

/* A page shown (its tab clicked, a shortcut) gives its main widget the keyboard focus, so that the
 * arrow keys and Return reach its figure at once, not the control the focus last rested on. Not
 * while the window is not on screen yet: the entry keeps the focus for typing. */
static void
on_page_shown (AttnscopeWindow *self)
{
  GtkWidget *page = adw_view_stack_get_visible_child (self->view_stack);
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)) || !ATTNSCOPE_IS_PAGE (page))
    return;
  GtkWidget *main = attnscope_page_get_focus_widget (ATTNSCOPE_PAGE (page));
  if (main != NULL)
    gtk_widget_grab_focus (main);
}

/* The text can change from a page (Append, Fill); the entry follows as one step of its undo
 * history (attnscope-entry-history.h), without feeding the text back to the run. */
static void
on_text_changed (AttnscopeWindow *self)
{
  g_autofree char *text = g_strdup (attnscope_run_get_text (self->main_run));
  self->syncing_entry = TRUE;
  attnscope_entry_history_replace (self->entry, text);
  self->syncing_entry = FALSE;
}

static void
on_entry_changed (GtkEditable *editable, AttnscopeWindow *self)
{
  if (!self->syncing_entry)
    attnscope_run_set_text (self->main_run, gtk_editable_get_text (editable));
}

/* Sentence B follows the run too (Fill may change it). */
static void
on_pair_changed (AttnscopeWindow *self)
{
  const char *pair = attnscope_run_get_pair (self->main_run);
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->pair_entry)), pair ? pair : "") == 0)
    return;
  self->syncing_entry = TRUE;
  attnscope_entry_history_replace (self->pair_entry, pair);
  self->syncing_entry = FALSE;
}

static void
on_pair_entry_changed (GtkEditable *editable, AttnscopeWindow *self)
{
  if (!self->syncing_entry)
    attnscope_run_set_pair (self->main_run, gtk_editable_get_text (editable));
}

gboolean
attnscope_window_get_pair_visible (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), FALSE);
  return gtk_widget_get_visible (GTK_WIDGET (self->pair_entry));
}

void
attnscope_window_set_pair (AttnscopeWindow *self, const char *pair)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  attnscope_entry_history_replace (self->pair_entry, pair);
}

void
attnscope_window_set_text (AttnscopeWindow *self, const char *text)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  attnscope_entry_history_replace (self->entry, text);
}

/* ---- models ---- */

const char *
attnscope_window_get_model_label (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return gtk_label_get_text (self->model_label);
}

const char *
attnscope_window_get_last_error (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return self->last_error;
}

static void
create_model_popup (GtkMenuButton *button, gpointer user_data)
{
  AttnscopeWindow *self = user_data;
  /* Filled on every opening: the Hugging Face cache may have grown meanwhile. */
  gui_model_menu_fill (self->model_menu);
  gtk_menu_button_set_menu_model (button, G_MENU_MODEL (self->model_menu));
}

/* ---- accessors ---- */

AttnscopeSession *
attnscope_window_get_session (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return self->session;
}

AttnscopeTokenStrip *
attnscope_window_get_token_strip (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return self->token_strip;
}

AttnscopeWhatifChip *
attnscope_window_get_whatif_chip (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  return self->whatif_chip;
}

AttnscopePage *
attnscope_window_get_page (AttnscopeWindow *self, const char *name)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), NULL);
  GtkWidget *child = adw_view_stack_get_child_by_name (self->view_stack, name);
  return child != NULL ? ATTNSCOPE_PAGE (child) : NULL;
}

void
attnscope_window_show_page (AttnscopeWindow *self, const char *name)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  GtkWidget *child = adw_view_stack_get_child_by_name (self->view_stack, name);
  /* a page the model has not (Alignment, Predictions of a translation model) stays hidden */
  if (child != NULL
      && adw_view_stack_page_get_visible (adw_view_stack_get_page (self->view_stack, child)))
    adw_view_stack_set_visible_child_name (self->view_stack, name);
}

/* ---- actions ---- */

/* ---- state kept between runs ---- */

static void
bind_settings (AttnscopeWindow *self)
{
  if (self->settings == NULL)
    return;
  AttnscopeViewState *view = attnscope_session_get_view (self->session);
  static const char *const keys[] = { "colormap", "annotate", "raw-tokens", "autoscale" };
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    g_settings_bind (self->settings, keys[i], view, keys[i], G_SETTINGS_BIND_DEFAULT);
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  g_autofree char *text = g_settings_get_string (self->settings, "last-text");
  attnscope_window_set_text (self, text);
  g_autofree char *pair = g_settings_get_string (self->settings, "last-pair");
  attnscope_window_set_pair (self, pair);
}

static gboolean
attnscope_window_close_request (GtkWindow *window)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (window);
  if (self->settings != NULL)
    {
      int width, height;
      gtk_window_get_default_size (window, &width, &height);
      g_settings_delay (self->settings);
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
      g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
      g_settings_set_string (self->settings, "last-text",
                             gtk_editable_get_text (GTK_EDITABLE (self->entry)));
      g_settings_set_string (self->settings, "last-pair",
                             gtk_editable_get_text (GTK_EDITABLE (self->pair_entry)));
      g_settings_apply (self->settings);
    }
  return GTK_WINDOW_CLASS (attnscope_window_parent_class)->close_request (window);
}

/* ---- GObject ---- */

static void
attnscope_window_dispose (GObject *object)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (object);
  attnscope_window_cancel_loading (self);
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_signal_handlers_disconnect_by_data (self->main_run, self);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), ATTNSCOPE_TYPE_WINDOW);
  g_clear_object (&self->session);
  g_clear_object (&self->settings);
  g_clear_object (&self->model_menu);
  G_OBJECT_CLASS (attnscope_window_parent_class)->dispose (object);
}

static void
attnscope_window_finalize (GObject *object)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (object);
  g_free (self->last_error);
  g_strfreev (self->startup_candidates);
  G_OBJECT_CLASS (attnscope_window_parent_class)->finalize (object);
}

static void
attnscope_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (object);
  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading != NULL);
      break;
    case PROP_LAST_ERROR:
      g_value_set_string (value, self->last_error);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_window_class_init (AttnscopeWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = attnscope_window_dispose;
  object_class->finalize = attnscope_window_finalize;
  object_class->get_property = attnscope_window_get_property;
  window_class->close_request = attnscope_window_close_request;

  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  properties[PROP_SESSION]
      = g_param_spec_object ("session", NULL, NULL, ATTNSCOPE_TYPE_SESSION, ro);
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, ro);
  properties[PROP_LAST_ERROR] = g_param_spec_string ("last-error", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  signals[SIGNAL_EXPORT_FIGURE]
      = g_signal_new ("export-figure", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 1, ATTNSCOPE_TYPE_PAGE);

  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-window.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, model_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, model_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, progress_box);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, pair_entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, token_count_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, target_box);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, target_entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, translate_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, translate_spinner);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, source_row);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, target_caption);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, source_strip);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, alignment_stack_page);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, predictions_stack_page);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, compare_stack_page);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, ablation_stack_page);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, truncate_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, token_strip);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, whatif_chip);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, status_page);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, status_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeWindow, view_stack);

  attnscope_window_class_add_actions (widget_class);
  gtk_widget_class_install_action (widget_class, "win.show-error-details", NULL,
                                   show_error_details);
}

static void
attnscope_window_init (AttnscopeWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* cut labels show their whole text on hover; menus are not covered by their tooltips */
  attnscope_tooltips_attach (GTK_WIDGET (self));

  self->session = attnscope_session_new ();
  attnscope_token_strip_set_session (self->token_strip, self->session);
  attnscope_token_strip_set_session (self->source_strip, self->session);
  attnscope_whatif_chip_set_session (self->whatif_chip, self->session);
  for (guint i = 0; attnscope_window_page_names[i] != NULL; i++)
    {
      AttnscopePage *page = attnscope_window_get_page (self, attnscope_window_page_names[i]);
      if (page != NULL)
        attnscope_page_set_session (page, self->session);
    }
  self->main_run = attnscope_session_get_main (self->session);
  g_signal_connect_swapped (self->session, "notify::model", G_CALLBACK (on_model_changed), self);
  g_signal_connect_swapped (self->session, "notify::busy", G_CALLBACK (update_spinner), self);
  g_signal_connect_swapped (self->main_run, "notify::trace", G_CALLBACK (on_trace_changed), self);
  g_signal_connect_swapped (self->main_run, "notify::error-message", G_CALLBACK (on_error_changed),
                            self);
  g_signal_connect_swapped (self->main_run, "notify::too-long", G_CALLBACK (on_error_changed),
                            self);
  g_signal_connect_swapped (self->main_run, "notify::trace", G_CALLBACK (update_error), self);
  g_signal_connect_swapped (self->main_run, "notify::n-text-tokens", G_CALLBACK (update_error),
                            self);
  g_signal_connect_swapped (self->main_run, "notify::n-text-tokens", G_CALLBACK (update_trace_info),
                            self);
  g_signal_connect_swapped (self->view_stack, "notify::visible-child", G_CALLBACK (on_page_shown),
                            self);
  attnscope_entry_history_attach (self->entry);
  attnscope_entry_history_attach (self->pair_entry);
  g_signal_connect_swapped (self->main_run, "notify::text", G_CALLBACK (on_text_changed), self);
  g_signal_connect (self->entry, "changed", G_CALLBACK (on_entry_changed), self);
  g_signal_connect_swapped (self->main_run, "notify::target", G_CALLBACK (on_target_changed), self);
  g_signal_connect_swapped (self->main_run, "notify::translating",
                            G_CALLBACK (update_translation_controls), self);
  g_signal_connect (self->target_entry, "changed", G_CALLBACK (on_target_entry_changed), self);
  g_signal_connect_swapped (self->main_run, "notify::pair", G_CALLBACK (on_pair_changed), self);
  g_signal_connect_swapped (self->main_run, "notify::progress", G_CALLBACK (update_progress), self);
  g_signal_connect_swapped (self->cancel_button, "clicked", G_CALLBACK (on_cancel_clicked), self);
  g_signal_connect (self->pair_entry, "changed", G_CALLBACK (on_pair_entry_changed), self);
  self->model_menu = g_menu_new ();
  gtk_menu_button_set_create_popup_func (self->model_button, create_model_popup, self, NULL);

  attnscope_window_add_session_actions (self);
  update_model_label (self);
  update_trace_info (self);
  update_error (self);
  update_spinner (self);
  update_status (self);
  update_translation_controls (self);
}

void
attnscope_window_export_figure (AttnscopeWindow *self, AttnscopePage *page)
{
  g_signal_emit (self, signals[SIGNAL_EXPORT_FIGURE], 0, page);
}

GSettings *
attnscope_window_get_settings (AttnscopeWindow *self)
{
  return self->settings;
}

AttnscopeWindow *
attnscope_window_new (GtkApplication *application, GSettings *settings)
{
  AttnscopeWindow *self = g_object_new (ATTNSCOPE_TYPE_WINDOW, "application", application, NULL);
  self->settings = settings != NULL ? g_object_ref (settings) : NULL;
  bind_settings (self);
  return self;
}

/* attnscope-window-actions.c — the main window's actions (win.*) and their keys: open a model
 * folder, export, show a saved file's folder, truncate or keep the whole text, translate, step
 * layer and head (Alt+arrows, as the heads grid is drawn), show a page (Alt+N), focus the entry;
 * and the session's view-state properties and load-model as stateful actions of the window. */
#include "attnscope-window-private.h"

#include <glib/gi18n.h>

static void
load_model_change_state (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  attnscope_window_open_model (user_data, g_variant_get_string (value, NULL));
}

static void
open_model_folder (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  attnscope_window_choose_model_folder (ATTNSCOPE_WINDOW (widget));
}

static void
export_figure (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (widget);
  GtkWidget *page = adw_view_stack_get_visible_child (self->view_stack);
  attnscope_window_export_figure (self, ATTNSCOPE_PAGE (page));
}

static void
export_all_heads (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (widget);
  AttnscopePage *page = attnscope_window_get_page (self, "heads");
  if (page != NULL)
    attnscope_window_export_figure (self, page);
}

static void
truncate_text (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (widget);
  attnscope_run_set_truncate (self->main_run, g_str_equal (action_name, "win.truncate-text"));
}

static void
translate (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  AttnscopeWindow *self = ATTNSCOPE_WINDOW (widget);
  attnscope_run_translate (self->main_run);
}

static void
step_layer (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  AttnscopeViewState *view = attnscope_session_get_view (ATTNSCOPE_WINDOW (widget)->session);
  attnscope_view_state_set_layer (view, attnscope_view_state_get_layer (view)
                                            + g_variant_get_int32 (parameter));
}

static void
step_head (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  AttnscopeViewState *view = attnscope_session_get_view (ATTNSCOPE_WINDOW (widget)->session);
  attnscope_view_state_set_head (view, attnscope_view_state_get_head (view)
                                           + g_variant_get_int32 (parameter));
}

static void
show_page_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  attnscope_window_show_page (ATTNSCOPE_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

static void
folder_shown (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (AttnscopeWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  if (!g_app_info_launch_default_for_uri_finish (result, &error))
    attnscope_window_show_error (self, _ ("Could not open the folder"), error->message);
}

/* Opens the folder whose URI is PARAMETER in the file manager (the saved notification's button). */
static void
show_folder (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  g_autoptr (GdkAppLaunchContext) context
      = gdk_display_get_app_launch_context (gtk_widget_get_display (widget));
  g_app_info_launch_default_for_uri_async (g_variant_get_string (parameter, NULL),
                                           G_APP_LAUNCH_CONTEXT (context), NULL, folder_shown,
                                           g_object_ref (widget));
}

static void
focus_entry (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  gtk_widget_grab_focus (GTK_WIDGET (ATTNSCOPE_WINDOW (widget)->entry));
}

void
attnscope_window_add_session_actions (AttnscopeWindow *self)
{
  static const char *const view_props[]
      = { "colormap",        "annotate",       "raw-tokens", "autoscale",
          "autoscale-each",  "normalize-rows", "log-colors", "pool-words",
          "align-positions", "segments",       "pool-mean" };
  AttnscopeViewState *view = attnscope_session_get_view (self->session);
  for (gsize i = 0; i < G_N_ELEMENTS (view_props); i++)
    {
      g_autoptr (GPropertyAction) action
          = g_property_action_new (view_props[i], view, view_props[i]);
      g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (action));
    }
  /* View ▸ No Positions: both texts run without position embeddings (or the rotation) */
  g_autoptr (GPropertyAction) no_positions = g_property_action_new (
      "no-positions", attnscope_session_get_whatif (self->session), "no-positions");
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (no_positions));
  g_autoptr (GSimpleAction) load = g_simple_action_new_stateful (
      "load-model", G_VARIANT_TYPE_STRING, g_variant_new_string (""));
  g_signal_connect (load, "change-state", G_CALLBACK (load_model_change_state), self);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (load));
}

void
attnscope_window_class_add_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.open-model-folder", NULL, open_model_folder);
  gtk_widget_class_install_action (widget_class, "win.export-figure", NULL, export_figure);
  gtk_widget_class_install_action (widget_class, "win.export-all-heads", NULL, export_all_heads);
  gtk_widget_class_install_action (widget_class, "win.truncate-text", NULL, truncate_text);
  gtk_widget_class_install_action (widget_class, "win.translate", NULL, translate);
  gtk_widget_class_install_action (widget_class, "win.keep-whole-text", NULL, truncate_text);
  gtk_widget_class_install_action (widget_class, "win.step-layer", "i", step_layer);
  gtk_widget_class_install_action (widget_class, "win.step-head", "i", step_head);
  gtk_widget_class_install_action (widget_class, "win.show-page", "s", show_page_action);
  gtk_widget_class_install_action (widget_class, "win.focus-entry", NULL, focus_entry);
  gtk_widget_class_install_action (widget_class, "win.show-folder", "s", show_folder);

  /* As the heads grid is drawn: layer 0 at the top (Alt+Up goes to the layer above), head 0 on
   * the left. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Up, GDK_ALT_MASK, "win.step-layer",
                                       "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Down, GDK_ALT_MASK, "win.step-layer",
                                       "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK, "win.step-head",
                                       "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.step-head",
                                       "i", -1);
  for (guint i = 0; attnscope_window_page_names[i] != NULL; i++)
    /* Alt+1 … Alt+9, then Alt+0 for the tenth page */
    gtk_widget_class_add_binding_action (widget_class, i < 9 ? GDK_KEY_1 + i : GDK_KEY_0,
                                         GDK_ALT_MASK, "win.show-page", "s",
                                         attnscope_window_page_names[i]);
}

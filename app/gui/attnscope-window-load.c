/* attnscope-window-load.c — the window's model loading (attnscope-window.h): one load in flight
 * (a newer one cancels it), the startup model (the last one opened, else the shipped default,
 * else any shipped model, quietly falling back), what a failed load says, and "Open Model
 * Folder…". The folder chooser is GtkFileChooserNative: GtkFileDialog needs GTK 4.10 and Debian
 * 12 ships GTK 4.8. */
#include "attnscope-window-private.h"

#include <glib/gi18n.h>

#include "gui-model-menu.h"

static void
set_loading (AttnscopeWindow *self, GCancellable *cancellable)
{
  if (self->loading != NULL)
    g_cancellable_cancel (self->loading);
  g_set_object (&self->loading, cancellable);
  attnscope_window_refresh_status (self);
  g_object_notify (G_OBJECT (self), "loading");
}

static void
model_opened (AttnscopeWindow *self, const char *spec)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "load-model");
  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_string (spec));
  if (self->settings != NULL)
    g_settings_set_string (self->settings, "last-model", spec);
}

typedef struct
{
  AttnscopeWindow *self; /* owned */
  char *spec;
  GCancellable *cancellable; /* owned */
} LoadData;

static void
load_data_free (LoadData *data)
{
  g_object_unref (data->self);
  g_free (data->spec);
  g_object_unref (data->cancellable);
  g_free (data);
}

static void try_next_startup_model (AttnscopeWindow *self);

static void
load_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LoadData *data = user_data;
  AttnscopeWindow *self = data->self;
  g_autoptr (GError) error = NULL;
  gboolean ok = attnscope_session_load_model_finish (ATTNSCOPE_SESSION (source), result, &error);
  if (self->loading != data->cancellable)
    {
      /* A newer load replaced this one. */
      load_data_free (data);
      return;
    }
  gboolean startup = self->startup_candidates != NULL;
  if (ok)
    {
      g_clear_pointer (&self->startup_candidates, g_strfreev);
      model_opened (self, data->spec);
    }
  else if (!startup || (self->startup_index == 1 && self->startup_from_settings))
    {
      /* A model the user chose (or the one opened last time) failed: say so. The default model
       * falls back quietly; the header shows which model is open. */
      g_autofree char *summary = g_strdup_printf (_ ("Could not open “%s”"), data->spec);
      attnscope_window_show_error (self, summary, error->message);
    }
  set_loading (self, NULL);
  if (!ok && startup)
    try_next_startup_model (self);
  load_data_free (data);
}

static void
load_model (AttnscopeWindow *self, const char *spec)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  set_loading (self, cancellable);
  LoadData *data = g_new0 (LoadData, 1);
  data->self = g_object_ref (self);
  data->spec = g_strdup (spec);
  data->cancellable = g_object_ref (cancellable);
  attnscope_session_load_model_async (self->session, spec, cancellable, load_finished, data);
}

void
attnscope_window_open_model (AttnscopeWindow *self, const char *spec)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  g_return_if_fail (spec != NULL);
  g_clear_pointer (&self->startup_candidates, g_strfreev);
  load_model (self, spec);
}

static void
try_next_startup_model (AttnscopeWindow *self)
{
  if (self->startup_candidates == NULL)
    return;
  const char *spec = self->startup_candidates[self->startup_index];
  if (spec == NULL)
    {
      g_clear_pointer (&self->startup_candidates, g_strfreev);
      if (attnscope_session_get_model (self->session) == NULL && self->last_error == NULL)
        {
          self->last_error = g_strdup (_ ("No shipped model could be opened."));
          g_object_notify (G_OBJECT (self), "last-error");
        }
      attnscope_window_refresh_status (self);
      return;
    }
  self->startup_index++;
  load_model (self, spec);
}

void
attnscope_window_open_startup_model (AttnscopeWindow *self)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  g_autofree char *last
      = self->settings != NULL ? g_settings_get_string (self->settings, "last-model") : NULL;
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  self->startup_from_settings = last != NULL && *last != '\0';
  g_strv_builder_add (builder, self->startup_from_settings ? last : as_model_default_name ());
  g_strv_builder_add (builder, as_model_default_name ());
  g_auto (GStrv) shipped = gui_model_menu_dup_shipped_names ();
  g_strv_builder_addv (builder, (const char **) shipped);
  g_auto (GStrv) all = g_strv_builder_end (builder);
  /* Drop repeats, keeping the first occurrence. */
  g_autoptr (GStrvBuilder) unique = g_strv_builder_new ();
  for (guint i = 0; all[i] != NULL; i++)
    {
      gboolean seen = FALSE;
      for (guint j = 0; j < i && !seen; j++)
        seen = g_str_equal (all[i], all[j]);
      if (!seen)
        g_strv_builder_add (unique, all[i]);
    }
  g_clear_pointer (&self->startup_candidates, g_strfreev);
  self->startup_candidates = g_strv_builder_end (unique);
  self->startup_index = 0;
  try_next_startup_model (self);
}

gboolean
attnscope_window_get_loading (AttnscopeWindow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (self), FALSE);
  return self->loading != NULL;
}

void
attnscope_window_cancel_loading (AttnscopeWindow *self)
{
  if (self->loading != NULL)
    g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
}

/* ---- "Open Model Folder…" ---- */

static void
on_folder_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  AttnscopeWindow *window = user_data;
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;
      if (path != NULL)
        attnscope_window_open_model (window, path);
      else
        attnscope_window_show_error (window, _ ("Could not open the folder"),
                                     _ ("The folder chosen is not on the local file system."));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (window);
}

void
attnscope_window_choose_model_folder (AttnscopeWindow *window)
{
  GtkFileChooserNative *dialog
      = gtk_file_chooser_native_new (_ ("Open Model Folder"), GTK_WINDOW (window),
                                     GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _ ("_Open"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_folder_response), g_object_ref (window));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* attnscope-application.c — the application object (see attnscope-application.h).
 *
 * The GSettings schema is looked up in the default places first; an uninstalled build falls back
 * to the schema compiled into the build tree (ATTNSCOPE_BUILD_SCHEMA_DIR), so `attnscope` runs
 * straight from the build directory. Translations likewise come from the installed locale
 * directory or, uninstalled, from the build tree's po/. */
#include "attnscope-application.h"

#include "as-forward.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>
#include <glib/gi18n.h>
#include <locale.h>

#include "attnscope-download-dialog.h"
#include "attnscope-export-dialog.h"
#include "attnscope-window.h"

struct _AttnscopeApplication
{
  AdwApplication parent_instance;
  GSettings *settings;
  char *startup_model; /* --model, or NULL for the last/default model */
  char *startup_text;  /* --text, or NULL */
};

G_DEFINE_FINAL_TYPE (AttnscopeApplication, attnscope_application, ADW_TYPE_APPLICATION)

void
attnscope_application_init_i18n (void)
{
  const char *dir = ATTNSCOPE_LOCALE_DIR;
  g_autofree char *installed
      = g_build_filename (ATTNSCOPE_LOCALE_DIR, "de", "LC_MESSAGES", GETTEXT_PACKAGE ".mo", NULL);
  if (!g_file_test (installed, G_FILE_TEST_EXISTS))
    dir = ATTNSCOPE_BUILD_LOCALE_DIR;
  bindtextdomain (GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

/* The settings backend: the default, or memory when there is no session bus to reach dconf. */
static GSettingsBackend *
settings_backend (void)
{
  if (g_getenv ("GSETTINGS_BACKEND") != NULL)
    return NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (bus != NULL)
    return NULL;
  g_message ("no D-Bus session bus (%s): settings are kept in memory until attnscope quits",
             error->message);
  return g_memory_settings_backend_new ();
}

GSettings *
attnscope_application_settings_new (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, ATTNSCOPE_APPLICATION_ID, TRUE);
  if (schema == NULL)
    {
      g_autoptr (GSettingsSchemaSource) build = g_settings_schema_source_new_from_directory (
          ATTNSCOPE_BUILD_SCHEMA_DIR, source, FALSE, NULL);
      if (build != NULL)
        schema = g_settings_schema_source_lookup (build, ATTNSCOPE_APPLICATION_ID, FALSE);
    }
  if (schema == NULL)
    {
      g_message ("settings schema %s not found; settings will not be kept",
                 ATTNSCOPE_APPLICATION_ID);
      return NULL;
    }
  g_autoptr (GSettingsBackend) backend = settings_backend ();
  return g_settings_new_full (schema, backend, NULL);
}

GSettings *
attnscope_application_get_settings (AttnscopeApplication *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_APPLICATION (self), NULL);
  return self->settings;
}

static void
show_about (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkApplication *app = user_data;
  const char *developers[] = { "The attnscope authors", NULL };
  AdwAboutWindow *about = ADW_ABOUT_WINDOW (adw_about_window_new ());
  gtk_window_set_transient_for (GTK_WINDOW (about), gtk_application_get_active_window (app));
  gtk_window_set_application (GTK_WINDOW (about), app);
  adw_about_window_set_application_name (about, "attnscope");
  adw_about_window_set_application_icon (about, ATTNSCOPE_APPLICATION_ID);
  adw_about_window_set_version (about, ATTNSCOPE_VERSION);
  adw_about_window_set_developer_name (about, "The attnscope authors");
  adw_about_window_set_developers (about, developers);
  adw_about_window_set_license_type (about, GTK_LICENSE_MIT_X11);
  adw_about_window_set_comments (
      about, _ ("Look inside transformer language models: what every head of every layer attends "
                "to, how similar the token vectors are, and how two sentences differ."));
  /* Translators: your names, one per line. */
  adw_about_window_set_translator_credits (about, _ ("translator-credits"));
  gtk_window_present (GTK_WINDOW (about));
}

static void
quit (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkApplication *app = user_data;
  /* Close the windows first so they save their state. */
  GList *windows;
  while ((windows = gtk_application_get_windows (app)) != NULL)
    gtk_window_destroy (windows->data);
  g_application_quit (G_APPLICATION (app));
}

/* "Download a Model…" of the model chooser: the dialog over the active window, which opens the
 * model once it is downloaded. */
static void
download_model (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  if (!ATTNSCOPE_IS_WINDOW (active))
    return;
  AttnscopeDownloadDialog *dialog = attnscope_download_dialog_new (ATTNSCOPE_WINDOW (active));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The style manager's colour scheme for STYLE, the value of the "style" key (app.style). */
static void
apply_style (const char *style)
{
  AdwColorScheme scheme = g_strcmp0 (style, "dark") == 0    ? ADW_COLOR_SCHEME_FORCE_DARK
                          : g_strcmp0 (style, "light") == 0 ? ADW_COLOR_SCHEME_FORCE_LIGHT
                                                            : ADW_COLOR_SCHEME_DEFAULT;
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), scheme);
}

static void
style_changed (GSettings *settings, const char *key, gpointer user_data)
{
  g_autofree char *style = g_settings_get_string (settings, key);
  apply_style (style);
}

/* Without settings: the choice holds until attnscope quits. */
static void
style_change_state (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  g_simple_action_set_state (action, value);
  apply_style (g_variant_get_string (value, NULL));
}

/* app.style: light, dark or the system's style ("system"), kept in the "style" key. */
static void
add_style_action (AttnscopeApplication *self)
{
  g_autoptr (GAction) action = NULL;
  if (self->settings != NULL)
    {
      action = g_settings_create_action (self->settings, "style");
      g_signal_connect (self->settings, "changed::style", G_CALLBACK (style_changed), NULL);
      style_changed (self->settings, "style", NULL);
    }
  else
    {
      GSimpleAction *simple = g_simple_action_new_stateful ("style", G_VARIANT_TYPE_STRING,
                                                            g_variant_new_string ("system"));
      g_signal_connect (simple, "change-state", G_CALLBACK (style_change_state), NULL);
      action = G_ACTION (simple);
    }
  g_action_map_add_action (G_ACTION_MAP (self), action);
}

static const GActionEntry app_actions[] = {
  { "about", show_about, NULL, NULL, NULL, { 0 } },
  { "download-model", download_model, NULL, NULL, NULL, { 0 } },
  { "quit", quit, NULL, NULL, NULL, { 0 } },
};

static void
attnscope_application_startup (GApplication *application)
{
  AttnscopeApplication *self = ATTNSCOPE_APPLICATION (application);
  G_APPLICATION_CLASS (attnscope_application_parent_class)->startup (application);

  self->settings = attnscope_application_settings_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions),
                                   self);
  add_style_action (self);
  GtkApplication *app = GTK_APPLICATION (self);
  gtk_application_set_accels_for_action (app, "app.quit", (const char *[]){ "<Control>q", NULL });
  gtk_application_set_accels_for_action (app, "win.export-figure",
                                         (const char *[]){ "<Control>e", NULL });
  gtk_application_set_accels_for_action (app, "win.export-all-heads",
                                         (const char *[]){ "<Control><Shift>e", NULL });
  gtk_application_set_accels_for_action (app, "win.open-model-folder",
                                         (const char *[]){ "<Control>o", NULL });
  gtk_application_set_accels_for_action (app, "win.focus-entry",
                                         (const char *[]){ "<Control>l", NULL });
  gtk_application_set_accels_for_action (app, "win.annotate",
                                         (const char *[]){ "<Control>t", NULL });
  gtk_application_set_accels_for_action (app, "win.raw-tokens",
                                         (const char *[]){ "<Control>r", NULL });
}

/* The window's export actions: the export dialog for PAGE's figure. */
static void
on_export_figure (AttnscopeWindow *window, AttnscopePage *page)
{
  AttnscopeExportDialog *dialog = attnscope_export_dialog_new (window, page);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
attnscope_application_activate (GApplication *application)
{
  AttnscopeApplication *self = ATTNSCOPE_APPLICATION (application);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (application));
  if (window == NULL)
    {
      AttnscopeWindow *win = attnscope_window_new (GTK_APPLICATION (application), self->settings);
      g_signal_connect (win, "export-figure", G_CALLBACK (on_export_figure), NULL);
      if (self->startup_model != NULL)
        attnscope_window_open_model (win, self->startup_model);
      else
        attnscope_window_open_startup_model (win);
      if (self->startup_text != NULL)
        attnscope_window_set_text (win, self->startup_text);
      window = GTK_WINDOW (win);
    }
  gtk_window_present (window);
}

/* --model and --text of the command line that opens the window. */
static int
attnscope_application_handle_local_options (GApplication *application, GVariantDict *options)
{
  AttnscopeApplication *self = ATTNSCOPE_APPLICATION (application);
  g_variant_dict_lookup (options, "model", "s", &self->startup_model);
  g_variant_dict_lookup (options, "text", "s", &self->startup_text);
  return -1;
}

static void
attnscope_application_dispose (GObject *object)
{
  AttnscopeApplication *self = ATTNSCOPE_APPLICATION (object);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->startup_model, g_free);
  g_clear_pointer (&self->startup_text, g_free);
  G_OBJECT_CLASS (attnscope_application_parent_class)->dispose (object);
}

static void
attnscope_application_class_init (AttnscopeApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);
  object_class->dispose = attnscope_application_dispose;
  app_class->startup = attnscope_application_startup;
  app_class->activate = attnscope_application_activate;
  app_class->handle_local_options = attnscope_application_handle_local_options;
}

static void
attnscope_application_init (AttnscopeApplication *self)
{
  const GOptionEntry options[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, NULL,
      N_ ("Model folder, shipped model name or Hugging Face hub id to open"), N_ ("MODEL") },
    { "text", 't', 0, G_OPTION_ARG_STRING, NULL, N_ ("Text to show"), N_ ("TEXT") },
    { NULL },
  };
  g_application_add_main_option_entries (G_APPLICATION (self), options);
}

AttnscopeApplication *
attnscope_application_new (GApplicationFlags flags)
{
  return g_object_new (ATTNSCOPE_TYPE_APPLICATION, "application-id", ATTNSCOPE_APPLICATION_ID,
                       "flags", flags, "resource-base-path", "/io/github/attnscope/Attnscope",
                       NULL);
}

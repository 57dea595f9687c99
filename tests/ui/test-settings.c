/* test-settings.c — the window without a D-Bus session bus (a desktop-less login, a container):
 * with GSETTINGS_BACKEND unset and DBUS_SESSION_BUS_ADDRESS pointing nowhere, the settings fall
 * back to memory with exactly one line in the log saying so, and the toggles keep their state —
 * a second window opens with the colour map, annotation, raw tokens and autoscale the first one
 * was left with. Nothing else about settings or D-Bus is logged. */
#include <adwaita.h>
#include <string.h>

#include "gui-test-util.h"

#define TIMEOUT_MS 60000

static int bus_lines;      /* log lines naming the missing session bus */
static int settings_lines; /* log lines (messages and worse) about settings, dconf or D-Bus */

static GLogWriterOutput
count_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  /* What a user sees: messages and worse (debug output is off unless asked for). */
  if (level & (G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG))
    return g_log_writer_default (level, fields, n_fields, user_data);
  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (fields[i].key, "MESSAGE") && fields[i].length < 0)
      {
        const char *message = fields[i].value;
        if (strstr (message, "no D-Bus session bus") != NULL
            && strstr (message, "settings are kept in memory") != NULL)
          bus_lines++;
        if (strstr (message, "settings") != NULL || strstr (message, "dconf") != NULL
            || strstr (message, "D-Bus") != NULL || strstr (message, "DBus") != NULL)
          settings_lines++;
      }
  return g_log_writer_default (level, fields, n_fields, user_data);
}

static AttnscopeApplication *app;
static AttnscopeWindow *window;

static void
test_memory_fallback (void)
{
  g_assert_cmpint (bus_lines, ==, 1);
  g_assert_cmpint (settings_lines, ==, 1);
  GSettings *settings = attnscope_application_get_settings (app);
  g_assert_nonnull (settings);
  g_autoptr (GObject) backend = NULL;
  g_object_get (settings, "backend", &backend, NULL);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (backend), ==, "GMemorySettingsBackend");
}

static void
test_toggles_keep_state (void)
{
  GSettings *settings = attnscope_application_get_settings (app);
  AttnscopeViewState *v = attnscope_session_get_view (attnscope_window_get_session (window));
  /* The window starts with the schema's defaults: autoscale on, annotation on. */
  g_assert_true (attnscope_view_state_get_autoscale (v));
  g_assert_true (attnscope_view_state_get_annotate (v));
  /* The toggles, as the toolbar buttons and menu set them. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.autoscale", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.annotate", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.raw-tokens", NULL));
  attnscope_view_state_set_colormap (v, "magma");
  g_assert_false (attnscope_view_state_get_autoscale (v));
  g_assert_false (attnscope_view_state_get_annotate (v));
  g_assert_true (attnscope_view_state_get_raw_tokens (v));
  g_assert_false (g_settings_get_boolean (settings, "autoscale"));
  g_assert_false (g_settings_get_boolean (settings, "annotate"));
  g_assert_true (g_settings_get_boolean (settings, "raw-tokens"));
  g_autofree char *colormap = g_settings_get_string (settings, "colormap");
  g_assert_cmpstr (colormap, ==, "magma");

  /* A second window reads them back. */
  AttnscopeWindow *second = attnscope_window_new (GTK_APPLICATION (app), settings);
  gtk_window_present (GTK_WINDOW (second));
  g_assert_true (gui_test_wait_model (second, TIMEOUT_MS));
  AttnscopeViewState *v2 = attnscope_session_get_view (attnscope_window_get_session (second));
  g_assert_false (attnscope_view_state_get_autoscale (v2));
  g_assert_false (attnscope_view_state_get_annotate (v2));
  g_assert_true (attnscope_view_state_get_raw_tokens (v2));
  g_assert_cmpstr (attnscope_view_state_get_colormap (v2), ==, "magma");
  /* One change shows in both, through the settings. */
  attnscope_view_state_set_autoscale (v2, TRUE);
  g_assert_true (attnscope_view_state_get_autoscale (v));
  gui_test_destroy_window (GTK_WINDOW (second), FALSE, TIMEOUT_MS);
  /* Still one line about the bus. */
  g_assert_cmpint (bus_lines, ==, 1);
  g_assert_cmpint (settings_lines, ==, 1);
}

int
main (int argc, char **argv)
{
  /* No settings backend chosen and a session bus that is not there. */
  g_unsetenv ("GSETTINGS_BACKEND");
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/attnscope-test-bus", TRUE);
  g_log_set_writer_func (count_writer, NULL, NULL);
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  app = gui_test_app_new (1024, 700, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));

  g_test_add_func ("/ui/settings/memory-fallback", test_memory_fallback);
  g_test_add_func ("/ui/settings/toggles-keep-state", test_toggles_keep_state);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  return status;
}

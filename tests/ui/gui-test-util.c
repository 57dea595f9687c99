/* gui-test-util.c — main-loop and application helpers for GUI tests (see gui-test-util.h). */
#include "gui-test-util.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <gdk/x11/gdkx.h>

#include "attnscope-widgets.h"

static gboolean
timeout_reached (gpointer user_data)
{
  gboolean *flag = user_data;
  *flag = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
gui_test_wait_until (GuiTestCondition condition, gpointer user_data, guint timeout_ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, timeout_reached, &timed_out);
  while (!condition (user_data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return condition (user_data);
}

static gboolean
never (gpointer user_data)
{
  return FALSE;
}

void
gui_test_spin (guint ms)
{
  gui_test_wait_until (never, NULL, ms);
}

static gboolean
flag_set (gpointer user_data)
{
  return *(gboolean *) user_data;
}

static void
set_flag (gpointer data, GObject *where_the_object_was)
{
  *(gboolean *) data = TRUE;
}

void
gui_test_destroy_window (GtkWindow *window, gboolean close, guint timeout_ms)
{
  gboolean finalized = FALSE;
  g_object_weak_ref (G_OBJECT (window), set_flag, &finalized);
  if (close)
    gtk_window_close (window);
  else
    gtk_window_destroy (window);
  g_assert_true (gui_test_wait_until (flag_set, &finalized, timeout_ms));
}

void
gui_test_disable_animations (void)
{
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
}

void
gui_test_park_pointer (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  if (!GDK_IS_X11_DISPLAY (display))
    return;
  Display *xdisplay = gdk_x11_display_get_xdisplay (display);
  int screen = DefaultScreen (xdisplay);
  XWarpPointer (xdisplay, None, DefaultRootWindow (xdisplay), 0, 0, 0, 0,
                DisplayWidth (xdisplay, screen) - 1, DisplayHeight (xdisplay, screen) - 1);
  XFlush (xdisplay);
}

/* Key releases the window saw (in the capture phase, before any widget could take the key),
 * counted per hardware key code: a key sent through XTest has been handled once its release
 * arrived (GTK handles the press first). */
typedef struct
{
  guint keycode;
  guint released;
} KeyWatch;

static void
on_key_released (GtkEventControllerKey *controller, guint keyval, guint keycode,
                 GdkModifierType state, gpointer user_data)
{
  KeyWatch *watch = user_data;
  if (keycode == watch->keycode)
    watch->released++;
}

static KeyWatch *
key_watch (GtkWindow *window)
{
  KeyWatch *watch = g_object_get_data (G_OBJECT (window), "gui-test-key-watch");
  if (watch == NULL)
    {
      watch = g_new0 (KeyWatch, 1);
      g_object_set_data_full (G_OBJECT (window), "gui-test-key-watch", watch, g_free);
      GtkEventController *controller = gtk_event_controller_key_new ();
      gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
      g_signal_connect (controller, "key-released", G_CALLBACK (on_key_released), watch);
      gtk_widget_add_controller (GTK_WIDGET (window), controller);
    }
  return watch;
}

static gboolean
window_active (gpointer user_data)
{
  return gtk_window_is_active (user_data);
}

typedef struct
{
  KeyWatch *watch;
  guint before;
} KeyWait;

static gboolean
key_released (gpointer user_data)
{
  KeyWait *wait = user_data;
  return wait->watch->released > wait->before;
}

gboolean
gui_test_send_key (GtkWindow *window, guint keyval, GdkModifierType modifiers)
{
  GdkDisplay *display = gdk_display_get_default ();
  int event_base, error_base, major, minor;
  if (!GDK_IS_X11_DISPLAY (display))
    return FALSE;
  Display *xdisplay = gdk_x11_display_get_xdisplay (display);
  if (!XTestQueryExtension (xdisplay, &event_base, &error_base, &major, &minor))
    return FALSE;
  KeyCode code = XKeysymToKeycode (xdisplay, (KeySym) keyval);
  if (code == 0)
    return FALSE;
  /* Xvfb runs no window manager: give the window the keyboard focus the way one would, and wait
   * until GTK knows (the X server's FocusIn event). */
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  XSetInputFocus (xdisplay, gdk_x11_surface_get_xid (surface), RevertToParent, CurrentTime);
  XSync (xdisplay, False);
  if (!gui_test_wait_until (window_active, window, GUI_TEST_EVENT_TIMEOUT_MS))
    g_error ("the window did not become active after XSetInputFocus");
  KeyWait wait = { key_watch (window), 0 };
  wait.watch->keycode = code;
  wait.before = wait.watch->released;
  const struct
  {
    GdkModifierType mask;
    KeySym keysym;
  } mods[] = { { GDK_CONTROL_MASK, XK_Control_L },
               { GDK_SHIFT_MASK, XK_Shift_L },
               { GDK_ALT_MASK, XK_Alt_L } };
  for (gsize i = 0; i < G_N_ELEMENTS (mods); i++)
    if (modifiers & mods[i].mask)
      XTestFakeKeyEvent (xdisplay, XKeysymToKeycode (xdisplay, mods[i].keysym), True, 0);
  XTestFakeKeyEvent (xdisplay, code, True, 0);
  XTestFakeKeyEvent (xdisplay, code, False, 0);
  for (gsize i = G_N_ELEMENTS (mods); i-- > 0;)
    if (modifiers & mods[i].mask)
      XTestFakeKeyEvent (xdisplay, XKeysymToKeycode (xdisplay, mods[i].keysym), False, 0);
  XSync (xdisplay, False);
  if (!gui_test_wait_until (key_released, &wait, GUI_TEST_EVENT_TIMEOUT_MS))
    g_error ("the window did not receive the key it was sent (keyval 0x%x)", keyval);
  gui_test_drain ();
  return TRUE;
}

void
gui_test_drain (void)
{
  /* Bounded: an animation can keep a source ready for as long as it runs. */
  for (int i = 0; i < 1000 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

static gboolean
widget_mapped (gpointer user_data)
{
  GtkWidget *widget = user_data;
  return gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0
         && gtk_widget_get_frame_clock (widget) != NULL;
}

static void
count_paint (GdkFrameClock *clock, gpointer user_data)
{
  (*(guint *) user_data)++;
}

static gboolean
painted (gpointer user_data)
{
  return *(guint *) user_data > 0;
}

gboolean
gui_test_wait_drawn (GtkWidget *widget, guint timeout_ms)
{
  if (!gui_test_wait_until (widget_mapped, widget, timeout_ms))
    return FALSE;
  GdkFrameClock *clock = g_object_ref (gtk_widget_get_frame_clock (widget));
  guint paints = 0;
  gulong handler = g_signal_connect (clock, "after-paint", G_CALLBACK (count_paint), &paints);
  gtk_widget_queue_draw (widget);
  gboolean drawn = gui_test_wait_until (painted, &paints, timeout_ms);
  g_signal_handler_disconnect (clock, handler);
  g_object_unref (clock);
  gui_test_drain ();
  return drawn;
}

AttnscopeApplication *
gui_test_app_new (int width, int height, AttnscopeWindow **window)
{
  attnscope_application_init_i18n ();
  attnscope_widgets_init ();
  AttnscopeApplication *app = attnscope_application_new (G_APPLICATION_NON_UNIQUE);
  g_autoptr (GError) error = NULL;
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("cannot register the application: %s", error->message);
  g_application_activate (G_APPLICATION (app));
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));
  g_assert_true (ATTNSCOPE_IS_WINDOW (active));
  gtk_window_set_default_size (active, width, height);
  *window = ATTNSCOPE_WINDOW (active);
  return app;
}

static gboolean
model_loaded (gpointer user_data)
{
  return !attnscope_window_get_loading (user_data);
}

gboolean
gui_test_wait_model (AttnscopeWindow *window, guint timeout_ms)
{
  return gui_test_wait_until (model_loaded, window, timeout_ms);
}

static gboolean
runs_done (gpointer user_data)
{
  AttnscopeSession *session = attnscope_window_get_session (user_data);
  return !attnscope_window_get_loading (user_data)
         && !attnscope_run_get_running (attnscope_session_get_main (session))
         && !attnscope_run_get_running (attnscope_session_get_compare (session));
}

gboolean
gui_test_wait_runs (AttnscopeWindow *window, guint timeout_ms)
{
  return gui_test_wait_until (runs_done, window, timeout_ms);
}

static gboolean
page_ready (gpointer user_data)
{
  attnscope_page_ensure_updated (user_data);
  return !attnscope_page_get_busy (user_data);
}

gboolean
gui_test_wait_page (AttnscopePage *page, guint timeout_ms)
{
  return gui_test_wait_until (page_ready, page, timeout_ms);
}

AttnscopeRun *
gui_test_main_run (AttnscopeWindow *window)
{
  return attnscope_session_get_main (attnscope_window_get_session (window));
}

AttnscopeRun *
gui_test_compare_run (AttnscopeWindow *window)
{
  return attnscope_session_get_compare (attnscope_window_get_session (window));
}

AttnscopeViewState *
gui_test_view_state (AttnscopeWindow *window)
{
  return attnscope_session_get_view (attnscope_window_get_session (window));
}

char *
gui_test_fixture_path (const char *name)
{
  const char *src = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_assert_nonnull (src);
  return g_build_filename (src, "tests", "fixtures", name, NULL);
}

void
gui_test_open (AttnscopeWindow *window, const char *model, const char *text, guint timeout_ms)
{
  attnscope_window_open_model (window, model);
  g_assert_true (gui_test_wait_model (window, timeout_ms));
  if (text == NULL)
    return;
  attnscope_window_set_text (window, text);
  g_assert_true (gui_test_wait_runs (window, timeout_ms));
}

typedef struct
{
  char *out, *err;
  GError *error;
  gboolean done;
} Spawned;

static void
spawned (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Spawned *s = user_data;
  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result, &s->out, &s->err, &s->error);
  s->done = TRUE;
}

void
gui_test_spawn (const char *const *argv, char **out, char **err, int *status)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) process = g_subprocess_newv (
      argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  Spawned s = { 0 };
  g_subprocess_communicate_utf8_async (process, NULL, NULL, spawned, &s);
  while (!s.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (s.error);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  *out = s.out;
  *err = s.err;
  *status = g_subprocess_get_status (process);
}

AttnscopePage *
gui_test_show_page (AttnscopeWindow *window, const char *name, guint timeout_ms)
{
  AttnscopePage *p = attnscope_window_get_page (window, name);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (p, timeout_ms));
  return p;
}

void
gui_test_reset_view (AttnscopeWindow *window)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 0);
  attnscope_view_state_set_selected_token (v, -1);
  attnscope_view_state_set_colormap (v, "ylgnbu");
  attnscope_view_state_set_annotate (v, FALSE);
  attnscope_view_state_set_autoscale (v, TRUE);
  for (int f = 0; f < ATTNSCOPE_VIEW_N_FLAGS; f++)
    attnscope_view_state_set_flag (v, f, FALSE);
}

GtkEventController *
gui_test_controller_of (GtkWidget *widget, GType type)
{
  GListModel *list = gtk_widget_observe_controllers (widget);
  GtkEventController *found = NULL;
  for (guint i = 0; i < g_list_model_get_n_items (list) && found == NULL; i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (list, i);
      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type))
        found = GTK_EVENT_CONTROLLER (c);
    }
  g_object_unref (list);
  g_assert_nonnull (found);
  return found;
}

gboolean
gui_test_press_key (GtkWidget *widget, guint keyval, GdkModifierType state)
{
  gboolean handled = FALSE;
  g_signal_emit_by_name (gui_test_controller_of (widget, GTK_TYPE_EVENT_CONTROLLER_KEY),
                         "key-pressed", keyval, 0u, state, &handled);
  return handled;
}

GBytes *
gui_test_read_file (const char *path)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &data, &length, &error));
  g_assert_no_error (error);
  return g_bytes_new_take (g_steal_pointer (&data), length);
}

void
gui_test_assert_same_png (const char *name, const char *const *argv, const char *window_png,
                          const char *cli_png)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  gui_test_spawn (argv, &out, &err, &status);
  g_test_message ("%s: %s%s", name, out, err);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_no_error (error);
  g_autoptr (GBytes) a = gui_test_read_file (window_png);
  g_autoptr (GBytes) b = gui_test_read_file (cli_png);
  g_test_message ("%s: window %zu bytes, command line %zu bytes", name, g_bytes_get_size (a),
                  g_bytes_get_size (b));
  g_assert_cmpuint (g_bytes_get_size (a), >, 1000);
  if (!g_bytes_equal (a, b))
    g_error ("%s: %s and %s differ", name, window_png, cli_png); /* kept to be looked at */
  g_unlink (window_png);
  g_unlink (cli_png);
}

AttnscopeApplication *
gui_test_start (int *argc, char ***argv, AttnscopeWindow **window, guint timeout_ms)
{
  g_test_init (argc, argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  AttnscopeApplication *app = gui_test_app_new (1280, 800, window);
  g_assert_true (gui_test_wait_model (*window, timeout_ms));
  return app;
}

/* gui-test-util.h — helpers for tests and tools that drive the real application window under
 * Xvfb: start the application without D-Bus uniqueness, run the main loop until a condition
 * holds or a timeout passes, and keep the pointer out of the way. */
#pragma once

#include "attnscope-application.h"
#include "attnscope-session.h"
#include "attnscope-window.h"

G_BEGIN_DECLS

typedef gboolean (*GuiTestCondition) (gpointer user_data);

/* How long the helpers below wait for an event the X server or GTK owes them (a focus change,
 * a key's release) before they call it a failure: long, since a loaded machine only delays it. */
#define GUI_TEST_EVENT_TIMEOUT_MS 30000

/* Iterates the default main context until CONDITION (USER_DATA) is TRUE or TIMEOUT_MS passed.
 * Returns whether the condition became TRUE. */
gboolean gui_test_wait_until (GuiTestCondition condition, gpointer user_data, guint timeout_ms);

/* Iterates the main context for MS milliseconds: a fixed sleep, for the screenshot tool only (its
 * pictures need the fonts and frames settled). Tests wait for the event they need instead
 * (gui_test_wait_until and the waits below), so that a loaded machine slows them but never fails
 * them. */
void gui_test_spin (guint ms);

/* Runs what the main context has ready now (events already read, idle callbacks), without
 * waiting for more. */
void gui_test_drain (void);

/* Waits until WIDGET is mapped with a size and a frame has been laid out and painted after the
 * call (it queues a redraw), then drains what that frame left ready; FALSE when TIMEOUT_MS passed
 * first. For checks of what the user sees once a change has reached the screen. */
gboolean gui_test_wait_drawn (GtkWidget *widget, guint timeout_ms);

/* Destroys WINDOW (gtk_window_destroy), or closes it as the user does when CLOSE (close-request,
 * then destroy), and waits until it is finalized — everything its disposal queued has run; asserts
 * that happened within TIMEOUT_MS. */
void gui_test_destroy_window (GtkWindow *window, gboolean close, guint timeout_ms);

/* Turns GTK's animations off (after gtk_init), for tests that export one figure after another:
 * every export shows a toast, and libadwaita 1.2's toast overlay can free a toast whose show
 * animation then ends after its hide animation — a use-after-free that crashed such tests when
 * toasts came quickly (fixed in libadwaita 1.3: "toast-overlay: Prevent show_done from firing
 * after hide_done"). Without animations both end at once, in order. */
void gui_test_disable_animations (void);

/* Moves the pointer to the bottom right corner of the screen, where no tooltip opens (X11 only;
 * elsewhere it does nothing). */
void gui_test_park_pointer (void);

/* Presses and releases KEYVAL with MODIFIERS (Control, Shift, Alt) through the X server's XTest
 * extension, so that the key reaches WINDOW (given the keyboard focus first) as a real key press:
 * GTK's whole event path — the focus widget, its key controllers and shortcuts, bubbling up to
 * the window — handles it. Returns once the window has seen the key's release (so its press was
 * handled) and what that left ready has run; a key that never arrives within
 * GUI_TEST_EVENT_TIMEOUT_MS is a test failure. FALSE when the display is not X11 or has no XTest.
 */
gboolean gui_test_send_key (GtkWindow *window, guint keyval, GdkModifierType modifiers);

/* A registered, activated application and its window (opening the startup model). The window
 * is WIDTH × HEIGHT. Unref the application when done. */
AttnscopeApplication *gui_test_app_new (int width, int height, AttnscopeWindow **window);

/* tests/fixtures/NAME of the source tree ($ATTNSCOPE_SOURCE_DIR). Free with g_free. */
char *gui_test_fixture_path (const char *name);

/* Opens MODEL (a folder or a shipped name) in WINDOW and, when TEXT is not NULL, types TEXT;
 * asserts that both finished within TIMEOUT_MS. */
void gui_test_open (AttnscopeWindow *window, const char *model, const char *text, guint timeout_ms);

/* WINDOW's session parts: the main run, the comparison run, the view state. */
AttnscopeRun *gui_test_main_run (AttnscopeWindow *window);
AttnscopeRun *gui_test_compare_run (AttnscopeWindow *window);
AttnscopeViewState *gui_test_view_state (AttnscopeWindow *window);

/* Waits until WINDOW has finished loading a model (TRUE) or TIMEOUT_MS passed. */
gboolean gui_test_wait_model (AttnscopeWindow *window, guint timeout_ms);

/* A GUI test's start: GTest, GTK and libadwaita initialised, animations off
 * (gui_test_disable_animations), a 1280 × 800 application and its window (gui_test_app_new),
 * and the startup model loaded within TIMEOUT_MS (asserted). Unref the application when done. */
AttnscopeApplication *gui_test_start (int *argc, char ***argv, AttnscopeWindow **window,
                                      guint timeout_ms);

/* Waits until WINDOW has no model load and its session no run in flight. */
gboolean gui_test_wait_runs (AttnscopeWindow *window, guint timeout_ms);

/* Brings PAGE up to date and waits until the results it asked its analyses for arrived and it
 * shows them (TRUE), or TIMEOUT_MS passed. */
gboolean gui_test_wait_page (AttnscopePage *page, guint timeout_ms);

/* The bytes of the file PATH (asserted readable). */
GBytes *gui_test_read_file (const char *path);

/* Runs the command ARGV (NULL-terminated; it writes CLI_PNG) and asserts it succeeded and wrote
 * exactly the bytes of WINDOW_PNG (over 1000 of them), then removes both files. On a difference
 * both are kept to be looked at. NAME labels the messages. */
void gui_test_assert_same_png (const char *name, const char *const *argv, const char *window_png,
                               const char *cli_png);

/* Shows WINDOW's page NAME and waits until it is up to date (asserting it is within TIMEOUT_MS). */
AttnscopePage *gui_test_show_page (AttnscopeWindow *window, const char *name, guint timeout_ms);

/* Sets WINDOW's view to what the heatmap tests start from: one head (layer 1, head 0), no
 * selected token, the "ylgnbu" colours on each head's own range, no numbers, every flag off. */
void gui_test_reset_view (AttnscopeWindow *window);

/* WIDGET's first event controller of TYPE (asserted to exist). */
GtkEventController *gui_test_controller_of (GtkWidget *widget, GType type);

/* Presses KEYVAL with STATE on WIDGET's key controller; returns whether it was handled. */
gboolean gui_test_press_key (GtkWidget *widget, guint keyval, GdkModifierType state);

/* Runs ARGV (NULL-terminated) to its end while the main context keeps iterating, and returns
 * its stdout and stderr (*OUT, *ERR; free with g_free) and its wait status for
 * g_spawn_check_wait_status (*STATUS). A window's toasts and animations go on meanwhile:
 * blocking the loop for longer than a toast's timeout lets the toast be dismissed before its
 * show animation has run, which libadwaita 1.2 does not survive (a crash in adw_animation_skip
 * once the loop runs again). */
void gui_test_spawn (const char *const *argv, char **out, char **err, int *status);

G_END_DECLS

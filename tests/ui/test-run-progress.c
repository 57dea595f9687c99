/* test-run-progress.c — a run's pass in flight can be cancelled and its progress is shown only
 * for a long pass (ui/widgets/attnscope-run.h, "progress"; core/README.md, "Progress and cancel
 * of a pass").
 *
 * - Cancel: the trace stays the previous pass's (the same trace, not recomputed), "running"
 *   drops at once, and the cancelled pass never lands, even after its thread ends.
 * - A new text while a pass runs: the old pass is cancelled and only the new one lands.
 * - A short pass (the tiny GPT-2, ms) never shows progress: "progress" stays -1 and is never
 *   notified. */
#include <adwaita.h>

#include "as-model.h"
#include "attnscope-run.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000

static gboolean
idle (gpointer user_data)
{
  return !attnscope_run_get_running (user_data);
}

static gboolean
flag_set (gpointer user_data)
{
  return *(gboolean *) user_data;
}

static gboolean
set_flag (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
count_notify (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  (*(int *) user_data)++;
}

static void
test_cancel (void)
{
  const char *src = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_assert_nonnull (src);
  g_autofree char *path = g_build_filename (src, "tests", "fixtures", "tiny-gpt2", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (path, &error);
  g_assert_no_error (error);
  g_autoptr (AttnscopeRun) run = attnscope_run_new ();
  int progress_notes = 0, traces = 0;
  g_signal_connect (run, "notify::progress", G_CALLBACK (count_notify), &progress_notes);
  g_signal_connect (run, "notify::trace", G_CALLBACK (count_notify), &traces);
  attnscope_run_set_model (run, model);
  attnscope_run_set_text (run, "The man hit the car");
  g_assert_true (gui_test_wait_until (idle, run, TIMEOUT_MS));
  AsTrace *first = attnscope_run_get_trace (run);
  g_assert_nonnull (first);
  g_assert_cmpint (traces, ==, 1);

  /* cancelled before its thread is done: the first trace stays, now and after the thread ends */
  attnscope_run_set_text (run, "The car");
  g_assert_true (attnscope_run_get_running (run));
  attnscope_run_cancel (run);
  g_assert_false (attnscope_run_get_running (run));
  g_assert_true (attnscope_run_get_trace (run) == first);
  /* a second of the main loop: the cancelled pass's thread ends and its result is dropped */
  gboolean second = FALSE;
  g_timeout_add (1000, set_flag, &second);
  g_assert_true (gui_test_wait_until (flag_set, &second, TIMEOUT_MS));
  g_assert_true (attnscope_run_get_trace (run) == first);
  g_assert_cmpstr (attnscope_run_get_trace_text (run), ==, "The man hit the car");
  g_assert_cmpint (traces, ==, 1);

  /* a new text supersedes the pass in flight: only the newest lands */
  attnscope_run_set_text (run, "The car");
  attnscope_run_set_text (run, "The man hit the car again");
  g_assert_true (gui_test_wait_until (idle, run, TIMEOUT_MS));
  g_assert_cmpstr (attnscope_run_get_trace_text (run), ==, "The man hit the car again");
  g_assert_cmpint (traces, ==, 2);

  int done = -1, total = -1;
  g_assert_false (attnscope_run_get_progress (run, &done, &total));
  g_assert_cmpint (total, ==, 0);
  double fraction = 0;
  g_object_get (run, "progress", &fraction, NULL);
  g_assert_cmpfloat (fraction, ==, -1.0);
  g_assert_cmpint (progress_notes, ==, 0);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/ui/run-progress/cancel", test_cancel);
  return g_test_run ();
}

/* test-hostile-folders.c — the window under Xvfb opens every hostile model folder
 * (hostile-fixtures.h) the way "Open Model Folder…" does (the folder chooser hands the folder to
 * attnscope_window_open_model) and must show the error and keep its model, its text and its
 * result: no crash, no hang, nothing replaced. The unused 12 GB dataset is not hostile to a
 * loader that reads only what it needs, so that folder must open. */
#include <adwaita.h>
#include <string.h>

#include "gui-test-util.h"
#include "hostile-fixtures.h"

#define TIMEOUT_MS 60000

static AttnscopeWindow *window;
static char *tmpdir;

static void
test_hostile_folders (void)
{
  AttnscopeSession *session = attnscope_window_get_session (window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  attnscope_window_set_text (window, "The man hit the car");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AsModel *model = attnscope_session_get_model (session);
  AsTrace *trace = attnscope_run_get_trace (attnscope_session_get_main (session));
  g_assert_nonnull (model);
  g_assert_nonnull (trace);
  g_autofree char *label = g_strdup (attnscope_window_get_model_label (window));

  for (HostileCase c = 0; c < HOSTILE_N_CASES; c++)
    {
      if (hostile_case_needle (c) == NULL)
        continue; /* it loads; tested last */
      g_autofree char *dir = g_build_filename (tmpdir, hostile_case_name (c), NULL);
      g_autoptr (GError) error = NULL;
      g_assert_true (hostile_folder_write (dir, c, &error));
      g_assert_no_error (error);

      gui_test_open (window, dir, NULL, TIMEOUT_MS);
      g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
      const char *shown = attnscope_window_get_last_error (window);
      g_test_message ("%s: %s", hostile_case_name (c), shown);
      g_assert_nonnull (shown);
      g_autofree char *file = g_build_filename (dir, hostile_case_file (c), NULL);
      g_assert_nonnull (strstr (shown, file));
      g_assert_nonnull (strstr (shown, hostile_case_needle (c)));
      /* the model, its name, the text and the result stay */
      g_assert_true (attnscope_session_get_model (session) == model);
      g_assert_cmpstr (attnscope_window_get_model_label (window), ==, label);
      g_assert_cmpstr (attnscope_run_get_text (attnscope_session_get_main (session)), ==,
                       "The man hit the car");
      g_assert_true (attnscope_run_get_trace (attnscope_session_get_main (session)) == trace);
    }

  /* the tf_model.h5 files libhdf5 crashed on in-process (tests/fuzz/regressions/keras-h5) */
  const char *source = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_assert_nonnull (source);
  g_autoptr (GPtrArray) fuzzed = hostile_fuzzed_files (source);
  g_assert_cmpuint (fuzzed->len, >=, 16);
  for (guint i = 0; i < fuzzed->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("fuzzed-%u", i);
      g_autofree char *dir = g_build_filename (tmpdir, name, NULL);
      g_autoptr (GError) error = NULL;
      g_assert_true (hostile_fuzzed_folder_write (dir, source, fuzzed->pdata[i], &error));
      gui_test_open (window, dir, NULL, TIMEOUT_MS);
      g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
      g_autofree char *file = g_build_filename (dir, "tf_model.h5", NULL);
      g_assert_nonnull (strstr (attnscope_window_get_last_error (window), file));
      g_assert_true (attnscope_session_get_model (session) == model);
      g_assert_true (attnscope_run_get_trace (attnscope_session_get_main (session)) == trace);
    }

  /* the folder that lists a 12 GB dataset it does not use opens, and the text runs on it */
  g_autofree char *dir = g_build_filename (tmpdir, hostile_case_name (HOSTILE_HUGE_UNUSED), NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (hostile_folder_write (dir, HOSTILE_HUGE_UNUSED, &error));
  gui_test_open (window, dir, NULL, TIMEOUT_MS);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (attnscope_session_get_model (session) != model);
  g_assert_cmpstr (attnscope_run_get_text (attnscope_session_get_main (session)), ==,
                   "The man hit the car");
  g_assert_nonnull (attnscope_run_get_trace (attnscope_session_get_main (session)));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* A fixed budget far above what the window holds, so that the 12 GB recipes are refused for
   * what the file stores, whatever the machine's free memory. */
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", "20000000000", TRUE);
  gtk_init ();
  adw_init ();
  g_autoptr (GError) error = NULL;
  tmpdir = g_dir_make_tmp ("attnscope-hostile-XXXXXX", &error);
  g_assert_no_error (error);
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1024, 700, &window);
  g_test_add_func ("/ui/hostile-folders/open", test_hostile_folders);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  const char *rm[] = { "rm", "-rf", tmpdir, NULL };
  g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free (tmpdir);
  return status;
}

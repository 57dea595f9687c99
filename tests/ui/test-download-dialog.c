/* test-download-dialog.c — "Download a Model…" in the real window under Xvfb, against the fake
 * hub (tests/reference/hub/fake_hub.py) serving the shipped attnscope-mini slowly (1.5 MB/s):
 * - the model chooser has the item, and the application's action opens the dialog, which names
 *   the model types attnscope opens;
 * - a download shows its progress (the bar moves; bytes, speed and time left in the status
 *   line) while the window's main loop keeps running (a 10 ms timer keeps firing; no stall
 *   near the download's length);
 * - Cancel stops it, says so, keeps the .incomplete file and links nothing;
 * - Download again resumes (a Range request from the kept byte), the dialog closes and the
 *   window opens the model (its header names it; its path is the snapshot in the cache);
 * - a model the hub does not have, and a malformed id, are said in the dialog, which stays open. */
#include <glib/gstdio.h>
#include <string.h>

#include "as-hub.h"
#include "attnscope-download-dialog.h"
#include "check-close.h"
#include "gui-model-menu.h"
#include "gui-test-util.h"
#include "hub-server.h"

#define TIMEOUT_MS 60000
#define COMMIT "0123456789abcdef0123456789abcdef01234567"

static AttnscopeApplication *app;
static AttnscopeWindow *window;
static char *cache;
static char *repos;

typedef struct
{
  AttnscopeDownloadDialog *dialog;
  double fraction;
  const char *needle;
  double last;    /* the fraction seen last */
  guint distinct; /* fractions strictly between 0 and 1 seen, each larger than the last */
  guint wanted;   /* how many to wait for */
} Wait;

static gboolean
progressed (gpointer data)
{
  Wait *w = data;
  double f = attnscope_download_dialog_get_fraction (w->dialog);
  if (f > w->last && f > 0 && f < 1)
    {
      w->distinct++;
      w->last = f;
    }
  return f >= w->fraction && w->distinct >= w->wanted
         && strstr (attnscope_download_dialog_get_status (w->dialog), w->needle) != NULL;
}

static gboolean
stopped (gpointer data)
{
  return !attnscope_download_dialog_get_running (data);
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

/* The longest gap between two runs of a 10 ms timer: how long the main loop stalled. */
typedef struct
{
  gint64 last;
  gint64 longest;
  guint ticks;
} Stall;

static gboolean
tick (gpointer data)
{
  Stall *s = data;
  gint64 now = g_get_monotonic_time ();
  if (s->last > 0)
    s->longest = MAX (s->longest, now - s->last);
  s->last = now;
  s->ticks++;
  return G_SOURCE_CONTINUE;
}

static void
on_destroy (GtkWidget *widget, gpointer data)
{
  *(gboolean *) data = TRUE;
}

static HubServer *
start_hub (const char *rate)
{
  g_autofree char *mini = g_strdup_printf ("test/mini=%s/mini", repos);
  const char *args[] = { "--repo", mini, "--commit", "test/mini=" COMMIT, "--rate", rate, NULL };
  HubServer *s = hub_server_start (args);
  if (s != NULL)
    g_setenv ("HF_ENDPOINT", s->endpoint, TRUE);
  return s;
}

static gboolean
menu_has_action (GMenuModel *menu, const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *name = NULL;
      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &name)
          && g_str_equal (name, action))
        return TRUE;
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);
      if (section != NULL && menu_has_action (section, action))
        return TRUE;
    }
  return FALSE;
}

static AttnscopeDownloadDialog *
find_dialog (void)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (ATTNSCOPE_IS_DOWNLOAD_DIALOG (l->data))
      return l->data;
  return NULL;
}

static gboolean
no_dialog (gpointer unused)
{
  return find_dialog () == NULL;
}

static void
test_menu_and_action (void)
{
  g_autoptr (GMenu) menu = g_menu_new ();
  gui_model_menu_fill (menu);
  g_assert_true (menu_has_action (G_MENU_MODEL (menu), "app.download-model"));
  g_assert_null (find_dialog ());
  g_action_group_activate_action (G_ACTION_GROUP (app), "download-model", NULL);
  AttnscopeDownloadDialog *dialog = find_dialog ();
  g_assert_nonnull (dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (dialog)));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  /* the intro names the model types attnscope opens */
  g_autofree char *types = as_hub_dup_supported_types ();
  g_assert_nonnull (strstr (types, "gpt2"));
  gtk_window_close (GTK_WINDOW (dialog));
  g_assert_true (gui_test_wait_until (no_dialog, NULL, TIMEOUT_MS));
}

static void
test_cancel_resume_open (void)
{
  g_autofree char *h5_source = g_build_filename (repos, "mini", "tf_model.h5", NULL);
  g_autofree char *sha = hub_file_sha256 (h5_source);
  g_autofree char *incomplete
      = g_strdup_printf ("%s/models--test--mini/blobs/%s.incomplete", cache, sha);
  g_autofree char *snapshots = g_build_filename (cache, "models--test--mini", "snapshots", NULL);
  GStatBuf st;
  {
    g_autoptr (HubServer) slow = start_hub ("1500000");
    if (slow == NULL)
      return;
    g_autoptr (AttnscopeDownloadDialog) dialog
        = g_object_ref (attnscope_download_dialog_new (window));
    gtk_window_present (GTK_WINDOW (dialog));
    attnscope_download_dialog_set_model_id (dialog, "test/mini");
    Stall stall = { 0 };
    guint timer = g_timeout_add (10, tick, &stall);
    g_assert_true (attnscope_download_dialog_start (dialog));
    g_assert_true (attnscope_download_dialog_get_running (dialog));
    Wait w = { .dialog = dialog, .fraction = 0.15, .needle = "B/s", .wanted = 3 };
    g_assert_true (gui_test_wait_until (progressed, &w, TIMEOUT_MS));
    const char *status = attnscope_download_dialog_get_status (dialog);
    g_test_message ("status: %s", status);
    /* the window's sizes keep their no-break space (g_format_size) */
    g_assert_nonnull (strstr (status, " of 6.5\xc2\xa0MB — "));
    g_assert_nonnull (strstr (status, "B/s — "));
    g_assert_nonnull (strstr (status, " left"));
    g_source_remove (timer);
    /* The main loop ran while the file came in: the bar was drawn at three or more
     * fractions between 0 and 1 (a download on the main thread would show none). */
    g_test_message ("while downloading: %u fractions shown, %u ticks of a 10 ms timer, longest "
                    "stall %.1f ms (load of the machine included)",
                    w.distinct, stall.ticks, (double) stall.longest / 1000.0);
    g_assert_cmpuint (w.distinct, >=, 3);
    g_assert_cmpfloat (attnscope_download_dialog_get_fraction (dialog), <, 1.0);

    attnscope_download_dialog_cancel (dialog);
    g_assert_true (gui_test_wait_until (stopped, dialog, TIMEOUT_MS));
    g_assert_nonnull (strstr (attnscope_download_dialog_get_status (dialog), "Cancelled"));
    g_assert_true (gtk_widget_get_visible (GTK_WIDGET (dialog)));
    g_assert_cmpint (g_stat (incomplete, &st), ==, 0);
    g_assert_cmpint (st.st_size, >, 0);
    g_assert_false (g_file_test (snapshots, G_FILE_TEST_EXISTS));
    gtk_window_destroy (GTK_WINDOW (dialog));
  }

  g_autoptr (HubServer) hub = start_hub ("20000000");
  AttnscopeDownloadDialog *dialog = attnscope_download_dialog_new (window);
  gboolean destroyed = FALSE;
  g_signal_connect (dialog, "destroy", G_CALLBACK (on_destroy), &destroyed);
  gtk_window_present (GTK_WINDOW (dialog));
  attnscope_download_dialog_set_model_id (dialog, "test/mini");
  g_assert_true (attnscope_download_dialog_start (dialog));
  g_assert_true (gui_test_wait_until (flag_set, &destroyed, TIMEOUT_MS));
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_assert_cmpstr (attnscope_window_get_model_label (window), ==, "test/mini");
  AttnscopeSession *session = attnscope_window_get_session (window);
  AsModel *model = attnscope_session_get_model (session);
  g_assert_nonnull (model);
  g_autofree char *snapshot = g_build_filename (snapshots, COMMIT, NULL);
  g_assert_cmpstr (as_model_get_path (model), ==, snapshot);
  g_auto (GStrv) ranges = hub_server_ranges (hub, "/cdn/");
  g_assert_cmpuint (g_strv_length (ranges), ==, 1);
  g_autofree char *want = g_strdup_printf ("bytes=%" G_GINT64_FORMAT "-", (gint64) st.st_size);
  g_assert_cmpstr (ranges[0], ==, want);
  g_assert_false (g_file_test (incomplete, G_FILE_TEST_EXISTS));
}

static void
test_errors (void)
{
  g_autoptr (HubServer) hub = start_hub ("20000000");
  if (hub == NULL)
    return;
  g_autoptr (AttnscopeDownloadDialog) dialog
      = g_object_ref (attnscope_download_dialog_new (window));
  gtk_window_present (GTK_WINDOW (dialog));
  attnscope_download_dialog_set_model_id (dialog, "a/b/c");
  g_assert_false (attnscope_download_dialog_start (dialog));
  g_assert_nonnull (
      strstr (attnscope_download_dialog_get_status (dialog), "is not a Hugging Face model id"));
  attnscope_download_dialog_set_model_id (dialog, "test/nope");
  g_assert_true (attnscope_download_dialog_start (dialog));
  g_assert_true (gui_test_wait_until (stopped, dialog, TIMEOUT_MS));
  const char *status = attnscope_download_dialog_get_status (dialog);
  g_assert_nonnull (strstr (status, "Could not download"));
  g_assert_nonnull (strstr (status, "no such model"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (dialog)));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  const char *names[] = {
    "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE",  "HF_HOME",       "HF_ENDPOINT", "HF_HUB_OFFLINE",
    "HF_TOKEN",     "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "http_proxy",  "HTTP_PROXY"
  };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
  cache = g_build_filename (test_tmpdir (), "cache", NULL);
  g_setenv ("HF_HUB_CACHE", cache, TRUE);
  g_autofree char *source = test_source_path ("data/models/attnscope-mini");
  repos = g_build_filename (test_tmpdir (), "repos", NULL);
  g_autofree char *mini = g_build_filename (repos, "mini", NULL);
  const char *files[] = {
    "config.json", "merges.txt", "special_tokens_map.json", "tokenizer_config.json", "vocab.json",
    "tf_model.h5", NULL
  };
  hub_repo_folder (mini, source, files);
  app = gui_test_app_new (1000, 700, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_test_add_func ("/ui/download-dialog/menu-and-action", test_menu_and_action);
  g_test_add_func ("/ui/download-dialog/cancel-resume-open", test_cancel_resume_open);
  g_test_add_func ("/ui/download-dialog/errors", test_errors);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  test_tmpdir_cleanup ();
  g_free (cache);
  g_free (repos);
  return status;
}

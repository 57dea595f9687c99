/* test-hub-resume.c — interrupted and damaged transfers of as_hub_download, against the fake hub
 * (tests/reference/hub/fake_hub.py) serving attnscope-mini (tf_model.h5 as an LFS file):
 * - a connection dropped after 1,000,000 bytes is resumed in the same run with
 *   "Range: bytes=1000000-";
 * - a download cancelled mid-file (served at 1 MB/s) keeps blobs/<sha256>.incomplete, links
 *   nothing and writes no ref; the next run asks for the rest from exactly its size, receives
 *   only that, and ends with the right sha256 and the full tree;
 * - a server that ignores Range restarts the file, which still ends right;
 * - a corrupted .incomplete file is refused by its sha256, removed (never resumed from) and the
 *   next run starts the file afresh; a corrupted file as served (LFS: sha256; in git: the git blob
 *   hash) is refused with AS_HUB_ERROR_CHECKSUM, leaves no .incomplete and links nothing. */
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <string.h>

#include "as-error.h"
#include "as-hub.h"
#include "check-close.h"
#include "hub-repos.h"
#include "hub-server.h"

static void
test_drop_resume (void)
{
  g_autoptr (HubServer) hub = hub_start ("--drop", "tf_model.h5:1000000", NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("drop");
  g_autoptr (GError) error = NULL;
  g_autofree char *path = hub_download ("test/mini", &error);
  g_assert_no_error (error);
  hub_assert_h5_ok (path);
  g_auto (GStrv) ranges = hub_server_ranges (hub, "/cdn/");
  g_assert_cmpuint (g_strv_length (ranges), ==, 2);
  g_assert_cmpstr (ranges[0], ==, "");
  g_assert_cmpstr (ranges[1], ==, "bytes=1000000-");
  g_autofree char *tree = hub_expected_tree (hub_mini_source, hub_mini_files, HUB_COMMIT, "main");
  hub_assert_tree (cache, "test/mini", tree);
}

typedef struct
{
  AsHubDownload *download;
  GCancellable *cancellable;
  char *path;
  GError *error;
} Job;

static gpointer
run_job (gpointer data)
{
  Job *job = data;
  job->path = as_hub_download_run (job->download, job->cancellable, &job->error);
  return NULL;
}

/* Starts a download of REPO_ID and cancels it once AT bytes of tf_model.h5 are in place. */
static void
download_and_cancel (const char *repo_id, guint64 at, GError **error)
{
  Job job = { .download = as_hub_download_new (repo_id, NULL, 0, NULL),
              .cancellable = g_cancellable_new () };
  GThread *thread = g_thread_new ("download", run_job, &job);
  for (int waited = 0; waited < 60000; waited += 10)
    {
      AsHubProgress p = { 0 };
      as_hub_download_get_progress (job.download, &p);
      gboolean there = g_strcmp0 (p.file, "tf_model.h5") == 0 && p.file_done >= at;
      as_hub_progress_clear (&p);
      if (there)
        break;
      g_usleep (10 * 1000);
    }
  g_cancellable_cancel (job.cancellable);
  g_thread_join (thread);
  g_assert_null (job.path);
  g_propagate_error (error, job.error);
  as_hub_download_unref (job.download);
  g_object_unref (job.cancellable);
}

static void
test_cancel_then_resume (void)
{
  g_autofree char *cache = hub_fresh_cache ("cancel");
  g_autofree char *h5 = hub_h5_sha256 (NULL);
  g_autofree char *repo = hub_repo_dir_of (cache, "test/mini");
  g_autofree char *blob = g_build_filename (repo, "blobs", h5, NULL);
  g_autofree char *incomplete = g_strconcat (blob, ".incomplete", NULL);
  g_autofree char *snapshots = g_build_filename (repo, "snapshots", NULL);
  g_autofree char *refs = g_build_filename (repo, "refs", NULL);
  GStatBuf st;
  {
    g_autoptr (HubServer) slow = hub_start ("--rate", "1000000", NULL);
    if (slow == NULL)
      return;
    g_autoptr (GError) error = NULL;
    download_and_cancel ("test/mini", 600000, &error);
    g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
    hub_assert_error_has (error, ".incomplete");
    hub_assert_error_has (error, "resumes");
    g_assert_cmpint (g_stat (incomplete, &st), ==, 0);
    g_assert_cmpint (st.st_size, >=, 600000);
    g_assert_false (g_file_test (blob, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (snapshots, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (refs, G_FILE_TEST_EXISTS));
  }
  g_autoptr (HubServer) hub = hub_start (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = hub_download ("test/mini", &error);
  g_assert_no_error (error);
  hub_assert_h5_ok (path);
  g_auto (GStrv) ranges = hub_server_ranges (hub, "/cdn/");
  g_assert_cmpuint (g_strv_length (ranges), ==, 1);
  g_autofree char *want = g_strdup_printf ("bytes=%" G_GINT64_FORMAT "-", (gint64) st.st_size);
  g_assert_cmpstr (ranges[0], ==, want);
  /* the small files were placed (not linked) before the cancel: only the rest of the LFS
   * file is received */
  gsize size = 0;
  g_autofree char *sha = hub_h5_sha256 (&size);
  g_assert_cmpuint (hub_server_file_bytes (hub), ==, size - (gsize) st.st_size);
  g_assert_false (g_file_test (incomplete, G_FILE_TEST_EXISTS));
  g_autofree char *tree = hub_expected_tree (hub_mini_source, hub_mini_files, HUB_COMMIT, "main");
  hub_assert_tree (cache, "test/mini", tree);
}

/* Puts the first N bytes of CONTENT (the real tf_model.h5 when NULL) in the .incomplete blob. */
static void
plant_incomplete (const char *cache, const char *content, gsize n)
{
  g_autofree char *h5 = hub_h5_sha256 (NULL);
  g_autofree char *repo = hub_repo_dir_of (cache, "test/mini");
  g_autofree char *blobs = g_build_filename (repo, "blobs", NULL);
  g_autofree char *real = NULL;
  if (content == NULL)
    {
      g_autofree char *path = g_build_filename (hub_mini_source, "tf_model.h5", NULL);
      g_assert_true (g_file_get_contents (path, &real, NULL, NULL));
      content = real;
    }
  g_autofree char *name = g_strconcat (h5, ".incomplete", NULL);
  hub_write_bytes (blobs, name, content, n);
}

static void
test_ignore_range (void)
{
  g_autoptr (HubServer) hub = hub_start ("--ignore-range", NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("ignore-range");
  plant_incomplete (cache, NULL, 1000000);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = hub_download ("test/mini", &error);
  g_assert_no_error (error);
  hub_assert_h5_ok (path);
  g_auto (GStrv) ranges = hub_server_ranges (hub, "/cdn/");
  g_assert_cmpuint (g_strv_length (ranges), ==, 1);
  g_assert_cmpstr (ranges[0], ==, "bytes=1000000-");
  g_assert_cmpuint (hub_server_file_bytes (hub), ==,
                    hub_files_size (hub_mini_source, hub_mini_files));
}

static void
test_corrupt_incomplete (void)
{
  g_autoptr (HubServer) hub = hub_start (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("corrupt-incomplete");
  g_autofree char *zeros = g_malloc0 (1000000);
  plant_incomplete (cache, zeros, 1000000);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = hub_download ("test/mini", &error);
  g_assert_null (path);
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_CHECKSUM);
  hub_assert_error_has (error, "tf_model.h5");
  hub_assert_error_has (error, "sha256");
  hub_assert_nothing_linked (cache, "test/mini");
  g_autofree char *h5 = hub_h5_sha256 (NULL);
  g_autofree char *repo = hub_repo_dir_of (cache, "test/mini");
  g_autofree char *blob = g_build_filename (repo, "blobs", h5, NULL);
  g_autofree char *incomplete = g_strconcat (blob, ".incomplete", NULL);
  g_assert_false (g_file_test (incomplete, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (blob, G_FILE_TEST_EXISTS));
  /* the next run starts the file afresh */
  g_clear_error (&error);
  hub_server_clear_log (hub);
  g_autofree char *again = hub_download ("test/mini", &error);
  g_assert_no_error (error);
  hub_assert_h5_ok (again);
  g_auto (GStrv) ranges = hub_server_ranges (hub, "/cdn/");
  g_assert_cmpstr (ranges[0], ==, "");
}

static void
test_corrupt_served (void)
{
  const char *files[] = { "tf_model.h5", "vocab.json" };
  const char *needles[] = { "sha256", "git blob hash" };
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr (HubServer) hub = hub_start ("--corrupt", files[i], NULL);
      if (hub == NULL)
        return;
      g_autofree char *name = g_strdup_printf ("corrupt-%zu", i);
      g_autofree char *cache = hub_fresh_cache (name);
      g_autoptr (GError) error = NULL;
      g_autofree char *path = hub_download ("test/mini", &error);
      g_assert_null (path);
      g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_CHECKSUM);
      hub_assert_error_has (error, files[i]);
      hub_assert_error_has (error, needles[i]);
      hub_assert_error_has (error, "nothing was linked");
      hub_assert_nothing_linked (cache, "test/mini");
      /* no blob, no .incomplete of the corrupted file */
      g_autofree char *repo = hub_repo_dir_of (cache, "test/mini");
      g_autofree char *blobs = g_build_filename (repo, "blobs", NULL);
      g_autoptr (GDir) dir = g_dir_open (blobs, 0, NULL);
      const char *entry;
      guint n = 0;
      while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
        {
          g_assert_false (g_str_has_suffix (entry, ".incomplete"));
          n++;
        }
      /* the files placed before the corrupted one stay (as blobs, not linked) */
      g_assert_cmpuint (n, <, 6);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  hub_isolate_env ();
  hub_repos_make ();
  g_test_add_func ("/core/hub/resume/drop", test_drop_resume);
  g_test_add_func ("/core/hub/resume/cancel-then-resume", test_cancel_then_resume);
  g_test_add_func ("/core/hub/resume/ignore-range", test_ignore_range);
  g_test_add_func ("/core/hub/resume/corrupt-incomplete", test_corrupt_incomplete);
  g_test_add_func ("/core/hub/resume/corrupt-served", test_corrupt_served);
  int status = g_test_run ();
  hub_repos_free ();
  test_tmpdir_cleanup ();
  return status;
}

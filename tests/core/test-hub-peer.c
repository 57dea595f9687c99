/* test-hub-peer.c — attnscope's hub cache against a real peer: @huggingface/hub, Hugging Face's
 * own JavaScript client (tests/reference/hub/hub-peer.js installs it with npm), downloading from
 * the same fake hub (tests/reference/hub/fake_hub.py):
 * - the peer's snapshotDownload of the shipped attnscope-mini into another cache folder writes
 *   exactly the tree attnscope writes: the same paths, the same link targets, the same refs, the
 *   same blob bytes;
 * - pointed at attnscope's cache, the peer finds every file and receives no byte (no resolve, CDN
 *   or paths-info request); attnscope pointed at the peer's cache sends one request (the listing)
 *   and receives no byte;
 * - the same for sharded safetensors in a subfolder, file by file (downloadFileToCacheDir at the
 *   commit): the same blobs and the same deeper links.
 * Skipped, saying so, when node or npm is missing or npm cannot install the package. */
#include <glib/gstdio.h>
#include <string.h>

#include "as-hub.h"
#include "check-close.h"
#include "hub-server.h"

#define COMMIT "0123456789abcdef0123456789abcdef01234567"

static const char *const mini_files[] = {
  "config.json", "merges.txt", "special_tokens_map.json", "tokenizer_config.json", "vocab.json",
  "tf_model.h5", NULL
};
static char *repos;
static char *node;
static char *npm;
static char *workdir;

/* FALSE after skipping the test when node or npm is missing. */
static gboolean
have_node (void)
{
  if (node != NULL && npm != NULL)
    return TRUE;
  g_test_skip ("the peer check needs node and npm (install the Debian packages nodejs and npm)");
  return FALSE;
}

static HubServer *
start_hub (void)
{
  g_autofree char *mini = g_strdup_printf ("test/mini=%s/mini", repos);
  g_autofree char *sharded = g_strdup_printf ("test/sharded=%s/sharded", repos);
  const char *args[] = { "--repo", mini, "--repo", sharded, "--commit", "test/mini=" COMMIT, NULL };
  return hub_server_start (args);
}

/* Runs hub-peer.js with ARGS (NULL-terminated, after WORKDIR); FALSE after skipping the test
 * when npm could not install the package. */
static gboolean
run_peer (const char *first, ...)
{
  g_autofree char *script = test_source_path ("tests/reference/hub/hub-peer.js");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, node);
  g_ptr_array_add (argv, script);
  g_ptr_array_add (argv, workdir);
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  if (status == 3)
    {
      g_autofree char *why = g_strdup_printf (
          "npm could not install @huggingface/hub (registry unreachable?): %s", err);
      g_test_skip (why);
      return FALSE;
    }
  if (status != 0)
    g_test_message ("hub-peer.js failed (%d): %s", status, err);
  g_assert_cmpint (status, ==, 0);
  return TRUE;
}

static char *
download (const char *cache, const char *repo_id)
{
  g_setenv ("HF_HUB_CACHE", cache, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsHubDownload) d = as_hub_download_new (repo_id, NULL, 0, &error);
  g_assert_no_error (error);
  char *path = as_hub_download_run (d, NULL, &error);
  g_assert_no_error (error);
  return path;
}

static char *
cache_path (const char *name)
{
  return g_build_filename (test_tmpdir (), name, NULL);
}

static void
assert_same_tree (const char *a, const char *b, const char *skip)
{
  g_autofree char *ta = hub_tree_listing (a, skip);
  g_autofree char *tb = hub_tree_listing (b, skip);
  if (g_strcmp0 (ta, tb) != 0)
    g_test_message ("attnscope's tree:\n%s\nthe peer's tree:\n%s", ta, tb);
  g_assert_cmpstr (ta, ==, tb);
  g_assert_cmpuint (strlen (ta), >, 0);
}

static guint
file_requests (HubServer *hub)
{
  return hub_server_count (hub, NULL, "/resolve/") + hub_server_count (hub, NULL, "/cdn/")
         + hub_server_count (hub, NULL, "/paths-info/");
}

static void
test_snapshot (void)
{
  if (!have_node ())
    return;
  g_autoptr (HubServer) hub = start_hub ();
  if (hub == NULL)
    return;
  g_setenv ("HF_ENDPOINT", hub->endpoint, TRUE);
  g_autofree char *ours = cache_path ("ours");
  g_autofree char *theirs = cache_path ("theirs");
  g_autofree char *path = download (ours, "test/mini");
  if (!run_peer ("snapshot", hub->endpoint, theirs, "test/mini", NULL))
    return;
  g_autofree char *a = g_build_filename (ours, "models--test--mini", NULL);
  g_autofree char *b = g_build_filename (theirs, "models--test--mini", NULL);
  assert_same_tree (a, b, NULL);
  g_autofree char *listing = hub_tree_listing (a, NULL);
  g_test_message ("both trees:\n%s", listing);
  g_assert_nonnull (strstr (listing, "f refs/main 40 "));
  g_assert_nonnull (strstr (listing, "l snapshots/" COMMIT "/tf_model.h5 -> ../../blobs/"));

  /* the peer on attnscope's cache: nothing to fetch */
  hub_server_clear_log (hub);
  g_assert_true (run_peer ("snapshot", hub->endpoint, ours, "test/mini", NULL));
  g_assert_cmpuint (file_requests (hub), ==, 0);
  g_assert_cmpuint (hub_server_file_bytes (hub), ==, 0);
  g_assert_cmpuint (hub_server_count (hub, NULL, "/api/models/test/mini/revision/"), ==, 1);
  g_autofree char *after = hub_tree_listing (a, NULL);
  g_assert_cmpstr (after, ==, listing);

  /* attnscope on the peer's cache: the listing only */
  hub_server_clear_log (hub);
  g_autofree char *path2 = download (theirs, "test/mini");
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 1);
  g_assert_cmpuint (hub_server_file_bytes (hub), ==, 0);
}

/* The files under DIR, relative, '/'-separated. */
static void
list_files (const char *dir, const char *rel, GPtrArray *out)
{
  g_autofree char *here = rel != NULL ? g_build_filename (dir, rel, NULL) : g_strdup (dir);
  g_autoptr (GDir) handle = g_dir_open (here, 0, NULL);
  const char *name;
  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *sub = rel != NULL ? g_strconcat (rel, "/", name, NULL) : g_strdup (name);
      g_autofree char *path = g_build_filename (dir, sub, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        list_files (dir, sub, out);
      else
        g_ptr_array_add (out, g_steal_pointer (&sub));
    }
}

static void
test_files (void)
{
  if (!have_node ())
    return;
  g_autoptr (HubServer) hub = start_hub ();
  if (hub == NULL)
    return;
  g_setenv ("HF_ENDPOINT", hub->endpoint, TRUE);
  g_autofree char *ours = cache_path ("ours-sharded");
  g_autofree char *theirs = cache_path ("theirs-sharded");
  g_autofree char *snapshot = download (ours, "test/sharded");
  g_autofree char *commit = g_path_get_basename (snapshot);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  list_files (snapshot, NULL, files);
  g_assert_cmpuint (files->len, ==, 6);
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_autofree char *script = test_source_path ("tests/reference/hub/hub-peer.js");
  const char *fixed[]
      = { node, script, workdir, "files", hub->endpoint, theirs, "test/sharded", commit };
  for (gsize i = 0; i < G_N_ELEMENTS (fixed); i++)
    g_ptr_array_add (args, (char *) fixed[i]);
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (args, files->pdata[i]);
  g_ptr_array_add (args, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) args->pdata, &out, &err);
  if (status == 3)
    {
      g_test_skip ("npm could not install @huggingface/hub (registry unreachable?)");
      return;
    }
  if (status != 0)
    g_test_message ("hub-peer.js failed (%d): %s", status, err);
  g_assert_cmpint (status, ==, 0);
  g_autofree char *a = g_build_filename (ours, "models--test--sharded", NULL);
  g_autofree char *b = g_build_filename (theirs, "models--test--sharded", NULL);
  /* downloadFileToCacheDir writes no ref (snapshotDownload does) */
  assert_same_tree (a, b, "refs");
  g_autofree char *listing = hub_tree_listing (a, NULL);
  g_autofree char *deep = g_strdup_printf (
      "l snapshots/%s/weights/model-00001-of-00002.safetensors -> ../../../blobs/", commit);
  g_assert_nonnull (strstr (listing, deep));

  /* the peer on attnscope's cache: nothing to fetch */
  hub_server_clear_log (hub);
  args->pdata[5] = ours;
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  status = test_spawn ((const char *const *) args->pdata, &out, &err);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  const char *names[]
      = { "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE",  "HF_HOME",      "HF_ENDPOINT", "HF_HUB_OFFLINE",
          "HF_TOKEN",     "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
  node = g_find_program_in_path ("node");
  if (node == NULL)
    node = g_find_program_in_path ("nodejs");
  npm = g_find_program_in_path ("npm");
  const char *build = g_getenv ("ATTNSCOPE_BUILD_DIR");
  workdir
      = g_build_filename (build != NULL ? build : test_tmpdir (), "tests", "hub-peer-npm", NULL);
  g_autofree char *source = test_source_path ("data/models/attnscope-mini");
  repos = g_build_filename (test_tmpdir (), "repos", NULL);
  g_autofree char *mini = g_build_filename (repos, "mini", NULL);
  hub_repo_folder (mini, source, mini_files);
  g_autofree char *sharded = g_build_filename (repos, "sharded", NULL);
  const char *small[] = { "config.json", "vocab.json", "merges.txt", NULL };
  hub_repo_folder (sharded, source, small);
  g_autofree char *index = g_build_filename (sharded, "model.safetensors.index.json", NULL);
  g_assert_true (g_file_set_contents (
      index,
      "{\"weight_map\": {\"a\": \"weights/model-00001-of-00002.safetensors\", \"b\": "
      "\"weights/model-00002-of-00002.safetensors\"}}",
      -1, NULL));
  g_autofree char *weights = g_build_filename (sharded, "weights", NULL);
  g_assert_cmpint (g_mkdir_with_parents (weights, 0755), ==, 0);
  for (int k = 1; k <= 2; k++)
    {
      g_autofree char *name = g_strdup_printf ("model-0000%d-of-00002.safetensors", k);
      g_autofree char *path = g_build_filename (weights, name, NULL);
      g_autofree char *bytes = g_strnfill (70000 + k, (char) ('a' + k));
      g_assert_true (g_file_set_contents (path, bytes, -1, NULL));
    }
  g_test_add_func ("/core/hub/peer/snapshot", test_snapshot);
  g_test_add_func ("/core/hub/peer/files-sharded", test_files);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (repos);
  g_free (node);
  g_free (npm);
  g_free (workdir);
  return status;
}

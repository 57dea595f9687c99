/* test-hub-download.c — as_hub_download against the fake hub (tests/reference/hub/fake_hub.py on
 * 127.0.0.1), the shipped attnscope-mini served as a repository (tf_model.h5 as an LFS file
 * behind a CDN redirect, the rest in git):
 * - a full download writes exactly the cache tree huggingface_hub writes — blobs named by their
 *   etag (sha256 for LFS, the git blob hash otherwise, both computed here independently),
 *   relative links in snapshots/<commit>/, refs/main holding the commit without a newline — and
 *   fetches nothing else (not the pickle, README, ONNX or Flax files the repository also has);
 * - a second download sends one request (the listing) and receives no file byte;
 * - sharded safetensors: the index is read and its shards (here in a subfolder, so the links go
 *   one folder deeper) are fetched;
 * (test-hub-resume.c: interrupted and damaged transfers)
 * - 401/403/404 say what is wrong and how to fix it (a gated model: set a token);
 * - offline mode never connects; no network says so, and names a snapshot the cache already has;
 * - a pickle-only repository and a model type no family reads are refused before any weight is
 *   fetched; revisions other than main write their refs (refs/pr/1 as refs/refs/pr/1). */
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <string.h>

#include "as-error.h"
#include "as-hub.h"
#include "check-close.h"
#include "hub-repos.h"
#include "hub-server.h"

static void
test_full_then_cached (void)
{
  g_autoptr (HubServer) hub = hub_start (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("full");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) done = NULL;
  g_autofree char *path = hub_download_full ("test/extra", NULL, 0, &done, &error);
  g_assert_no_error (error);
  g_autofree char *repo = hub_repo_dir_of (cache, "test/extra");
  g_autofree char *want_path = g_build_filename (repo, "snapshots", HUB_EXTRA_COMMIT, NULL);
  g_assert_cmpstr (path, ==, want_path);
  g_autofree char *tree
      = hub_expected_tree (hub_mini_source, hub_mini_files, HUB_EXTRA_COMMIT, "main");
  hub_assert_tree (cache, "test/extra", tree);
  g_assert_cmpuint (done->len, ==, 6);
  for (guint i = 0; i < done->len; i++)
    g_assert_false (((AsHubFileDone *) done->pdata[i])->cached);

  /* one listing, a HEAD per file, the bytes: small files from resolve, the LFS file from the
   * CDN the HEAD's redirect named; nothing of the files attnscope does not read */
  g_assert_cmpuint (hub_server_count (hub, "GET", "/api/models/test/extra/revision/main"), ==, 1);
  g_assert_cmpuint (hub_server_count (hub, "HEAD", "/resolve/" HUB_EXTRA_COMMIT "/"), ==, 6);
  g_assert_cmpuint (hub_server_count (hub, "GET", "/resolve/"), ==, 5);
  g_assert_cmpuint (hub_server_count (hub, "GET", "/cdn/"), ==, 1);
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 13);
  const char *never[] = { "pytorch_model", "README", "onnx", "flax", "heldout" };
  for (gsize i = 0; i < G_N_ELEMENTS (never); i++)
    g_assert_cmpuint (hub_server_count (hub, NULL, never[i]), ==, 0);
  g_assert_cmpuint (hub_server_file_bytes (hub), ==,
                    hub_files_size (hub_mini_source, hub_mini_files));
  /* huggingface_hub's lock files, one per blob written */
  g_autofree char *h5 = hub_h5_sha256 (NULL);
  g_autofree char *lock_name = g_strconcat (h5, ".lock", NULL);
  g_autofree char *lock
      = g_build_filename (cache, ".locks", "models--test--extra", lock_name, NULL);
  g_assert_true (g_file_test (lock, G_FILE_TEST_IS_REGULAR));

  /* again: the listing only, not a byte of a file */
  hub_server_clear_log (hub);
  g_autoptr (GPtrArray) again = NULL;
  g_autofree char *path2 = hub_download_full ("test/extra", NULL, 0, &again, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (path2, ==, want_path);
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 1);
  g_assert_cmpuint (hub_server_file_bytes (hub), ==, 0);
  g_assert_cmpuint (again->len, ==, 6);
  for (guint i = 0; i < again->len; i++)
    g_assert_true (((AsHubFileDone *) again->pdata[i])->cached);
  hub_assert_tree (cache, "test/extra", tree);
}

static void
test_sharded_subfolder (void)
{
  g_autoptr (HubServer) hub = hub_start (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("sharded");
  g_autoptr (GError) error = NULL;
  g_autofree char *path = hub_download ("test/sharded", &error);
  g_assert_no_error (error);
  g_autofree char *source = hub_repo_path ("sharded");
  const char *files[] = { "config.json",
                          "vocab.json",
                          "merges.txt",
                          "model.safetensors.index.json",
                          "weights/model-00001-of-00002.safetensors",
                          "weights/model-00002-of-00002.safetensors",
                          NULL };
  /* the fake hub's commit for the folder: read from the snapshot's name */
  g_autofree char *commit = g_path_get_basename (path);
  g_assert_cmpuint (strlen (commit), ==, 40);
  g_autofree char *tree = hub_expected_tree (source, files, commit, "main");
  hub_assert_tree (cache, "test/sharded", tree);
  g_assert_cmpuint (hub_server_count (hub, NULL, "pytorch_model"), ==, 0);
  g_assert_cmpuint (hub_server_count (hub, "GET", "/cdn/"), ==, 2);
}

static void
test_http_errors (void)
{
  g_autofree char *gated = hub_repo_path ("mini");
  g_autofree char *gated_arg = g_strdup_printf ("test/gated=%s", gated);
  g_autoptr (HubServer) hub
      = hub_start ("--repo", gated_arg, "--gated", "test/gated=hf_good", NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("errors");
  g_autoptr (GError) error = NULL;

  /* no such model: 401 RepoNotFound without a token */
  g_assert_null (hub_download ("test/nope", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NOT_FOUND);
  hub_assert_error_has (error, "test/nope: no such model");
  hub_assert_error_has (error, "HF_TOKEN");
  hub_assert_error_has (error, "no token was sent");
  g_clear_error (&error);
  /* with a token: 404 */
  g_setenv ("HF_TOKEN", "hf_other", TRUE);
  g_assert_null (hub_download ("test/nope", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NOT_FOUND);
  hub_assert_error_has (error, "HTTP 404");
  hub_assert_error_has (error, "the token from HF_TOKEN was sent");
  g_clear_error (&error);
  g_unsetenv ("HF_TOKEN");

  /* no such revision */
  g_assert_null (hub_download_full ("test/mini", "nope", 0, NULL, &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NOT_FOUND);
  hub_assert_error_has (error, "test/mini has no revision 'nope'");
  g_clear_error (&error);

  /* gated: 401 without a token, 403 with a wrong one, fine with the right one */
  g_assert_null (hub_download ("test/gated", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DENIED);
  hub_assert_error_has (error, "test/gated is a gated model (HTTP 401, no token was sent)");
  hub_assert_error_has (error, "export HF_TOKEN=");
  hub_assert_error_has (error, "$HF_HOME/token");
  g_autofree char *page = g_strdup_printf ("%s/test/gated", hub->endpoint);
  hub_assert_error_has (error, page);
  g_clear_error (&error);
  g_setenv ("HF_TOKEN", "hf_wrong", TRUE);
  g_assert_null (hub_download ("test/gated", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DENIED);
  hub_assert_error_has (error, "(HTTP 403, the token from HF_TOKEN was sent)");
  hub_assert_error_has (error, "the token from HF_TOKEN was sent");
  g_clear_error (&error);
  g_autofree char *token_home = g_build_filename (test_tmpdir (), "token-home", NULL);
  g_autofree char *token_file = g_build_filename (token_home, "token", NULL);
  hub_write_bytes (token_home, "token", "hf_good\n", 8);
  g_unsetenv ("HF_TOKEN");
  g_setenv ("HF_HOME", token_home, TRUE);
  g_autofree char *path = hub_download ("test/gated", &error);
  g_assert_no_error (error);
  g_assert_nonnull (path);
  g_unsetenv ("HF_HOME");
  hub_assert_nothing_linked (cache, "test/nope");
}

static void
test_offline (void)
{
  g_autoptr (HubServer) hub = hub_start (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("offline");
  g_autoptr (GError) error = NULL;
  g_setenv ("HF_HUB_OFFLINE", "1", TRUE);
  g_assert_null (hub_download ("test/mini", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_OFFLINE);
  hub_assert_error_has (error, "unset HF_HUB_OFFLINE");
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 0);
  g_clear_error (&error);
  g_unsetenv ("HF_HUB_OFFLINE");
  g_autofree char *online = hub_download ("test/mini", &error);
  g_assert_no_error (error);
  hub_server_clear_log (hub);
  g_setenv ("HF_HUB_OFFLINE", "yes", TRUE);
  g_autofree char *offline = hub_download ("test/mini", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (offline, ==, online);
  g_autofree char *by_commit = hub_download_full ("test/mini", HUB_COMMIT, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (by_commit, ==, online);
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 0);
  g_unsetenv ("HF_HUB_OFFLINE");
}

/* A loopback port nothing listens on. */
static int
closed_port (void)
{
  g_autoptr (GSocket) socket
      = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  g_autoptr (GSocketAddress) bound = g_socket_get_local_address (socket, NULL);
  int port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);
  return port;
}

static void
test_no_network (void)
{
  g_autofree char *cache = hub_fresh_cache ("no-network");
  g_autofree char *endpoint = g_strdup_printf ("http://127.0.0.1:%d", closed_port ());
  g_setenv ("HF_ENDPOINT", endpoint, TRUE);
  g_autoptr (GError) error = NULL;
  g_assert_null (hub_download ("test/mini", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK);
  hub_assert_error_has (error, "cannot reach");
  hub_assert_error_has (error, endpoint);
  g_clear_error (&error);
  /* with the model in the cache, the message says where it is */
  {
    g_autoptr (HubServer) hub = hub_start (NULL);
    if (hub == NULL)
      return;
    g_autofree char *path = hub_download ("test/mini", &error);
    g_assert_no_error (error);
  }
  g_setenv ("HF_ENDPOINT", endpoint, TRUE);
  g_assert_null (hub_download ("test/mini", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK);
  hub_assert_error_has (error, "the cache has test/mini at revision main");
  hub_assert_error_has (error, "--model test/mini");
}

static void
test_unusable (void)
{
  g_autoptr (HubServer) hub = hub_start (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("unusable");
  g_autoptr (GError) error = NULL;
  g_assert_null (hub_download ("test/pickle", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE);
  hub_assert_error_has (error, "pytorch_model.bin");
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 1);
  g_clear_error (&error);

  hub_server_clear_log (hub);
  g_assert_null (hub_download ("test/t5", &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE);
  hub_assert_error_has (error, "a model of type pegasus");
  hub_assert_error_has (error, "gpt2");
  hub_assert_error_has (error, "--any-family");
  g_assert_cmpuint (hub_server_count (hub, NULL, "model.safetensors"), ==, 0);
  hub_assert_nothing_linked (cache, "test/t5");
  g_clear_error (&error);
  g_autofree char *path
      = hub_download_full ("test/t5", NULL, AS_HUB_DOWNLOAD_ANY_FAMILY, NULL, &error);
  g_assert_no_error (error);
  g_autofree char *weights = g_build_filename (path, "model.safetensors", NULL);
  g_assert_true (g_file_test (weights, G_FILE_TEST_IS_REGULAR));
}

static void
test_revisions (void)
{
  g_autoptr (HubServer) hub
      = hub_start ("--ref", "test/mini=v1.0", "--ref", "test/mini=refs/pr/1", NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = hub_fresh_cache ("revisions");
  g_autoptr (GError) error = NULL;
  /* a commit: no ref is written, as snapshot_download does */
  g_autofree char *a = hub_download_full ("test/mini", HUB_COMMIT, 0, NULL, &error);
  g_assert_no_error (error);
  g_autofree char *tree = hub_expected_tree (hub_mini_source, hub_mini_files, HUB_COMMIT, NULL);
  hub_assert_tree (cache, "test/mini", tree);
  g_autofree char *b = hub_download_full ("test/mini", "v1.0", 0, NULL, &error);
  g_assert_no_error (error);
  g_autofree char *c = hub_download_full ("test/mini", "refs/pr/1", 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (a, ==, c);
  g_autofree char *repo = hub_repo_dir_of (cache, "test/mini");
  g_autofree char *tag = g_build_filename (repo, "refs", "v1.0", NULL);
  g_autofree char *pr = g_build_filename (repo, "refs", "refs", "pr", "1", NULL);
  g_autofree char *tag_commit = NULL, *pr_commit = NULL;
  g_assert_true (g_file_get_contents (tag, &tag_commit, NULL, NULL));
  g_assert_true (g_file_get_contents (pr, &pr_commit, NULL, NULL));
  g_assert_cmpstr (tag_commit, ==, HUB_COMMIT);
  g_assert_cmpstr (pr_commit, ==, HUB_COMMIT);
  g_assert_cmpuint (hub_server_count (hub, "GET", "/revision/refs%2Fpr%2F1"), ==, 1);
  /* the files came once: the later revisions found every file in the snapshot */
  g_assert_cmpuint (hub_server_count (hub, "HEAD", NULL), ==, 6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  hub_isolate_env ();
  hub_repos_make ();
  g_test_add_func ("/core/hub/download/full-then-cached", test_full_then_cached);
  g_test_add_func ("/core/hub/download/sharded-subfolder", test_sharded_subfolder);
  g_test_add_func ("/core/hub/download/http-errors", test_http_errors);
  g_test_add_func ("/core/hub/download/offline", test_offline);
  g_test_add_func ("/core/hub/download/no-network", test_no_network);
  g_test_add_func ("/core/hub/download/unusable", test_unusable);
  g_test_add_func ("/core/hub/download/revisions", test_revisions);
  int status = g_test_run ();
  hub_repos_free ();
  test_tmpdir_cleanup ();
  return status;
}

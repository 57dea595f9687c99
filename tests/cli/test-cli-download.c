/* test-cli-download.c — `attnscope download` and `attnscope list` as a user runs them, against
 * the fake hub (tests/reference/hub/fake_hub.py) serving the shipped attnscope-mini:
 * - into a pipe: plain lines (the model, commit and cache folder; the files and their total;
 *   each file as it is placed; a progress line on the long file at most every five seconds; the
 *   bytes received and the speed) ending with the snapshot folder; no carriage return;
 * - on a terminal (under script(1)): a bar redrawn in place with the percentage, bytes, speed and
 *   time left;
 * - the downloaded model runs: `predict --model test/mini` prints what `predict --model
 *   attnscope-mini` prints; a second download receives nothing (one request, the listing);
 * - `list` (text and JSON): id, revision, commit, size, model type, whether it opens (and why
 *   not, for a model type no family reads);
 * - `--model ORG/NAME` that is not cached says how to download it and sends no request;
 * - errors: no such model, a malformed id, usage; Ctrl-C keeps what was received, exits 130 and
 *   the next run resumes from that byte; a full disk (a 1 MB tmpfs in a user namespace) is
 *   refused before any byte is fetched, and a disk that fills mid-file (an 8 MB tmpfs filled
 *   once the weights come in) fails saying so and keeping what was written. */
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "check-close.h"
#include "cli-support.h"
#include "hub-server.h"

#define COMMIT "0123456789abcdef0123456789abcdef01234567"

static const char *const mini_files[] = {
  "config.json", "merges.txt", "special_tokens_map.json", "tokenizer_config.json", "vocab.json",
  "tf_model.h5", NULL
};
static char *mini_source;
static char *repos;

static HubServer *
start_hub (const char *extra, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  const char *names[] = { "mini", "t5" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_ptr_array_add (args, g_strdup ("--repo"));
      g_ptr_array_add (args, g_strdup_printf ("test/%s=%s/%s", names[i], repos, names[i]));
    }
  g_ptr_array_add (args, g_strdup ("--commit"));
  g_ptr_array_add (args, g_strdup ("test/mini=" COMMIT));
  va_list ap;
  va_start (ap, extra);
  for (const char *a = extra; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (args, g_strdup (a));
  va_end (ap);
  g_ptr_array_add (args, NULL);
  HubServer *s = hub_server_start ((const char *const *) args->pdata);
  if (s != NULL)
    g_setenv ("HF_ENDPOINT", s->endpoint, TRUE);
  return s;
}

static char *
fresh_cache (const char *name)
{
  char *dir = g_build_filename (test_tmpdir (), "caches", name, NULL);
  g_setenv ("HF_HUB_CACHE", dir, TRUE);
  return dir;
}

static char *
snapshot_of (const char *cache)
{
  return g_build_filename (cache, "models--test--mini", "snapshots", COMMIT, NULL);
}

/* The last line of TEXT (without its newline). */
static char *
last_line (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines);
  g_assert_cmpuint (n, >=, 2);
  g_assert_cmpstr (lines[n - 1], ==, "");
  return g_strdup (lines[n - 2]);
}

static void
assert_has (const char *text, const char *needle)
{
  if (strstr (text, needle) == NULL)
    g_test_message ("\"%s\" lacks \"%s\"", text, needle);
  g_assert_nonnull (strstr (text, needle));
}

static void
test_download_plain (void)
{
  /* slow enough (1 MB/s) that the 6.4 MB weight file gets a progress line after 5 s */
  g_autoptr (HubServer) hub = start_hub ("--rate", "1000000", NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = fresh_cache ("plain");
  g_auto (Run) r = run_cli ("download", "test/mini", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_null (strchr (r.out, '\r'));
  g_autofree char *snapshot = snapshot_of (cache);
  g_autofree char *last = last_line (r.out);
  g_assert_cmpstr (last, ==, snapshot);
  g_autofree char *head = g_strdup_printf ("test/mini, revision main (commit 0123456789ab), into "
                                           "%s/models--test--mini\n6 files, 6.5 MB\n",
                                           cache);
  g_assert_true (g_str_has_prefix (r.out, head));
  for (guint i = 0; mini_files[i] != NULL; i++)
    {
      g_autofree char *line = g_strdup_printf ("\n  %s  ", mini_files[i]);
      assert_has (r.out, line);
    }
  assert_has (r.out, "  tf_model.h5: ");
  assert_has (r.out, "% of the file; ");
  assert_has (r.out, "B/s, ");
  assert_has (r.out, " left\n");
  assert_has (r.out, "\ndone: 6.5 MB received in 0:0");
  g_autofree char *h5 = g_build_filename (snapshot, "tf_model.h5", NULL);
  g_assert_true (g_file_test (h5, G_FILE_TEST_IS_REGULAR));

  /* the model runs, as the shipped one does */
  g_auto (Run) shipped = run_cli ("predict", "--model", "attnscope-mini", "--text",
                                  "The man hit the", "--top", "5", NULL);
  g_auto (Run) cached = run_cli ("predict", "--model", "test/mini", "--text", "The man hit the",
                                 "--top", "5", NULL);
  g_assert_cmpint (shipped.status, ==, 0);
  g_assert_cmpint (cached.status, ==, 0);
  g_assert_cmpstr (cached.out, ==, shipped.out);
  g_assert_cmpuint (strlen (cached.out), >, 20);

  /* again: nothing received, one request */
  hub_server_clear_log (hub);
  g_auto (Run) again = run_cli ("download", "test/mini", NULL);
  g_assert_cmpint (again.status, ==, 0);
  assert_has (again.out, "(6.5 MB of it in the cache already)");
  assert_has (again.out, "  tf_model.h5  6.4 MB  (in the cache)\n");
  assert_has (again.out, "done: every file was in the cache, nothing was received\n");
  g_autofree char *again_last = last_line (again.out);
  g_assert_cmpstr (again_last, ==, snapshot);
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 1);
  g_assert_cmpuint (hub_server_file_bytes (hub), ==, 0);

  /* offline: no request, the cached folder */
  hub_server_clear_log (hub);
  g_setenv ("HF_HUB_OFFLINE", "1", TRUE);
  g_auto (Run) offline = run_cli ("download", "test/mini", NULL);
  g_unsetenv ("HF_HUB_OFFLINE");
  g_assert_cmpint (offline.status, ==, 0);
  assert_has (offline.out, "HF_HUB_OFFLINE is set");
  g_autofree char *offline_last = last_line (offline.out);
  g_assert_cmpstr (offline_last, ==, snapshot);
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 0);
}

static void
test_list (void)
{
  g_autoptr (HubServer) hub = start_hub (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = fresh_cache ("list");
  g_auto (Run) empty = run_cli ("list", NULL);
  g_assert_cmpint (empty.status, ==, 0);
  assert_has (empty.out, "no models in the Hugging Face cache");
  g_auto (Run) a = run_cli ("download", "test/mini", NULL);
  g_auto (Run) b = run_cli ("download", "--any-family", "test/t5", NULL);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_auto (Run) r = run_cli ("list", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *header = g_strdup_printf ("Hugging Face cache: %s\n", cache);
  g_assert_true (g_str_has_prefix (r.out, header));
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  g_assert_true (g_str_has_prefix (lines[1], "ID "));
  g_auto (GStrv) mini = g_strsplit_set (lines[2], " ", -1);
  g_autoptr (GStrvBuilder) cells_builder = g_strv_builder_new ();
  for (guint i = 0; mini[i] != NULL; i++)
    if (*mini[i] != '\0')
      g_strv_builder_add (cells_builder, mini[i]);
  g_auto (GStrv) cells = g_strv_builder_end (cells_builder);
  g_assert_cmpuint (g_strv_length (cells), ==, 7);
  g_assert_cmpstr (cells[0], ==, "test/mini");
  g_assert_cmpstr (cells[1], ==, "main");
  g_assert_cmpstr (cells[2], ==, "0123456789ab");
  g_assert_cmpstr (cells[3], ==, "6.5");
  g_assert_cmpstr (cells[4], ==, "MB");
  g_assert_cmpstr (cells[5], ==, "gpt2");
  g_assert_cmpstr (cells[6], ==, "yes");
  assert_has (lines[3], "test/t5");
  assert_has (lines[3], "no: model type pegasus is none attnscope opens");

  g_auto (Run) j = run_cli ("list", "--json", NULL);
  g_assert_cmpint (j.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (j.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "cache"), ==, cache);
  JsonArray *models = json_object_get_array_member (o, "models");
  g_assert_cmpuint (json_array_get_length (models), ==, 2);
  JsonObject *m = json_array_get_object_element (models, 0);
  g_assert_cmpstr (json_object_get_string_member (m, "id"), ==, "test/mini");
  g_assert_cmpstr (json_object_get_string_member (m, "commit"), ==, COMMIT);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (m, "refs"), 0), ==,
                   "main");
  g_assert_cmpstr (json_object_get_string_member (m, "model_type"), ==, "gpt2");
  g_assert_true (json_object_get_boolean_member (m, "opens"));
  gint64 total = 0;
  for (guint i = 0; mini_files[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (mini_source, mini_files[i], NULL);
      GStatBuf st;
      g_assert_cmpint (g_stat (path, &st), ==, 0);
      total += st.st_size;
    }
  g_assert_cmpint (json_object_get_int_member (m, "size"), ==, total);
  JsonObject *t5 = json_array_get_object_element (models, 1);
  g_assert_false (json_object_get_boolean_member (t5, "opens"));
  g_assert_cmpstr (json_object_get_string_member (t5, "model_type"), ==, "pegasus");
}

static void
test_not_cached (void)
{
  g_autoptr (HubServer) hub = start_hub (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = fresh_cache ("not-cached");
  g_auto (Run) r = run_cli ("info", "--model", "test/other", NULL);
  assert_error (&r, 1, "to download it from the hub: attnscope download test/other");
  g_auto (Run) p = run_cli ("predict", "--model", "test/other", "--text", "a", NULL);
  assert_error (&p, 1, "attnscope download test/other");
  g_assert_cmpuint (hub_server_count (hub, NULL, NULL), ==, 0);
}

static void
test_errors (void)
{
  g_autoptr (HubServer) hub = start_hub (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = fresh_cache ("errors");
  g_auto (Run) nope = run_cli ("download", "test/nope", NULL);
  assert_error (&nope, 1, "test/nope: no such model");
  g_auto (Run) bad = run_cli ("download", "a/b/c", NULL);
  assert_error (&bad, 1, "'a/b/c' is not a Hugging Face model id");
  g_auto (Run) rev = run_cli ("download", "--revision", "../x", "test/mini", NULL);
  assert_error (&rev, 1, "--revision '../x' is not a revision");
  g_auto (Run) none = run_cli ("download", NULL);
  assert_error (&none, 2, "expected one model id");
  g_auto (Run) two = run_cli ("download", "a", "b", NULL);
  assert_error (&two, 2, NULL);
  g_auto (Run) list_arg = run_cli ("list", "x", NULL);
  assert_error (&list_arg, 2, NULL);
  g_autofree char *repo = g_build_filename (cache, "models--test--nope", NULL);
  g_assert_false (g_file_test (repo, G_FILE_TEST_EXISTS));
}

static void
test_interrupt (void)
{
  g_autofree char *cache = fresh_cache ("interrupt");
  g_autofree char *h5 = g_build_filename (mini_source, "tf_model.h5", NULL);
  g_autofree char *sha = hub_file_sha256 (h5);
  g_autofree char *incomplete
      = g_strdup_printf ("%s/models--test--mini/blobs/%s.incomplete", cache, sha);
  g_autofree char *snapshots = g_build_filename (cache, "models--test--mini", "snapshots", NULL);
  GStatBuf st;
  {
    g_autoptr (HubServer) slow = start_hub ("--rate", "500000", NULL);
    if (slow == NULL)
      return;
    const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"), "download", "test/mini", NULL };
    GPid pid;
    int out_fd = -1, err_fd = -1;
    g_autoptr (GError) error = NULL;
    g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                             NULL, NULL, &pid, NULL, &out_fd, &err_fd, &error));
    g_assert_no_error (error);
    for (int waited = 0; waited < 30000; waited += 10)
      {
        if (g_stat (incomplete, &st) == 0 && st.st_size >= 400000)
          break;
        g_usleep (10 * 1000);
      }
    kill (pid, SIGINT);
    int status = 0;
    waitpid (pid, &status, 0);
    g_spawn_close_pid (pid);
    g_autoptr (GIOChannel) err_channel = g_io_channel_unix_new (err_fd);
    g_io_channel_set_close_on_unref (err_channel, TRUE);
    g_autofree char *err = NULL;
    g_io_channel_read_to_end (err_channel, &err, NULL, NULL);
    close (out_fd);
    g_assert_true (WIFEXITED (status));
    g_assert_cmpint (WEXITSTATUS (status), ==, 130);
    g_assert_true (g_str_has_prefix (err, "attnscope: interrupted: "));
    assert_has (err, "the next download resumes there");
    g_assert_cmpint (g_stat (incomplete, &st), ==, 0);
    g_assert_cmpint (st.st_size, >=, 400000);
    g_assert_false (g_file_test (snapshots, G_FILE_TEST_EXISTS));
  }
  g_autoptr (HubServer) hub = start_hub (NULL);
  g_auto (Run) r = run_cli ("download", "test/mini", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) ranges = hub_server_ranges (hub, "/cdn/");
  g_assert_cmpuint (g_strv_length (ranges), ==, 1);
  g_autofree char *want = g_strdup_printf ("bytes=%" G_GINT64_FORMAT "-", (gint64) st.st_size);
  g_assert_cmpstr (ranges[0], ==, want);
  g_autofree char *snapshot = snapshot_of (cache);
  g_autofree char *got_path = g_build_filename (snapshot, "tf_model.h5", NULL);
  g_autofree char *got = hub_file_sha256 (got_path);
  g_assert_cmpstr (got, ==, sha);
}

static void
test_terminal (void)
{
  g_autofree char *script = g_find_program_in_path ("script");
  if (script == NULL)
    {
      g_test_skip ("script(1) (util-linux) is not installed: no terminal to draw the bar on");
      return;
    }
  g_autoptr (HubServer) hub = start_hub ("--rate", "3000000", NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = fresh_cache ("terminal");
  g_autofree char *command = g_strdup_printf (
      "stty cols 120 2>/dev/null; exec '%s' download test/mini", g_getenv ("ATTNSCOPE_BIN"));
  const char *argv[] = { script, "-qec", command, "/dev/null", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  g_assert_cmpint (status, ==, 0);
  assert_has (out, "\r  [");
  assert_has (out, "%  ");
  assert_has (out, " MB/s, ");
  assert_has (out, " left  tf_model.h5");
  assert_has (out, "\033[K");
  g_autofree char *snapshot = snapshot_of (cache);
  assert_has (out, snapshot);
}

/* unshare(1) when it can make a user and mount namespace (to mount a small tmpfs), else NULL
 * after skipping the test. */
static char *
find_unshare (void)
{
  char *unshare = g_find_program_in_path ("unshare");
  const char *probe[] = { unshare != NULL ? unshare : "unshare", "-rm", "true", NULL };
  g_autofree char *out = NULL, *err = NULL;
  if (unshare != NULL && test_spawn (probe, &out, &err) == 0)
    return unshare;
  g_test_skip ("no user namespaces (unshare -rm failed): cannot mount a small tmpfs to fill");
  g_free (unshare);
  return NULL;
}

static void
test_disk_full (void)
{
  g_autofree char *unshare = find_unshare ();
  if (unshare == NULL)
    return;
  g_autoptr (HubServer) hub = start_hub (NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = fresh_cache ("disk-full");
  g_assert_cmpint (g_mkdir_with_parents (cache, 0755), ==, 0);
  const char *argv[] = { unshare,
                         "-rm",
                         "sh",
                         "-c",
                         "mount -t tmpfs -o size=1m tmpfs \"$0\" && exec \"$@\"",
                         cache,
                         g_getenv ("ATTNSCOPE_BIN"),
                         "download",
                         "test/mini",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  g_assert_cmpint (status, ==, 1);
  g_assert_true (g_str_has_prefix (err, "attnscope: error: not enough disk space for test/mini"));
  assert_has (err, "the disk is full");
  g_assert_cmpuint (hub_server_count (hub, "GET", "/cdn/"), ==, 0);
}

/* The disk fills while the weights come in (a filler written into an 8 MB tmpfs once the
 * download has started): the write error says so and keeps what was written. */
static void
test_disk_full_mid_file (void)
{
  g_autofree char *unshare = find_unshare ();
  if (unshare == NULL)
    return;
  g_autoptr (HubServer) hub = start_hub ("--rate", "1000000", NULL);
  if (hub == NULL)
    return;
  g_autofree char *cache = fresh_cache ("disk-full-mid-file");
  g_assert_cmpint (g_mkdir_with_parents (cache, 0755), ==, 0);
  const char *script
      = "mount -t tmpfs -o size=8m tmpfs \"$0\" || exit 99\n"
        "\"$@\" & pid=$!\n"
        "while ! ls \"$0\"/models--test--mini/blobs/*.incomplete >/dev/null 2>&1; do\n"
        "  sleep 0.05\n"
        "done\n"
        "sleep 0.3\n"
        "head -c 16777216 /dev/zero > \"$0/filler\" 2>/dev/null\n"
        "wait $pid";
  const char *argv[]
      = { unshare,    "-rm",       "sh", "-c", script, cache, g_getenv ("ATTNSCOPE_BIN"),
          "download", "test/mini", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  g_assert_cmpint (status, ==, 1);
  g_assert_true (g_str_has_prefix (err, "attnscope: error: the disk is full: writing "));
  assert_has (err, ".incomplete failed after ");
  assert_has (err, " bytes of tf_model.h5");
  assert_has (err, "what was written is kept");
  g_assert_cmpuint (hub_server_count (hub, "GET", "/cdn/"), ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  const char *names[] = { "HF_HUB_CACHE",   "HUGGINGFACE_HUB_CACHE",
                          "HF_HOME",        "HF_ENDPOINT",
                          "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
                          "HF_TOKEN",       "HUGGING_FACE_HUB_TOKEN",
                          "HF_TOKEN_PATH",  "http_proxy",
                          "HTTP_PROXY" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
  g_autofree char *home = g_build_filename (test_tmpdir (), "home", NULL);
  g_setenv ("HOME", home, TRUE);
  mini_source = test_source_path ("data/models/attnscope-mini");
  repos = g_build_filename (test_tmpdir (), "repos", NULL);
  g_autofree char *mini = g_build_filename (repos, "mini", NULL);
  hub_repo_folder (mini, mini_source, mini_files);
  g_autofree char *t5 = g_build_filename (repos, "t5", NULL);
  g_assert_cmpint (g_mkdir_with_parents (t5, 0755), ==, 0);
  g_autofree char *t5_config = g_build_filename (t5, "config.json", NULL);
  g_autofree char *t5_weights = g_build_filename (t5, "model.safetensors", NULL);
  g_assert_true (g_file_set_contents (t5_config, "{\"model_type\": \"pegasus\"}", -1, NULL));
  g_assert_true (g_file_set_contents (t5_weights, "weights", -1, NULL));

  g_test_add_func ("/cli/download/plain-then-cached", test_download_plain);
  g_test_add_func ("/cli/download/list", test_list);
  g_test_add_func ("/cli/download/not-cached", test_not_cached);
  g_test_add_func ("/cli/download/errors", test_errors);
  g_test_add_func ("/cli/download/interrupt", test_interrupt);
  g_test_add_func ("/cli/download/terminal", test_terminal);
  g_test_add_func ("/cli/download/disk-full", test_disk_full);
  g_test_add_func ("/cli/download/disk-full-mid-file", test_disk_full_mid_file);
  int status = g_test_run ();
  g_free (mini_source);
  g_free (repos);
  test_tmpdir_cleanup ();
  return status;
}

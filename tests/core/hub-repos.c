/* hub-repos.c — the repositories the fake hub serves in the download tests, and what the tests
 * check of a download (see hub-repos.h). */
#include "hub-repos.h"

#include <glib/gstdio.h>
#include <string.h>

#include "check-close.h"
#include "hub-server.h"

const char *const hub_mini_files[] = {
  "config.json", "merges.txt", "special_tokens_map.json", "tokenizer_config.json", "vocab.json",
  "tf_model.h5", NULL
};
char *hub_mini_source;
static char *repos; /* the served repositories' folders */

char *
hub_repo_path (const char *name)
{
  return g_build_filename (repos, name, NULL);
}

void
hub_write_bytes (const char *dir, const char *name, const char *data, gsize length)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, data, (gssize) length, NULL));
}

void
hub_repos_make (void)
{
  hub_mini_source = test_source_path ("data/models/attnscope-mini");
  repos = g_build_filename (test_tmpdir (), "repos", NULL);
  g_autofree char *mini = hub_repo_path ("mini");
  hub_repo_folder (mini, hub_mini_source, hub_mini_files);
  /* the same model among files a download must leave alone */
  g_autofree char *extra = hub_repo_path ("extra");
  hub_repo_folder (extra, hub_mini_source, hub_mini_files);
  const char *readme[] = { "README.md", "heldout.txt", NULL };
  hub_repo_folder (extra, hub_mini_source, readme);
  hub_write_bytes (extra, "pytorch_model.bin", "pickle", 6);
  hub_write_bytes (extra, "flax_model.msgpack", "flax", 4);
  hub_write_bytes (extra, "onnx/model.onnx", "onnx", 4);
  /* sharded safetensors, the shards in a subfolder */
  g_autofree char *sharded = hub_repo_path ("sharded");
  const char *small[] = { "config.json", "vocab.json", "merges.txt", NULL };
  hub_repo_folder (sharded, hub_mini_source, small);
  const char *index = "{\"metadata\": {\"total_size\": 300000}, \"weight_map\": {"
                      "\"wte\": \"weights/model-00001-of-00002.safetensors\","
                      "\"wpe\": \"weights/model-00002-of-00002.safetensors\","
                      "\"ln_f\": \"weights/model-00002-of-00002.safetensors\"}}";
  hub_write_bytes (sharded, "model.safetensors.index.json", index, strlen (index));
  for (int k = 1; k <= 2; k++)
    {
      g_autofree char *bytes = g_malloc (150000);
      for (int i = 0; i < 150000; i++)
        bytes[i] = (char) (i * 7 + k * 13);
      g_autofree char *name = g_strdup_printf ("weights/model-0000%d-of-00002.safetensors", k);
      hub_write_bytes (sharded, name, bytes, 150000);
    }
  hub_write_bytes (sharded, "pytorch_model.bin", "pickle", 6);
  /* unusable repositories */
  g_autofree char *pickle = hub_repo_path ("pickle");
  const char *config[] = { "config.json", NULL };
  hub_repo_folder (pickle, hub_mini_source, config);
  hub_write_bytes (pickle, "pytorch_model.bin", "pickle", 6);
  g_autofree char *t5 = hub_repo_path ("t5");
  const char *t5_config = "{\"model_type\": \"pegasus\", \"d_model\": 8}";
  hub_write_bytes (t5, "config.json", t5_config, strlen (t5_config));
  hub_write_bytes (t5, "model.safetensors", "weights", 7);
}

/* The fake hub serving every repository, with EXTRA arguments (NULL-terminated). */
HubServer *
hub_start (const char *extra, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  const char *names[] = { "mini", "extra", "sharded", "pickle", "t5" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *folder = hub_repo_path (names[i]);
      g_ptr_array_add (args, g_strdup ("--repo"));
      g_ptr_array_add (args, g_strdup_printf ("test/%s=%s", names[i], folder));
    }
  g_ptr_array_add (args, g_strdup ("--commit"));
  g_ptr_array_add (args, g_strdup ("test/mini=" HUB_COMMIT));
  g_ptr_array_add (args, g_strdup ("--commit"));
  g_ptr_array_add (args, g_strdup ("test/extra=" HUB_EXTRA_COMMIT));
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

/* A fresh, empty cache for the test (HF_HUB_CACHE); returns its path (owned). */
char *
hub_fresh_cache (const char *name)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "caches", name, NULL);
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  g_setenv ("HF_HUB_CACHE", dir, TRUE);
  return g_steal_pointer (&dir);
}

char *
hub_download_full (const char *repo_id, const char *revision, AsHubDownloadFlags flags,
                   GPtrArray **done, GError **error)
{
  g_autoptr (AsHubDownload) d = as_hub_download_new (repo_id, revision, flags, error);
  if (d == NULL)
    return NULL;
  char *path = as_hub_download_run (d, NULL, error);
  if (done != NULL)
    *done = as_hub_download_dup_done (d, 0);
  return path;
}

char *
hub_download (const char *repo_id, GError **error)
{
  return hub_download_full (repo_id, NULL, AS_HUB_DOWNLOAD_DEFAULT, NULL, error);
}

/* The etag the hub gives CONTENT: sha256 for an LFS file, the git blob hash otherwise. */
char *
hub_etag_of (const char *name, const char *content, gsize length)
{
  if (g_str_has_suffix (name, ".h5") || g_str_has_suffix (name, ".safetensors"))
    return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) content, length);
  g_autoptr (GChecksum) sha1 = g_checksum_new (G_CHECKSUM_SHA1);
  g_autofree char *head = g_strdup_printf ("blob %zu", length);
  g_checksum_update (sha1, (const guchar *) head, (gssize) strlen (head) + 1);
  g_checksum_update (sha1, (const guchar *) content, (gssize) length);
  return g_strdup (g_checksum_get_string (sha1));
}

static int
compare_lines (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The tree huggingface_hub writes for FILES of SOURCE at HUB_COMMIT, REF naming it (NULL: none), in
 * hub_tree_listing's form. */
char *
hub_expected_tree (const char *source, const char *const *files, const char *commit,
                   const char *ref)
{
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (lines, g_strdup ("d blobs"));
  g_ptr_array_add (lines, g_strdup ("d snapshots"));
  g_ptr_array_add (lines, g_strdup_printf ("d snapshots/%s", commit));
  if (ref != NULL)
    {
      g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, commit, -1);
      g_ptr_array_add (lines, g_strdup ("d refs"));
      g_ptr_array_add (lines, g_strdup_printf ("f refs/%s 40 %s", ref, sha));
    }
  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (source, files[i], NULL);
      g_autofree char *content = NULL;
      gsize length = 0;
      g_assert_true (g_file_get_contents (path, &content, &length, NULL));
      g_autofree char *etag = hub_etag_of (files[i], content, length);
      g_autofree char *sha
          = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) content, length);
      g_autofree char *blob_line = g_strdup_printf ("f blobs/%s %zu %s", etag, length, sha);
      if (!g_ptr_array_find_with_equal_func (lines, blob_line, g_str_equal, NULL))
        g_ptr_array_add (lines, g_steal_pointer (&blob_line));
      GString *up = g_string_new ("../../");
      for (const char *p = files[i]; *p != '\0'; p++)
        if (*p == '/')
          {
            g_string_append (up, "../");
            g_autofree char *folder = g_strndup (files[i], (gsize) (p - files[i]));
            g_autofree char *line = g_strdup_printf ("d snapshots/%s/%s", commit, folder);
            if (!g_ptr_array_find_with_equal_func (lines, line, g_str_equal, NULL))
              g_ptr_array_add (lines, g_steal_pointer (&line));
          }
      g_ptr_array_add (lines, g_strdup_printf ("l snapshots/%s/%s -> %sblobs/%s", commit, files[i],
                                               up->str, etag));
      g_string_free (up, TRUE);
    }
  g_ptr_array_sort (lines, compare_lines);
  g_ptr_array_add (lines, NULL);
  return g_strjoinv ("\n", (char **) lines->pdata);
}

char *
hub_repo_dir_of (const char *cache, const char *repo_id)
{
  g_auto (GStrv) parts = g_strsplit (repo_id, "/", -1);
  g_autofree char *joined = g_strjoinv ("--", parts);
  g_autofree char *folder = g_strconcat ("models--", joined, NULL);
  return g_build_filename (cache, folder, NULL);
}

void
hub_assert_tree (const char *cache, const char *repo_id, const char *expected)
{
  g_autofree char *dir = hub_repo_dir_of (cache, repo_id);
  g_autofree char *tree = hub_tree_listing (dir, NULL);
  if (g_strcmp0 (tree, expected) != 0)
    g_test_message ("tree:\n%s\nexpected:\n%s", tree, expected);
  g_assert_cmpstr (tree, ==, expected);
}

void
hub_assert_error_has (const GError *error, const char *needle)
{
  g_assert_nonnull (error);
  if (strstr (error->message, needle) == NULL)
    g_test_message ("the message \"%s\" lacks \"%s\"", error->message, needle);
  g_assert_nonnull (strstr (error->message, needle));
}

/* The sha256 of the mini model's tf_model.h5, and its size. */
char *
hub_h5_sha256 (gsize *size)
{
  g_autofree char *path = g_build_filename (hub_mini_source, "tf_model.h5", NULL);
  g_autofree char *content = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &content, &length, NULL));
  if (size != NULL)
    *size = length;
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) content, length);
}

gsize
hub_files_size (const char *source, const char *const *files)
{
  gsize total = 0;
  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (source, files[i], NULL);
      GStatBuf st;
      g_assert_cmpint (g_stat (path, &st), ==, 0);
      total += (gsize) st.st_size;
    }
  return total;
}

void
hub_assert_h5_ok (const char *snapshot)
{
  g_autofree char *h5 = g_build_filename (snapshot, "tf_model.h5", NULL);
  g_autofree char *got = hub_file_sha256 (h5);
  g_autofree char *want = hub_h5_sha256 (NULL);
  g_assert_cmpstr (got, ==, want);
}

void
hub_assert_nothing_linked (const char *cache, const char *repo_id)
{
  g_autofree char *repo = hub_repo_dir_of (cache, repo_id);
  g_autofree char *snapshots = g_build_filename (repo, "snapshots", NULL);
  g_autofree char *refs = g_build_filename (repo, "refs", NULL);
  g_assert_false (g_file_test (snapshots, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (refs, G_FILE_TEST_EXISTS));
}

void
hub_isolate_env (void)
{
  const char *names[] = { "HF_HUB_CACHE",   "HUGGINGFACE_HUB_CACHE",
                          "HF_HOME",        "HF_ENDPOINT",
                          "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
                          "HF_TOKEN",       "HUGGING_FACE_HUB_TOKEN",
                          "HF_TOKEN_PATH",  "http_proxy",
                          "HTTP_PROXY",     "no_proxy" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
  /* no token file of the user's: HF_HOME's default follows HOME */
  g_autofree char *home = g_build_filename (test_tmpdir (), "home", NULL);
  g_setenv ("HOME", home, TRUE);
}

void
hub_repos_free (void)
{
  g_clear_pointer (&hub_mini_source, g_free);
  g_clear_pointer (&repos, g_free);
}

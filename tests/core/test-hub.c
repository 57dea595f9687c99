/* test-hub.c — the hub client's pieces that need no server (core/include/as-hub.h):
 * - the environment as huggingface_hub reads it: the cache ($HF_HUB_CACHE, then
 *   $HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub, ~/.cache/...; "~" and
 *   $VARIABLES expanded), the endpoint (trailing slashes dropped), offline mode (1/ON/YES/TRUE in
 *   any case; TRANSFORMERS_OFFLINE only when HF_HUB_OFFLINE is unset), the token ($HF_TOKEN, then
 *   $HUGGING_FACE_HUB_TOKEN, then $HF_TOKEN_PATH or $HF_HOME/token; line breaks and blanks
 *   removed; none with HF_HUB_DISABLE_IMPLICIT_TOKEN);
 * - names: model ids and revisions accepted and refused, etags normalised as _normalize_etag,
 *   the snapshot links' relative targets (one more "../" per folder), the repository folder;
 * - what a download takes from a file list: safetensors before tf_model.h5, the sharded index,
 *   never a pickle (a pickle-only repository is refused naming the pickle), config.json required;
 * - a ref written without a newline and left alone when it holds the commit;
 * - the cache listing: a model that opens, a model type no family reads, a pickle-only snapshot,
 *   a download that never finished. */
#include <glib/gstdio.h>
#include <string.h>

#include "as-hub.h"
#include "check-close.h"
#include "hub-private.h"

static void
clear_hub_env (void)
{
  const char *names[] = { "HF_HUB_CACHE",
                          "HUGGINGFACE_HUB_CACHE",
                          "HF_HOME",
                          "XDG_CACHE_HOME",
                          "HF_ENDPOINT",
                          "HF_HUB_OFFLINE",
                          "TRANSFORMERS_OFFLINE",
                          "HF_TOKEN",
                          "HUGGING_FACE_HUB_TOKEN",
                          "HF_TOKEN_PATH",
                          "HF_HUB_DISABLE_IMPLICIT_TOKEN" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
}

static void
assert_cache (const char *expected)
{
  g_autofree char *cache = as_hub_dup_cache_dir ();
  g_assert_cmpstr (cache, ==, expected);
}

static void
test_cache_dir (void)
{
  clear_hub_env ();
  g_setenv ("HOME", "/home/u", TRUE);
  assert_cache ("/home/u/.cache/huggingface/hub");
  g_setenv ("XDG_CACHE_HOME", "/xdg", TRUE);
  assert_cache ("/xdg/huggingface/hub");
  g_setenv ("HF_HOME", "~/hf", TRUE);
  assert_cache ("/home/u/hf/hub");
  g_setenv ("SOMEWHERE", "/data", TRUE);
  g_setenv ("HF_HOME", "$SOMEWHERE/hf-${SOMEWHERE}/$UNSET_VARIABLE_X", TRUE);
  assert_cache ("/data/hf-/data/$UNSET_VARIABLE_X/hub");
  g_setenv ("HUGGINGFACE_HUB_CACHE", "/legacy", TRUE);
  assert_cache ("/legacy");
  g_setenv ("HF_HUB_CACHE", "~/hub-cache", TRUE);
  assert_cache ("/home/u/hub-cache");
  /* empty counts as unset */
  g_setenv ("HF_HUB_CACHE", "", TRUE);
  assert_cache ("/legacy");
  clear_hub_env ();
}

static void
test_endpoint_offline (void)
{
  clear_hub_env ();
  g_autofree char *fallback = as_hub_dup_endpoint ();
  g_assert_cmpstr (fallback, ==, "https://huggingface.co");
  g_setenv ("HF_ENDPOINT", "http://127.0.0.1:8080//", TRUE);
  g_autofree char *endpoint = as_hub_dup_endpoint ();
  g_assert_cmpstr (endpoint, ==, "http://127.0.0.1:8080");

  const char *yes[] = { "1", "ON", "on", "Yes", "TRUE", "true" };
  const char *no[] = { "0", "off", "false", "2", "y" };
  g_assert_false (as_hub_get_offline ());
  for (gsize i = 0; i < G_N_ELEMENTS (yes); i++)
    {
      g_setenv ("HF_HUB_OFFLINE", yes[i], TRUE);
      g_assert_true (as_hub_get_offline ());
    }
  for (gsize i = 0; i < G_N_ELEMENTS (no); i++)
    {
      g_setenv ("HF_HUB_OFFLINE", no[i], TRUE);
      g_assert_false (as_hub_get_offline ());
    }
  /* TRANSFORMERS_OFFLINE counts only when HF_HUB_OFFLINE is unset (or empty) */
  g_setenv ("TRANSFORMERS_OFFLINE", "1", TRUE);
  g_assert_false (as_hub_get_offline ());
  g_unsetenv ("HF_HUB_OFFLINE");
  g_assert_true (as_hub_get_offline ());
  clear_hub_env ();
}

static void
assert_token (const char *expected, const char *expected_source)
{
  g_autofree char *source = NULL;
  g_autofree char *token = as_hub_dup_token (&source);
  g_assert_cmpstr (token, ==, expected);
  g_assert_cmpstr (source, ==, expected_source);
}

static void
test_token (void)
{
  clear_hub_env ();
  g_autofree char *home = g_build_filename (test_tmpdir (), "token-home", NULL);
  g_assert_cmpint (g_mkdir_with_parents (home, 0700), ==, 0);
  g_setenv ("HF_HOME", home, TRUE);
  assert_token (NULL, NULL);
  g_autofree char *file = g_build_filename (home, "token", NULL);
  g_assert_true (g_file_set_contents (file, "  hf_fromfile\r\n", -1, NULL));
  assert_token ("hf_fromfile", file);
  g_autofree char *other = g_build_filename (test_tmpdir (), "other-token", NULL);
  g_assert_true (g_file_set_contents (other, "hf_other\n", -1, NULL));
  g_setenv ("HF_TOKEN_PATH", other, TRUE);
  assert_token ("hf_other", other);
  g_setenv ("HUGGING_FACE_HUB_TOKEN", "hf_legacy", TRUE);
  assert_token ("hf_legacy", "HUGGING_FACE_HUB_TOKEN");
  g_setenv ("HF_TOKEN", " hf_env\n", TRUE);
  assert_token ("hf_env", "HF_TOKEN");
  g_setenv ("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1", TRUE);
  assert_token (NULL, NULL);
  g_unsetenv ("HF_HUB_DISABLE_IMPLICIT_TOKEN");
  /* a blank token file is no token */
  clear_hub_env ();
  g_setenv ("HF_HOME", home, TRUE);
  g_assert_true (g_file_set_contents (file, " \n", -1, NULL));
  assert_token (NULL, NULL);
  clear_hub_env ();
}

static void
test_names (void)
{
  const char *good[]
      = { "gpt2", "openai-community/gpt2", "HuggingFaceTB/SmolLM2-135M", "a_b.c/d-e_f.1", "x" };
  const char *bad[] = { "",     "a/b/c", "../x",    "a/..b", "a--b/c", "-a/b",
                        "a/b-", "a b/c", "a/b.git", "/gpt2", "gpt2/",  "a\\b" };
  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    g_assert_true (as_hub_check_repo_id (good[i], NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (as_hub_check_repo_id (bad[i], &error));
      g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_INPUT);
      g_assert_nonnull (strstr (error->message, "ORG/NAME"));
    }
  g_autofree char *long_id = g_strnfill (97, 'a');
  g_assert_false (as_hub_check_repo_id (long_id, NULL));

  const char *good_rev[]
      = { "main", "v1.0", "refs/pr/1", "607a30d783dfa663caf39e06633721c8d4cfcd7e" };
  const char *bad_rev[] = { "", "../main", "a//b", "a/./b", "/main", "main/", "a b", "a\\b" };
  for (gsize i = 0; i < G_N_ELEMENTS (good_rev); i++)
    g_assert_true (as_hub_check_revision (good_rev[i], NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (bad_rev); i++)
    g_assert_false (as_hub_check_revision (bad_rev[i], NULL));

  const char *etags[][2] = {
    { "\"abc123\"", "abc123" }, { "W/\"abc123\"", "abc123" }, { "abc123", "abc123" }, { "\"\"", "" }
  };
  for (gsize i = 0; i < G_N_ELEMENTS (etags); i++)
    {
      g_autofree char *e = as_hub_normalize_etag (etags[i][0]);
      g_assert_cmpstr (e, ==, etags[i][1]);
    }
  g_assert_false (as_hub_check_etag ("", NULL));
  g_assert_false (as_hub_check_etag ("../x", NULL));
  g_assert_false (as_hub_check_etag (".hidden", NULL));
  g_assert_true (as_hub_check_etag ("0123abcdef", NULL));

  const char *targets[][2] = { { "config.json", "../../blobs/E" },
                               { "onnx/model.onnx", "../../../blobs/E" },
                               { "a/b/c.txt", "../../../../blobs/E" } };
  for (gsize i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autofree char *t = as_hub_blob_link_target (targets[i][0], "E");
      g_assert_cmpstr (t, ==, targets[i][1]);
    }
  g_autofree char *folder = as_hub_repo_folder_name ("openai-community/gpt2");
  g_assert_cmpstr (folder, ==, "models--openai-community--gpt2");
  g_autofree char *bare = as_hub_repo_folder_name ("gpt2");
  g_assert_cmpstr (bare, ==, "models--gpt2");
  g_autofree char *id = as_hub_repo_id_from_folder ("models--openai-community--gpt2");
  g_assert_cmpstr (id, ==, "openai-community/gpt2");
  g_assert_null (as_hub_repo_id_from_folder ("datasets--a--b"));

  g_assert_true (as_hub_check_filename ("onnx/model.onnx", NULL));
  const char *bad_files[] = { "", "/etc/passwd", "../x", "a/../../x", "a//b", "a\\b", "./a" };
  for (gsize i = 0; i < G_N_ELEMENTS (bad_files); i++)
    g_assert_false (as_hub_check_filename (bad_files[i], NULL));
}

/* The names SELECTION takes, joined by spaces. */
static char *
selected (const char *const *siblings, GError **error)
{
  g_autoptr (AsHubSelection) s = as_hub_select_files ("org/model", siblings, error);
  if (s == NULL)
    return NULL;
  g_ptr_array_add (s->files, NULL);
  char *joined = g_strjoinv (" ", (char **) s->files->pdata);
  g_ptr_array_remove_index (s->files, s->files->len - 1);
  return joined;
}

static void
test_select (void)
{
  const char *gpt2[] = { ".gitattributes",
                         "README.md",
                         "config.json",
                         "generation_config.json",
                         "merges.txt",
                         "vocab.json",
                         "tokenizer.json",
                         "tokenizer_config.json",
                         "model.safetensors",
                         "pytorch_model.bin",
                         "tf_model.h5",
                         "flax_model.msgpack",
                         "onnx/decoder_model.onnx",
                         "64-8bits.tflite",
                         NULL };
  g_autofree char *a = selected (gpt2, NULL);
  g_assert_cmpstr (a, ==,
                   "config.json generation_config.json tokenizer.json tokenizer_config.json "
                   "vocab.json merges.txt model.safetensors");

  const char *sharded[] = { "config.json",
                            "model-00001-of-00002.safetensors",
                            "model-00002-of-00002.safetensors",
                            "model.safetensors.index.json",
                            "pytorch_model-00001-of-00002.bin",
                            "tokenizer.model",
                            "special_tokens_map.json",
                            NULL };
  g_autoptr (AsHubSelection) s = as_hub_select_files ("org/model", sharded, NULL);
  g_assert_nonnull (s);
  g_assert_cmpstr (s->index, ==, "model.safetensors.index.json");
  g_autofree char *b = selected (sharded, NULL);
  g_assert_cmpstr (b, ==,
                   "config.json special_tokens_map.json tokenizer.model "
                   "model.safetensors.index.json");

  const char *marian[] = {
    "config.json",       "source.spm",  "target.spm",    "vocab.json", "tokenizer_config.json",
    "pytorch_model.bin", "tf_model.h5", "rust_model.ot", NULL
  };
  g_autofree char *c = selected (marian, NULL);
  g_assert_cmpstr (c, ==,
                   "config.json tokenizer_config.json vocab.json source.spm target.spm "
                   "tf_model.h5");

  const char *pickle[] = { "config.json", "pytorch_model.bin", "vocab.txt", NULL };
  g_autoptr (GError) error = NULL;
  g_assert_null (selected (pickle, &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE);
  g_assert_nonnull (strstr (error->message, "pytorch_model.bin"));
  g_assert_nonnull (strstr (error->message, "never loads"));

  const char *no_config[] = { "model.safetensors", NULL };
  g_clear_error (&error);
  g_assert_null (selected (no_config, &error));
  g_assert_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE);
  g_assert_nonnull (strstr (error->message, "no config.json"));
}

static void
test_shards (void)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "index.json", NULL);
  g_assert_true (g_file_set_contents (
      path,
      "{\"metadata\":{\"total_size\":8},\"weight_map\":{\"b\":\"model-00002-of-00002.safetensors\","
      "\"a\":\"model-00001-of-00002.safetensors\",\"c\":\"model-00001-of-00002.safetensors\"}}",
      -1, NULL));
  const char *siblings[]
      = { "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", NULL };
  g_autoptr (GPtrArray) shards = as_hub_read_shard_names (path, siblings, NULL);
  g_assert_nonnull (shards);
  g_assert_cmpuint (shards->len, ==, 2);
  g_assert_cmpstr (shards->pdata[0], ==, "model-00001-of-00002.safetensors");
  g_assert_cmpstr (shards->pdata[1], ==, "model-00002-of-00002.safetensors");

  const char *missing[] = { "model-00001-of-00002.safetensors", NULL };
  g_autoptr (GError) error = NULL;
  g_assert_null (as_hub_read_shard_names (path, missing, &error));
  g_assert_nonnull (strstr (error->message, "model-00002-of-00002.safetensors"));

  g_assert_true (
      g_file_set_contents (path, "{\"weight_map\":{\"a\":\"../../etc/passwd\"}}", -1, NULL));
  g_clear_error (&error);
  g_assert_null (as_hub_read_shard_names (path, NULL, &error));
  g_assert_nonnull (error);
}

static void
test_ref (void)
{
  g_autofree char *repo = g_build_filename (test_tmpdir (), "models--o--ref", NULL);
  const char *commit = "0123456789abcdef0123456789abcdef01234567";
  g_autoptr (GError) error = NULL;
  g_assert_true (as_hub_write_ref (repo, "main", commit, &error));
  g_assert_no_error (error);
  g_assert_true (as_hub_write_ref (repo, "refs/pr/1", commit, &error));
  g_autofree char *main_path = g_build_filename (repo, "refs", "main", NULL);
  g_autofree char *pr_path = g_build_filename (repo, "refs", "refs", "pr", "1", NULL);
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (main_path, &contents, &length, NULL));
  g_assert_cmpuint (length, ==, 40); /* no newline, as huggingface_hub writes it */
  g_assert_cmpstr (contents, ==, commit);
  g_assert_true (g_file_test (pr_path, G_FILE_TEST_IS_REGULAR));
  /* unchanged when it holds the commit: the file is not rewritten */
  GStatBuf before, after;
  g_assert_cmpint (g_stat (main_path, &before), ==, 0);
  g_assert_true (as_hub_write_ref (repo, "main", commit, &error));
  g_assert_cmpint (g_stat (main_path, &after), ==, 0);
  g_assert_cmpuint (before.st_ino, ==, after.st_ino);
  g_autofree char *read = as_hub_read_ref (repo, "main");
  g_assert_cmpstr (read, ==, commit);
}

static void
write_file (const char *dir, const char *name, const char *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static void
test_list (void)
{
  g_autofree char *cache = g_build_filename (test_tmpdir (), "list-cache", NULL);
  const char *c1 = "1111111111111111111111111111111111111111";
  const char *c2 = "2222222222222222222222222222222222222222";
  g_autofree char *good = g_build_filename (cache, "models--org--good", "snapshots", c1, NULL);
  write_file (good, "config.json", "{\"model_type\": \"gpt2\"}");
  write_file (good, "tf_model.h5", "0123456789");
  g_autofree char *good_repo = g_build_filename (cache, "models--org--good", NULL);
  g_assert_true (as_hub_write_ref (good_repo, "main", c1, NULL));
  g_autofree char *t5 = g_build_filename (cache, "models--org--t5", "snapshots", c2, NULL);
  write_file (t5, "config.json", "{\"model_type\": \"pegasus\"}");
  write_file (t5, "model.safetensors", "x");
  g_autofree char *pickle = g_build_filename (cache, "models--pickle", "snapshots", c1, NULL);
  write_file (pickle, "config.json", "{\"model_type\": \"gpt2\"}");
  write_file (pickle, "pytorch_model.bin", "x");
  g_autofree char *blobs = g_build_filename (cache, "models--org--unfinished", "blobs", NULL);
  write_file (blobs, "abc.incomplete", "12345");
  write_file (cache, "version.txt", "1");

  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) models = as_hub_list_cached (cache, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (models->len, ==, 4);
  const AsHubCachedModel *m = models->pdata[0];
  g_assert_cmpstr (m->repo_id, ==, "org/good");
  g_assert_cmpstr (m->refs, ==, "main");
  g_assert_cmpstr (m->commit, ==, c1);
  g_assert_cmpstr (m->model_type, ==, "gpt2");
  g_assert_cmpuint (m->size, ==, 22 + 10);
  g_assert_true (m->opens);
  g_assert_null (m->reason);
  m = models->pdata[1];
  g_assert_cmpstr (m->repo_id, ==, "org/t5");
  g_assert_null (m->refs);
  g_assert_false (m->opens);
  g_assert_nonnull (strstr (m->reason, "pegasus"));
  m = models->pdata[2];
  g_assert_cmpstr (m->repo_id, ==, "org/unfinished");
  g_assert_null (m->commit);
  g_assert_cmpuint (m->size, ==, 5);
  g_assert_false (m->opens);
  g_assert_nonnull (strstr (m->reason, "attnscope download org/unfinished"));
  m = models->pdata[3];
  g_assert_cmpstr (m->repo_id, ==, "pickle");
  g_assert_false (m->opens);
  g_assert_nonnull (strstr (m->reason, "pytorch_model.bin"));

  g_autofree char *none = g_build_filename (test_tmpdir (), "no-such-cache", NULL);
  g_autoptr (GPtrArray) empty = as_hub_list_cached (none, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (empty->len, ==, 0);
}

static void
test_format (void)
{
  AsHubProgress p = { 0 };
  p.done_bytes = 2900000;
  p.total_bytes = 6400000;
  p.bytes_per_second = 3400000;
  p.seconds_left = 7.2;
  g_autofree char *a = as_hub_progress_format (&p);
  g_assert_cmpstr (a, ==, "2.9 MB of 6.4 MB, 3.4 MB/s, 0:07 left");
  p.bytes_per_second = -1;
  p.seconds_left = -1;
  g_autofree char *b = as_hub_progress_format (&p);
  g_assert_cmpstr (b, ==, "2.9 MB of 6.4 MB");
  g_autofree char *h = as_hub_format_duration (3723);
  g_assert_cmpstr (h, ==, "1:02:03");
  g_autofree char *q = as_hub_format_duration (-1);
  g_assert_cmpstr (q, ==, "?");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/hub/env/cache-dir", test_cache_dir);
  g_test_add_func ("/core/hub/env/endpoint-offline", test_endpoint_offline);
  g_test_add_func ("/core/hub/env/token", test_token);
  g_test_add_func ("/core/hub/names", test_names);
  g_test_add_func ("/core/hub/select", test_select);
  g_test_add_func ("/core/hub/shards", test_shards);
  g_test_add_func ("/core/hub/ref", test_ref);
  g_test_add_func ("/core/hub/list", test_list);
  g_test_add_func ("/core/hub/format", test_format);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

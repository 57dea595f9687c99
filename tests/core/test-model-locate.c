/* test-model-locate.c — what --model accepts: a folder, a shipped name, a Hugging Face hub id.
 *
 * Builds a fake Hugging Face cache and a fake data directory in the test's temporary directory
 * and points HF_HOME / HF_HUB_CACHE / ATTNSCOPE_DATA_DIR at them, then checks which snapshot
 * folder each spec resolves to and that a real model loads from there. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <utime.h>

#include "as-error.h"
#include "as-model.h"
#include "check-close.h"
#include "decoder-models.h"
#include "fixture-model.h"

static void
write_model (const char *dir)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  g_autoptr (GError) error = NULL;
  g_assert_true (fixture_model_write (dir, &spec, &error));
  g_assert_no_error (error);
}

/* Creates DIR (and parents) with modification time MTIME (seconds since the epoch). */
static void
make_dir_with_time (const char *dir, gint64 mtime)
{
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  struct utimbuf times = { .actime = (time_t) mtime, .modtime = (time_t) mtime };
  g_assert_cmpint (g_utime (dir, &times), ==, 0);
}

static char *
resolve_ok (const char *spec)
{
  g_autoptr (GError) error = NULL;
  char *path = as_model_resolve_path (spec, &error);
  g_assert_no_error (error);
  g_assert_nonnull (path);
  return path;
}

static void
test_hf_cache (void)
{
  g_autofree char *home = g_build_filename (test_tmpdir (), "hf-home", NULL);
  g_autofree char *hub = g_build_filename (home, "hub", NULL);
  g_setenv ("HF_HOME", home, TRUE);
  g_unsetenv ("HF_HUB_CACHE");

  /* "distilgpt2": no refs/main, two snapshots: the newer one wins. */
  g_autofree char *old_rev = g_build_filename (hub, "models--distilgpt2", "snapshots", "aaa", NULL);
  g_autofree char *new_rev = g_build_filename (hub, "models--distilgpt2", "snapshots", "bbb", NULL);
  write_model (old_rev);
  write_model (new_rev);
  make_dir_with_time (old_rev, 1700000000);
  make_dir_with_time (new_rev, 1600000000);
  g_autofree char *got = resolve_ok ("distilgpt2");
  g_assert_cmpstr (got, ==, old_rev); /* aaa has the later modification time */
  make_dir_with_time (new_rev, 1800000000);
  g_autofree char *got2 = resolve_ok ("distilgpt2");
  g_assert_cmpstr (got2, ==, new_rev);

  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("distilgpt2", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (as_model_get_name (model), ==, "distilgpt2");
  g_assert_cmpstr (as_model_get_path (model), ==, new_rev);
  g_assert_cmpint (as_model_get_config (model)->n_embd, ==, 8);

  /* "openai-community/gpt2": refs/main names an older revision, and it wins. */
  g_autofree char *repo = g_build_filename (hub, "models--openai-community--gpt2", NULL);
  g_autofree char *rev1 = g_build_filename (repo, "snapshots", "rev1", NULL);
  g_autofree char *rev2 = g_build_filename (repo, "snapshots", "rev2", NULL);
  write_model (rev1);
  write_model (rev2);
  make_dir_with_time (rev1, 1600000000);
  make_dir_with_time (rev2, 1700000000);
  g_autofree char *refs = g_build_filename (repo, "refs", NULL);
  g_autofree char *main_ref = g_build_filename (refs, "main", NULL);
  g_assert_cmpint (g_mkdir_with_parents (refs, 0755), ==, 0);
  g_assert_true (g_file_set_contents (main_ref, "rev1\n", -1, NULL));
  g_autofree char *got3 = resolve_ok ("openai-community/gpt2");
  g_assert_cmpstr (got3, ==, rev1);
  g_autoptr (AsModel) gpt2 = as_model_load ("openai-community/gpt2", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (as_model_get_name (gpt2), ==, "openai-community/gpt2");

  /* A refs/main naming a missing snapshot falls back to the newest. */
  g_assert_true (g_file_set_contents (main_ref, "gone", -1, NULL));
  g_autofree char *got4 = resolve_ok ("openai-community/gpt2");
  g_assert_cmpstr (got4, ==, rev2);

  /* A bare name finds the one organisation that has it (the hub moved "gpt2"). */
  g_autofree char *got5 = resolve_ok ("gpt2");
  g_assert_cmpstr (got5, ==, rev2);

  /* A snapshot folder given as a path shows the hub id as its name. */
  g_autoptr (AsModel) by_path = as_model_load (rev2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (as_model_get_name (by_path), ==, "openai-community/gpt2");

  /* HF_HUB_CACHE is searched before HF_HOME/hub. */
  g_autofree char *cache = g_build_filename (test_tmpdir (), "hub-cache", NULL);
  g_autofree char *cached
      = g_build_filename (cache, "models--distilgpt2", "snapshots", "ccc", NULL);
  write_model (cached);
  g_setenv ("HF_HUB_CACHE", cache, TRUE);
  g_autofree char *got6 = resolve_ok ("distilgpt2");
  g_assert_cmpstr (got6, ==, cached);
  g_unsetenv ("HF_HUB_CACHE");
}

/* A sharded snapshot as huggingface_hub stores it: every file a symbolic link into blobs/. */
static void
test_hf_cache_sharded (void)
{
  const char *args[]
      = { "--family", "llama", "--layers",       "2",  "--heads", "4",  "--kv-heads",  "2",
          "--hidden", "32",    "--intermediate", "48", "--vocab", "64", "--positions", "64",
          "--dtype",  "bf16",  "--shards",       "2",  NULL };
  g_autofree char *model = decoder_model ("locate-sharded", args, FALSE);
  if (model == NULL)
    return;
  g_autofree char *home = g_build_filename (test_tmpdir (), "hf-sharded", NULL);
  g_setenv ("HF_HOME", home, TRUE);
  g_unsetenv ("HF_HUB_CACHE");
  g_autofree char *repo
      = g_build_filename (home, "hub", "models--HuggingFaceTB--SmolLM2-tiny", NULL);
  g_autofree char *blobs = g_build_filename (repo, "blobs", NULL);
  g_autofree char *snapshot = g_build_filename (repo, "snapshots", "0123abcd", NULL);
  g_autofree char *refs = g_build_filename (repo, "refs", NULL);
  g_assert_cmpint (g_mkdir_with_parents (blobs, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (snapshot, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (refs, 0755), ==, 0);
  g_autofree char *main_ref = g_build_filename (refs, "main", NULL);
  g_assert_true (g_file_set_contents (main_ref, "0123abcd", -1, NULL));
  const char *files[] = { "config.json", "model.safetensors.index.json",
                          "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors" };
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *from = g_build_filename (model, files[i], NULL);
      g_autofree char *blob_name = g_strdup_printf ("blob%" G_GSIZE_FORMAT, i);
      g_autofree char *blob = g_build_filename (blobs, blob_name, NULL);
      g_autofree char *text = NULL;
      gsize length = 0;
      g_assert_true (g_file_get_contents (from, &text, &length, NULL));
      g_assert_true (g_file_set_contents (blob, text, (gssize) length, NULL));
      g_autofree char *target = g_build_filename ("..", "..", "blobs", blob_name, NULL);
      g_autofree char *link = g_build_filename (snapshot, files[i], NULL);
      g_assert_cmpint (symlink (target, link), ==, 0);
    }
  g_autoptr (GError) error = NULL;
  const char *specs[] = { "HuggingFaceTB/SmolLM2-tiny", "SmolLM2-tiny" };
  for (gsize i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autoptr (AsModel) m = as_model_load (specs[i], &error);
      g_assert_no_error (error);
      g_assert_cmpstr (as_model_get_path (m), ==, snapshot);
      g_assert_cmpstr (as_model_get_name (m), ==, "HuggingFaceTB/SmolLM2-tiny");
      g_assert_true (
          g_str_has_suffix (as_model_get_weights_path (m), "model.safetensors.index.json"));
      g_assert_cmpstr (as_model_get_weights_dtype (m), ==, "BF16");
      g_assert_cmpint (as_model_get_config (m)->n_kv_head, ==, 2);
    }
  g_auto (GStrv) ids = as_model_dup_cached_hub_ids ();
  g_assert_true (g_strv_contains ((const char *const *) ids, "HuggingFaceTB/SmolLM2-tiny"));
}

static void
test_shipped (void)
{
  g_autofree char *data = g_build_filename (test_tmpdir (), "data", NULL);
  g_autofree char *models = g_build_filename (data, "models", NULL);
  g_autofree char *shipped = g_build_filename (models, "shipped-test", NULL);
  write_model (shipped);
  g_setenv ("ATTNSCOPE_DATA_DIR", data, TRUE);

  g_auto (GStrv) dirs = as_model_dup_shipped_dirs ();
  g_assert_cmpuint (g_strv_length (dirs), >=, 2);
  g_assert_cmpstr (dirs[0], ==, models);
  g_autofree char *source_models = test_source_path ("data/models");
  g_assert_cmpstr (dirs[1], ==, source_models);

  g_autofree char *got = resolve_ok ("shipped-test");
  g_assert_cmpstr (got, ==, shipped);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("shipped-test", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (as_model_get_name (model), ==, "shipped-test");

  /* A folder path is taken as is, relative or absolute. */
  g_autofree char *got_abs = resolve_ok (shipped);
  g_assert_cmpstr (got_abs, ==, shipped);
  g_autofree char *cwd = g_get_current_dir ();
  g_assert_cmpint (g_chdir (models), ==, 0);
  g_autofree char *got_rel = resolve_ok ("./shipped-test");
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_cmpstr (got_rel, ==, shipped);

  g_assert_cmpstr (as_model_default_name (), ==, "attnscope-mini");
}

static void
test_not_found (void)
{
  g_autofree char *data = g_build_filename (test_tmpdir (), "data-empty", NULL);
  g_autofree char *home = g_build_filename (test_tmpdir (), "hf-home-empty", NULL);
  g_setenv ("ATTNSCOPE_DATA_DIR", data, TRUE);
  g_setenv ("HF_HOME", home, TRUE);
  g_unsetenv ("HF_HUB_CACHE");

  g_autoptr (GError) error = NULL;
  g_assert_null (as_model_resolve_path ("no-such-model", &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_test_message ("%s", error->message);
  g_autofree char *shipped = g_build_filename (data, "models", "no-such-model", NULL);
  g_autofree char *cached = g_build_filename (home, "hub", "models--no-such-model", NULL);
  g_assert_nonnull (strstr (error->message, "'no-such-model'"));
  g_assert_nonnull (strstr (error->message, shipped));
  g_assert_nonnull (strstr (error->message, cached));
  g_clear_error (&error);

  g_assert_null (as_model_resolve_path ("someorg/no-such-model", &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "models--someorg--no-such-model"));
  g_clear_error (&error);

  /* An explicit path that does not exist is not looked up anywhere else. */
  g_autofree char *missing = g_build_filename (test_tmpdir (), "nowhere", NULL);
  g_assert_null (as_model_resolve_path (missing, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  /* A file instead of a folder. */
  g_autofree char *file = g_build_filename (test_tmpdir (), "config.json", NULL);
  g_assert_true (g_file_set_contents (file, "{}", -1, NULL));
  g_assert_null (as_model_resolve_path (file, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "is a file"));
  g_clear_error (&error);

  g_assert_null (as_model_load ("no-such-model", &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
}

/* A name holding a '/' is never joined to the shipped folders: "shipped/../../outside" would
 * otherwise open any folder next to the data directory. */
static void
test_names_are_names (void)
{
  g_autofree char *data = g_build_filename (test_tmpdir (), "data-escape", NULL);
  g_autofree char *shipped = g_build_filename (data, "models", "inside", NULL);
  g_autofree char *outside = g_build_filename (test_tmpdir (), "outside-model", NULL);
  write_model (shipped);
  write_model (outside);
  g_setenv ("ATTNSCOPE_DATA_DIR", data, TRUE);
  g_autofree char *home = g_build_filename (test_tmpdir (), "hf-home-escape", NULL);
  g_setenv ("HF_HOME", home, TRUE);
  g_unsetenv ("HF_HUB_CACHE");

  g_autofree char *found = resolve_ok ("inside");
  g_assert_cmpstr (found, ==, shipped);
  static const char *const escapes[]
      = { "inside/../../../outside-model", "inside/../inside", "x/../../../outside-model" };
  for (gsize i = 0; i < G_N_ELEMENTS (escapes); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = as_model_resolve_path (escapes[i], &error);
      g_assert_null (path);
      g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "never a shipped model's name"));
    }
}

/* A snapshot that is a link out of the cache is refused, naming where it leads. */
static void
test_snapshot_outside (void)
{
  g_autofree char *home = g_build_filename (test_tmpdir (), "hf-home-outside", NULL);
  g_autofree char *hub = g_build_filename (home, "hub", NULL);
  g_setenv ("HF_HOME", home, TRUE);
  g_unsetenv ("HF_HUB_CACHE");
  g_autofree char *elsewhere = g_build_filename (test_tmpdir (), "elsewhere", NULL);
  write_model (elsewhere);
  g_autofree char *snapshots = g_build_filename (hub, "models--org--linked", "snapshots", NULL);
  g_assert_cmpint (g_mkdir_with_parents (snapshots, 0755), ==, 0);
  g_autofree char *link = g_build_filename (snapshots, "abc", NULL);
  g_assert_cmpint (symlink (elsewhere, link), ==, 0);

  g_autoptr (GError) error = NULL;
  g_autofree char *path = as_model_resolve_path ("org/linked", &error);
  g_assert_null (path);
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, link));
  g_assert_nonnull (strstr (error->message, "leads out of the Hugging Face cache"));
  g_assert_nonnull (strstr (error->message, elsewhere));
  g_clear_error (&error);
  /* the bare name finds the same repository, and the same refusal */
  g_assert_null (as_model_resolve_path ("linked", &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "leads out of the Hugging Face cache"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* Keep the user's own Hugging Face cache out of the results. */
  g_autofree char *home = g_build_filename (test_tmpdir (), "home", NULL);
  g_setenv ("HOME", home, TRUE);
  g_unsetenv ("XDG_CACHE_HOME");
  g_test_add_func ("/core/model/locate/hf-cache", test_hf_cache);
  g_test_add_func ("/core/model/locate/hf-cache-sharded", test_hf_cache_sharded);
  g_test_add_func ("/core/model/locate/shipped", test_shipped);
  g_test_add_func ("/core/model/locate/not-found", test_not_found);
  g_test_add_func ("/core/model/locate/names-are-names", test_names_are_names);
  g_test_add_func ("/core/model/locate/snapshot-outside", test_snapshot_outside);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

/* test-hostile-files.c — model folders, weight files, matrices and JSON built to hurt the
 * loaders (recipes in hostile-fixtures.h).
 *
 * Every hostile model folder must fail to load with the error code and a message that names the
 * file and the problem — or, for a dataset the model never uses, load with the right weights and
 * without reading it. The HDF5 cases run libhdf5 in the child (h5-child-private.h); the same
 * recipes for `project --input` go through as_matrix_h5_read. A folder whose load would hang
 * (FIFOs) or blow up memory (12 GB, 100 MB of JSON) shows up here as a test that does not end or
 * a sanitizer abort, so the meson timeout bounds this program. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-matrix-h5.h"
#include "as-model.h"
#include "check-close.h"
#include "fixture-model.h"
#include "hostile-fixtures.h"
#include "json-file-private.h"
#include "memory-private.h"
#include "tensor-store-private.h"

static char *
write_hostile (HostileCase c)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_build_filename (test_tmpdir (), hostile_case_name (c), NULL);
  g_assert_true (hostile_folder_write (dir, c, &error));
  g_assert_no_error (error);
  return dir;
}

/* Each hostile folder fails with a message naming its file and problem; "huge-unused" loads. */
static void
test_model_folders (void)
{
  for (HostileCase c = 0; c < HOSTILE_N_CASES; c++)
    {
      g_autofree char *dir = write_hostile (c);
      g_autofree char *file = g_build_filename (dir, hostile_case_file (c), NULL);
      g_autoptr (GError) error = NULL;
      gint64 start = g_get_monotonic_time ();
      g_autoptr (AsModel) model = as_model_load (dir, &error);
      double seconds = (g_get_monotonic_time () - start) / 1e6;
      g_test_message ("%s: %.2f s: %s", hostile_case_name (c), seconds,
                      error != NULL ? error->message : "loaded");
      const char *needle = hostile_case_needle (c);
      if (needle == NULL)
        {
          g_assert_no_error (error);
          g_assert_nonnull (model);
          continue;
        }
      g_assert_null (model);
      g_assert_nonnull (error);
      g_assert_true (error->domain == AS_ERROR);
      g_assert_nonnull (strstr (error->message, file));
      g_assert_nonnull (strstr (error->message, needle));
      g_assert_null (strchr (error->message, '\n'));
    }
}

/* The 12 GB dataset a file merely lists is never read: the model loads with exactly the weights
 * of the unmodified fixture, and what the process holds stays the size of the small model. */
static void
test_unused_dataset_costs_nothing (void)
{
  g_autofree char *dir = write_hostile (HOSTILE_HUGE_UNUSED);
  g_autofree char *plain = g_build_filename (test_tmpdir (), "plain", NULL);
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  g_autoptr (GError) error = NULL;
  g_assert_true (fixture_model_write (plain, &spec, &error));

  guint64 held_before = as_memory_held ();
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  guint64 held = as_memory_held () - held_before;
  g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
  GStatBuf st;
  g_assert_cmpint (g_stat (h5, &st), ==, 0);
  g_test_message ("the model holds %" G_GUINT64_FORMAT " bytes; its file has %" G_GINT64_FORMAT,
                  held, (gint64) st.st_size);
  g_assert_cmpuint (held, <=, (guint64) st.st_size + (1u << 20));
  g_autoptr (AsModel) reference = as_model_load (plain, &error);
  g_assert_no_error (error);
  g_assert_cmpint (as_model_get_n_params (model), ==, as_model_get_n_params (reference));

  const int32_t ids[] = { 10, 20, 30, 40 };
  g_autoptr (AsTrace) a = as_forward (model, ids, 4, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) b = as_forward (reference, ids, 4, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (a->logits, a->vocab_size * sizeof (float), b->logits,
                   b->vocab_size * sizeof (float));
}

/* The recipes at the level of the weight file, with and without the mapping: the external link
 * once read the linked file's data at this file's offsets (wrong weights, exit 0). */
static void
test_keras_store (void)
{
  const HostileCase cases[] = { HOSTILE_VDS_SELF, HOSTILE_EXTERNAL_LINK, HOSTILE_EXTERNAL_PASSWD,
                                HOSTILE_EXTERNAL_ZERO, HOSTILE_OFFSET_OUTSIDE };
  for (int no_mmap = 0; no_mmap < 2; no_mmap++)
    {
      g_setenv ("ATTNSCOPE_NO_MMAP", no_mmap ? "1" : "0", TRUE);
      for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
        {
          g_autofree char *name
              = g_strdup_printf ("store-%d-%s", no_mmap, hostile_case_name (cases[i]));
          g_autofree char *dir = g_build_filename (test_tmpdir (), name, NULL);
          g_autoptr (GError) error = NULL;
          g_assert_true (hostile_folder_write (dir, cases[i], &error));
          g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
          g_autoptr (AsTensorStore) store = as_tensor_store_load_keras_h5 (h5, &error);
          g_assert_null (store);
          g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
          g_assert_nonnull (strstr (error->message, hostile_case_needle (cases[i])));
        }
    }
  g_unsetenv ("ATTNSCOPE_NO_MMAP");
}

/* `project --input`: the same recipes on a matrix file, and a FIFO. */
static void
test_matrix (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "matrices", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  const float x[6] = { 1, 2, 3, 4, 5, 6 };
  struct
  {
    const char *name;
    AsErrorCode code;
    const char *needle;
  } cases[] = {
    { "vds", AS_ERROR_FORMAT, "virtual dataset" },
    { "link", AS_ERROR_FORMAT, "external link" },
    { "passwd", AS_ERROR_FORMAT, "external file '/etc/passwd'" },
    { "huge", AS_ERROR_FORMAT, "only 0 of its 2862 chunks are stored" },
    { "fifo", AS_ERROR_IO, "is a FIFO" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *file = g_strdup_printf ("%s.h5", cases[i].name);
      g_autofree char *path = g_build_filename (dir, file, NULL);
      g_autoptr (GError) error = NULL;
      if (g_str_equal (cases[i].name, "fifo"))
        g_assert_cmpint (mkfifo (path, 0644), ==, 0);
      else
        g_assert_true (as_matrix_h5_write (path, "x", x, 2, 3, &error));
      gboolean ok = TRUE;
      if (g_str_equal (cases[i].name, "vds"))
        ok = hostile_h5_vds_self (path, "x", &error);
      else if (g_str_equal (cases[i].name, "link"))
        ok = hostile_h5_external_link (path, "x", "other.h5", &error);
      else if (g_str_equal (cases[i].name, "passwd"))
        ok = hostile_h5_external_storage (path, "x", "/etc/passwd", &error);
      else if (g_str_equal (cases[i].name, "huge"))
        ok = hostile_h5_unwritten (path, "x", G_GUINT64_CONSTANT (3000000000) / 128, 128, &error);
      g_assert_no_error (error);
      g_assert_true (ok);
      int n = -1, d = -1;
      g_autofree float *m = as_matrix_h5_read (path, "x", &n, &d, &error);
      g_test_message ("%s: %s", cases[i].name, error != NULL ? error->message : "read");
      g_assert_null (m);
      g_assert_error (error, AS_ERROR, (gint) cases[i].code);
      g_assert_nonnull (strstr (error->message, path));
      g_assert_nonnull (strstr (error->message, cases[i].needle));
      g_assert_cmpint (n, ==, -1);
    }
}

/* JSON that json-glib would crash on or misread, refused with the true values. */
static void
test_json (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *nested = hostile_json_nested ("{\"a\": 1}", 100000);
  g_assert_null (as_json_parse ("nested.json", nested, strlen (nested), &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "nested.json: arrays and objects nest more than 1000"));
  g_clear_error (&error);

  /* 1000 levels are fine */
  g_autofree char *deep = hostile_json_nested ("{\"a\": 1}", 999);
  g_autoptr (JsonNode) ok = as_json_parse ("deep.json", deep, strlen (deep), &error);
  g_assert_no_error (error);
  g_assert_nonnull (ok);

  struct
  {
    const char *json, *needle;
  } bad[] = {
    { "{\"n\": 9223372036854775808}", "the number 9223372036854775808 (key \"n\")" },
    { "{\"n\": -9223372036854775809}", "the number -9223372036854775809 (key \"n\")" },
    { "{\"n\": [1, 18446744073709551616]}", "the number 18446744073709551616 (key \"n\")" },
    { "{\"e\": 1e999}", "the number 1e999 (key \"e\")" },
    { "{\"e\": -2.5e400}", "the number -2.5e400 (key \"e\")" },
    { "{\"e\": 1e-999}", "the number 1e-999 (key \"e\")" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_null (as_json_parse ("c.json", bad[i].json, strlen (bad[i].json), &error));
      g_test_message ("%s", error->message);
      g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
      g_assert_nonnull (strstr (error->message, "c.json: line 1"));
      g_clear_error (&error);
    }
  /* the extremes that fit, and numbers inside strings, are read as they are */
  const char *fine = "{\"max\": 9223372036854775807, \"min\": -9223372036854775808, "
                     "\"s\": \"1e999 99999999999999999999\", \"zero\": 0.0e5, \"big\": 1e300}";
  g_autoptr (JsonNode) root = as_json_parse ("fine.json", fine, strlen (fine), &error);
  g_assert_no_error (error);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "max"), ==, G_MAXINT64);
  g_assert_cmpint (json_object_get_int_member (o, "min"), ==, G_MININT64);
  g_assert_cmpfloat (json_object_get_double_member (o, "big"), ==, 1e300);
}

/* A NUL character in a key or a string, or a NUL byte anywhere: json-glib cuts names and values
 * there while Python's json keeps them whole, so the file means something else to attnscope than
 * to transformers; refused, naming the line and the key. An escaped backslash before "u0000" is
 * not a NUL. */
static void
test_json_nul (void)
{
  struct
  {
    const char *json, *needle;
  } bad[] = {
    { "{\"num_hidden_layers\\u0000x\": 2}",
      "line 1: the key \"num_hidden_layers\\u0000x\" holds a NUL character" },
    { "{\"a\": 1,\n \"b\": \"x\\u0000\"}",
      "line 2: the string \"x\\u0000\" (key \"b\") holds a NUL" },
    { "{\"list\": [\"ok\", \"\\u0000\"]}", "the string \"\\u0000\" (key \"list\") holds a NUL" },
    { "{\"a\": 1}\n\0{\"a\": 2}", "line 2: a NUL byte at offset 9" },
    { "{\"a\": \"b\0c\"}", "line 1: a NUL byte at offset 8" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      gsize n = i == 3 ? 19 : i == 4 ? 12 : strlen (bad[i].json);
      g_assert_null (as_json_parse ("n.json", bad[i].json, n, &error));
      g_test_message ("%s", error->message);
      g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, "n.json: "));
      g_assert_nonnull (strstr (error->message, bad[i].needle));
    }
  g_autoptr (GError) error = NULL;
  const char *escaped = "{\"a\\\\u0000\": \"\\\\u0000\"}"; /* {"a\\u0000": "\\u0000"} */
  g_autoptr (JsonNode) root = as_json_parse ("e.json", escaped, strlen (escaped), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "a\\u0000"), ==,
                   "\\u0000");
}

/* generation_config.json goes through the same reader: a NUL key in it fails the load of a
 * translation model, naming the file. */
static void
test_generation_config_nul (void)
{
  g_autofree char *shipped = test_source_path ("data/models/attnscope-mini-en-de");
  g_autofree char *dir = g_build_filename (test_tmpdir (), "generation-nul", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  static const char *const linked[] = {
    "config.json", "vocab.json", "tokenizer_config.json", "special_tokens_map.json", "source.spm",
    "target.spm",  "tf_model.h5"
  };
  for (gsize i = 0; i < G_N_ELEMENTS (linked); i++)
    {
      g_autofree char *from = g_build_filename (shipped, linked[i], NULL);
      g_autofree char *to = g_build_filename (dir, linked[i], NULL);
      g_assert_cmpint (symlink (from, to), ==, 0);
    }
  g_autofree char *generation = g_build_filename (dir, "generation_config.json", NULL);
  g_assert_true (g_file_set_contents (
      generation, "{\"num_beams\": 4, \"num_beams\\u0000x\": 1, \"max_length\": 128}", -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_null (model);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, generation));
  g_assert_nonnull (strstr (error->message, "the key \"num_beams\\u0000x\" holds a NUL character"));
}

/* A config value out of range is reported as the file writes it. */
static void
test_config_true_values (void)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "values.json", NULL);
  struct
  {
    const char *value, *shown;
  } cases[] = {
    { "9223372036854775807", "'n_layer' is 9223372036854775807;" },
    { "-9223372036854775808", "'n_layer' is -9223372036854775808;" },
    { "1e300", "'n_layer' is 1e+300;" },
    { "3000000000", "'n_layer' is 3000000000;" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *json = g_strdup_printf (
          "{\"model_type\": \"gpt2\", \"n_layer\": %s, \"n_head\": 2, \"n_embd\": 8, "
          "\"n_positions\": 16, \"vocab_size\": 300}",
          cases[i].value);
      g_assert_true (g_file_set_contents (path, json, -1, NULL));
      AsConfig c;
      g_autoptr (GError) error = NULL;
      g_assert_false (as_config_load (&c, path, &error));
      g_test_message ("%s", error->message);
      g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
      g_assert_nonnull (strstr (error->message, cases[i].shown));
    }
}

/* refs/main of the Hugging Face cache as a FIFO, or naming "..": the newest snapshot is used. */
static void
test_hf_refs (void)
{
  g_autofree char *home = g_build_filename (test_tmpdir (), "hf-home", NULL);
  g_autofree char *repo = g_build_filename (home, "hub", "models--org--fifo", NULL);
  g_autofree char *snapshot = g_build_filename (repo, "snapshots", "abc", NULL);
  g_autofree char *refs = g_build_filename (repo, "refs", NULL);
  g_autofree char *main_ref = g_build_filename (refs, "main", NULL);
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  g_autoptr (GError) error = NULL;
  g_assert_true (fixture_model_write (snapshot, &spec, &error));
  g_assert_cmpint (g_mkdir_with_parents (refs, 0755), ==, 0);
  g_assert_cmpint (mkfifo (main_ref, 0644), ==, 0);
  g_setenv ("HF_HOME", home, TRUE);
  g_unsetenv ("HF_HUB_CACHE");
  g_autofree char *path = as_model_resolve_path ("org/fifo", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (path, ==, snapshot);

  g_assert_cmpint (g_unlink (main_ref), ==, 0);
  g_assert_true (g_file_set_contents (main_ref, "..\n", -1, NULL));
  g_autofree char *path2 = as_model_resolve_path ("org/fifo", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (path2, ==, snapshot);
}

/* A safetensors header whose __metadata__ nests 100,000 arrays deep: json-glib would overflow
 * the stack. The reader parses its header with as_json_parse, which refuses the nesting before
 * json-glib sees it; nothing of the model is held afterwards. */
static void
test_safetensors_nested (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.write_h5 = FALSE;
  spec.write_safetensors = TRUE;
  g_autofree char *dir = g_build_filename (test_tmpdir (), "st-nested", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (fixture_model_write (dir, &spec, &error));
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  g_autofree char *contents = NULL;
  gsize n = 0;
  g_assert_true (g_file_get_contents (path, &contents, &n, NULL));
  guint64 header_length;
  memcpy (&header_length, contents, 8);
  header_length = GUINT64_FROM_LE (header_length);
  /* {"__metadata__": {"x": [[[...]]]}, ...the tensors} */
  g_autofree char *deep = hostile_json_nested ("{}", 100000);
  GString *header = g_string_new ("{\"__metadata__\": ");
  g_string_append_len (header, deep, (gssize) strlen (deep) - 3); /* without ", }" */
  g_string_append (header, "}, ");
  g_string_append_len (header, contents + 9, (gssize) header_length - 1);
  GString *file = g_string_new (NULL);
  guint64 length = GUINT64_TO_LE ((guint64) header->len);
  g_string_append_len (file, (const char *) &length, 8);
  g_string_append_len (file, header->str, (gssize) header->len);
  g_string_append_len (file, contents + 8 + header_length, (gssize) (n - 8 - header_length));
  g_assert_true (g_file_set_contents (path, file->str, (gssize) file->len, NULL));
  g_string_free (file, TRUE);
  g_string_free (header, TRUE);

  guint64 held = as_memory_held ();
  AsModel *model = as_model_load (dir, &error);
  g_assert_null (model);
  g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "nest more than 1000"));
  g_assert_nonnull (strstr (error->message, "model.safetensors"));
  g_assert_cmpuint (as_memory_held (), ==, held);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* A fixed budget far above what these tests hold, so that the 12 GB recipes are refused for
   * what the file stores, whatever the machine's free memory. */
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", "20000000000", TRUE);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/core/hostile/model-folders", test_model_folders);
  g_test_add_func ("/core/hostile/unused-dataset", test_unused_dataset_costs_nothing);
  g_test_add_func ("/core/hostile/keras-store", test_keras_store);
  g_test_add_func ("/core/hostile/matrix", test_matrix);
  g_test_add_func ("/core/hostile/json", test_json);
  g_test_add_func ("/core/hostile/json-nul", test_json_nul);
  g_test_add_func ("/core/hostile/generation-config-nul", test_generation_config_nul);
  g_test_add_func ("/core/hostile/config-true-values", test_config_true_values);
  g_test_add_func ("/core/hostile/hf-refs", test_hf_refs);
  g_test_add_func ("/core/hostile/safetensors-nested", test_safetensors_nested);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}

/* test-cli-dump-select.c — `run --dump` with --layers and --heads, and a dump of attention kept
 * on demand (README.md, "Command line"; core/README.md, "Attention on demand").
 *
 * - A run whose attention is kept on demand ($ATTNSCOPE_ATTENTION_HELD_MAX far below its
 *   matrices) writes the same datasets, to the bit, as a run that keeps the matrices.
 * - --layers 1,0 --heads 1-1 (the fixture has 2 layers of 2 heads): attentions and contexts are
 *   the full dump's [layers][heads] slices, to the bit, with the attributes layers = [0, 1] and
 *   heads = [1]; hidden states and logits whole; a full dump has no such attributes.
 * - A layer or head the model does not have fails naming the model's L or H; a malformed list
 *   names the item; neither leaves a file. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "dump-compare.h"

static char *fixture;

/* Dataset NAME of FILE as floats (owned) with its 4 dimensions in DIMS. */
static float *
read_floats (hid_t file, const char *name, hsize_t dims[4])
{
  hid_t d = H5Dopen2 (file, name, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  hid_t s = H5Dget_space (d);
  int rank = H5Sget_simple_extent_ndims (s);
  hsize_t got[4] = { 1, 1, 1, 1 };
  H5Sget_simple_extent_dims (s, got, NULL);
  memcpy (dims, got, sizeof got);
  (void) rank;
  float *data = g_new (float, got[0] * got[1] * got[2] * got[3]);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
  H5Sclose (s);
  H5Dclose (d);
  return data;
}

/* The int64 attribute NAME of dataset DSET of FILE as "a,b,c" (owned), or NULL when missing. */
static char *
read_list_attribute (hid_t file, const char *dset, const char *name)
{
  if (H5Aexists_by_name (file, dset, name, H5P_DEFAULT) <= 0)
    return NULL;
  hid_t a = H5Aopen_by_name (file, dset, name, H5P_DEFAULT, H5P_DEFAULT);
  hid_t s = H5Aget_space (a);
  hsize_t n = 0;
  H5Sget_simple_extent_dims (s, &n, NULL);
  g_autofree gint64 *v = g_new (gint64, MAX (n, 1));
  g_assert_cmpint (H5Aread (a, H5T_NATIVE_INT64, v), >=, 0);
  H5Sclose (s);
  H5Aclose (a);
  GString *out = g_string_new (NULL);
  for (hsize_t i = 0; i < n; i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? "," : "", v[i]);
  return g_string_free (out, FALSE);
}

static const char *ids = "5,17,42,99,250,3,8,13,21,34,55,89,144";

static char *
dump (const char *name, const char *const *extra)
{
  char *out = g_build_filename (test_tmpdir (), name, NULL);
  const char *argv[16] = { "run", "--model", fixture, "--ids", ids, "--dump", out };
  int n = 7;
  for (int i = 0; extra != NULL && extra[i] != NULL; i++)
    argv[n++] = extra[i];
  argv[n] = NULL;
  g_auto (Run) r = run_cli_argv (argv);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  return out;
}

static void
test_on_demand_same (void)
{
  g_setenv ("ATTNSCOPE_ATTENTION", "matrices", TRUE);
  g_autofree char *held = dump ("held.h5", NULL);
  g_unsetenv ("ATTNSCOPE_ATTENTION");
  g_setenv ("ATTNSCOPE_ATTENTION_HELD_MAX", "1000", TRUE);
  g_autofree char *on = dump ("on-demand.h5", NULL);
  g_unsetenv ("ATTNSCOPE_ATTENTION_HELD_MAX");
  g_autofree char *why = NULL;
  if (!dump_same_datasets (held, on, &why))
    g_error ("the dumps differ: %s", why);
}

static void
test_select (void)
{
  g_autofree char *all = dump ("all.h5", NULL);
  static const char *const choose[] = { "--layers", "1,0", "--heads", "1-1", NULL };
  g_autofree char *some = dump ("some.h5", choose);
  hid_t fa = H5Fopen (all, H5F_ACC_RDONLY, H5P_DEFAULT),
        fs = H5Fopen (some, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (fa, >=, 0);
  g_assert_cmpint (fs, >=, 0);
  static const char *const names[] = { "attentions", "contexts" };
  for (int k = 0; k < 2; k++)
    {
      hsize_t da[4], ds[4];
      g_autofree float *a = read_floats (fa, names[k], da);
      g_autofree float *s = read_floats (fs, names[k], ds);
      g_assert_cmpuint (ds[0], ==, 2);
      g_assert_cmpuint (ds[1], ==, 1);
      g_assert_cmpuint (ds[2], ==, da[2]);
      g_assert_cmpuint (ds[3], ==, da[3]);
      gsize block = da[2] * da[3];
      for (int l = 0; l < 2; l++)
        g_assert_true (memcmp (s + l * block, a + (l * da[1] + 1) * block, block * sizeof (float))
                       == 0);
      g_autofree char *layers = read_list_attribute (fs, names[k], "layers");
      g_autofree char *heads = read_list_attribute (fs, names[k], "heads");
      g_assert_cmpstr (layers, ==, "0,1");
      g_assert_cmpstr (heads, ==, "1");
      g_assert_null (read_list_attribute (fa, names[k], "layers"));
    }
  hsize_t ha[4], hs[4];
  g_autofree float *hidden_a = read_floats (fa, "hidden_states", ha);
  g_autofree float *hidden_s = read_floats (fs, "hidden_states", hs);
  g_assert_true (memcmp (ha, hs, sizeof ha) == 0);
  g_assert_true (memcmp (hidden_a, hidden_s, ha[0] * ha[1] * ha[2] * sizeof (float)) == 0);
  H5Fclose (fa);
  H5Fclose (fs);
}

static void
test_bad_selection (void)
{
  g_autofree char *out = g_build_filename (test_tmpdir (), "bad.h5", NULL);
  Run info = run_cli ("info", "--model", fixture, "--json", NULL);
  g_assert_cmpint (info.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (info.out);
  JsonObject *o = json_node_get_object (root);
  JsonObject *config
      = json_object_has_member (o, "config") ? json_object_get_object_member (o, "config") : o;
  int L = (int) json_object_get_int_member (config, "n_layer");
  int H = (int) json_object_get_int_member (config, "n_head");
  run_clear (&info);
  g_autofree char *too_deep = g_strdup_printf ("0,%d", L);
  g_autofree char *too_wide = g_strdup_printf ("0-%d", H);
  g_autofree char *has_l = g_strdup_printf ("has %d layers", L);
  g_autofree char *has_h = g_strdup_printf ("has %d heads", H);
  struct
  {
    const char *option, *list, *needle;
  } cases[] = {
    { "--layers", too_deep, has_l },       { "--heads", too_wide, has_h },
    { "--layers", "1,x", "'x' (item 2)" }, { "--heads", "3-1", "'3-1' (item 1)" },
    { "--heads", "", "--heads is empty" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Run) r = run_cli ("run", "--model", fixture, "--ids", ids, "--dump", out,
                                cases[i].option, cases[i].list, NULL);
      assert_error (&r, 1, cases[i].needle);
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  fixture = test_source_path ("tests/fixtures/tiny-gpt2");
  g_test_add_func ("/cli/dump-select/on-demand-same", test_on_demand_same);
  g_test_add_func ("/cli/dump-select/select", test_select);
  g_test_add_func ("/cli/dump-select/bad", test_bad_selection);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (fixture);
  return status;
}

/* marian-fixtures.c — see marian-fixtures.h. */
#include "marian-fixtures.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check-close.h"

static JsonParser *manifest_parser;

JsonObject *
marian_fixtures (void)
{
  const char *dir = g_getenv ("ATTNSCOPE_MARIAN_FIXTURES");
  if (dir == NULL || *dir == '\0')
    {
      g_test_skip ("ATTNSCOPE_MARIAN_FIXTURES is not set (run the tests with meson test)");
      return NULL;
    }
  g_autofree char *stamp_path = g_build_filename (dir, "stamp", NULL);
  g_autofree char *stamp = NULL;
  if (!g_file_get_contents (stamp_path, &stamp, NULL, NULL))
    {
      g_test_skip ("no Marian fixtures: the build has no Python to make them");
      return NULL;
    }
  g_strstrip (stamp);
  if (g_str_has_prefix (stamp, "skip: "))
    {
      g_test_skip (stamp + strlen ("skip: "));
      return NULL;
    }
  if (!g_str_equal (stamp, "ok"))
    {
      g_test_message ("tests/reference/make_marian_fixtures.py: %s", stamp);
      g_test_fail ();
      return NULL;
    }
  if (manifest_parser == NULL)
    {
      g_autofree char *path = g_build_filename (dir, "manifest.json", NULL);
      manifest_parser = json_parser_new ();
      GError *error = NULL;
      json_parser_load_from_file (manifest_parser, path, &error);
      g_assert_no_error (error);
    }
  return json_node_get_object (json_parser_get_root (manifest_parser));
}

JsonNode *
marian_fixture (const char *section, const char *name)
{
  JsonObject *m = marian_fixtures ();
  if (m == NULL)
    return NULL;
  JsonObject *s = json_object_get_object_member (m, section);
  JsonNode *node = s != NULL ? json_object_get_member (s, name) : NULL;
  if (node == NULL)
    {
      g_test_message ("manifest.json has no %s/%s", section, name);
      g_test_fail ();
    }
  return node;
}

const char *
marian_fixture_path (const char *section, const char *name)
{
  JsonNode *node = marian_fixture (section, name);
  return node != NULL ? json_node_get_string (node) : NULL;
}

GArray *
marian_json_ids (JsonArray *array)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      int32_t id = (int32_t) json_array_get_int_element (array, i);
      g_array_append_val (ids, id);
    }
  return ids;
}

char *
marian_copy_model (const char *from, const char *name, const char *const *skip)
{
  char *to = g_build_filename (test_tmpdir (), name, NULL);
  g_assert_cmpint (g_mkdir_with_parents (to, 0755), ==, 0);
  g_autoptr (GDir) dir = g_dir_open (from, 0, NULL);
  g_assert_nonnull (dir);
  for (const char *f; (f = g_dir_read_name (dir)) != NULL;)
    {
      gboolean skipped = FALSE;
      for (const char *const *s = skip; s != NULL && *s != NULL; s++)
        skipped = skipped || g_str_equal (*s, f);
      if (skipped)
        continue;
      g_autofree char *src = g_build_filename (from, f, NULL);
      g_autofree char *dst = g_build_filename (to, f, NULL);
      g_autofree char *data = NULL;
      gsize n = 0;
      g_assert_true (g_file_get_contents (src, &data, &n, NULL));
      g_assert_true (g_file_set_contents (dst, data, (gssize) n, NULL));
    }
  return to;
}

/* Opens GROUP/NAME and checks its rank and dims (any dims when DIMS is NULL). */
static hid_t
open_dataset (hid_t file, const char *group, const char *name, int rank, const hsize_t *dims,
              hsize_t *n)
{
  g_autofree char *path
      = group != NULL ? g_strdup_printf ("/%s/%s", group, name) : g_strdup_printf ("/%s", name);
  hid_t ds = H5Dopen2 (file, path, H5P_DEFAULT);
  if (ds < 0)
    {
      g_test_message ("expected file has no dataset %s", path);
      g_test_fail ();
      return -1;
    }
  hid_t space = H5Dget_space (ds);
  hsize_t got[8] = { 0 };
  int got_rank = H5Sget_simple_extent_ndims (space);
  gboolean ok
      = got_rank == rank && got_rank <= 8 && H5Sget_simple_extent_dims (space, got, NULL) == rank;
  *n = 1;
  for (int i = 0; ok && i < rank; i++)
    {
      ok = dims == NULL || got[i] == dims[i];
      *n *= got[i];
    }
  H5Sclose (space);
  if (!ok)
    {
      g_test_message ("%s: rank %d or its dims differ from the trace's", path, got_rank);
      g_test_fail ();
      H5Dclose (ds);
      return -1;
    }
  return ds;
}

float *
marian_read_floats (hid_t file, const char *group, const char *name, int rank, const hsize_t *dims)
{
  hsize_t n;
  hid_t ds = open_dataset (file, group, name, rank, dims, &n);
  if (ds < 0)
    return NULL;
  float *data = g_new (float, n);
  g_assert_cmpint (H5Dread (ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
  H5Dclose (ds);
  return data;
}

GArray *
marian_read_ids (hid_t file, const char *group, const char *name)
{
  hsize_t n;
  hid_t ds = open_dataset (file, group, name, 1, NULL, &n);
  if (ds < 0)
    return NULL;
  g_autofree int64_t *raw = g_new (int64_t, n);
  g_assert_cmpint (H5Dread (ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw), >=, 0);
  H5Dclose (ds);
  GArray *ids = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), n);
  for (hsize_t i = 0; i < n; i++)
    {
      int32_t id = (int32_t) raw[i];
      g_array_append_val (ids, id);
    }
  return ids;
}

gboolean
marian_check_vectors (const char *what, const float *actual, const float *expected, gsize n)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += (double) expected[i] * expected[i];
  double rms = n > 0 ? sqrt (s / n) : 0;
  return check_close (what, actual, expected, n, 1e-5 * rms, 1e-4);
}

gboolean
marian_check_attention (const char *what, const float *actual, const float *expected, gsize n)
{
  return check_close (what, actual, expected, n, 1e-5, 0);
}

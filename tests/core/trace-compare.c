/* trace-compare.c — reading the references' expected outputs and comparing with them
 * (trace-compare.h). */
#include "trace-compare.h"

#include <math.h>

#include "check-close.h"

float *
trace_read_floats (hid_t file, const char *group, const char *name, int rank, const hsize_t *want)
{
  g_autofree char *path = g_strdup_printf ("/%s/%s", group, name);
  hid_t ds = H5Dopen2 (file, path, H5P_DEFAULT);
  if (ds < 0)
    {
      g_test_message ("expected file has no dataset %s", path);
      g_test_fail ();
      return NULL;
    }
  hid_t space = H5Dget_space (ds);
  hsize_t dims[8] = { 0 };
  int got_rank = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
  gboolean ok = got_rank == rank && H5Sget_simple_extent_dims (space, dims, NULL) == rank;
  gsize n = 1;
  for (int i = 0; ok && i < rank; i++)
    {
      ok = dims[i] == want[i];
      n *= want[i];
    }
  float *data = NULL;
  if (ok)
    {
      data = g_new (float, n);
      ok = H5Dread (ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    }
  if (!ok)
    {
      g_test_message ("expected %s: rank %d or dims differ from the trace's shape, or read failed",
                      path, got_rank);
      g_test_fail ();
      g_clear_pointer (&data, g_free);
    }
  H5Sclose (space);
  H5Dclose (ds);
  return data;
}

GArray *
trace_read_ids (hid_t file, const char *group)
{
  g_autofree char *path = g_strdup_printf ("/%s/ids", group);
  if (H5Lexists (file, group, H5P_DEFAULT) <= 0)
    return NULL;
  hid_t ds = H5Dopen2 (file, path, H5P_DEFAULT);
  g_assert_cmpint (ds, >=, 0);
  hid_t space = H5Dget_space (ds);
  hssize_t npoints = H5Sget_simple_extent_npoints (space);
  if (npoints <= 0 || npoints > 1000000)
    g_error ("%s: %" G_GINT64_FORMAT " ids, expected 1..1000000", path, (gint64) npoints);
  gsize n = (gsize) npoints;
  g_autofree int64_t *raw = g_new (int64_t, n);
  g_assert_cmpint (H5Dread (ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw), >=, 0);
  H5Sclose (space);
  H5Dclose (ds);
  GArray *ids = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), n);
  for (gsize i = 0; i < n; i++)
    {
      int32_t id = (int32_t) raw[i];
      g_array_append_val (ids, id);
    }
  return ids;
}

double
trace_rms (const float *x, gsize n)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += (double) x[i] * x[i];
  return n ? sqrt (s / n) : 0;
}

/* max |a - e| / (atol + rtol·|e|): how much of the tolerance the worst element needs. */
static double
tolerance_used (const float *actual, const float *expected, gsize n, double atol, double rtol)
{
  double worst = 0;
  for (gsize i = 0; i < n; i++)
    worst
        = MAX (worst, fabs ((double) actual[i] - expected[i]) / (atol + rtol * fabs (expected[i])));
  return worst;
}

void
trace_compare_vectors (const char *label, const char *name, const float *actual, hid_t file,
                       const char *group, int rank, const hsize_t *dims)
{
  g_autofree float *expected = trace_read_floats (file, group, name, rank, dims);
  if (expected == NULL)
    return;
  gsize n = 1;
  for (int i = 0; i < rank; i++)
    n *= dims[i];
  g_autofree char *what = g_strdup_printf ("%s %s", label, name);
  double atol = TRACE_VEC_ATOL_PER_RMS * trace_rms (expected, n);
  if (check_close (what, actual, expected, n, atol, TRACE_VEC_RTOL))
    g_test_message ("%s: at most %.0f %% of the tolerance used", what,
                    100 * tolerance_used (actual, expected, n, atol, TRACE_VEC_RTOL));
}

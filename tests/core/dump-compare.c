/* dump-compare.c — bit-for-bit comparisons of run --dump files and traces (dump-compare.h). */
#include "dump-compare.h"

#include <hdf5.h>
#include <math.h>
#include <string.h>

static herr_t
add_name (hid_t group, const char *name, const H5L_info_t *info, void *data)
{
  g_ptr_array_add (data, g_strdup (name));
  return 0;
}

/* The names of FILE's root links, in name order. */
static GPtrArray *
root_names (hid_t file)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  H5Literate (file, H5_INDEX_NAME, H5_ITER_INC, NULL, add_name, names);
  return names;
}

/* Variable-length strings [n] of dataset D as one string, NUL-separated (owned). */
static GString *
read_strings (hid_t d, hsize_t n)
{
  hid_t type = H5Tcopy (H5T_C_S1);
  H5Tset_size (type, H5T_VARIABLE);
  H5Tset_cset (type, H5T_CSET_UTF8);
  char **s = g_new0 (char *, n);
  GString *out = g_string_new (NULL);
  if (H5Dread (d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0)
    for (hsize_t i = 0; i < n; i++)
      g_string_append_len (out, s[i] != NULL ? s[i] : "", s[i] != NULL ? strlen (s[i]) + 1 : 1);
  hid_t space = H5Dget_space (d);
  H5Dvlen_reclaim (type, space, H5P_DEFAULT, s);
  H5Sclose (space);
  H5Tclose (type);
  g_free (s);
  return out;
}

/* Raw bytes of dataset D in its file type [*size] (owned), or NULL. */
static guint8 *
read_raw (hid_t d, hid_t type, hsize_t n, gsize *size)
{
  *size = (gsize) n * H5Tget_size (type);
  guint8 *buf = g_malloc0 (MAX (*size, 1));
  if (H5Dread (d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    g_clear_pointer (&buf, g_free);
  return buf;
}

/* How float32 arrays A and B [n] differ (owned). */
static char *
describe_floats (const float *a, const float *b, gsize n)
{
  gsize count = 0, first = 0;
  double max = 0;
  for (gsize i = 0; i < n; i++)
    if (memcmp (a + i, b + i, sizeof (float)) != 0)
      {
        if (count++ == 0)
          first = i;
        max = fmax (max, fabs ((double) a[i] - b[i]));
      }
  return g_strdup_printf ("%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                          " floats differ (first at %" G_GSIZE_FORMAT
                          ": %.9g vs %.9g; max |Δ| %.3g)",
                          count, n, first, a[first], b[first], max);
}

/* Whether dataset NAME is the same in A and B; else *WHY says how. */
static gboolean
same_dataset (hid_t a, hid_t b, const char *name, char **why)
{
  hid_t da = H5Dopen2 (a, name, H5P_DEFAULT), db = H5Dopen2 (b, name, H5P_DEFAULT);
  hid_t ta = H5Dget_type (da), tb = H5Dget_type (db);
  hid_t sa = H5Dget_space (da), sb = H5Dget_space (db);
  hsize_t na = H5Sget_simple_extent_npoints (sa), nb = H5Sget_simple_extent_npoints (sb);
  int rank = H5Sget_simple_extent_ndims (sa);
  hsize_t dims_a[8] = { 0 }, dims_b[8] = { 0 };
  gboolean same = FALSE;
  if (da < 0 || db < 0 || rank < 0 || rank > 8)
    *why = g_strdup_printf ("%s: cannot be read", name);
  else if (H5Tequal (ta, tb) <= 0)
    *why = g_strdup_printf ("%s: the types differ", name);
  else if (H5Sget_simple_extent_dims (sa, dims_a, NULL) != H5Sget_simple_extent_ndims (sb)
           || H5Sget_simple_extent_dims (sb, dims_b, NULL) != rank
           || memcmp (dims_a, dims_b, sizeof dims_a) != 0 || na != nb)
    *why = g_strdup_printf ("%s: the shapes differ", name);
  else if (H5Tget_class (ta) == H5T_STRING && H5Tis_variable_str (ta) > 0)
    {
      GString *x = read_strings (da, na), *y = read_strings (db, nb);
      same = x->len == y->len && memcmp (x->str, y->str, x->len) == 0;
      if (!same)
        *why = g_strdup_printf ("%s: the strings differ", name);
      g_string_free (x, TRUE);
      g_string_free (y, TRUE);
    }
  else
    {
      gsize size_a, size_b;
      g_autofree guint8 *x = read_raw (da, ta, na, &size_a);
      g_autofree guint8 *y = read_raw (db, tb, nb, &size_b);
      same = x != NULL && y != NULL && memcmp (x, y, size_a) == 0;
      if (!same && x != NULL && y != NULL && H5Tget_class (ta) == H5T_FLOAT
          && H5Tget_size (ta) == sizeof (float))
        {
          g_autofree char *how = describe_floats ((float *) x, (float *) y, na);
          *why = g_strdup_printf ("%s: %s", name, how);
        }
      else if (!same)
        *why = g_strdup_printf ("%s: the bytes differ", name);
    }
  H5Sclose (sa);
  H5Sclose (sb);
  H5Tclose (ta);
  H5Tclose (tb);
  H5Dclose (da);
  H5Dclose (db);
  return same;
}

gboolean
dump_same_datasets (const char *path_a, const char *path_b, char **why)
{
  *why = NULL;
  hid_t a = H5Fopen (path_a, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t b = H5Fopen (path_b, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (a < 0 || b < 0)
    {
      *why = g_strdup_printf ("cannot open %s", a < 0 ? path_a : path_b);
      if (a >= 0)
        H5Fclose (a);
      if (b >= 0)
        H5Fclose (b);
      return FALSE;
    }
  g_autoptr (GPtrArray) names_a = root_names (a);
  g_autoptr (GPtrArray) names_b = root_names (b);
  gboolean same = names_a->len == names_b->len && names_a->len > 0;
  if (!same)
    *why = g_strdup_printf ("%u datasets against %u", names_a->len, names_b->len);
  for (guint i = 0; same && i < names_a->len; i++)
    {
      const char *name = g_ptr_array_index (names_a, i);
      same = g_strcmp0 (name, g_ptr_array_index (names_b, i)) == 0;
      if (!same)
        *why = g_strdup_printf ("%s against %s", name, (char *) g_ptr_array_index (names_b, i));
      else
        same = same_dataset (a, b, name, why);
    }
  H5Fclose (a);
  H5Fclose (b);
  return same;
}

/* Asserts that dataset NAME of FILE holds exactly N floats, the last N_CHECK of which are
 * EXPECTED's bytes. */
static void
assert_floats (hid_t file, const char *name, const float *expected, gsize n, gsize n_check,
               const char *label)
{
  hid_t d = H5Dopen2 (file, name, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  hid_t space = H5Dget_space (d);
  g_assert_cmpuint (H5Sget_simple_extent_npoints (space), ==, n);
  g_autofree float *got = g_new (float, n);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got), >=, 0);
  H5Sclose (space);
  H5Dclose (d);
  const float *tail = got + (n - n_check);
  if (memcmp (tail, expected, n_check * sizeof (float)) != 0)
    {
      g_autofree char *how = describe_floats (expected, tail, n_check);
      g_error ("%s: %s of the trace and the dump: %s", label, name, how);
    }
}

static void
assert_ids (hid_t file, const char *name, const int32_t *ids, int n, const char *label)
{
  hid_t d = H5Dopen2 (file, name, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  g_autofree gint64 *got = g_new (gint64, n);
  hid_t space = H5Dget_space (d);
  g_assert_cmpuint (H5Sget_simple_extent_npoints (space), ==, n);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, got), >=, 0);
  H5Sclose (space);
  H5Dclose (d);
  for (int i = 0; i < n; i++)
    if (got[i] != ids[i])
      g_error ("%s: %s[%d] is %" G_GINT64_FORMAT " in the dump, %d in the trace", label, name, i,
               got[i], ids[i]);
}

void
dump_assert_trace (const AsTrace *t, const char *dump, const char *label)
{
  hid_t file = H5Fopen (dump, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  gsize L = t->n_layer, H = t->n_head, T = t->n_tokens, D = t->d_model, hd = t->head_dim;
  gsize V = t->vocab_size, rows = t->logits_rows;
  if (t->source != NULL)
    {
      const AsTrace *e = t->source;
      gsize Le = e->n_layer, He = e->n_head, S = e->n_tokens;
      assert_ids (file, "source_ids", e->ids, e->n_tokens, label);
      assert_ids (file, "target_ids", t->ids, t->n_tokens, label);
      assert_floats (file, "encoder_attentions", e->attn, Le * He * S * S, Le * He * S * S, label);
      assert_floats (file, "encoder_hidden_states", e->hidden, (Le + 1) * S * D, (Le + 1) * S * D,
                     label);
      assert_floats (file, "decoder_attentions", t->attn, L * H * T * T, L * H * T * T, label);
      assert_floats (file, "cross_attentions", t->cross_attn, L * H * T * S, L * H * T * S, label);
      assert_floats (file, "decoder_hidden_states", t->hidden, (L + 1) * T * D, (L + 1) * T * D,
                     label);
    }
  else
    {
      assert_ids (file, "token_ids", t->ids, t->n_tokens, label);
      assert_floats (file, "attentions", t->attn, L * H * T * T, L * H * T * T, label);
      assert_floats (file, "hidden_states", t->hidden, (L + 1) * T * D, (L + 1) * T * D, label);
      assert_floats (file, "contexts", t->ctx, L * H * T * hd, L * H * T * hd, label);
    }
  if (V > 0)
    assert_floats (file, "logits", t->logits, T * V, rows * V, label);
  H5Fclose (file);
}

/* trace-compare.c — a forward pass against a reference's expected outputs (trace-compare.h). */
#include "trace-compare.h"

#include <math.h>
#include <string.h>

#include "check-close.h"

/* The last-position-only run may compute its one row of logits with a matrix-vector product
 * instead of a matrix product: same numbers up to float32 rounding of a D-term sum. */
#define LAST_LOGITS_RTOL 1e-5
#define LAST_LOGITS_ATOL_PER_RMS 1e-5

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

void
trace_check_attention_rows (const char *label, const AsTrace *t, const int *windows)
{
  int T = t->n_tokens;
  for (int l = 0; l < t->n_layer; l++)
    for (int h = 0; h < t->n_head; h++)
      {
        const float *p = as_trace_attn_matrices (t, l, h); /* [T][T] */
        int w = windows != NULL ? windows[l] : 0;
        for (int i = 0; i < T; i++)
          {
            double sum = 0;
            int lo = w > 0 ? MAX (0, i - w + 1) : 0;
            for (int j = 0; j < T; j++)
              {
                if ((j > i || j < lo) && p[i * T + j] != 0.0f)
                  {
                    g_test_message ("%s: layer %d head %d: masked weight [%d][%d] = %g, not 0",
                                    label, l, h, i, j, p[i * T + j]);
                    g_test_fail ();
                    return;
                  }
                sum += p[i * T + j];
              }
            if (fabs (sum - 1.0) > 1e-6)
              {
                g_test_message ("%s: layer %d head %d row %d sums to %.9f", label, l, h, i, sum);
                g_test_fail ();
                return;
              }
          }
      }
}

gboolean
trace_compare_sequence (AsModel *model, hid_t file, const char *group, const char *label,
                        const TraceCompareSpec *spec)
{
  g_autoptr (GArray) ids = trace_read_ids (file, group);
  if (ids == NULL)
    return FALSE;
  int n = (int) ids->len;
  const int32_t *id = &g_array_index (ids, int32_t, 0);
  AsForwardOptions all = { .all_logits = TRUE, .capture_qkv = TRUE };
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) t = as_forward (model, id, n, &all, &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);

  const AsConfig *c = as_model_get_config (model);
  g_assert_cmpint (t->n_tokens, ==, n);
  g_assert_cmpint (t->n_layer, ==, c->n_layer);
  g_assert_cmpint (t->n_head, ==, c->n_head);
  g_assert_cmpint (t->n_kv_head, ==, c->n_kv_head);
  g_assert_cmpint (t->d_model, ==, c->n_embd);
  g_assert_cmpint (t->head_dim, ==, c->head_dim);
  g_assert_cmpint (t->vocab_size, ==, c->vocab_size);
  g_assert_cmpint (t->logits_rows, ==, n);
  g_assert_cmpmem (t->ids, n * sizeof (int32_t), id, n * sizeof (int32_t));

  g_autofree char *lbl = g_strdup_printf ("%s %s (T=%d)", label, group, n);
  hsize_t L = t->n_layer, H = t->n_head, T = n, D = t->d_model, hd = t->head_dim;
  hsize_t V = t->vocab_size;
  hsize_t attn_dims[] = { L, H, T, T };
  g_autofree float *attn = trace_read_floats (file, group, "attentions", 4, attn_dims);
  if (attn != NULL)
    {
      g_autofree char *what = g_strdup_printf ("%s attentions", lbl);
      check_close (what, t->attn, attn, L * H * T * T, TRACE_ATTN_ATOL, 0.0);
    }
  hsize_t head_dims[] = { L, H, T, hd };
  if (spec == NULL || !spec->no_qkv)
    {
      trace_compare_vectors (lbl, "q", t->q, file, group, 4, head_dims);
      trace_compare_vectors (lbl, "k", t->k, file, group, 4, head_dims);
      trace_compare_vectors (lbl, "v", t->v, file, group, 4, head_dims);
    }
  trace_compare_vectors (lbl, "contexts", t->ctx, file, group, 4, head_dims);
  hsize_t out_dims[] = { L, T, D };
  trace_compare_vectors (lbl, "attn_out", t->attn_out, file, group, 3, out_dims);
  hsize_t hidden_dims[] = { L + 1, T, D };
  trace_compare_vectors (lbl, "hidden_states", t->hidden, file, group, 3, hidden_dims);
  hsize_t logit_dims[] = { T, V };
  trace_compare_vectors (lbl, "logits", t->logits, file, group, 2, logit_dims);
  trace_check_attention_rows (lbl, t, spec != NULL ? spec->windows : NULL);

  /* The default pass: only the last position's logits, no q, k, v — the same numbers. */
  g_autoptr (AsTrace) last = as_forward (model, id, n, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (last->logits_rows, ==, 1);
  g_assert_null (last->q);
  g_assert_null (last->k);
  g_assert_null (last->v);
  g_autofree char *what = g_strdup_printf ("%s last-position logits", lbl);
  check_close (what, as_trace_last_logits (last), as_trace_last_logits (t), V,
               LAST_LOGITS_ATOL_PER_RMS * trace_rms (as_trace_last_logits (t), V),
               LAST_LOGITS_RTOL);
  g_autofree char *what_attn = g_strdup_printf ("%s attentions of the default run", lbl);
  check_close (what_attn, last->attn, t->attn, L * H * T * T, 0.0, 0.0);
  g_autofree char *what_ctx = g_strdup_printf ("%s contexts of the default run", lbl);
  check_close (what_ctx, last->ctx, t->ctx, L * H * T * hd, 0.0, 0.0);
  return TRUE;
}

int
trace_compare_model (const char *model_dir, const char *expected_path, const char *label,
                     const TraceCompareSpec *spec)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (model_dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  hid_t file = H5Fopen (expected_path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    {
      g_test_message ("could not open the expected outputs %s", expected_path);
      g_test_fail ();
      return 0;
    }
  int n = 0;
  for (;; n++)
    {
      g_autofree char *group = g_strdup_printf ("seq%d", n);
      if (!trace_compare_sequence (model, file, group, label, spec))
        break;
    }
  H5Fclose (file);
  return n;
}

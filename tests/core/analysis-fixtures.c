/* analysis-fixtures.c — see analysis-fixtures.h. The reference exchange uses raw little-endian
 * float32 in / float64 out files in the test's temporary directory. */
#include "analysis-fixtures.h"

#include <math.h>

#include "check-close.h"

AsTrace *
fixture_trace_new (int n_layer, int n_head, int n_tokens, int d_model, int head_dim,
                   const char *const *tokens, gboolean causal)
{
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_trace_new (n_layer, n_head, n_tokens, d_model, head_dim, 0, FALSE, &error);
  g_assert_no_error (error);
  t->causal = causal;
  for (int i = 0; i < n_tokens; i++)
    {
      t->ids[i] = i;
      t->tokens[i] = tokens != NULL ? g_strdup (tokens[i]) : g_strdup_printf ("t%d", i);
    }
  return t;
}

void
fixture_random_attention (float *attn, int n_matrices, int n_tokens, gboolean causal, GRand *rand)
{
  /* attn [n_matrices][T][T] */
  for (int m = 0; m < n_matrices; m++)
    for (int i = 0; i < n_tokens; i++)
      {
        float *row = attn + ((gsize) m * n_tokens + i) * n_tokens;
        int n_visible = causal ? i + 1 : n_tokens;
        double sum = 0;
        for (int j = 0; j < n_tokens; j++)
          {
            row[j] = j < n_visible ? (float) exp (3.0 * g_rand_double_range (rand, -1, 1)) : 0.0f;
            sum += row[j];
          }
        for (int j = 0; j < n_visible; j++)
          row[j] = (float) (row[j] / sum);
      }
}

void
fixture_random_floats (float *x, gsize n, GRand *rand)
{
  for (gsize i = 0; i < n; i++)
    x[i] = (float) g_rand_double_range (rand, -1, 1);
}

float *
fixture_reference_run (const char *kind, const float *input, gsize n_in, const char *shape,
                       gsize n_out)
{
  return fixture_reference_run_args (kind, input, n_in, shape, NULL, NULL, n_out);
}

float *
fixture_reference_run_args (const char *kind, const float *input, gsize n_in, const char *shape,
                            const char *arg1, const char *arg2, gsize n_out)
{
  const char *python = test_python_with ("numpy");
  if (python == NULL)
    return NULL;

  g_autoptr (GError) error = NULL;
  g_autofree char *script = test_source_path ("tests/reference/analysis_reference.py");
  g_autofree char *in_path = g_build_filename (test_tmpdir (), "reference-in.f32", NULL);
  g_autofree char *out_path = g_build_filename (test_tmpdir (), "reference-out.f64", NULL);
  g_file_set_contents (in_path, (const char *) input, (gssize) (n_in * sizeof (float)), &error);
  g_assert_no_error (error);

  const char *argv[] = { python, script, kind, in_path, shape, out_path, arg1, arg2, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  if (status != 0)
    {
      g_test_message ("analysis_reference.py %s failed with status %d: %s", kind, status, err);
      g_test_fail ();
      return NULL;
    }

  g_autofree char *contents = NULL;
  gsize length = 0;
  g_file_get_contents (out_path, &contents, &length, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (length, ==, n_out * sizeof (double));
  float *result = g_new (float, n_out);
  const double *values = (const double *) contents;
  for (gsize i = 0; i < n_out; i++)
    result[i] = (float) values[i];
  return result;
}

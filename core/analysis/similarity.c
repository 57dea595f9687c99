/* similarity.c — cosine similarity matrices and the per-token comparison table.
 *
 * Norms are computed once per row in double; each pair then costs one dot product. The matrix is
 * symmetric, so only the upper triangle is computed and mirrored. */
#include "as-similarity.h"

#include <math.h>

#include "as-error.h"

static double
dot_double (const float *a, const float *b, int dim)
{
  double sum = 0;
  for (int d = 0; d < dim; d++)
    sum += (double) a[d] * (double) b[d];
  return sum;
}

double
as_cosine_similarity (const float *a, const float *b, int dim)
{
  double na = sqrt (dot_double (a, a, dim));
  double nb = sqrt (dot_double (b, b, dim));
  if (na == 0 || nb == 0)
    return 0;
  return dot_double (a, b, dim) / (na * nb);
}

void
as_cosine_similarity_matrix (float *out, const float *vectors, int n, int dim)
{
  /* out [N][N], vectors [N][dim] */
  g_autofree double *norm = g_new (double, n); /* [N] */
  for (int i = 0; i < n; i++)
    {
      const float *v = vectors + (gsize) i * dim;
      norm[i] = sqrt (dot_double (v, v, dim));
    }
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++)
      {
        double s = 0;
        if (norm[i] > 0 && norm[j] > 0)
          s = dot_double (vectors + (gsize) i * dim, vectors + (gsize) j * dim, dim)
              / (norm[i] * norm[j]);
        out[(gsize) i * n + j] = (float) s;
        out[(gsize) j * n + i] = (float) s;
      }
}

float *
as_trace_similarity (const AsTrace *trace, AsVectorSource source, int layer, int head,
                     GError **error)
{
  int n = 0, dim = 0;
  const float *vectors = as_trace_vectors_get (trace, source, layer, head, &n, &dim, error);
  if (vectors == NULL)
    return NULL;
  float *out = g_new (float, (gsize) n *n); /* [T][T] */
  as_cosine_similarity_matrix (out, vectors, n, dim);
  return out;
}

gboolean
as_similarity_check_token (int token, int n_tokens, GError **error)
{
  if (token < 0 || token >= n_tokens)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "token index %d is out of range: the text has %d tokens (valid 0..%d)", token,
                   n_tokens, n_tokens - 1);
      return FALSE;
    }
  return TRUE;
}

AsSimilarityRow *
as_similarity_table (const float *similarity, const float *attention, int n_tokens, int token,
                     int *n_rows)
{
  g_assert (token >= 0 && token < n_tokens);
  AsSimilarityRow *rows = g_new0 (AsSimilarityRow, MAX (n_tokens - 1, 1));
  int k = 0;
  for (int j = 0; j < n_tokens; j++)
    {
      if (j == token)
        continue;
      rows[k].index = j;
      rows[k].similarity = similarity[(gsize) token * n_tokens + j];
      rows[k].attention = attention[(gsize) token * n_tokens + j];
      k++;
    }
  *n_rows = k;
  return rows;
}

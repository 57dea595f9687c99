/* positional.c — sinusoidal positional encodings in the two layouts of positional-private.h.
 *
 * Both layouts use the same angles pos · w_k with w_k = 10000^(-2k/d), one per pair of columns;
 * they differ only in where the sine and cosine of frequency k go. Angles, sines and cosines
 * are computed in double (as numpy does in the Hugging Face code) and rounded once to float. */
#include "positional-private.h"

#include <math.h>

/* w_k = 10000^(-2k/d) */
static double
frequency (int k, int d)
{
  return 1.0 / pow (10000.0, (2.0 * k) / (double) d);
}

void
as_positional_encoding (float *out, int pos, int d, AsPositionalLayout layout)
{
  g_assert (out != NULL && d >= 1 && pos >= 0);

  switch (layout)
    {
    case AS_POSITIONAL_INTERLEAVED:
      /* column 2k: sin(pos·w_k); column 2k+1: cos(pos·w_k) */
      for (int j = 0; j < d; j++)
        {
          double angle = pos * frequency (j / 2, d);
          out[j] = (float) (j % 2 == 0 ? sin (angle) : cos (angle));
        }
      break;

    case AS_POSITIONAL_SPLIT_HALVES:
      {
        /* columns 0..n_sin-1: sin(pos·w_k); columns n_sin..d-1: cos(pos·w_k), k from 0 */
        int n_sin = (d + 1) / 2;
        for (int k = 0; k < n_sin; k++)
          out[k] = (float) sin (pos * frequency (k, d));
        for (int k = 0; n_sin + k < d; k++)
          out[n_sin + k] = (float) cos (pos * frequency (k, d));
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

void
as_positional_encodings (float *out, int first_pos, int n_pos, int d, AsPositionalLayout layout)
{
  /* out: [n_pos][d] */
  for (int t = 0; t < n_pos; t++)
    as_positional_encoding (out + (gsize) t * d, first_pos + t, d, layout);
}

void
as_positional_add (float *x, int first_pos, int n_pos, int d, AsPositionalLayout layout)
{
  g_autofree float *row = g_new (float, d); /* [d] */
  for (int t = 0; t < n_pos; t++)
    {
      as_positional_encoding (row, first_pos + t, d, layout);
      for (int j = 0; j < d; j++)
        x[(gsize) t * d + j] += row[j];
    }
}

const char *
as_positional_layout_to_string (AsPositionalLayout layout)
{
  switch (layout)
    {
    case AS_POSITIONAL_INTERLEAVED:
      return "interleaved";
    case AS_POSITIONAL_SPLIT_HALVES:
      return "split-halves";
    default:
      return "unknown";
    }
}

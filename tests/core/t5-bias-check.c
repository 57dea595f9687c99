/* t5-bias-check.c — a trace's position bias through every reader (t5-bias-check.h). */
#include "t5-bias-check.h"

#include <math.h>
#include <string.h>

void
t5_check_position_bias (const AsTrace *t, int layer, const float *want, double eps)
{
  g_assert_true (as_trace_has_position_bias (t));
  int T = t->n_tokens;
  gsize nn = (gsize) T * T;
  for (int h = 0; h < t->n_head; h++)
    {
      g_autofree float *head = as_trace_position_bias_head (t, layer, h); /* [T][T] */
      const float *w = want + h * nn;
      for (gsize x = 0; x < nn; x++)
        if (fabs ((double) head[x] - w[x]) > eps)
          g_error ("layer %d head %d bias (%d, %d): %g, the reference %g", layer, h, (int) (x / T),
                   (int) (x % T), head[x], w[x]);
      for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++)
          g_assert_true (as_trace_position_bias_entry (t, layer, h, i, j)
                         == head[(gsize) i * T + j]);
      /* a tile across the diagonal, written into a wider array whose padding stays */
      int r0 = T / 3, c0 = T / 5, rows = MIN (37, T - r0), cols = MIN (29, T - c0), ld = cols + 3;
      g_autofree float *tile = g_new (float, (gsize) rows *ld);
      for (gsize x = 0; x < (gsize) rows * ld; x++)
        tile[x] = -1234.5f;
      as_trace_position_bias_tile (t, layer, h, r0, rows, c0, cols, tile, ld);
      for (int i = 0; i < rows; i++)
        {
          g_assert_cmpmem (tile + (gsize) i * ld, sizeof (float) * cols,
                           head + (gsize) (r0 + i) * T + c0, sizeof (float) * cols);
          for (int c = cols; c < ld; c++)
            g_assert_cmpfloat (tile[(gsize) i * ld + c], ==, -1234.5f);
        }
      g_autofree float *row = g_new (float, T);
      for (int i = 0; i < T; i++)
        {
          as_trace_position_bias_row (t, layer, h, i, 0, T, row);
          g_assert_cmpmem (row, sizeof (float) * T, head + (gsize) i * T, sizeof (float) * T);
        }
    }
}

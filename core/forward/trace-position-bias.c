/* trace-position-bias.c — reading a trace's position bias (as-trace.h; core/families/README.md,
 * "T5").
 *
 * T5's relative position bias depends only on the distance j − i from query i to key j, so the
 * trace keeps each head's [2T−1] values of the distances −(T−1) .. T−1 (the stack's, or umT5's
 * per layer) and these readers expand them: entry (i, j) is the value at j − i + T − 1, row i's
 * keys c0 .. c1−1 the consecutive values from c0 − i + T − 1 on. The pass and the on-demand
 * recipe read the same array, so every reader sees the values the scores were given. */
#include "as-trace.h"

#include <string.h>

float
as_trace_position_bias_entry (const AsTrace *t, int layer, int head, int i, int j)
{
  int T = t->n_tokens;
  g_return_val_if_fail (as_trace_has_position_bias (t), 0.0f);
  g_return_val_if_fail (layer >= 0 && layer < t->n_layer && head >= 0 && head < t->n_head, 0.0f);
  g_return_val_if_fail (i >= 0 && i < T && j >= 0 && j < T, 0.0f);
  return as_trace_position_bias_relative (t, layer, head)[j - i + T - 1];
}

void
as_trace_position_bias_row (const AsTrace *t, int layer, int head, int row, int col0, int n_cols,
                            float *out)
{
  as_trace_position_bias_tile (t, layer, head, row, 1, col0, n_cols, out, n_cols);
}

void
as_trace_position_bias_tile (const AsTrace *t, int layer, int head, int row0, int n_rows, int col0,
                             int n_cols, float *out, int ld)
{
  int T = t->n_tokens;
  g_return_if_fail (as_trace_has_position_bias (t));
  g_return_if_fail (layer >= 0 && layer < t->n_layer && head >= 0 && head < t->n_head);
  g_return_if_fail (row0 >= 0 && n_rows >= 0 && row0 + n_rows <= T);
  g_return_if_fail (col0 >= 0 && n_cols >= 0 && col0 + n_cols <= T && ld >= n_cols);
  const float *relative = as_trace_position_bias_relative (t, layer, head); /* [2T−1] */
  for (int i = 0; i < n_rows; i++)
    memcpy (out + (gsize) i * ld, relative + (col0 - (row0 + i) + T - 1), sizeof (float) * n_cols);
}

float *
as_trace_position_bias_head (const AsTrace *t, int layer, int head)
{
  g_return_val_if_fail (as_trace_has_position_bias (t), NULL);
  gsize T = t->n_tokens;
  float *out = g_new0 (float, T *T);
  as_trace_position_bias_tile (t, layer, head, 0, T, 0, T, out, T);
  return out;
}

/* replay.c — what the families' replays share (replay-private.h). */
#include "replay-private.h"

#include "as-error.h"

void
as_replay_cross_contexts (float *ctx, const AsTrace *trace, int layer, int position, const float *v,
                          int ld)
{
  int S = trace->source->n_tokens, hd = trace->head_dim;
  for (int h = 0; h < trace->n_head; h++)
    {
      const float *w = as_trace_cross_attn (trace, layer, h) + (gsize) position * S; /* [S] */
      for (int k = 0; k < hd; k++)
        {
          double s = 0.0;
          for (int j = 0; j < S; j++)
            s += (double) w[j] * v[(gsize) j * ld + h * hd + k];
          ctx[h * hd + k] = (float) s;
        }
    }
}

gboolean
as_replay_fail (AsReplay *out, GError **error)
{
  as_replay_clear (out);
  g_set_error_literal (error, AS_ERROR, AS_ERROR_INPUT,
                       "direct logit attribution could not replay this decoder pass (a pass with "
                       "an intervention is not replayed)");
  return FALSE;
}

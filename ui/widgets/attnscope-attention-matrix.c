/* attnscope-attention-matrix.c — picking the matrix and title for the view selection (see
 * attnscope-attention-matrix.h). */
#include "attnscope-attention-matrix.h"

#include <glib/gi18n.h>

#include "as-rollout.h"

const float *
attnscope_attention_matrix (AttnscopeSession *session, const AsTrace *trace, const float *rollout,
                            float **owned)
{
  int layer = MIN (attnscope_session_get_layer (session), trace->n_layer - 1);
  int head = MIN (attnscope_session_get_head (session), trace->n_head - 1);
  gsize tt = (gsize) trace->n_tokens * trace->n_tokens;
  *owned = NULL;
  switch (attnscope_session_get_aggregate (session))
    {
    case ATTNSCOPE_AGGREGATE_MEAN:
      *owned = g_new (float, tt); /* [T][T] */
      as_attention_mean_heads (*owned, as_trace_attn (trace, layer, 0), trace->n_head,
                               trace->n_tokens);
      return *owned;
    case ATTNSCOPE_AGGREGATE_ROLLOUT:
      g_return_val_if_fail (rollout != NULL, as_trace_attn (trace, layer, head));
      return rollout + layer * tt;
    case ATTNSCOPE_AGGREGATE_HEAD:
    default:
      return as_trace_attn (trace, layer, head);
    }
}

char *
attnscope_attention_title (AttnscopeSession *session)
{
  int layer = attnscope_session_get_layer (session);
  switch (attnscope_session_get_aggregate (session))
    {
    case ATTNSCOPE_AGGREGATE_MEAN:
      return g_strdup_printf (_ ("Layer %d · mean over %d heads"), layer,
                              attnscope_session_get_n_heads (session));
    case ATTNSCOPE_AGGREGATE_ROLLOUT:
      return g_strdup_printf (_ ("Attention rollout through layer %d"), layer);
    case ATTNSCOPE_AGGREGATE_HEAD:
    default:
      return g_strdup_printf (_ ("Layer %d · head %d"), layer,
                              attnscope_session_get_head (session));
    }
}

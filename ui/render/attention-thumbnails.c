/* attention-thumbnails.c — the heads grid's pooled thumbnails (see attention-thumbnails.h). */
#include "attention-thumbnails.h"

#include "as-attention-pool.h"

int
ar_attention_thumbnail_size (const AsTrace *trace)
{
  return as_pool_size (trace->n_tokens, as_pool_factor (trace->n_tokens, AR_THUMBNAIL_CELLS));
}

gboolean
ar_attention_thumbnails (float *out, const AsTrace *trace, const int *order, gint *published,
                         GCancellable *cancellable)
{
  int k = as_pool_factor (trace->n_tokens, AR_THUMBNAIL_CELLS),
      P = as_pool_size (trace->n_tokens, k);
  int n = trace->n_layer * trace->n_head;
  gsize pp = (gsize) P * P;
  for (int i = 0; i < n; i++)
    {
      int e = order != NULL ? order[i] : i;
      g_return_val_if_fail (e >= 0 && e < n, FALSE);
      if (!as_trace_attention_pool (out + (gsize) e * pp, trace, e / trace->n_head,
                                    e % trace->n_head, k, AS_POOL_MAX, 0, cancellable))
        return FALSE;
      if (published != NULL)
        g_atomic_int_set (published, i + 1);
    }
  return TRUE;
}

float *
ar_attention_thumbnails_new (const AsTrace *trace, GCancellable *cancellable)
{
  int P = ar_attention_thumbnail_size (trace);
  g_autofree float *out
      = g_new0 (float, (gsize) trace->n_layer * trace->n_head * P * P); /* [L][H][P][P] */
  if (!ar_attention_thumbnails (out, trace, NULL, NULL, cancellable))
    return NULL;
  return g_steal_pointer (&out);
}

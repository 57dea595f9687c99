/* trace-attention-output.c — a layer's attention output, from the trace's array or remade on first
 * read (as-trace.h; core/README.md, "Attention on demand").
 *
 * A long text's trace on demand keeps no attention outputs when its stack can remake them: they
 * are the contexts the trace keeps anyway through the output projection, L·T·D floats that would
 * otherwise sit beside the contexts (566 MB of a SmolLM2-135M shape at 8,192 tokens). A layer is
 * remade by the stack's own product on the first read and kept while the trace lives, so a
 * reader — attribution, the attn_out vectors, a dump — gets the pointer it always got. */
#include "as-trace.h"

#include "family-private.h"
#include "model-private.h"

float *
as_trace_attn_out (const AsTrace *t, int layer)
{
  g_return_val_if_fail (layer >= 0 && layer < t->n_layer, NULL);
  gsize size = (gsize) t->n_tokens * t->d_model;
  if (t->attn_out != NULL)
    return t->attn_out + (gsize) layer * size;
  /* the cache and its lock are the trace's private part: reading fills it, the trace is
   * otherwise unchanged */
  AsTrace *mutable = (AsTrace *) t;
  g_mutex_lock (&mutable->attn_out_lock);
  if (mutable->attn_out_layers[layer] == NULL)
    {
      AsModel *model = t->attn_out_model;
      g_assert (model != NULL);
      const AsConfig *c = as_model_get_config (model);
      float *out = g_new (float, size); /* [T][D] */
      c->ops->stack->attention_output (c, as_model_get_weights (model), t, layer, out);
      mutable->attn_out_layers[layer] = out;
    }
  float *out = mutable->attn_out_layers[layer];
  g_mutex_unlock (&mutable->attn_out_lock);
  return out;
}

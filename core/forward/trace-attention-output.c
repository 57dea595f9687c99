/* trace-attention-output.c — a layer's attention output, from the trace's array or remade on first
 * read (as-trace.h; core/README.md, "Attention on demand").
 *
 * A long text's trace on demand keeps no attention outputs when its stack can remake them: they
 * are the contexts the trace keeps anyway through the output projection, L·T·D floats that would
 * otherwise sit beside the contexts (566 MB of a SmolLM2-135M shape at 8,192 tokens). A layer is
 * remade by the stack's own product on the first read and kept while the trace lives, so a
 * reader — attribution, the attn_out vectors, a dump — gets the pointer it always got. A reader
 * that passes through the layers once copies each without keeping it (as_trace_attn_out_copy),
 * and one that is done with them frees the kept layers (as_trace_attn_out_drop). */
#include "as-trace.h"

#include <string.h>

#include "family-private.h"
#include "model-private.h"

/* OUT [T][D] = LAYER's attention output remade from T's contexts by the stack's product. */
static void
remake (const AsTrace *t, int layer, float *out)
{
  AsModel *model = t->attn_out_model;
  g_assert (model != NULL);
  const AsConfig *c = as_model_get_config (model);
  c->ops->stack->attention_output (c, as_model_get_weights (model), t, layer, out);
}

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
      float *out = g_new (float, size); /* [T][D] */
      remake (t, layer, out);
      mutable->attn_out_layers[layer] = out;
    }
  float *out = mutable->attn_out_layers[layer];
  g_mutex_unlock (&mutable->attn_out_lock);
  return out;
}

void
as_trace_attn_out_copy (const AsTrace *t, int layer, float *out)
{
  g_return_if_fail (layer >= 0 && layer < t->n_layer);
  gsize size = (gsize) t->n_tokens * t->d_model;
  if (t->attn_out != NULL)
    {
      memcpy (out, t->attn_out + (gsize) layer * size, sizeof (float) * size);
      return;
    }
  AsTrace *mutable = (AsTrace *) t;
  g_mutex_lock (&mutable->attn_out_lock);
  const float *kept = mutable->attn_out_layers[layer];
  if (kept != NULL)
    memcpy (out, kept, sizeof (float) * size);
  g_mutex_unlock (&mutable->attn_out_lock);
  if (kept == NULL)
    remake (t, layer, out); /* reads only the contexts and the weights: no lock needed */
}

gsize
as_trace_attn_out_drop (AsTrace *t)
{
  if (t->attn_out != NULL || t->attn_out_layers == NULL)
    return 0;
  gsize freed = 0, size = (gsize) t->n_tokens * t->d_model * sizeof (float);
  g_mutex_lock (&t->attn_out_lock);
  for (int l = 0; l < t->n_layer; l++)
    if (t->attn_out_layers[l] != NULL)
      {
        g_clear_pointer (&t->attn_out_layers[l], g_free);
        freed += size;
      }
  g_mutex_unlock (&t->attn_out_lock);
  return freed;
}

/* trace-vectors.c — validating a vector-set choice (source, layer, head) against a trace and
 * returning the matching view, plus the attention matrix that belongs with it.
 *
 * Shared by the similarity tables and the projections, so both report a bad layer or head with
 * the same message. */
#include "as-trace-vectors.h"

#include <string.h>

#include "as-error.h"
#include "as-rollout.h"
#include "as-rollout-long.h"

static const char *const source_names[] = {
  [AS_VECTORS_EMBEDDINGS] = "embeddings",
  [AS_VECTORS_CONTEXTS] = "contexts",
  [AS_VECTORS_ATTN_OUT] = "attn_out",
  [AS_VECTORS_HIDDEN] = "hidden",
  [AS_VECTORS_TOKEN_EMBEDDINGS] = "token-embeddings",
};

const char *
as_vector_source_to_string (AsVectorSource source)
{
  g_return_val_if_fail ((guint) source < G_N_ELEMENTS (source_names), NULL);
  return source_names[source];
}

gboolean
as_vector_source_from_string (const char *name, AsVectorSource *source, GError **error)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (source_names); i++)
    if (strcmp (name, source_names[i]) == 0)
      {
        *source = (AsVectorSource) i;
        return TRUE;
      }
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "unknown vector set '%s': expected embeddings, token-embeddings, contexts, "
               "attn_out or hidden",
               name != NULL ? name : "");
  return FALSE;
}

gboolean
as_vector_source_needs_head (AsVectorSource source)
{
  return source == AS_VECTORS_CONTEXTS;
}

gboolean
as_vector_source_needs_layer (AsVectorSource source)
{
  return source == AS_VECTORS_CONTEXTS || source == AS_VECTORS_ATTN_OUT
         || source == AS_VECTORS_HIDDEN;
}

static gboolean
check_layer (int layer, int n_valid, const char *what, GError **error)
{
  if (layer >= 0 && layer < n_valid)
    return TRUE;
  if (n_valid <= 0)
    g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "layer %d is out of range: the model has no %s",
                 layer, what);
  else
    g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                 "layer %d is out of range for %s: valid layers are 0..%d", layer, what,
                 n_valid - 1);
  return FALSE;
}

static gboolean
check_head (int head, int n_head, GError **error)
{
  if (head >= 0 && head < n_head)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "head %d is out of range: valid heads are 0..%d",
               head, n_head - 1);
  return FALSE;
}

gboolean
as_trace_vectors_check (const AsTrace *trace, AsVectorSource source, int layer, int head,
                        GError **error)
{
  gboolean layer_ok = TRUE;
  switch (source)
    {
    case AS_VECTORS_EMBEDDINGS:
      break;
    case AS_VECTORS_TOKEN_EMBEDDINGS:
      if (trace->token_embeddings == NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "this model's family provides no token embeddings (the rows of a "
                       "token-embedding table before positions are added)");
          return FALSE;
        }
      break;
    case AS_VECTORS_CONTEXTS:
      layer_ok = check_layer (layer, trace->n_layer, "contexts", error);
      break;
    case AS_VECTORS_ATTN_OUT:
      layer_ok = check_layer (layer, trace->n_layer, "attn_out", error);
      break;
    case AS_VECTORS_HIDDEN:
      layer_ok
          = check_layer (layer, trace->n_layer + 1, "hidden (0 = embeddings, L = final)", error);
      break;
    default:
      g_assert_not_reached ();
    }
  if (!layer_ok)
    return FALSE;
  if (as_vector_source_needs_head (source) || head >= 0)
    return check_head (head, trace->n_head, error);
  return TRUE;
}

const float *
as_trace_vectors_get (const AsTrace *trace, AsVectorSource source, int layer, int head, int *n_rows,
                      int *dim, GError **error)
{
  if (!as_trace_vectors_check (trace, source, layer, head, error))
    return NULL;
  *n_rows = trace->n_tokens;
  switch (source)
    {
    case AS_VECTORS_EMBEDDINGS:
      *dim = trace->d_model;
      return as_trace_hidden (trace, 0);
    case AS_VECTORS_CONTEXTS:
      *dim = trace->head_dim;
      return as_trace_head_vectors (trace, trace->ctx, layer, head);
    case AS_VECTORS_ATTN_OUT:
      *dim = trace->d_model;
      return as_trace_attn_out (trace, layer);
    case AS_VECTORS_HIDDEN:
      *dim = trace->d_model;
      return as_trace_hidden (trace, layer);
    case AS_VECTORS_TOKEN_EMBEDDINGS:
      *dim = trace->d_model;
      return trace->token_embeddings;
    default:
      g_assert_not_reached ();
    }
}

gboolean
as_trace_vectors_attention (float *out, const AsTrace *trace, AsVectorSource source, int layer,
                            int head, GError **error)
{
  if (!as_trace_vectors_check (trace, source, layer, head, error))
    return FALSE;

  int block = layer; /* the block whose attention goes with these vectors */
  if (!as_vector_source_needs_layer (source) || (source == AS_VECTORS_HIDDEN && layer == 0))
    block = 0;
  else if (source == AS_VECTORS_HIDDEN)
    block = layer - 1;
  if (!check_layer (block, trace->n_layer, "attention", error))
    return FALSE;

  int T = trace->n_tokens;
  if (head >= 0)
    as_trace_attention_tile (trace, block, head, 0, T, 0, T, out, T);
  else
    for (int r0 = 0; r0 < T; r0 += 64) /* the mean a block of rows at a time: no [H][T][T] */
      as_trace_mean_heads_tile (trace, block, r0, MIN (64, T - r0), 0, T, out + (gsize) r0 * T, T);
  return TRUE;
}

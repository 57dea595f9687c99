/* tensor-bind.c — binding weights by name suffix and exact shape (tensor-bind-private.h). */
#include "tensor-bind-private.h"

#include <string.h>

#include "as-error.h"

AsTensorBinder
as_tensor_binder_init (const AsTensorStore *store, GError **error)
{
  return (AsTensorBinder){ .store = store, .error = error };
}

gboolean
as_tensor_binder_is_keras (const AsTensorBinder *b)
{
  return g_str_has_suffix (as_tensor_store_get_path (b->store), ".h5");
}

/* SHAPE with the size-1 dimensions dropped, so (1, D) and (D,) compare equal. */
static int
squeeze_shape (int64_t *out, int ndim, const int64_t *shape)
{
  int n = 0;
  for (int i = 0; i < ndim; i++)
    if (shape[i] != 1)
      out[n++] = shape[i];
  return n;
}

/* Does GOT [NG] become WANT [NW] by merging runs of adjacent dimensions (a row-major reshape that
 * keeps every element where it is, such as transformers 4.3's EinsumDense kernels (D, H, hd) for
 * a (D, D) matrix)? Both without size-1 dimensions. */
static gboolean
shape_merges_to (const int64_t *got, int ng, const int64_t *want, int nw)
{
  int g = 0;
  for (int w = 0; w < nw; w++)
    {
      if (g >= ng)
        return FALSE;
      int64_t run = got[g++];
      while (run < want[w] && g < ng)
        run *= got[g++];
      if (run != want[w])
        return FALSE;
    }
  return g == ng;
}

/* The tensor named *SUFFIX with shape (D0) when D1 is 0, else (D0, D1), up to size-1 dimensions and
 * to runs of adjacent dimensions that multiply to one of them; NULL after a failure. */
static const AsTensor *
binder_find (AsTensorBinder *b, const char *suffix, int64_t d0, int64_t d1)
{
  if (b->failed)
    return NULL;
  int64_t shape[2] = { d0, d1 };
  int ndim = d1 > 0 ? 2 : 1;
  const AsTensor *t = as_tensor_store_require_tensor (b->store, suffix, ndim, shape, b->error);
  if (t == NULL)
    {
      b->failed = TRUE;
      return NULL;
    }
  int64_t want[AS_TENSOR_MAX_DIMS], got[AS_TENSOR_MAX_DIMS];
  int nw = squeeze_shape (want, ndim, shape), ng = squeeze_shape (got, t->ndim, t->shape);
  if (!shape_merges_to (got, ng, want, nw))
    {
      g_autofree char *s_got = as_tensor_shape_to_string (t->ndim, t->shape);
      g_autofree char *s_want = as_tensor_shape_to_string (ndim, shape);
      g_set_error (b->error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: %s '%s' has shape %s, expected %s from config.json", t->file,
                   as_tensor_store_noun (b->store), t->name, s_got, s_want);
      b->failed = TRUE;
      return NULL;
    }
  /* Only now, with the shape the config implies, is the data read (or mapped) — as stored: a
   * 16-bit weight is widened only if the family asks for float32 (as_tensor_binder_get). */
  if (as_tensor_store_get_raw (b->store, t, b->error) == NULL)
    {
      b->failed = TRUE;
      return NULL;
    }
  b->n_params += t->n_elements;
  return t;
}

const float *
as_tensor_binder_get (AsTensorBinder *b, const char *suffix, int64_t d0, int64_t d1)
{
  const AsTensor *t = binder_find (b, suffix, d0, d1);
  const float *data = t != NULL ? as_tensor_store_get_floats (b->store, t, b->error) : NULL;
  if (t != NULL && data == NULL)
    b->failed = TRUE;
  return data;
}

AsWeight
as_tensor_binder_get_weight (AsTensorBinder *b, const char *suffix, int64_t d0, int64_t d1)
{
  const AsTensor *t = binder_find (b, suffix, d0, d1);
  return t != NULL ? (AsWeight){ t->raw, t->dtype } : (AsWeight){ NULL, AS_DTYPE_F32 };
}

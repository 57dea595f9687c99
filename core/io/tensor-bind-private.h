/* tensor-bind-private.h — binding a family's weights to the tensors of a store, one by one.
 *
 * A binder looks each weight up by name suffix (the Keras class scope varies between exports)
 * and requires the shape config.json implies — up to size-1 dimensions, so a Keras bias (1, D)
 * binds as (D): a tensor with the right element count but another shape (a transposed matrix)
 * would silently compute something else, so it is refused. The first failure is kept and every
 * later call returns NULL, so a family binds all its weights in a row and checks once. */
#pragma once

#include "tensor-store-private.h"

G_BEGIN_DECLS

typedef struct
{
  const AsTensorStore *store;
  int64_t n_params; /* elements bound so far */
  GError **error;   /* receives the first failure */
  gboolean failed;
} AsTensorBinder;

/* A binder over STORE that reports into ERROR. */
AsTensorBinder as_tensor_binder_init (const AsTensorStore *store, GError **error);

/* The float32 data of the tensor named *SUFFIX with shape (D0) when D1 is 0, else (D0, D1), up to
 * size-1 dimensions and to runs of adjacent dimensions that multiply to one of them (a (D, H, hd)
 * tensor binds as (D, H·hd): the same elements in the same order; a 16-bit tensor is widened once,
 * tensor-store-private.h); NULL after a failure, which names the file, the tensor and both
 * shapes. */
const float *as_tensor_binder_get (AsTensorBinder *b, const char *suffix, int64_t d0, int64_t d1);

/* The same tensor as it is stored (F32, BF16 or F16), for the kernels that widen tile by tile;
 * data NULL after a failure. */
AsWeight as_tensor_binder_get_weight (AsTensorBinder *b, const char *suffix, int64_t d0,
                                      int64_t d1);

/* TRUE when the store came from a Keras-HDF5 file (Keras names: "h_._0/ln_1/gamma:0"), FALSE
 * for safetensors (PyTorch names: "h.0.ln_1.weight"). */
gboolean as_tensor_binder_is_keras (const AsTensorBinder *b);

G_END_DECLS

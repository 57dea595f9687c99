/* as-tensor-store.h — named float32 tensors read from a weight file.
 *
 * Two readers fill a store: the Keras-HDF5 layout of tf_model.h5 (FORMATS.md §2) and safetensors
 * (§5). A store owns one block of memory holding every tensor. Lookup is by name suffix, as HF
 * does, because the first path component (the Keras class scope) varies between exports. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

#define AS_TENSOR_MAX_DIMS 4

typedef struct
{
  char *name; /* full name, e.g. "transformer/tfgp_t2lm_head_model/..." */
  int ndim;
  int64_t shape[AS_TENSOR_MAX_DIMS];
  int64_t n_elements;
  float *data; /* row-major, in the store's block or its read-only
                * mapping of the file: never write through it */
} AsTensor;

typedef struct _AsTensorStore AsTensorStore;

AsTensorStore *as_tensor_store_load_keras_h5 (const char *path, GError **error);
AsTensorStore *as_tensor_store_load_safetensors (const char *path, GError **error);
void as_tensor_store_free (AsTensorStore *store);

const char *as_tensor_store_get_path (const AsTensorStore *store);
guint as_tensor_store_get_n_tensors (const AsTensorStore *store);
const AsTensor *as_tensor_store_get_nth (const AsTensorStore *store, guint i);

/* The tensor whose name ends with SUFFIX at a '/' or '.' boundary (or equals it); NULL when none.
 * When several match, the shortest name wins. */
const AsTensor *as_tensor_store_find_suffix (const AsTensorStore *store, const char *suffix);

/* Like find_suffix, but fails (ERROR names the file and SUFFIX) when the tensor is missing or its
 * element count differs from the product of SHAPE[0..NDIM-1]. A tensor whose element count
 * agrees but whose shape differs (e.g. (1,D) for (D)) is accepted, as HF does. */
const float *as_tensor_store_require (const AsTensorStore *store, const char *suffix, int ndim,
                                      const int64_t *shape, GError **error);

/* Fails with AS_ERROR_VALUE naming the first tensor that holds a NaN or an infinity. */
gboolean as_tensor_store_check_finite (const AsTensorStore *store, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsTensorStore, as_tensor_store_free)

G_END_DECLS

/* tensor-store-private.h — how the weight-file readers fill an AsTensorStore.
 *
 * A reader declares every tensor (name and shape) with as_tensor_store_add(). Where the file
 * holds a tensor as raw native float32 bytes at a 4-byte aligned offset (contiguous HDF5
 * datasets, safetensors data), the reader points tensor->data straight into the file mapping
 * from as_tensor_store_map(): no copy, no page zeroing, so a 330 MB model loads in tens of
 * milliseconds. Every other tensor gets its place in the store's single allocated block from
 * as_tensor_store_allocate() and the reader copies or converts the file's data into it.
 * Setting ATTNSCOPE_NO_MMAP=1 forces the copying path (tests use it to cover both). */
#pragma once

#include "as-tensor-store.h"

G_BEGIN_DECLS

struct _AsTensorStore
{
  char *path;         /* the weight file */
  GPtrArray *tensors; /* of AsTensor *, in file order */
  float *block;       /* one allocation for the tensors that are not mapped */
  gsize block_bytes;
  char *map; /* the whole weight file mapped copy-on-write, or NULL */
  gsize map_bytes;
};

/* An empty store for the weight file PATH. */
AsTensorStore *as_tensor_store_new (const char *path);

/* Declares a tensor NAME of shape SHAPE[0..NDIM-1] (NDIM 0 is a scalar). Fails with
 * AS_ERROR_SHAPE (naming the file and NAME) on more than AS_TENSOR_MAX_DIMS dimensions or a
 * negative or overflowing size. Returns the new tensor (owned by the store, data still NULL). */
AsTensor *as_tensor_store_add (AsTensorStore *store, const char *name, int ndim,
                               const int64_t *shape, GError **error);

/* Maps the store's file read-only (pages mapped up front) and returns its first byte, or NULL
 * when mapping is not possible or disabled by ATTNSCOPE_NO_MMAP (then the reader copies). The
 * mapping lives as long as the store. Tensors in it must never be written: weights are
 * immutable, and a write would fault. */
const char *as_tensor_store_map (AsTensorStore *store);

/* TRUE when TENSOR's data lies in the file mapping (nothing to copy). */
gboolean as_tensor_store_is_mapped (const AsTensorStore *store, const AsTensor *tensor);

/* Allocates the block for every declared tensor whose data is still NULL and points them into
 * it, each on a 64-byte boundary. Fails with AS_ERROR_MEMORY when the block would not fit. */
gboolean as_tensor_store_allocate (AsTensorStore *store, GError **error);

/* "(768, 2304)" for a tensor's shape (owned). */
char *as_tensor_shape_to_string (int ndim, const int64_t *shape);

/* What the file calls a tensor, for messages: "dataset" (HDF5) or "tensor" (safetensors). */
const char *as_tensor_store_noun (const AsTensorStore *store);

/* TRUE when NAME ends with SUFFIX at a '/' or '.' boundary, or equals it. */
gboolean as_tensor_name_has_suffix (const char *name, const char *suffix);

G_END_DECLS

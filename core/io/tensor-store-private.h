/* tensor-store-private.h — named float32 tensors read from a weight file, and how the
 * weight-file readers fill a store.
 *
 * Two readers fill a store: the Keras-HDF5 layout of tf_model.h5 and safetensors (core/README.md,
 * "Weight files"). A store owns one block of memory holding every tensor that is not mapped.
 * Lookup is by name suffix, as HF does, because the first path component (the Keras class scope)
 * varies between exports.
 *
 * A reader declares every tensor (name and shape) with as_tensor_store_add(). Where the file
 * holds a tensor as raw native float32 bytes at a 4-byte aligned offset (contiguous HDF5
 * datasets, safetensors data), the reader points tensor->data straight into the file mapping
 * from as_tensor_store_map(): no copy, no page zeroing, so a 330 MB model loads in tens of
 * milliseconds. Every other tensor gets its place in the store's single allocated block from
 * as_tensor_store_allocate() and the reader copies or converts the file's data into it.
 * Setting ATTNSCOPE_NO_MMAP=1 forces the copying path (tests use it to cover both).
 *
 * A reader may also leave the data of its tensors for later (the Keras-HDF5 reader does): it
 * declares every tensor, then gives the store a source that fetches one tensor's data on its
 * first use (as_tensor_store_get_floats). So a model reads only the weights its family binds —
 * each checked against the shape config.json implies before anything is allocated for it — and
 * a huge dataset the file merely lists costs nothing. The model closes the source once bound. */
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

/* tf_model.h5 with every tensor declared and fetched when first used (keras-h5-reader.c). */
AsTensorStore *as_tensor_store_open_keras_h5 (const char *path, GError **error);
/* The same with every tensor fetched at once. */
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
 * element count differs from the product of SHAPE[0..NDIM-1]. Returns the tensor, whose data may
 * not be fetched yet. */
const AsTensor *as_tensor_store_require_tensor (const AsTensorStore *store, const char *suffix,
                                                int ndim, const int64_t *shape, GError **error);

/* as_tensor_store_require_tensor's data, fetched on first use: a tensor whose element count
 * agrees but whose shape differs (e.g. (1,D) for (D)) is accepted, as HF does. */
const float *as_tensor_store_require (const AsTensorStore *store, const char *suffix, int ndim,
                                      const int64_t *shape, GError **error);

/* TENSOR's float32 elements; fetched from the store's source on the first request (during
 * loading, one thread). Fails with the source's error (damaged file, memory). */
const float *as_tensor_store_get_floats (const AsTensorStore *store, const AsTensor *tensor,
                                         GError **error);

/* Fails with AS_ERROR_VALUE naming the first tensor that holds a NaN or an infinity (among the
 * tensors whose data is there: a tensor never fetched is never used). */
gboolean as_tensor_store_check_finite (const AsTensorStore *store, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsTensorStore, as_tensor_store_free)

/* Where a lazily reading store gets a tensor's data (see the top of this file). */
typedef struct
{
  /* Points TENSOR->data at its elements: into the store's mapping (as_tensor_store_map_fd) or
   * into memory from as_tensor_store_alloc_tensor, filled from the file. */
  gboolean (*fetch) (gpointer source, AsTensorStore *store, AsTensor *tensor, GError **error);
  void (*close) (gpointer source);
} AsTensorSourceFuncs;

struct _AsTensorStore
{
  char *path;         /* the weight file */
  GPtrArray *tensors; /* of AsTensor *, in file order */
  float *block;       /* one allocation for the tensors that are not mapped */
  gsize block_bytes;
  char *map; /* the whole weight file mapped copy-on-write, or NULL */
  gsize map_bytes;
  GPtrArray *buffers; /* tensors allocated one by one (as_tensor_store_alloc_tensor) */
  guint64 held;       /* bytes declared to the memory budget (memory-private.h) */
  const AsTensorSourceFuncs *source_funcs;
  gpointer source; /* the lazy reader's state, until as_tensor_store_close_source */
};

/* An empty store for the weight file PATH. */
AsTensorStore *as_tensor_store_new (const char *path);

/* Declares a tensor NAME of shape SHAPE[0..NDIM-1] (NDIM 0 is a scalar). Fails with
 * AS_ERROR_SHAPE (naming the file and NAME) on more than AS_TENSOR_MAX_DIMS dimensions or a
 * negative or overflowing size. Returns the new tensor (owned by the store, data still NULL). */
AsTensor *as_tensor_store_add (AsTensorStore *store, const char *name, int ndim,
                               const int64_t *shape, GError **error);

/* Maps the open regular file FD of SIZE bytes read-only (pages mapped up front) and returns its
 * first byte, or NULL when mapping is not possible or disabled by ATTNSCOPE_NO_MMAP (then the
 * reader copies). The mapping lives as long as the store; a store maps one file, once. Tensors
 * in it must never be written: weights are immutable, and a write would fault. FD stays the
 * caller's. */
const char *as_tensor_store_map_fd (AsTensorStore *store, int fd, guint64 size);

/* Maps the store's own file (a regular file, opened without blocking), or NULL. */
const char *as_tensor_store_map (AsTensorStore *store);

/* Gives the store a lazy SOURCE (FUNCS->close frees it with the store, or earlier with
 * as_tensor_store_close_source). */
void as_tensor_store_set_source (AsTensorStore *store, const AsTensorSourceFuncs *funcs,
                                 gpointer source);

/* Fetches every tensor not fetched yet (for tools and tests that want the whole file). */
gboolean as_tensor_store_fetch_all (AsTensorStore *store, GError **error);

/* Closes the source: tensors not fetched by now stay without data. */
void as_tensor_store_close_source (AsTensorStore *store);

/* Allocates TENSOR's elements on their own (64-byte aligned, owned by the store, counted in the
 * memory budget) and points TENSOR->data at them. Fails with AS_ERROR_MEMORY naming the tensor
 * when they would not fit. */
float *as_tensor_store_alloc_tensor (AsTensorStore *store, AsTensor *tensor, GError **error);

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

/* tensor-store-private.h — named tensors read from weight files, and how the weight-file readers
 * fill a store.
 *
 * Two readers fill a store: the Keras-HDF5 layout of tf_model.h5 and safetensors, single-file or
 * sharded (core/io/README.md, "Weight files"). A store owns one block of memory holding every
 * tensor that is not mapped, and the read-only mappings of its files. Lookup is by name suffix, as
 * HF does, because the first path component (the Keras class scope) varies between exports.
 *
 * A reader declares every tensor (name, shape, stored dtype) with as_tensor_store_add(). Where a
 * file holds a tensor's raw little-endian elements at an offset aligned for its dtype (contiguous
 * HDF5 datasets, safetensors data), the reader points tensor->raw straight into the file's
 * mapping from as_tensor_store_map_fd(): no copy, no page zeroing, so a 330 MB model loads in
 * tens of milliseconds and a 2.5 GB BF16 model occupies 2.5 GB, not the 5 GB of its float32
 * values. Every other tensor gets its place in the store's single allocated block from
 * as_tensor_store_allocate() and the reader copies or converts the file's data into it.
 * Setting ATTNSCOPE_NO_MMAP=1 forces the copying path (tests use it to cover both).
 *
 * BF16 and F16 tensors stay 16-bit in the store. Families that multiply by them tile by tile bind
 * them as AsWeight (base/dtype-private.h); a family that needs float32 gets, from
 * as_tensor_store_require(), a float32 copy widened exactly once and kept by the store.
 *
 * A reader may also leave the data of its tensors for later (the Keras-HDF5 reader does): it
 * declares every tensor, then gives the store a source that fetches one tensor's data on its
 * first use (as_tensor_store_get_floats). So a model reads only the weights its family binds —
 * each checked against the shape config.json implies before anything is allocated for it — and
 * a huge dataset the file merely lists costs nothing. The model closes the source once bound.
 *
 * Everything a store holds (mappings, copies, float32 copies) is declared to the memory budget
 * (memory-private.h) and released with the store. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "dtype-private.h"

G_BEGIN_DECLS

#define AS_TENSOR_MAX_DIMS 4

typedef struct
{
  char *name; /* full name, e.g. "transformer/tfgp_t2lm_head_model/..." */
  int ndim;
  int64_t shape[AS_TENSOR_MAX_DIMS];
  int64_t n_elements;
  AsDType dtype;    /* as stored in the file */
  const char *file; /* the file that holds it (owned by the store) */
  const void *raw;  /* the stored elements, row-major, in the store's block or a read-only
                     * mapping of the file: never write through it */
  float *data;      /* float32 elements: RAW itself for F32 tensors; for 16-bit tensors NULL
                     * until as_tensor_store_require() makes the store's float32 copy */
  gboolean used;    /* its data was taken (as_tensor_store_get_raw, _get_floats): a family bound
                     * it; the tensors never taken are the ones the config does not use */
} AsTensor;

typedef struct _AsTensorStore AsTensorStore;

/* tf_model.h5 with every tensor declared and fetched when first used (keras-h5-reader.c). */
AsTensorStore *as_tensor_store_open_keras_h5 (const char *path, GError **error);
/* The same with every tensor fetched at once. */
AsTensorStore *as_tensor_store_load_keras_h5 (const char *path, GError **error);
/* One model.safetensors file (safetensors-reader.c). */
AsTensorStore *as_tensor_store_load_safetensors (const char *path, GError **error);
/* A sharded checkpoint: model.safetensors.index.json and the shards it names
 * (safetensors-index.c). */
AsTensorStore *as_tensor_store_load_safetensors_index (const char *index_path, GError **error);
void as_tensor_store_free (AsTensorStore *store);

const char *as_tensor_store_get_path (const AsTensorStore *store);
guint as_tensor_store_get_n_tensors (const AsTensorStore *store);
const AsTensor *as_tensor_store_get_nth (const AsTensorStore *store, guint i);

/* The tensor whose name ends with SUFFIX at a '/' or '.' boundary (or equals it); NULL when none.
 * When several match, the shortest name wins. */
const AsTensor *as_tensor_store_find_suffix (const AsTensorStore *store, const char *suffix);

/* Like find_suffix, but fails (ERROR names the file and SUFFIX) when the tensor is missing or its
 * element count differs from the product of SHAPE[0..NDIM-1]. A tensor whose element count
 * agrees but whose shape differs (e.g. (1,D) for (D)) is accepted, as HF does. Returns the
 * tensor, whose data may not be fetched yet. */
const AsTensor *as_tensor_store_require_tensor (const AsTensorStore *store, const char *suffix,
                                                int ndim, const int64_t *shape, GError **error);

/* as_tensor_store_require_tensor's float32 elements: for a 16-bit tensor the store's float32
 * copy, made on the first request (thread-safe; the copy lives as long as the store). Fails with
 * AS_ERROR_MEMORY when the copy would not fit. */
const float *as_tensor_store_require (const AsTensorStore *store, const char *suffix, int ndim,
                                      const int64_t *shape, GError **error);

/* TENSOR's elements as stored (its dtype), fetched first from the store's lazy source when it has
 * not been read yet; never widened. */
const void *as_tensor_store_get_raw (const AsTensorStore *store, const AsTensor *tensor,
                                     GError **error);

/* TENSOR's float32 elements (see as_tensor_store_require), fetched first from the store's lazy
 * source when it has not been read yet (during loading, one thread). */
const float *as_tensor_store_get_floats (const AsTensorStore *store, const AsTensor *tensor,
                                         GError **error);

/* Fails with AS_ERROR_VALUE naming the first tensor (and its file) that holds a NaN or an
 * infinity (among the tensors whose data is there: a tensor never fetched is never used). */
gboolean as_tensor_store_check_finite (const AsTensorStore *store, GError **error);

/* The dtypes of the store's tensors: "F32", "BF16", or e.g. "BF16+F32" when they are mixed, most
 * elements first (owned). */
char *as_tensor_store_dup_dtype_summary (const AsTensorStore *store);

/* Bytes of the store's files that are mapped into memory. */
guint64 as_tensor_store_get_mapped_bytes (const AsTensorStore *store);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsTensorStore, as_tensor_store_free)

typedef struct
{
  char *data; /* a whole weight file, mapped read-only */
  gsize bytes;
} AsMappedFile;

/* Where a lazily reading store gets a tensor's data (see the top of this file). */
typedef struct
{
  /* Points TENSOR->raw (and ->data) at its elements: into a mapping (as_tensor_store_map_fd) or
   * into memory from as_tensor_store_alloc_tensor, filled from the file. */
  gboolean (*fetch) (gpointer source, AsTensorStore *store, AsTensor *tensor, GError **error);
  void (*close) (gpointer source);
} AsTensorSourceFuncs;

struct _AsTensorStore
{
  char *path;         /* the weight file, or the index of a sharded checkpoint */
  GPtrArray *tensors; /* of AsTensor *, in declaration order */
  GHashTable *names;  /* tensor name -> AsTensor * */
  GPtrArray *files;   /* the file names tensors point to (char *) */
  char *block;        /* one allocation for the tensors that are not mapped */
  gsize block_bytes;
  GArray *maps;       /* of AsMappedFile */
  GMutex lock;        /* guards the float32 copies of 16-bit tensors and HELD while they are made */
  GPtrArray *buffers; /* tensors allocated one by one (as_tensor_store_alloc_tensor) */
  guint64 held;       /* bytes declared to the memory budget (memory-private.h) */
  const AsTensorSourceFuncs *source_funcs;
  gpointer source; /* the lazy reader's state, until as_tensor_store_close_source */
};

/* An empty store for the weight file (or shard index) PATH. */
AsTensorStore *as_tensor_store_new (const char *path);

/* The store's copy of file name FILE, for AsTensor.file. */
const char *as_tensor_store_intern_file (AsTensorStore *store, const char *file);

/* Declares a tensor NAME of shape SHAPE[0..NDIM-1] (NDIM 0 is a scalar), stored as DTYPE in
 * FILE (as_tensor_store_intern_file, or NULL for the store's path). Fails with AS_ERROR_SHAPE
 * (naming the file and NAME) on more than AS_TENSOR_MAX_DIMS dimensions or a negative or
 * overflowing size, and with AS_ERROR_FORMAT when NAME was declared before. Returns the new
 * tensor (owned by the store, raw still NULL). */
AsTensor *as_tensor_store_add (AsTensorStore *store, const char *name, int ndim,
                               const int64_t *shape, AsDType dtype, const char *file,
                               GError **error);

/* Bytes of TENSOR's stored elements. */
guint64 as_tensor_stored_bytes (const AsTensor *tensor);

/* Maps the open regular file FD of SIZE bytes read-only (pages mapped up front) and returns its
 * first byte, or NULL when mapping is not possible or disabled by ATTNSCOPE_NO_MMAP (then the
 * reader copies). The mapping lives as long as the store. Tensors in it must never be written:
 * weights are immutable, and a write would fault. FD stays the caller's. */
const char *as_tensor_store_map_fd (AsTensorStore *store, int fd, guint64 size);

/* Maps the store's own file (as_tensor_store_map_fd on store->path), or NULL. */
const char *as_tensor_store_map (AsTensorStore *store);

/* Gives the store a lazy SOURCE (FUNCS->close frees it with the store, or earlier with
 * as_tensor_store_close_source). */
void as_tensor_store_set_source (AsTensorStore *store, const AsTensorSourceFuncs *funcs,
                                 gpointer source);

/* Fetches every tensor not fetched yet (for tools and tests that want the whole file). */
gboolean as_tensor_store_fetch_all (AsTensorStore *store, GError **error);

/* Closes the source: tensors not fetched by now stay without data. */
void as_tensor_store_close_source (AsTensorStore *store);

/* Allocates the elements of the F32 TENSOR on their own (64-byte aligned, owned by the store,
 * counted in the memory budget) and points TENSOR->raw and ->data at them. Fails with
 * AS_ERROR_MEMORY naming the tensor when they would not fit. */
float *as_tensor_store_alloc_tensor (AsTensorStore *store, AsTensor *tensor, GError **error);

/* TRUE when TENSOR's data lies in a file mapping (nothing to copy). */
gboolean as_tensor_store_is_mapped (const AsTensorStore *store, const AsTensor *tensor);

/* Allocates the block for every declared tensor whose raw is still NULL and points them into
 * it, each on a 64-byte boundary; then points every F32 tensor's data at its raw. Fails with
 * AS_ERROR_MEMORY when the block would not fit. */
gboolean as_tensor_store_allocate (AsTensorStore *store, GError **error);

/* "(768, 2304)" for a tensor's shape (owned). */
char *as_tensor_shape_to_string (int ndim, const int64_t *shape);

/* What the file calls a tensor, for messages: "dataset" (HDF5) or "tensor" (safetensors). */
const char *as_tensor_store_noun (const AsTensorStore *store);

/* TRUE when NAME ends with SUFFIX at a '/' or '.' boundary, or equals it. */
gboolean as_tensor_name_has_suffix (const char *name, const char *suffix);

G_END_DECLS

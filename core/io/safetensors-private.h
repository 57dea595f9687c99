/* safetensors-private.h — one safetensors file read into a tensor store, for the single-file and
 * the sharded loaders (safetensors-reader.c, safetensors-index.c).
 *
 * Reading a file takes two steps so that a sharded checkpoint can allocate one block for all of
 * its shards: as_safetensors_open() validates the header and declares the file's tensors in the
 * store (pointing the aligned ones into the file's mapping); after as_tensor_store_allocate(),
 * as_safetensors_fill() copies the others into their places. Private to the core. */
#pragma once

#include "tensor-store-private.h"

G_BEGIN_DECLS

/* Headers larger than this are refused before they are read (the safetensors library's own
 * limit is 100,000,000 bytes). */
#define AS_SAFETENSORS_MAX_HEADER (100 * 1000 * 1000)

typedef struct _AsSafetensorsFile AsSafetensorsFile;

/* Opens PATH (a regular file), reads and validates its header and declares its tensors in
 * STORE. Errors name PATH, the tensor and the values at fault. */
AsSafetensorsFile *as_safetensors_open (AsTensorStore *store, const char *path, GError **error);

/* TRUE when FILE's header lists a tensor NAME (weights and skipped buffers alike). */
gboolean as_safetensors_has (const AsSafetensorsFile *file, const char *name);

/* Copies or reads FILE's tensors that are not mapped into their places in the store's block. */
gboolean as_safetensors_fill (AsSafetensorsFile *file, GError **error);

void as_safetensors_close (AsSafetensorsFile *file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsSafetensorsFile, as_safetensors_close)

G_END_DECLS

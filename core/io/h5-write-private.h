/* h5-write-private.h — writing HDF5 files that appear whole or not at all (private to the core).
 *
 * as_h5_atomic_begin() prepares PATH as an output file (as-output-file.h: links followed, only a
 * regular file replaced, read-only ones only with AS_OUTPUT_FORCE) and creates the HDF5 file in
 * its temporary file; as_h5_atomic_end() closes it and renames it over the target when
 * everything was written, or deletes it otherwise. */
#pragma once

#include <glib.h>
#include <hdf5.h>

#include "as-output-file.h"

G_BEGIN_DECLS

typedef struct
{
  hid_t file;
  AsOutputFile *output;
  char *path;
} AsH5Atomic;

/* Creates the temporary file; returns FALSE (ERROR names PATH) when it cannot. */
gboolean as_h5_atomic_begin (AsH5Atomic *atomic, const char *path, AsOutputFlags flags,
                             GError **error);

/* Closes the file. When OK, renames it to the final path (failing with ERROR when it cannot);
 * otherwise, or on any failure, deletes it. Returns whether PATH now holds the new file. */
gboolean as_h5_atomic_end (AsH5Atomic *atomic, gboolean ok, GError **error);

/* Writes DATA (in the native layout of TYPE) as a new dataset NAME of RANK with DIMS, stored
 * as TYPE.
 * Fails with AS_ERROR_IO naming the dataset. */
gboolean as_h5_write_dataset (hid_t file, const char *name, hid_t type, const void *data, int rank,
                              const hsize_t *dims, GError **error);

G_END_DECLS

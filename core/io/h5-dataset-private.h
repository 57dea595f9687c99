/* h5-dataset-private.h — one dataset of an untrusted HDF5 file, described and read by the HDF5
 * child (h5-child-private.h), checked and received by the parent.
 *
 * In the child: as_h5_dataset_check_links() refuses a path that passes through anything but hard
 * links (an external link reads another file, a soft link may loop), as_h5_dataset_describe()
 * refuses virtual datasets and external raw storage and reports the shape, type, layout, file
 * offset and stored bytes, and as_h5_dataset_send_floats() reads the elements as native float32,
 * a slab of whole rows at a time (at most AS_H5_DATA_PIECE bytes, or one row), as AS_H5_MSG_DATA
 * messages. In the parent: as_h5_dataset_check_storage() compares what the dataset declares with
 * what it stores before anything is allocated for it, and as_h5_dataset_receive_floats() takes
 * the elements. Messages name the file and the dataset. */
#pragma once

#include <hdf5.h>

#include "h5-child-private.h"

G_BEGIN_DECLS

#define AS_H5_DATASET_MAX_DIMS 4
#define AS_H5_DATASET_MAX_NAME 4096 /* bytes of a dataset path */
#define AS_H5_DATA_PIECE (16u << 20)

typedef enum
{
  AS_H5_LAYOUT_CONTIGUOUS,
  AS_H5_LAYOUT_CHUNKED,
  AS_H5_LAYOUT_COMPACT,
} AsH5Layout;

typedef enum
{
  AS_H5_CLASS_FLOAT,
  AS_H5_CLASS_INTEGER,
  AS_H5_CLASS_OTHER,
} AsH5Class;

typedef struct
{
  gint32 ndim; /* dimensions (more than AS_H5_DATASET_MAX_DIMS: only the first are in dims) */
  guint32 layout;
  guint64 dims[AS_H5_DATASET_MAX_DIMS];
  guint32 type_class;
  guint32 type_size;         /* bytes per element as stored */
  guint32 is_native_float32; /* exactly the machine's float: its bytes can be used as they are */
  char dtype[24];            /* "float64", "int32", ... for messages */
  guint32 n_filters;
  guint32 name_length; /* when sent with a name: the bytes of the name that follow */
  guint64 offset;      /* contiguous: the data's file address; G_MAXUINT64 when none */
  guint64 storage_bytes;
  guint64 chunks_stored; /* chunked: chunks written, and chunks the shape needs */
  guint64 chunks_needed;
} AsH5DatasetInfo;

/* ---- in the child ---- */

/* Sends an error and returns FALSE unless every link on the way to NAME is a hard link. The
 * groups NAME shares with CHECKED, a name checked before (or NULL), are not looked at again.
 * KIND ("weight", "dataset", ...) and MISSING ("is listed in weight_names but there is no such
 * dataset") word the message when NAME does not exist. */
gboolean as_h5_dataset_check_links (int channel, const char *path, hid_t file, const char *name,
                                    const char *checked, const char *kind, const char *missing);

/* Describes dataset NAME into INFO; sends an error and returns FALSE for a virtual dataset,
 * external raw storage, a null dataspace or anything unreadable. */
gboolean as_h5_dataset_describe (int channel, const char *path, hid_t file, const char *name,
                                 AsH5DatasetInfo *info);

/* Reads dataset NAME as native float32 and sends it as AS_H5_MSG_DATA pieces; on a read error
 * sends the error instead. FALSE only when the parent is gone. */
gboolean as_h5_dataset_send_floats (int channel, const char *path, hid_t file, const char *name);

/* ---- in the parent ---- */

/* The number of elements INFO's shape holds, or -1 when it overflows. */
gint64 as_h5_dataset_n_elements (const AsH5DatasetInfo *info);

/* Fails (naming PATH and NAME) unless the dataset stores what it declares: a contiguous one
 * exactly its bytes, all inside the FILE_SIZE bytes of the file; a chunked one every chunk (and,
 * unfiltered, at least its bytes); a compact one its bytes. */
gboolean as_h5_dataset_check_storage (const char *path, const char *name,
                                      const AsH5DatasetInfo *info, guint64 file_size,
                                      GError **error);

/* Receives the N floats the child sends for dataset NAME into OUT. */
gboolean as_h5_dataset_receive_floats (AsH5Child *child, const char *path, const char *name,
                                       float *out, guint64 n, GError **error);

G_END_DECLS

/* keras-h5-probe-private.h — what the HDF5 child (h5-child-private.h) tells the Keras reader
 * about tf_model.h5, and how the reader asks it for data.
 *
 * The child lists the file's weights: the root attribute layer_names, each group's weight_names
 * (core/README.md, "Weight files"), and for every listed dataset one record — its shape, dtype,
 * storage layout, where its bytes are and how many are stored. It refuses on the spot what must
 * never be read: external links and soft links on the way to a weight, virtual datasets,
 * external raw storage. Then it waits: the reader maps contiguous float32 itself and asks the
 * child only for the datasets that need libhdf5 (chunked, compact, big-endian, or a file with a
 * user block), one READ at a time; the child answers with DATA messages of at most
 * AS_KERAS_DATA_PIECE bytes. */
#pragma once

#include <glib.h>

#include "h5-child-private.h"

G_BEGIN_DECLS

#define AS_KERAS_MAX_DATASETS 100000 /* weights a file may list; real models list < 2,000 */
#define AS_KERAS_MAX_NAME 4096       /* bytes of one weight name */
#define AS_KERAS_MAX_DIMS 4
#define AS_KERAS_DATA_PIECE (16u << 20)

enum
{
  AS_KERAS_MSG_DATASET = AS_H5_MSG_USER, /* child: an AsKerasDatasetInfo, then the name */
  AS_KERAS_MSG_END,                      /* child: a guint64 user-block size; the list is complete */
  AS_KERAS_MSG_READ,                     /* parent: a guint32 record index */
  AS_KERAS_MSG_DATA,                     /* child: native float32 elements of the dataset read */
};

typedef enum
{
  AS_KERAS_LAYOUT_CONTIGUOUS,
  AS_KERAS_LAYOUT_CHUNKED,
  AS_KERAS_LAYOUT_COMPACT,
} AsKerasLayout;

typedef struct
{
  gint32 ndim; /* dimensions (more than AS_KERAS_MAX_DIMS: only the first are in dims) */
  guint32 layout;
  guint64 dims[AS_KERAS_MAX_DIMS];
  guint32 is_float32;        /* floating point, 4 bytes */
  guint32 is_native_float32; /* and exactly the machine's float: its bytes can be used as they are */
  char dtype[24];            /* "float64", "int32", ... for messages */
  guint32 n_filters;
  guint32 name_length; /* bytes of the name that follow the record */
  guint64 offset;      /* contiguous: the data's file address; G_MAXUINT64 when none */
  guint64 storage_bytes;
  guint64 chunks_stored; /* chunked: chunks written, and chunks the shape needs */
  guint64 chunks_needed;
} AsKerasDatasetInfo;

/* The child's main function (AsH5ChildMain): lists the weights, then serves READ requests until
 * the parent sends AS_H5_MSG_QUIT or goes away. */
int as_keras_h5_probe_main (int channel, const char *path, const char *file_path, gpointer data);

G_END_DECLS

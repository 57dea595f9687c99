/* keras-h5-probe-private.h — what the HDF5 child (h5-child-private.h) tells the Keras reader
 * about tf_model.h5, and how the reader asks it for data.
 *
 * The child lists the file's weights: the root attribute layer_names, each group's weight_names
 * (core/io/README.md, "Weight files"), and for every listed dataset one record — its shape, dtype,
 * storage layout, where its bytes are and how many are stored. It refuses on the spot what must
 * never be read: external links and soft links on the way to a weight, virtual datasets,
 * external raw storage. Then it waits: the reader maps contiguous float32 itself and asks the
 * child only for the datasets that need libhdf5 (chunked, compact, big-endian, or a file with a
 * user block), one READ at a time, answered as h5-dataset-private.h says. */
#pragma once

#include <glib.h>

#include "h5-dataset-private.h"

G_BEGIN_DECLS

#define AS_KERAS_MAX_DATASETS 100000 /* weights a file may list; real models list < 2,000 */

enum
{
  AS_KERAS_MSG_DATASET = AS_H5_MSG_USER, /* child: an AsH5DatasetInfo, then the name */
  AS_KERAS_MSG_END,  /* child: a guint64 user-block size; the list is complete */
  AS_KERAS_MSG_READ, /* parent: a guint32 record index; the child answers
                      * with as_h5_dataset_send_floats() */
};

/* The child's main function (AsH5ChildMain): lists the weights, then serves READ requests until
 * the parent sends AS_H5_MSG_QUIT or goes away. */
int as_keras_h5_probe_main (int channel, const char *path, const char *file_path, gpointer data);

G_END_DECLS

/* umap-support.h — what the UMAP tests (test-umap.c, test-umap-peer.c) share: test points, the
 * numpy transcription of umap-learn (tests/reference/umap_reference.py) and a checked run. */
#pragma once

#include <glib.h>

#include "as-umap.h"

G_BEGIN_DECLS

/* N points [n][d] in CLUSTERS Gaussian-like clusters whose centres lie within ±SEPARATION. */
float *umap_test_mixture (int n, int d, int clusters, double separation, guint32 seed);

/* Runs tests/reference/umap_reference.py with the NULL-terminated arguments; its stdout. */
char *umap_test_reference (const char *first, ...) G_GNUC_NULL_TERMINATED;

/* Writes X [n][d] as dataset "x" of a new HDF5 file NAME in the test's folder; its path. */
char *umap_test_write_matrix (const char *name, const float *x, int n, int d);

/* Reads DATASET of PATH, asserting its shape is ROWS × COLS. */
float *umap_test_read_matrix (const char *path, const char *dataset, int rows, int cols);

/* as_umap_run, asserting it succeeds and every coordinate is finite: Y [n][2]. */
void umap_test_run (float *y, AsUmapInfo *info, const float *x, int n, int d,
                    const AsUmapOptions *o);

G_END_DECLS

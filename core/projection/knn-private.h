/* knn-private.h — exact nearest neighbours and symmetric neighbour graphs, shared by Barnes-Hut
 * t-SNE and UMAP.
 *
 * Squared euclidean distances come from one matrix product per block of rows on the centred
 * data (|a − b|² = |a|² + |b|² − 2a·b; centring keeps the cancellation small), so finding the k
 * nearest neighbours of every point costs O(n²·d) once, at BLAS speed, with n·block floats of
 * memory. The neighbour lists turn into a symmetric sparse graph (CSR) by a union with their
 * transpose, each entry combining the weight i gave j with the weight j gave i. */
#pragma once

#include <gio/gio.h>
#include <stdint.h>

#include "worker-team-private.h"

G_BEGIN_DECLS

/* A sparse n×n matrix in CSR form, rows sorted by column. */
typedef struct
{
  int n;
  int64_t *row_ptr; /* [n + 1] */
  int *col;         /* [nnz] */
  float *val;       /* [nnz] */
} AsSparseGraph;

void as_sparse_graph_clear (AsSparseGraph *g);

/* Squared euclidean distances of the rows of X [n][d], in blocks of rows: for each block,
 * CALLBACK (D [rows][n], row0, rows, user_data) where D[r][j] = |x_{row0+r} − x_j|² (self
 * distance 0). A callback returning FALSE means cancelled: AS_ERROR_CANCELLED. WHAT names the
 * caller in messages ("t-SNE", "UMAP"). TEAM (may be NULL) shares the products, in panels of
 * fixed size: the distances are the same bits for every thread count. */
typedef gboolean (*AsKnnDistanceBlockFunc) (const float *d, int row0, int rows, gpointer data);
gboolean as_knn_distance_blocks (const float *x, int n, int d, AsWorkerTeam *team,
                                 AsKnnDistanceBlockFunc callback, gpointer user_data,
                                 const char *what, GError **error);

/* OUT [k] = the K nearest columns of ROW [n] other than SELF (−1 for none), nearest first, ties
 * by index. */
void as_knn_select_nearest (int *out, const float *row, int n, int self, int k);

/* The K nearest neighbours of every row of X [n][d] other than itself (1 <= K < n): NN [n][k]
 * their indices and D2 [n][k] their squared distances (from the block products), nearest first,
 * ties by index. Threads from TEAM (may be NULL); checks CANCELLABLE after every block. */
gboolean as_knn_exact (int *nn, float *d2, const float *x, int n, int d, int k, AsWorkerTeam *team,
                       GCancellable *cancellable, const char *what, GError **error);

/* How an entry of the union combines W_IJ (the weight i gave j, 0 when j is not among i's
 * neighbours) and W_JI. */
typedef double (*AsKnnCombineFunc) (double w_ij, double w_ji);

/* G = the union of the directed neighbour graph NN [n][k] with weights W [n][k] and its
 * transpose: an entry (i, j) for every pair where j is among i's neighbours or i among j's,
 * with value COMBINE (w_ij, w_ji). Symmetric when COMBINE is. Entries of NN equal to −1 are
 * skipped. */
void as_knn_symmetrise (AsSparseGraph *g, const int *nn, const float *w, int n, int k,
                        AsKnnCombineFunc combine);

G_END_DECLS

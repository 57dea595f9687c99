/* umap-private.h — the seams inside UMAP (as-umap.h; core/projection/README.md, "UMAP"): the
 * neighbour graph and its fuzzy simplicial set (umap-graph.c), the curve fit (umap-curve.c), the
 * spectral initialisation (umap-spectral.c over the eigensolvers of umap-eigen.c), the descent
 * (umap-layout.c) and the driver (umap.c). Each step is a function of its inputs, so the tests
 * check them one by one against the formulas of the paper and of umap-learn. */
#pragma once

#include <gio/gio.h>
#include <stdint.h>

#include "as-umap.h"
#include "knn-private.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

/* umap-learn's constants: the tolerance of the σ search and the floor of σ relative to the mean
 * neighbour distance. */
#define UMAP_SMOOTH_K_TOLERANCE 1e-5
#define UMAP_MIN_K_DIST_SCALE 1e-3
#define UMAP_SMOOTH_K_STEPS 64

/* The neighbours of every point besides itself, under the chosen metric. */
typedef struct
{
  int n;
  int k;       /* n_neighbors − 1 */
  int *nn;     /* [n][k] indices, nearest first (ties by index) */
  float *dist; /* [n][k] distances (euclidean, or cosine distance), ascending */
} AsUmapKnn;

void as_umap_knn_clear (AsUmapKnn *knn);

/* The exact N_NEIGHBORS − 1 nearest other points of every row of X [n][d] under METRIC. The
 * candidates come from the blocked products of knn-private.h (for cosine, on the normalised
 * rows); their distances are then recomputed in double precision from X, so duplicates are at
 * distance exactly 0, and re-sorted. */
gboolean as_umap_knn (AsUmapKnn *knn, const float *x, int n, int d, int n_neighbors,
                      AsUmapMetric metric, AsWorkerTeam *team, GCancellable *cancellable,
                      GError **error);

/* umap-learn's smooth_knn_dist with local_connectivity 1 and bandwidth 1, on DIST [n][k] (the
 * point itself, at distance 0, counts as the first of the n_neighbors = k + 1):
 *   ρ_i = the smallest non-zero distance (0 when there is none);
 *   σ_i: bisection (64 steps at most) until |Σ_j f(d_ij) − log2(k + 1)| < 1e-5 with
 *        f(d) = exp(−(d − ρ_i)/σ_i) for d > ρ_i, else 1;
 *   σ_i >= 1e-3 · mean_j d_ij (1e-3 · the mean over all points when ρ_i = 0), the means
 *        counting the zero self distance.
 * SIGMA [n], RHO [n]. */
void as_umap_smooth_distances (float *sigma, float *rho, const float *dist, int n, int k);

/* W [n][k] = exp(−(d_ij − ρ_i)/σ_i), 1 when d_ij <= ρ_i or σ_i = 0. */
void as_umap_memberships (float *w, const float *dist, const float *sigma, const float *rho, int n,
                          int k);

/* G = the fuzzy union W + Wᵀ − W∘Wᵀ of the directed memberships (NN [n][k], W [n][k]) without
 * zero entries, then every entry below max(G) / N_EPOCHS set to 0 and dropped (umap-learn's
 * pruning, with the default epochs for n points as the divisor when N_EPOCHS <= 10). */
void as_umap_fuzzy_graph (AsSparseGraph *g, const int *nn, const float *w, int n, int k,
                          int n_epochs);

/* Least-squares fit of 1 / (1 + a·x^(2b)) (umap-curve.c); see as_umap_find_ab(). */

/* The top eigenvectors of the symmetric normalised adjacency A = D^-½·W·D^-½ of a connected
 * graph G with M vertices (degrees DEG [m] > 0), without the first (√deg, eigenvalue 1):
 * VECTORS [m][2] the unit eigenvectors of the second and third largest eigenvalues (the two
 * smallest non-zero ones of the normalised Laplacian I − A), VALUES [2] their eigenvalues of A.
 * Signs: the entry of largest magnitude is positive. Dense LAPACK (dsyevr) up to
 * UMAP_EIGEN_DENSE_MAX vertices, Lanczos with full reorthogonalisation above (or always when
 * FORCE_LANCZOS), converged when every residual |A·v − λ·v| <= 1e-4 (umap-learn's eigsh
 * tolerance). FALSE when Lanczos does not converge; RNG seeds its start vector. M >= 4. */
#define UMAP_EIGEN_DENSE_MAX 256
gboolean as_umap_eigen_top2 (double *vectors, double *values, const AsSparseGraph *g,
                             const double *deg, gboolean force_lanczos, guint64 *rng);

/* LABEL [n] = the connected component of every vertex of G (numbered in the order of their
 * smallest vertex); returns the number of components. */
int as_umap_graph_components (int *label, const AsSparseGraph *g);

/* The spectral layout of umap-learn (spectral.py): Y [n][2] before scaling. A connected graph
 * gets its two eigenvectors; several connected components are placed as multi_component_layout
 * does (meta positions ±e_i for up to 4 components, else the spectral embedding of the
 * components' centroids of X [n][d] with affinities exp(−dist²); each component's own spectral
 * layout, or uniform noise for components of fewer than 4 points, scaled to half the distance
 * to the nearest other meta position). *N_COMPONENTS receives the number of components;
 * returns FALSE when an eigenvector search failed (those parts are laid out at random, as
 * umap-learn falls back). */
gboolean as_umap_spectral_layout (float *y, int *n_components, const AsSparseGraph *g,
                                  const float *x, int d, AsUmapMetric metric, guint64 *rng);

/* The distance of METRIC between rows A and B [d], in double precision. */
double as_umap_distance (const float *a, const float *b, int d, AsUmapMetric metric);

/* The descent (umap-layout.c): optimises Y [n][2] in place over the edges of G (head = row,
 * tail = column, both directions present) for N_EPOCHS epochs with curve A, B and O's learning
 * rate, negative sample rate, repulsion strength, seed, progress and cancellable. */
gboolean as_umap_optimize (float *y, const AsSparseGraph *g, int n_epochs, double a, double b,
                           const AsUmapOptions *o, AsWorkerTeam *team, GError **error);

G_END_DECLS

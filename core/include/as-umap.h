/* as-umap.h — uniform manifold approximation and projection of an [n][d] matrix into 2-D.
 *
 * McInnes, Healy & Melville 2018, "UMAP: Uniform Manifold Approximation and Projection for
 * Dimension Reduction" (arXiv:1802.03426), with the choices and defaults of the reference
 * implementation umap-learn 0.5 (core/projection/README.md, "UMAP", gives every step and its
 * source):
 *
 *   1. k-nearest-neighbour graph, exact (blocked distance products), each point counting as its
 *      own first neighbour as in umap-learn: n_neighbors − 1 other points per point;
 *   2. fuzzy simplicial set: ρ_i = distance to the nearest other point, σ_i by binary search so
 *      that Σ_j exp(−max(0, d_ij − ρ_i)/σ_i) = log2(n_neighbors) (at most 64 halvings, within
 *      1e-5; σ_i at least 1e-3 × the mean neighbour distance), w_ij = exp(−(d_ij − ρ_i)/σ_i),
 *      symmetrised by the fuzzy union W + Wᵀ − W∘Wᵀ; entries below max(W) / n_epochs dropped;
 *   3. a and b of the low-dimensional similarity 1 / (1 + a·d^(2b)) fitted by least squares to
 *      the offset exponential given by min_dist and spread (300 points on [0, 3·spread]);
 *   4. initialisation: spectral (the eigenvectors of the normalised graph Laplacian; connected
 *      components laid out separately as umap-learn's multi_component_layout does) or uniform
 *      random in [−10, 10]²; scaled so the largest coordinate is 10, N(0, 1e-4²) noise added,
 *      then each coordinate rescaled to [0, 10];
 *   5. stochastic gradient descent over the graph's edges, each sampled once every
 *      max(W)/w_ij epochs, with negative_sample_rate negative samples per positive one, gradients
 *      clipped to ±4, the learning rate falling linearly from learning_rate to 0.
 *
 * Determinism: the output depends only on the input and the options, never on the number of
 * threads or on timing. Every vertex has its own random stream (from the seed and its index);
 * above AS_UMAP_BLOCKED_MIN_N points the vertices are split into AS_UMAP_BLOCKS fixed blocks
 * that may run in parallel: within an epoch a block sees its own vertices as they move and the
 * others as they were at the start of the epoch, and moves of other blocks' vertices are applied
 * after the epoch in block order. Below that size the descent is exactly umap-learn's sequential
 * one.
 *
 * Threads: n_threads workers (0 = one per processor, at most 8) for the neighbour search, and
 * for the descent above AS_UMAP_BLOCKED_MIN_N points. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define AS_UMAP_NEIGHBORS_MIN 2
#define AS_UMAP_NEIGHBORS_MAX 200
#define AS_UMAP_EPOCHS_MAX 100000
/* Graphs up to this many vertices get umap-learn's 500 epochs by default, larger ones 200. */
#define AS_UMAP_SMALL_N 10000
#define AS_UMAP_BLOCKED_MIN_N 4096
#define AS_UMAP_BLOCKS 16

typedef enum
{
  AS_UMAP_METRIC_EUCLIDEAN,
  AS_UMAP_METRIC_COSINE, /* 1 − cos(x, y); 1 between a zero and a non-zero vector, 0 for two zero
                          * vectors (umap-learn's cosine) */
} AsUmapMetric;

typedef enum
{
  AS_UMAP_INIT_SPECTRAL, /* falls back to RANDOM when an eigenvector search does not converge */
  AS_UMAP_INIT_RANDOM,
} AsUmapInit;

/* Called on the thread that runs as_umap_run() every 10 epochs and after the last: EPOCH done
 * (1..n_epochs), Y [n][2] the current embedding (borrowed, valid during the call only). */
typedef void (*AsUmapProgressFunc) (int epoch, int n_epochs, const float *y, int n,
                                    gpointer user_data);

typedef struct
{
  int n_components;          /* 2; the only value accepted */
  int n_neighbors;           /* 15, in AS_UMAP_NEIGHBORS_MIN..MAX and at most n */
  double min_dist;           /* 0.1, in [0, spread] */
  double spread;             /* 1.0, > 0 */
  int n_epochs;              /* 0 = auto: 500 for n <= AS_UMAP_SMALL_N, 200 above; else 1..MAX */
  double learning_rate;      /* 1.0, > 0 */
  int negative_sample_rate;  /* 5, >= 0 */
  double repulsion_strength; /* 1.0 (γ, the weight of the negative samples), >= 0 */
  AsUmapMetric metric;       /* EUCLIDEAN */
  AsUmapInit init;           /* SPECTRAL */
  guint64 seed;              /* 0 */
  int n_threads;             /* 0 = one per processor (at most 8) */
  AsUmapProgressFunc progress;
  gpointer user_data;
  GCancellable *cancellable; /* checked every epoch; may be NULL */
} AsUmapOptions;

/* What a run did (for reports and the command line's JSON). */
typedef struct
{
  int n_epochs;           /* the epochs run (auto resolved) */
  double a, b;            /* the fitted curve */
  gint64 n_edges;         /* directed edges sampled by the descent (both directions counted) */
  int n_graph_components; /* connected components of the graph the layout starts from */
  AsUmapInit init;        /* the initialisation used (RANDOM after a spectral fallback) */
} AsUmapInfo;

/* Fills OPTIONS with the defaults above. */
void as_umap_options_init (AsUmapOptions *options);

/* The epochs N_EPOCHS (0 = auto) resolves to for N points. */
int as_umap_epochs_for (int n_epochs, int n);

/* The a, b of 1 / (1 + a·x^(2b)) closest in least squares to 1 for x < MIN_DIST and
 * exp(−(x − MIN_DIST) / SPREAD) above, on 300 points evenly spaced in [0, 3·SPREAD] (umap-learn's
 * find_ab_params; for the defaults a = 1.5769, b = 0.8951). Fails with AS_ERROR_INPUT when
 * SPREAD <= 0 or MIN_DIST is outside [0, SPREAD], AS_ERROR_VALUE when the fit does not
 * converge. */
gboolean as_umap_find_ab (double spread, double min_dist, double *a, double *b, GError **error);

/* Embeds X [n][d] (row-major) into Y_OUT [n][2]. INFO_OUT (may be NULL) says what was done.
 * OPTIONS may be NULL for the defaults. Fails without touching Y_OUT: AS_ERROR_INPUT for an
 * empty matrix, fewer points than n_neighbors (the message says the largest n_neighbors
 * allowed), options out of range (the message names the option, its value and the range);
 * AS_ERROR_VALUE naming the row and column of a NaN or infinity; AS_ERROR_MEMORY;
 * AS_ERROR_CANCELLED when OPTIONS->cancellable fires. */
gboolean as_umap_run (float *y_out, AsUmapInfo *info_out, const float *x, int n, int d,
                      const AsUmapOptions *options, GError **error);

G_END_DECLS

/* as-tsne.h — t-distributed stochastic neighbour embedding of an [n][d] matrix into 2-D.
 *
 * The maths and the defaults follow scikit-learn 1.2's TSNE so that KL divergences are
 * comparable: squared euclidean input distances; conditional Gaussians whose precision is found
 * per point so that the entropy matches log(perplexity) within 1e-5; P = (P_j|i + P_i|j) / 2n;
 * Student-t (one degree of freedom) similarities in the embedding; initialisation by PCA scaled
 * so that the first coordinate has standard deviation 1e-4; gradient descent with momentum 0.5
 * and early exaggeration (default 12) for 250 iterations, then momentum 0.8 without it, each
 * phase starting from no momentum and unit gains; per-parameter gains (+0.2 / ×0.8, at least
 * 0.01); learning rate "auto" = max(n / exaggeration / 4, 50); every 50 iterations the KL
 * divergence is evaluated and the run stops early when it has not improved for 300 iterations
 * (after the exaggeration phase) or when the gradient norm falls below 1e-7.
 *
 * Methods:
 *   EXACT       dense P over all pairs, exact O(n²) gradient per iteration (memory 4·n² bytes).
 *   BARNES_HUT  P on the floor(3·perplexity + 1) exact nearest neighbours of each point (sparse,
 *               symmetrised; the neighbours come from blocked distance products, O(n²·d) once),
 *               repulsion by a quadtree with opening angle theta, O(n log n) per iteration.
 *   AUTO        BARNES_HUT for every n, as sklearn's default method="barnes_hut". On the
 *               vectors users project (hidden states and embeddings of the shipped models, 500
 *               distinct rows each; core/projection/README.md, "Projections of real vectors") its
 *               neighbour P gave a higher trustworthiness than the exact method's dense P on
 *               every set, in sklearn as in attnscope (by 0.001-0.08). It costs more CPU below
 *               about 2000 points (tests/bench/RESULTS.md: 1.2-1.6x, 0.07-0.15 s, at 200-1000
 *               points) and the same above. EXACT, which reaches a lower KL on its dense P,
 *               stays available on request.
 *
 * KL divergence returned (*kl_out): KL(P || Q) of the final embedding with Q computed exactly
 * over all pairs. For BARNES_HUT, P is the sparse neighbour P (as sklearn's barnes_hut method
 * optimises), and for n > AS_TSNE_EXACT_KL_MAX the normalisation of Q is the Barnes-Hut estimate
 * of the last iteration (sklearn reports that estimate for every n).
 *
 * Perplexity: must be > 0 and n - 1 >= 3·perplexity (the rule of van der Maaten's bhtsne; sklearn
 * only requires perplexity < n). With fewer points the Gaussians cannot reach the requested
 * entropy with a meaningful margin and the Barnes-Hut neighbourhood of 3·perplexity points would
 * be the whole set; both methods enforce the same rule so AUTO never changes what is accepted.
 *
 * Determinism: the result depends only on the input and the options. The seed draws the random
 * initialisation (AS_TSNE_INIT_RANDOM, or the fallback when PCA degenerates, e.g. all rows equal
 * or d = 1) and perturbs the PCA initialisation by N(0, (1e-8)²), 1e-4 of its scale: nothing
 * visible at the start, but the descent is chaotic, so another seed gives another layout of the
 * same quality, as sklearn's random_state does through its randomized PCA (core/README.md,
 * "Projections"). The number of threads does not change a single bit of the output: rows are
 * split between threads but every row is summed in the same order.
 *
 * Threads: n_threads workers (0 = as_forward_threads (): $ATTNSCOPE_THREADS or one per processor,
 * at most 8); small problems (n < 512) run on the calling thread only. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define AS_TSNE_EXACT_KL_MAX 20000

typedef enum
{
  AS_TSNE_METHOD_AUTO,
  AS_TSNE_METHOD_EXACT,
  AS_TSNE_METHOD_BARNES_HUT,
} AsTsneMethod;

typedef enum
{
  AS_TSNE_INIT_PCA,    /* PCA coordinates / std(first coordinate) · 1e-4 (sklearn's init="pca"),
                        * plus N(0, (1e-8)²) from the seed */
  AS_TSNE_INIT_RANDOM, /* N(0, 1e-4²) from the seed */
} AsTsneInit;

/* Called on the thread that runs as_tsne_run() every 50 iterations and after the last one:
 * ITERATION done (1..n_iter), KL the current divergence (computed with the exaggerated P during
 * the first 250 iterations, as sklearn reports it), Y [n][2] the current embedding (borrowed,
 * valid during the call only). */
typedef void (*AsTsneProgressFunc) (int iteration, int n_iter, double kl, const float *y, int n,
                                    gpointer user_data);

typedef struct
{
  int n_components;          /* 2; the only value accepted */
  double perplexity;         /* 30 */
  double early_exaggeration; /* 12, >= 1 */
  int n_iter;                /* 1000, >= 250 */
  double learning_rate;      /* <= 0: "auto" = max(n / early_exaggeration / 4, 50) (default) */
  guint64 seed;              /* 0 */
  AsTsneMethod method;       /* AUTO */
  AsTsneInit init;           /* PCA */
  double theta;              /* 0.5, Barnes-Hut opening angle, in [0, 1] */
  int n_threads;             /* 0 = as_forward_threads () (at most 8) */
  AsTsneProgressFunc progress;
  gpointer user_data;
  GCancellable *cancellable; /* checked every iteration; may be NULL */
} AsTsneOptions;

/* Fills OPTIONS with the defaults above. */
void as_tsne_options_init (AsTsneOptions *options);

/* The method AUTO resolves to for N points: Barnes-Hut for every N (see "Methods" above). */
AsTsneMethod as_tsne_method_for (AsTsneMethod method, int n);

/* The largest perplexity accepted for N points: (n - 1) / 3 (0 when n < 2). */
double as_tsne_max_perplexity (int n);

/* Embeds X [n][d] (row-major) into Y_OUT [n][2]. KL_OUT (may be NULL) receives the final KL
 * divergence. OPTIONS may be NULL for the defaults. Fails without touching Y_OUT:
 * AS_ERROR_INPUT for an empty matrix (n or d = 0), n < 2, a perplexity out of range (the
 * message says the largest one allowed), bad options; AS_ERROR_VALUE naming the row and column
 * of a NaN or infinity; AS_ERROR_MEMORY; AS_ERROR_CANCELLED when OPTIONS->cancellable fires. */
gboolean as_tsne_run (float *y_out, double *kl_out, const float *x, int n, int d,
                      const AsTsneOptions *options, GError **error);

G_END_DECLS

/* tsne-private.h — the seams inside t-SNE: affinities (tsne-affinity.c), the two objectives
 * (tsne-exact.c, tsne-barnes-hut.c over quadtree.c) and the driver (tsne.c).
 *
 * An objective turns the embedding Y [n][2] into the gradient of KL(P || Q) and, when asked, the
 * divergence itself. Both split the gradient the same way:
 *   dC/dy_i = 4 · ( exag · Σ_j p_ij w_ij (y_i − y_j)  −  Σ_j w_ij² (y_i − y_j) / Z ),
 *   w_ij = 1 / (1 + |y_i − y_j|²),  Z = Σ_{i≠j} w_ij,  q_ij = w_ij / Z,
 * which equals sklearn's 4 Σ_j (p_ij − q_ij) w_ij (y_i − y_j). */
#pragma once

#include <gio/gio.h>
#include <stdint.h>

#include "knn-private.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

/* Below this many points everything runs on the calling thread: a worker team costs more than
 * it saves. */
#define TSNE_THREADED_MIN_N 512

/* The smallest probability, as sklearn's MACHINE_EPSILON floor of the exact P. */
#define TSNE_P_FLOOR 2.220446049250313e-16

/* The sparse P of Barnes-Hut is an AsSparseGraph (knn-private.h): symmetric, rows sorted by
 * column, summing to 1. */

/* The conditional distribution of one point: P_OUT [m] = exp(−β·d2) / Σ over the M squared
 * distances D2 (entry SKIP excluded and set to 0; −1 for none), β chosen by a safeguarded Newton
 * search so that the entropy is log(perplexity) within 1e-5 nats (at most 100 steps, as sklearn).
 * Returns β. */
double as_tsne_conditional_row (float *p_out, const float *d2, int m, int skip, double perplexity);

/* Dense symmetric P [n][n] for the exact method: zero diagonal, (P_j|i + P_i|j) / Σ, each
 * off-diagonal entry at least TSNE_P_FLOOR (sklearn). */
gboolean as_tsne_affinities_dense (float *p, const float *x, int n, int d, double perplexity,
                                   AsWorkerTeam *team, GCancellable *cancellable, GError **error);

/* Sparse symmetric P on the K nearest neighbours of each point (Barnes-Hut). */
gboolean as_tsne_affinities_sparse (AsSparseGraph *p, const float *x, int n, int d,
                                    double perplexity, int k, AsWorkerTeam *team,
                                    GCancellable *cancellable, GError **error);

/* One objective evaluation: GRAD [n][2] at Y [n][2] with P scaled by EXAG. Returns KL(exag·P ||
 * Q) when COMPUTE_KL, NaN otherwise. */
typedef struct _AsTsneObjective AsTsneObjective;
struct _AsTsneObjective
{
  double (*gradient) (AsTsneObjective *self, float *grad, const float *y, double exag,
                      gboolean compute_kl);
  /* The final divergence reported to the caller (see as-tsne.h). */
  double (*final_kl) (AsTsneObjective *self, const float *y);
  void (*free) (AsTsneObjective *self);
};

AsTsneObjective *as_tsne_exact_new (const float *p, int n, AsWorkerTeam *team);
AsTsneObjective *as_tsne_barnes_hut_new (const AsSparseGraph *p, double theta, AsWorkerTeam *team);

/* Z = Σ_{i≠j} 1 / (1 + |y_i − y_j|²) over all pairs, exactly (O(n²), threaded). */
double as_tsne_exact_z (const float *y, int n, AsWorkerTeam *team);

G_END_DECLS

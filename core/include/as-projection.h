/* as-projection.h — a 2-D projection of an [n][d] matrix by PCA, t-SNE or UMAP, as every caller
 * computes it: `attnscope project`, `attnscope export --project` and the window's Embeddings
 * page call this one function.
 *
 * t-SNE and UMAP see every distinct row once (as-unique-rows.h) and every copy gets the point of
 * its row: the token embeddings of one token in several sentences are one point, and a token
 * that occurs more often than UMAP has neighbours does not form a graph component of its own.
 * PCA maps identical rows to one point anyway and projects all of them. */
#pragma once

#include <gio/gio.h>

#include "as-tsne.h"
#include "as-umap.h"

G_BEGIN_DECLS

typedef enum
{
  AS_PROJECTION_PCA,
  AS_PROJECTION_TSNE,
  AS_PROJECTION_UMAP,
} AsProjectionMethod;

/* "pca", "tsne", "umap" (the command line's names) and back; FALSE for an unknown NAME. */
const char *as_projection_method_to_string (AsProjectionMethod method);
gboolean as_projection_method_from_string (const char *name, AsProjectionMethod *method);

/* Progress of t-SNE (iterations) and UMAP (epochs): DONE of TOTAL, on the computing thread. */
typedef void (*AsProjectionProgressFunc) (int done, int total, gpointer user_data);

typedef struct
{
  AsProjectionMethod method;
  AsTsneOptions tsne; /* t-SNE's options (its progress and cancellable are the ones below) */
  AsUmapOptions umap; /* UMAP's options (likewise) */
  /* TRUE (the default): t-SNE's perplexity and UMAP's neighbours are lowered to what the
   * distinct points allow — (m − 1) / 3 and m for m distinct points — so that a few sentences
   * still project (the window and `export --project`). FALSE: taken as given, and a value too
   * large for the points is an error (`attnscope project`). */
  gboolean fit_to_points;
  AsProjectionProgressFunc progress; /* may be NULL */
  gpointer user_data;
  GCancellable *cancellable; /* may be NULL */
} AsProjectionOptions;

/* OPTIONS for METHOD with the core's defaults (as-tsne.h, as-umap.h: scikit-learn's and
 * umap-learn's; UMAP seeded with 0), fitted to the points, no progress, not cancellable. */
void as_projection_options_init (AsProjectionOptions *options, AsProjectionMethod method);

typedef struct
{
  AsProjectionMethod method;
  int n;
  int distinct;      /* distinct rows among the n (t-SNE and UMAP project each once) */
  float *xy;         /* [n][2]; a rank-1 input gives PCA coordinates whose second column is 0 */
  double ratio[2];   /* PCA: explained variance ratio of the two components (0 for a missing
                      * one); NaN otherwise */
  double kl;         /* t-SNE: the final KL divergence; NaN otherwise */
  double perplexity; /* t-SNE: the perplexity used (after fitting); NaN otherwise */
  int n_neighbors;   /* UMAP: the neighbours used (after fitting); 0 otherwise */
  AsUmapInfo umap;   /* UMAP: what the run did (epochs, a, b, initialisation); zero otherwise */
} AsProjection;

/* Projects X [N][DIM] as OPTIONS say. Fails with ERROR: PCA of fewer than 2 points; the
 * method's own errors (as-pca.h, as-tsne.h, as-umap.h), prefixed with how many of the points are
 * distinct when some are copies; AS_ERROR_CANCELLED when the cancellable fires. */
AsProjection *as_projection_run (const float *x, int n, int dim, const AsProjectionOptions *options,
                                 GError **error);
void as_projection_free (AsProjection *projection);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsProjection, as_projection_free)

G_END_DECLS

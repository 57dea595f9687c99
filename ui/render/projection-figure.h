/* projection-figure.h — the embeddings figure: the token vectors of one or two texts projected to
 * 2-D by PCA or t-SNE and drawn as a labelled scatter plot (the embeddings page,
 * `attnscope export --project`).
 *
 * Three steps, each one function used by the window and the command line alike: which vectors
 * are projected (ar_projection_vectors), the projection itself with the settings the figure uses
 * (ar_projection_compute — slow, so the window runs it off the UI thread), and the figure
 * (ar_build_projection_figure). */
#pragma once

#include "as-trace-vectors.h"
#include "as-tsne.h"
#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

typedef enum
{
  AR_PROJECTION_PCA,
  AR_PROJECTION_TSNE,
} ArProjectionMethod;

/* The vectors SOURCE at LAYER/HEAD (core numbering, as-trace-vectors.h) of A's tokens, then of
 * B's (B may be NULL), stacked: [*N][*DIM], newly allocated; NULL with ERROR for a bad
 * selection. */
float *ar_projection_vectors (const AsTrace *a, const AsTrace *b, AsVectorSource source, int layer,
                              int head, int *n, int *dim, GError **error);

/* The t-SNE settings of the figure for N points: the core's defaults (scikit-learn's) with the
 * perplexity lowered to the largest N allows when 30 is too large. */
void ar_projection_tsne_options (AsTsneOptions *options, int n);

typedef struct
{
  ArProjectionMethod method;
  int n;
  float *xy;       /* [n][2] */
  double ratio[2]; /* explained variance ratio of the components (PCA); NaN for t-SNE */
} ArProjection;

/* Projects X [N][DIM] with METHOD. For t-SNE, PROGRESS, USER_DATA and CANCELLABLE (all may be
 * NULL) go into ar_projection_tsne_options' settings. A rank-1 input gives PCA coordinates whose
 * second column is 0. */
ArProjection *ar_projection_compute (const float *x, int n, int dim, ArProjectionMethod method,
                                     AsTsneProgressFunc progress, gpointer user_data,
                                     GCancellable *cancellable, GError **error);
void ar_projection_free (ArProjection *projection);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ArProjection, ar_projection_free)

/* PROJECTION of the vectors of A (and B) chosen as above: one dot per token, labelled with the
 * token when SHOW_LABELS, A's and B's tokens in their own colours with a legend when B is given,
 * the view's selected token of A ringed; the axes are "PC 1 (x %)" / "PC 2 (y %)" for PCA and
 * "t-SNE 1" / "t-SNE 2". */
ArBuiltFigure *ar_build_projection_figure (const ArProjection *projection, const AsTrace *a,
                                           const AsTrace *b, AsVectorSource source, int layer,
                                           int head, gboolean show_labels,
                                           const ArViewSelection *view, const ArFigureTexts *texts);

G_END_DECLS

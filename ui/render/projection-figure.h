/* projection-figure.h — the embeddings figure: the token vectors of any number of sentences
 * projected to 2-D by PCA, t-SNE or UMAP and drawn as a labelled scatter plot (the embeddings
 * page, `attnscope export --project`); optionally a second vector set of the same tokens beside
 * it (static token embeddings beside a layer's contextual vectors), and every occurrence of a
 * word highlighted.
 *
 * Three steps, each one function used by the window and the command line alike: which vectors
 * are projected (ar_projection_vectors), the projection itself with the settings the figure uses
 * (ar_projection_compute — slow, so the window runs it off the UI thread), and the figure
 * (ar_build_projection_figure). */
#pragma once

#include "as-trace-vectors.h"
#include "as-tsne.h"
#include "as-umap.h"
#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

typedef enum
{
  AR_PROJECTION_PCA,
  AR_PROJECTION_TSNE,
  AR_PROJECTION_UMAP,
} ArProjectionMethod;

/* "pca", "tsne", "umap" (the command line's names) and back; FALSE for an unknown NAME. */
const char *ar_projection_method_to_string (ArProjectionMethod method);
gboolean ar_projection_method_from_string (const char *name, ArProjectionMethod *method);

/* The sentences a projection is about, in order: their traces and the texts they came from. The
 * points are their tokens, sentence by sentence. */
typedef struct
{
  int n;
  const AsTrace *const *traces; /* [n] */
  const char *const *texts;     /* [n] */
} ArSentences;

/* The total number of tokens of the sentences. */
int ar_sentences_n_tokens (const ArSentences *sentences);

/* One vector set of the tokens (as-trace-vectors.h, core numbering; head -1 when none). */
typedef struct
{
  AsVectorSource source;
  int layer, head;
} ArVectorChoice;

/* The vectors CHOICE of every token of SENTENCES, stacked: [*N][*DIM], newly allocated; NULL
 * with ERROR for a bad selection (the message names the sentence when there are several). */
float *ar_projection_vectors (const ArSentences *sentences, const ArVectorChoice *choice, int *n,
                              int *dim, GError **error);

/* The t-SNE settings of the figure for N distinct points: the core's defaults (scikit-learn's)
 * with the perplexity lowered to the largest N allows when 30 is too large. */
void ar_projection_tsne_options (AsTsneOptions *options, int n);

/* The UMAP settings of the figure for N distinct points: the core's defaults, which are
 * `attnscope project --method umap`'s (15 neighbours, min_dist 0.1, euclidean, epochs auto,
 * seed 0), with the neighbours lowered to N when there are fewer points. */
void ar_projection_umap_options (AsUmapOptions *options, int n);

/* Progress of t-SNE (iterations) and UMAP (epochs): DONE of TOTAL, on the computing thread. */
typedef void (*ArProjectionProgressFunc) (int done, int total, gpointer user_data);

typedef struct
{
  ArProjectionMethod method;
  int n;
  int distinct;    /* distinct vectors among the n (t-SNE and UMAP project each once) */
  float *xy;       /* [n][2] */
  double ratio[2]; /* explained variance ratio of the components (PCA); NaN otherwise */
} ArProjection;

/* Projects X [N][DIM] with METHOD. t-SNE and UMAP see every distinct vector once
 * (as-unique-rows.h) and every copy gets its point, as `attnscope project` does: the token
 * embeddings of one token in several sentences are one point. PROGRESS, USER_DATA and
 * CANCELLABLE may be NULL. A rank-1 input gives PCA coordinates whose second column is 0. */
ArProjection *ar_projection_compute (const float *x, int n, int dim, ArProjectionMethod method,
                                     ArProjectionProgressFunc progress, gpointer user_data,
                                     GCancellable *cancellable, GError **error);
void ar_projection_free (ArProjection *projection);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ArProjection, ar_projection_free)

/* One panel of the figure: a projection of the vectors CHOICE. */
typedef struct
{
  const ArProjection *projection;
  ArVectorChoice choice;
} ArProjectionPanel;

/* The figure of PANELS [N_PANELS] (1, or 2 side by side: the same points in two projections) of
 * the tokens of SENTENCES: one dot per token, labelled with the token when SHOW_LABELS, each
 * sentence in its colour with a legend when there are several ("1 “excerpt…”"; two sentences
 * whose second is TEXTS->compare_text are "A: “…”" and "B: “…”"), the view's selected token of
 * the first sentence ringed. HIGHLIGHT (NULL: none) marks the tokens of every occurrence of the
 * word (as-word-marks.h) in every sentence — ringed, labelled with their sentence number
 * ("spring ·2") — and greys the rest. Every point's tooltip names its token, its sentence and a
 * short excerpt around it. Title "<method> of the <vectors>" (two panels: "... of the <vectors 1>
 * and the <vectors 2>", each panel titled with its vectors); axes "PC 1 (x %)" / "PC 2 (y %)",
 * "t-SNE 1" / "t-SNE 2", "UMAP 1" / "UMAP 2". */
ArBuiltFigure *ar_build_projection_figure (const ArProjectionPanel *panels, int n_panels,
                                           const ArSentences *sentences, const char *highlight,
                                           gboolean show_labels, const ArViewSelection *view,
                                           const ArFigureTexts *texts);

/* The first words of TEXT, at most about MAX_CHARS characters, with '…' when cut (legend entries,
 * messages naming a sentence). Newly allocated. */
char *ar_text_beginning (const char *text, int max_chars);

/* "…water of the spring is very…": about WORDS words either side of token TOKEN of TRACE, which
 * came from TEXT, with '…' where the text goes on. Newly allocated. */
char *ar_token_excerpt (const AsTrace *trace, const char *text, int token, int words);

G_END_DECLS

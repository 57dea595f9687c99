/* projection-figure.h — the embeddings figure: the token vectors of any number of sentences
 * projected to 2-D by PCA, t-SNE or UMAP (as-projection.h) and drawn as a labelled scatter plot
 * (the embeddings page, `attnscope export --project`); optionally a second vector set of the same
 * tokens beside it (static token embeddings beside a layer's contextual vectors), and every
 * occurrence of a word highlighted.
 *
 * Three steps, each one function used by the window and the command line alike: which vectors
 * are projected (ar_projection_vectors), the projection itself (core's as_projection_run with
 * as_projection_options_init's settings — slow, so the window runs it off the UI thread), and
 * the figure (ar_build_projection_figure). */
#pragma once

#include "as-projection.h"
#include "as-trace-vectors.h"
#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

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

/* One panel of the figure: a projection of the vectors CHOICE. */
typedef struct
{
  const AsProjection *projection;
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

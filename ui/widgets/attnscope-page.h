/* attnscope-page.h — the base class of the window's pages (attention, heads, similarity,
 * embeddings, compare, predictions).
 *
 * A page shows the session (attnscope-session.h). It follows the session's view state, its
 * analyses and their results through signal groups: whenever one of them changes, the page is
 * marked out of date and brings itself up to date (the update vfunc) in an idle callback while it
 * is mapped, or when it is mapped again, so typing only rebuilds the page on screen. An update
 * never computes: it asks the analyses for what it needs (attnscope-analysis.h) and builds its
 * figure with a ui/render builder when everything is there; until then it keeps showing its
 * previous figure and says it is busy ("busy"; the window shows a spinner). A page that draws a
 * figure returns it from get_figure, for export: the figure the builder made, in the print
 * style. */
#pragma once

#include <gtk/gtk.h>

#include "attnscope-session.h"
#include "built-figure.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_PAGE (attnscope_page_get_type ())

G_DECLARE_DERIVABLE_TYPE (AttnscopePage, attnscope_page, ATTNSCOPE, PAGE, GtkWidget)

struct _AttnscopePageClass
{
  GtkWidgetClass parent_class;

  /* Bring what the page shows up to date with the session (which may be NULL). */
  void (*update) (AttnscopePage *self);
  /* The figure on screen (borrowed), or NULL. */
  ArBuiltFigure *(*get_figure) (AttnscopePage *self);
  /* A file name stem for the figure, e.g. "attention-layer0-head1". */
  char *(*dup_figure_name) (AttnscopePage *self);
  /* A new figure of the page drawn for VIEW (the export dialog's variations of the view on
   * screen), or NULL while a result it needs is computed (asked for now; "ready" follows). */
  ArBuiltFigure *(*build_figure) (AttnscopePage *self, const ArViewSelection *view);
  /* Appends the arguments of `attnscope export` that choose the page's figure for VIEW
   * ("--layer", "1", "--head", "0"; "--compare", T2 ...), as newly allocated strings. */
  void (*append_export_args) (AttnscopePage *self, const ArViewSelection *view, GPtrArray *argv);

  gpointer padding[6];
};

AttnscopeSession *attnscope_page_get_session (AttnscopePage *self);
void attnscope_page_set_session (AttnscopePage *self, AttnscopeSession *session);

/* Marks the page out of date (for what the page follows beyond the signal groups above). */
void attnscope_page_queue_update (AttnscopePage *self);
/* Runs a pending update now (export of a page that is not on screen, tests). */
void attnscope_page_ensure_updated (AttnscopePage *self);

/* TRUE while the page waits for a result (it shows its previous one meanwhile). */
gboolean attnscope_page_get_busy (AttnscopePage *self);

/* The figure on screen, up to date: FALSE while there is none or the page is busy. FIGURE
 * borrows the page's figure until its next update. */
gboolean attnscope_page_get_figure (AttnscopePage *self, ArFigure *figure);
char *attnscope_page_dup_figure_name (AttnscopePage *self);

/* The page's figure for VIEW (a new reference), or NULL while it is computed or when the page
 * draws no figure; the page's view arguments of `attnscope export` (see the class). */
ArBuiltFigure *attnscope_page_build_figure (AttnscopePage *self, const ArViewSelection *view);
void attnscope_page_append_export_args (AttnscopePage *self, const ArViewSelection *view,
                                        GPtrArray *argv);

/* Appends the arguments of `attnscope export` for VIEW's attention: --layer L --head H, --mean L
 * or --rollout L. */
void attnscope_page_append_attention_args (GPtrArray *argv, const ArViewSelection *view);

/* Translation models: the attention kind the page shows (AR_ATTENTION_SELF for other models);
 * the analysis of the trace that attention belongs to (the encoder's trace for
 * AR_ATTENTION_ENCODER, else the main analysis); the main trace's cross-attention results (NULL
 * for other models); the export arguments "--target TGT --kind K" of VIEW (none for other
 * models). */
ArAttentionKind attnscope_page_get_attention_kind (AttnscopePage *self);
AttnscopeAnalysis *attnscope_page_get_kind_analysis (AttnscopePage *self);
AttnscopeCross *attnscope_page_get_cross (AttnscopePage *self);
void attnscope_page_append_kind_args (AttnscopePage *self, const ArViewSelection *view,
                                      GPtrArray *argv);

/* The token that stands for row or column ITEM of the page's matrices: ITEM itself, or when the
 * view pools words (ArViewSelection.pool_words) the first token of word ITEM; -1 outside. */
int attnscope_page_item_token (AttnscopePage *self, int item);

/* The page's main widget — its figure, or the predictions' list — which takes the keyboard focus
 * when the page is shown (the window gives it), so that the arrow keys and Return reach it
 * at once; set by the subclass, made focusable. */
void attnscope_page_set_focus_widget (AttnscopePage *self, GtkWidget *widget);
GtkWidget *attnscope_page_get_focus_widget (AttnscopePage *self);

/* For subclasses: whether they wait for a result; the session's analysis of the main and the
 * comparison trace (NULL without a session or trace); the view state as the builders take it;
 * what a figure is about (borrowed from the session until the next update). */
void attnscope_page_set_busy (AttnscopePage *self, gboolean busy);
AttnscopeAnalysis *attnscope_page_get_analysis (AttnscopePage *self);
AttnscopeAnalysis *attnscope_page_get_compare_analysis (AttnscopePage *self);
AttnscopeViewState *attnscope_page_get_view (AttnscopePage *self);
void attnscope_page_get_selection (AttnscopePage *self, ArViewSelection *selection);
void attnscope_page_get_texts (AttnscopePage *self, ArFigureTexts *texts);

G_END_DECLS

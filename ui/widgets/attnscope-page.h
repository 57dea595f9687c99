/* attnscope-page.h — the base class of the window's pages (attention, heads, similarity,
 * embeddings, compare, predictions).
 *
 * A page shows the session (attnscope-session.h). Whenever a session property changes the page is
 * marked out of date; it brings itself up to date (the update vfunc) in an idle callback while it
 * is mapped, or when it is mapped again, so typing only recomputes the page on screen. A page
 * that draws a figure returns it from get_figure for export: the same ui/render structs it draws
 * on screen, in the print style. */
#pragma once

#include <gtk/gtk.h>

#include "attnscope-session.h"
#include "figure.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_PAGE (attnscope_page_get_type ())

G_DECLARE_DERIVABLE_TYPE (AttnscopePage, attnscope_page, ATTNSCOPE, PAGE, GtkWidget)

struct _AttnscopePageClass
{
  GtkWidgetClass parent_class;

  /* Recompute what the page shows from the session (which may be NULL). */
  void (*update) (AttnscopePage *self);
  /* The figure on screen, borrowing the page's data (valid until the next update); FALSE when
   * there is nothing to export. */
  gboolean (*get_figure) (AttnscopePage *self, ArFigure *figure);
  /* A file name stem for the figure, e.g. "attention-layer0-head1". */
  char *(*dup_figure_name) (AttnscopePage *self);

  gpointer padding[8];
};

AttnscopeSession *attnscope_page_get_session (AttnscopePage *self);
void attnscope_page_set_session (AttnscopePage *self, AttnscopeSession *session);

/* Runs a pending update now (export of a page that is not on screen, tests). */
void attnscope_page_ensure_updated (AttnscopePage *self);

gboolean attnscope_page_get_figure (AttnscopePage *self, ArFigure *figure);
char *attnscope_page_dup_figure_name (AttnscopePage *self);

/* Helpers for subclasses: "model · “text”" for figure subtitles (newly allocated, NULL without a
 * trace), and the token labels of TRACE in the session's label mode (free with g_strfreev). */
char *attnscope_page_dup_subtitle (AttnscopePage *self, const char *text);
char **attnscope_page_dup_token_labels (AttnscopePage *self, const AsTrace *trace);

G_END_DECLS

/* attnscope-alignment-view.h — a translation's source and target tokens linked by their
 * cross-attention (ui/render/alignment-render.h): a built figure made by
 * ar_build_alignment_figure(). Hovering a token highlights its links; clicking a token emits
 * "token-activated" (TRUE for a target token, and its index), and a click on a source token keeps
 * its links highlighted ("pinned") until it is clicked again or another source token is. */
#pragma once

#include <gtk/gtk.h>

#include "built-figure.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_ALIGNMENT_VIEW (attnscope_alignment_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeAlignmentView, attnscope_alignment_view, ATTNSCOPE, ALIGNMENT_VIEW,
                      GtkWidget)

GtkWidget *attnscope_alignment_view_new (void);

/* Shows FIGURE (an alignment; a reference is kept), or nothing for NULL. */
void attnscope_alignment_view_set_figure (AttnscopeAlignmentView *self, ArBuiltFigure *figure);
ArBuiltFigure *attnscope_alignment_view_get_figure (AttnscopeAlignmentView *self);

/* The token whose links the pointer highlights (-1 for none): a target token when *TARGET. */
int attnscope_alignment_view_get_hover (AttnscopeAlignmentView *self, gboolean *target);
/* Highlights as hovering at (X, Y) does (also for tests). */
void attnscope_alignment_view_hover_at (AttnscopeAlignmentView *self, double x, double y);

/* What a click on source (TARGET FALSE) or target token INDEX does; the pinned source token
 * (-1: none). */
void attnscope_alignment_view_click (AttnscopeAlignmentView *self, gboolean target, int index);
int attnscope_alignment_view_get_pinned_source (AttnscopeAlignmentView *self);

G_END_DECLS

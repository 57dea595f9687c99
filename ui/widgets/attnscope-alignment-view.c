/* attnscope-alignment-view.c — the alignment of source and target tokens (see
 * attnscope-alignment-view.h). */
#include "attnscope-alignment-view.h"

#include <glib/gi18n.h>

#include "attnscope-figure-widget.h"
#include "render-text.h"

struct _AttnscopeAlignmentView
{
  GtkWidget parent_instance;

  ArBuiltFigure *figure;
  int hover;             /* the token under the pointer, -1 for none */
  gboolean hover_target; /* it is a target token */
  int pinned_source;     /* a source token clicked: its links stay highlighted, -1 for none */
};

G_DEFINE_FINAL_TYPE (AttnscopeAlignmentView, attnscope_alignment_view, GTK_TYPE_WIDGET)

enum
{
  TOKEN_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const ArAlignmentFigure *
alignment (AttnscopeAlignmentView *self)
{
  return self->figure != NULL ? &ar_built_figure_get_parts (self->figure)->alignment : NULL;
}

void
attnscope_alignment_view_set_figure (AttnscopeAlignmentView *self, ArBuiltFigure *figure)
{
  g_return_if_fail (ATTNSCOPE_IS_ALIGNMENT_VIEW (self));
  g_return_if_fail (figure == NULL || ar_built_figure_get (figure)->kind == AR_FIGURE_ALIGNMENT);
  attnscope_figure_widget_replace (GTK_WIDGET (self), &self->figure, figure,
                                   attnscope_figure_widget_same_size);
  const ArAlignmentFigure *fig = alignment (self);
  if (fig == NULL || self->hover >= (self->hover_target ? fig->n_target : fig->n_source))
    self->hover = -1;
  if (fig == NULL || self->pinned_source >= fig->n_source)
    self->pinned_source = -1;
}

ArBuiltFigure *
attnscope_alignment_view_get_figure (AttnscopeAlignmentView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ALIGNMENT_VIEW (self), NULL);
  return self->figure;
}

int
attnscope_alignment_view_get_pinned_source (AttnscopeAlignmentView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ALIGNMENT_VIEW (self), -1);
  return self->pinned_source;
}

int
attnscope_alignment_view_get_hover (AttnscopeAlignmentView *self, gboolean *target)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ALIGNMENT_VIEW (self), -1);
  if (target != NULL)
    *target = self->hover_target;
  return self->hover;
}

static gboolean
hit (AttnscopeAlignmentView *self, double x, double y, gboolean *target, int *index)
{
  if (self->figure == NULL)
    return FALSE;
  ArFigureParts parts;
  attnscope_figure_widget_restyle (self->figure, &parts);
  return ar_alignment_hit (&parts.alignment, gtk_widget_get_width (GTK_WIDGET (self)),
                           gtk_widget_get_height (GTK_WIDGET (self)), x, y, target, index);
}

void
attnscope_alignment_view_hover_at (AttnscopeAlignmentView *self, double x, double y)
{
  g_return_if_fail (ATTNSCOPE_IS_ALIGNMENT_VIEW (self));
  gboolean target = FALSE;
  int index = -1;
  if (!hit (self, x, y, &target, &index))
    index = -1;
  if (index == self->hover && target == self->hover_target)
    return;
  self->hover = index;
  self->hover_target = target;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
attnscope_alignment_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeAlignmentView *self = ATTNSCOPE_ALIGNMENT_VIEW (widget);
  if (self->figure == NULL)
    return;
  ArFigureParts parts;
  attnscope_figure_widget_restyle (self->figure, &parts);
  if (self->hover >= 0)
    {
      /* the hovered token's links, instead of the selected token's */
      parts.alignment.highlight_source = self->hover_target ? -1 : self->hover;
      parts.alignment.highlight_target = self->hover_target ? self->hover : -1;
    }
  else if (self->pinned_source >= 0)
    {
      parts.alignment.highlight_source = self->pinned_source;
      parts.alignment.highlight_target = -1;
    }
  attnscope_figure_widget_snapshot (widget, snapshot, &parts.figure);
}

static void
attnscope_alignment_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                  int *minimum, int *natural, int *minimum_baseline,
                                  int *natural_baseline)
{
  AttnscopeAlignmentView *self = ATTNSCOPE_ALIGNMENT_VIEW (widget);
  ArFigureParts parts;
  if (self->figure != NULL)
    attnscope_figure_widget_restyle (self->figure, &parts);
  /* long sentences keep readable tokens: below 70 % of the natural size the page scrolls */
  attnscope_figure_widget_measure (self->figure != NULL ? &parts.figure : NULL, orientation, 0.7,
                                   minimum, natural);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  AttnscopeAlignmentView *self = ATTNSCOPE_ALIGNMENT_VIEW (widget);
  gboolean target = FALSE;
  int index = -1;
  if (keyboard || !hit (self, x, y, &target, &index))
    return FALSE;
  const ArAlignmentFigure *fig = alignment (self);
  /* the token's strongest link */
  int best = -1;
  float best_w = -1;
  int n_other = target ? fig->n_source : fig->n_target;
  for (int k = 0; k < n_other; k++)
    {
      float w = target ? fig->weights[(gsize) index * fig->n_source + k]
                       : fig->weights[(gsize) k * fig->n_source + index];
      if (w > best_w)
        best_w = w, best = k;
    }
  g_autofree char *weight = ar_format_number (best_w, 2);
  g_autofree char *text
      = target ? g_strdup_printf (_ ("Target “%s” (%d) reads source “%s” (%d) most: %s"),
                                  fig->target_labels[index], index, fig->source_labels[best], best,
                                  weight)
               : g_strdup_printf (_ ("Source “%s” (%d) is read most by target “%s” (%d): %s"),
                                  fig->source_labels[index], index, fig->target_labels[best], best,
                                  weight);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

void
attnscope_alignment_view_click (AttnscopeAlignmentView *self, gboolean target, int index)
{
  g_return_if_fail (ATTNSCOPE_IS_ALIGNMENT_VIEW (self));
  /* a source token is pinned (again: unpinned); a target token is the page's selection */
  self->pinned_source = !target && index != self->pinned_source ? index : -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[TOKEN_ACTIVATED], 0, target, index);
}

static void
on_click_released (GtkGestureClick *gesture, int n_press, double x, double y,
                   AttnscopeAlignmentView *self)
{
  gboolean target = FALSE;
  int index = -1;
  if (hit (self, x, y, &target, &index))
    attnscope_alignment_view_click (self, target, index);
}

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, AttnscopeAlignmentView *self)
{
  attnscope_alignment_view_hover_at (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *motion, AttnscopeAlignmentView *self)
{
  attnscope_alignment_view_hover_at (self, -1, -1);
}

static void
attnscope_alignment_view_finalize (GObject *object)
{
  AttnscopeAlignmentView *self = ATTNSCOPE_ALIGNMENT_VIEW (object);
  g_clear_pointer (&self->figure, ar_built_figure_unref);
  G_OBJECT_CLASS (attnscope_alignment_view_parent_class)->finalize (object);
}

static void
attnscope_alignment_view_class_init (AttnscopeAlignmentViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = attnscope_alignment_view_finalize;
  widget_class->snapshot = attnscope_alignment_view_snapshot;
  widget_class->measure = attnscope_alignment_view_measure;

  /* A click on a token: TRUE for a target token, and its index. */
  signals[TOKEN_ACTIVATED]
      = g_signal_new ("token-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                      NULL, NULL, G_TYPE_NONE, 2, G_TYPE_BOOLEAN, G_TYPE_INT);

  gtk_widget_class_set_css_name (widget_class, "alignmentview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
attnscope_alignment_view_init (AttnscopeAlignmentView *self)
{
  self->hover = -1;
  self->pinned_source = -1;
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip),
                                G_CALLBACK (on_click_released));
  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
}

GtkWidget *
attnscope_alignment_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_ALIGNMENT_VIEW, NULL);
}

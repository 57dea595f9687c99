/* attnscope-scatter-view.c — the scatter plot widget: draws its built figure through
 * ar_scatter_render() and hit-tests with ar_scatter_hit() (see attnscope-scatter-view.h). */
#include "attnscope-scatter-view.h"

#include "attnscope-figure-widget.h"
#include "render-text.h"

struct _AttnscopeScatterView
{
  GtkWidget parent_instance;

  ArBuiltFigure *figure; /* a scatter plot, or NULL */
};

G_DEFINE_FINAL_TYPE (AttnscopeScatterView, attnscope_scatter_view, GTK_TYPE_WIDGET)

enum
{
  POINT_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const ArScatterFigure *
scatter (AttnscopeScatterView *self)
{
  return self->figure != NULL ? &ar_built_figure_get_parts (self->figure)->scatter : NULL;
}

void
attnscope_scatter_view_set_figure (AttnscopeScatterView *self, ArBuiltFigure *figure)
{
  g_return_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self));
  g_return_if_fail (figure == NULL || ar_built_figure_get (figure)->kind == AR_FIGURE_SCATTER);
  attnscope_figure_widget_replace (GTK_WIDGET (self), &self->figure, figure,
                                   attnscope_figure_widget_same_size);
}

ArBuiltFigure *
attnscope_scatter_view_get_figure (AttnscopeScatterView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self), NULL);
  return self->figure;
}

int
attnscope_scatter_view_get_n_points (AttnscopeScatterView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self), 0);
  return scatter (self) != NULL ? scatter (self)->n_points : 0;
}

gboolean
attnscope_scatter_view_get_point (AttnscopeScatterView *self, int i, float *x, float *y)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self), FALSE);
  const ArScatterFigure *fig = scatter (self);
  if (fig == NULL || i < 0 || i >= fig->n_points)
    return FALSE;
  *x = fig->xy[2 * i];
  *y = fig->xy[2 * i + 1];
  return TRUE;
}

static void
attnscope_scatter_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeScatterView *self = ATTNSCOPE_SCATTER_VIEW (widget);
  if (self->figure == NULL)
    return;
  ArFigureParts parts;
  attnscope_figure_widget_restyle (self->figure, &parts);
  attnscope_figure_widget_snapshot (widget, snapshot, &parts.figure);
}

static void
attnscope_scatter_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *minimum_baseline,
                                int *natural_baseline)
{
  AttnscopeScatterView *self = ATTNSCOPE_SCATTER_VIEW (widget);
  ArScatterFigure empty;
  ar_scatter_figure_init (&empty);
  ArFigure blank = ar_figure_from_scatter (&empty);
  ArFigureParts parts;
  if (self->figure != NULL)
    attnscope_figure_widget_restyle (self->figure, &parts);
  /* The plot keeps its size while a projection is computed. */
  attnscope_figure_widget_measure (self->figure != NULL ? &parts.figure : &blank, orientation, 0,
                                   minimum, natural);
}

static gboolean
hit (AttnscopeScatterView *self, double x, double y, int *index)
{
  if (self->figure == NULL)
    return FALSE;
  ArFigureParts parts;
  attnscope_figure_widget_restyle (self->figure, &parts);
  return ar_scatter_hit (&parts.scatter, gtk_widget_get_width (GTK_WIDGET (self)),
                         gtk_widget_get_height (GTK_WIDGET (self)), x, y, index);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  AttnscopeScatterView *self = ATTNSCOPE_SCATTER_VIEW (widget);
  int i;
  if (keyboard || !hit (self, x, y, &i))
    return FALSE;
  const ArScatterFigure *fig = scatter (self);
  int point = i % fig->n_points;
  const float *xy = i < fig->n_points ? fig->xy : fig->xy2;
  g_autofree char *px = ar_format_number (xy[2 * point], 3);
  g_autofree char *py = ar_format_number (xy[2 * point + 1], 3);
  g_autofree char *markup = NULL;
  if (fig->tooltips != NULL)
    markup = g_markup_printf_escaped ("%s\n(%s, %s)", fig->tooltips[point], px, py);
  else
    {
      int group = fig->groups != NULL ? fig->groups[point] : 0;
      const char *sentence = fig->group_names != NULL ? fig->group_names[group] : NULL;
      markup = g_markup_printf_escaped (
          "<b>%s</b>\n%s%s(%s, %s)", fig->labels != NULL ? fig->labels[point] : "",
          sentence != NULL ? sentence : "", sentence != NULL ? "\n" : "", px, py);
    }
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
on_click_released (GtkGestureClick *gesture, int n_press, double x, double y,
                   AttnscopeScatterView *self)
{
  int i;
  if (hit (self, x, y, &i))
    g_signal_emit (self, signals[POINT_ACTIVATED], 0, i);
}

static void
attnscope_scatter_view_finalize (GObject *object)
{
  g_clear_pointer (&ATTNSCOPE_SCATTER_VIEW (object)->figure, ar_built_figure_unref);
  G_OBJECT_CLASS (attnscope_scatter_view_parent_class)->finalize (object);
}

static void
attnscope_scatter_view_class_init (AttnscopeScatterViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = attnscope_scatter_view_finalize;
  widget_class->snapshot = attnscope_scatter_view_snapshot;
  widget_class->measure = attnscope_scatter_view_measure;

  /* A click on point i. */
  signals[POINT_ACTIVATED]
      = g_signal_new ("point-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                      NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);

  gtk_widget_class_set_css_name (widget_class, "scatterview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
attnscope_scatter_view_init (AttnscopeScatterView *self)
{
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip),
                                G_CALLBACK (on_click_released));
}

GtkWidget *
attnscope_scatter_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_SCATTER_VIEW, NULL);
}

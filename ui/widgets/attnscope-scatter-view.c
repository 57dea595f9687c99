/* attnscope-scatter-view.c — the scatter plot widget: owns its points, draws through
 * ar_scatter_render() and hit-tests with ar_scatter_hit() (see attnscope-scatter-view.h). */
#include "attnscope-scatter-view.h"

#include "attnscope-figure-widget.h"
#include "render-text.h"

struct _AttnscopeScatterView
{
  GtkWidget parent_instance;

  float *xy; /* [n][2] */
  int n;
  char **labels;      /* [n] */
  int *groups;        /* [n] or NULL */
  char **group_names; /* [n_groups] or NULL */
  int n_groups;
  char *title, *subtitle, *x_axis, *y_axis;
  gboolean show_labels;
  int highlight;
};

G_DEFINE_FINAL_TYPE (AttnscopeScatterView, attnscope_scatter_view, GTK_TYPE_WIDGET)

enum
{
  POINT_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
replace_string (char **field, const char *value)
{
  g_free (*field);
  *field = g_strdup (value);
}

void
attnscope_scatter_view_set_points (AttnscopeScatterView *self, const float *xy, int n,
                                   const char *const *labels, const int *groups,
                                   const char *const *group_names, int n_groups)
{
  g_return_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self));
  g_clear_pointer (&self->xy, g_free);
  g_clear_pointer (&self->labels, g_strfreev);
  g_clear_pointer (&self->groups, g_free);
  g_clear_pointer (&self->group_names, g_strfreev);
  self->n = xy != NULL ? n : 0;
  self->n_groups = MAX (n_groups, 1);
  if (self->n > 0)
    {
      self->xy = g_memdup2 (xy, sizeof (float) * 2 * (gsize) n);
      if (labels != NULL)
        self->labels = g_strdupv ((char **) labels);
      if (groups != NULL)
        self->groups = g_memdup2 (groups, sizeof (int) * (gsize) n);
      if (group_names != NULL)
        {
          self->group_names = g_new0 (char *, self->n_groups + 1);
          for (int g = 0; g < self->n_groups; g++)
            self->group_names[g] = g_strdup (group_names[g]);
        }
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

int
attnscope_scatter_view_get_n_points (AttnscopeScatterView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self), 0);
  return self->n;
}

gboolean
attnscope_scatter_view_get_point (AttnscopeScatterView *self, int i, float *x, float *y)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self), FALSE);
  if (i < 0 || i >= self->n)
    return FALSE;
  *x = self->xy[2 * i];
  *y = self->xy[2 * i + 1];
  return TRUE;
}

void
attnscope_scatter_view_set_titles (AttnscopeScatterView *self, const char *title,
                                   const char *subtitle)
{
  g_return_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self));
  replace_string (&self->title, title);
  replace_string (&self->subtitle, subtitle);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_scatter_view_set_axes (AttnscopeScatterView *self, const char *x_axis, const char *y_axis)
{
  g_return_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self));
  replace_string (&self->x_axis, x_axis);
  replace_string (&self->y_axis, y_axis);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_scatter_view_set_show_labels (AttnscopeScatterView *self, gboolean show)
{
  g_return_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self));
  if (self->show_labels == !!show)
    return;
  self->show_labels = !!show;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_scatter_view_set_highlight (AttnscopeScatterView *self, int point)
{
  g_return_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self));
  if (self->highlight == point)
    return;
  self->highlight = point;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_scatter_view_get_figure (AttnscopeScatterView *self, ArScatterFigure *fig)
{
  g_return_if_fail (ATTNSCOPE_IS_SCATTER_VIEW (self));
  ar_scatter_figure_init (fig);
  fig->title = self->title;
  fig->subtitle = self->subtitle;
  fig->n_points = self->n;
  fig->xy = self->xy;
  fig->labels = (const char *const *) self->labels;
  fig->groups = self->groups;
  fig->n_groups = self->n_groups;
  fig->group_names = (const char *const *) self->group_names;
  if (self->x_axis != NULL)
    fig->x_axis = self->x_axis;
  if (self->y_axis != NULL)
    fig->y_axis = self->y_axis;
  fig->show_labels = self->show_labels;
  fig->highlight_point = self->highlight < self->n ? self->highlight : -1;
}

static void
screen_figure (AttnscopeScatterView *self, ArScatterFigure *fig)
{
  attnscope_scatter_view_get_figure (self, fig);
  fig->style = attnscope_figure_style_get ();
}

static void
attnscope_scatter_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeScatterView *self = ATTNSCOPE_SCATTER_VIEW (widget);
  ArScatterFigure fig;
  screen_figure (self, &fig);
  ArFigure figure = ar_figure_from_scatter (&fig);
  attnscope_figure_widget_snapshot (widget, snapshot, self->n > 0 ? &figure : NULL);
}

static void
attnscope_scatter_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *minimum_baseline,
                                int *natural_baseline)
{
  AttnscopeScatterView *self = ATTNSCOPE_SCATTER_VIEW (widget);
  ArScatterFigure fig;
  screen_figure (self, &fig);
  ArFigure figure = ar_figure_from_scatter (&fig);
  attnscope_figure_widget_measure (&figure, orientation, 0, minimum, natural);
}

static gboolean
hit (AttnscopeScatterView *self, double x, double y, int *index)
{
  if (self->n == 0)
    return FALSE;
  ArScatterFigure fig;
  screen_figure (self, &fig);
  return ar_scatter_hit (&fig, gtk_widget_get_width (GTK_WIDGET (self)),
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
  int group = self->groups != NULL ? self->groups[i] : 0;
  const char *sentence = self->group_names != NULL ? self->group_names[group] : NULL;
  g_autofree char *px = ar_format_number (self->xy[2 * i], 3);
  g_autofree char *py = ar_format_number (self->xy[2 * i + 1], 3);
  g_autofree char *markup = g_markup_printf_escaped (
      "<b>%s</b>\n%s%s(%s, %s)", self->labels != NULL ? self->labels[i] : "",
      sentence != NULL ? sentence : "", sentence != NULL ? "\n" : "", px, py);
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
  AttnscopeScatterView *self = ATTNSCOPE_SCATTER_VIEW (object);
  g_free (self->xy);
  g_strfreev (self->labels);
  g_free (self->groups);
  g_strfreev (self->group_names);
  g_free (self->title);
  g_free (self->subtitle);
  g_free (self->x_axis);
  g_free (self->y_axis);
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
  self->show_labels = TRUE;
  self->highlight = -1;
  self->n_groups = 1;
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip),
                                G_CALLBACK (on_click_released));
}

GtkWidget *
attnscope_scatter_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_SCATTER_VIEW, NULL);
}

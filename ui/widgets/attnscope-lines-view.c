/* attnscope-lines-view.c — the line chart widget: draws its built figure through
 * ar_line_render() and hit-tests with ar_line_hit() (see attnscope-lines-view.h). */
#include "attnscope-lines-view.h"

#include "attnscope-figure-widget.h"
#include "render-text.h"

struct _AttnscopeLinesView
{
  GtkWidget parent_instance;

  ArBuiltFigure *figure; /* a line chart, or NULL */
};

G_DEFINE_FINAL_TYPE (AttnscopeLinesView, attnscope_lines_view, GTK_TYPE_WIDGET)

void
attnscope_lines_view_set_figure (AttnscopeLinesView *self, ArBuiltFigure *figure)
{
  g_return_if_fail (ATTNSCOPE_IS_LINES_VIEW (self));
  g_return_if_fail (figure == NULL || ar_built_figure_get (figure)->kind == AR_FIGURE_LINES);
  attnscope_figure_widget_replace (GTK_WIDGET (self), &self->figure, figure,
                                   attnscope_figure_widget_same_size);
}

ArBuiltFigure *
attnscope_lines_view_get_figure (AttnscopeLinesView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_LINES_VIEW (self), NULL);
  return self->figure;
}

static void
attnscope_lines_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeLinesView *self = ATTNSCOPE_LINES_VIEW (widget);
  if (self->figure == NULL)
    return;
  ArFigureParts parts;
  attnscope_figure_widget_restyle (self->figure, &parts);
  attnscope_figure_widget_snapshot (widget, snapshot, &parts.figure);
}

static void
attnscope_lines_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                              int *minimum, int *natural, int *minimum_baseline,
                              int *natural_baseline)
{
  AttnscopeLinesView *self = ATTNSCOPE_LINES_VIEW (widget);
  ArLineFigure empty;
  ar_line_figure_init (&empty);
  ArFigure blank = ar_figure_from_lines (&empty);
  ArFigureParts parts;
  if (self->figure != NULL)
    attnscope_figure_widget_restyle (self->figure, &parts);
  attnscope_figure_widget_measure (self->figure != NULL ? &parts.figure : &blank, orientation, 0,
                                   minimum, natural);
}

char *
attnscope_lines_view_dup_tooltip_at (AttnscopeLinesView *self, double x, double y)
{
  g_return_val_if_fail (ATTNSCOPE_IS_LINES_VIEW (self), NULL);
  if (self->figure == NULL)
    return NULL;
  ArFigureParts parts;
  attnscope_figure_widget_restyle (self->figure, &parts);
  const ArLineFigure *fig = &parts.lines;
  int series, i;
  if (!ar_line_hit (fig, gtk_widget_get_width (GTK_WIDGET (self)),
                    gtk_widget_get_height (GTK_WIDGET (self)), x, y, &series, &i))
    return NULL;
  g_autofree char *value = ar_format_number (fig->values[(gsize) series * fig->n_x + i], 6);
  g_autofree char *x_label
      = fig->x_labels != NULL ? g_strdup (fig->x_labels[i]) : g_strdup_printf ("%d", i);
  return g_markup_printf_escaped ("<b>%s</b>\n%s: %s\n%s: %s",
                                  fig->series_names != NULL ? fig->series_names[series] : "",
                                  fig->x_axis != NULL ? fig->x_axis : "x", x_label,
                                  fig->y_axis != NULL ? fig->y_axis : "y", value);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  if (keyboard)
    return FALSE;
  g_autofree char *markup
      = attnscope_lines_view_dup_tooltip_at (ATTNSCOPE_LINES_VIEW (widget), x, y);
  if (markup == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
attnscope_lines_view_finalize (GObject *object)
{
  g_clear_pointer (&ATTNSCOPE_LINES_VIEW (object)->figure, ar_built_figure_unref);
  G_OBJECT_CLASS (attnscope_lines_view_parent_class)->finalize (object);
}

static void
attnscope_lines_view_class_init (AttnscopeLinesViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = attnscope_lines_view_finalize;
  widget_class->snapshot = attnscope_lines_view_snapshot;
  widget_class->measure = attnscope_lines_view_measure;

  gtk_widget_class_set_css_name (widget_class, "linesview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
attnscope_lines_view_init (AttnscopeLinesView *self)
{
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip), NULL);
}

GtkWidget *
attnscope_lines_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_LINES_VIEW, NULL);
}

/* attnscope-compare-view.c — the comparison widget: draws its built figure through
 * ar_compare_render() and explains what is under the pointer with ar_compare_hit() (see
 * attnscope-compare-view.h). */
#include "attnscope-compare-view.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "attnscope-figure-widget.h"
#include "render-text.h"

/* Tick label widths of a panel, measured once per figure and style. */
typedef struct
{
  double row, col; /* 0 = not yet */
} LabelWidths;

struct _AttnscopeCompareView
{
  GtkWidget parent_instance;

  ArBuiltFigure *figure;            /* a comparison, or NULL */
  LabelWidths widths[3];            /* of A, B and the difference */
  const ArRenderStyle *label_style; /* the style WIDTHS were measured in */
};

G_DEFINE_FINAL_TYPE (AttnscopeCompareView, attnscope_compare_view, GTK_TYPE_WIDGET)

static const ArCompareFigure *
compare (AttnscopeCompareView *self)
{
  return self->figure != NULL ? &ar_built_figure_get_parts (self->figure)->compare : NULL;
}

/* Panel I (0 A, 1 B, 2 difference) of PARTS. */
static ArHeatmapFigure *
part (ArFigureParts *parts, int i)
{
  return i == 0 ? &parts->heatmap : i == 1 ? &parts->panel_b : &parts->panel_diff;
}

/* The figure in the screen's style, its panels' tick labels measured once per figure and style
 * (a thousand labels take milliseconds). */
static void
screen_figure (AttnscopeCompareView *self, ArFigureParts *parts)
{
  attnscope_figure_widget_restyle (self->figure, parts);
  gboolean fresh = self->label_style != parts->heatmap.style;
  self->label_style = parts->heatmap.style;
  for (int i = 0; i < 3; i++)
    {
      ArHeatmapFigure *p = part (parts, i);
      if (i == 2 && parts->compare.diff == NULL)
        continue;
      if (fresh || self->widths[i].row <= 0)
        {
          ar_heatmap_figure_measure_labels (p);
          self->widths[i] = (LabelWidths){ p->row_label_width, p->col_label_width };
        }
      p->row_label_width = self->widths[i].row;
      p->col_label_width = self->widths[i].col;
    }
}

static gboolean
same_chart_size (const ArLineFigure *a, const ArLineFigure *b)
{
  double aw, ah, bw, bh;
  ar_line_get_size (a, &aw, &ah);
  ar_line_get_size (b, &bw, &bh);
  return aw == bw && ah == bh;
}

/* Laid out alike: the same panels with the same labels (their cached widths apply to both). */
static gboolean
same_layout (GtkWidget *widget, const ArFigureParts *old, const ArFigureParts *new)
{
  AttnscopeCompareView *self = ATTNSCOPE_COMPARE_VIEW (widget);
  for (int i = 0; i < 3; i++)
    {
      if (i == 2 && old->compare.diff == NULL)
        break;
      ArHeatmapFigure a = *part ((ArFigureParts *) old, i), b = *part ((ArFigureParts *) new, i);
      a.row_label_width = b.row_label_width = self->widths[i].row;
      a.col_label_width = b.col_label_width = self->widths[i].col;
      if (self->widths[i].row <= 0 || !ar_heatmap_same_layout (&a, &b))
        return FALSE;
    }
  return g_strcmp0 (old->compare.title, new->compare.title) == 0
         && g_strcmp0 (old->compare.subtitle, new->compare.subtitle) == 0
         && g_strcmp0 (old->compare.note, new->compare.note) == 0
         && (old->compare.chart == NULL) == (new->compare.chart == NULL)
         && (old->compare.chart == NULL
             || same_chart_size (old->compare.chart, new->compare.chart));
}

static gboolean
same_labels (const ArHeatmapFigure *a, const ArHeatmapFigure *b)
{
  if (a->n_rows != b->n_rows)
    return FALSE;
  for (int i = 0; i < a->n_rows; i++)
    if (g_strcmp0 (a->row_labels[i], b->row_labels[i]) != 0)
      return FALSE;
  return TRUE;
}

void
attnscope_compare_view_set_figure (AttnscopeCompareView *self, ArBuiltFigure *figure)
{
  g_return_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self));
  g_return_if_fail (figure == NULL || ar_built_figure_get (figure)->kind == AR_FIGURE_COMPARE);
  const ArCompareFigure *old = compare (self);
  const ArCompareFigure *new = figure != NULL ? &ar_built_figure_get_parts (figure)->compare : NULL;
  gboolean same = old != NULL && new != NULL &&same_labels (old->a, new->a)
                  && same_labels (old->b, new->b) && (old->diff == NULL) == (new->diff == NULL);
  if (!same)
    memset (self->widths, 0, sizeof self->widths);
  attnscope_figure_widget_replace (GTK_WIDGET (self), &self->figure, figure,
                                   same ? same_layout : NULL);
}

ArBuiltFigure *
attnscope_compare_view_get_figure (AttnscopeCompareView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self), NULL);
  return self->figure;
}

gboolean
attnscope_compare_view_has_panels (AttnscopeCompareView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self), FALSE);
  return self->figure != NULL;
}

gboolean
attnscope_compare_view_has_difference (AttnscopeCompareView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self), FALSE);
  return compare (self) != NULL && compare (self)->diff != NULL;
}

/* Panel I (0 A, 1 B, 2 difference) of FIG, or NULL. */
static const ArHeatmapFigure *
panel (const ArCompareFigure *fig, int i)
{
  return i == 0 ? fig->a : i == 1 ? fig->b : i == 2 ? fig->diff : NULL;
}

float
attnscope_compare_view_get_value (AttnscopeCompareView *self, int i, int row, int col)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self), NAN);
  const ArHeatmapFigure *p = compare (self) != NULL ? panel (compare (self), i) : NULL;
  if (p == NULL || row < 0 || col < 0 || row >= p->n_rows || col >= p->n_cols)
    return NAN;
  return p->values[(gsize) row * p->n_cols + col];
}

static void
attnscope_compare_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeCompareView *self = ATTNSCOPE_COMPARE_VIEW (widget);
  if (self->figure == NULL)
    return;
  ArFigureParts parts;
  screen_figure (self, &parts);
  attnscope_figure_widget_snapshot (widget, snapshot, &parts.figure);
}

static void
attnscope_compare_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *minimum_baseline,
                                int *natural_baseline)
{
  AttnscopeCompareView *self = ATTNSCOPE_COMPARE_VIEW (widget);
  ArFigureParts parts;
  if (self->figure != NULL)
    screen_figure (self, &parts);
  /* Three panels and a chart stay readable: below 3/4 of its natural height the page scrolls
   * (its width always fits the window). */
  attnscope_figure_widget_measure (self->figure != NULL ? &parts.figure : NULL, orientation,
                                   orientation == GTK_ORIENTATION_VERTICAL ? 0.75 : 0, minimum,
                                   natural);
}

static char *
cell_tooltip (const ArHeatmapFigure *p, const ArHeatmapFigure *labelled, int row, int col)
{
  if (row >= p->n_rows || col >= p->n_cols)
    return NULL;
  g_autofree char *value = ar_format_number (p->values[(gsize) row * p->n_cols + col], 6);
  const char *q = labelled->row_labels != NULL ? labelled->row_labels[row] : "";
  const char *k = labelled->col_labels != NULL ? labelled->col_labels[col] : "";
  return g_markup_printf_escaped ("%s\n%s: <b>%s</b> (%d)\n%s: <b>%s</b> (%d)\n%s", p->title,
                                  p->row_axis, q, row, p->col_axis, k, col, value);
}

static char *
chart_tooltip (const ArLineFigure *chart, int series, int x)
{
  if (series >= chart->n_series || x >= chart->n_x)
    return NULL;
  g_autofree char *value = ar_format_number (chart->values[(gsize) series * chart->n_x + x], 4);
  return g_markup_printf_escaped (_ ("<b>%s</b>\nhidden state %d: %s"),
                                  chart->series_names != NULL ? chart->series_names[series] : "", x,
                                  value);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  AttnscopeCompareView *self = ATTNSCOPE_COMPARE_VIEW (widget);
  if (keyboard || self->figure == NULL)
    return FALSE;
  ArFigureParts parts;
  screen_figure (self, &parts);
  ArComparePanel where;
  int row, col;
  if (!ar_compare_hit (&parts.compare, gtk_widget_get_width (widget),
                       gtk_widget_get_height (widget), x, y, &where, &row, &col))
    return FALSE;
  const ArCompareFigure *fig = compare (self);
  g_autofree char *markup = where == AR_COMPARE_PANEL_CHART ? chart_tooltip (fig->chart, row, col)
                            : where == AR_COMPARE_PANEL_A ? cell_tooltip (fig->a, fig->a, row, col)
                            : where == AR_COMPARE_PANEL_B
                                ? cell_tooltip (fig->b, fig->b, row, col)
                                : cell_tooltip (fig->diff, fig->a, row, col);
  if (markup == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
attnscope_compare_view_finalize (GObject *object)
{
  g_clear_pointer (&ATTNSCOPE_COMPARE_VIEW (object)->figure, ar_built_figure_unref);
  G_OBJECT_CLASS (attnscope_compare_view_parent_class)->finalize (object);
}

static void
attnscope_compare_view_class_init (AttnscopeCompareViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = attnscope_compare_view_finalize;
  widget_class->snapshot = attnscope_compare_view_snapshot;
  widget_class->measure = attnscope_compare_view_measure;

  gtk_widget_class_set_css_name (widget_class, "compareview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
attnscope_compare_view_init (AttnscopeCompareView *self)
{
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip), NULL);
}

GtkWidget *
attnscope_compare_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_COMPARE_VIEW, NULL);
}

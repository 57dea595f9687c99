/* attnscope-heatmap-view.c — the heatmap widget: draws its built figure through
 * ar_heatmap_render() in snapshot, hit-tests with ar_heatmap_hit() for tooltips and clicks (see
 * attnscope-heatmap-view.h). Its properties (size, title, highlighted row and column) read the
 * figure. */
#include "attnscope-heatmap-view.h"

#include <glib/gi18n.h>
#include <math.h>

#include "attnscope-figure-widget.h"
#include "render-text.h"

struct _AttnscopeHeatmapView
{
  GtkWidget parent_instance;

  ArBuiltFigure *figure; /* a heatmap, or NULL */

  /* the tick labels' widths measured for LABEL_STYLE (0 = not yet) */
  double row_label_width, col_label_width;
  const ArRenderStyle *label_style;
};

G_DEFINE_FINAL_TYPE (AttnscopeHeatmapView, attnscope_heatmap_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_N_ROWS,
  PROP_N_COLS,
  PROP_TITLE,
  PROP_HIGHLIGHT_ROW,
  PROP_HIGHLIGHT_COL,
  N_PROPS
};

enum
{
  CELL_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The figure's heatmap, or NULL. */
static const ArHeatmapFigure *
heatmap (AttnscopeHeatmapView *self)
{
  return self->figure != NULL ? &ar_built_figure_get_parts (self->figure)->heatmap : NULL;
}

static gboolean
same_labels (const char *const *a, const char *const *b, int n)
{
  if (a == NULL || b == NULL)
    return a == b;
  for (int i = 0; i < n; i++)
    if (g_strcmp0 (a[i], b[i]) != 0)
      return FALSE;
  return TRUE;
}

/* Laid out alike: the cached label widths apply to both (their labels are the same). */
static gboolean
same_layout (GtkWidget *widget, const ArFigureParts *old, const ArFigureParts *new)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (widget);
  ArHeatmapFigure a = old->heatmap, b = new->heatmap;
  a.row_label_width = b.row_label_width = self->row_label_width;
  a.col_label_width = b.col_label_width = self->col_label_width;
  return self->row_label_width > 0 && ar_heatmap_same_layout (&a, &b);
}

void
attnscope_heatmap_view_set_figure (AttnscopeHeatmapView *self, ArBuiltFigure *figure)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  g_return_if_fail (figure == NULL || ar_built_figure_get (figure)->kind == AR_FIGURE_HEATMAP);
  if (self->figure == figure)
    return;
  const ArHeatmapFigure *old = heatmap (self); /* valid until the figure is replaced */
  const ArHeatmapFigure *new = figure != NULL ? &ar_built_figure_get_parts (figure)->heatmap : NULL;
  /* Measuring a thousand tick labels takes milliseconds: keep the widths while the labels stay. */
  gboolean same
      = old != NULL && new != NULL && old->n_rows == new->n_rows
        && old->n_cols == new->n_cols &&same_labels (old->row_labels, new->row_labels, new->n_rows)
        && same_labels (old->col_labels, new->col_labels, new->n_cols);
  if (!same)
    self->row_label_width = self->col_label_width = 0;
  int rows = old != NULL ? old->n_rows : 0, cols = old != NULL ? old->n_cols : 0;
  attnscope_figure_widget_replace (GTK_WIDGET (self), &self->figure, figure,
                                   same ? same_layout : NULL);
  g_object_freeze_notify (G_OBJECT (self));
  if (rows != attnscope_heatmap_view_get_n_rows (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ROWS]);
  if (cols != attnscope_heatmap_view_get_n_cols (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_COLS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIGHLIGHT_ROW]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIGHLIGHT_COL]);
  g_object_thaw_notify (G_OBJECT (self));
}

ArBuiltFigure *
attnscope_heatmap_view_get_figure (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), NULL);
  return self->figure;
}

int
attnscope_heatmap_view_get_n_rows (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), 0);
  return heatmap (self) != NULL ? heatmap (self)->n_rows : 0;
}

int
attnscope_heatmap_view_get_n_cols (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), 0);
  return heatmap (self) != NULL ? heatmap (self)->n_cols : 0;
}

float
attnscope_heatmap_view_get_value (AttnscopeHeatmapView *self, int row, int col)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), NAN);
  const ArHeatmapFigure *fig = heatmap (self);
  if (fig == NULL || row < 0 || row >= fig->n_rows || col < 0 || col >= fig->n_cols)
    return NAN;
  return fig->values[(gsize) row * fig->n_cols + col];
}

/* The figure in the screen's style, its tick labels measured once per figure and style. */
static void
screen_figure (AttnscopeHeatmapView *self, ArFigureParts *parts)
{
  attnscope_figure_widget_restyle (self->figure, parts);
  ArHeatmapFigure *fig = &parts->heatmap;
  if (self->label_style != fig->style || self->row_label_width <= 0)
    {
      ar_heatmap_figure_measure_labels (fig);
      self->row_label_width = fig->row_label_width;
      self->col_label_width = fig->col_label_width;
      self->label_style = fig->style;
    }
  fig->row_label_width = self->row_label_width;
  fig->col_label_width = self->col_label_width;
}

static void
attnscope_heatmap_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (widget);
  if (self->figure == NULL)
    return;
  ArFigureParts parts;
  screen_figure (self, &parts);
  attnscope_figure_widget_snapshot (widget, snapshot, &parts.figure);
}

static void
attnscope_heatmap_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *minimum_baseline,
                                int *natural_baseline)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (widget);
  ArFigureParts parts;
  if (self->figure != NULL)
    screen_figure (self, &parts);
  attnscope_figure_widget_measure (self->figure != NULL ? &parts.figure : NULL, orientation, 0,
                                   minimum, natural);
}

static gboolean
hit (AttnscopeHeatmapView *self, double x, double y, int *row, int *col)
{
  if (self->figure == NULL)
    return FALSE;
  ArFigureParts parts;
  screen_figure (self, &parts);
  return ar_heatmap_hit (&parts.heatmap, gtk_widget_get_width (GTK_WIDGET (self)),
                         gtk_widget_get_height (GTK_WIDGET (self)), x, y, row, col);
}

static char *
axis_label (const char *const *labels, int i)
{
  return labels != NULL ? g_strdup (labels[i]) : g_strdup_printf ("%d", i);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (widget);
  int row, col;
  if (keyboard || !hit (self, x, y, &row, &col))
    return FALSE;
  const ArHeatmapFigure *fig = heatmap (self);
  g_autofree char *row_label = axis_label (fig->row_labels, row);
  g_autofree char *col_label = axis_label (fig->col_labels, col);
  g_autofree char *value = ar_format_number (fig->values[(gsize) row * fig->n_cols + col], 6);
  g_autofree char *markup = g_markup_printf_escaped (
      "%s: <b>%s</b> (%d)\n%s: <b>%s</b> (%d)\n%s", fig->row_axis ? fig->row_axis : _ ("Row"),
      row_label, row, fig->col_axis ? fig->col_axis : _ ("Column"), col_label, col, value);
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
on_click_released (GtkGestureClick *gesture, int n_press, double x, double y,
                   AttnscopeHeatmapView *self)
{
  int row, col;
  if (hit (self, x, y, &row, &col))
    g_signal_emit (self, signals[CELL_ACTIVATED], 0, row, col);
}

static void
attnscope_heatmap_view_finalize (GObject *object)
{
  g_clear_pointer (&ATTNSCOPE_HEATMAP_VIEW (object)->figure, ar_built_figure_unref);
  G_OBJECT_CLASS (attnscope_heatmap_view_parent_class)->finalize (object);
}

static void
attnscope_heatmap_view_get_property (GObject *object, guint prop_id, GValue *value,
                                     GParamSpec *pspec)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (object);
  const ArHeatmapFigure *fig = heatmap (self);
  switch (prop_id)
    {
    case PROP_N_ROWS:
      g_value_set_int (value, attnscope_heatmap_view_get_n_rows (self));
      break;
    case PROP_N_COLS:
      g_value_set_int (value, attnscope_heatmap_view_get_n_cols (self));
      break;
    case PROP_TITLE:
      g_value_set_string (value, fig != NULL ? fig->title : NULL);
      break;
    case PROP_HIGHLIGHT_ROW:
      g_value_set_int (value, fig != NULL ? fig->highlight_row : -1);
      break;
    case PROP_HIGHLIGHT_COL:
      g_value_set_int (value, fig != NULL ? fig->highlight_col : -1);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_heatmap_view_class_init (AttnscopeHeatmapViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = attnscope_heatmap_view_finalize;
  object_class->get_property = attnscope_heatmap_view_get_property;
  widget_class->snapshot = attnscope_heatmap_view_snapshot;
  widget_class->measure = attnscope_heatmap_view_measure;

  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  properties[PROP_N_ROWS] = g_param_spec_int ("n-rows", NULL, NULL, 0, G_MAXINT, 0, ro);
  properties[PROP_N_COLS] = g_param_spec_int ("n-cols", NULL, NULL, 0, G_MAXINT, 0, ro);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, ro);
  properties[PROP_HIGHLIGHT_ROW]
      = g_param_spec_int ("highlight-row", NULL, NULL, -1, G_MAXINT, -1, ro);
  properties[PROP_HIGHLIGHT_COL]
      = g_param_spec_int ("highlight-col", NULL, NULL, -1, G_MAXINT, -1, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A click on cell (row, col). */
  signals[CELL_ACTIVATED]
      = g_signal_new ("cell-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);

  gtk_widget_class_set_css_name (widget_class, "heatmapview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
attnscope_heatmap_view_init (AttnscopeHeatmapView *self)
{
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip),
                                G_CALLBACK (on_click_released));
}

GtkWidget *
attnscope_heatmap_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_HEATMAP_VIEW, NULL);
}

/* attnscope-heatmap-view.c — the heatmap widget: owns the matrix, draws it through
 * ar_heatmap_render() in snapshot, hit-tests with ar_heatmap_hit() for tooltips and clicks (see
 * attnscope-heatmap-view.h). */
#include "attnscope-heatmap-view.h"

#include <glib/gi18n.h>
#include <math.h>

#include "attnscope-figure-widget.h"
#include "render-text.h"

struct _AttnscopeHeatmapView
{
  GtkWidget parent_instance;

  float *values; /* [n_rows][n_cols] */
  int n_rows, n_cols;
  char **row_labels; /* [n_rows] or NULL */
  char **col_labels; /* [n_cols] or NULL */

  char *title, *subtitle;
  char *row_axis, *col_axis, *colorbar_label;
  ArColormap colormap;
  double vmin, vmax;
  gboolean annotate;
  int decimals;
  gboolean mask_upper;
  int highlight_row, highlight_col;

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
  PROP_SUBTITLE,
  PROP_COLORMAP,
  PROP_ANNOTATE,
  PROP_MASK_UPPER,
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

static void
set_string (AttnscopeHeatmapView *self, char **field, const char *value, int prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  if (prop != PROP_0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

static char **
copy_labels (const char *const *labels, int n)
{
  if (labels == NULL)
    return NULL;
  char **copy = g_new0 (char *, n + 1);
  for (int i = 0; i < n; i++)
    copy[i] = g_strdup (labels[i]);
  return copy;
}

void
attnscope_heatmap_view_set_matrix (AttnscopeHeatmapView *self, const float *values, int rows,
                                   int cols, const char *const *row_labels,
                                   const char *const *col_labels)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  if (values == NULL)
    rows = cols = 0;
  int old_rows = self->n_rows, old_cols = self->n_cols;
  g_clear_pointer (&self->values, g_free);
  g_clear_pointer (&self->row_labels, g_strfreev);
  g_clear_pointer (&self->col_labels, g_strfreev);
  if (values != NULL && rows > 0 && cols > 0)
    self->values = g_memdup2 (values, sizeof (float) * (gsize) rows * cols);
  self->n_rows = rows;
  self->n_cols = cols;
  self->row_labels = copy_labels (row_labels, rows);
  self->col_labels = copy_labels (col_labels, cols);
  self->row_label_width = self->col_label_width = 0;
  if (old_rows != rows)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ROWS]);
  if (old_cols != cols)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_COLS]);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

int
attnscope_heatmap_view_get_n_rows (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), 0);
  return self->n_rows;
}

int
attnscope_heatmap_view_get_n_cols (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), 0);
  return self->n_cols;
}

float
attnscope_heatmap_view_get_value (AttnscopeHeatmapView *self, int row, int col)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), NAN);
  if (row < 0 || row >= self->n_rows || col < 0 || col >= self->n_cols)
    return NAN;
  return self->values[(gsize) row * self->n_cols + col];
}

void
attnscope_heatmap_view_set_titles (AttnscopeHeatmapView *self, const char *title,
                                   const char *subtitle)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  set_string (self, &self->title, title, PROP_TITLE);
  set_string (self, &self->subtitle, subtitle, PROP_SUBTITLE);
}

void
attnscope_heatmap_view_set_axes (AttnscopeHeatmapView *self, const char *row_axis,
                                 const char *col_axis, const char *colorbar_label)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  set_string (self, &self->row_axis, row_axis, PROP_0);
  set_string (self, &self->col_axis, col_axis, PROP_0);
  set_string (self, &self->colorbar_label, colorbar_label, PROP_0);
}

void
attnscope_heatmap_view_set_colormap (AttnscopeHeatmapView *self, const char *colormap)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  ArColormap map;
  if (colormap == NULL || !ar_colormap_from_string (colormap, &map, NULL))
    {
      g_warning ("unknown colour map '%s'", colormap);
      return;
    }
  if (self->colormap == map)
    return;
  self->colormap = map;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLORMAP]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
attnscope_heatmap_view_get_colormap (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), NULL);
  return ar_colormap_to_string (self->colormap);
}

void
attnscope_heatmap_view_set_range (AttnscopeHeatmapView *self, double vmin, double vmax)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  if (self->vmin == vmin && self->vmax == vmax)
    return;
  self->vmin = vmin;
  self->vmax = vmax;
  /* The colour bar's tick labels may change width. */
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
attnscope_heatmap_view_set_annotate (AttnscopeHeatmapView *self, gboolean annotate)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  annotate = !!annotate;
  if (self->annotate == annotate)
    return;
  self->annotate = annotate;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANNOTATE]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_heatmap_view_set_decimals (AttnscopeHeatmapView *self, int decimals)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  decimals = CLAMP (decimals, 0, 6);
  if (self->decimals == decimals)
    return;
  self->decimals = decimals;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_heatmap_view_set_mask_upper (AttnscopeHeatmapView *self, gboolean mask_upper)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  mask_upper = !!mask_upper;
  if (self->mask_upper == mask_upper)
    return;
  self->mask_upper = mask_upper;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MASK_UPPER]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_heatmap_view_set_highlight (AttnscopeHeatmapView *self, int row, int col)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  row = MAX (row, -1);
  col = MAX (col, -1);
  if (self->highlight_row != row)
    {
      self->highlight_row = row;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIGHLIGHT_ROW]);
    }
  if (self->highlight_col != col)
    {
      self->highlight_col = col;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIGHLIGHT_COL]);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_heatmap_view_get_figure (AttnscopeHeatmapView *self, ArHeatmapFigure *fig)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  ar_heatmap_figure_init (fig);
  fig->title = self->title;
  fig->subtitle = self->subtitle;
  fig->n_rows = self->n_rows;
  fig->n_cols = self->n_cols;
  fig->values = self->values;
  fig->row_labels = (const char *const *) self->row_labels;
  fig->col_labels = (const char *const *) self->col_labels;
  fig->row_axis = self->row_axis;
  fig->col_axis = self->col_axis;
  fig->colormap = self->colormap;
  fig->vmin = self->vmin;
  fig->vmax = self->vmax;
  fig->annotate = self->annotate ? AR_ANNOTATE_AUTO : AR_ANNOTATE_NEVER;
  fig->decimals = self->decimals;
  fig->mask_upper = self->mask_upper;
  fig->highlight_row = self->highlight_row < self->n_rows ? self->highlight_row : -1;
  fig->highlight_col = self->highlight_col < self->n_cols ? self->highlight_col : -1;
  fig->colorbar_label = self->colorbar_label;
}

static void
screen_figure (AttnscopeHeatmapView *self, ArHeatmapFigure *fig)
{
  attnscope_heatmap_view_get_figure (self, fig);
  fig->style = attnscope_figure_style_get ();
  /* measure the tick labels once per matrix and style, not on every frame and hover */
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
  ArHeatmapFigure fig;
  screen_figure (self, &fig);
  ArFigure figure = ar_figure_from_heatmap (&fig);
  attnscope_figure_widget_snapshot (widget, snapshot, self->values != NULL ? &figure : NULL);
}

static void
attnscope_heatmap_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *minimum_baseline,
                                int *natural_baseline)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (widget);
  ArHeatmapFigure fig;
  screen_figure (self, &fig);
  ArFigure figure = ar_figure_from_heatmap (&fig);
  attnscope_figure_widget_measure (self->values != NULL ? &figure : NULL, orientation, 0, minimum,
                                   natural);
}

static gboolean
hit (AttnscopeHeatmapView *self, double x, double y, int *row, int *col)
{
  if (self->values == NULL)
    return FALSE;
  ArHeatmapFigure fig;
  screen_figure (self, &fig);
  return ar_heatmap_hit (&fig, gtk_widget_get_width (GTK_WIDGET (self)),
                         gtk_widget_get_height (GTK_WIDGET (self)), x, y, row, col);
}

static char *
axis_label (char **labels, int i)
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
  g_autofree char *row_label = axis_label (self->row_labels, row);
  g_autofree char *col_label = axis_label (self->col_labels, col);
  g_autofree char *value = ar_format_number (self->values[(gsize) row * self->n_cols + col], 6);
  g_autofree char *markup = g_markup_printf_escaped (
      "%s: <b>%s</b> (%d)\n%s: <b>%s</b> (%d)\n%s", self->row_axis ? self->row_axis : _ ("Row"),
      row_label, row, self->col_axis ? self->col_axis : _ ("Column"), col_label, col, value);
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
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (object);
  g_free (self->values);
  g_strfreev (self->row_labels);
  g_strfreev (self->col_labels);
  g_free (self->title);
  g_free (self->subtitle);
  g_free (self->row_axis);
  g_free (self->col_axis);
  g_free (self->colorbar_label);
  G_OBJECT_CLASS (attnscope_heatmap_view_parent_class)->finalize (object);
}

static void
attnscope_heatmap_view_get_property (GObject *object, guint prop_id, GValue *value,
                                     GParamSpec *pspec)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (object);
  switch (prop_id)
    {
    case PROP_N_ROWS:
      g_value_set_int (value, self->n_rows);
      break;
    case PROP_N_COLS:
      g_value_set_int (value, self->n_cols);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_SUBTITLE:
      g_value_set_string (value, self->subtitle);
      break;
    case PROP_COLORMAP:
      g_value_set_string (value, ar_colormap_to_string (self->colormap));
      break;
    case PROP_ANNOTATE:
      g_value_set_boolean (value, self->annotate);
      break;
    case PROP_MASK_UPPER:
      g_value_set_boolean (value, self->mask_upper);
      break;
    case PROP_HIGHLIGHT_ROW:
      g_value_set_int (value, self->highlight_row);
      break;
    case PROP_HIGHLIGHT_COL:
      g_value_set_int (value, self->highlight_col);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_heatmap_view_set_property (GObject *object, guint prop_id, const GValue *value,
                                     GParamSpec *pspec)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (object);
  switch (prop_id)
    {
    case PROP_TITLE:
      set_string (self, &self->title, g_value_get_string (value), PROP_TITLE);
      break;
    case PROP_SUBTITLE:
      set_string (self, &self->subtitle, g_value_get_string (value), PROP_SUBTITLE);
      break;
    case PROP_COLORMAP:
      attnscope_heatmap_view_set_colormap (self, g_value_get_string (value));
      break;
    case PROP_ANNOTATE:
      attnscope_heatmap_view_set_annotate (self, g_value_get_boolean (value));
      break;
    case PROP_MASK_UPPER:
      attnscope_heatmap_view_set_mask_upper (self, g_value_get_boolean (value));
      break;
    case PROP_HIGHLIGHT_ROW:
      attnscope_heatmap_view_set_highlight (self, g_value_get_int (value), self->highlight_col);
      break;
    case PROP_HIGHLIGHT_COL:
      attnscope_heatmap_view_set_highlight (self, self->highlight_row, g_value_get_int (value));
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
  object_class->set_property = attnscope_heatmap_view_set_property;
  widget_class->snapshot = attnscope_heatmap_view_snapshot;
  widget_class->measure = attnscope_heatmap_view_measure;

  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  properties[PROP_N_ROWS] = g_param_spec_int ("n-rows", NULL, NULL, 0, G_MAXINT, 0, ro);
  properties[PROP_N_COLS] = g_param_spec_int ("n-cols", NULL, NULL, 0, G_MAXINT, 0, ro);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, rw);
  properties[PROP_SUBTITLE] = g_param_spec_string ("subtitle", NULL, NULL, NULL, rw);
  properties[PROP_COLORMAP] = g_param_spec_string ("colormap", NULL, NULL, "ylgnbu", rw);
  properties[PROP_ANNOTATE] = g_param_spec_boolean ("annotate", NULL, NULL, TRUE, rw);
  properties[PROP_MASK_UPPER] = g_param_spec_boolean ("mask-upper", NULL, NULL, FALSE, rw);
  properties[PROP_HIGHLIGHT_ROW]
      = g_param_spec_int ("highlight-row", NULL, NULL, -1, G_MAXINT, -1, rw);
  properties[PROP_HIGHLIGHT_COL]
      = g_param_spec_int ("highlight-col", NULL, NULL, -1, G_MAXINT, -1, rw);
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
  self->colormap = AR_COLORMAP_YLGNBU;
  self->vmin = 0;
  self->vmax = 1;
  self->annotate = TRUE;
  self->decimals = 2;
  self->highlight_row = -1;
  self->highlight_col = -1;
  self->row_axis = g_strdup (_ ("Queries"));
  self->col_axis = g_strdup (_ ("Keys"));
  self->colorbar_label = g_strdup (_ ("Attention weight"));

  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip),
                                G_CALLBACK (on_click_released));
}

GtkWidget *
attnscope_heatmap_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_HEATMAP_VIEW, NULL);
}

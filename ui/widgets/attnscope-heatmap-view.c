/* attnscope-heatmap-view.c — the heatmap widget: its built figure, the view of a zoomed matrix
 * (zoom steps, panning, keeping the cursor or the selected token in view) and the keyboard cursor
 * (see attnscope-heatmap-view.h). Drawing is in attnscope-heatmap-view-draw.c, tooltips and input
 * in attnscope-heatmap-view-input.c. */
#include "attnscope-heatmap-view-private.h"

#include <math.h>
#include <string.h>

#include "attnscope-figure-widget.h"

/* Fewer than MIN_ZOOM rows are never shown. */
#define MIN_ZOOM 4

G_DEFINE_FINAL_TYPE (AttnscopeHeatmapView, attnscope_heatmap_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_N_ROWS,
  PROP_N_COLS,
  PROP_TITLE,
  PROP_HIGHLIGHT_ROW,
  PROP_HIGHLIGHT_COL,
  PROP_ZOOM,
  PROP_CURSOR_ROW,
  PROP_CURSOR_COL,
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
const ArHeatmapFigure *
attnscope_heatmap_view_heatmap (AttnscopeHeatmapView *self)
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

/* ---- the view ---- */

int
attnscope_heatmap_view_n_rows (AttnscopeHeatmapView *self)
{
  return attnscope_heatmap_view_heatmap (self) != NULL
             ? attnscope_heatmap_view_heatmap (self)->n_rows
             : 0;
}

int
attnscope_heatmap_view_n_cols (AttnscopeHeatmapView *self)
{
  return attnscope_heatmap_view_heatmap (self) != NULL
             ? attnscope_heatmap_view_heatmap (self)->n_cols
             : 0;
}

/* The rows in view ZOOM asks for, as the view can show them: 0 ("all") for 0 or anything as
 * large as the matrix, else at least MIN_ZOOM rows (or all of a smaller matrix's). */
static int
clamp_zoom (AttnscopeHeatmapView *self, int zoom)
{
  int rows = attnscope_heatmap_view_n_rows (self), cols = attnscope_heatmap_view_n_cols (self);
  if (zoom <= 0 || zoom >= MAX (rows, cols) || rows == 0)
    return 0;
  return MAX (zoom, MIN (MIN_ZOOM, MIN (rows, cols)));
}

/* Clamps the view to the matrix and redraws; notifies a new zoom. */
void
attnscope_heatmap_view_apply_view (AttnscopeHeatmapView *self, int row0, int col0, int zoom)
{
  int rows = attnscope_heatmap_view_n_rows (self), cols = attnscope_heatmap_view_n_cols (self);
  int old = self->zoom;
  zoom = clamp_zoom (self, zoom);
  self->zoom = zoom;
  self->row0 = zoom > 0 ? CLAMP (row0, 0, MAX (rows - MIN (zoom, rows), 0)) : 0;
  self->col0 = zoom > 0 ? CLAMP (col0, 0, MAX (cols - MIN (zoom, cols), 0)) : 0;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (old != zoom)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

void
attnscope_heatmap_view_set_cell_describe (AttnscopeHeatmapView *self,
                                          AttnscopeCellDescribeFunc describe, gpointer data)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  self->describe = describe;
  self->describe_data = data;
}

void
attnscope_heatmap_view_set_view (AttnscopeHeatmapView *self, int row0, int col0, int n)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  attnscope_heatmap_view_apply_view (self, row0, col0, n);
}

void
attnscope_heatmap_view_get_view (AttnscopeHeatmapView *self, int *row0, int *col0, int *n)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  *row0 = self->row0, *col0 = self->col0, *n = self->zoom;
}

int
attnscope_heatmap_view_get_zoom (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), 0);
  return self->zoom;
}

/* The rows in view: the zoom, or all of them. */
static int
rows_in_view (AttnscopeHeatmapView *self)
{
  return self->zoom > 0
             ? self->zoom
             : MAX (attnscope_heatmap_view_n_rows (self), attnscope_heatmap_view_n_cols (self));
}

/* Scrolls the view (not zooming) so that cell (ROW, COL) is in it. */
static void
scroll_to_cell (AttnscopeHeatmapView *self, int row, int col)
{
  if (self->zoom <= 0 || row < 0)
    return;
  int r0 = self->row0, c0 = self->col0, n = self->zoom;
  r0 = row < r0 ? row : row >= r0 + n ? row - n + 1 : r0;
  c0 = col < c0 ? col : col >= c0 + n ? col - n + 1 : c0;
  attnscope_heatmap_view_apply_view (self, r0, c0, n);
}

/* Zooms by FACTOR (the rows in view times FACTOR, at least one row less or more) keeping cell
 * (ROW, COL) where it is on screen. */
void
attnscope_heatmap_view_zoom_around (AttnscopeHeatmapView *self, double factor, int row, int col)
{
  int size = MAX (attnscope_heatmap_view_n_rows (self), attnscope_heatmap_view_n_cols (self));
  if (size == 0)
    return;
  int n = rows_in_view (self);
  int next = (int) lround (n * factor);
  if (next == n)
    next = factor < 1 ? n - 1 : n + 1;
  next = clamp_zoom (self, next);
  if (next == self->zoom)
    return; /* at the smallest view, or all already */
  /* The cell's offset in the view scales with the view: it stays under the same pixels. */
  double k = (double) (next > 0 ? next : size) / n;
  attnscope_heatmap_view_apply_view (self, row - (int) lround ((row - self->row0) * k),
                                     col - (int) lround ((col - self->col0) * k), next);
}

void
attnscope_heatmap_view_zoom (AttnscopeHeatmapView *self, double factor)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  int n = rows_in_view (self);
  int r = self->cursor_row, c = self->cursor_col;
  if (r < 0 && attnscope_heatmap_view_heatmap (self) != NULL
      && attnscope_heatmap_view_heatmap (self)->highlight_row >= 0)
    r = c = MIN (attnscope_heatmap_view_heatmap (self)->highlight_row,
                 MIN (attnscope_heatmap_view_n_rows (self), attnscope_heatmap_view_n_cols (self))
                     - 1);
  if (r < 0)
    {
      attnscope_heatmap_view_zoom_around (self, factor, self->row0 + n / 2, self->col0 + n / 2);
      return;
    }
  /* Around the cursor (or the selected token): it stays where it is, in view. */
  scroll_to_cell (self, r, c);
  attnscope_heatmap_view_zoom_around (self, factor, r, c);
  scroll_to_cell (self, r, c);
}

/* ---- the figure ---- */

void
attnscope_heatmap_view_set_figure (AttnscopeHeatmapView *self, ArBuiltFigure *figure)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  g_return_if_fail (figure == NULL || ar_built_figure_get (figure)->kind == AR_FIGURE_HEATMAP);
  if (self->figure == figure)
    return;
  const ArHeatmapFigure *old
      = attnscope_heatmap_view_heatmap (self); /* valid until the figure is replaced */
  const ArHeatmapFigure *new = figure != NULL ? &ar_built_figure_get_parts (figure)->heatmap : NULL;
  /* Measuring a thousand tick labels takes milliseconds: keep the widths while the labels stay. */
  gboolean same_size
      = old != NULL && new != NULL && old->n_rows == new->n_rows && old->n_cols == new->n_cols;
  gboolean same = same_size && same_labels (old->row_labels, new->row_labels, new->n_rows)
                  && same_labels (old->col_labels, new->col_labels, new->n_cols)
                  && old->label_mode == new->label_mode;
  if (!same)
    self->row_label_width = self->col_label_width = 0;
  int rows = old != NULL ? old->n_rows : 0, cols = old != NULL ? old->n_cols : 0;
  /* The drawings of the old figure go with it (a new figure may come at its address). */
  g_clear_pointer (&self->node, gsk_render_node_unref);
  g_clear_pointer (&self->minimap, cairo_surface_destroy);
  attnscope_figure_widget_replace (GTK_WIDGET (self), &self->figure, figure,
                                   same ? same_layout : NULL);
  attnscope_heatmap_view_update_exact (self);
  g_object_freeze_notify (G_OBJECT (self));
  /* Another matrix: show all of it again, and keep the cursor inside. */
  if (!same_size)
    {
      attnscope_heatmap_view_apply_view (self, 0, 0, 0);
      attnscope_heatmap_view_set_cursor (self, -1, -1);
    }
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
  return attnscope_heatmap_view_n_rows (self);
}

int
attnscope_heatmap_view_get_n_cols (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), 0);
  return attnscope_heatmap_view_n_cols (self);
}

float
attnscope_heatmap_view_get_value (AttnscopeHeatmapView *self, int row, int col)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), NAN);
  const ArHeatmapFigure *fig = attnscope_heatmap_view_heatmap (self);
  if (fig == NULL || row < 0 || row >= fig->n_rows || col < 0 || col >= fig->n_cols)
    return NAN;
  return fig->values[(gsize) row * fig->n_cols + col];
}

/* The figure in the screen's style, its tick labels measured once per figure and style, in the
 * current view. */
void
attnscope_heatmap_view_screen_figure (AttnscopeHeatmapView *self, ArFigureParts *parts)
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
  fig->view_row0 = self->row0;
  fig->view_col0 = self->col0;
  fig->view_rows = fig->view_cols = self->zoom;
  fig->room_for_all_labels = TRUE;
  attnscope_heatmap_view_label_exact (self, fig);
}

/* ---- the cursor ---- */

int
attnscope_heatmap_view_get_cursor_row (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), -1);
  return self->cursor_row;
}

int
attnscope_heatmap_view_get_cursor_col (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), -1);
  return self->cursor_col;
}

void
attnscope_heatmap_view_set_cursor (AttnscopeHeatmapView *self, int row, int col)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  if (row < 0 || col < 0 || row >= attnscope_heatmap_view_n_rows (self)
      || col >= attnscope_heatmap_view_n_cols (self))
    row = col = -1;
  /* Scroll the view to keep the cursor in it. */
  scroll_to_cell (self, row, col);
  gboolean row_changed = row != self->cursor_row, col_changed = col != self->cursor_col;
  self->cursor_row = row, self->cursor_col = col;
  if (row_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURSOR_ROW]);
  if (col_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURSOR_COL]);
  if (row_changed || col_changed)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_heatmap_view_move_cursor (AttnscopeHeatmapView *self, int d_row, int d_col)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  if (attnscope_heatmap_view_n_rows (self) == 0)
    return;
  /* From nowhere the cursor starts at the highlighted token, or at the first cell. */
  int row = self->cursor_row, col = self->cursor_col;
  if (row < 0)
    {
      int h = attnscope_heatmap_view_heatmap (self)->highlight_row;
      row = h >= 0 ? h : 0, col = h >= 0 ? h : 0;
      d_row = d_col = 0;
    }
  attnscope_heatmap_view_set_cursor (
      self, CLAMP (row + d_row, 0, attnscope_heatmap_view_n_rows (self) - 1),
      CLAMP (col + d_col, 0, attnscope_heatmap_view_n_cols (self) - 1));
}

gboolean
attnscope_heatmap_view_hit (AttnscopeHeatmapView *self, double x, double y, int *row, int *col)
{
  if (self->figure == NULL)
    return FALSE;
  ArFigureParts parts;
  attnscope_heatmap_view_screen_figure (self, &parts);
  return ar_heatmap_hit (&parts.heatmap, gtk_widget_get_width (GTK_WIDGET (self)),
                         gtk_widget_get_height (GTK_WIDGET (self)), x, y, row, col);
}

void
attnscope_heatmap_view_emit_activated (AttnscopeHeatmapView *self, int row, int col)
{
  g_signal_emit (self, signals[CELL_ACTIVATED], 0, row, col);
}

/* ---- GObject ---- */

static void
attnscope_heatmap_view_finalize (GObject *object)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (object);
  g_clear_pointer (&self->figure, ar_built_figure_unref);
  g_clear_pointer (&self->minimap, cairo_surface_destroy);
  g_clear_pointer (&self->node, gsk_render_node_unref);
  g_clear_pointer (&self->tiles, attnscope_heatmap_tiles_free);
  G_OBJECT_CLASS (attnscope_heatmap_view_parent_class)->finalize (object);
}

static void
attnscope_heatmap_view_get_property (GObject *object, guint prop_id, GValue *value,
                                     GParamSpec *pspec)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (object);
  const ArHeatmapFigure *fig = attnscope_heatmap_view_heatmap (self);
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
    case PROP_ZOOM:
      g_value_set_int (value, self->zoom);
      break;
    case PROP_CURSOR_ROW:
      g_value_set_int (value, self->cursor_row);
      break;
    case PROP_CURSOR_COL:
      g_value_set_int (value, self->cursor_col);
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
  properties[PROP_ZOOM] = g_param_spec_int ("zoom", NULL, NULL, 0, G_MAXINT, 0, ro);
  properties[PROP_CURSOR_ROW] = g_param_spec_int ("cursor-row", NULL, NULL, -1, G_MAXINT, -1, ro);
  properties[PROP_CURSOR_COL] = g_param_spec_int ("cursor-col", NULL, NULL, -1, G_MAXINT, -1, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A click on cell (row, col), or Return on the cursor cell. */
  signals[CELL_ACTIVATED]
      = g_signal_new ("cell-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);

  gtk_widget_class_set_css_name (widget_class, "heatmapview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
attnscope_heatmap_view_init (AttnscopeHeatmapView *self)
{
  self->cursor_row = self->cursor_col = -1;
  GtkWidget *widget = GTK_WIDGET (self);
  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_focus_on_click (widget, TRUE);
  attnscope_heatmap_view_init_input (self);
  attnscope_heatmap_view_init_exact (self);
}

GtkWidget *
attnscope_heatmap_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_HEATMAP_VIEW, NULL);
}
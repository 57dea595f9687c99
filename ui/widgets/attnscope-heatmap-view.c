/* attnscope-heatmap-view.c — the heatmap widget: draws its built figure through
 * ar_heatmap_render() in snapshot (the cells in view only when zoomed), hit-tests with
 * ar_heatmap_hit() for tooltips and clicks, and handles zoom, pan, the minimap and the keyboard
 * cursor (see attnscope-heatmap-view.h). */
#include "attnscope-heatmap-view.h"

#include <glib/gi18n.h>
#include <math.h>

#include "attnscope-figure-widget.h"
#include "render-text.h"

/* Zoom steps multiply the cells in view by this; fewer than MIN_ZOOM rows are never shown. */
#define ZOOM_STEP 1.4142
#define MIN_ZOOM 4
#define MINIMAP_MAX 120.0
#define MINIMAP_INSET 8.0
/* A press that moves less than this is a click, not a drag. */
#define CLICK_SLOP 4.0

struct _AttnscopeHeatmapView
{
  GtkWidget parent_instance;

  ArBuiltFigure *figure; /* a heatmap, or NULL */

  /* the tick labels' widths measured for LABEL_STYLE (0 = not yet) */
  double row_label_width, col_label_width;
  const ArRenderStyle *label_style;

  int zoom;       /* rows (and columns) in view, 0 = all */
  int row0, col0; /* the first cell in view */
  int cursor_row, cursor_col;

  /* the minimap's picture of the whole matrix, for MINIMAP_FIGURE in MINIMAP_STYLE */
  cairo_surface_t *minimap;
  const ArBuiltFigure *minimap_figure;
  const ArRenderStyle *minimap_style;

  double pointer_x, pointer_y;
  int drag_row0, drag_col0; /* the view when the drag began */
  double drag_cell;         /* the cell size then */
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

/* ---- the view ---- */

static int
n_rows (AttnscopeHeatmapView *self)
{
  return heatmap (self) != NULL ? heatmap (self)->n_rows : 0;
}

static int
n_cols (AttnscopeHeatmapView *self)
{
  return heatmap (self) != NULL ? heatmap (self)->n_cols : 0;
}

/* Clamps the view to the matrix and redraws; notifies a new zoom. */
static void
apply_view (AttnscopeHeatmapView *self, int row0, int col0, int zoom)
{
  int rows = n_rows (self), cols = n_cols (self);
  int old = self->zoom;
  /* 0 asks for all of it (a new figure, the key 0) */
  if (zoom <= 0 || zoom >= MAX (rows, cols) || rows == 0)
    zoom = 0;
  else
    zoom = MAX (zoom, MIN (MIN_ZOOM, MIN (rows, cols)));
  self->zoom = zoom;
  self->row0 = zoom > 0 ? CLAMP (row0, 0, MAX (rows - MIN (zoom, rows), 0)) : 0;
  self->col0 = zoom > 0 ? CLAMP (col0, 0, MAX (cols - MIN (zoom, cols), 0)) : 0;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (old != zoom)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

void
attnscope_heatmap_view_set_view (AttnscopeHeatmapView *self, int row0, int col0, int n)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  apply_view (self, row0, col0, n);
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

/* Zooms by FACTOR keeping cell (ROW, COL) where it is on screen. */
static void
zoom_around (AttnscopeHeatmapView *self, double factor, int row, int col)
{
  int size = MAX (n_rows (self), n_cols (self));
  if (size == 0)
    return;
  int n = self->zoom > 0 ? self->zoom : size;
  int next = (int) lround (n * factor);
  if (next == n)
    next = factor < 1 ? n - 1 : n + 1;
  double k = (double) MIN (next, size) / n;
  apply_view (self, row - (int) lround ((row - self->row0) * k),
              col - (int) lround ((col - self->col0) * k), next);
}

void
attnscope_heatmap_view_zoom (AttnscopeHeatmapView *self, double factor)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  int n = self->zoom > 0 ? self->zoom : MAX (n_rows (self), n_cols (self));
  zoom_around (self, factor, self->row0 + n / 2, self->col0 + n / 2);
}

/* ---- the figure ---- */

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
  gboolean same_size
      = old != NULL && new != NULL && old->n_rows == new->n_rows && old->n_cols == new->n_cols;
  gboolean same = same_size && same_labels (old->row_labels, new->row_labels, new->n_rows)
                  && same_labels (old->col_labels, new->col_labels, new->n_cols)
                  && old->label_mode == new->label_mode;
  if (!same)
    self->row_label_width = self->col_label_width = 0;
  int rows = old != NULL ? old->n_rows : 0, cols = old != NULL ? old->n_cols : 0;
  attnscope_figure_widget_replace (GTK_WIDGET (self), &self->figure, figure,
                                   same ? same_layout : NULL);
  g_object_freeze_notify (G_OBJECT (self));
  /* Another matrix: show all of it again, and keep the cursor inside. */
  if (!same_size)
    {
      apply_view (self, 0, 0, 0);
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
  return n_rows (self);
}

int
attnscope_heatmap_view_get_n_cols (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), 0);
  return n_cols (self);
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

/* The figure in the screen's style, its tick labels measured once per figure and style, in the
 * current view. */
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
  fig->view_row0 = self->row0;
  fig->view_col0 = self->col0;
  fig->view_rows = fig->view_cols = self->zoom;
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
  if (row < 0 || col < 0 || row >= n_rows (self) || col >= n_cols (self))
    row = col = -1;
  if (row >= 0 && self->zoom > 0)
    {
      /* Scroll the view to keep the cursor in it. */
      int r0 = self->row0, c0 = self->col0, n = self->zoom;
      r0 = row < r0 ? row : row >= r0 + n ? row - n + 1 : r0;
      c0 = col < c0 ? col : col >= c0 + n ? col - n + 1 : c0;
      apply_view (self, r0, c0, n);
    }
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
  if (n_rows (self) == 0)
    return;
  /* From nowhere the cursor starts at the highlighted token, or at the first cell. */
  int row = self->cursor_row, col = self->cursor_col;
  if (row < 0)
    {
      int h = heatmap (self)->highlight_row;
      row = h >= 0 ? h : 0, col = h >= 0 ? h : 0;
      d_row = d_col = 0;
    }
  attnscope_heatmap_view_set_cursor (self, CLAMP (row + d_row, 0, n_rows (self) - 1),
                                     CLAMP (col + d_col, 0, n_cols (self) - 1));
}

/* ---- drawing ---- */

static double
minimap_size (int width, int height)
{
  return floor (MIN (MINIMAP_MAX, MIN (width * 0.2, height * 0.3)));
}

/* The whole matrix painted into a SIZE × SIZE picture (twice that in pixels), kept while the
 * figure and the style stay. */
static cairo_surface_t *
minimap_picture (AttnscopeHeatmapView *self, const ArHeatmapFigure *fig, double size)
{
  int px = (int) (2 * size);
  if (self->minimap != NULL
      && (self->minimap_figure != self->figure || self->minimap_style != fig->style
          || cairo_image_surface_get_width (self->minimap) != px))
    g_clear_pointer (&self->minimap, cairo_surface_destroy);
  if (self->minimap == NULL)
    {
      self->minimap = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, px, px);
      cairo_t *cr = cairo_create (self->minimap);
      ar_heatmap_paint_cells (cr, fig, 0, 0, px, px);
      cairo_destroy (cr);
      self->minimap_figure = self->figure;
      self->minimap_style = fig->style;
    }
  return self->minimap;
}

static void
draw_minimap (AttnscopeHeatmapView *self, cairo_t *cr, const ArHeatmapFigure *fig, int width,
              int height)
{
  double size = minimap_size (width, height);
  if (size < 24)
    return;
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  double x = width - size - MINIMAP_INSET, y = height - size - MINIMAP_INSET;
  cairo_save (cr);
  ar_render_set_rgb (cr, style->background);
  cairo_rectangle (cr, x - 3, y - 3, size + 6, size + 6);
  cairo_fill (cr);
  cairo_rectangle (cr, x, y, size, size);
  cairo_clip (cr);
  cairo_translate (cr, x, y);
  cairo_scale (cr, 0.5, 0.5);
  cairo_set_source_surface (cr, minimap_picture (self, fig, size), 0, 0);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  ar_render_set_rgb (cr, style->rule);
  cairo_rectangle (cr, x - 0.5, y - 0.5, size + 1, size + 1);
  cairo_stroke (cr);
  ar_render_set_rgb (cr, style->accent);
  cairo_set_line_width (cr, 2.0);
  double sx = size / fig->n_cols, sy = size / fig->n_rows;
  cairo_rectangle (cr, x + self->col0 * sx, y + self->row0 * sy, MAX (self->zoom * sx, 2),
                   MAX (self->zoom * sy, 2));
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
draw_cursor (AttnscopeHeatmapView *self, cairo_t *cr, const ArHeatmapFigure *fig, int width,
             int height)
{
  int r = self->cursor_row, c = self->cursor_col;
  if (r < 0
      || (self->zoom > 0
          && (r < self->row0 || r >= self->row0 + self->zoom || c < self->col0
              || c >= self->col0 + self->zoom)))
    return;
  double x, y, w, h;
  ar_heatmap_get_cell_rect (fig, width, height, r, c, &x, &y, &w, &h);
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  cairo_save (cr);
  cairo_set_line_width (cr, 2.0);
  ar_render_set_rgb (cr, style->background);
  cairo_rectangle (cr, x - 2, y - 2, w + 4, h + 4);
  cairo_stroke (cr);
  ar_render_set_rgb (cr, style->accent);
  cairo_rectangle (cr, x - 1, y - 1, w + 2, h + 2);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
attnscope_heatmap_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  if (self->figure == NULL || width <= 0 || height <= 0)
    return;
  ArFigureParts parts;
  screen_figure (self, &parts);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  ar_figure_render (cr, &parts.figure, width, height);
  draw_cursor (self, cr, &parts.heatmap, width, height);
  if (self->zoom > 0)
    draw_minimap (self, cr, &parts.heatmap, width, height);
  cairo_destroy (cr);
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

/* ---- tooltips ---- */

static char *
axis_label (const char *const *labels, int i)
{
  return labels != NULL ? g_strdup (labels[i]) : g_strdup_printf ("%d", i);
}

/* What cell (ROW, COL) holds, as the tooltip says it. Newly allocated. */
static char *
cell_text (const ArHeatmapFigure *fig, int row, int col)
{
  switch (ar_heatmap_cell_state (fig, row, col))
    {
    case AR_CELL_MASKED:
      return g_strdup (_ ("masked: the model cannot attend to a later token"));
    case AR_CELL_NO_PARTNER:
      return g_strdup (_ ("no value: a token without a partner in the other text"));
    case AR_CELL_VALUE:
    default:
      return ar_format_number (fig->values[(gsize) row * fig->n_cols + col], 6);
    }
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
  g_autofree char *value = cell_text (fig, row, col);
  g_autofree char *markup = g_markup_printf_escaped (
      "%s: <b>%s</b> (%d)\n%s: <b>%s</b> (%d)\n%s", fig->row_axis ? fig->row_axis : _ ("Row"),
      row_label, row, fig->col_axis ? fig->col_axis : _ ("Column"), col_label, col, value);
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

/* ---- input ---- */

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, AttnscopeHeatmapView *self)
{
  self->drag_row0 = self->row0, self->drag_col0 = self->col0;
  self->drag_cell = 0;
  if (self->figure != NULL && self->zoom > 0)
    {
      ArFigureParts parts;
      screen_figure (self, &parts);
      double x0, y0, pw, ph;
      ar_heatmap_get_plot_rect (&parts.heatmap, gtk_widget_get_width (GTK_WIDGET (self)),
                                gtk_widget_get_height (GTK_WIDGET (self)), &x0, &y0, &pw, &ph);
      self->drag_cell = (pw + 1) / MIN (self->zoom, n_cols (self));
    }
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, AttnscopeHeatmapView *self)
{
  if (self->drag_cell <= 0 || hypot (dx, dy) < CLICK_SLOP)
    return;
  apply_view (self, self->drag_row0 - (int) lround (dy / self->drag_cell),
              self->drag_col0 - (int) lround (dx / self->drag_cell), self->zoom);
}

static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, AttnscopeHeatmapView *self)
{
  if (hypot (dx, dy) >= CLICK_SLOP)
    return;
  double x, y;
  int row, col;
  gtk_gesture_drag_get_start_point (gesture, &x, &y);
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (hit (self, x, y, &row, &col))
    {
      attnscope_heatmap_view_set_cursor (self, row, col);
      g_signal_emit (self, signals[CELL_ACTIVATED], 0, row, col);
    }
}

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, AttnscopeHeatmapView *self)
{
  self->pointer_x = x, self->pointer_y = y;
}

static gboolean
on_scroll (GtkEventControllerScroll *scroll, double dx, double dy, AttnscopeHeatmapView *self)
{
  GdkModifierType mods
      = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  if (mods & GDK_CONTROL_MASK)
    {
      int row, col;
      if (!hit (self, self->pointer_x, self->pointer_y, &row, &col))
        {
          attnscope_heatmap_view_zoom (self, dy > 0 ? ZOOM_STEP : 1 / ZOOM_STEP);
          return TRUE;
        }
      zoom_around (self, dy > 0 ? ZOOM_STEP : 1 / ZOOM_STEP, row, col);
      return TRUE;
    }
  if (self->zoom == 0)
    return FALSE;
  int step = MAX (1, self->zoom / 8);
  if (mods & GDK_SHIFT_MASK)
    dx = dx != 0 ? dx : dy, dy = 0;
  apply_view (self, self->row0 + (int) lround (dy * step), self->col0 + (int) lround (dx * step),
              self->zoom);
  return TRUE;
}

static gboolean
on_key_pressed (GtkEventControllerKey *key, guint keyval, guint keycode, GdkModifierType state,
                AttnscopeHeatmapView *self)
{
  if (state & (GDK_ALT_MASK | GDK_CONTROL_MASK | GDK_SUPER_MASK))
    return FALSE;
  int page = self->zoom > 0 ? MAX (1, self->zoom - 1) : 8;
  switch (keyval)
    {
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      attnscope_heatmap_view_move_cursor (self, -1, 0);
      return TRUE;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      attnscope_heatmap_view_move_cursor (self, 1, 0);
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      attnscope_heatmap_view_move_cursor (self, 0, -1);
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      attnscope_heatmap_view_move_cursor (self, 0, 1);
      return TRUE;
    case GDK_KEY_Page_Up:
      attnscope_heatmap_view_move_cursor (self, -page, 0);
      return TRUE;
    case GDK_KEY_Page_Down:
      attnscope_heatmap_view_move_cursor (self, page, 0);
      return TRUE;
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      attnscope_heatmap_view_zoom (self, 1 / ZOOM_STEP);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      attnscope_heatmap_view_zoom (self, ZOOM_STEP);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
      apply_view (self, 0, 0, 0);
      return TRUE;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_space:
      if (self->cursor_row < 0)
        return FALSE;
      g_signal_emit (self, signals[CELL_ACTIVATED], 0, self->cursor_row, self->cursor_col);
      return TRUE;
    default:
      return FALSE;
    }
}

/* ---- GObject ---- */

static void
attnscope_heatmap_view_finalize (GObject *object)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (object);
  g_clear_pointer (&self->figure, ar_built_figure_unref);
  g_clear_pointer (&self->minimap, cairo_surface_destroy);
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
  attnscope_figure_widget_init (widget, G_CALLBACK (on_query_tooltip), NULL);
  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_focus_on_click (widget, TRUE);

  GtkGesture *drag = gtk_gesture_drag_new ();
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drag));

  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (widget, motion);

  GtkEventController *scroll = gtk_event_controller_scroll_new (
      GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (widget, scroll);

  GtkEventController *key = gtk_event_controller_key_new ();
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (widget, key);
}

GtkWidget *
attnscope_heatmap_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_HEATMAP_VIEW, NULL);
}

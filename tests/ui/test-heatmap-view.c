/* test-heatmap-view.c — the heatmap widget as a user drives it, under Xvfb:
 * - zoom steps: from "all" each step in halves (buttons) or by √2 (keys) the rows in view, never
 *   jumping to the smallest view; zooming keeps the cursor cell where it is on screen (and so in
 *   view), zooming at a point keeps the cell under the pointer there, "0" shows all again;
 * - panning: dragging moves the view by the cells dragged over, scrolling by an eighth of the view,
 *   arrow keys move the cursor and the view follows it;
 * - the minimap: drawn only while zoomed, with the view's rectangle in the accent colour where
 *   the view lies in the whole matrix;
 * - the tooltip: a masked cell says "masked", never a number;
 * and on the real window with the tiny GPT-2 fixture (2 layers, 2 heads, byte-level BPE):
 * - per-row normalisation: the figure's values are the head's weights ÷ their row's maximum;
 * - log colours: each cell is painted with the colour map's entry at log10 position between the
 *   range's ends, computed here from the trace;
 * - autoscale per head: each thumbnail of the heads grid is painted on its own head's
 *   [min, max].
 * The keyboard on the window (cursor, Alt+arrows, the grid's keys) is test-heatmap-keys.c's. */
#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "attnscope-attention-page.h"
#include "attnscope-figure-widget.h"
#include "attnscope-head-grid-view.h"
#include "attnscope-heads-page.h"
#include "gui-test-util.h"
#include "render-fixtures.h"
#include "render-text.h"
#include "token-label.h"

#define TIMEOUT_MS 60000
#define TEXT "The man hit the car"

static AttnscopeWindow *window;

/* ---- a standalone view on a synthetic matrix ---- */

/* A causal T × T figure: row i holds 1/(i+1) on keys 0..i (0 above the diagonal), tokens t0..tT-1.
 */
static ArBuiltFigure *
causal_figure (int t)
{
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  float *values = ar_built_figure_take (built, g_new0 (float, (gsize) t *t));
  char **labels = g_new0 (char *, t + 1);
  for (int i = 0; i < t; i++)
    {
      labels[i] = g_strdup_printf ("t%d", i);
      for (int j = 0; j <= i; j++)
        values[(gsize) i * t + j] = 1.0f / (i + 1);
    }
  fig->n_rows = fig->n_cols = t;
  fig->values = values;
  fig->row_labels = fig->col_labels = ar_built_figure_take_strv (built, labels);
  fig->mask_upper = TRUE;
  fig->title = "Synthetic";
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

typedef struct
{
  GtkWindow *window;
  AttnscopeHeatmapView *view;
} Standalone;

/* The view is on screen at the window's size (the geometry every test reads). */
static gboolean
allocated (gpointer user_data)
{
  GtkWidget *view = user_data;
  return gtk_widget_get_mapped (view) && gtk_widget_get_width (view) == 900
         && gtk_widget_get_height (view) == 700;
}

static void
standalone_open (Standalone *s, int t)
{
  s->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (s->window, 900, 700);
  s->view = ATTNSCOPE_HEATMAP_VIEW (attnscope_heatmap_view_new ());
  gtk_window_set_child (s->window, GTK_WIDGET (s->view));
  g_autoptr (ArBuiltFigure) figure = causal_figure (t);
  attnscope_heatmap_view_set_figure (s->view, figure);
  gtk_window_present (s->window);
  g_assert_true (gui_test_wait_until (allocated, s->view, TIMEOUT_MS));
}

static void
standalone_close (Standalone *s)
{
  gui_test_destroy_window (s->window, FALSE, TIMEOUT_MS);
}

/* The view's first row, first column and rows in view. */
static void
view_of (AttnscopeHeatmapView *v, int *row0, int *col0, int *n)
{
  attnscope_heatmap_view_get_view (v, row0, col0, n);
}

/* Where cell (ROW, COL) is drawn in V now: the screen figure's geometry. */
static void
cell_rect (AttnscopeHeatmapView *v, int row, int col, double *x, double *y, double *w, double *h)
{
  g_assert_true (attnscope_heatmap_view_get_cell_rect (v, row, col, x, y, w, h));
}

static void
test_zoom_steps (void)
{
  Standalone s;
  standalone_open (&s, 1024);
  int r0, c0, n;
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 0);
  /* The zoom-in button halves the rows in view: 512, 256, ..., 4, then stays at 4. */
  int want = 1024;
  for (int step = 0; step < 10; step++)
    {
      attnscope_heatmap_view_zoom (s.view, 0.5);
      want = MAX (want / 2, 4);
      view_of (s.view, &r0, &c0, &n);
      g_test_message ("zoom in step %d: %d rows from (%d, %d)", step, n, r0, c0);
      g_assert_cmpint (n, ==, want);
      /* around the middle of the matrix */
      g_assert_cmpint (abs (r0 + n / 2 - 512), <=, 1);
      g_assert_cmpint (abs (c0 + n / 2 - 512), <=, 1);
    }
  attnscope_heatmap_view_zoom (s.view, 0.5);
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 4);
  /* The zoom-out button doubles them back to all. */
  for (int k = 8; k <= 512; k *= 2)
    {
      attnscope_heatmap_view_zoom (s.view, 2);
      g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, k);
    }
  attnscope_heatmap_view_zoom (s.view, 2);
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 0);

  /* "+" and "−" step by √2 (each step 0.6 to 0.8 of the one before), "0" shows all. */
  GtkWidget *w = GTK_WIDGET (s.view);
  int before = 1024, steps = 0;
  while (before > 4)
    {
      g_assert_true (gui_test_press_key (w, GDK_KEY_plus, GDK_SHIFT_MASK));
      int now = attnscope_heatmap_view_get_zoom (s.view);
      g_assert_cmpint (now, <, before);
      g_assert_true (now == 4 || (now >= 0.6 * before && now <= 0.8 * before));
      before = now, steps++;
    }
  g_test_message ("%d key steps from 1024 rows to 4", steps);
  g_assert_cmpint (steps, >=, 15);
  g_assert_true (gui_test_press_key (w, GDK_KEY_minus, 0));
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), >, 4);
  g_assert_true (gui_test_press_key (w, GDK_KEY_0, 0));
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 0);
  standalone_close (&s);

  /* A short text: from all (9 rows) the first step shows 5 (rounded half up), then 4. */
  standalone_open (&s, 9);
  attnscope_heatmap_view_zoom (s.view, 0.5);
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 5);
  attnscope_heatmap_view_zoom (s.view, 0.5);
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 4);
  attnscope_heatmap_view_zoom (s.view, 2);
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 8);
  attnscope_heatmap_view_zoom (s.view, 2);
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 0);
  standalone_close (&s);
}

/* Zooming keeps the cursor cell where it is on screen; zooming at a point keeps the cell under
 * it there. */
static void
test_zoom_keeps_cells (void)
{
  Standalone s;
  standalone_open (&s, 1024);
  attnscope_heatmap_view_set_cursor (s.view, 700, 300);
  double x0, y0, w0, h0, x, y, w, h;
  cell_rect (s.view, 700, 300, &x0, &y0, &w0, &h0);
  int r0, c0, n;
  for (int step = 0; step < 6; step++)
    {
      attnscope_heatmap_view_zoom (s.view, 0.5);
      view_of (s.view, &r0, &c0, &n);
      g_assert_cmpint (n, ==, 512 >> step);
      /* in view, at the same place in the plot within one cell of the new size */
      g_assert_true (700 >= r0 && 700 < r0 + n && 300 >= c0 && 300 < c0 + n);
      g_assert_cmpint (abs ((700 - r0) * 1024 / n - 700), <=, 1024 / n);
      g_assert_cmpint (abs ((300 - c0) * 1024 / n - 300), <=, 1024 / n);
      /* and on screen while the cells are small (larger cells are rounded to whole units and
       * their labels turn upright, which moves the centred plot by a few units) */
      cell_rect (s.view, 700, 300, &x, &y, &w, &h);
      g_test_message ("%d rows from (%d, %d): cell at %.2f, %.2f (%.2f wide), was %.2f, %.2f", n,
                      r0, c0, x, y, w, x0, y0);
      if (w < 8)
        {
          g_assert_cmpfloat (fabs (x - x0), <=, w + 1);
          g_assert_cmpfloat (fabs (y - y0), <=, h + 1);
        }
    }
  /* Out again: still in view at every step. */
  while (attnscope_heatmap_view_get_zoom (s.view) != 0)
    {
      attnscope_heatmap_view_zoom (s.view, 2);
      view_of (s.view, &r0, &c0, &n);
      g_assert_true (n == 0 || (700 >= r0 && 700 < r0 + n && 300 >= c0 && 300 < c0 + n));
    }
  /* Reset from deep in: everything in view, the cursor kept. */
  attnscope_heatmap_view_set_view (s.view, 10, 10, 16);
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_row (s.view), ==, 700);
  g_assert_true (gui_test_press_key (GTK_WIDGET (s.view), GDK_KEY_0, 0));
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (s.view), ==, 0);
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_row (s.view), ==, 700);
  /* A cursor panned out of view comes back into view with the next zoom step. */
  attnscope_heatmap_view_set_view (s.view, 0, 0, 64);
  attnscope_heatmap_view_zoom (s.view, 0.5);
  view_of (s.view, &r0, &c0, &n);
  g_assert_cmpint (n, ==, 32);
  g_assert_true (700 >= r0 && 700 < r0 + n && 300 >= c0 && 300 < c0 + n);

  /* At a point: the cell under the pointer stays under it (while the cells are smaller than 8
   * units: beyond, rounding and upright labels move the plot, and the cell under the pointer is
   * then the one kept). */
  attnscope_heatmap_view_set_cursor (s.view, -1, -1);
  attnscope_heatmap_view_set_view (s.view, 0, 0, 0);
  cell_rect (s.view, 200, 900, &x0, &y0, &w0, &h0);
  double px = x0 + w0 / 2, py = y0 + h0 / 2;
  for (int step = 0; step < 3; step++)
    {
      attnscope_heatmap_view_zoom_at (s.view, 0.5, px, py);
      view_of (s.view, &r0, &c0, &n);
      g_assert_cmpint (n, ==, 512 >> step);
      cell_rect (s.view, 200, 900, &x, &y, &w, &h);
      g_test_message ("at a point, %d rows from (%d, %d): cell centre %.2f, %.2f (%.2f wide)", n,
                      r0, c0, x + w / 2, y + h / 2, w);
      g_assert_cmpfloat (w, <, 8);
      g_assert_cmpfloat (fabs ((x + w / 2) - px), <=, w + 1);
      g_assert_cmpfloat (fabs ((y + h / 2) - py), <=, h + 1);
      g_assert_cmpint (abs ((200 - r0) * 1024 / n - 200), <=, 1024 / n);
      g_assert_cmpint (abs ((900 - c0) * 1024 / n - 900), <=, 1024 / n);
    }
  standalone_close (&s);
}

static void
test_pan (void)
{
  Standalone s;
  standalone_open (&s, 1024);
  attnscope_heatmap_view_set_view (s.view, 100, 200, 64);
  int r0, c0, n;
  double x, y, w, h, x1;
  cell_rect (s.view, 100, 201, &x1, &y, &w, &h);
  cell_rect (s.view, 100, 200, &x, &y, &w, &h);
  double cell = x1 - x; /* the cells' pitch */
  g_assert_cmpfloat (cell, >, 2);
  /* Dragging 10 cells left and 5 up moves the view 10 columns right and 5 rows down. */
  GtkEventController *drag = gui_test_controller_of (GTK_WIDGET (s.view), GTK_TYPE_GESTURE_DRAG);
  g_signal_emit_by_name (drag, "drag-begin", x + 1, y + 1);
  g_signal_emit_by_name (drag, "drag-update", -10 * cell, -5 * cell);
  view_of (s.view, &r0, &c0, &n);
  g_assert_cmpint (n, ==, 64);
  g_assert_cmpint (abs (c0 - 210), <=, 1);
  g_assert_cmpint (abs (r0 - 105), <=, 1);
  g_signal_emit_by_name (drag, "drag-end", -10 * cell, -5 * cell);
  /* Never past the matrix's end. */
  g_signal_emit_by_name (drag, "drag-begin", x + 1, y + 1);
  g_signal_emit_by_name (drag, "drag-update", -2000 * cell, -2000 * cell);
  view_of (s.view, &r0, &c0, &n);
  g_assert_cmpint (r0, ==, 1024 - 64);
  g_assert_cmpint (c0, ==, 1024 - 64);
  g_signal_emit_by_name (drag, "drag-end", -2000 * cell, -2000 * cell);

  /* Scrolling moves the view by an eighth of it per step. */
  attnscope_heatmap_view_set_view (s.view, 100, 200, 64);
  gboolean handled = FALSE;
  GtkEventController *scroll
      = gui_test_controller_of (GTK_WIDGET (s.view), GTK_TYPE_EVENT_CONTROLLER_SCROLL);
  g_signal_emit_by_name (scroll, "scroll", 0.0, 2.0, &handled);
  g_assert_true (handled);
  view_of (s.view, &r0, &c0, &n);
  g_assert_cmpint (r0, ==, 116);
  g_assert_cmpint (c0, ==, 200);

  /* Arrow keys move the cursor; the view follows it one row at a time. */
  attnscope_heatmap_view_set_view (s.view, 100, 200, 64);
  attnscope_heatmap_view_set_cursor (s.view, 163, 263);
  GtkWidget *wd = GTK_WIDGET (s.view);
  g_assert_true (gui_test_press_key (wd, GDK_KEY_Down, 0));
  g_assert_true (gui_test_press_key (wd, GDK_KEY_Right, 0));
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_row (s.view), ==, 164);
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_col (s.view), ==, 264);
  view_of (s.view, &r0, &c0, &n);
  g_assert_cmpint (r0, ==, 101);
  g_assert_cmpint (c0, ==, 201);
  g_assert_true (gui_test_press_key (wd, GDK_KEY_Page_Up, 0));
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_row (s.view), ==, 164 - 63);
  view_of (s.view, &r0, &c0, &n);
  g_assert_cmpint (r0, ==, 101);
  g_assert_true (gui_test_press_key (wd, GDK_KEY_Up, 0));
  view_of (s.view, &r0, &c0, &n);
  g_assert_cmpint (r0, ==, 100);
  /* Alt+arrows are not the view's: they go on to the window (layer and head). */
  g_assert_false (gui_test_press_key (wd, GDK_KEY_Up, GDK_ALT_MASK));
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_row (s.view), ==, 100);
  standalone_close (&s);
}

/* The widget drawn into an image the size of its allocation. */
static cairo_surface_t *
snapshot_widget (GtkWidget *widget)
{
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cairo_t *cr = cairo_create (image);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  if (node != NULL)
    gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  if (node != NULL)
    gsk_render_node_unref (node);
  cairo_surface_flush (image);
  return image;
}

static ArColor8
rgb8 (ArRgb c)
{
  return (ArColor8){ (guint8) lround (c.r * 255), (guint8) lround (c.g * 255),
                     (guint8) lround (c.b * 255) };
}

/* The minimap: a square of floor(min(120, 0.2·width, 0.3·height)) units, 8 units from the
 * bottom right corner, with the view's rectangle in the accent colour (2 units wide). */
static void
test_minimap (void)
{
  Standalone s;
  standalone_open (&s, 1024);
  GtkWidget *w = GTK_WIDGET (s.view);
  int width = gtk_widget_get_width (w), height = gtk_widget_get_height (w);
  double size = floor (MIN (120.0, MIN (width * 0.2, height * 0.3)));
  double mx = width - size - 8, my = height - size - 8;
  ArColor8 accent = rgb8 (attnscope_figure_style_get ()->accent);
  g_test_message ("widget %d × %d, minimap %.0f at (%.0f, %.0f)", width, height, size, mx, my);

  /* Not zoomed: no minimap (no accent pixel in its square). */
  cairo_surface_t *image = snapshot_widget (w);
  int accent_pixels = 0;
  for (int y = (int) my; y < (int) (my + size); y++)
    for (int x = (int) mx; x < (int) (mx + size); x++)
      accent_pixels += color_close (pixel_at (image, x, y), accent, 2);
  cairo_surface_destroy (image);
  g_assert_cmpint (accent_pixels, ==, 0);

  /* Zoomed to rows 256..511 and columns 512..767: the rectangle is the second quarter down and the
   * third across. */
  attnscope_heatmap_view_set_view (s.view, 256, 512, 256);
  image = snapshot_widget (w);
  double k = size / 1024, rx = mx + 512 * k, ry = my + 256 * k, rs = 256 * k;
  /* the middle of each edge of the rectangle */
  int probes[4][2] = { { (int) (rx + rs / 2), (int) round (ry) },
                       { (int) (rx + rs / 2), (int) round (ry + rs) },
                       { (int) round (rx), (int) (ry + rs / 2) },
                       { (int) round (rx + rs), (int) (ry + rs / 2) } };
  for (int p = 0; p < 4; p++)
    {
      gboolean found = FALSE;
      for (int d = -1; d <= 1 && !found; d++)
        {
          int x = probes[p][0] + (p >= 2 ? d : 0), y = probes[p][1] + (p < 2 ? d : 0);
          found = color_close (pixel_at (image, x, y), accent, 2);
        }
      g_assert_true (found);
    }
  /* Inside the rectangle and outside it the matrix's picture, not the accent. */
  g_assert_false (
      color_close (pixel_at (image, (int) (rx + rs / 2), (int) (ry + rs / 2)), accent, 2));
  g_assert_false (color_close (pixel_at (image, (int) (mx + 4), (int) (my + size - 4)), accent, 2));
  cairo_surface_destroy (image);
  standalone_close (&s);
}

/* The cursor is drawn over the figure's kept drawing: after a step its outline is at the new
 * cell and gone from the old one; a new figure of the same size is drawn, not the kept one. */
static void
test_cursor_redraw (void)
{
  Standalone s;
  standalone_open (&s, 6);
  GtkWidget *w = GTK_WIDGET (s.view);
  ArColor8 accent = rgb8 (attnscope_figure_style_get ()->accent);
  attnscope_heatmap_view_set_cursor (s.view, 3, 1);
  double x, y, cw, ch, x2, y2;
  cell_rect (s.view, 3, 1, &x, &y, &cw, &ch);
  cairo_surface_t *before = snapshot_widget (w);
  /* the outline runs 1 unit outside the cell */
  g_assert_true (
      color_close (pixel_at (before, (int) (x + cw / 2), (int) floor (y - 1)), accent, 2));
  g_assert_true (gui_test_press_key (w, GDK_KEY_Down, 0));
  cell_rect (s.view, 4, 1, &x2, &y2, &cw, &ch);
  cairo_surface_t *after = snapshot_widget (w);
  g_assert_true (
      color_close (pixel_at (after, (int) (x2 + cw / 2), (int) floor (y2 + ch)), accent, 2));
  g_assert_false (
      color_close (pixel_at (after, (int) (x + cw / 2), (int) floor (y - 1)), accent, 2));
  /* a new figure: its cells, not the kept drawing's (row 3 of the causal figure is 0.25; of the
   * new one 1.0 everywhere below the diagonal) */
  g_autoptr (ArBuiltFigure) ones = causal_figure (6);
  float *values = (float *) ar_built_figure_get_parts (ones)->heatmap.values;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j <= i; j++)
      values[i * 6 + j] = 1.0f;
  attnscope_heatmap_view_set_figure (s.view, ones);
  cell_rect (s.view, 3, 0, &x, &y, &cw, &ch);
  cairo_surface_t *fresh = snapshot_widget (w);
  ArColor8 top = ar_colormap_entry (AR_COLORMAP_YLGNBU, 255);
  g_assert_true (color_close (pixel_at (fresh, (int) (x + 3), (int) (y + 3)), top, 2));
  g_assert_false (color_close (pixel_at (before, (int) (x + 3), (int) (y + 3)), top, 2));
  cairo_surface_destroy (before);
  cairo_surface_destroy (after);
  cairo_surface_destroy (fresh);
  standalone_close (&s);
}

/* Hovering a masked cell says so; a cell with a value gives it. */
static void
test_masked_tooltip (void)
{
  Standalone s;
  standalone_open (&s, 6);
  double x, y, w, h;
  cell_rect (s.view, 1, 4, &x, &y, &w, &h);
  g_autofree char *masked = attnscope_heatmap_view_dup_tooltip_at (s.view, x + w / 2, y + h / 2);
  g_assert_nonnull (masked);
  g_test_message ("masked cell: %s", masked);
  g_assert_nonnull (strstr (masked, "masked"));
  g_assert_nonnull (strstr (masked, "<b>t1</b> (1)"));
  g_assert_nonnull (strstr (masked, "<b>t4</b> (4)"));
  g_assert_null (strstr (masked, "0.000000"));
  g_assert_null (strstr (masked, "0.00"));
  cell_rect (s.view, 3, 1, &x, &y, &w, &h);
  g_autofree char *value = attnscope_heatmap_view_dup_tooltip_at (s.view, x + w / 2, y + h / 2);
  g_assert_nonnull (strstr (value, "0.25"));
  g_assert_null (strstr (value, "masked"));
  /* Outside the cells: no tooltip. */
  g_assert_null (attnscope_heatmap_view_dup_tooltip_at (s.view, 1, 1));
  standalone_close (&s);
}

/* ---- the window ---- */

static AsTrace *
trace (void)
{
  return attnscope_run_get_trace (gui_test_main_run (window));
}

static AttnscopePage *
page (const char *name)
{
  return gui_test_show_page (window, name, TIMEOUT_MS);
}

static AttnscopeHeatmapView *
attention_heatmap (void)
{
  return attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page ("attention")));
}

static const ArHeatmapFigure *
shown_heatmap (void)
{
  ArBuiltFigure *built = attnscope_heatmap_view_get_figure (attention_heatmap ());
  g_assert_nonnull (built);
  return &ar_built_figure_get_parts (built)->heatmap;
}

static void
reset_view (void)
{
  gui_test_reset_view (window);
}

/* Row normalisation: each row divided by its largest weight, so every row's maximum is 1. */
static void
test_normalize_rows (void)
{
  reset_view ();
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_NORMALIZE_ROWS, TRUE);
  const ArHeatmapFigure *fig = shown_heatmap ();
  AsTrace *t = trace ();
  int n = t->n_tokens;
  const float *a = as_trace_attn_matrices (t, 1, 0);
  g_assert_cmpint (fig->n_rows, ==, n);
  for (int i = 0; i < n; i++)
    {
      float top = 0;
      for (int j = 0; j < n; j++)
        top = MAX (top, a[i * n + j]);
      g_assert_cmpfloat (top, >, 0);
      float row_max = 0;
      for (int j = 0; j < n; j++)
        {
          g_assert_cmpfloat_with_epsilon (fig->values[i * n + j], a[i * n + j] / top, 1e-6);
          row_max = MAX (row_max, fig->values[i * n + j]);
        }
      g_assert_cmpfloat (row_max, ==, 1.0f);
    }
  /* The row of token 0 attends only to itself: 1 there; autoscaled range [0, 1]. */
  g_assert_cmpfloat (fig->values[0], ==, 1.0f);
  g_assert_cmpfloat (fig->vmax, ==, 1.0);
  g_assert_cmpstr (fig->colorbar_label, ==, "Attention weight ÷ row maximum");
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_NORMALIZE_ROWS,
                                 FALSE);
  fig = shown_heatmap ();
  g_assert_cmpfloat (fig->values[n + 0], ==, a[n + 0]);
}

/* Log colours: cell (i, j) painted with entry floor(256·t) of the map, t = the log10 position of
 * its value between the range's ends; the range's lower end is the smallest positive weight
 * (autoscale) or 1/1000 of the upper end (fixed range). */
static void
test_log_colors (void)
{
  AsTrace *t = trace ();
  int n = t->n_tokens;
  const float *a = as_trace_attn_matrices (t, 1, 0);
  for (int autoscale = 1; autoscale >= 0; autoscale--)
    {
      reset_view ();
      attnscope_view_state_set_autoscale (gui_test_view_state (window), autoscale);
      attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_LOG_COLORS, TRUE);
      const ArHeatmapFigure *fig = shown_heatmap ();
      /* the weights that say something: below the diagonal, rows after the first (whose only
       * weight is 1) */
      double lo = INFINITY, hi = 0;
      for (int i = 1; i < n; i++)
        for (int j = 0; j <= i; j++)
          {
            hi = MAX (hi, a[i * n + j]);
            if (a[i * n + j] > 0)
              lo = MIN (lo, a[i * n + j]);
          }
      g_assert_cmpfloat (hi, <, 1);
      double vmax = autoscale ? hi : 1.0, vmin = autoscale ? MAX (lo, 1e-4 * hi) : 1e-3;
      g_assert_true (fig->log_colors);
      g_assert_cmpfloat_with_epsilon (fig->vmax, vmax, 1e-7);
      g_assert_cmpfloat_with_epsilon (fig->vmin, vmin, 1e-7);

      ArFigure figure = ar_figure_from_heatmap (fig);
      double w, h;
      ar_figure_get_size (&figure, &w, &h);
      cairo_surface_t *image = draw_figure (&figure, w, h, 1);
      int checked = 0, differ_from_linear = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++)
          {
            double v = a[i * n + j];
            double pos = (log10 (MAX (v, vmin)) - log10 (vmin)) / (log10 (vmax) - log10 (vmin));
            int entry = (int) MIN (floor (256 * CLAMP (pos, 0, 1)), 255);
            ArColor8 want = ar_colormap_entry (AR_COLORMAP_YLGNBU, entry);
            double x, y, cw, ch;
            ar_heatmap_get_cell_rect (fig, w, h, i, j, &x, &y, &cw, &ch);
            ArColor8 got = pixel_at (image, (int) (x + cw / 2), (int) (y + ch / 2));
            if (!color_close (got, want, 2))
              g_error ("cell (%d, %d) = %g: colour %d %d %d, want entry %d (%d %d %d)", i, j, v,
                       got.r, got.g, got.b, entry, want.r, want.g, want.b);
            checked++;
            int linear
                = (int) MIN (floor (256 * CLAMP ((v - fig->vmin) / (vmax - fig->vmin), 0, 1)), 255);
            differ_from_linear += abs (linear - entry) > 8;
          }
      cairo_surface_destroy (image);
      g_test_message ("autoscale %d: range %g..%g, %d cells checked, %d far from linear", autoscale,
                      vmin, vmax, checked, differ_from_linear);
      g_assert_cmpint (checked, ==, n * (n + 1) / 2);
      g_assert_cmpint (differ_from_linear, >, 0);
    }
  reset_view ();
}

/* The heads grid's figure as shown, drawn at its natural size; checks every head's range and
 * every cell's colour against the head's own [min, max] computed here from the trace. Returns
 * the largest difference between two heads' maxima. */
static double
check_grid_each (void)
{
  AttnscopeHeadsPage *heads = ATTNSCOPE_HEADS_PAGE (page ("heads"));
  ArBuiltFigure *built
      = attnscope_head_grid_view_get_figure (attnscope_heads_page_get_grid (heads));
  g_assert_nonnull (built);
  const ArGridFigure *fig = &ar_built_figure_get_parts (built)->grid;
  AsTrace *t = trace ();
  int n = t->n_tokens;
  g_assert_nonnull (fig->head_ranges);
  g_assert_cmpstr (fig->colorbar_label, ==, "Attention weight (each head its own range)");
  ArFigure figure = ar_figure_from_grid (fig);
  double w, h;
  ar_figure_get_size (&figure, &w, &h);
  cairo_surface_t *image = draw_figure (&figure, w, h, 1);
  double top_lo = INFINITY, top_hi = -INFINITY;
  for (int l = 0; l < t->n_layer; l++)
    for (int hd = 0; hd < t->n_head; hd++)
      {
        const float *a = as_trace_attn_matrices (t, l, hd);
        /* a causal model's weights below the diagonal of the rows after the first; all else */
        double lo = INFINITY, hi = -INFINITY;
        for (int i = t->causal ? 1 : 0; i < n; i++)
          for (int j = 0; j <= (t->causal ? i : n - 1); j++)
            lo = MIN (lo, a[i * n + j]), hi = MAX (hi, a[i * n + j]);
        top_lo = MIN (top_lo, hi), top_hi = MAX (top_hi, hi);
        const double *r = fig->head_ranges + 2 * (l * t->n_head + hd);
        g_assert_cmpfloat_with_epsilon (r[0], lo, 1e-7);
        g_assert_cmpfloat_with_epsilon (r[1], hi, 1e-7);
        double x, y, size;
        ar_grid_get_thumb_rect (fig, w, h, l, hd, &x, &y, &size);
        double cell = size / n;
        for (int i = 0; i < n; i++)
          for (int j = 0; j <= (t->causal ? i : n - 1); j++)
            {
              /* (the first row's 1 above the range takes the top colour) */
              ArColor8 want = ar_colormap_color (AR_COLORMAP_YLGNBU, a[i * n + j], lo, hi);
              ArColor8 got
                  = pixel_at (image, (int) (x + (j + 0.5) * cell), (int) (y + (i + 0.5) * cell));
              if (!color_close (got, want, 2))
                g_error ("layer %d head %d cell (%d, %d): %d %d %d, want %d %d %d", l, hd, i, j,
                         got.r, got.g, got.b, want.r, want.g, want.b);
            }
      }
  cairo_surface_destroy (image);
  return top_hi - top_lo;
}

/* Autoscale per head: each thumbnail of the heads grid is painted on its own head's
 * [min, max] — of a causal model over the weights below the diagonal of the rows after the first
 * (the first token's only weight is 1; counting it, and the masked zeros, every head spanned
 * [0, 1] and the choice changed nothing). On the seed's two bidirectional heads over all weights
 * (0.4566 and 0.3518 are the first rows' maxima alone). Switches the window to seed-two-heads:
 * the last case. */
static void
test_grid_autoscale_each (void)
{
  reset_view ();
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_AUTOSCALE_EACH, TRUE);
  double causal_spread = check_grid_each ();
  g_test_message ("tiny-gpt2: the heads' maxima differ by %.4f", causal_spread);
  g_assert_cmpfloat (causal_spread, >, 0.01);
  gui_test_open (window, "seed-two-heads", "May the force be with you", TIMEOUT_MS);
  g_assert_false (trace ()->causal);
  double spread = check_grid_each ();
  g_test_message ("seed-two-heads: the heads' maxima differ by %.4f", spread);
  g_assert_cmpfloat (spread, >, 0.01);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  g_autofree char *fixture = gui_test_fixture_path ("tiny-gpt2");
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  gui_test_open (window, fixture, TEXT, TIMEOUT_MS);
  gui_test_park_pointer ();

  g_test_add_func ("/ui/heatmap-view/zoom-steps", test_zoom_steps);
  g_test_add_func ("/ui/heatmap-view/zoom-keeps-cells", test_zoom_keeps_cells);
  g_test_add_func ("/ui/heatmap-view/pan", test_pan);
  g_test_add_func ("/ui/heatmap-view/minimap", test_minimap);
  g_test_add_func ("/ui/heatmap-view/masked-tooltip", test_masked_tooltip);
  g_test_add_func ("/ui/heatmap-view/cursor-redraw", test_cursor_redraw);
  g_test_add_func ("/ui/heatmap-view/normalize-rows", test_normalize_rows);
  g_test_add_func ("/ui/heatmap-view/log-colors", test_log_colors);
  g_test_add_func ("/ui/heatmap-view/grid-autoscale-each", test_grid_autoscale_each);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}

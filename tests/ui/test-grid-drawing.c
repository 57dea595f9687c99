/* test-grid-drawing.c — the heads grid widget's kept drawing (ui/widgets/attnscope-grid-drawing.h):
 * a new figure draws only the thumbnails that changed, and what it shows is, pixel for pixel, what
 * a widget drawing the figure afresh shows.
 *
 * Two grid widgets of one size under Xvfb on synthetic figures of 3 layers × 4 heads over 24
 * tokens (causal; each head its own values; heads not yet computed NaN, as a long text's stream
 * gives them): the kept one is given figure after figure — 5 heads computed, then 9 (a new figure
 * with copies of the same values), another colour range, a head switched off, another highlighted
 * head — and after each the number of thumbnails it drew anew is checked, and its drawing against
 * the fresh widget's drawing of the same figure. Inside the thumbnails both equal the drawing of
 * ar_grid_render in one piece (the widget's drawing before it kept parts) within 3 levels of 255
 * in every channel: the antialiased seams between cells, composed in a thumbnail's node over
 * transparency rather than over the figure, round differently. */
#include <adwaita.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attnscope-figure-widget.h"
#include "attnscope-head-grid-view.h"
#include "figure.h"
#include "grid-render.h"

#define TIMEOUT_MS 60000
#define L 3
#define H 4
#define T 24

typedef struct
{
  int n_done;      /* heads 0 .. n_done - 1 computed, the others NaN */
  double vmax;     /* the colour range's top */
  int crossed;     /* a head switched off, or -1 */
  int highlighted; /* the highlighted head (layer 1), or -1 */
} Spec;

/* A new built figure of SPEC (its own copies of the values). */
static ArBuiltFigure *
grid_figure (const Spec *spec)
{
  ArBuiltFigure *built = ar_built_figure_new ();
  ArGridFigure *fig = &ar_built_figure_edit (built)->grid;
  ar_grid_figure_init (fig);
  float *attn = ar_built_figure_take (built, g_new (float, (gsize) L *H *T *T));
  for (int e = 0; e < L * H; e++)
    for (int i = 0; i < T; i++)
      for (int j = 0; j < T; j++)
        attn[((gsize) e * T + i) * T + j]
            = e >= spec->n_done ? NAN
              : j > i           ? 0.0f
                                : (float) fmod (0.37 * (e + 1) + 0.05 * i + 0.11 * j, 1.0);
  fig->title = "All heads";
  fig->n_layers = L, fig->n_heads = H, fig->n_tokens = T;
  fig->attn = attn;
  fig->mask_upper = TRUE;
  fig->vmin = 0, fig->vmax = spec->vmax;
  if (spec->crossed >= 0)
    {
      guint8 *crossed = ar_built_figure_take (built, g_new0 (guint8, L * H));
      crossed[spec->crossed] = 1;
      fig->crossed = crossed;
    }
  if (spec->highlighted >= 0)
    fig->highlight_layer = 1, fig->highlight_head = spec->highlighted;
  ar_built_figure_edit (built)->figure = ar_figure_from_grid (fig);
  return built;
}

static AttnscopeHeadGridView *
grid_in_window (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 900, 700);
  GtkWidget *grid = attnscope_head_grid_view_new ();
  gtk_window_set_child (window, grid);
  gtk_window_present (window);
  return ATTNSCOPE_HEAD_GRID_VIEW (grid);
}

static gboolean
allocated (gpointer data)
{
  GtkWidget **grids = data;
  return gtk_widget_get_mapped (grids[0]) && gtk_widget_get_mapped (grids[1])
         && gtk_widget_get_width (grids[0]) == 900 && gtk_widget_get_height (grids[0]) == 700
         && gtk_widget_get_width (grids[1]) == 900 && gtk_widget_get_height (grids[1]) == 700;
}

static gboolean
wait_until (GSourceFunc condition, gpointer data)
{
  gint64 end = g_get_monotonic_time () + (gint64) TIMEOUT_MS * 1000;
  while (!condition (data) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
  return condition (data);
}

/* GRID's drawing (its snapshot, as GTK takes it for a frame) in pixels. */
static cairo_surface_t *
drawing (AttnscopeHeadGridView *grid)
{
  GtkWidget *widget = GTK_WIDGET (grid);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  cairo_surface_t *surface = cairo_image_surface_create (
      CAIRO_FORMAT_ARGB32, gtk_widget_get_width (widget), gtk_widget_get_height (widget));
  cairo_t *cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  if (node != NULL)
    gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  g_clear_pointer (&node, gsk_render_node_unref);
  cairo_surface_flush (surface);
  return surface;
}

/* The pixels that differ between A and B (of one size). */
static int
differing_pixels (cairo_surface_t *a, cairo_surface_t *b)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  int stride = cairo_image_surface_get_stride (a);
  const guint8 *pa = cairo_image_surface_get_data (a), *pb = cairo_image_surface_get_data (b);
  int n = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      n += memcmp (pa + (gsize) y * stride + 4 * x, pb + (gsize) y * stride + 4 * x, 4) != 0;
  return n;
}

/* FIGURE drawn whole by ar_grid_render (in the screen's style, as GRID shows it), into one Cairo
 * node as the widget drew it before it kept its drawing in parts. */
static cairo_surface_t *
whole_drawing (AttnscopeHeadGridView *grid, ArBuiltFigure *figure)
{
  int w = gtk_widget_get_width (GTK_WIDGET (grid)), h = gtk_widget_get_height (GTK_WIDGET (grid));
  ArFigureParts parts;
  attnscope_figure_widget_restyle (figure, &parts);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  ar_figure_render (cr, &parts.figure, w, h);
  cairo_destroy (cr);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  gsk_render_node_unref (node);
  cairo_surface_flush (surface);
  return surface;
}

/* The pixels inside the thumbnails (2 pixels in from their edges, where the antialiased frame
 * and cells meet) that differ between A and B, drawings of FIGURE at their size, by more than
 * TOLERANCE in a channel; *MAX_DIFF the largest difference in a channel. */
static int
differing_thumb_pixels (cairo_surface_t *a, cairo_surface_t *b, ArBuiltFigure *figure,
                        int tolerance, int *max_diff)
{
  *max_diff = 0;
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  int stride = cairo_image_surface_get_stride (a);
  const guint8 *pa = cairo_image_surface_get_data (a), *pb = cairo_image_surface_get_data (b);
  ArFigureParts parts;
  attnscope_figure_widget_restyle (figure, &parts);
  int n = 0;
  for (int l = 0; l < L; l++)
    for (int hd = 0; hd < H; hd++)
      {
        double x, y, size;
        ar_grid_get_thumb_rect (&parts.grid, w, h, l, hd, &x, &y, &size);
        g_assert_cmpfloat (size, >, 8);
        for (int py = (int) ceil (y) + 2; py < (int) floor (y + size) - 2; py++)
          for (int px = (int) ceil (x) + 2; px < (int) floor (x + size) - 2; px++)
            {
              int worst = 0;
              for (int c = 0; c < 4; c++)
                worst = MAX (worst, abs (pa[(gsize) py * stride + 4 * px + c]
                                         - pb[(gsize) py * stride + 4 * px + c]));
              *max_diff = MAX (*max_diff, worst);
              n += worst > tolerance;
            }
      }
  return n;
}

static AttnscopeHeadGridView *kept, *fresh;

/* Shows SPEC on the kept grid and on the fresh one (emptied first); checks the thumbnails the
 * kept one drew anew and that both draw the same pixels. Returns the kept drawing. */
static cairo_surface_t *
show (const Spec *spec, int expect_redrawn, const char *what)
{
  g_autoptr (ArBuiltFigure) figure = grid_figure (spec);
  attnscope_head_grid_view_set_figure (kept, figure, NULL);
  cairo_surface_t *kept_pixels = drawing (kept);
  int redrawn = attnscope_head_grid_view_get_redrawn (kept);
  g_assert_cmpint (redrawn, ==, expect_redrawn);
  /* a new widget in the fresh window: nothing kept */
  GtkWindow *fresh_window = GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (fresh)));
  fresh = ATTNSCOPE_HEAD_GRID_VIEW (attnscope_head_grid_view_new ());
  gtk_window_set_child (fresh_window, GTK_WIDGET (fresh));
  GtkWidget *grids[2] = { GTK_WIDGET (kept), GTK_WIDGET (fresh) };
  g_assert_true (wait_until (allocated, grids));
  attnscope_head_grid_view_set_figure (fresh, figure, NULL);
  cairo_surface_t *fresh_pixels = drawing (fresh);
  g_assert_cmpint (attnscope_head_grid_view_get_redrawn (fresh), ==, L * H);
  int differ = differing_pixels (kept_pixels, fresh_pixels);
  g_test_message ("%s: %d thumbnails drawn anew, %d pixels differ from a fresh drawing", what,
                  redrawn, differ);
  g_assert_cmpint (differ, ==, 0);
  /* the thumbnails as ar_grid_render draws them in one piece */
  cairo_surface_t *whole = whole_drawing (fresh, figure);
  int max_diff, differ_inside = differing_thumb_pixels (whole, fresh_pixels, figure, 0, &max_diff);
  g_test_message ("  %d pixels differ from ar_grid_render's drawing, %d of them inside thumbnails, "
                  "by at most %d in a channel",
                  differing_pixels (whole, fresh_pixels), differ_inside, max_diff);
  /* the thumbnail nodes compose their cells over transparency, the whole drawing over the
   * background: the antialiased seams between cells round differently, by a few levels at most */
  g_assert_cmpint (differing_thumb_pixels (whole, fresh_pixels, figure, 3, &max_diff), ==, 0);
  cairo_surface_destroy (whole);
  cairo_surface_destroy (fresh_pixels);
  return kept_pixels;
}

static void
test_kept (void)
{
  GtkWidget *grids[2] = { GTK_WIDGET (grid_in_window ()), GTK_WIDGET (grid_in_window ()) };
  kept = ATTNSCOPE_HEAD_GRID_VIEW (grids[0]);
  fresh = ATTNSCOPE_HEAD_GRID_VIEW (grids[1]);
  g_assert_true (wait_until (allocated, grids));

  Spec spec = { .n_done = 5, .vmax = 1, .crossed = -1, .highlighted = -1 };
  cairo_surface_t *five = show (&spec, L * H, "5 heads");
  spec.n_done = 9;
  cairo_surface_t *nine = show (&spec, 4, "9 heads (a new figure, heads 0-4 equal)");
  /* the four new heads changed the drawing: a kept drawing that missed them would differ */
  g_assert_cmpint (differing_pixels (five, nine), >, 0);
  /* the same figure again (a copy): nothing drawn anew */
  cairo_surface_destroy (show (&spec, 0, "9 heads again"));
  spec.vmax = 0.5;
  cairo_surface_destroy (show (&spec, L * H, "another colour range"));
  spec.crossed = 6;
  cairo_surface_destroy (show (&spec, 1, "head 6 switched off"));
  spec.highlighted = 2;
  cairo_surface_destroy (show (&spec, 0, "head 1.2 highlighted (the frame only)"));
  spec.n_done = L * H;
  cairo_surface_destroy (show (&spec, L * H - 9, "every head"));
  cairo_surface_destroy (five);
  cairo_surface_destroy (nine);
  gtk_window_destroy (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (kept))));
  gtk_window_destroy (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (fresh))));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  g_test_add_func ("/ui/grid-drawing/kept", test_kept);
  return g_test_run ();
}

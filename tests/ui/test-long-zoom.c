/* test-long-zoom.c — a long text's heatmap zoomed in to its exact entries, and the heads grid's
 * thumbnails arriving visible heads first (ui/README.md, "Attention at long lengths").
 *
 * The real window under Xvfb (1280 × 420: the grid scrolls) on a random model of the SmolLM2-135M
 * shape cut to 12 layers (9 query / 3 key/value heads of 64, D 576; F 256, 320 tokens:
 * tests/reference decoder_reference.py make-model --preset smollm2-135m), a text of about 2,000
 * tokens, the attention on demand (ATTNSCOPE_ATTENTION=on-demand):
 * - grid: the Heads page shown while the text runs; as soon as its first heads are drawn the grid
 *   scrolls to its bottom, and the heads then in view arrive before every head never in view (the
 *   order is recorded); placeholders (NaN) until a head is there; at the end every thumbnail
 *   equals the maxima of its blocks;
 * - zoom: the Attention page zoomed in to 4 blocks (12 entries a side): once the tiles are in,
 *   every entry the view holds equals as_trace_attention_tile's, the pixels drawn at sampled
 *   entries have the colour of the exact entry, and the tooltip over an entry names it and its
 *   exact value; zoomed out the view shows pooled blocks;
 * - budget: with a tile cache of 1 MiB, panning over six regions keeps it within its budget and
 *   drops the tiles read least recently;
 * - text change (texts of about 1,000 tokens): a new text empties the tile cache, starts a new
 * stream of thumbnails (the old one dropped) and the grid ends with the new text's heads. */
#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "as-attention-pool.h"
#include "attention-overview.h"
#include "attention-thumbnails.h"
#include "attnscope-attention-page.h"
#include "attnscope-heads-page.h"
#include "attnscope-heatmap-view-exact.h"
#include "colormap.h"
#include "decoder-models.h"
#include "gui-test-util.h"
#include "render-text.h"

#define TIMEOUT_MS 120000

static AttnscopeWindow *window;
static char *model;

static const char *const smollm2_cut[]
    = { "--preset", "smollm2-135m", "--layers", "12", "--intermediate", "256", "--vocab",
        "320",      "--dtype",      "f32",      NULL };

/* A text of N_SENTENCES sentences of the fixture's small vocabulary. */
static char *
long_text (int n_sentences, const char *first)
{
  GString *s = g_string_new (first);
  static const char *const sentences[]
      = { " The man hit the car.", " Then the car hit the man.", " He went home in the dark.",
          " The dog ran in the park." };
  for (int i = 0; i < n_sentences; i++)
    g_string_append (s, sentences[i % G_N_ELEMENTS (sentences)]);
  return g_string_free (s, FALSE);
}

static AsTrace *
main_trace (void)
{
  return attnscope_run_get_trace (gui_test_main_run (window));
}

static gboolean
have_model (void)
{
  static gboolean tried;
  if (!tried)
    {
      tried = TRUE;
      model = decoder_model ("smollm2-cut-12", smollm2_cut, TRUE);
      if (model != NULL)
        gui_test_open (window, model, NULL, TIMEOUT_MS);
    }
  if (model == NULL)
    g_test_skip ("the random model could not be made (tests/reference/decoder_reference.py)");
  return model != NULL;
}

/* With $ATTNSCOPE_SHOT_DIR: a screenshot NAME.png of the screen. */
static void
maybe_shot (const char *name)
{
  const char *dir = g_getenv ("ATTNSCOPE_SHOT_DIR");
  if (dir == NULL)
    return;
  gui_test_wait_drawn (GTK_WIDGET (window), TIMEOUT_MS);
  g_autofree char *file = g_strdup_printf ("%s/%s.png", dir, name);
  const char *argv[] = { "/usr/bin/import", "-window", "root", file, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
  g_test_message ("screenshot %s (status %d)", file, status);
}

static AttnscopeHeadsPage *
heads_page (void)
{
  return ATTNSCOPE_HEADS_PAGE (attnscope_window_get_page (window, "heads"));
}

/* The largest weight of block (PI, PJ) of side K of head (L, H) of T, from a tile read here. */
static float
block_max (const AsTrace *t, int l, int h, int k, int pi, int pj)
{
  int T = t->n_tokens, r0 = pi * k, c0 = pj * k, nr = MIN (k, T - r0), nc = MIN (k, T - c0);
  g_autofree float *tile = g_new (float, (gsize) nr *nc);
  as_trace_attention_tile (t, l, h, r0, nr, c0, nc, tile, nc);
  float best = 0;
  for (int i = 0; i < nr * nc; i++)
    best = MAX (best, tile[i]);
  return best;
}

/* The stream of the main trace has drawn heads (a grid with some thumbnails, not all). */
static gboolean
stream_started (gpointer data)
{
  AttnscopeThumbnailStream *stream = attnscope_heads_page_get_thumbnail_stream (heads_page ());
  AsTrace *t = main_trace ();
  ArBuiltFigure *f
      = attnscope_head_grid_view_get_figure (attnscope_heads_page_get_grid (heads_page ()));
  int n = 0;
  if (stream != NULL && t != NULL)
    attnscope_thumbnail_stream_get_order (stream, &n);
  return stream != NULL && t != NULL && attnscope_thumbnail_stream_get_trace (stream) == t
         && f != NULL && n > 0;
}

static gboolean
stream_complete (gpointer data)
{
  AttnscopeThumbnailStream *stream = attnscope_heads_page_get_thumbnail_stream (heads_page ());
  AsTrace *t = main_trace ();
  return stream != NULL && attnscope_thumbnail_stream_get_trace (stream) == t
         && attnscope_thumbnail_stream_get_complete (stream) != NULL
         && !attnscope_page_get_busy (ATTNSCOPE_PAGE (heads_page ()));
}

/* Every thumbnail of the grid on screen equals the maxima of its blocks (probed). */
static void
check_grid (const AsTrace *t)
{
  AttnscopeHeadGridView *grid = attnscope_heads_page_get_grid (heads_page ());
  const ArGridFigure *fig
      = &ar_built_figure_get_parts (attnscope_head_grid_view_get_figure (grid))->grid;
  int P = ar_attention_thumbnail_size (t), k = as_pool_factor (t->n_tokens, AR_THUMBNAIL_CELLS);
  g_assert_cmpint (fig->n_tokens, ==, P);
  g_assert_cmpint (fig->n_layers * fig->n_heads, ==, t->n_layer * t->n_head);
  for (int e = 0; e < t->n_layer * t->n_head; e++)
    {
      const float *thumb = fig->attn + (gsize) e * P * P;
      int l = e / t->n_head, h = e % t->n_head;
      g_assert_cmpfloat (thumb[0], ==, block_max (t, l, h, k, 0, 0));
      g_assert_cmpfloat (thumb[(gsize) (P - 1) * P + P / 3], ==,
                         block_max (t, l, h, k, P - 1, P / 3));
    }
}

/* The grid's scrolled window knows how tall the grid is. */
static gboolean
laid_out (gpointer data)
{
  return gtk_adjustment_get_upper (data) > 0;
}

static void
test_grid_order (void)
{
  if (!have_model ())
    return;
  attnscope_window_show_page (window, "heads");
  g_autofree char *text = long_text (150, "Once");
  gint64 start = g_get_monotonic_time ();
  attnscope_window_set_text (window, text);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AsTrace *t = main_trace ();
  g_test_message ("the pass: %.0f ms", (g_get_monotonic_time () - start) / 1e3);
  g_assert_cmpint (t->n_tokens, >, 1900);
  g_assert_false (as_trace_attention_held (t));
  g_assert_true (gui_test_wait_until (stream_started, NULL, TIMEOUT_MS));
  g_test_message ("%d tokens, %d heads: the first thumbnails drawn %.0f ms after the text",
                  t->n_tokens, t->n_layer * t->n_head, (g_get_monotonic_time () - start) / 1e3);
  AttnscopeHeadGridView *grid = attnscope_heads_page_get_grid (heads_page ());
  AttnscopeThumbnailStream *stream = attnscope_heads_page_get_thumbnail_stream (heads_page ());
  int n = t->n_layer * t->n_head;
  /* placeholders while heads are missing */
  const ArGridFigure *partial
      = &ar_built_figure_get_parts (attnscope_head_grid_view_get_figure (grid))->grid;
  int P = ar_attention_thumbnail_size (t), n_nan = 0;
  for (int e = 0; e < n; e++)
    n_nan += isnan (partial->attn[(gsize) e * P * P]);
  g_assert_cmpint (n_nan, >, 0);
  /* scroll to the bottom: the heads there come next */
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (grid), GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_assert_true (gui_test_wait_until (laid_out, v, TIMEOUT_MS));
  g_assert_cmpfloat (gtk_adjustment_get_upper (v), >, gtk_adjustment_get_page_size (v) + 100);
  gtk_adjustment_set_value (v, gtk_adjustment_get_upper (v) - gtk_adjustment_get_page_size (v));
  /* the heads begun from now on are those in view first (one may be under way) */
  int d0;
  attnscope_thumbnail_stream_get_order (stream, &d0);
  g_autofree int *visible = g_new (int, n);
  int n_visible = attnscope_head_grid_visible_heads (grid, visible);
  g_assert_cmpint (n_visible, >, 0);
  g_assert_cmpint (n_visible, <, n);
  maybe_shot ("long-grid-arriving"); /* after the order was read: the heads go on arriving */
  g_assert_true (gui_test_wait_until (stream_complete, NULL, TIMEOUT_MS));
  g_test_message ("all thumbnails %.0f ms after the text", (g_get_monotonic_time () - start) / 1e3);
  int n_order;
  const int *order = attnscope_thumbnail_stream_get_order (stream, &n_order);
  g_assert_cmpint (n_order, ==, n);
  g_autofree int *position = g_new (int, n); /* [n] when each head arrived */
  GString *log = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    {
      position[order[i]] = i;
      g_string_append_printf (log, "%d.%d ", order[i] / t->n_head, order[i] % t->n_head);
    }
  g_test_message ("scrolled after %d heads; %d heads then in view; arrival order: %s", d0,
                  n_visible, log->str);
  g_string_free (log, TRUE);
  /* the heads in view after the scroll that were missing then come right after it (the head
   * under way when the scroll came first) */
  int n_after = 0;
  for (int i = 0; i < n_visible; i++)
    if (position[visible[i]] >= d0)
      {
        g_assert_cmpint (position[visible[i]], <=, d0 + n_visible);
        n_after++;
      }
  g_assert_cmpint (n_after, >, n_visible / 2);
  check_grid (t);
}

/* ---- the heatmap ---- */

static AttnscopeHeatmapView *
heatmap (void)
{
  AttnscopePage *page = attnscope_window_get_page (window, "attention");
  return attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
}

static gboolean
exact_ready (gpointer data)
{
  return attnscope_heatmap_view_exact_ready (heatmap ());
}

static gboolean
pooled_figure (gpointer data)
{
  ArBuiltFigure *f = attnscope_heatmap_view_get_figure (heatmap ());
  return f != NULL && ar_built_figure_get_parts (f)->heatmap.pool > 1
         && ar_built_figure_get_parts (f)->heatmap.pool_trace == main_trace ();
}

/* The widget's pixels as drawn now: [height][stride] premultiplied B, G, R, A bytes. */
static guint8 *
widget_pixels (GtkWidget *widget, int *width, int *height, gsize *stride)
{
  *width = gtk_widget_get_width (widget), *height = gtk_widget_get_height (widget);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, *width, *height);
  g_autoptr (GskRenderNode) node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  g_autoptr (GdkTexture) texture
      = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, *width, *height));
  *stride = (gsize) gdk_texture_get_width (texture) * 4;
  guint8 *data = g_malloc ((gsize) gdk_texture_get_height (texture) * *stride);
  gdk_texture_download (texture, data, *stride);
  return data;
}

/* Zooms to N blocks at (R0, C0) and waits for the exact entries. */
static void
zoom_to (int r0, int c0, int n)
{
  attnscope_heatmap_view_set_view (heatmap (), r0, c0, n);
  g_assert_true (gui_test_wait_until (exact_ready, NULL, TIMEOUT_MS));
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (heatmap ()), TIMEOUT_MS));
}

static void
test_zoom (void)
{
  if (!have_model ())
    return;
  AsTrace *t = main_trace ();
  g_assert_nonnull (t);
  AttnscopeViewState *state = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (state, 3);
  attnscope_view_state_set_head (state, 5);
  /* taller: the heatmap's entries several pixels wide */
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  attnscope_window_show_page (window, "attention");
  g_assert_true (gui_test_wait_until (pooled_figure, NULL, TIMEOUT_MS));
  AttnscopeHeatmapView *view = heatmap ();
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (view), TIMEOUT_MS));
  int T = t->n_tokens, k = as_pool_factor (T, AR_OVERVIEW_CELLS), r0, nr, c0, nc;
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (view))->heatmap;
  g_assert_cmpint (fig->pool, ==, k);
  g_assert_nonnull (strstr (fig->colorbar_label, "max over"));
  /* zoomed out: pooled blocks, no exact entries */
  g_assert_false (attnscope_heatmap_view_get_exact_region (view, &r0, &nr, &c0, &nc));
  maybe_shot ("long-heatmap-2k-pooled");
  gint64 start = g_get_monotonic_time ();
  /* the first rows: their weights spread over few keys, so entries differ from their block's
   * maximum in colour too */
  int pr = 0, pc = 0;
  zoom_to (pr, pc, 4);
  g_test_message ("zoomed to 4 blocks of %d: exact entries in %.0f ms", k,
                  (g_get_monotonic_time () - start) / 1e3);
  g_assert_true (attnscope_heatmap_view_get_exact_region (view, &r0, &nr, &c0, &nc));
  g_assert_cmpint (r0, ==, pr * k);
  g_assert_cmpint (c0, ==, pc * k);
  g_assert_cmpint (nr, ==, 4 * k);
  g_assert_cmpint (nc, ==, 4 * k);
  g_autofree float *tile = g_new (float, (gsize) nr *nc); /* [nr][nc] */
  as_trace_attention_tile (t, 3, 5, r0, nr, c0, nc, tile, nc);
  for (int i = 0; i < nr; i++)
    for (int j = 0; j < nc; j++)
      {
        float v = NAN;
        g_assert_true (attnscope_heatmap_view_get_exact_value (view, r0 + i, c0 + j, &v));
        g_assert_cmpfloat (v, ==, tile[(gsize) i * nc + j]);
      }
  /* the pixels and the tooltips at entries whose value is not their block's maximum */
  int width, height;
  gsize stride;
  g_autofree guint8 *pixels = widget_pixels (GTK_WIDGET (view), &width, &height, &stride);
  int checked = 0, differ = 0;
  for (int i = 0; i < nr; i++)
    for (int j = 0; j <= i + r0 - c0 && j < nc; j++)
      {
        int r = r0 + i, c = c0 + j;
        float v = tile[(gsize) i * nc + j];
        /* an entry's side: the blocks' pitch over their K entries */
        double x, y, w, h, x1, y1;
        g_assert_true (attnscope_heatmap_view_get_cell_rect (view, r / k, c / k, &x, &y, &w, &h));
        g_assert_true (
            attnscope_heatmap_view_get_cell_rect (view, r / k + 1, c / k + 1, &x1, &y1, &w, &h));
        double e = (x1 - x) / k;
        double cx = x + (c % k + 0.5) * e, cy = y + (r % k + 0.5) * e;
        if (cx > width - 140 && cy > height - 140)
          continue; /* under the minimap */
        int hr, hc;
        g_assert_true (attnscope_heatmap_view_exact_hit (view, cx, cy, &hr, &hc));
        g_assert_cmpint (hr, ==, r);
        g_assert_cmpint (hc, ==, c);
        g_autofree char *markup = attnscope_heatmap_view_dup_tooltip_at (view, cx, cy);
        g_autofree char *number = ar_format_number (v, 6);
        g_assert_nonnull (strstr (markup, number));
        g_assert_nonnull (strstr (markup, "exact"));
        ArColor8 want
            = ar_colormap_color_scaled (fig->colormap, v, fig->vmin, fig->vmax, fig->log_colors);
        ArColor8 block = ar_colormap_color_scaled (
            fig->colormap, fig->values[(gsize) (r / k) * fig->n_cols + c / k], fig->vmin, fig->vmax,
            fig->log_colors);
        const guint8 *p = pixels + (gsize) (int) cy * stride + (gsize) (int) cx * 4;
        /* GSK's scaling of the drawing moves a channel by a few units at most */
        g_assert_cmpint (abs (p[2] - want.r), <=, 6);
        g_assert_cmpint (abs (p[1] - want.g), <=, 6);
        g_assert_cmpint (abs (p[0] - want.b), <=, 6);
        checked++;
        differ += abs (block.r - want.r) + abs (block.g - want.g) + abs (block.b - want.b) > 30;
      }
  g_test_message ("%d entries checked on screen and in tooltips, %d of them far in colour from "
                  "their block's maximum",
                  checked, differ);
  g_assert_cmpint (checked, >, 50);
  g_assert_cmpint (differ, >, 10);
  maybe_shot ("long-heatmap-2k-exact");
  /* zoomed out again: the pooled overview */
  attnscope_heatmap_view_set_view (view, 0, 0, 0);
  g_assert_false (attnscope_heatmap_view_get_exact_region (view, &r0, &nr, &c0, &nc));
}

static void
test_budget (void)
{
  if (!have_model ())
    return;
  AttnscopeHeatmapView *view = heatmap ();
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (view))->heatmap;
  g_assert_cmpint (fig->pool, >, 1);
  gsize budget = (gsize) 1 << 20; /* 16 tiles of 128 × 128 */
  attnscope_heatmap_view_set_tile_budget (view, budget);
  g_assert_cmpuint (attnscope_heatmap_view_get_tile_bytes (view), <=, budget);
  int P = fig->n_rows, k = fig->pool;
  const int spots[][2] = { { 0, 0 },         { P - 64, 0 }, { P - 64, P - 64 },
                           { P / 2, P / 4 }, { P / 4, 0 },  { 3 * P / 4, P / 2 } };
  gsize most = 0;
  for (guint i = 0; i < G_N_ELEMENTS (spots); i++)
    {
      zoom_to (spots[i][0], spots[i][1], 64);
      gsize bytes = attnscope_heatmap_view_get_tile_bytes (view);
      most = MAX (most, bytes);
      g_assert_cmpuint (bytes, <=, budget);
      g_assert_cmpuint (bytes, >, 0);
    }
  g_test_message ("six regions of 64 × %d entries: at most %" G_GSIZE_FORMAT " bytes cached of "
                  "%" G_GSIZE_FORMAT,
                  k, most, budget);
  /* the first region's tiles went first; the last one's are there */
  float v;
  g_assert_false (attnscope_heatmap_view_get_exact_value (view, 0, 0, &v));
  g_assert_true (attnscope_heatmap_view_get_exact_value (view, 3 * P / 4 * k, P / 2 * k, &v));
  attnscope_heatmap_view_set_tile_budget (view, 0);
}

static gboolean
new_text_done (gpointer data)
{
  const char *text = attnscope_run_get_trace_text (gui_test_main_run (window));
  return text != NULL && g_str_has_prefix (text, "Now") && stream_complete (NULL);
}

static void
test_text_change (void)
{
  if (!have_model ())
    return;
  AttnscopeHeatmapView *view = heatmap ();
  g_assert_cmpuint (attnscope_heatmap_view_get_tile_bytes (view), >, 0);
  attnscope_window_show_page (window, "heads");
  g_autofree char *first = long_text (70, "Before");
  g_autofree char *second = long_text (80, "Now");
  attnscope_window_set_text (window, first);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_until (stream_started, NULL, TIMEOUT_MS));
  AttnscopeThumbnailStream *old = attnscope_heads_page_get_thumbnail_stream (heads_page ());
  g_assert_null (attnscope_thumbnail_stream_get_complete (old));
  attnscope_window_set_text (window, second);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_until (new_text_done, NULL, TIMEOUT_MS));
  AsTrace *t = main_trace ();
  g_assert_true (attnscope_thumbnail_stream_get_trace (
                     attnscope_heads_page_get_thumbnail_stream (heads_page ()))
                 == t);
  check_grid (t);
  /* the heatmap's cache follows the new text: nothing of the old one is left */
  attnscope_window_show_page (window, "attention");
  g_assert_true (gui_test_wait_until (pooled_figure, NULL, TIMEOUT_MS));
  g_assert_cmpuint (attnscope_heatmap_view_get_tile_bytes (view), ==, 0);
  maybe_shot ("long-heatmap-1k-pooled");
  zoom_to (0, 0, 32);
  maybe_shot ("long-heatmap-1k-exact");
  /* a short text on demand: one entry a cell, no pooling */
  attnscope_window_set_text (window, "The man hit the car");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_page (attnscope_window_get_page (window, "attention"), TIMEOUT_MS));
  g_assert_cmpint (
      ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (view))->heatmap.pool, ==, 0);
  maybe_shot ("long-heatmap-5");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("ATTNSCOPE_ATTENTION", "on-demand", TRUE);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 420, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_test_add_func ("/ui/long-zoom/grid-order", test_grid_order);
  g_test_add_func ("/ui/long-zoom/zoom", test_zoom);
  g_test_add_func ("/ui/long-zoom/budget", test_budget);
  g_test_add_func ("/ui/long-zoom/text-change", test_text_change);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_free (model);
  return status;
}

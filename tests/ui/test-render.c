/* test-render.c — ui/render drawn into image surfaces and read back pixel by pixel: colour maps
 * against matplotlib's values, heatmap cells and colour bar, annotation only on large cells,
 * hit-testing of heatmaps and the head grid (charts: test-render-charts.c; texts:
 * test-render-text.c). No display needed. */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-tokenizer.h"
#include "axis-ticks.h"
#include "check-close.h"
#include "matrix-paint.h"
#include "render-fixtures.h"
#include "render-text.h"
#include "token-label.h"
#include "view-selection.h"

/* ---- colour maps ---------------------------------------------------------------------------- */

typedef struct
{
  ArColormap map;
  double t;
  guint8 r, g, b; /* matplotlib 3.6: round(255 · cmap(t)) */
} MplSample;

/* Printed by Debian's python3-matplotlib (round(255 * c) for c in matplotlib.colormaps[name](t)).
 */
static const MplSample mpl_samples[] = {
  { AR_COLORMAP_YLGNBU, 0.0, 255, 255, 217 },    { AR_COLORMAP_YLGNBU, 0.25, 198, 233, 180 },
  { AR_COLORMAP_YLGNBU, 0.5, 64, 181, 196 },     { AR_COLORMAP_YLGNBU, 0.75, 34, 93, 168 },
  { AR_COLORMAP_YLGNBU, 1.0, 8, 29, 88 },        { AR_COLORMAP_YLGNBU, 0.3388, 149, 213, 185 },
  { AR_COLORMAP_YLGNBU, 0.0651, 246, 251, 197 }, { AR_COLORMAP_VIRIDIS, 0.0, 68, 1, 84 },
  { AR_COLORMAP_VIRIDIS, 0.25, 59, 82, 139 },    { AR_COLORMAP_VIRIDIS, 0.5, 33, 145, 140 },
  { AR_COLORMAP_VIRIDIS, 0.75, 94, 201, 98 },    { AR_COLORMAP_VIRIDIS, 1.0, 253, 231, 37 },
  { AR_COLORMAP_MAGMA, 0.0, 0, 0, 4 },           { AR_COLORMAP_MAGMA, 0.25, 81, 18, 124 },
  { AR_COLORMAP_MAGMA, 0.5, 183, 55, 121 },      { AR_COLORMAP_MAGMA, 0.75, 252, 137, 97 },
  { AR_COLORMAP_MAGMA, 1.0, 252, 253, 191 },     { AR_COLORMAP_GREYS, 0.0, 255, 255, 255 },
  { AR_COLORMAP_GREYS, 0.5, 149, 149, 149 },     { AR_COLORMAP_GREYS, 1.0, 0, 0, 0 },
  { AR_COLORMAP_RDBU_R, 0.0, 5, 48, 97 },        { AR_COLORMAP_RDBU_R, 0.25, 107, 172, 209 },
  { AR_COLORMAP_RDBU_R, 0.5, 247, 246, 246 },    { AR_COLORMAP_RDBU_R, 0.75, 228, 128, 102 },
  { AR_COLORMAP_RDBU_R, 1.0, 103, 0, 31 },
};

static void
test_colormap_matplotlib (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (mpl_samples); i++)
    {
      const MplSample *s = &mpl_samples[i];
      ArColor8 c = ar_colormap_sample (s->map, s->t);
      g_test_message ("%s(%g) = (%d, %d, %d)", ar_colormap_to_string (s->map), s->t, c.r, c.g, c.b);
      g_assert_cmpint (c.r, ==, s->r);
      g_assert_cmpint (c.g, ==, s->g);
      g_assert_cmpint (c.b, ==, s->b);
    }
}

static void
test_colormap_sampling (void)
{
  /* matplotlib's rule: entry floor(256 t), 1.0 -> 255, out of range clamped. */
  ArColor8 e0 = ar_colormap_entry (AR_COLORMAP_VIRIDIS, 0);
  ArColor8 e1 = ar_colormap_entry (AR_COLORMAP_VIRIDIS, 1);
  ArColor8 e255 = ar_colormap_entry (AR_COLORMAP_VIRIDIS, 255);
  g_assert_true (color_close (ar_colormap_sample (AR_COLORMAP_VIRIDIS, 0.99 / 256), e0, 0));
  g_assert_true (color_close (ar_colormap_sample (AR_COLORMAP_VIRIDIS, 1.01 / 256), e1, 0));
  g_assert_true (color_close (ar_colormap_sample (AR_COLORMAP_VIRIDIS, -3), e0, 0));
  g_assert_true (color_close (ar_colormap_sample (AR_COLORMAP_VIRIDIS, 7), e255, 0));
  g_assert_true (color_close (ar_colormap_sample (AR_COLORMAP_VIRIDIS, NAN), e0, 0));
  /* A value range: 0.5 on [0, 2] is t = 0.25. */
  g_assert_true (color_close (ar_colormap_color (AR_COLORMAP_YLGNBU, 0.5, 0, 2),
                              (ArColor8){ 198, 233, 180 }, 0));
  /* Differences: 0 on a symmetric range is the diverging map's near-white middle. */
  g_assert_true (color_close (ar_colormap_color (AR_COLORMAP_RDBU_R, 0, -0.3, 0.3),
                              (ArColor8){ 247, 246, 246 }, 0));
  /* tab10's first two colours (matplotlib's #1f77b4, #ff7f0e). */
  g_assert_true (color_close (ar_palette_color (0), (ArColor8){ 0x1f, 0x77, 0xb4 }, 0));
  g_assert_true (color_close (ar_palette_color (11), (ArColor8){ 0xff, 0x7f, 0x0e }, 0));
}

static void
test_colormap_names (void)
{
  ArColormap map = AR_COLORMAP_YLGNBU;
  g_assert_true (ar_colormap_from_string ("Viridis", &map, NULL));
  g_assert_cmpint (map, ==, AR_COLORMAP_VIRIDIS);
  g_assert_true (ar_colormap_from_string ("diverging", &map, NULL));
  g_assert_cmpint (map, ==, AR_COLORMAP_RDBU_R);
  for (int i = 0; i < AR_COLORMAP_COUNT; i++)
    {
      g_assert_true (ar_colormap_from_string (ar_colormap_to_string (i), &map, NULL));
      g_assert_cmpint (map, ==, i);
    }
  GError *error = NULL;
  g_assert_false (ar_colormap_from_string ("jet", &map, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "'jet'"));
  g_assert_nonnull (strstr (error->message, "viridis"));
  g_error_free (error);
}

/* ---- heatmap -------------------------------------------------------------------------------- */

/* A 5-unit square inside cell (ROW, COL), clear of a centred annotation. */
static void
cell_probe (const ArHeatmapFigure *fig, double w, double h, int row, int col, int *px, int *py)
{
  double x, y, cw, ch;
  ar_heatmap_get_cell_rect (fig, w, h, row, col, &x, &y, &cw, &ch);
  g_assert_cmpfloat (cw, >, 8);
  *px = (int) ceil (x + 2);
  *py = (int) ceil (y + 2);
}

static void
test_heatmap_cell_colours (void)
{
  ArHeatmapFigure fig;
  seed_heatmap (&fig, seed_a1_attention);
  double w, h;
  ar_heatmap_get_size (&fig, &w, &h);
  ArFigure figure = ar_figure_from_heatmap (&fig);
  cairo_surface_t *image = draw_figure (&figure, w, h, 1);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++)
      {
        int x, y;
        cell_probe (&fig, w, h, i, j, &x, &y);
        ArColor8 want = ar_colormap_color (AR_COLORMAP_YLGNBU, seed_a1_attention[i * 6 + j], 0, 1);
        for (int dy = 0; dy < 5; dy++)
          for (int dx = 0; dx < 5; dx++)
            assert_pixel (image, x + dx, y + dy, want, "seed cell");
      }
  /* Independently of the table lookup: matplotlib's YlGnBu for 0.3388 and 0.0651. */
  int x, y;
  cell_probe (&fig, w, h, 0, 0, &x, &y);
  assert_pixel (image, x, y, (ArColor8){ 149, 213, 185 }, "May->May (0.3388)");
  cell_probe (&fig, w, h, 0, 1, &x, &y);
  assert_pixel (image, x, y, (ArColor8){ 246, 251, 197 }, "May->the (0.0651)");
  cairo_surface_destroy (image);
}

/* Finds a run of at least 10 pixels of colour C on row Y from X0 to the right edge; returns its
 * first x or -1. */
static int
find_run (cairo_surface_t *image, int y, int x0, ArColor8 c)
{
  int width = cairo_image_surface_get_width (image), run = 0;
  for (int x = x0; x < width; x++)
    {
      run = color_close (pixel_at (image, x, y), c, 1) ? run + 1 : 0;
      if (run >= 10)
        return x - 9;
    }
  return -1;
}

static void
test_heatmap_colorbar (void)
{
  const ArColormap maps[] = { AR_COLORMAP_YLGNBU, AR_COLORMAP_MAGMA, AR_COLORMAP_RDBU_R };
  for (gsize m = 0; m < G_N_ELEMENTS (maps); m++)
    {
      ArHeatmapFigure fig;
      seed_heatmap (&fig, seed_a1_attention);
      fig.colormap = maps[m];
      double w, h;
      ar_heatmap_get_size (&fig, &w, &h);
      ArFigure figure = ar_figure_from_heatmap (&fig);
      cairo_surface_t *image = draw_figure (&figure, w, h, 1);
      double x0, y0, x1, y1, cw, ch;
      ar_heatmap_get_cell_rect (&fig, w, h, 0, 5, &x0, &y0, &cw, &ch);
      ar_heatmap_get_cell_rect (&fig, w, h, 5, 5, &x1, &y1, &cw, &ch);
      int right = (int) (x1 + cw + 2);
      /* The bar runs from vmax in the plot's first pixel row to vmin in its last. */
      int top = find_run (image, (int) y0, right, ar_colormap_entry (maps[m], 255));
      int bottom = find_run (image, (int) (y1 + ch) - 1, right, ar_colormap_entry (maps[m], 0));
      g_test_message ("%s: bar top run at x=%d, bottom run at x=%d",
                      ar_colormap_to_string (maps[m]), top, bottom);
      g_assert_cmpint (top, >, right);
      g_assert_cmpint (bottom, ==, top);
      /* Halfway down the bar: the middle entries (127/128). */
      ArColor8 mid = pixel_at (image, top + 5, (int) ((y0 + y1 + ch) / 2));
      g_assert_true (color_close (mid, ar_colormap_entry (maps[m], 128), 2)
                     || color_close (mid, ar_colormap_entry (maps[m], 127), 2));
      cairo_surface_destroy (image);
    }
}

/* Pixels inside cell (ROW, COL)'s central half that differ from the cell colour by more than 40
 * in some channel (text); *BRIGHT counts those lighter than the cell. */
static int
ink_in_cell (cairo_surface_t *image, const ArHeatmapFigure *fig, double w, double h, int row,
             int col, int *bright)
{
  double x, y, cw, ch;
  ar_heatmap_get_cell_rect (fig, w, h, row, col, &x, &y, &cw, &ch);
  ArColor8 bg = ar_colormap_color (fig->colormap, fig->values[row * fig->n_cols + col], fig->vmin,
                                   fig->vmax);
  int ink = 0;
  *bright = 0;
  for (int py = (int) (y + ch / 4); py < (int) (y + 3 * ch / 4); py++)
    for (int px = (int) (x + cw / 8); px < (int) (x + 7 * cw / 8); px++)
      {
        ArColor8 c = pixel_at (image, px, py);
        if (!color_close (c, bg, 40))
          {
            ink++;
            if (c.r + c.g + c.b > bg.r + bg.g + bg.b)
              (*bright)++;
          }
      }
  return ink;
}

static void
test_heatmap_annotation (void)
{
  float values[36];
  memcpy (values, seed_a1_attention, sizeof values);
  values[5 * 6 + 5] = 0.98f; /* a dark cell: its text must be light */
  ArHeatmapFigure fig;
  seed_heatmap (&fig, values);
  double w, h;
  ar_heatmap_get_size (&fig, &w, &h);
  ArFigure figure = ar_figure_from_heatmap (&fig);

  /* Natural size: cells of 64 units, annotated. */
  g_assert_true (ar_heatmap_is_annotated (&fig, w, h));
  cairo_surface_t *image = draw_figure (&figure, w, h, 1);
  int bright, ink = ink_in_cell (image, &fig, w, h, 0, 0, &bright);
  g_test_message ("annotated light cell: %d ink pixels, %d lighter", ink, bright);
  g_assert_cmpint (ink, >, 30);
  g_assert_cmpint (bright, ==, 0);
  ink = ink_in_cell (image, &fig, w, h, 5, 5, &bright);
  g_test_message ("annotated dark cell: %d ink pixels, %d lighter", ink, bright);
  g_assert_cmpint (ink, >, 30);
  g_assert_cmpint (bright, ==, ink);
  cairo_surface_destroy (image);

  /* Small: cells under 28 units are not annotated, so no ink inside them. */
  double sw = 300, sh = 300, x, y, cw, ch;
  ar_heatmap_get_cell_rect (&fig, sw, sh, 0, 0, &x, &y, &cw, &ch);
  g_test_message ("at %gx%g the cells are %g units", sw, sh, cw);
  g_assert_cmpfloat (cw, <, AR_HEATMAP_ANNOTATE_CELL);
  g_assert_cmpfloat (cw, >, 8);
  g_assert_false (ar_heatmap_is_annotated (&fig, sw, sh));
  image = draw_figure (&figure, sw, sh, 1);
  for (int i = 0; i < 6; i++)
    g_assert_cmpint (ink_in_cell (image, &fig, sw, sh, i, i, &bright), ==, 0);
  cairo_surface_destroy (image);

  /* NEVER at the natural size: none either; ALWAYS at the small size: text again. */
  fig.annotate = AR_ANNOTATE_NEVER;
  image = draw_figure (&figure, w, h, 1);
  g_assert_cmpint (ink_in_cell (image, &fig, w, h, 2, 3, &bright), ==, 0);
  cairo_surface_destroy (image);
  fig.annotate = AR_ANNOTATE_ALWAYS;
  image = draw_figure (&figure, sw, sh, 1);
  g_assert_cmpint (ink_in_cell (image, &fig, sw, sh, 5, 5, &bright), >, 5);
  cairo_surface_destroy (image);
}

/* Pixels to probe: every pixel of the lines through the first and last pixel of the first cell
 * row and column and of the gap after them (where an off-by-one would show), and N_RANDOM more
 * anywhere in the figure. [n][2] */
static GArray *
probe_pixels (const ArHeatmapFigure *fig, double w, double h, int n_random)
{
  GArray *points = g_array_new (FALSE, FALSE, sizeof (int) * 2);
  double x, y, cw, ch;
  ar_heatmap_get_cell_rect (fig, w, h, 0, 0, &x, &y, &cw, &ch);
  const double offsets[] = { -1, 0, ch - 1, ch, ch + 1 };
  for (gsize k = 0; k < G_N_ELEMENTS (offsets); k++)
    {
      for (int px = 0; px < (int) w; px++)
        {
          int p[2] = { px, (int) floor (y + offsets[k]) };
          g_array_append_val (points, p);
        }
      for (int py = 0; py < (int) h; py++)
        {
          int p[2] = { (int) floor (x + offsets[k]), py };
          g_array_append_val (points, p);
        }
    }
  for (int i = 0; i < n_random; i++)
    {
      int p[2] = { g_test_rand_int_range (0, (int) w), g_test_rand_int_range (0, (int) h) };
      g_array_append_val (points, p);
    }
  return points;
}

/* Every probed pixel whose centre hits cell (r, c) shows that cell's colour, or the background
 * of the one-unit gap. VALUES differ from cell to cell, so a hit-test that disagreed with the
 * drawing by one cell would fail. Returns the number of probed pixels that hit a cell. */
static int
check_hits_match_pixels (const ArHeatmapFigure *fig, double w, double h, int n_random,
                         int *mismatches)
{
  ArFigure figure = ar_figure_from_heatmap (fig);
  cairo_surface_t *image = draw_figure (&figure, w, h, 1);
  g_autoptr (GArray) points = probe_pixels (fig, w, h, n_random);
  int hits = 0;
  *mismatches = 0;
  for (guint k = 0; k < points->len; k++)
    {
      const int *p = &g_array_index (points, int, 2 * k);
      int row, col;
      if (p[0] < 0 || p[1] < 0 || p[0] >= (int) w || p[1] >= (int) h
          || !ar_heatmap_hit (fig, w, h, p[0] + 0.5, p[1] + 0.5, &row, &col))
        continue;
      hits++;
      ArColor8 c = pixel_at (image, p[0], p[1]);
      gboolean masked = fig->mask_upper && col > row;
      ArColor8 want = masked
                          ? (ArColor8){ 242, 242, 242 }
                          : ar_colormap_color (fig->colormap, fig->values[row * fig->n_cols + col],
                                               fig->vmin, fig->vmax);
      if (!color_close (c, want, 1) && !color_close (c, (ArColor8){ 255, 255, 255 }, 1))
        {
          if (*mismatches == 0)
            g_test_message ("pixel (%d, %d) hits (%d, %d) but is (%d, %d, %d)", p[0], p[1], row,
                            col, c.r, c.g, c.b);
          (*mismatches)++;
        }
    }
  cairo_surface_destroy (image);
  return hits;
}

static void
test_heatmap_hit (void)
{
  enum
  {
    N = 7
  };
  float values[N * N]; /* [7][7] all different */
  for (int i = 0; i < N * N; i++)
    values[i] = (float) i / (N * N - 1);
  ArHeatmapFigure fig;
  ar_heatmap_figure_init (&fig);
  fig.n_rows = fig.n_cols = N;
  fig.values = values;
  fig.annotate = AR_ANNOTATE_NEVER;
  fig.colormap = AR_COLORMAP_VIRIDIS;
  fig.title = "hit";
  double w, h;
  ar_heatmap_get_size (&fig, &w, &h);

  int mismatches, hits = check_hits_match_pixels (&fig, w, h, 1500, &mismatches);
  double x, y, cw, ch;
  ar_heatmap_get_cell_rect (&fig, w, h, 0, 0, &x, &y, &cw, &ch);
  g_test_message ("%d probed pixels hit cells of %g units, %d mismatches", hits, cw, mismatches);
  g_assert_cmpint (mismatches, ==, 0);
  g_assert_cmpint (hits, >, 2000);

  /* Cell centres map back to their cells; the corners of the figure hit nothing. */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      {
        int row = -1, col = -1;
        ar_heatmap_get_cell_rect (&fig, w, h, i, j, &x, &y, &cw, &ch);
        g_assert_true (ar_heatmap_hit (&fig, w, h, x + cw / 2, y + ch / 2, &row, &col));
        g_assert_cmpint (row, ==, i);
        g_assert_cmpint (col, ==, j);
      }
  int row, col;
  g_assert_false (ar_heatmap_hit (&fig, w, h, 1, 1, &row, &col));
  g_assert_false (ar_heatmap_hit (&fig, w, h, w - 1, h - 1, &row, &col));

  /* Another size (wider than tall, cells not whole units) and a causal mask. */
  fig.mask_upper = TRUE;
  hits = check_hits_match_pixels (&fig, 517.5, 333, 1000, &mismatches);
  g_test_message ("517.5 x 333: %d pixels hit, %d mismatches", hits, mismatches);
  g_assert_cmpint (hits, >, 0);
  g_assert_cmpint (mismatches, ==, 0);
}

static void
test_heatmap_long_text (void)
{
  /* 300 tokens: cells drawn as one image, labels thinned; hits still match the pixels. */
  enum
  {
    T = 300
  };
  g_autofree float *values = g_new (float, T *T);
  for (int i = 0; i < T * T; i++)
    values[i] = (float) ((i * 7919) % 1000) / 999.0f;
  ArHeatmapFigure fig;
  ar_heatmap_figure_init (&fig);
  fig.n_rows = fig.n_cols = T;
  fig.values = values;
  double w, h;
  ar_heatmap_get_size (&fig, &w, &h);
  g_test_message ("natural size for %d tokens: %g x %g", T, w, h);
  g_assert_cmpfloat (w, <=, 1400);
  double x, y, cw, ch;
  ar_heatmap_get_cell_rect (&fig, w, h, 0, 0, &x, &y, &cw, &ch);
  g_assert_false (ar_matrix_paint_uses_rects (T, T, cw, ch));
  g_assert_false (ar_heatmap_is_annotated (&fig, w, h));
  int mismatches, hits = check_hits_match_pixels (&fig, w, h, 600, &mismatches);
  g_test_message ("%d probed pixels hit, %d mismatches (cells %g units)", hits, mismatches, cw);
  g_assert_cmpint (hits, >, 1000);
  g_assert_cmpint (mismatches, ==, 0);
}

static void
test_heatmap_size_grows (void)
{
  /* The natural size is a function of the content: more tokens, larger figure, within bounds. */
  double prev_w = 0;
  const int counts[] = { 2, 6, 12, 40, 120, 600 };
  for (gsize k = 0; k < G_N_ELEMENTS (counts); k++)
    {
      int t = counts[k];
      g_autofree float *values = g_new0 (float, t *t);
      ArHeatmapFigure fig;
      ar_heatmap_figure_init (&fig);
      fig.n_rows = fig.n_cols = t;
      fig.values = values;
      double w, h, x, y, cw, ch;
      ar_heatmap_get_size (&fig, &w, &h);
      ar_heatmap_get_cell_rect (&fig, w, h, 0, 0, &x, &y, &cw, &ch);
      g_test_message ("T=%d: %g x %g, cell %g", t, w, h, cw);
      g_assert_cmpfloat (w, >=, prev_w);
      g_assert_cmpfloat (w, ==, floor (w));
      g_assert_cmpfloat (h, ==, floor (h));
      g_assert_cmpfloat (cw + (cw >= 12 ? 1 : 0), <=, 64);
      g_assert_cmpfloat (w, <, 1500);
      prev_w = w;
    }
}

/* ---- grid ----------------------------------------------------------------------------------- */

static void
test_grid (void)
{
  enum
  {
    L = 3,
    H = 4,
    T = 5
  };
  float attn[L * H * T * T]; /* [L][H][T][T]: head e constant e / (L·H - 1) */
  AsHeadPattern patterns[L * H];
  for (int e = 0; e < L * H; e++)
    {
      for (int k = 0; k < T * T; k++)
        attn[e * T * T + k] = (float) e / (L * H - 1);
      patterns[e] = (AsHeadPattern) (e % 4);
    }
  ArGridFigure fig;
  ar_grid_figure_init (&fig);
  fig.title = "All heads";
  fig.n_layers = L;
  fig.n_heads = H;
  fig.n_tokens = T;
  fig.attn = attn;
  fig.patterns = patterns;
  fig.colormap = AR_COLORMAP_MAGMA;
  double w, h;
  ar_grid_get_size (&fig, &w, &h);
  ArFigure figure = ar_figure_from_grid (&fig);
  cairo_surface_t *image = draw_figure (&figure, w, h, 1);
  for (int l = 0; l < L; l++)
    for (int hd = 0; hd < H; hd++)
      {
        double x, y, size;
        ar_grid_get_thumb_rect (&fig, w, h, l, hd, &x, &y, &size);
        g_assert_cmpfloat (size, >=, 56);
        int layer = -1, head = -1;
        g_assert_true (ar_grid_hit (&fig, w, h, x + size / 2, y + size / 2, &layer, &head));
        g_assert_cmpint (layer, ==, l);
        g_assert_cmpint (head, ==, hd);
        g_assert_true (ar_grid_hit (&fig, w, h, x + 1, y + size - 1, &layer, &head));
        g_assert_cmpint (layer * H + head, ==, l * H + hd);
        ArColor8 want = ar_colormap_color (AR_COLORMAP_MAGMA, attn[(l * H + hd) * T * T], 0, 1);
        assert_pixel (image, (int) (x + size / 2), (int) (y + size / 2), want, "thumbnail");
        /* The gap right of the thumbnail is not a head. */
        if (hd + 1 < H)
          g_assert_false (ar_grid_hit (&fig, w, h, x + size + 4, y + size / 2, &layer, &head));
      }
  int layer, head;
  g_assert_false (ar_grid_hit (&fig, w, h, 2, 2, &layer, &head));
  cairo_surface_destroy (image);

  /* 12 × 12 heads: the natural thumbnails stay at least 56 units (readable). */
  g_autofree float *big = g_new0 (float, 12 * 12 * 4 * 4);
  fig.n_layers = fig.n_heads = 12;
  fig.n_tokens = 4;
  fig.attn = big;
  fig.patterns = NULL;
  ar_grid_get_size (&fig, &w, &h);
  double x, y, size;
  ar_grid_get_thumb_rect (&fig, w, h, 11, 11, &x, &y, &size);
  g_test_message ("12x12 grid: %g x %g, thumbnails %g", w, h, size);
  g_assert_cmpfloat (size, >=, 56);
  g_assert_true (ar_grid_hit (&fig, w, h, x + size / 2, y + size / 2, &layer, &head));
  g_assert_cmpint (layer, ==, 11);
  g_assert_cmpint (head, ==, 11);
}

/* The colour range and the clipped flag, read a row span at a time, against every cell asked
 * one by one: causal masks with and without a window, a cell mask, NaN cells, a first row of one
 * value, autoscale and log colours. */
static void
naive_range (const ArViewSelection *view, const ArHeatmapFigure *fig, double *vmin, double *vmax)
{
  double lo = INFINITY, hi = -INFINITY, smallest = INFINITY;
  int rows_with_choice = 0;
  for (int i = 0; i < fig->n_rows; i++)
    {
      int k = 0;
      for (int j = 0; j < fig->n_cols; j++)
        k += ar_heatmap_cell_state (fig, i, j) == AR_CELL_VALUE;
      rows_with_choice += k > 1;
    }
  for (int i = 0; i < fig->n_rows; i++)
    {
      int k = 0;
      for (int j = 0; j < fig->n_cols; j++)
        k += ar_heatmap_cell_state (fig, i, j) == AR_CELL_VALUE;
      if (k == 1 && rows_with_choice > 0)
        continue;
      for (int j = 0; j < fig->n_cols; j++)
        if (ar_heatmap_cell_state (fig, i, j) == AR_CELL_VALUE)
          {
            double v = fig->values[(gsize) i * fig->n_cols + j];
            lo = MIN (lo, v), hi = MAX (hi, v);
            if (v > 0)
              smallest = MIN (smallest, v);
          }
    }
  gboolean data = view->autoscale && hi > lo;
  *vmin = data ? lo : 0;
  *vmax = data ? hi : 1;
  if (view->log_colors)
    *vmin = !data ? 1e-3 * *vmax : MAX (isfinite (smallest) ? smallest : 0, 1e-4 * *vmax);
}

static void
test_heatmap_view_range (void)
{
  enum
  {
    N = 23
  };
  float values[N * N];
  guint8 mask[N * N];
  GRand *rand = g_rand_new_with_seed (7);
  for (int k = 0; k < N * N; k++)
    {
      values[k] = (float) g_rand_double_range (rand, -0.5, 1.5);
      mask[k] = g_rand_int_range (rand, 0, 9) == 0 ? AR_CELL_NO_PARTNER : AR_CELL_VALUE;
    }
  values[5 * N + 2] = NAN;
  values[17 * N + 17] = NAN;
  values[20 * N + 3] = 9.0f; /* the largest, inside the window of 20 only when it is wide */
  g_rand_free (rand);
  int checked = 0;
  for (int masked = 0; masked < 2; masked++)
    for (int window = 0; window <= 20; window += 4)
      for (int with_mask = 0; with_mask < 2; with_mask++)
        for (int flags = 0; flags < 4; flags++)
          {
            ArHeatmapFigure fig;
            ar_heatmap_figure_init (&fig);
            fig.n_rows = fig.n_cols = N;
            fig.values = values;
            fig.mask_upper = masked;
            fig.window = masked ? window : 0;
            fig.cell_mask = with_mask ? mask : NULL;
            ArViewSelection view = { .autoscale = flags & 1, .log_colors = (flags & 2) != 0 };
            double a0, a1, b0, b1;
            ar_heatmap_view_range (&view, &fig, &a0, &a1);
            naive_range (&view, &fig, &b0, &b1);
            g_assert_cmpfloat (a0, ==, b0);
            g_assert_cmpfloat (a1, ==, b1);
            fig.vmin = a0, fig.vmax = a1;
            gboolean clipped = FALSE;
            for (int i = 0; i < N; i++)
              for (int j = 0; j < N; j++)
                clipped = clipped || ar_heatmap_cell_clipped (&fig, i, j);
            g_assert_cmpint (ar_heatmap_find_clipped (&fig), ==, clipped);
            checked += clipped;
          }
  g_assert_cmpint (checked, >, 0); /* some cases clip: the comparison saw both answers */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/render/colormap/matplotlib-values", test_colormap_matplotlib);
  g_test_add_func ("/ui/render/colormap/sampling", test_colormap_sampling);
  g_test_add_func ("/ui/render/colormap/names", test_colormap_names);
  g_test_add_func ("/ui/render/heatmap/cell-colours", test_heatmap_cell_colours);
  g_test_add_func ("/ui/render/heatmap/colorbar", test_heatmap_colorbar);
  g_test_add_func ("/ui/render/heatmap/annotation", test_heatmap_annotation);
  g_test_add_func ("/ui/render/heatmap/hit", test_heatmap_hit);
  g_test_add_func ("/ui/render/heatmap/long-text", test_heatmap_long_text);
  g_test_add_func ("/ui/render/heatmap/view-range", test_heatmap_view_range);
  g_test_add_func ("/ui/render/heatmap/size-grows", test_heatmap_size_grows);
  g_test_add_func ("/ui/render/grid/hit-and-colours", test_grid);
  return g_test_run ();
}

/* test-render.c — ui/render drawn into image surfaces and read back pixel by pixel: colour maps
 * against matplotlib's values, heatmap cells and colour bar, annotation only on large cells,
 * hit-testing of heatmaps, the head grid, scatter plots, line charts and comparison panels, token
 * labels, tick values and number formatting. No display needed. */
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

/* ---- scatter, lines, compare ---------------------------------------------------------------- */

static void
test_scatter (void)
{
  const float xy[] = { -2, -1, 0, 0, 3, 2, 0.2f, 0.1f, 1, -1 }; /* [5][2] */
  const int groups[] = { 0, 0, 1, 1, 1 };
  const char *labels[] = { "The", "\u2423man", "\u2423hit", "\u2423the", "\u2423car" };
  const char *names[] = { "A", "B" };
  ArScatterFigure fig;
  ar_scatter_figure_init (&fig);
  fig.title = "PCA";
  fig.n_points = 5;
  fig.xy = xy;
  fig.labels = labels;
  fig.groups = groups;
  fig.n_groups = 2;
  fig.group_names = names;
  double w, h;
  ar_scatter_get_size (&fig, &w, &h);
  ArFigure figure = ar_figure_from_scatter (&fig);
  cairo_surface_t *image = draw_figure (&figure, w, h, 1);

  double px[5], py[5];
  for (int i = 0; i < 5; i++)
    ar_scatter_get_point_position (&fig, w, h, i, &px[i], &py[i]);
  /* Screen y grows downwards; x and y keep the data's order. */
  g_assert_cmpfloat (px[0], <, px[1]);
  g_assert_cmpfloat (px[1], <, px[2]);
  g_assert_cmpfloat (py[2], <, py[1]);
  g_assert_cmpfloat (py[0], >, py[1]);
  for (int i = 0; i < 5; i++)
    {
      int index = -1;
      g_assert_true (ar_scatter_hit (&fig, w, h, px[i] + 2, py[i] - 2, &index));
      g_assert_cmpint (index, ==, i);
      assert_pixel (image, (int) px[i], (int) py[i], ar_palette_color (groups[i]), "point colour");
    }
  /* Points 1 (0, 0) and 3 (0.2, 0.1) are close: the nearer one wins. */
  int index;
  g_assert_true (ar_scatter_hit (&fig, w, h, px[3] - 1, py[3], &index));
  g_assert_cmpint (index, ==, 3);
  g_assert_false (ar_scatter_hit (&fig, w, h, px[4] + 3 * AR_SCATTER_HIT_RADIUS, py[4], &index));
  cairo_surface_destroy (image);
}

/* 600 points, a third of them in 40 clumps of coincident points: every label box drawn lies in
 * the plot and overlaps no other; coincident points are drawn apart; a point without a label is
 * found under the pointer (the widget shows its label on hover). */
static void
test_scatter_declutter (void)
{
  enum
  {
    N = 600,
    CLUMPS = 40,
    PER_CLUMP = 5
  };
  g_autofree float *xy = g_new (float, 2 * N);
  g_autofree int *groups = g_new (int, N);
  char **labels = g_new0 (char *, N + 1);
  GRand *rand = g_rand_new_with_seed (15);
  for (int i = 0; i < N; i++)
    {
      if (i < CLUMPS * PER_CLUMP && i % PER_CLUMP != 0)
        xy[2 * i] = xy[2 * (i - 1)], xy[2 * i + 1] = xy[2 * (i - 1) + 1];
      else
        xy[2 * i] = (float) g_rand_double_range (rand, -10, 10),
               xy[2 * i + 1] = (float) g_rand_double_range (rand, -10, 10);
      groups[i] = i % 3;
      labels[i] = g_strdup_printf ("\u2423tok%d", i);
    }
  g_rand_free (rand);
  const char *names[] = { "A", "B", "C" };
  ArScatterFigure fig;
  ar_scatter_figure_init (&fig);
  fig.title = "PCA";
  fig.n_points = N;
  fig.xy = xy;
  fig.labels = (const char *const *) labels;
  fig.groups = groups;
  fig.n_groups = 3;
  fig.group_names = names;
  double w, h;
  ar_scatter_get_size (&fig, &w, &h);

  g_autofree double *boxes = g_new (double, 4 * N);
  g_autofree int *indices = g_new (int, N);
  int n = ar_scatter_get_label_boxes (&fig, w, h, boxes, indices);
  g_test_message ("%d of %d labels drawn at %.0f × %.0f", n, N, w, h);
  g_assert_cmpint (n, >, 40);
  g_assert_cmpint (n, <, N);
  /* The plot: the box the points' extremes span (every point lies in it, labels too). */
  double px0 = INFINITY, py0 = INFINITY, px1 = -INFINITY, py1 = -INFINITY;
  g_autofree double *dx = g_new (double, N), *dy = g_new (double, N);
  for (int i = 0; i < N; i++)
    {
      ar_scatter_get_point_position (&fig, w, h, i, &dx[i], &dy[i]);
      px0 = MIN (px0, dx[i]), px1 = MAX (px1, dx[i]);
      py0 = MIN (py0, dy[i]), py1 = MAX (py1, dy[i]);
    }
  g_autofree gboolean *labelled = g_new0 (gboolean, N);
  for (int a = 0; a < n; a++)
    {
      const double *ba = boxes + 4 * a;
      labelled[indices[a]] = TRUE;
      g_assert_cmpfloat (ba[2], >, 10);
      g_assert_cmpfloat (ba[0], >=, 0);
      g_assert_cmpfloat (ba[1], >=, 0);
      g_assert_cmpfloat (ba[0] + ba[2], <=, w);
      g_assert_cmpfloat (ba[1] + ba[3], <=, h);
      /* beside its own point */
      double cx = CLAMP (dx[indices[a]], ba[0], ba[0] + ba[2]);
      double cy = CLAMP (dy[indices[a]], ba[1], ba[1] + ba[3]);
      g_assert_cmpfloat (hypot (cx - dx[indices[a]], cy - dy[indices[a]]), <=, 10);
      for (int b = a + 1; b < n; b++)
        {
          const double *bb = boxes + 4 * b;
          gboolean overlap = ba[0] < bb[0] + bb[2] && bb[0] < ba[0] + ba[2] && ba[1] < bb[1] + bb[3]
                             && bb[1] < ba[1] + ba[3];
          if (overlap)
            g_error ("labels of points %d and %d overlap", indices[a], indices[b]);
        }
    }
  /* Coincident points are drawn apart (at least 3 units between any two of a clump), and each
   * is what is found under the pointer at its own place. */
  for (int c = 0; c < CLUMPS; c++)
    for (int a = c * PER_CLUMP; a < (c + 1) * PER_CLUMP; a++)
      for (int b = a + 1; b < (c + 1) * PER_CLUMP; b++)
        g_assert_cmpfloat (hypot (dx[a] - dx[b], dy[a] - dy[b]), >=, 3);
  int unlabelled_checked = 0;
  for (int i = 0; i < N; i++)
    {
      if (labelled[i] || (i % 7 != 0 && i >= CLUMPS * PER_CLUMP))
        continue;
      int found = -1;
      g_assert_true (ar_scatter_hit (&fig, w, h, dx[i], dy[i], &found));
      g_assert_cmpint (found, ==, i);
      unlabelled_checked++;
    }
  g_assert_cmpint (unlabelled_checked, >, 20);
  g_strfreev (labels);

  /* Drawn: each point of a clump shows its group's colour at its own place (no labels here). */
  const float clump_xy[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, -5, 3 }; /* [9][2] */
  const int clump_groups[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
  ArScatterFigure small;
  ar_scatter_figure_init (&small);
  small.n_points = 9;
  small.xy = clump_xy;
  small.groups = clump_groups;
  small.n_groups = 9;
  small.show_labels = FALSE;
  ar_scatter_get_size (&small, &w, &h);
  ArFigure figure = ar_figure_from_scatter (&small);
  cairo_surface_t *image = draw_figure (&figure, w, h, 1);
  for (int i = 0; i < 9; i++)
    {
      double x, y;
      ar_scatter_get_point_position (&small, w, h, i, &x, &y);
      /* the point's side away from the clump's centre is not covered by a later point */
      gboolean seen = FALSE;
      for (int ddy = -2; ddy <= 2 && !seen; ddy++)
        for (int ddx = -2; ddx <= 2 && !seen; ddx++)
          seen = color_close (pixel_at (image, (int) x + ddx, (int) y + ddy),
                              ar_palette_color (clump_groups[i]), 2);
      if (!seen)
        g_error ("point %d of a clump is not visible at (%.1f, %.1f)", i, x, y);
    }
  cairo_surface_destroy (image);
}

static void
test_lines (void)
{
  const double values[] = { 1.0, 0.9, 0.5, 0.2,   /* series 0 */
                            0.3, NAN, 0.6, 0.8 }; /* series 1, one gap */
  const char *names[] = { "\u2423man", "\u2423car" };
  ArLineFigure fig;
  ar_line_figure_init (&fig);
  fig.n_series = 2;
  fig.n_x = 4;
  fig.values = values;
  fig.series_names = names;
  double w, h;
  ar_line_get_size (&fig, &w, &h);
  ArFigure figure = ar_figure_from_lines (&fig);
  cairo_surface_t *image = draw_figure (&figure, w, h, 1);
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < 4; i++)
      {
        if (isnan (values[s * 4 + i]))
          continue;
        double x, y;
        ar_line_get_point_position (&fig, w, h, s, i, &x, &y);
        int series = -1, xi = -1;
        g_assert_true (ar_line_hit (&fig, w, h, x + 1, y + 1, &series, &xi));
        g_assert_cmpint (series, ==, s);
        g_assert_cmpint (xi, ==, i);
        assert_pixel (image, (int) x, (int) y, ar_palette_color (s), "marker colour");
      }
  /* Higher values are drawn higher up. */
  double x0, y0, x1, y1;
  ar_line_get_point_position (&fig, w, h, 0, 0, &x0, &y0);
  ar_line_get_point_position (&fig, w, h, 0, 3, &x1, &y1);
  g_assert_cmpfloat (y0, <, y1);
  g_assert_cmpfloat (x0, <, x1);
  cairo_surface_destroy (image);
}

static void
test_compare (void)
{
  float diff[36]; /* [6][6] = A2 head 0 - A1 */
  double range = 0;
  for (int i = 0; i < 36; i++)
    {
      diff[i] = seed_a2_head0[i] - seed_a1_attention[i];
      range = MAX (range, fabs (diff[i]));
    }
  diff[7] = 0; /* exactly no difference: the diverging map's middle */
  ArHeatmapFigure a, b, d;
  seed_heatmap (&a, seed_a1_attention);
  seed_heatmap (&b, seed_a2_head0);
  seed_heatmap (&d, diff);
  a.colorbar = FALSE;
  a.subtitle = b.subtitle = d.subtitle = NULL;
  d.colormap = AR_COLORMAP_RDBU_R;
  d.vmin = -range;
  d.vmax = range;
  ArCompareFigure fig = { .title = "Compare", .a = &a, .b = &b, .diff = &d };
  double w, h;
  ar_compare_get_size (&fig, &w, &h);
  /* At its natural size the panels are side by side; one journal column wide (85 mm with 8 pt
   * text is 361 units) they are stacked, each with cells of at least 8 units. */
  for (int narrow = 0; narrow <= 1; narrow++)
    {
      if (narrow)
        {
          w = 361;
          h = ar_compare_get_height_for_width (&fig, w);
        }
      ArFigure figure = ar_figure_from_compare (&fig);
      cairo_surface_t *image = draw_figure (&figure, w, h, 1);
      const ArHeatmapFigure *panels[] = { &a, &b, &d };
      double px[3], py[3], pw[3], ph[3];
      for (int p = 0; p < 3; p++)
        {
          double x, y;
          ar_compare_get_panel_rect (&fig, w, h, (ArComparePanel) p, &x, &y, &pw[p], &ph[p]);
          px[p] = x, py[p] = y;
          g_assert_cmpfloat (pw[p], >, 0);
          g_assert_cmpfloat (x + pw[p], <=, w);
          g_assert_cmpfloat (y + ph[p], <=, h);
          for (int i = 0; i < 6; i += 5)
            for (int j = 0; j < 6; j += 2)
              {
                double cx, cy, cw, ch;
                ar_heatmap_get_cell_rect (panels[p], pw[p], ph[p], i, j, &cx, &cy, &cw, &ch);
                g_assert_cmpfloat (cw, >=, 8);
                ArComparePanel panel;
                int row = -1, col = -1;
                g_assert_true (
                    ar_compare_hit (&fig, w, h, x + cx + 3, y + cy + 3, &panel, &row, &col));
                g_assert_cmpint (panel, ==, p);
                g_assert_cmpint (row, ==, i);
                g_assert_cmpint (col, ==, j);
                ArColor8 want
                    = ar_colormap_color (panels[p]->colormap, panels[p]->values[i * 6 + j],
                                         panels[p]->vmin, panels[p]->vmax);
                assert_pixel (image, (int) ceil (x + cx + 2), (int) ceil (y + cy + 2), want,
                              "panel");
              }
          if (p == 2)
            {
              double cx, cy, cw, ch;
              ar_heatmap_get_cell_rect (&d, pw[p], ph[p], 1, 1, &cx, &cy, &cw, &ch);
              assert_pixel (image, (int) ceil (x + cx + 2), (int) ceil (y + cy + 2),
                            (ArColor8){ 247, 246, 246 }, "zero difference");
            }
        }
      for (int p = 1; p < 3; p++)
        if (narrow)
          {
            /* one under the other, not overlapping */
            g_assert_cmpfloat (py[p], >=, py[p - 1] + ph[p - 1] - 0.5);
            g_assert_cmpfloat (px[p], ==, px[0]);
          }
        else
          {
            g_assert_cmpfloat (py[p], ==, py[0]);
            g_assert_cmpfloat (px[p], >=, px[p - 1] + pw[p - 1] - 0.5);
          }
      cairo_surface_destroy (image);
    }
}

/* ---- text ------------------------------------------------------------------------------------ */

static void
test_token_labels (void)
{
  /* TEXT is what the core gives as the token's text (as_tokenizer_dup_token_text; its byte-level
   * decoding is tested in tests/core/test-tokenizer.c). */
  struct
  {
    const char *token, *text, *label;
  } cases[] = {
    { "\u0120the", " the", "\u2423the" },           /* Ġthe */
    { "\u010a", "\n", "\u21b5" },                   /* Ċ newline */
    { "\u0109", "\t", "\u21e5" },                   /* ĉ tab */
    { "\u00c3\u00a9", "\u00e9", "\u00e9" },         /* Ã© = the two bytes of é */
    { "May", "May", "May" },                        /* word-level toy token */
    { "\u00e2\u0122", "\xe2\x80", "\u00e2\u0122" }, /* âĢ: an incomplete UTF-8 sequence stays raw */
    { "caf\u00e9", "caf\xe9", "caf\u00e9" },     /* 'é' alone is byte 0xE9: invalid UTF-8, raw */
    { "\u20ac", "\u20ac", "\u20ac" },            /* outside the byte table: its own string */
    { "\u0100", "\u0100", "\u0100" },            /* byte 0 (NUL) is not shown as text: raw */
    { "<|endoftext|>", NULL, "<|endoftext|>" },  /* no text: the vocabulary string */
    { "a\u0100", "a\x01\x7f", "a\u2401\u2421" }, /* control characters as pictures */
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *label = ar_token_label (cases[i].token, cases[i].text, FALSE);
      g_assert_cmpstr (label, ==, cases[i].label);
      g_autofree char *raw = ar_token_label (cases[i].token, cases[i].text, TRUE);
      g_assert_cmpstr (raw, ==, cases[i].token);
    }
}

static void
test_ticks (void)
{
  ArTicks t;
  ar_ticks_compute (&t, 0, 1, 6);
  g_assert_cmpint (t.n, ==, 6);
  g_assert_cmpfloat_with_epsilon (t.values[1], 0.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (t.values[5], 1.0, 1e-12);
  g_assert_cmpint (t.decimals, ==, 1);
  ar_ticks_compute (&t, -0.34, 0.34, 5);
  g_assert_cmpfloat_with_epsilon (t.step, 0.2, 1e-12);
  g_assert_cmpint (t.n, ==, 3);
  g_assert_cmpfloat (t.values[1], ==, 0.0);
  ar_ticks_compute (&t, 0, 1, 3);
  g_assert_cmpfloat_with_epsilon (t.step, 0.5, 1e-12);
  ar_ticks_compute (&t, 0, 1, 5);
  g_assert_cmpfloat_with_epsilon (t.step, 0.25, 1e-12);
  g_assert_cmpint (t.decimals, ==, 2);
  ar_ticks_compute (&t, -3, 117, 6);
  g_assert_cmpfloat_with_epsilon (t.step, 25, 1e-9);
  g_assert_cmpint (t.decimals, ==, 0);
  g_assert_cmpfloat (t.values[0], ==, 0);
  double lo = 0.12, hi = 0.97;
  ar_ticks_nice_range (&lo, &hi, 5);
  g_assert_cmpfloat_with_epsilon (lo, 0.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (hi, 1.0, 1e-12);
}

static void
test_format_number (void)
{
  g_autofree char *a = ar_format_number (-0.25, 2);
  g_assert_cmpstr (a, ==, "\u22120.25");
  g_autofree char *b = ar_format_number (-0.001, 2);
  g_assert_cmpstr (b, ==, "0.00");
  g_autofree char *c = ar_format_number (0.6712, 2);
  g_assert_cmpstr (c, ==, "0.67");
  g_autofree char *d = ar_format_number (1, 1);
  g_assert_cmpstr (d, ==, "1.0");
}

/* Grouped-query attention (SmolLM2: 9 query heads over 3 key/value heads): the title and the
 * head's key/value head as HF's repeat_kv assigns them. */
static void
test_attention_title_kv_heads (void)
{
  g_assert_cmpint (ar_kv_head_of (0, 9, 3), ==, 0);
  g_assert_cmpint (ar_kv_head_of (5, 9, 3), ==, 1);
  g_assert_cmpint (ar_kv_head_of (8, 9, 3), ==, 2);
  g_assert_cmpint (ar_kv_head_of (31, 32, 8), ==, 7);
  g_assert_cmpint (ar_kv_head_of (5, 12, 12), ==, -1);
  g_assert_cmpint (ar_kv_head_of (5, 12, 0), ==, -1);
  ArViewSelection view;
  ar_view_selection_init (&view);
  view.layer = 29;
  view.head = 5;
  g_autofree char *gqa = ar_attention_title (&view, 9, 3);
  g_assert_cmpstr (gqa, ==, "Layer 29 · head 5 · key/value head 1");
  g_autofree char *mha = ar_attention_title (&view, 12, 12);
  g_assert_cmpstr (mha, ==, "Layer 29 · head 5");
}

/* A Llama SentencePiece vocabulary (tokenizer.json with byte fallback): "▁" pieces and byte
 * pieces read as what they stand for, through the tokenizer's own decoder. */
static void
test_token_labels_sentencepiece (void)
{
  g_autofree char *folder = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests",
                                              "fixtures", "tokenizers", "llama-spm", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_load_folder (folder, &error);
  g_assert_no_error (error);
  struct
  {
    const char *token, *label;
  } cases[] = {
    { "\u2581the", "\u2423the" }, /* ▁the */
    { "<0x0A>", "\u21b5" },       /* byte fallback: a newline */
    { "<0x09>", "\u21e5" },       /* a tab */
    { "<0xF0>", "<0xF0>" },       /* a lone lead byte of an emoji stays raw */
    { "<s>", "<s>" },             /* BOS: its vocabulary string */
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int32_t id = as_tokenizer_lookup (tokenizer, cases[i].token);
      g_assert_cmpint (id, >=, 0);
      g_autofree char *text = as_tokenizer_dup_token_text (tokenizer, id);
      g_autofree char *label = ar_token_label (cases[i].token, text, FALSE);
      g_assert_cmpstr (label, ==, cases[i].label);
    }
}

/* The alignment figure: two links of strength 1 and 0.5 and nothing else; a link's opacity
 * grows with its weight (its middle is darker), a highlighted token's link takes the accent
 * colour, the natural size holds both lines, every token hit-tests to itself. */
static void
test_alignment (void)
{
  static const char *const source[] = { "The", "group", "home" };
  static const char *const target[] = { "Die", "Hause" };
  static const float weights[] = { 1.0f, 0.0f, 0.0f, 0.0f, 0.004f, 0.5f }; /* [T=2][S=3] */
  ArAlignmentFigure fig;
  ar_alignment_figure_init (&fig);
  fig.title = "Cross-attention · layer 0 · head 0 · alignment";
  fig.n_source = 3, fig.n_target = 2;
  fig.source_labels = source, fig.target_labels = target;
  fig.weights = weights;
  fig.source_caption = "Source", fig.target_caption = "Target";
  g_assert_cmpfloat (ar_alignment_link_strength (&fig, 0, 0), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (ar_alignment_link_strength (&fig, 1, 2), 0.5, 1e-9);
  g_assert_cmpfloat (ar_alignment_link_strength (&fig, 1, 1), ==, 0.0); /* under 1 % */
  ArFigure f = ar_figure_from_alignment (&fig);
  double w, h;
  ar_figure_get_size (&f, &w, &h);
  g_assert_cmpfloat (ar_figure_get_height_for_width (&f, w), ==, h);

  /* the middle of the link between source J and target I */
  double mid[2][2];
  const int links[2][2] = { { 0, 0 }, { 1, 2 } };
  for (int k = 0; k < 2; k++)
    {
      double sx, sy, sw, sh, tx, ty, tw, th;
      ar_alignment_get_token_rect (&fig, w, h, FALSE, links[k][1], &sx, &sy, &sw, &sh);
      ar_alignment_get_token_rect (&fig, w, h, TRUE, links[k][0], &tx, &ty, &tw, &th);
      g_assert_cmpfloat (ty, >, sy + sh);
      mid[k][0] = (sx + sw / 2 + tx + tw / 2) / 2, mid[k][1] = (sy + sh + ty) / 2;
    }
  cairo_surface_t *image = draw_figure (&f, w, h, 1);
  ArColor8 strong = pixel_at (image, (int) mid[0][0], (int) mid[0][1]);
  ArColor8 half = pixel_at (image, (int) mid[1][0], (int) mid[1][1]);
  ArColor8 none = pixel_at (image, (int) w - 30, (int) mid[0][1]);
  g_test_message ("strong %d, half %d, none %d", strong.r, half.r, none.r);
  g_assert_cmpint (strong.r, <, 80);
  g_assert_cmpint (half.r, >, strong.r + 40);
  g_assert_cmpint (half.r, <, 200);
  g_assert_cmpint (none.r, ==, 255);
  cairo_surface_destroy (image);

  /* target 1 highlighted: its link in the accent colour (red), the other faded */
  fig.highlight_target = 1;
  image = draw_figure (&f, w, h, 1);
  ArColor8 accent = pixel_at (image, (int) mid[1][0], (int) mid[1][1]);
  ArColor8 faded = pixel_at (image, (int) mid[0][0], (int) mid[0][1]);
  g_assert_cmpint (accent.r, >, accent.g + 60);
  g_assert_cmpint (faded.r, >, 200);
  cairo_surface_destroy (image);

  for (int line = 0; line < 2; line++)
    for (int k = 0; k < (line ? 2 : 3); k++)
      {
        double x, y, bw, bh;
        ar_alignment_get_token_rect (&fig, w, h, line, k, &x, &y, &bw, &bh);
        gboolean is_target = !line;
        int index = -1;
        g_assert_true (ar_alignment_hit (&fig, w, h, x + bw / 2, y + bh / 2, &is_target, &index));
        g_assert_cmpint (is_target, ==, line);
        g_assert_cmpint (index, ==, k);
      }
  /* the band between the lines holds no token */
  gboolean t;
  int i;
  g_assert_false (ar_alignment_hit (&fig, w, h, mid[0][0], mid[0][1], &t, &i));
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
  g_test_add_func ("/ui/render/heatmap/size-grows", test_heatmap_size_grows);
  g_test_add_func ("/ui/render/grid/hit-and-colours", test_grid);
  g_test_add_func ("/ui/render/scatter/hit-and-colours", test_scatter);
  g_test_add_func ("/ui/render/scatter/declutter-600", test_scatter_declutter);
  g_test_add_func ("/ui/render/lines/hit-and-colours", test_lines);
  g_test_add_func ("/ui/render/compare/panels", test_compare);
  g_test_add_func ("/ui/render/alignment/links", test_alignment);
  g_test_add_func ("/ui/render/attention/title-kv-heads", test_attention_title_kv_heads);
  g_test_add_func ("/ui/render/text/token-labels", test_token_labels);
  g_test_add_func ("/ui/render/text/token-labels-sentencepiece", test_token_labels_sentencepiece);
  g_test_add_func ("/ui/render/text/ticks", test_ticks);
  g_test_add_func ("/ui/render/text/format-number", test_format_number);
  return g_test_run ();
}

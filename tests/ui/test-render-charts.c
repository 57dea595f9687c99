/* test-render-charts.c — ui/render's charts drawn into image surfaces and read back pixel by
 * pixel: scatter plots (hit-testing, colours, decluttered labels of 600 points), line charts,
 * comparison panels and the alignment figure. No display needed. */
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
  g_test_add_func ("/ui/render/scatter/hit-and-colours", test_scatter);
  g_test_add_func ("/ui/render/scatter/declutter-600", test_scatter_declutter);
  g_test_add_func ("/ui/render/lines/hit-and-colours", test_lines);
  g_test_add_func ("/ui/render/compare/panels", test_compare);
  g_test_add_func ("/ui/render/alignment/links", test_alignment);
  return g_test_run ();
}

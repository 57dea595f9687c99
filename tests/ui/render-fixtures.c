/* render-fixtures.c — see render-fixtures.h. */
#include "render-fixtures.h"

#include <math.h>
#include <stdlib.h>

const float seed_a1_attention[36] = {
  0.3388f, 0.0651f, 0.1020f, 0.1955f, 0.1128f, 0.1859f, /* May */
  0.0622f, 0.3237f, 0.2064f, 0.1077f, 0.1867f, 0.1133f, /* the */
  0.0966f, 0.2044f, 0.3206f, 0.1515f, 0.1304f, 0.0966f, /* force */
  0.1863f, 0.1075f, 0.1526f, 0.3230f, 0.0620f, 0.1686f, /* be */
  0.1157f, 0.2006f, 0.1414f, 0.0668f, 0.3477f, 0.1279f, /* with */
  0.1776f, 0.1133f, 0.0975f, 0.1690f, 0.1191f, 0.3236f, /* you */
};

const float seed_a2_head0[36] = {
  0.068118f, 0.181340f, 0.071635f, 0.027055f, 0.456570f, 0.195282f, 0.015012f, 0.246116f, 0.019410f,
  0.006160f, 0.599809f, 0.113493f, 0.007348f, 0.470308f, 0.094195f, 0.009372f, 0.368718f, 0.050059f,
  0.054408f, 0.292597f, 0.065859f, 0.040474f, 0.393329f, 0.153334f, 0.018118f, 0.147041f, 0.020352f,
  0.003969f, 0.671181f, 0.139338f, 0.106796f, 0.130137f, 0.028468f, 0.034135f, 0.407147f, 0.293317f,
};

const char *const seed_words[6] = { "May", "the", "force", "be", "with", "you" };

void
seed_heatmap (ArHeatmapFigure *fig, const float *values)
{
  ar_heatmap_figure_init (fig);
  fig->title = "Layer 0 \u00b7 head 0";
  fig->subtitle = "seed-two-heads \u00b7 \u201cMay the force be with you\u201d";
  fig->n_rows = fig->n_cols = 6;
  fig->values = values;
  fig->row_labels = seed_words;
  fig->col_labels = seed_words;
  fig->colorbar_label = "Attention weight";
}

cairo_surface_t *
draw_figure (const ArFigure *fig, double width, double height, double scale)
{
  cairo_surface_t *image = cairo_image_surface_create (
      CAIRO_FORMAT_ARGB32, (int) ceil (width * scale), (int) ceil (height * scale));
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  cairo_t *cr = cairo_create (image);
  cairo_scale (cr, scale, scale);
  ar_figure_render (cr, fig, width, height);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (image);
  return image;
}

ArColor8
pixel_at (cairo_surface_t *image, int x, int y)
{
  g_assert_cmpint (x, >=, 0);
  g_assert_cmpint (y, >=, 0);
  g_assert_cmpint (x, <, cairo_image_surface_get_width (image));
  g_assert_cmpint (y, <, cairo_image_surface_get_height (image));
  const unsigned char *data = cairo_image_surface_get_data (image);
  guint32 p = *(const guint32 *) (data + (gsize) y * cairo_image_surface_get_stride (image)
                                  + (gsize) x * 4);
  return (ArColor8){ (p >> 16) & 0xff, (p >> 8) & 0xff, p & 0xff };
}

gboolean
color_close (ArColor8 a, ArColor8 b, int tol)
{
  return abs (a.r - b.r) <= tol && abs (a.g - b.g) <= tol && abs (a.b - b.b) <= tol;
}

void
assert_pixel (cairo_surface_t *image, int x, int y, ArColor8 expected, const char *what)
{
  ArColor8 got = pixel_at (image, x, y);
  if (!color_close (got, expected, 1))
    {
      g_test_message ("%s: pixel (%d, %d) is (%d, %d, %d), expected (%d, %d, %d)", what, x, y,
                      got.r, got.g, got.b, expected.r, expected.g, expected.b);
      g_test_fail ();
    }
}

/* matrix-paint.c — coloured cells as rectangles or as one nearest-neighbour scaled image. */
#include "matrix-paint.h"

#include <math.h>

gboolean
as_matrix_paint_uses_rects (int rows, int cols, double cell_w, double cell_h)
{
  return MIN (cell_w, cell_h) >= AS_MATRIX_MIN_RECT_CELL
         && (gint64) rows * cols <= AS_MATRIX_MAX_RECTS;
}

static AsColor8
cell_color (const AsMatrixPaint *paint, const float *values, int cols, int i, int j,
            gboolean *masked)
{
  *masked = paint->mask_upper && j > i;
  return as_colormap_color (paint->colormap, values[(gsize) i * cols + j], paint->vmin,
                            paint->vmax);
}

static void
paint_rects (cairo_t *cr, const AsMatrixPaint *paint, const float *values, int rows, int cols,
             double x, double y, double cell_w, double cell_h)
{
  double gap = paint->gap;
  if (gap > 0)
    {
      /* The gaps are the background showing between cells. */
      as_render_set_rgb (cr, paint->gap_color);
      cairo_rectangle (cr, x, y, cols * cell_w, rows * cell_h);
      cairo_fill (cr);
    }
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      {
        gboolean masked;
        AsColor8 c = cell_color (paint, values, cols, i, j, &masked);
        if (masked)
          as_render_set_rgb (cr, paint->masked);
        else
          as_render_set_color8 (cr, c);
        cairo_rectangle (cr, x + j * cell_w, y + i * cell_h, cell_w - gap, cell_h - gap);
        cairo_fill (cr);
      }
}

static void
paint_image (cairo_t *cr, const AsMatrixPaint *paint, const float *values, int rows, int cols,
             double x, double y, double cell_w, double cell_h)
{
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_RGB24, cols, rows);
  if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (image);
      return;
    }
  cairo_surface_flush (image);
  unsigned char *data = cairo_image_surface_get_data (image);
  int stride = cairo_image_surface_get_stride (image);
  guint32 masked = 0xff000000u | (guint32) lround (paint->masked.r * 255) << 16
                   | (guint32) lround (paint->masked.g * 255) << 8
                   | (guint32) lround (paint->masked.b * 255);
  for (int i = 0; i < rows; i++)
    {
      guint32 *row = (guint32 *) (data + (gsize) i * stride); /* [cols] xRGB */
      for (int j = 0; j < cols; j++)
        {
          gboolean is_masked;
          AsColor8 c = cell_color (paint, values, cols, i, j, &is_masked);
          row[j] = is_masked ? masked
                             : 0xff000000u | (guint32) c.r << 16 | (guint32) c.g << 8 | c.b;
        }
    }
  cairo_surface_mark_dirty (image);

  cairo_save (cr);
  cairo_rectangle (cr, x, y, cols * cell_w, rows * cell_h);
  cairo_clip (cr);
  cairo_translate (cr, x, y);
  cairo_scale (cr, cell_w, cell_h);
  cairo_set_source_surface (cr, image, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_pattern_set_extend (cairo_get_source (cr), CAIRO_EXTEND_PAD);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (image);
}

void
as_matrix_paint (cairo_t *cr, const AsMatrixPaint *paint, const float *values, int rows, int cols,
                 double x, double y, double cell_w, double cell_h)
{
  if (rows <= 0 || cols <= 0 || cell_w <= 0 || cell_h <= 0)
    return;
  if (as_matrix_paint_uses_rects (rows, cols, cell_w, cell_h))
    paint_rects (cr, paint, values, rows, cols, x, y, cell_w, cell_h);
  else
    paint_image (cr, paint, values, rows, cols, x, y, cell_w, cell_h);
}

/* matrix-paint.c — coloured cells as rectangles or as one nearest-neighbour scaled image. */
#include "matrix-paint.h"

#include <math.h>

gboolean
ar_matrix_paint_uses_rects (int rows, int cols, double cell_w, double cell_h)
{
  return MIN (cell_w, cell_h) >= AR_MATRIX_MIN_RECT_CELL
         && (gint64) rows * cols <= AR_MATRIX_MAX_RECTS;
}

static ArColor8
cell_color (const ArMatrixPaint *paint, const float *values, int cols, int i, int j,
            gboolean *masked)
{
  *masked = paint->mask_upper && j > i;
  return ar_colormap_color (paint->colormap, values[(gsize) i * cols + j], paint->vmin,
                            paint->vmax);
}

static void
paint_rects (cairo_t *cr, const ArMatrixPaint *paint, const float *values, int rows, int cols,
             double x, double y, double cell_w, double cell_h)
{
  double gap = paint->gap;
  if (gap > 0)
    {
      /* The gaps are the background showing between cells. */
      ar_render_set_rgb (cr, paint->gap_color);
      cairo_rectangle (cr, x, y, cols * cell_w, rows * cell_h);
      cairo_fill (cr);
    }
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      {
        gboolean masked;
        ArColor8 c = cell_color (paint, values, cols, i, j, &masked);
        if (masked)
          ar_render_set_rgb (cr, paint->masked);
        else
          ar_render_set_color8 (cr, c);
        cairo_rectangle (cr, x + j * cell_w, y + i * cell_h, cell_w - gap, cell_h - gap);
        cairo_fill (cr);
      }
}

static guint32
pack_xrgb (ArColor8 c)
{
  return 0xff000000u | (guint32) c.r << 16 | (guint32) c.g << 8 | c.b;
}

static guint32
masked_pixel (const ArMatrixPaint *paint)
{
  ArColor8 c = { (guint8) lround (paint->masked.r * 255), (guint8) lround (paint->masked.g * 255),
                 (guint8) lround (paint->masked.b * 255) };
  return pack_xrgb (c);
}

static guint32
cell_pixel (const ArMatrixPaint *paint, const float *values, int cols, int i, int j)
{
  gboolean masked;
  ArColor8 c = cell_color (paint, values, cols, i, j, &masked);
  return masked ? masked_pixel (paint) : pack_xrgb (c);
}

/* Vector targets: a COLS × ROWS image scaled up with nearest-neighbour filtering. */
static void
paint_scaled_image (cairo_t *cr, const ArMatrixPaint *paint, const float *values, int rows,
                    int cols, double x, double y, double cell_w, double cell_h)
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
  for (int i = 0; i < rows; i++)
    {
      guint32 *row = (guint32 *) (data + (gsize) i * stride); /* [cols] xRGB */
      for (int j = 0; j < cols; j++)
        row[j] = cell_pixel (paint, values, cols, i, j);
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

/* For each of N target pixels from FIRST: the cell whose span holds the pixel's centre, or -1.
 * SCALE and OFFSET map user space to target pixels; the rule is the one ar_heatmap_hit uses. */
static int *
pixel_cells (int first, int n, double scale, double offset, double origin, double cell, int count)
{
  int *cells = g_new (int, n);
  for (int k = 0; k < n; k++)
    {
      double user = (first + k + 0.5 - offset) / scale;
      double c = floor ((user - origin) / cell);
      cells[k] = c >= 0 && c < count ? (int) c : -1;
    }
  return cells;
}

/* Image targets under a scale-and-translate transform: one image at the target's own resolution
 * in which every pixel takes the colour of the cell its centre falls in, copied without any
 * resampling. Screen, PNG and hit-testing then agree on every pixel, borders included. Returns
 * FALSE when the transform or target does not allow it. */
static gboolean
paint_pixel_exact (cairo_t *cr, const ArMatrixPaint *paint, const float *values, int rows, int cols,
                   double x, double y, double cell_w, double cell_h)
{
  cairo_surface_t *target = cairo_get_target (cr);
  cairo_matrix_t m;
  cairo_get_matrix (cr, &m);
  if (cairo_surface_get_type (target) != CAIRO_SURFACE_TYPE_IMAGE || m.xy != 0 || m.yx != 0
      || m.xx <= 0 || m.yy <= 0)
    return FALSE;
  double dsx, dsy, dox, doy;
  cairo_surface_get_device_scale (target, &dsx, &dsy);
  cairo_surface_get_device_offset (target, &dox, &doy);
  /* user -> target pixels: p = (m.xx · u + m.x0) · ds + do */
  double sx = m.xx * dsx, ox = m.x0 * dsx + dox, sy = m.yy * dsy, oy = m.y0 * dsy + doy;
  int px0 = (int) floor (x * sx + ox), px1 = (int) ceil ((x + cols * cell_w) * sx + ox);
  int py0 = (int) floor (y * sy + oy), py1 = (int) ceil ((y + rows * cell_h) * sy + oy);
  int w = px1 - px0, h = py1 - py0;
  if (w <= 0 || h <= 0 || w > 32767 || h > 32767)
    return TRUE;
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (image);
      return TRUE;
    }
  g_autofree int *col_of = pixel_cells (px0, w, sx, ox, x, cell_w, cols); /* [w] */
  g_autofree int *row_of = pixel_cells (py0, h, sy, oy, y, cell_h, rows); /* [h] */
  cairo_surface_flush (image);
  unsigned char *data = cairo_image_surface_get_data (image);
  int stride = cairo_image_surface_get_stride (image);
  for (int r = 0; r < h; r++)
    {
      guint32 *line = (guint32 *) (data + (gsize) r * stride); /* [w] premultiplied ARGB */
      for (int c = 0; c < w; c++)
        line[c] = row_of[r] < 0 || col_of[c] < 0
                      ? 0
                      : cell_pixel (paint, values, cols, row_of[r], col_of[c]);
    }
  cairo_surface_mark_dirty (image);
  cairo_surface_set_device_scale (image, dsx, dsy);
  cairo_save (cr);
  cairo_identity_matrix (cr);
  cairo_set_source_surface (cr, image, (px0 - dox) / dsx, (py0 - doy) / dsy);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (image);
  return TRUE;
}

void
ar_matrix_paint (cairo_t *cr, const ArMatrixPaint *paint, const float *values, int rows, int cols,
                 double x, double y, double cell_w, double cell_h)
{
  if (rows <= 0 || cols <= 0 || cell_w <= 0 || cell_h <= 0)
    return;
  if (ar_matrix_paint_uses_rects (rows, cols, cell_w, cell_h))
    paint_rects (cr, paint, values, rows, cols, x, y, cell_w, cell_h);
  else if (!paint_pixel_exact (cr, paint, values, rows, cols, x, y, cell_w, cell_h))
    paint_scaled_image (cr, paint, values, rows, cols, x, y, cell_w, cell_h);
}

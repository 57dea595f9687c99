/* matrix-paint.c — coloured cells as rectangles or as one nearest-neighbour scaled image. */
#include "matrix-paint.h"

#include <math.h>

gboolean
ar_matrix_paint_uses_rects (int rows, int cols, double cell_w, double cell_h)
{
  return MIN (cell_w, cell_h) >= AR_MATRIX_MIN_RECT_CELL
         && (gint64) rows * cols <= AR_MATRIX_MAX_RECTS;
}

static int
stride_of (const ArMatrixPaint *paint, int cols)
{
  return paint->stride > 0 ? paint->stride : cols;
}

/* Whether cell (I, J) of the whole matrix (STRIDE wide) holds no value. */
static inline gboolean
cell_masked (const ArMatrixPaint *paint, const float *values, int stride, int i, int j)
{
  gsize k = (gsize) i * stride + j;
  return (paint->mask_upper && j > i) || (paint->window > 0 && j <= i - paint->window)
         || (paint->cell_mask != NULL && paint->cell_mask[k] != 0) || isnan (values[k]);
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
  int stride = stride_of (paint, cols);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      {
        int r = paint->row0 + i, c = paint->col0 + j;
        if (cell_masked (paint, values, stride, r, c))
          ar_render_set_rgb (cr, paint->masked);
        else
          ar_render_set_color8 (
              cr, ar_colormap_color_scaled (paint->colormap, values[(gsize) r * stride + c],
                                            paint->vmin, paint->vmax, paint->log));
        cairo_rectangle (cr, x + j * cell_w, y + i * cell_h, cell_w - gap, cell_h - gap);
        cairo_fill (cr);
      }
}

static guint32
pack_xrgb (ArColor8 c)
{
  return 0xff000000u | (guint32) c.r << 16 | (guint32) c.g << 8 | c.b;
}

/* The pixels of one paint: the map's 256 entries packed, the masked colour, and the range, so
 * that a cell costs one division and one lookup. pixel () gives exactly the colour
 * ar_colormap_color () gives (the same arithmetic, colormap.h). */
typedef struct
{
  guint32 entry[256];
  guint32 masked;
  double vmin, span; /* span <= 0: every value takes entry 0; log10 of both with LOG */
  gboolean log;
  const ArMatrixPaint *paint;
  const float *values; /* the whole matrix, STRIDE wide */
  int stride, row0, col0;
} Pixels;

static void
pixels_init (Pixels *px, const ArMatrixPaint *paint, const float *values, int cols)
{
  for (int i = 0; i < 256; i++)
    px->entry[i] = pack_xrgb (ar_colormap_entry (paint->colormap, i));
  ArColor8 m = { (guint8) lround (paint->masked.r * 255), (guint8) lround (paint->masked.g * 255),
                 (guint8) lround (paint->masked.b * 255) };
  px->masked = pack_xrgb (m);
  px->log = paint->log && paint->vmin > 0 && paint->vmax > paint->vmin;
  px->vmin = px->log ? log10 (paint->vmin) : paint->vmin;
  double top = px->log ? log10 (paint->vmax) : paint->vmax;
  px->span = top > px->vmin ? top - px->vmin : 0;
  px->paint = paint;
  px->values = values;
  px->stride = stride_of (paint, cols);
  px->row0 = paint->row0;
  px->col0 = paint->col0;
}

/* The colour of cell (I, J) of the window painted. */
static inline guint32
pixel (const Pixels *px, int i, int j)
{
  int r = px->row0 + i, c = px->col0 + j;
  if (cell_masked (px->paint, px->values, px->stride, r, c))
    return px->masked;
  if (!(px->span > 0))
    return px->entry[0];
  double v = px->values[(gsize) r * px->stride + c];
  if (px->log)
    v = v > 0 ? log10 (v) : -INFINITY;
  double t = (v - px->vmin) / px->span;
  double x = floor (CLAMP (t, 0.0, 1.0) * 256.0);
  return px->entry[x >= 256 ? 255 : (int) x];
}

/* One image of W × H pixels in which pixel (r, c) takes the colour of cell (ROW_OF[r],
 * COL_OF[c]) (-1: transparent). */
static cairo_surface_t *
cell_image (const Pixels *px, const int *row_of, const int *col_of, int w, int h,
            cairo_format_t format)
{
  cairo_surface_t *image = cairo_image_surface_create (format, w, h);
  if (cairo_surface_status (image) != CAIRO_STATUS_SUCCESS)
    return image;
  cairo_surface_flush (image);
  unsigned char *data = cairo_image_surface_get_data (image);
  int stride = cairo_image_surface_get_stride (image);
  for (int r = 0; r < h; r++)
    {
      guint32 *line = (guint32 *) (data + (gsize) r * stride); /* [w] (premultiplied) ARGB */
      for (int c = 0; c < w; c++)
        line[c] = row_of[r] < 0 || col_of[c] < 0 ? 0 : pixel (px, row_of[r], col_of[c]);
    }
  cairo_surface_mark_dirty (image);
  return image;
}

/* N evenly spaced picks among COUNT cells: cell floor((k + 0.5) · COUNT / N) for pixel k (every
 * cell once when N = COUNT). */
static int *
even_cells (int n, int count)
{
  int *cells = g_new (int, n);
  for (int k = 0; k < n; k++)
    cells[k] = MIN ((int) floor ((k + 0.5) * count / n), count - 1);
  return cells;
}

/* Other targets: one image scaled up with nearest-neighbour filtering. In files (SVG, PDF) it has
 * one pixel per cell, COLS × ROWS. A recording — what a GTK widget draws into — is replayed on
 * screen: cells smaller than half a unit cannot all be seen there, so the image has at most two
 * pixels per unit (enough for 2× displays), each the cell under its centre. */
static void
paint_scaled_image (cairo_t *cr, const Pixels *px, int rows, int cols, double x, double y,
                    double cell_w, double cell_h)
{
  int w = cols, h = rows;
  if (cairo_surface_get_type (cairo_get_target (cr)) == CAIRO_SURFACE_TYPE_RECORDING)
    {
      w = MIN (cols, MAX (1, (int) ceil (2 * cols * cell_w)));
      h = MIN (rows, MAX (1, (int) ceil (2 * rows * cell_h)));
    }
  g_autofree int *col_of = even_cells (w, cols); /* [w] */
  g_autofree int *row_of = even_cells (h, rows); /* [h] */
  cairo_surface_t *image = cell_image (px, row_of, col_of, w, h, CAIRO_FORMAT_RGB24);
  if (cairo_surface_status (image) == CAIRO_STATUS_SUCCESS)
    {
      cairo_save (cr);
      cairo_rectangle (cr, x, y, cols * cell_w, rows * cell_h);
      cairo_clip (cr);
      cairo_translate (cr, x, y);
      cairo_scale (cr, cols * cell_w / w, rows * cell_h / h);
      cairo_set_source_surface (cr, image, 0, 0);
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
      cairo_pattern_set_extend (cairo_get_source (cr), CAIRO_EXTEND_PAD);
      cairo_paint (cr);
      cairo_restore (cr);
    }
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
paint_pixel_exact (cairo_t *cr, const Pixels *px, int rows, int cols, double x, double y,
                   double cell_w, double cell_h)
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
  g_autofree int *col_of = pixel_cells (px0, w, sx, ox, x, cell_w, cols); /* [w] */
  g_autofree int *row_of = pixel_cells (py0, h, sy, oy, y, cell_h, rows); /* [h] */
  cairo_surface_t *image = cell_image (px, row_of, col_of, w, h, CAIRO_FORMAT_ARGB32);
  if (cairo_surface_status (image) == CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_set_device_scale (image, dsx, dsy);
      cairo_save (cr);
      cairo_identity_matrix (cr);
      cairo_set_source_surface (cr, image, (px0 - dox) / dsx, (py0 - doy) / dsy);
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
      cairo_paint (cr);
      cairo_restore (cr);
    }
  cairo_surface_destroy (image);
  return TRUE;
}

void
ar_matrix_paint (cairo_t *cr, const ArMatrixPaint *paint, const float *values, int rows, int cols,
                 double x, double y, double cell_w, double cell_h)
{
  if (rows <= 0 || cols <= 0 || cell_w <= 0 || cell_h <= 0)
    return;
  /* A recording is replayed every frame: past AR_MATRIX_MAX_SCREEN_RECTS cells one image costs
   * less than the rectangles (tests/bench/RESULTS.md, heatmap zoom). */
  gboolean recording
      = cairo_surface_get_type (cairo_get_target (cr)) == CAIRO_SURFACE_TYPE_RECORDING;
  if (ar_matrix_paint_uses_rects (rows, cols, cell_w, cell_h)
      && (!recording || (gint64) rows * cols <= AR_MATRIX_MAX_SCREEN_RECTS))
    {
      paint_rects (cr, paint, values, rows, cols, x, y, cell_w, cell_h);
      return;
    }
  Pixels px;
  pixels_init (&px, paint, values, cols);
  if (!paint_pixel_exact (cr, &px, rows, cols, x, y, cell_w, cell_h))
    paint_scaled_image (cr, &px, rows, cols, x, y, cell_w, cell_h);
}

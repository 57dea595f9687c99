/* figure-export.c — PNG/SVG/PDF files from figures, written through as-output-file.h. */
#include "figure-export.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "as-error.h"

/* cairo's limit for image surfaces. */
#define MAX_PIXELS_PER_SIDE 32767

gboolean
ar_export_format_from_path (const char *path, ArExportFormat *format, GError **error)
{
  g_autofree char *base = g_path_get_basename (path);
  const char *dot = strrchr (base, '.');
  if (dot == NULL || dot == base)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "cannot export to '%s': the file name has no extension (expected .png, .svg "
                   "or .pdf)",
                   path);
      return FALSE;
    }
  if (g_ascii_strcasecmp (dot, ".png") == 0)
    *format = AR_EXPORT_PNG;
  else if (g_ascii_strcasecmp (dot, ".svg") == 0)
    *format = AR_EXPORT_SVG;
  else if (g_ascii_strcasecmp (dot, ".pdf") == 0)
    *format = AR_EXPORT_PDF;
  else
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "cannot export to '%s': unknown file type '%s' (expected .png, .svg or .pdf)",
                   path, dot);
      return FALSE;
    }
  return TRUE;
}

void
ar_figure_get_pixel_size (const ArFigure *fig, double scale, int *width, int *height)
{
  double w, h;
  ar_figure_get_size (fig, &w, &h);
  *width = (int) MIN (ceil (w * scale), (double) G_MAXINT);
  *height = (int) MIN (ceil (h * scale), (double) G_MAXINT);
}

static gboolean
check_scale (double scale, GError **error)
{
  if (!(scale >= AR_EXPORT_SCALE_MIN && scale <= AR_EXPORT_SCALE_MAX))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "scale %g is out of range (expected %g to %g)",
                   scale, AR_EXPORT_SCALE_MIN, AR_EXPORT_SCALE_MAX);
      return FALSE;
    }
  return TRUE;
}

cairo_surface_t *
ar_figure_render_image (const ArFigure *fig, double scale, GError **error)
{
  if (!check_scale (scale, error))
    return NULL;
  double w, h;
  int pw, ph;
  ar_figure_get_size (fig, &w, &h);
  ar_figure_get_pixel_size (fig, scale, &pw, &ph);
  if (pw < 1 || ph < 1 || pw > MAX_PIXELS_PER_SIDE || ph > MAX_PIXELS_PER_SIDE)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "the figure would be %d × %d pixels at scale %g; images are limited to %d "
                   "pixels a side (use a smaller scale, or SVG/PDF)",
                   pw, ph, scale, MAX_PIXELS_PER_SIDE);
      return NULL;
    }
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, pw, ph);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "cannot allocate a %d × %d image: %s", pw, ph,
                   cairo_status_to_string (cairo_surface_status (surface)));
      cairo_surface_destroy (surface);
      return NULL;
    }
  cairo_t *cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  ar_figure_render (cr, fig, w, h);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

/* Where cairo's stream output goes: the temporary file, remembering the first write error. */
typedef struct
{
  int fd;
  int error; /* errno of the first failed write, or 0 */
} Sink;

static cairo_status_t
sink_write (void *closure, const unsigned char *data, unsigned int length)
{
  Sink *sink = closure;
  while (length > 0 && sink->error == 0)
    {
      ssize_t n = write (sink->fd, data, length);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          sink->error = n < 0 ? errno : EIO;
          break;
        }
      data += n;
      length -= (unsigned int) n;
    }
  return sink->error == 0 ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* Draws FIG through a FORMAT surface into SINK. */
static cairo_status_t
write_figure (const ArFigure *fig, ArExportFormat format, double scale, Sink *sink, GError **error)
{
  if (format == AR_EXPORT_PNG)
    {
      cairo_surface_t *image = ar_figure_render_image (fig, scale, error);
      if (image == NULL)
        return CAIRO_STATUS_NO_MEMORY;
      cairo_status_t status = cairo_surface_write_to_png_stream (image, sink_write, sink);
      cairo_surface_destroy (image);
      return status;
    }
  double w, h;
  ar_figure_get_size (fig, &w, &h);
  cairo_surface_t *surface = format == AR_EXPORT_SVG
                                 ? cairo_svg_surface_create_for_stream (sink_write, sink, w, h)
                                 : cairo_pdf_surface_create_for_stream (sink_write, sink, w, h);
  if (format == AR_EXPORT_SVG)
    cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_USER);
  else
    cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "attnscope");
  cairo_t *cr = cairo_create (surface);
  ar_figure_render (cr, fig, w, h);
  cairo_status_t status = cairo_status (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  return status;
}

/* Fails naming PATH with errno ERR. */
static gboolean
fail_io (GError **error, const char *path, int err)
{
  g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot write '%s': %s", path, g_strerror (err));
  return FALSE;
}

gboolean
ar_figure_export_full (const ArFigure *fig, const char *path, double scale, AsOutputFlags flags,
                       GError **error)
{
  ArExportFormat format;
  if (!ar_export_format_from_path (path, &format, error))
    return FALSE;
  if (format == AR_EXPORT_PNG && !check_scale (scale, error))
    return FALSE;

  g_autoptr (AsOutputFile) output = as_output_file_new (path, flags, error);
  if (output == NULL)
    return FALSE;
  Sink sink = { .fd = as_output_file_get_fd (output) };
  GError *local = NULL;
  cairo_status_t status = write_figure (fig, format, scale, &sink, &local);
  gboolean ok = status == CAIRO_STATUS_SUCCESS && sink.error == 0;
  if (ok && fsync (sink.fd) != 0)
    ok = FALSE, sink.error = errno;
  if (ok)
    return as_output_file_commit (output, error);

  if (local != NULL)
    {
      g_propagate_prefixed_error (error, local, "cannot export to '%s': ", path);
      return FALSE;
    }
  if (sink.error != 0)
    return fail_io (error, path, sink.error);
  g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot write '%s': %s", path,
               cairo_status_to_string (status));
  return FALSE;
}

gboolean
ar_figure_export (const ArFigure *fig, const char *path, double scale, GError **error)
{
  return ar_figure_export_full (fig, path, scale, AS_OUTPUT_DEFAULT, error);
}

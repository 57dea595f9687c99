/* figure-export.c — PNG/SVG/PDF files from figures at a chosen size, font size and resolution,
 * written through as-output-file.h (see figure-export.h). */
#include "figure-export.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "svg-text-private.h"
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "as-error.h"
#include "render-text.h"

/* cairo's limit for image surfaces. */
#define MAX_PIXELS_PER_SIDE 32767

void
ar_export_options_init (ArExportOptions *options)
{
  *options = (ArExportOptions){
    .width_unit = AR_WIDTH_NATURAL,
    .dpi = AR_EXPORT_NATURAL_DPI,
    .titles = TRUE,
  };
}

void
ar_export_options_set_preset (ArExportOptions *options, ArExportPreset preset)
{
  options->width_unit = AR_WIDTH_MM;
  options->width = preset == AR_EXPORT_PRESET_ONE_COLUMN ? 85 : 175;
  options->font_size = preset == AR_EXPORT_PRESET_ONE_COLUMN ? 8 : 9;
  options->dpi = 300;
  options->max_height = AR_EXPORT_PAGE_HEIGHT_MM;
}

gboolean
ar_export_parse_width (const char *text, ArWidthUnit *unit, double *width, GError **error)
{
  static const struct
  {
    const char *suffix;
    ArWidthUnit unit;
    double factor; /* to mm or px */
  } units[] = {
    { "mm", AR_WIDTH_MM, 1 },
    { "cm", AR_WIDTH_MM, 10 },
    { "in", AR_WIDTH_MM, AR_MM_PER_INCH },
    { "px", AR_WIDTH_PX, 1 },
  };
  g_autofree char *trimmed = g_strstrip (g_strdup (text != NULL ? text : ""));
  for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_has_suffix (trimmed, units[i].suffix))
      {
        trimmed[strlen (trimmed) - 2] = '\0';
        char *end = NULL;
        double value = g_ascii_strtod (g_strstrip (trimmed), &end);
        if (end != NULL && *end == '\0' && end != trimmed && value > 0 && isfinite (value))
          {
            *unit = units[i].unit;
            *width = value * units[i].factor;
            return TRUE;
          }
        break;
      }
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "width '%s' is not a positive number with a unit (85mm, 8.5cm, 3.5in or 1200px)",
               text != NULL ? text : "");
  return FALSE;
}

const char *
ar_export_format_extension (ArExportFormat format)
{
  return format == AR_EXPORT_SVG ? ".svg" : format == AR_EXPORT_PDF ? ".pdf" : ".png";
}

/* FIG with its title and subtitle as OPTIONS say: a copy of the figure struct in PARTS. */
static ArFigure
retitled (const ArFigure *fig, const ArExportOptions *o, ArFigureParts *parts)
{
  const char *title = !o->titles ? NULL : o->title;
  const char *subtitle = !o->titles ? NULL : o->subtitle;
  gboolean keep_title = o->titles && o->title == NULL, keep_sub = o->titles && o->subtitle == NULL;
#define RETITLE(member, from)                                                                      \
  parts->member = *fig->from;                                                                      \
  if (!keep_title)                                                                                 \
    parts->member.title = title;                                                                   \
  if (!keep_sub)                                                                                   \
    parts->member.subtitle = subtitle;
  switch (fig->kind)
    {
    case AR_FIGURE_HEATMAP:
      RETITLE (heatmap, heatmap);
      return ar_figure_from_heatmap (&parts->heatmap);
    case AR_FIGURE_GRID:
      RETITLE (grid, grid);
      return ar_figure_from_grid (&parts->grid);
    case AR_FIGURE_SCATTER:
      RETITLE (scatter, scatter);
      return ar_figure_from_scatter (&parts->scatter);
    case AR_FIGURE_LINES:
      RETITLE (lines, lines);
      return ar_figure_from_lines (&parts->lines);
    case AR_FIGURE_COMPARE:
      RETITLE (compare, compare);
      return ar_figure_from_compare (&parts->compare);
    case AR_FIGURE_ALIGNMENT:
      RETITLE (alignment, alignment);
      return ar_figure_from_alignment (&parts->alignment);
    }
#undef RETITLE
  g_assert_not_reached ();
}

gboolean
ar_export_geometry (const ArFigure *untitled, const ArExportOptions *o, ArExportGeometry *g,
                    GError **error)
{
  ArFigureParts parts;
  ArFigure figure = retitled (untitled, o, &parts);
  const ArFigure *fig = &figure;
  if (!(o->dpi >= AR_EXPORT_DPI_MIN && o->dpi <= AR_EXPORT_DPI_MAX))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "resolution %g dpi is out of range (expected %g to %g)", o->dpi,
                   AR_EXPORT_DPI_MIN, AR_EXPORT_DPI_MAX);
      return FALSE;
    }
  if (o->font_size != 0
      && !(o->font_size >= AR_EXPORT_FONT_MIN && o->font_size <= AR_EXPORT_FONT_MAX))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "font size %g pt is out of range (expected %g to %g)", o->font_size,
                   AR_EXPORT_FONT_MIN, AR_EXPORT_FONT_MAX);
      return FALSE;
    }
  if (o->max_height != 0 && !(o->max_height >= AR_EXPORT_MIN_HEIGHT_MM))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "maximum height %g mm is too small (expected at least %g mm)", o->max_height,
                   AR_EXPORT_MIN_HEIGHT_MM);
      return FALSE;
    }
  *g = (ArExportGeometry){ .unit_pt = o->font_size > 0 ? o->font_size / AR_FONT_TICK : 1 };
  double natural_w, natural_h;
  ar_figure_get_size (fig, &natural_w, &natural_h);
  if (o->width_unit == AR_WIDTH_NATURAL)
    g->layout_w = natural_w, g->layout_h = natural_h;
  else
    {
      double page_w = o->width_unit == AR_WIDTH_MM ? o->width / AR_MM_PER_INCH * AR_PT_PER_INCH
                                                   : o->width / o->dpi * AR_PT_PER_INCH;
      g->layout_w = page_w / g->unit_pt;
      if (!(g->layout_w >= AR_EXPORT_MIN_LAYOUT))
        {
          double min_mm = AR_EXPORT_MIN_LAYOUT * g->unit_pt / AR_PT_PER_INCH * AR_MM_PER_INCH;
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "width %g %s is too narrow for text of %g pt (at least %.0f mm)", o->width,
                       o->width_unit == AR_WIDTH_MM ? "mm" : "px", g->unit_pt * AR_FONT_TICK,
                       ceil (min_mm));
          return FALSE;
        }
      g->layout_h = ar_figure_get_height_for_width (fig, g->layout_w);
      if (o->max_height > 0)
        g->layout_h = MIN (
            g->layout_h,
            floor (o->max_height / AR_MM_PER_INCH * AR_PT_PER_INCH / g->unit_pt * 1000) / 1000);
    }
  g->page_w = g->layout_w * g->unit_pt;
  g->page_h = g->layout_h * g->unit_pt;
  g->px_per_unit = g->unit_pt * o->dpi / AR_PT_PER_INCH;
  double pw = ceil (g->layout_w * g->px_per_unit - 1e-6);
  double ph = ceil (g->layout_h * g->px_per_unit - 1e-6);
  g->pixel_w = (int) MIN (pw, (double) G_MAXINT), g->pixel_h = (int) MIN (ph, (double) G_MAXINT);
  return TRUE;
}

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

void
ar_figure_draw_export (cairo_t *cr, const ArFigure *fig, const ArExportOptions *options,
                       const ArExportGeometry *geometry)
{
  ArFigureParts parts;
  ArFigure figure = retitled (fig, options, &parts);
  cairo_save (cr);
  cairo_scale (cr, geometry->unit_pt, geometry->unit_pt);
  ar_figure_render (cr, &figure, geometry->layout_w, geometry->layout_h);
  cairo_restore (cr);
}

/* FIG drawn into a new ARGB32 image of GEOMETRY's pixels. */
static cairo_surface_t *
render_image (const ArFigure *fig, const ArExportGeometry *g, double dpi, GError **error)
{
  if (g->pixel_w < 1 || g->pixel_h < 1 || g->pixel_w > MAX_PIXELS_PER_SIDE
      || g->pixel_h > MAX_PIXELS_PER_SIDE)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "the figure would be %d × %d pixels at %g dpi; images are limited to %d "
                   "pixels a side (use a lower resolution, or SVG/PDF)",
                   g->pixel_w, g->pixel_h, dpi, MAX_PIXELS_PER_SIDE);
      return NULL;
    }
  cairo_surface_t *surface
      = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, g->pixel_w, g->pixel_h);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "cannot allocate a %d × %d image: %s",
                   g->pixel_w, g->pixel_h, cairo_status_to_string (cairo_surface_status (surface)));
      cairo_surface_destroy (surface);
      return NULL;
    }
  cairo_t *cr = cairo_create (surface);
  cairo_scale (cr, g->px_per_unit, g->px_per_unit);
  ar_figure_render (cr, fig, g->layout_w, g->layout_h);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

cairo_surface_t *
ar_figure_render_image (const ArFigure *fig, double scale, GError **error)
{
  if (!check_scale (scale, error))
    return NULL;
  ArExportOptions options;
  ar_export_options_init (&options);
  options.dpi = AR_EXPORT_NATURAL_DPI * scale;
  ArExportGeometry g;
  if (!ar_export_geometry (fig, &options, &g, error))
    return NULL;
  return render_image (fig, &g, options.dpi, error);
}

/* Where cairo's stream output goes: the temporary file, remembering the first write error. A PNG
 * gets its pHYs chunk (PHYS) right after the header chunk. */
typedef struct
{
  int fd;
  int error;       /* errno of the first failed write, or 0 */
  guint8 phys[21]; /* the pHYs chunk to insert, or all zero */
  gsize written;   /* bytes of cairo's stream so far */
  gboolean phys_written;
} Sink;

/* Where the pHYs chunk goes: after the 8-byte signature and the 25-byte IHDR chunk. */
#define PNG_AFTER_IHDR 33

static void
raw_write (Sink *sink, const unsigned char *data, gsize length)
{
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
      length -= (gsize) n;
    }
}

static cairo_status_t
sink_write (void *closure, const unsigned char *data, unsigned int length)
{
  Sink *sink = closure;
  gsize len = length;
  if (sink->phys[4] != 0 && !sink->phys_written && sink->written + len >= PNG_AFTER_IHDR)
    {
      gsize head = PNG_AFTER_IHDR - sink->written;
      raw_write (sink, data, head);
      raw_write (sink, sink->phys, sizeof sink->phys);
      sink->phys_written = TRUE;
      data += head, len -= head, sink->written += head;
    }
  raw_write (sink, data, len);
  sink->written += len;
  return sink->error == 0 ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* The PNG CRC-32 (ISO 3309) of BYTES [N]. */
static guint32
png_crc (const guint8 *bytes, gsize n)
{
  static guint32 table[256];
  static gsize init = 0;
  if (g_once_init_enter (&init))
    {
      for (guint32 i = 0; i < 256; i++)
        {
          guint32 c = i;
          for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
          table[i] = c;
        }
      g_once_init_leave (&init, 1);
    }
  guint32 c = 0xffffffffu;
  for (gsize i = 0; i < n; i++)
    c = table[(c ^ bytes[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

static void
put_be32 (guint8 *out, guint32 v)
{
  out[0] = v >> 24, out[1] = v >> 16, out[2] = v >> 8, out[3] = v;
}

/* SINK's pHYs chunk for DPI: pixels per metre on both axes, unit 1 (metre). */
static void
set_phys (Sink *sink, double dpi)
{
  guint32 ppm = (guint32) lround (dpi / AR_MM_PER_INCH * 1000);
  guint8 *c = sink->phys;
  put_be32 (c, 9);
  memcpy (c + 4, "pHYs", 4);
  put_be32 (c + 8, ppm);
  put_be32 (c + 12, ppm);
  c[16] = 1;
  put_be32 (c + 17, png_crc (c + 4, 13));
}

/* FIG's own title and subtitle (either may be NULL). */
static void
figure_titles (const ArFigure *fig, const char **title, const char **subtitle)
{
#define TITLES(member) *title = fig->member->title, *subtitle = fig->member->subtitle
  switch (fig->kind)
    {
    case AR_FIGURE_HEATMAP:
      TITLES (heatmap);
      return;
    case AR_FIGURE_GRID:
      TITLES (grid);
      return;
    case AR_FIGURE_SCATTER:
      TITLES (scatter);
      return;
    case AR_FIGURE_LINES:
      TITLES (lines);
      return;
    case AR_FIGURE_COMPARE:
      TITLES (compare);
      return;
    case AR_FIGURE_ALIGNMENT:
      TITLES (alignment);
      return;
    }
#undef TITLES
  g_assert_not_reached ();
}

/* The PDF's document information: the figure's title (what OPTIONS would draw, and the
 * figure's own even when titles are left out of the drawing), its subtitle (the model and the
 * text) as the subject, the user's name as the author and attnscope as the creator. Both the
 * window and `attnscope export` come here, so their PDFs say the same. */
static void
set_pdf_metadata (cairo_surface_t *surface, const ArFigure *untitled, const ArExportOptions *o)
{
  const char *title, *subtitle;
  figure_titles (untitled, &title, &subtitle);
  if (o->title != NULL)
    title = o->title;
  if (o->subtitle != NULL)
    subtitle = o->subtitle;
  if (title != NULL && *title != '\0')
    cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title);
  if (subtitle != NULL && *subtitle != '\0')
    cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_SUBJECT, subtitle);
  const char *author = g_get_real_name ();
  if (author != NULL && *author != '\0' && !g_str_equal (author, "Unknown"))
    cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_AUTHOR, author);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "attnscope");
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static void
set_svg_unit (cairo_surface_t *surface, const ArExportOptions *o, const ArExportGeometry *g)
{
  gboolean natural = o->width_unit == AR_WIDTH_NATURAL && g->unit_pt == 1;
  cairo_svg_surface_set_document_unit (surface, natural ? CAIRO_SVG_UNIT_USER : CAIRO_SVG_UNIT_PT);
}

/* Draws FIG on SURFACE (text recorded into TEXT when not NULL), finishes and destroys it. */
static cairo_status_t
draw_and_finish (cairo_surface_t *surface, const ArFigure *fig, const ArExportGeometry *g,
                 ArSvgText *text)
{
  cairo_t *cr = cairo_create (surface);
  if (text != NULL)
    ar_svg_text_attach (text, cr);
  cairo_scale (cr, g->unit_pt, g->unit_pt);
  ar_figure_render (cr, fig, g->layout_w, g->layout_h);
  cairo_status_t status = cairo_status (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  return status;
}

/* FIG as an SVG document whose text is <text> elements (svg-text-private.h), into SINK: drawn
 * into memory without its text, the recorded text put before the end. */
static cairo_status_t
write_svg_with_text (const ArFigure *fig, const ArExportOptions *o, const ArExportGeometry *g,
                     Sink *sink)
{
  GByteArray *svg = g_byte_array_new ();
  ArSvgText *text = ar_svg_text_new ();
  cairo_surface_t *surface
      = cairo_svg_surface_create_for_stream (append_bytes, svg, g->page_w, g->page_h);
  set_svg_unit (surface, o, g);
  cairo_status_t status = draw_and_finish (surface, fig, g, text);
  if (status == CAIRO_STATUS_SUCCESS && !ar_svg_text_insert (text, svg))
    status = CAIRO_STATUS_WRITE_ERROR;
  if (status == CAIRO_STATUS_SUCCESS)
    status = sink_write (sink, svg->data, svg->len);
  ar_svg_text_free (text);
  g_byte_array_unref (svg);
  return status;
}

/* Draws FIG through a FORMAT surface into SINK; UNTITLED is the figure before OPTIONS retitled
 * it (for the PDF's metadata). */
static cairo_status_t
write_figure (const ArFigure *fig, const ArFigure *untitled, ArExportFormat format,
              const ArExportOptions *o, const ArExportGeometry *g, Sink *sink, GError **error)
{
  if (format == AR_EXPORT_PNG)
    {
      cairo_surface_t *image = render_image (fig, g, o->dpi, error);
      if (image == NULL)
        return CAIRO_STATUS_NO_MEMORY;
      set_phys (sink, o->dpi);
      cairo_status_t status = cairo_surface_write_to_png_stream (image, sink_write, sink);
      cairo_surface_destroy (image);
      return status;
    }
  if (format == AR_EXPORT_SVG && o->svg_text)
    return write_svg_with_text (fig, o, g, sink);
  cairo_surface_t *surface
      = format == AR_EXPORT_SVG
            ? cairo_svg_surface_create_for_stream (sink_write, sink, g->page_w, g->page_h)
            : cairo_pdf_surface_create_for_stream (sink_write, sink, g->page_w, g->page_h);
  if (format == AR_EXPORT_SVG)
    set_svg_unit (surface, o, g);
  else
    set_pdf_metadata (surface, untitled, o);
  return draw_and_finish (surface, fig, g, NULL);
}

/* Fails naming PATH with errno ERR. */
static gboolean
fail_io (GError **error, const char *path, int err)
{
  g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot write '%s': %s", path, g_strerror (err));
  return FALSE;
}

gboolean
ar_figure_export_with_options (const ArFigure *fig, const char *path,
                               const ArExportOptions *options, AsOutputFlags flags, GError **error)
{
  ArExportFormat format;
  if (!ar_export_format_from_path (path, &format, error))
    return FALSE;
  ArFigureParts parts;
  ArFigure figure = retitled (fig, options, &parts);
  ArExportGeometry g;
  if (!ar_export_geometry (fig, options, &g, error))
    return FALSE;

  g_autoptr (AsOutputFile) output = as_output_file_new (path, flags, error);
  if (output == NULL)
    return FALSE;
  Sink sink = { .fd = as_output_file_get_fd (output) };
  GError *local = NULL;
  cairo_status_t status = write_figure (&figure, fig, format, options, &g, &sink, &local);
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
ar_figure_export_full (const ArFigure *fig, const char *path, double scale, AsOutputFlags flags,
                       GError **error)
{
  ArExportFormat format;
  if (!ar_export_format_from_path (path, &format, error))
    return FALSE;
  if (format == AR_EXPORT_PNG && !check_scale (scale, error))
    return FALSE;
  ArExportOptions options;
  ar_export_options_init (&options);
  options.dpi = AR_EXPORT_NATURAL_DPI * CLAMP (scale, AR_EXPORT_SCALE_MIN, AR_EXPORT_SCALE_MAX);
  return ar_figure_export_with_options (fig, path, &options, flags, error);
}

gboolean
ar_figure_export (const ArFigure *fig, const char *path, double scale, GError **error)
{
  return ar_figure_export_full (fig, path, scale, AS_OUTPUT_DEFAULT, error);
}

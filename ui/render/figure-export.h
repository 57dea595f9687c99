/* figure-export.h — writing a figure to a PNG, SVG or PDF file.
 *
 * The format comes from the file name's extension (.png, .svg, .pdf; any case). The figure is
 * drawn by ar_figure_render() at its natural size (ar_figure_get_size), the very drawing the
 * widgets show:
 * - PNG: an ARGB32 image of ceil(width·scale) × ceil(height·scale) pixels, the user space scaled
 *   by SCALE (1, 2 and 4 are the usual choices; any value in AR_EXPORT_SCALE_MIN..MAX is taken);
 * - SVG: width × height user units (px; the PNG's size at scale 1), vector text and shapes;
 * - PDF: one page of width × height points, vector text and shapes. SCALE is ignored for both.
 *
 * The file is written as core's as-output-file.h says: into a temporary file beside the target
 * (symbolic links followed), flushed to disk and renamed over it, so a failure never leaves a
 * partial or corrupt file and never touches an existing file at PATH; only a regular file is
 * replaced, a read-only one only with AS_OUTPUT_FORCE. Errors (AS_ERROR domain) name the path:
 * an unknown or missing extension or a scale out of range (AS_ERROR_INPUT), a folder that does
 * not exist or cannot be written, a target that may not be replaced (AS_ERROR_IO), an image too
 * large for cairo (AS_ERROR_MEMORY). */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "as-output-file.h"
#include "figure.h"

G_BEGIN_DECLS

#define AR_EXPORT_SCALE_MIN 0.25
#define AR_EXPORT_SCALE_MAX 8.0

typedef enum
{
  AR_EXPORT_PNG,
  AR_EXPORT_SVG,
  AR_EXPORT_PDF,
} ArExportFormat;

/* The format PATH's extension names; fails naming PATH and the known extensions. */
gboolean ar_export_format_from_path (const char *path, ArExportFormat *format, GError **error);

/* Pixel size of FIG's PNG at SCALE. */
void ar_figure_get_pixel_size (const ArFigure *fig, double scale, int *width, int *height);

/* FIG drawn into a new ARGB32 image at SCALE (what the PNG holds). */
cairo_surface_t *ar_figure_render_image (const ArFigure *fig, double scale, GError **error);

/* Writes FIG to PATH as described above; FLAGS may allow replacing a read-only file. */
gboolean ar_figure_export_full (const ArFigure *fig, const char *path, double scale,
                                AsOutputFlags flags, GError **error);

/* ar_figure_export_full with AS_OUTPUT_DEFAULT. */
gboolean ar_figure_export (const ArFigure *fig, const char *path, double scale, GError **error);

G_END_DECLS

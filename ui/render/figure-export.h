/* figure-export.h — writing a figure to a PNG, SVG or PDF file at the size and font size an article
 * needs.
 *
 * The format comes from the file name's extension (.png, .svg, .pdf; any case). The figure is
 * drawn by ar_figure_render(), the very drawing the widgets show.
 *
 * Size. A figure unit is a point (1/72 inch) times UNIT_PT = font_size / AR_FONT_TICK: the tick
 * labels are exactly FONT_SIZE points tall, every other text in proportion (titles 4/3 of it, the
 * smallest text 7/8 of it: 7 pt at 8 pt). Without a font size a unit is one point (12 pt tick
 * labels). The width is the figure's natural width, or WIDTH millimetres, or WIDTH pixels of the
 * PNG at its resolution (so the same physical size in every format); the figure is laid out that
 * many units wide (WIDTH / UNIT_PT) and as tall as it then needs (ar_figure_get_height_for_width),
 * so its text keeps its size and its cells or plot fill the width — but never taller than
 * MAX_HEIGHT millimetres when that is set (the presets: a page), the figure then laid out in that
 * height (smaller cells or plot, a comparison's panels side by side rather than stacked).
 * - PDF: one page of page_w × page_h points (pdfinfo's "Page size"); its document information
 *   has the title (OPTIONS' or the figure's own, drawn or not) as Title, the subtitle as Subject,
 *   the user's real name (g_get_real_name, unless unknown) as Author and attnscope as Creator.
 * - SVG: the same size in points (width="...pt"), or in user units (= px) for the natural size at
 *   the natural font. Text is glyph outlines (it looks the same everywhere), or with SVG_TEXT
 *   <text> elements that an editor (Inkscape, Illustrator) can change, in the font the figure was
 *   set in (svg-text-private.h); a viewer without that font substitutes another.
 * - PNG: DPI pixels per inch (72 × the scale: scale 2 is 144 dpi), the resolution written into
 *   the file (its pHYs chunk, in pixels per metre).
 *
 * Titles: with TITLES off the title and subtitle are left out; TITLE and SUBTITLE (when not NULL)
 * replace the figure's own.
 *
 * The file is written as core's as-output-file.h says: into a temporary file beside the target
 * (symbolic links followed), flushed to disk and renamed over it, so a failure never leaves a
 * partial or corrupt file and never touches an existing file at PATH; only a regular file is
 * replaced, a read-only one only with AS_OUTPUT_FORCE. Errors (AS_ERROR domain) name the path:
 * an unknown or missing extension, a scale, width or font size out of range (AS_ERROR_INPUT), a
 * folder that does not exist or cannot be written, a target that may not be replaced (AS_ERROR_IO),
 * an image too large for cairo (AS_ERROR_MEMORY). */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "as-output-file.h"
#include "figure.h"

G_BEGIN_DECLS

#define AR_EXPORT_SCALE_MIN 0.25
#define AR_EXPORT_SCALE_MAX 8.0
#define AR_EXPORT_NATURAL_DPI 72.0
#define AR_EXPORT_DPI_MIN (AR_EXPORT_NATURAL_DPI * AR_EXPORT_SCALE_MIN)
#define AR_EXPORT_DPI_MAX 1200.0
#define AR_EXPORT_FONT_MIN 4.0
#define AR_EXPORT_FONT_MAX 48.0
/* The narrowest layout a figure is drawn at, in units. */
#define AR_EXPORT_MIN_LAYOUT 120.0
/* The lowest maximum height (mm). */
#define AR_EXPORT_MIN_HEIGHT_MM 20.0
#define AR_MM_PER_INCH 25.4
#define AR_PT_PER_INCH 72.0

typedef enum
{
  AR_EXPORT_PNG,
  AR_EXPORT_SVG,
  AR_EXPORT_PDF,
} ArExportFormat;

typedef enum
{
  AR_WIDTH_NATURAL,
  AR_WIDTH_MM,
  AR_WIDTH_PX,
} ArWidthUnit;

typedef struct
{
  ArWidthUnit width_unit;
  double width;      /* mm or px; ignored for AR_WIDTH_NATURAL */
  double font_size;  /* pt of the tick labels; 0: the natural 12 */
  double dpi;        /* PNG pixels per inch */
  double max_height; /* mm the figure may take at most with a width; 0: as tall as it needs */
  gboolean titles;
  const char *title, *subtitle; /* NULL: the figure's own */
  gboolean svg_text;            /* SVG: text as <text> elements, not glyph outlines */
} ArExportOptions;

/* The presets for articles: one column 85 mm wide with 8 pt text, two columns 175 mm with 9 pt,
 * both at 300 dpi and at most AR_EXPORT_PAGE_HEIGHT_MM tall: a figure fits on a page. */
#define AR_EXPORT_PAGE_HEIGHT_MM 279.4 /* a US Letter page; an A4 page is 297 mm */
typedef enum
{
  AR_EXPORT_PRESET_ONE_COLUMN,
  AR_EXPORT_PRESET_TWO_COLUMNS,
} ArExportPreset;

/* The natural size, the natural font, 72 dpi (scale 1), titles on. */
void ar_export_options_init (ArExportOptions *options);

/* Sets the size, font size and resolution of PRESET. */
void ar_export_options_set_preset (ArExportOptions *options, ArExportPreset preset);

/* Parses a width: "85mm", "8.5cm", "3.5in" (stored in mm) or "1200px". Fails naming TEXT. */
gboolean ar_export_parse_width (const char *text, ArWidthUnit *unit, double *width, GError **error);

/* Where a figure goes in its file. */
typedef struct
{
  double layout_w, layout_h; /* figure units it is laid out at */
  double unit_pt;            /* points per unit */
  double page_w, page_h;     /* points */
  double px_per_unit;        /* PNG pixels per unit */
  int pixel_w, pixel_h;      /* the PNG's size */
} ArExportGeometry;

/* FIG's geometry under OPTIONS (its titles included); fails (naming what) for options out of
 * range or a width too narrow for the text (a PNG too large fails when it is written). */
gboolean ar_export_geometry (const ArFigure *fig, const ArExportOptions *options,
                             ArExportGeometry *geometry, GError **error);

/* The format PATH's extension names; fails naming PATH and the known extensions. */
gboolean ar_export_format_from_path (const char *path, ArExportFormat *format, GError **error);

/* ".png", ".svg", ".pdf". */
const char *ar_export_format_extension (ArExportFormat format);

/* Pixel size of FIG's PNG at SCALE (its natural size). */
void ar_figure_get_pixel_size (const ArFigure *fig, double scale, int *width, int *height);

/* FIG drawn into a new ARGB32 image at SCALE (what the PNG at the natural size holds). */
cairo_surface_t *ar_figure_render_image (const ArFigure *fig, double scale, GError **error);

/* Draws FIG as ar_figure_export_with_options writes it (titles as OPTIONS say) into CR's user
 * space, in points: GEOMETRY's page_w × page_h (the export dialog's preview). */
void ar_figure_draw_export (cairo_t *cr, const ArFigure *fig, const ArExportOptions *options,
                            const ArExportGeometry *geometry);

/* Writes FIG to PATH as described above; FLAGS may allow replacing a read-only file. */
gboolean ar_figure_export_with_options (const ArFigure *fig, const char *path,
                                        const ArExportOptions *options, AsOutputFlags flags,
                                        GError **error);

/* Writes FIG to PATH at its natural size and font, the PNG at SCALE (72 × SCALE dpi). */
gboolean ar_figure_export_full (const ArFigure *fig, const char *path, double scale,
                                AsOutputFlags flags, GError **error);

/* ar_figure_export_full with AS_OUTPUT_DEFAULT. */
gboolean ar_figure_export (const ArFigure *fig, const char *path, double scale, GError **error);

G_END_DECLS

/* svg-text-private.h — an SVG figure's text as <text> elements an editor can change, rather than
 * the glyph outlines cairo's SVG surface writes.
 *
 * A recorder attached to the cairo context an SVG figure is drawn on takes every layout that
 * ar_text_draw() would show: it keeps, per run of one font, the text the run shows (an ellipsized
 * run as "…"), where its baseline starts, the transformation in force (rotated labels), the font
 * the run was actually set in (family, size, weight, style), and the colour; the layout is then
 * not drawn. ar_svg_text_insert() puts the elements before the document's closing </svg>, after
 * everything else (text is drawn above the cells and lines it labels). Private to ui/render. */
#pragma once

#include <cairo.h>
#include <pango/pangocairo.h>

G_BEGIN_DECLS

typedef struct _ArSvgText ArSvgText;

ArSvgText *ar_svg_text_new (void);
void ar_svg_text_free (ArSvgText *text);

/* Makes CR's text go to TEXT (which must outlive CR's use). */
void ar_svg_text_attach (ArSvgText *text, cairo_t *cr);

/* When CR has a recorder: records LAYOUT drawn with its top left corner at (X, Y) in CR's user
 * space, with CR's current colour, and returns TRUE (the caller does not draw it). FALSE when CR
 * has none. */
gboolean ar_svg_text_record (cairo_t *cr, PangoLayout *layout, double x, double y);

/* SVG (a finished document) with the recorded elements inserted before its last </svg>. FALSE
 * when SVG has no </svg>. */
gboolean ar_svg_text_insert (const ArSvgText *text, GByteArray *svg);

G_END_DECLS

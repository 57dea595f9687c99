/* render-text.h — text in figures: Pango layouts measured and drawn the same way on every target.
 *
 * All figures lay out text through one PangoContext made here with fixed font options (grey
 * antialiasing, no hinting, unhinted metrics, unrounded glyph positions). Text therefore has the
 * same extent whatever the cairo target and scale, so a figure's layout, its hit-testing, the
 * widget on screen and the exported PNG/SVG/PDF agree to the pixel. Sizes are in figure units
 * (1 unit = 1 px at scale 1 = 1 pt in PDF/SVG), independent of the screen resolution.
 *
 * Also here: the title block every figure starts with, and number formatting with a true minus
 * sign (U+2212) in the C locale. */
#pragma once

#include <cairo.h>
#include <glib.h>
#include <pango/pangocairo.h>

#include "render-style.h"

G_BEGIN_DECLS

/* Font sizes (figure units) shared by the figures. */
#define AR_FONT_TITLE 16.0
#define AR_FONT_SUBTITLE 12.0
#define AR_FONT_AXIS 13.0
#define AR_FONT_TICK 12.0
#define AR_FONT_SMALL 10.5

/* The blank border around every figure. */
#define AR_FIGURE_MARGIN 24.0

/* A new measuring/drawing context with the fixed font options. Free with g_object_unref. */
PangoContext *ar_text_context_new (void);

/* A layout of TEXT in STYLE's font at SIZE with WEIGHT (PANGO_WEIGHT_NORMAL, _BOLD...). When
 * MAX_WIDTH > 0 the text is ellipsized at the end to fit it. */
PangoLayout *ar_text_layout (PangoContext *pc, const ArRenderStyle *style, const char *text,
                             double size, int weight, double max_width);

/* The layout's logical width and height (figure units). */
void ar_text_extent (PangoLayout *layout, double *width, double *height);

/* Width and height of TEXT as ar_text_layout would lay it out (no ellipsizing). */
void ar_text_measure (PangoContext *pc, const ArRenderStyle *style, const char *text, double size,
                      int weight, double *width, double *height);

/* Draws LAYOUT with the current source so that the anchor point (AX, AY) of its logical box
 * (0..1 each: 0,0 top left; 0.5,0.5 centre; 1,0.5 middle of the right edge) lands on (X, Y),
 * the box rotated by ANGLE radians around that point (-G_PI/2 reads bottom to top). */
void ar_text_draw (cairo_t *cr, PangoLayout *layout, double x, double y, double ax, double ay,
                   double angle);

/* Height of the title block for TITLE and SUBTITLE (either may be NULL; 0 when both are). */
double ar_title_block_height (PangoContext *pc, const ArRenderStyle *style, const char *title,
                              const char *subtitle);

/* Draws the title block at (X, Y), left-aligned, ellipsized to WIDTH. */
void ar_title_block_draw (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                          const char *title, const char *subtitle, double x, double y,
                          double width);

/* Starts drawing a figure of WIDTH × HEIGHT: fills it with STYLE's background (when the style
 * paints one) and draws the title block at the margin. */
void ar_figure_frame_draw (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                           const char *title, const char *subtitle, double width, double height);

/* The same with the title and subtitle wrapped (at word, else character boundaries) to the
 * figure's width inside its margins, never cut: a figure one journal column wide keeps its whole
 * text. ar_title_block_height_wrapped () is the height of that block for a figure WIDTH wide (as
 * ar_title_block_height when everything fits on one line each). */
void ar_figure_frame_draw_wrapped (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                                   const char *title, const char *subtitle, double width,
                                   double height);
double ar_title_block_height_wrapped (PangoContext *pc, const ArRenderStyle *style,
                                      const char *title, const char *subtitle, double width);

/* The axis names of a chart whose plot is (PX, PY, PW, PH): X_AXIS centred under the plot with
 * its top at NAME_Y, Y_AXIS read bottom to top, centred on the plot, with its middle at NAME_X.
 * Either may be NULL. A name longer than its side of the plot is drawn smaller, never cut. */
void ar_axis_names_draw (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                         const char *x_axis, const char *y_axis, double px, double py, double pw,
                         double ph, double name_y, double name_x);

/* VALUE with DECIMALS decimals in the C locale and a typographic minus ("−0.25"; "0.00" for
 * values that round to zero). Returns a newly allocated string. */
char *ar_format_number (double value, int decimals);

G_END_DECLS

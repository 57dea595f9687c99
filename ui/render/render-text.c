/* render-text.c — Pango text with fixed font options, the title block, number formatting. */
#include "render-text.h"

#include "svg-text-private.h"

#include <math.h>
#include <string.h>

/* Space between the title and the subtitle, and below the block. */
#define TITLE_GAP 4.0
#define TITLE_BOTTOM 14.0

PangoContext *
ar_text_context_new (void)
{
  PangoFontMap *map = pango_cairo_font_map_get_default ();
  PangoContext *pc = pango_font_map_create_context (map);
  cairo_font_options_t *options = cairo_font_options_create ();
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  pango_cairo_context_set_font_options (pc, options);
  cairo_font_options_destroy (options);
  pango_context_set_round_glyph_positions (pc, FALSE);
  return pc;
}

PangoLayout *
ar_text_layout (PangoContext *pc, const ArRenderStyle *style, const char *text, double size,
                int weight, double max_width)
{
  PangoLayout *layout = pango_layout_new (pc);
  PangoFontDescription *desc = pango_font_description_from_string (style->font_family);
  pango_font_description_set_absolute_size (desc, size * PANGO_SCALE);
  pango_font_description_set_weight (desc, (PangoWeight) weight);
  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_text (layout, text != NULL ? text : "", -1);
  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
    }
  return layout;
}

void
ar_text_extent (PangoLayout *layout, double *width, double *height)
{
  PangoRectangle logical;
  pango_layout_get_extents (layout, NULL, &logical);
  if (width != NULL)
    *width = (double) logical.width / PANGO_SCALE;
  if (height != NULL)
    *height = (double) logical.height / PANGO_SCALE;
}

void
ar_text_measure (PangoContext *pc, const ArRenderStyle *style, const char *text, double size,
                 int weight, double *width, double *height)
{
  PangoLayout *layout = ar_text_layout (pc, style, text, size, weight, 0);
  ar_text_extent (layout, width, height);
  g_object_unref (layout);
}

void
ar_text_draw (cairo_t *cr, PangoLayout *layout, double x, double y, double ax, double ay,
              double angle)
{
  PangoRectangle logical;
  pango_layout_get_extents (layout, NULL, &logical);
  double w = (double) logical.width / PANGO_SCALE;
  double h = (double) logical.height / PANGO_SCALE;
  double lx = (double) logical.x / PANGO_SCALE;
  double ly = (double) logical.y / PANGO_SCALE;
  cairo_save (cr);
  cairo_translate (cr, x, y);
  if (angle != 0)
    cairo_rotate (cr, angle);
  if (!ar_svg_text_record (cr, layout, -lx - ax * w, -ly - ay * h))
    {
      cairo_move_to (cr, -lx - ax * w, -ly - ay * h);
      pango_cairo_show_layout (cr, layout);
    }
  /* The path is not part of the saved state: leave no current point behind for the next arc. */
  cairo_new_path (cr);
  cairo_restore (cr);
}

double
ar_title_block_height (PangoContext *pc, const ArRenderStyle *style, const char *title,
                       const char *subtitle)
{
  double height = 0, h = 0;
  if (title != NULL && *title != '\0')
    {
      ar_text_measure (pc, style, title, AR_FONT_TITLE, PANGO_WEIGHT_BOLD, NULL, &h);
      height += h;
    }
  if (subtitle != NULL && *subtitle != '\0')
    {
      ar_text_measure (pc, style, subtitle, AR_FONT_SUBTITLE, PANGO_WEIGHT_NORMAL, NULL, &h);
      height += (height > 0 ? TITLE_GAP : 0) + h;
    }
  return height > 0 ? height + TITLE_BOTTOM : 0;
}

void
ar_title_block_draw (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const char *title,
                     const char *subtitle, double x, double y, double width)
{
  double h = 0;
  if (title != NULL && *title != '\0')
    {
      PangoLayout *layout
          = ar_text_layout (pc, style, title, AR_FONT_TITLE, PANGO_WEIGHT_BOLD, width);
      ar_render_set_rgb (cr, style->text);
      ar_text_draw (cr, layout, x, y, 0, 0, 0);
      ar_text_extent (layout, NULL, &h);
      y += h + TITLE_GAP;
      g_object_unref (layout);
    }
  if (subtitle != NULL && *subtitle != '\0')
    {
      PangoLayout *layout
          = ar_text_layout (pc, style, subtitle, AR_FONT_SUBTITLE, PANGO_WEIGHT_NORMAL, width);
      ar_render_set_rgb (cr, style->muted);
      ar_text_draw (cr, layout, x, y, 0, 0, 0);
      g_object_unref (layout);
    }
}

void
ar_figure_frame_draw (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const char *title,
                      const char *subtitle, double width, double height)
{
  if (style->paint_background)
    {
      ar_render_set_rgb (cr, style->background);
      cairo_rectangle (cr, 0, 0, width, height);
      cairo_fill (cr);
    }
  ar_title_block_draw (cr, pc, style, title, subtitle, AR_FIGURE_MARGIN, AR_FIGURE_MARGIN,
                       width - 2 * AR_FIGURE_MARGIN);
}

/* TEXT wrapped to MAX_WIDTH (> 0) at word, else character boundaries. */
static PangoLayout *
wrapped_layout (PangoContext *pc, const ArRenderStyle *style, const char *text, double size,
                int weight, double max_width)
{
  PangoLayout *layout = ar_text_layout (pc, style, text, size, weight, 0);
  pango_layout_set_width (layout, (int) (MAX (max_width, 1) * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  return layout;
}

/* The title block's height wrapped to TEXT_WIDTH, drawing it at (X, Y) when CR is not NULL. */
static double
wrapped_title_block (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const char *title,
                     const char *subtitle, double x, double y, double text_width)
{
  double height = 0, h = 0;
  if (title != NULL && *title != '\0')
    {
      PangoLayout *layout
          = wrapped_layout (pc, style, title, AR_FONT_TITLE, PANGO_WEIGHT_BOLD, text_width);
      ar_text_extent (layout, NULL, &h);
      if (cr != NULL)
        {
          ar_render_set_rgb (cr, style->text);
          ar_text_draw (cr, layout, x, y, 0, 0, 0);
        }
      height += h;
      g_object_unref (layout);
    }
  if (subtitle != NULL && *subtitle != '\0')
    {
      PangoLayout *layout
          = wrapped_layout (pc, style, subtitle, AR_FONT_SUBTITLE, PANGO_WEIGHT_NORMAL, text_width);
      ar_text_extent (layout, NULL, &h);
      height += height > 0 ? TITLE_GAP : 0;
      if (cr != NULL)
        {
          ar_render_set_rgb (cr, style->muted);
          ar_text_draw (cr, layout, x, y + height, 0, 0, 0);
        }
      height += h;
      g_object_unref (layout);
    }
  return height > 0 ? height + TITLE_BOTTOM : 0;
}

double
ar_title_block_height_wrapped (PangoContext *pc, const ArRenderStyle *style, const char *title,
                               const char *subtitle, double width)
{
  return wrapped_title_block (NULL, pc, style, title, subtitle, 0, 0, width - 2 * AR_FIGURE_MARGIN);
}

void
ar_figure_frame_draw_wrapped (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                              const char *title, const char *subtitle, double width, double height)
{
  if (style->paint_background)
    {
      ar_render_set_rgb (cr, style->background);
      cairo_rectangle (cr, 0, 0, width, height);
      cairo_fill (cr);
    }
  wrapped_title_block (cr, pc, style, title, subtitle, AR_FIGURE_MARGIN, AR_FIGURE_MARGIN,
                       width - 2 * AR_FIGURE_MARGIN);
}

/* An axis name's layout: at the axis font, or smaller (down to AR_FONT_SMALL × 0.75) when that
 * is longer than LENGTH; never cut (a name still too long runs past the ends of its axis). */
static PangoLayout *
axis_name_layout (PangoContext *pc, const ArRenderStyle *style, const char *name, double length)
{
  PangoLayout *layout = ar_text_layout (pc, style, name, AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, 0);
  double w;
  ar_text_extent (layout, &w, NULL);
  if (w <= length || w <= 0)
    return layout;
  g_object_unref (layout);
  double size = MAX (AR_FONT_AXIS * length / w, AR_FONT_SMALL * 0.75);
  return ar_text_layout (pc, style, name, size, PANGO_WEIGHT_NORMAL, 0);
}

void
ar_axis_names_draw (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const char *x_axis,
                    const char *y_axis, double px, double py, double pw, double ph, double name_y,
                    double name_x)
{
  ar_render_set_rgb (cr, style->text);
  if (x_axis != NULL)
    {
      PangoLayout *layout = axis_name_layout (pc, style, x_axis, pw);
      ar_text_draw (cr, layout, px + pw / 2, name_y, 0.5, 0, 0);
      g_object_unref (layout);
    }
  if (y_axis != NULL)
    {
      PangoLayout *layout = axis_name_layout (pc, style, y_axis, ph);
      ar_text_draw (cr, layout, name_x, py + ph / 2, 0.5, 0.5, -G_PI / 2);
      g_object_unref (layout);
    }
}

char *
ar_format_number (double value, int decimals)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char format[16];
  if (isnan (value))
    return g_strdup ("nan");
  g_snprintf (format, sizeof format, "%%.%df", CLAMP (decimals, 0, 9));
  g_ascii_formatd (buf, sizeof buf, format, fabs (value));
  gboolean zero = strspn (buf, "0.") == strlen (buf);
  return g_strconcat (value < 0 && !zero ? "\u2212" : "", buf, NULL);
}

/* svg-text.c — recording Pango layouts as SVG <text> elements (svg-text-private.h). */
#include "svg-text-private.h"

#include <string.h>

struct _ArSvgText
{
  GString *elements; /* <text …>…</text> lines */
};

static const cairo_user_data_key_t recorder_key;

ArSvgText *
ar_svg_text_new (void)
{
  ArSvgText *text = g_new0 (ArSvgText, 1);
  text->elements = g_string_new (NULL);
  return text;
}

void
ar_svg_text_free (ArSvgText *text)
{
  if (text == NULL)
    return;
  g_string_free (text->elements, TRUE);
  g_free (text);
}

void
ar_svg_text_attach (ArSvgText *text, cairo_t *cr)
{
  cairo_set_user_data (cr, &recorder_key, text, NULL);
}

/* The text RUN shows: its characters, or "…" for the run that stands for ellipsized text. */
static void
append_run_text (GString *out, PangoLayout *layout, const PangoGlyphItem *run)
{
  if (run->item->analysis.flags & PANGO_ANALYSIS_FLAG_IS_ELLIPSIS)
    {
      g_string_append (out, "…");
      return;
    }
  const char *chars = pango_layout_get_text (layout) + run->item->offset;
  g_autofree char *escaped = g_markup_escape_text (chars, run->item->length);
  g_string_append (out, escaped);
}

/* font-family, font-size, font-weight and font-style of the font FONT is (the face fontconfig
 * chose, so an editor shows the same family), with the generic family after it. */
static void
append_font (GString *out, PangoFont *font)
{
  PangoFontDescription *desc = pango_font_describe_with_absolute_size (font);
  const char *family = pango_font_description_get_family (desc);
  g_autofree char *escaped = g_markup_escape_text (family != NULL ? family : "sans-serif", -1);
  g_string_append_printf (out, " font-family=\"'%s', sans-serif\"", escaped);
  char size[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (size, sizeof size, "%.4g",
                   (double) pango_font_description_get_size (desc) / PANGO_SCALE);
  g_string_append_printf (out, " font-size=\"%s\"", size);
  int weight = pango_font_description_get_weight (desc);
  if (weight != PANGO_WEIGHT_NORMAL)
    g_string_append_printf (out, " font-weight=\"%d\"", weight);
  if (pango_font_description_get_style (desc) == PANGO_STYLE_ITALIC)
    g_string_append (out, " font-style=\"italic\"");
  pango_font_description_free (desc);
}

/* fill (and fill-opacity) from CR's source, when it is one colour. */
static void
append_fill (GString *out, cairo_t *cr)
{
  double r = 0, g = 0, b = 0, a = 1;
  cairo_pattern_get_rgba (cairo_get_source (cr), &r, &g, &b, &a);
  g_string_append_printf (out, " fill=\"#%02x%02x%02x\"", (int) (r * 255 + 0.5),
                          (int) (g * 255 + 0.5), (int) (b * 255 + 0.5));
  if (a < 1)
    {
      char alpha[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append_printf (out, " fill-opacity=\"%s\"",
                              g_ascii_formatd (alpha, sizeof alpha, "%.3g", a));
    }
}

static void
append_number (GString *out, const char *before, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (out, before);
  g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, "%.6g", value));
}

gboolean
ar_svg_text_record (cairo_t *cr, PangoLayout *layout, double x, double y)
{
  ArSvgText *text = cairo_get_user_data (cr, &recorder_key);
  if (text == NULL)
    return FALSE;
  cairo_matrix_t m;
  cairo_get_matrix (cr, &m);
  GString *out = text->elements;
  PangoLayoutIter *iter = pango_layout_get_iter (layout);
  do
    {
      PangoGlyphItem *run = pango_layout_iter_get_run_readonly (iter);
      if (run == NULL || run->item->length == 0)
        continue;
      PangoRectangle logical;
      pango_layout_iter_get_run_extents (iter, NULL, &logical);
      double run_x = x + (double) logical.x / PANGO_SCALE;
      double baseline = y + (double) pango_layout_iter_get_baseline (iter) / PANGO_SCALE;
      g_string_append (out, "<text xml:space=\"preserve\"");
      append_number (out, " transform=\"matrix(", m.xx);
      append_number (out, " ", m.yx);
      append_number (out, " ", m.xy);
      append_number (out, " ", m.yy);
      append_number (out, " ", m.x0);
      append_number (out, " ", m.y0);
      g_string_append_c (out, ')');
      append_number (out, "\" x=\"", run_x);
      append_number (out, "\" y=\"", baseline);
      g_string_append_c (out, '"');
      append_font (out, run->item->analysis.font);
      append_fill (out, cr);
      g_string_append_c (out, '>');
      append_run_text (out, layout, run);
      g_string_append (out, "</text>\n");
    }
  while (pango_layout_iter_next_run (iter));
  pango_layout_iter_free (iter);
  return TRUE;
}

gboolean
ar_svg_text_insert (const ArSvgText *text, GByteArray *svg)
{
  static const char close[] = "</svg>";
  const gsize n = sizeof close - 1;
  if (svg->len < n)
    return FALSE;
  for (gsize at = svg->len - n + 1; at-- > 0;)
    if (memcmp (svg->data + at, close, n) == 0)
      {
        g_byte_array_set_size (svg, (guint) at);
        static const char open[] = "<g id=\"text\">\n", end[] = "</g>\n</svg>\n";
        g_byte_array_append (svg, (const guint8 *) open, sizeof open - 1);
        g_byte_array_append (svg, (const guint8 *) text->elements->str,
                             (guint) text->elements->len);
        g_byte_array_append (svg, (const guint8 *) end, sizeof end - 1);
        return TRUE;
      }
  return FALSE;
}

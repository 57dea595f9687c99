/* heatmap-bars.c — a heatmap's row bars (heatmap-render.h): one more value per row, drawn as a
 * horizontal bar beside the cells, so that a quantity of another kind than the cells (the
 * attribution's MLPs beside its heads) is read next to its row without taking a column of the
 * grid. The bars share the figure's colours; their lengths have an axis of their own, ±max|v|,
 * printed below them. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "colormap.h"
#include "heatmap-layout-private.h"
#include "render-style.h"
#include "render-text.h"

void
ar_heatmap_draw_row_bars (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                          const ArHeatmapFigure *fig, const ArHeatmapLayout *lo, double x)
{
  double w = lo->bars_w, cx = x + w / 2, half = w / 2 - 2;
  double largest = 0.0;
  for (int r = 0; r < fig->n_rows; r++)
    if (isfinite (fig->row_bars[r]))
      largest = MAX (largest, fabs (fig->row_bars[r]));
  double top = lo->y0, height = lo->nr * lo->cell - lo->gap;
  cairo_save (cr);
  for (int i = 0; i < lo->nr; i++)
    {
      float v = fig->row_bars[lo->r0 + i];
      if (!isfinite (v) || largest == 0.0)
        continue;
      double len = v / largest * half;
      double y = top + i * lo->cell + lo->cell * 0.15;
      ar_render_set_color8 (cr, ar_colormap_color (fig->colormap, v, fig->vmin, fig->vmax));
      cairo_rectangle (cr, len >= 0 ? cx : cx + len, y, fabs (len), lo->cell * 0.7 - lo->gap);
      cairo_fill (cr);
    }
  /* the zero line and a frame of the strip */
  ar_render_set_rgb (cr, style->rule);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, cx, top);
  cairo_line_to (cr, cx, top + height);
  cairo_stroke (cr);
  ar_render_set_rgb (cr, style->muted);
  if (fig->row_bars_label != NULL)
    {
      PangoLayout *name
          = ar_text_layout (pc, style, fig->row_bars_label, AR_FONT_TICK, PANGO_WEIGHT_NORMAL, w);
      ar_text_draw (cr, name, cx, top - 2, 0.5, 1.0, 0);
      g_object_unref (name);
    }
  g_autofree char *number = ar_format_number (largest, 3);
  /* Translators: the range of a heatmap's row bars: "±0.123". */
  g_autofree char *range = g_strdup_printf (_ ("±%s"), number);
  PangoLayout *text = ar_text_layout (pc, style, range, AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, w);
  ar_text_draw (cr, text, cx, top + height + 2, 0.5, 0.0, 0);
  g_object_unref (text);
  cairo_restore (cr);
}

/* colorbar-render.c — the colour bar: 256 bands, ticks, labels. */
#include "colorbar-render.h"

#include <math.h>

#include "axis-ticks.h"
#include "render-text.h"

#define TICK_LENGTH 4.0
#define TICK_GAP 3.0
#define LABEL_GAP 8.0
/* Fewer ticks than this many units apart would collide. */
#define TICK_SPACING 28.0

static void
compute_ticks (AsTicks *ticks, const AsColorbar *bar, double height)
{
  int target = CLAMP ((int) (height / TICK_SPACING), 2, 6);
  if (bar->vmax > bar->vmin)
    as_ticks_compute (ticks, bar->vmin, bar->vmax, target);
  else
    ticks->n = 0, ticks->decimals = 2;
}

/* The widest tick label, measured at the largest tick count (the most decimals) so that the
 * width does not depend on the height. */
static double
widest_tick_label (PangoContext *pc, const AsRenderStyle *style, const AsColorbar *bar)
{
  AsTicks ticks;
  compute_ticks (&ticks, bar, 6 * TICK_SPACING);
  double widest = 0, w;
  for (int i = 0; i < ticks.n; i++)
    {
      g_autofree char *text = as_format_number (ticks.values[i], ticks.decimals);
      as_text_measure (pc, style, text, AS_FONT_SMALL, PANGO_WEIGHT_NORMAL, &w, NULL);
      widest = MAX (widest, w);
    }
  return widest;
}

double
as_colorbar_get_width (PangoContext *pc, const AsRenderStyle *style, const AsColorbar *bar)
{
  double h = 0;
  double width
      = AS_COLORBAR_BAR_WIDTH + TICK_LENGTH + TICK_GAP + widest_tick_label (pc, style, bar);
  if (bar->label != NULL && *bar->label != '\0')
    {
      as_text_measure (pc, style, bar->label, AS_FONT_TICK, PANGO_WEIGHT_NORMAL, NULL, &h);
      width += LABEL_GAP + h;
    }
  return ceil (width);
}

static void
draw_bands (cairo_t *cr, const AsColorbar *bar, double x, double y, double height)
{
  double band = height / 256.0;
  /* Bottom to top, each band reaching one band into the next so anti-aliased seams blend two
   * neighbouring colours instead of letting the background through. */
  for (int i = 0; i < 256; i++)
    {
      double bottom = y + height - i * band;
      double top = MAX (y, bottom - (i < 255 ? 2 : 1) * band);
      as_render_set_color8 (cr, as_colormap_entry (bar->colormap, i));
      cairo_rectangle (cr, x, top, AS_COLORBAR_BAR_WIDTH, bottom - top);
      cairo_fill (cr);
    }
}

void
as_colorbar_draw (cairo_t *cr, PangoContext *pc, const AsRenderStyle *style, const AsColorbar *bar,
                  double x, double y, double height)
{
  if (height <= 0)
    return;
  draw_bands (cr, bar, x, y, height);

  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  as_render_set_rgb (cr, style->muted);
  cairo_rectangle (cr, x - 0.5, y - 0.5, AS_COLORBAR_BAR_WIDTH + 1, height + 1);
  cairo_stroke (cr);

  AsTicks ticks;
  compute_ticks (&ticks, bar, height);
  double right = x + AS_COLORBAR_BAR_WIDTH;
  for (int i = 0; i < ticks.n; i++)
    {
      double t = (ticks.values[i] - bar->vmin) / (bar->vmax - bar->vmin);
      double ty = y + height - t * height;
      as_render_set_rgb (cr, style->rule);
      cairo_move_to (cr, right, ty);
      cairo_line_to (cr, right + TICK_LENGTH, ty);
      cairo_stroke (cr);
      g_autofree char *text = as_format_number (ticks.values[i], ticks.decimals);
      PangoLayout *layout = as_text_layout (pc, style, text, AS_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
      as_render_set_rgb (cr, style->text);
      as_text_draw (cr, layout, right + TICK_LENGTH + TICK_GAP, ty, 0, 0.5, 0);
      g_object_unref (layout);
    }
  if (bar->label != NULL && *bar->label != '\0')
    {
      PangoLayout *layout
          = as_text_layout (pc, style, bar->label, AS_FONT_TICK, PANGO_WEIGHT_NORMAL, height);
      as_render_set_rgb (cr, style->muted);
      double lx = right + TICK_LENGTH + TICK_GAP + widest_tick_label (pc, style, bar) + LABEL_GAP;
      as_text_draw (cr, layout, lx, y + height / 2, 0.5, 0, -G_PI / 2);
      g_object_unref (layout);
    }
  cairo_restore (cr);
}
